// The record `edgetrain crosscheck` replays under ns-3: every transfer of a flow-level run (hosts,
// bytes, start, end, round) and what it waited for. The link ledger reports each transfer as it
// begins and ends. Causes follow one rule for every topology: a transfer a host sends waits for
// the transfers the host received since it last began sending (a device's upload follows the
// download it trained on; the server's broadcast follows the uploads it aggregated; later sends of
// one broadcast share those causes), and starts as long after the last of them as it did here
// (compute, aggregation, waiting for data). A host that has received nothing starts its transfer
// at its flow-level time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "packet/workload.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

class TransferLog {
 public:
  // `round` names the round a transfer begins in (the updates applied so far + 1).
  explicit TransferLog(std::function<int64_t()> round) : round_(std::move(round)) {}
  void began(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, int64_t bytes, double now);
  void ended(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double now);

  // The transfers that ended between two different hosts, with their routes' links (SimGrid's
  // route_to) and causes among them. `local` counts those left out as a host's messages to itself.
  packet::Workload workload(int64_t& local) const;

 private:
  struct Entry {
    const simgrid::s4u::Host *from, *to;
    packet::Transfer transfer;
    bool ended = false;
  };
  struct HostState {
    std::vector<size_t> received;  // ended since the host last began sending
    std::vector<size_t> causes;    // of its latest send
  };
  std::function<int64_t()> round_;
  std::vector<Entry> entries_;
  std::map<const simgrid::s4u::Host*, HostState> hosts_;
  std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::deque<size_t>> open_;
};

}  // namespace edgetrain::sim

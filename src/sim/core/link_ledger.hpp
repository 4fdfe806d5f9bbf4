// Bytes carried by every link of the platform, and the time each link was busy. Each completed
// message adds its size to every link on its route, and its size over the link's bandwidth then to
// the link's full-load time (the integral of its utilisation, for energy_meter.hpp) (SimGrid's route_to; routes cached
// per host pair); each transfer marks the links of its route busy from its start to its end, so a link's busy time is
// the union of the transfers crossing it. SimGrid's link_load plugin integrates usage over time but counts no payload
// bytes and no busy time, hence this ledger.
// It also records each link's peak rate, exactly: rates are constant between two advances of the
// clock, so sample_rates(), called at every advance, reads the rate every busy link carried over the
// interval that just ended (SimGrid's solution: the sum of its flows' rates, or on a FATPIPE link
// such as the loopback the largest flow's, which is what bounds each flow there). capacity_check.hpp
// compares them with the bandwidths.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "report/run_record.hpp"

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

class TransferLog;

class LinkLedger {
 public:
  // Every transfer's begin and end also go to `log` (edgetrain crosscheck), when given.
  void record_transfers(TransferLog* log) { log_ = log; }
  void carried(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, int64_t bytes);
  // A transfer of `bytes` from `from` to `to` starts, or ends (delivered, failed or cancelled), now.
  void begin(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, int64_t bytes);
  void end(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);
  // Every link of the platform, sorted by name (unused links with zero bytes); a link still busy
  // at `end_s` counts as busy up to it.
  std::vector<report::LinkRow> records(double end_s) const;
  // Seconds of full-bandwidth use so far (delivered messages' bytes / bandwidth); 0 if unused.
  double full_load_s(const std::string& link) const;
  // The clock has just advanced by `delta_s`: the rate each busy link carried meanwhile.
  void sample_rates(double delta_s);

  // A link's highest rate against its bandwidth at that time, over the run.
  struct Peak {
    std::string link;
    const simgrid::s4u::Link* handle = nullptr;
    double utilization = 0;                                        // rate / bandwidth at its highest
    double rate_Bps = 0, bandwidth_Bps = 0, from_s = 0, to_s = 0;  // then, in the interval it was seen in
    bool bandwidth_changed = false;                                // a trace changed it while busy
  };
  // Every link that carried something, in name order.
  std::vector<Peak> peaks() const;

  // Marks a transfer's route busy for the lifetime of this object (also when the transfer throws).
  class Transfer {
   public:
    Transfer(LinkLedger& ledger, const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, int64_t bytes)
        : ledger_(ledger), from_(from), to_(to) {
      ledger_.begin(from_, to_, bytes);
    }
    ~Transfer() { ledger_.end(from_, to_); }
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;

   private:
    LinkLedger& ledger_;
    const simgrid::s4u::Host *from_, *to_;
  };

 private:
  struct Usage {
    std::string name;
    const simgrid::s4u::Link* link = nullptr;
    int64_t bytes = 0, messages = 0;
    int64_t in_flight = 0;  // transfers crossing the link now
    double busy_since = 0, busy_s = 0;
    double full_load_s = 0;
    double initial_bandwidth_Bps = 0;
    size_t busy_index = 0;  // its place in busy_ while in flight
    Peak peak;
  };
  const std::vector<size_t>& route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);
  // Looked up at each transfer's begin and end: hashed, since a fleet of 100,000 devices has 200,000 routes.
  struct PairHash {
    size_t operator()(const std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  std::unordered_map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::vector<size_t>, PairHash>
      routes_;
  std::map<std::string, size_t> index_;  // link name -> its entry in usage_
  std::vector<Usage> usage_;
  std::vector<size_t> busy_;  // the links in flight now
  TransferLog* log_ = nullptr;
};

}  // namespace edgetrain::sim

#include "sim/core/transfer_log.hpp"

#include <algorithm>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/core/network_calibration.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void TransferLog::began(const sg4::Host* from, const sg4::Host* to, int64_t bytes, double now) {
  HostState& sender = hosts_[from];
  if (!sender.received.empty()) sender.causes = std::exchange(sender.received, {});
  Entry e{from, to, {}, false};
  e.transfer.src = from->get_name();
  e.transfer.dst = to->get_name();
  e.transfer.bytes = bytes;
  e.transfer.causes = sender.causes;
  double last = 0;
  for (const size_t c : sender.causes) last = std::max(last, entries_[c].transfer.flow_end_s);
  e.transfer.gap_s = sender.causes.empty() ? 0 : now - last;
  e.transfer.start_s = now;
  e.transfer.flow_start_s = now;
  e.transfer.round = round_();
  open_[{from, to}].push_back(entries_.size());
  entries_.push_back(std::move(e));
}

void TransferLog::ended(const sg4::Host* from, const sg4::Host* to, double now) {
  auto& open = open_[{from, to}];
  if (open.empty()) return;
  const size_t id = open.front();
  open.pop_front();
  entries_[id].transfer.flow_end_s = now;
  entries_[id].ended = true;
  hosts_[to].received.push_back(id);
}

packet::Workload TransferLog::workload(int64_t& local) const {
  packet::Workload w;
  local = 0;
  std::map<std::string, size_t> link_index;
  std::map<std::pair<const sg4::Host*, const sg4::Host*>, std::vector<size_t>> routes;
  std::vector<size_t> index(entries_.size(), SIZE_MAX);  // entry -> transfer in the workload
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (!e.ended) continue;
    if (e.from == e.to) {
      ++local;
      continue;
    }
    auto [route, added] = routes.emplace(std::pair{e.from, e.to}, std::vector<size_t>{});
    if (added) {
      std::vector<sg4::Link*> links;
      double latency = 0;
      e.from->route_to(e.to, links, &latency);
      for (const sg4::Link* l : links) {
        auto [it, is_new] = link_index.emplace(l->get_name(), w.links.size());
        if (is_new) w.links.push_back(packet_link(l));
        route->second.push_back(it->second);
      }
    }
    packet::Transfer t = e.transfer;
    t.route = route->second;
    t.causes.clear();
    for (const size_t c : e.transfer.causes)
      if (index[c] != SIZE_MAX) t.causes.push_back(index[c]);
    if (t.causes.empty() && !e.transfer.causes.empty()) {
      // Its causes were a host's messages to itself: it starts at its flow-level time.
      t.gap_s = 0;
    }
    index[i] = w.transfers.size();
    w.transfers.push_back(std::move(t));
  }
  return w;
}

}  // namespace edgetrain::sim

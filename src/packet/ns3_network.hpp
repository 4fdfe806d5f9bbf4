// A SimGrid platform as ns-3 nodes. Each link is a full-duplex point-to-point channel between two
// nodes of its own: data always crosses it from its "in" node to its "out" node, so every flow on
// it, whatever its direction between hosts, queues at the same device and shares its rate, as a
// SHARED link shares its bandwidth in SimGrid; each flow's acknowledgements go back the other way
// along the same channels (the flow model does not count them). Hosts and consecutive links of a
// route are joined by glue channels that add no measurable time (100 Gbit/s, no delay). A host's
// end of the glue into a route's first link is where acknowledgements return (ns-3 takes it as
// the connection's source), and its end of the glue out of the last link is where data goes, so
// both can be routed statically, one host route per address on every node of a path: a node that
// would need two next hops toward one address cannot be mapped and is refused.
#pragma once

#include <map>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <string>
#include <utility>
#include <vector>

#include "packet/tcp_settings.hpp"
#include "packet/workload.hpp"

namespace edgetrain::packet {

class Ns3Network {
 public:
  // Builds the nodes, channels and routes every transfer of `workload` needs (its route and its
  // back route). Throws MappingError naming the element it cannot map.
  Ns3Network(const Workload& workload, const TcpSettings& tcp);

  ns3::Ptr<ns3::Node> host(const std::string& name) const { return node(hosts_.at(name)); }
  // Where transfer t's data goes: its destination's address on the channel its route arrives by.
  ns3::Ipv4Address destination(size_t t) const { return destinations_.at(t); }
  // Largest round-trip time of any transfer's path (twice its latencies).
  double max_rtt_s() const { return max_rtt_s_; }

 private:
  struct Hop {
    uint32_t interface = 0;     // on the node the packet leaves
    ns3::Ipv4Address next;      // the neighbour's address on that channel
  };
  ns3::Ptr<ns3::Node> node(uint32_t index) const { return nodes_.Get(index); }
  uint32_t new_node();
  uint32_t host_node(const std::string& name);
  void connect(uint32_t a, uint32_t b, double rate_bps, double delay_s, uint32_t queue_packets, bool fq_codel);
  // The queue of a link's channel under the configured queue (tcp_settings.hpp).
  uint32_t queue_packets(const Link& link, double rtt_s) const;
  void route(const std::vector<uint32_t>& path, ns3::Ipv4Address destination, const Transfer& transfer);
  std::vector<uint32_t> path(const Transfer& transfer);

  const Workload& workload_;
  const TcpSettings& tcp_;
  ns3::NodeContainer nodes_;
  ns3::InternetStackHelper stack_;
  ns3::Ipv4AddressHelper addresses_helper_;
  std::map<std::string, uint32_t> hosts_;
  std::vector<ns3::Ipv4Address> destinations_;                 // per transfer
  std::map<size_t, std::pair<uint32_t, uint32_t>> link_nodes_;  // link -> (in, out)
  std::map<std::pair<uint32_t, uint32_t>, Hop> hops_;           // (node, neighbour) -> the way there
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> next_;      // (node, destination address) -> neighbour
  std::map<size_t, double> link_rtt_s_;  // link -> the longest round trip of a path across it
  double max_rtt_s_ = 0;
};

}  // namespace edgetrain::packet

#include "packet/ns3_network.hpp"

#include <algorithm>
#include <cmath>
#include <ns3/point-to-point-module.h>
#include <ns3/traffic-control-module.h>

#include "packet/error.hpp"

namespace edgetrain::packet {

namespace {

// Glue between a host and its first link, or between two links of a route: no measurable time.
constexpr double kGlueRate_bps = 100e9;
constexpr uint32_t kGlueQueuePackets = 1000;  // never fills: the glue outruns every link
constexpr uint32_t kMinBdpQueuePackets = 10;
// The device queue behind fq_codel: ns-3 stops the disc when it is full (as Linux's BQL does), so the
// disc, not this queue, decides which flow's packets wait and which are dropped.
constexpr uint32_t kFqCodelDevicePackets = 100;

std::string sharing_refusal(const Link& link) {
  switch (link.sharing) {
    case Link::Sharing::fatpipe:
      return "link " + link.name + ": FATPIPE sharing (every flow at the full bandwidth) has no packet-level equivalent";
    case Link::Sharing::wifi:
      return "link " + link.name + ": Wi-Fi links cannot be mapped to ns-3's point-to-point channels";
    case Link::Sharing::shared:
      break;
  }
  return {};
}

}  // namespace

uint32_t Ns3Network::new_node() {
  nodes_.Create(1);
  const uint32_t index = nodes_.GetN() - 1;
  stack_.Install(node(index));
  return index;
}

uint32_t Ns3Network::host_node(const std::string& name) {
  const auto [it, added] = hosts_.emplace(name, 0);
  if (added) it->second = new_node();
  return it->second;
}

void Ns3Network::connect(uint32_t a, uint32_t b, double rate_bps, double delay_s, uint32_t queue_packets, bool fq_codel) {
  if (hops_.count({a, b})) return;
  ns3::PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(static_cast<uint64_t>(std::llround(rate_bps)))));
  p2p.SetChannelAttribute("Delay", ns3::TimeValue(ns3::Seconds(delay_s)));
  p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
               ns3::QueueSizeValue(ns3::QueueSize(ns3::QueueSizeUnit::PACKETS, queue_packets)));
  const ns3::NetDeviceContainer devices = p2p.Install(node(a), node(b));
  const ns3::Ipv4InterfaceContainer interfaces = addresses_helper_.Assign(devices);
  addresses_helper_.NewNetwork();
  // Assign installs ns-3's default queue disc: routers of the reference are plain drop-tail queues,
  // or fq_codel when asked, installed as Linux has it (its own limit, the device queue behind it).
  ns3::TrafficControlHelper().Uninstall(devices);
  if (fq_codel) {
    ns3::TrafficControlHelper tc;
    tc.SetRootQueueDisc("ns3::FqCoDelQueueDisc");
    tc.Install(devices);
  }
  const auto interface_on = [&](uint32_t n, size_t i) {
    return static_cast<uint32_t>(node(n)->GetObject<ns3::Ipv4>()->GetInterfaceForDevice(devices.Get(i)));
  };
  hops_[{a, b}] = Hop{interface_on(a, 0), interfaces.GetAddress(1)};
  hops_[{b, a}] = Hop{interface_on(b, 1), interfaces.GetAddress(0)};
}

uint32_t Ns3Network::queue_packets(const Link& link, double rtt_s) const {
  switch (tcp_.queue.kind) {
    case QueueConfig::Kind::drop_tail:
      return tcp_.queue.packets;
    case QueueConfig::Kind::bdp:
      // At least a few frames, so a link of tiny BDP still holds a burst of the initial window's ACKs.
      return std::max<uint32_t>(kMinBdpQueuePackets, static_cast<uint32_t>(std::ceil(link.bandwidth_Bps * rtt_s / (tcp_.mss_bytes + 54.0))));
    case QueueConfig::Kind::fq_codel:
      return kFqCodelDevicePackets;
  }
  return tcp_.queue.packets;
}

std::vector<uint32_t> Ns3Network::path(const Transfer& transfer) {
  if (transfer.route.empty())
    throw MappingError("hosts " + transfer.src + " and " + transfer.dst +
                       ": the route between them has no link to map to ns-3");
  std::vector<uint32_t> nodes{host_node(transfer.src)};
  for (const size_t l : transfer.route) {
    const Link& link = workload_.links.at(l);
    if (const auto why = sharing_refusal(link); !why.empty()) throw MappingError(why);
    if (!(link.bandwidth_Bps > 0) || !std::isfinite(link.bandwidth_Bps))
      throw MappingError("link " + link.name + ": a bandwidth of " + std::to_string(link.bandwidth_Bps) +
                         " B/s cannot be mapped to ns-3");
    auto [it, added] = link_nodes_.emplace(l, std::pair<uint32_t, uint32_t>{0, 0});
    if (added) {
      it->second = {new_node(), new_node()};
      connect(it->second.first, it->second.second, link.bandwidth_Bps * 8, link.latency_s,
              queue_packets(link, link_rtt_s_.at(l)), tcp_.queue.kind == QueueConfig::Kind::fq_codel);
    }
    connect(nodes.back(), it->second.first, kGlueRate_bps, 0, kGlueQueuePackets, false);
    nodes.push_back(it->second.first);
    nodes.push_back(it->second.second);
  }
  const uint32_t last = host_node(transfer.dst);
  connect(nodes.back(), last, kGlueRate_bps, 0, kGlueQueuePackets, false);
  nodes.push_back(last);
  return nodes;
}

void Ns3Network::route(const std::vector<uint32_t>& nodes, ns3::Ipv4Address destination, const Transfer& transfer) {
  ns3::Ipv4StaticRoutingHelper helper;
  for (size_t i = 0; i + 1 < nodes.size(); ++i) {
    const auto [it, added] = next_.emplace(std::pair{nodes[i], destination.Get()}, nodes[i + 1]);
    if (!added) {
      if (it->second == nodes[i + 1]) continue;
      throw MappingError("the route from " + transfer.src + " to " + transfer.dst +
                         " leaves a node toward another next link than an earlier route to the same host did; "
                         "ns-3's static routes need one next hop per destination");
    }
    const Hop& hop = hops_.at({nodes[i], nodes[i + 1]});
    helper.GetStaticRouting(node(nodes[i])->GetObject<ns3::Ipv4>())->AddHostRouteTo(destination, hop.next, hop.interface);
  }
}

Ns3Network::Ns3Network(const Workload& workload, const TcpSettings& tcp) : workload_(workload), tcp_(tcp) {
  stack_.SetIpv6StackInstall(false);
  ns3::Ipv4StaticRoutingHelper static_routes;
  stack_.SetRoutingHelper(static_routes);
  addresses_helper_.SetBase("10.0.0.0", "255.255.255.252");
  for (const Transfer& t : workload.transfers) {
    double one_way = 0;
    for (const size_t l : t.route) one_way += workload.links[l].latency_s;
    max_rtt_s_ = std::max(max_rtt_s_, 2 * one_way);
    for (const size_t l : t.route) link_rtt_s_[l] = std::max(link_rtt_s_[l], 2 * one_way);
  }
  std::vector<std::vector<uint32_t>> paths;
  for (const Transfer& t : workload.transfers) paths.push_back(path(t));
  // Routes once every channel exists: data along the route, acknowledgements back along it.
  for (size_t t = 0; t < paths.size(); ++t) {
    const std::vector<uint32_t>& nodes = paths[t];
    destinations_.push_back(hops_.at({nodes[nodes.size() - 2], nodes.back()}).next);
    route(nodes, destinations_.back(), workload.transfers[t]);
    route({nodes.rbegin(), nodes.rend()}, hops_.at({nodes[1], nodes[0]}).next, workload.transfers[t]);
  }
}

}  // namespace edgetrain::packet

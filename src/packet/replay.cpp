#include "packet/replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/ipv4-address-generator.h>

#include "packet/error.hpp"
#include "packet/linux_rtt.hpp"
#include "packet/ns3_network.hpp"
#include "util/format.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::packet {

namespace {

// A SYN or SYN-ACK with its options and headers, rounded up: the spacing of the connections' opening.
constexpr double kHandshakeFrameBytes = 128;

// How often the replay looks at the stop flag, in simulated seconds.
constexpr double kStopCheck_s = 0.05;

// What the application hands the socket at a time, as it writes a message in pieces while the
// send buffer drains (one piece of many megabytes crashes ns-3 3.37's rate sampler).
constexpr uint32_t kWriteBytes = 65536;
constexpr uint32_t kSendBufferBytes = 4194304;

void configure_tcp(const TcpSettings& tcp) {
  ns3::Config::SetDefault("ns3::TcpL4Protocol::SocketType", ns3::TypeIdValue(ns3::TypeId::LookupByName(tcp.congestion)));
  ns3::Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", ns3::TypeIdValue(ns3::TypeId::LookupByName(tcp.recovery)));
  ns3::Config::SetDefault("ns3::TcpSocket::SegmentSize", ns3::UintegerValue(tcp.mss_bytes));
  ns3::Config::SetDefault("ns3::TcpSocket::InitialCwnd", ns3::UintegerValue(tcp.initial_window));
  ns3::Config::SetDefault("ns3::TcpSocket::RcvBufSize", ns3::UintegerValue(tcp.receive_window_bytes));
  ns3::Config::SetDefault("ns3::TcpSocketBase::MinRto", ns3::TimeValue(ns3::Seconds(tcp.min_rto_s)));
  ns3::Config::SetDefault("ns3::TcpSocket::DataRetries", ns3::UintegerValue(tcp.data_retries));
  ns3::Config::SetDefault("ns3::TcpSocket::SndBufSize", ns3::UintegerValue(kSendBufferBytes));
  ns3::Config::SetDefault("ns3::TcpSocket::DelAckTimeout", ns3::TimeValue(ns3::Seconds(tcp.delayed_ack_s)));
  ns3::Config::SetDefault("ns3::TcpL4Protocol::RttEstimatorType",
                          ns3::TypeIdValue(tcp.linux_rto ? LinuxRttEstimator::GetTypeId() : ns3::RttMeanDeviation::GetTypeId()));
  ns3::Config::SetDefault("edgetrain::LinuxRttEstimator::MinRto", ns3::TimeValue(ns3::Seconds(tcp.min_rto_s)));
}

// The replay's state: which transfers wait for how many causes, and the sockets.
class Replay {
 public:
  Replay(const Workload& workload, const Ns3Network& network, double offset_s, double connect_spacing_s)
      : workload_(workload), network_(network), offset_s_(offset_s), connect_spacing_s_(connect_spacing_s),
        timing_(workload.transfers.size()),
        waiting_(workload.transfers.size()), senders_(workload.transfers.size()), received_(workload.transfers.size()),
        unsent_(workload.transfers.size()), last_sent_(workload.transfers.size()),
        started_(workload.transfers.size()) {
    dependents_.resize(workload.transfers.size());
    for (size_t t = 0; t < workload.transfers.size(); ++t) {
      waiting_[t] = workload.transfers[t].causes.size();
      for (const size_t c : workload.transfers[t].causes) dependents_.at(c).push_back(t);
    }
  }

  void open_connections() {
    std::map<std::string, uint16_t> next_port;
    for (size_t t = 0; t < workload_.transfers.size(); ++t) {
      const Transfer& transfer = workload_.transfers[t];
      uint16_t& port = next_port.emplace(transfer.dst, 1024).first->second;
      if (port == std::numeric_limits<uint16_t>::max())
        throw MappingError("host " + transfer.dst + ": more than 64,000 transfers to one host in one replay");
      ++port;
      const auto tcp = ns3::TcpSocketFactory::GetTypeId();
      ns3::Ptr<ns3::Socket> listener = ns3::Socket::CreateSocket(network_.host(transfer.dst), tcp);
      listener->Bind(ns3::InetSocketAddress(ns3::Ipv4Address::GetAny(), port));
      listener->Listen();
      listener->SetAcceptCallback(ns3::MakeNullCallback<bool, ns3::Ptr<ns3::Socket>, const ns3::Address&>(),
                                  ns3::MakeCallback(&Replay::accepted, this));
      listeners_.push_back(listener);
      by_port_[{listener->GetNode()->GetId(), port}] = t;
      senders_[t] = ns3::Socket::CreateSocket(network_.host(transfer.src), tcp);
      senders_[t]->Bind();
      senders_[t]->SetSendCallback(ns3::MakeCallback(&Replay::writable, this));
      senders_[t]->TraceConnectWithoutContext("Tx", ns3::MakeBoundCallback(&Replay::sent, this, t));
      senders_[t]->TraceConnectWithoutContext("RTO", ns3::MakeBoundCallback(&Replay::timeout_changed, this, t));
      sender_of_[senders_[t]] = t;
      ns3::Simulator::Schedule(ns3::Seconds(static_cast<double>(t) * connect_spacing_s_), &Replay::connect, this, t, port);
      if (transfer.causes.empty()) ns3::Simulator::Schedule(ns3::Seconds(offset_s_ + transfer.start_s), &Replay::start, this, t);
    }
  }

  void watch_stop_flag() {
    if (util::stop_requested()) {
      ns3::Simulator::Stop();
      return;
    }
    if (done_ < workload_.transfers.size())
      ns3::Simulator::Schedule(ns3::Seconds(kStopCheck_s), &Replay::watch_stop_flag, this);
  }

  std::vector<Timing> result() const {
    util::throw_if_stopped("replaying the transfers under ns-3");
    for (size_t t = 0; t < timing_.size(); ++t)
      if (received_[t] < workload_.transfers[t].bytes)
        throw std::logic_error("packet-level replay: transfer " + std::to_string(t) + " from " +
                               workload_.transfers[t].src + " to " + workload_.transfers[t].dst + " never ended");
    return timing_;
  }

 private:
  void start(size_t t) {
    timing_[t].start_s = (ns3::Simulator::Now() - ns3::Seconds(offset_s_)).GetSeconds();
    started_[t] = true;
    unsent_[t] = workload_.transfers[t].bytes;
    write(t);
  }

  // Hands the socket what its send buffer takes of the message, a piece at a time.
  void write(size_t t) {
    while (unsent_[t] > 0) {
      const uint32_t room = senders_[t]->GetTxAvailable();
      const auto piece = static_cast<uint32_t>(std::min<int64_t>({unsent_[t], room, kWriteBytes}));
      if (piece == 0 || senders_[t]->Send(ns3::Create<ns3::Packet>(piece)) < 0) return;
      unsent_[t] -= piece;
    }
  }

  void writable(ns3::Ptr<ns3::Socket> socket, uint32_t) { write(sender_of_.at(socket)); }

  void connect(size_t t, uint16_t port) { senders_[t]->Connect(ns3::InetSocketAddress(network_.destination(t), port)); }

  // The sender's segments out: the last one before a timeout fires starts the wait it counts.
  static void sent(Replay* r, size_t t, ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader&, ns3::Ptr<const ns3::TcpSocketBase>) {
    if (p->GetSize() > 0) r->last_sent_[t] = ns3::Simulator::Now().GetSeconds();
  }
  // ns-3 doubles the timeout (to at most 60 s) exactly when the retransmission timer expires
  // (RFC 6298 5.5); an RTT sample sets it from the estimator, never to exactly twice its value. At the
  // 60 s cap the value no longer changes and is not traced: a transfer that far has spent over a
  // hundred seconds in back-off already.
  static void timeout_changed(Replay* r, size_t t, ns3::Time before, ns3::Time after) {
    if (after != std::min(before + before, ns3::Seconds(60)) || before.IsZero()) return;
    if (!r->started_[t] || r->timing_[t].end_s != 0) return;  // the handshake's, or after the last byte
    const double now = ns3::Simulator::Now().GetSeconds();
    ++r->timing_[t].timeouts;
    r->timing_[t].backoff_s += now - r->last_sent_[t];
  }

  void accepted(ns3::Ptr<ns3::Socket> socket, const ns3::Address&) {
    ns3::Address local;
    socket->GetSockName(local);
    const uint16_t port = ns3::InetSocketAddress::ConvertFrom(local).GetPort();
    connections_[socket] = by_port_.at({socket->GetNode()->GetId(), port});
    socket->SetRecvCallback(ns3::MakeCallback(&Replay::readable, this));
  }

  void readable(ns3::Ptr<ns3::Socket> socket) {
    const size_t t = connections_.at(socket);
    while (ns3::Ptr<ns3::Packet> packet = socket->Recv()) {
      if (packet->GetSize() == 0) break;
      received_[t] += packet->GetSize();
    }
    if (received_[t] >= workload_.transfers[t].bytes && timing_[t].end_s == 0) ended(t);
  }

  void ended(size_t t) {
    timing_[t].end_s = (ns3::Simulator::Now() - ns3::Seconds(offset_s_)).GetSeconds();
    ++done_;
    for (const size_t d : dependents_[t])
      if (--waiting_[d] == 0) ns3::Simulator::Schedule(ns3::Seconds(workload_.transfers[d].gap_s), &Replay::start, this, d);
  }

  const Workload& workload_;
  const Ns3Network& network_;
  const double offset_s_;
  const double connect_spacing_s_;
  std::vector<Timing> timing_;
  std::vector<size_t> waiting_;
  std::vector<std::vector<size_t>> dependents_;
  std::vector<ns3::Ptr<ns3::Socket>> senders_;
  std::vector<int64_t> received_, unsent_;
  std::vector<double> last_sent_;
  std::vector<bool> started_;
  std::map<ns3::Ptr<ns3::Socket>, size_t> sender_of_;
  std::vector<ns3::Ptr<ns3::Socket>> listeners_;
  std::map<std::pair<uint32_t, uint16_t>, size_t> by_port_;  // (node, port) -> transfer
  std::map<ns3::Ptr<ns3::Socket>, size_t> connections_;
  size_t done_ = 0;
};

}  // namespace

std::string unreplayable(const Link& link) {
  if (link.bandwidth_Bps < kMinReplayBandwidth_Bps)
    return "link " + link.name + ": " + util::format_number(link.bandwidth_Bps * 8) +
           " bit/s is below what packet-level TCP can carry (" + util::format_number(kMinReplayBandwidth_Bps * 8) +
           " bit/s: a segment within TCP's timeouts)";
  if (link.latency_s > kMaxReplayLatency_s)
    return "link " + link.name + ": a latency of " + util::format_number(link.latency_s) +
           " s is above what packet-level TCP can connect over (" + util::format_number(kMaxReplayLatency_s) +
           " s: a handshake within TCP's retries)";
  return {};
}

std::vector<Timing> replay(const Workload& workload, const TcpSettings& tcp) {
  // TCP gives a connection up after its retries: a link that takes longer than its largest
  // retransmission timeout to carry one segment, or a path whose round trip outlasts the handshake's
  // retries, never delivers, and the replay would only say so at its end.
  for (const auto& link : workload.links)
    if (const std::string why = unreplayable(link); !why.empty()) throw MappingError(why);
  for (size_t t = 0; t < workload.transfers.size(); ++t) {
    const Transfer& transfer = workload.transfers[t];
    if (transfer.bytes <= 0) throw MappingError("transfer " + std::to_string(t) + ": no bytes to send");
    for (const size_t c : transfer.causes)
      if (c >= t) throw std::logic_error("packet-level replay: a transfer's cause must come before it");
  }
  configure_tcp(tcp);
  // Addresses are allocated process-wide: each replay numbers its channels from the start again.
  ns3::Ipv4AddressGenerator::Reset();
  std::vector<Timing> timing;
  {
    const Ns3Network network(workload, tcp);
    // Connections open one after the other, a handshake's frame apart on the slowest link: opened all
    // at once, thousands of SYNs (a secure-aggregation run's) overflowed a router queue, and ns-3's
    // retries, 3 s apart for all of them alike, collided again until the connections gave up. Transfers
    // start after this stretch and several handshakes' worth of the longest path.
    double slowest_Bps = INFINITY;
    for (const Link& link : workload.links) slowest_Bps = std::min(slowest_Bps, link.bandwidth_Bps);
    const double spacing_s = kHandshakeFrameBytes / slowest_Bps;
    const double offset_s = 1.0 + 6 * network.max_rtt_s() + static_cast<double>(workload.transfers.size()) * spacing_s;
    Replay replay(workload, network, offset_s, spacing_s);
    replay.open_connections();
    replay.watch_stop_flag();
    // A safety net, never reached by a replay that works: ten times every transfer one after the
    // other at its route's slowest link, plus an hour for retransmission back-offs.
    double serial_s = 0;
    for (const Transfer& t : workload.transfers) {
      double slowest = INFINITY, latency = 0;
      for (const size_t l : t.route) {
        slowest = std::min(slowest, workload.links[l].bandwidth_Bps);
        latency += workload.links[l].latency_s;
      }
      serial_s += t.start_s + t.gap_s + latency + static_cast<double>(t.bytes) / slowest;
    }
    ns3::Simulator::Stop(ns3::Seconds(offset_s + 10 * serial_s + 3600));
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    timing = replay.result();
  }
  return timing;
}

}  // namespace edgetrain::packet

// Decentralised gossip (topology.kind gossip, D-PSGD in the diffusion adapt-then-combine order):
// no server. Each device has a peer on its own host, an aggregator role with an inbox and a model
// store over the one member {the device}; the device actor is unchanged: its upstream is its
// peer's inbox and its courier runs on its own host (same-host transfers: SimGrid's loopback).
// Iteration t of peer i: it sends x_i to its device, which trains (one gradient, or local-sgd's
// local steps and delta) and pushes; the peer applies the update (adapt: x_i <- x_i - lr g_i),
// sends x_i to every neighbour's peer (an ExchangeMessage of the dense model, a real transfer
// over the platform's links) and replaces x_i by the Metropolis-Hastings average of its own and
// its neighbours' iteration-t models (combine, gossip_graph.hpp). A neighbour's models are taken
// in order: a fast peer runs at most one iteration ahead of its neighbours.
//
// The run's rounds are the iterations every peer completed; a monitor actor on the server host
// (the only non-daemon) ends the run at the stop conditions. The observer evaluates the devices'
// average model (GossipAverage) and the spread of the models around it.
//
// Each peer's exchanges are a real transfer over its device's links: they count as the devices'
// bytes, and as their communication time while they wait for their next model (the topology keeps
// the spans, core/time_ledger.hpp). summary.json has no server traffic, the graph, the bytes
// exchanged and the final spread of the models.
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/aggregate/sync_rounds.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/core/busy_spans.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/wakeup.hpp"
#include "sim/core/wire.hpp"
#include "sim/topology/gossip_average.hpp"
#include "sim/topology/gossip_graph.hpp"
#include "sim/topology/topology.hpp"
#include "util/seed.hpp"
#include "util/stop_flag.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_gossip, "edgetrain gossip peers");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

// Gossip peer -> neighbour peer: the sender's model after iteration `iteration`'s step (dense).
struct ExchangeMessage : Message {
  const char* kind() const override { return "gossip exchange"; }
  size_t sender = 0;  // the sending peer's device index
  int64_t iteration = 0;
  backend::ModelPayload model;
};

// A device's site for graph platform-neighbours: its host's `site` property, else its netzone.
std::string site_of(const sg4::Host& host) {
  if (const char* site = host.get_property("site")) return site;
  return host.get_englobing_zone()->get_name();
}

bool has_route(const sg4::Host* from, const sg4::Host* to) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  try {
    from->route_to(to, links, &latency);
  } catch (const std::exception&) {
    return false;
  }
  return !links.empty() || latency > 0;
}

// FLOPs a peer is charged on its host: the update applied to its model (as a server applies one
// update: SyncRounds::apply_flops), then the weighted sum of `models` models (a multiply and
// an add per value each).
double adapt_flops(int64_t params) { return SyncRounds::apply_flops(params, 1); }
double combine_flops(int64_t params, size_t models) {
  return 2.0 * static_cast<double>(params) * static_cast<double>(models);
}

// Iterations completed per peer; the run's rounds are their minimum. The monitor waits on it.
struct GossipProgress {
  explicit GossipProgress(size_t n) : done(n, 0) {}
  std::vector<int64_t> done;
  Wakeup changed;
};

// One direction of one edge: a daemon on the sending peer's host that transfers that peer's models,
// in the order posted, into the receiving peer's mailbox. The receiver is the mailbox's permanent
// receiver, so a transfer starts as soon as it is posted, concurrently with the sender's others,
// while the sending peer goes on. A blocking put: a run that ends mid-transfer simply kills it.
// The transfer crosses both devices' links: it is marked in flight in both devices' exchanges.
class ExchangeCourier {
 public:
  ExchangeCourier(LinkLedger& links, BusySpans& sender, BusySpans& receiver, const sg4::Host* from,
                  const sg4::Host* to, sg4::Mailbox* mailbox)
      : links_(links), sender_(sender), receiver_(receiver), from_(from), to_(to), mailbox_(mailbox) {}
  void post(std::unique_ptr<ExchangeMessage> message) {
    queue_.push_back(std::move(message));
    posted_.notify_one();
  }
  void run() {
    while (true) {
      posted_.wait([this] { return !queue_.empty(); });
      std::unique_ptr<ExchangeMessage> message = std::move(queue_.front());
      queue_.pop_front();
      const LinkLedger::Transfer busy(links_, from_, to_, message->bytes);
      const InFlight exchange(sender_, receiver_);
      mailbox_->put(static_cast<Message*>(message.get()), static_cast<uint64_t>(message->bytes));
      (void)message.release();  // delivered: the receiving peer owns it
    }
  }

 private:
  // Both devices' exchanges in flight for this object's lifetime (also when the put throws).
  struct InFlight {
    InFlight(BusySpans& a, BusySpans& b) : a(a), b(b) {
      a.begin(sg4::Engine::get_clock());
      b.begin(sg4::Engine::get_clock());
    }
    ~InFlight() {
      a.end(sg4::Engine::get_clock());
      b.end(sg4::Engine::get_clock());
    }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
    BusySpans &a, &b;
  };
  LinkLedger& links_;
  BusySpans &sender_, &receiver_;
  const sg4::Host *from_, *to_;
  sg4::Mailbox* mailbox_;
  Wakeup posted_;
  std::deque<std::unique_ptr<ExchangeMessage>> queue_;
};

// Like the downlink courier, it calls nothing deep: a small stack.
constexpr unsigned kExchangeCourierStackKiB = 16;  // Actor::set_stacksize counts KiB
// What each direction of an edge costs (its courier actor with a 16 KiB stack, SimGrid's actor and
// context, two mailboxes, the exchange in flight), fitted to the peak RSS of timing-only complete
// graphs of 50, 100 and 200 devices (2,450 to 39,800 directions): 20.8 KB each.
constexpr double kExchangeDirectionBytes = 20.8e3;

class GossipPeer {
 public:
  // `exchanges`: per device, the exchanges in flight over its links; `exchanged`: the run's bytes
  // exchanged between peers.
  GossipPeer(RunState& state, size_t index, const GossipGraph& graph, Inbox& inbox, backend::ModelStore& store,
             GossipProgress& progress, std::vector<BusySpans>& exchanges, int64_t& exchanged)
      : state_(state),
        index_(index),
        inbox_(inbox),
        source_(backend::role<backend::ModelSource>(store)),
        sum_(backend::role<backend::RoundAggregation>(store)),
        mixing_(backend::role<backend::ModelMixing>(store)),
        progress_(progress),
        exchanged_(exchanged) {
    const std::string& me = state.scenario.devices[index].name;
    for (size_t j : graph.neighbours[index]) {
      util::throw_if_stopped("setting up the gossip exchanges");  // a complete graph of n devices: n(n-1)
      const std::string& other = state.scenario.devices[j].name;
      auto out = std::make_shared<ExchangeCourier>(state.links, exchanges[index], exchanges[j],
                                                   state.device_hosts[index], state.device_hosts[j],
                                                   sg4::Mailbox::by_name("gossip/" + me + "->" + other));
      // The courier's actor owns it too: it outlives this peer, which may end first.
      sg4::Actor::init("gossip/" + me + "->" + other, state.device_hosts[index])
          ->set_stacksize(kExchangeCourierStackKiB)
          ->start(guarded(state, [out] { out->run(); }))
          ->daemonize();
      neighbours_.push_back({j, graph.weight(index, j), out, sg4::Mailbox::by_name("gossip/" + other + "->" + me)});
    }
    self_weight_ = graph.weight(index, index);
  }
  // The neighbours' models come to this peer as soon as they are sent (it is their mailboxes'
  // permanent receiver), so a sender never waits for the receiver to ask.
  void receive_as(const sg4::ActorPtr& actor) {
    for (const auto& n : neighbours_) n.in->set_receiver(actor);
  }
  void operator()();

 private:
  struct Neighbour {
    size_t device;
    double weight;
    std::shared_ptr<ExchangeCourier> out;
    sg4::Mailbox* in;
  };
  // The device's update for iteration t, applied (adapt). False when no longer finite.
  bool adapt(int64_t t);
  // x_i to every neighbour, theirs received and averaged in (combine). False when no longer finite.
  bool combine(int64_t t);

  RunState& state_;
  size_t index_;
  Inbox& inbox_;
  backend::ModelSource& source_;
  backend::RoundAggregation& sum_;
  backend::ModelMixing& mixing_;
  GossipProgress& progress_;
  int64_t& exchanged_;
  std::vector<Neighbour> neighbours_;
  double self_weight_ = 1;
};

bool GossipPeer::adapt(int64_t t) {
  auto model = std::make_unique<ModelMessage>();
  model->round = t;
  model->posted_at_s = sg4::Engine::get_clock();
  model->from = inbox_.host();
  model->model = source_.payload_for(0);
  model->bytes = message_bytes(model->model.bytes);
  state_.devices[index_].rounds_selected += 1;  // every device takes part in every iteration
  state_.post_model(index_, std::move(model));
  const std::string me = "gossip peer of " + state_.scenario.devices[index_].name;
  const std::unique_ptr<UpdateMessage> update = expect<UpdateMessage>(inbox_.next(-1), me);
  state_.count_delivered(*update, inbox_.host());
  if (update->round != t) throw ProtocolError(me + " expected the update of iteration " + std::to_string(t));
  sg4::this_actor::execute(adapt_flops(state_.backend.cost().params));
  const double w = state_.mode.weight(update->samples);
  sum_.accumulate(update->update, 0, w);
  const bool finite = sum_.apply_accumulated(state_.mode.round_lr(static_cast<double>(update->samples)), w);
  return finite && std::isfinite(update->loss);
}

bool GossipPeer::combine(int64_t t) {
  sg4::Host* here = inbox_.host();
  const backend::ModelPayload mine = source_.dense_payload();
  const int64_t bytes = message_bytes(mine.bytes);
  // Every send at once: they share this host's links as the platform says.
  for (const Neighbour& n : neighbours_) {
    auto message = std::make_unique<ExchangeMessage>();
    message->sender = index_;
    message->iteration = t;
    message->model = mine;
    message->bytes = bytes;
    message->from = here;
    n.out->post(std::move(message));
  }
  std::vector<std::pair<backend::ModelPayload, double>> models{{mine, self_weight_}};
  for (const Neighbour& n : neighbours_) {
    const auto got = expect<ExchangeMessage>(std::unique_ptr<Message>(n.in->get<Message>()),
                                             "gossip peer of " + state_.scenario.devices[index_].name);
    if (got->iteration != t || got->sender != n.device) {
      throw ProtocolError("gossip peer of " + state_.scenario.devices[index_].name + " expected iteration " +
                          std::to_string(t) + " of " + state_.scenario.devices[n.device].name);
    }
    // Counted on delivery: the sender's bytes up, the receiver's bytes down, every link of the route.
    state_.links.carried(got->from, here, got->bytes);
    report::DeviceRecord& sender = state_.devices[n.device];
    sender.bytes_up += got->bytes;
    sender.bytes_up_uncompressed += got->bytes;
    state_.devices[index_].bytes_down += got->bytes;
    state_.bytes_up += got->bytes;
    state_.bytes_down += got->bytes;
    exchanged_ += got->bytes;
    models.emplace_back(got->model, n.weight);
  }
  sg4::this_actor::execute(combine_flops(state_.backend.cost().params, models.size()));
  return mixing_.mix(models);
}

void GossipPeer::operator()() {
  for (int64_t t = 0;; ++t) {
    const bool adapted = adapt(t);
    const bool finite = combine(t) && adapted;
    XBT_VERB("peer %zu: iteration %ld combined", index_, static_cast<long>(t));
    if (!finite) {
      state_.stop("diverged", "loss or parameters of device " + state_.scenario.devices[index_].name +
                                  " became NaN/Inf in iteration " + std::to_string(t));
    }
    progress_.done[index_] = t + 1;
    int64_t everyone = progress_.done[0];
    for (int64_t d : progress_.done) everyone = std::min(everyone, d);
    if (everyone > state_.rounds_done) state_.round_ends_s.push_back(sg4::Engine::get_clock());
    state_.rounds_done = everyone;
    progress_.changed.notify_all();
    // This peer's part is done once the run stops or it completed stop.rounds iterations (its
    // neighbours have its models): a model posted to its device now would be cut by the end of the run.
    const auto& rounds = state_.scenario.stop.rounds;
    if (state_.should_stop(sg4::Engine::get_clock()) || (rounds && t + 1 >= *rounds)) return;
  }
}

// Ends the run (the only actor that is not a daemon) at the first stop condition: checked each
// time a peer completes an iteration, and at stop.sim_time_s.
void monitor(RunState& state, GossipProgress& progress) {
  const double deadline = state.scenario.stop.sim_time_s.value_or(-1);
  const auto done = [&state] { return state.should_stop(sg4::Engine::get_clock()); };
  if (deadline < 0) {
    progress.changed.wait(done);
  } else {
    while (!progress.changed.wait_until(deadline, done)) {
    }
  }
}

std::vector<std::string> sites_of(const PlatformHosts& hosts) {
  std::vector<std::string> sites;
  for (const sg4::Host* h : hosts.devices) sites.push_back(site_of(*h));
  return sites;
}

// The scenario's gossip graph over its devices; every edge's two hosts checked for a route both
// ways (PlatformError naming the pair).
GossipGraph gossip_graph(const scenario::Scenario& scenario, const PlatformHosts& hosts) {
  const std::vector<std::string> sites = sites_of(hosts);
  const auto& topo = scenario.topology;
  GossipGraph graph = make_gossip_graph(topo.graph, hosts.devices.size(), topo.degree,
                                        util::derive_seed(scenario.seed, "gossip-graph"), sites);
  for (const auto& [i, j] : graph.edges()) {
    util::throw_if_stopped("checking the gossip graph's routes");
    if (has_route(hosts.devices[i], hosts.devices[j]) && has_route(hosts.devices[j], hosts.devices[i])) continue;
    throw PlatformError("topology.graph: devices \"" + scenario.devices[i].name + "\" (host " +
                        hosts.devices[i]->get_name() + ") and \"" + scenario.devices[j].name + "\" (host " +
                        hosts.devices[j]->get_name() + ") are " + topo.graph +
                        " neighbours but the platform has no route between them both ways");
  }
  return graph;
}

class Gossip : public Topology {
 public:
  explicit Gossip(const scenario::Scenario& scenario) : scenario_(scenario) {}

  // One courier per direction of each edge (before the sites are known, platform-neighbours counts
  // as one site: the most edges it can have).
  double extra_actors() const override {
    const auto n = static_cast<double>(scenario_.devices.size());
    const auto& topo = scenario_.topology;
    return topo.graph == "platform-neighbours"
               ? n * (n - 1)
               : 2 * gossip_edge_count(topo.graph, scenario_.devices.size(), topo.degree, {});
  }

  // No traffic to the server: the routes of the graph's edges are checked once it is built.
  std::vector<sg4::Host*> upstream_hosts(const sg4::Engine&, const scenario::Scenario& scenario,
                                         sg4::Host*) override {
    return std::vector<sg4::Host*>(scenario.devices.size(), nullptr);
  }

  // Each device's peer keeps its model, the decoded update and the round's sum, the momentum buffer,
  // and the model it last sent (held by its neighbours and device until they mix it in); each
  // direction of an edge has its courier.
  backend::TopologyMemory memory(const PlatformHosts& hosts) const override {
    const auto& topo = scenario_.topology;
    const double edges = gossip_edge_count(topo.graph, hosts.devices.size(), topo.degree, sites_of(hosts));
    return {.model_vectors = static_cast<double>(scenario_.devices.size()) *
                             (4 + (scenario_.training.momentum != 0 ? 1 : 0)),
            .other_bytes = 2 * edges * kExchangeDirectionBytes,
            .other_what = "gossip exchanges"};
  }

  // Built (and its routes checked) once the memory estimate allows it.
  void build(const PlatformHosts& hosts) override { graph_ = gossip_graph(scenario_, hosts); }

  std::string describe() const override {
    return "topology: gossip over a " + scenario_.topology.graph + " graph of " +
           std::to_string(graph_.edges().size()) + " edges, Metropolis-Hastings weights (no server traffic)\n";
  }

  Root start(RunState& state, const PlatformHosts& hosts) override;

  void summarize(const RunState& state, nlohmann::json& summary) const override {
    summary["bytes_to_server"] = 0;
    summary["bytes_from_server"] = 0;
    summary["gossip_graph"] = scenario_.topology.graph;
    summary["bytes_exchanged"] = bytes_exchanged_;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    summary["final_model_spread"] = state.evals.empty() ? nan : state.evals.back().model_spread.value_or(nan);
  }

 private:
  const scenario::Scenario& scenario_;
  GossipGraph graph_;
  std::vector<std::unique_ptr<Inbox>> inboxes_;               // each peer's
  std::vector<std::unique_ptr<backend::ModelStore>> stores_;  // each peer's, then their average
  // Per device, the exchanges with its neighbours in flight (sent or received by the peer on its
  // host), charged to its comm_s while it waits for its next model.
  std::vector<BusySpans> exchanges_;
  int64_t bytes_exchanged_ = 0;  // models delivered between peers (also in bytes_up and bytes_down)
};

Root Gossip::start(RunState& state, const PlatformHosts& hosts) {
  const size_t n = state.scenario.devices.size();
  auto progress = std::make_shared<GossipProgress>(n);
  exchanges_.resize(n);  // once: the couriers and the ledgers keep pointers into it
  for (size_t i = 0; i < n; ++i) state.ledgers[i].count_as_comm_while_waiting(&exchanges_[i]);
  std::vector<backend::ModelStore*> peers;  // their models, averaged for the observer
  for (size_t i = 0; i < n; ++i) {
    sg4::Host* host = hosts.devices[i];
    const std::string& name = state.scenario.devices[i].name;
    Inbox& inbox = *inboxes_.emplace_back(std::make_unique<Inbox>(host, "peer/" + name));
    state.upstream[i] = &inbox;
    state.lanes[i] = inbox.connect(name);
    state.couriers[i]->start(host, host, state.links);  // a same-host transfer: SimGrid's loopback
    backend::ModelStore& store = *stores_.emplace_back(state.backend.make_store({i}));
    peers.push_back(&store);
    auto peer = std::make_shared<GossipPeer>(state, i, graph_, inbox, store, *progress, exchanges_, bytes_exchanged_);
    // SimGrid copies actor functors, so the copies share one peer (and the progress).
    const sg4::ActorPtr actor =
        sg4::Actor::create("peer/" + name, host, guarded(state, [peer, progress] { (*peer)(); }));
    actor->daemonize();
    inbox.set_owner(actor);
    peer->receive_as(actor);
  }
  std::vector<size_t> everyone(n);
  for (size_t i = 0; i < n; ++i) everyone[i] = i;
  auto average = std::make_unique<GossipAverage>(state.backend.make_store(everyone), peers);
  backend::ModelEvaluation* evaluated = average.get();
  stores_.push_back(std::move(average));
  sg4::Actor::create("gossip-monitor", hosts.server, guarded(state, [&state, progress] { monitor(state, *progress); }));
  return {hosts.server, evaluated};
}

}  // namespace

std::unique_ptr<Topology> make_gossip(const scenario::Scenario& scenario) { return std::make_unique<Gossip>(scenario); }

}  // namespace edgetrain::sim

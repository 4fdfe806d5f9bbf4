// Hierarchical aggregation (topology.kind hierarchical; HierFAVG, Liu et al., ICC 2020): devices
// send to their site's aggregator, an actor on the site's host with an inbox and a model store of
// its own; the server is the cloud and aggregates the sites.
//
// Each cloud round (a round of the run: stop.rounds, a row of rounds.csv) the cloud sends its dense
// model to every site that is not still busy with an earlier round (a courier per site: a real
// transfer over the site's uplink). A site adopts it, runs topology.site_rounds synchronous rounds
// with its members (exactly a flat server's rounds: sync_rounds.hpp, selection per site), and sends
// the cloud its delta d_s = adopted - current, encoded with topology.site_compression, weighted by
// w_s = the samples the site aggregated since it adopted. The cloud takes the deltas as they come
// and, once every site reported (or at training.round_timeout_s), is charged params x (n + 2) FLOPs
// (the weighted sum of n deltas, the scaling, the step) and applies x <- x - sum w_s d_s / sum w_s,
// plainly: momentum, weight decay and learning rates were applied at the sites. A delta of an
// earlier cloud round arrives late and is counted, not applied. With topology.cloud_aggregation
// async the cloud instead applies each delta on arrival, x <- x - (m_s / M) d_s (the site's share of
// the devices), and sends that site the new model at once.
//
// The topology's own record (site_record.hpp) holds what the sites did, for summary.json: the
// bytes by level, bytes to and from the server (the cloud's sites), the sites and the deltas the
// cloud rounds missed.
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/aggregate/sync_rounds.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/observer.hpp"
#include "sim/core/wire.hpp"
#include "sim/topology/site_record.hpp"
#include "sim/topology/topology.hpp"
#include "util/seed.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_hierarchical, "edgetrain hierarchical aggregation");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

// FLOPs the cloud is charged to apply n site deltas.
double cloud_apply_flops(int64_t params, int64_t deltas) {
  return static_cast<double>(params) * static_cast<double>(deltas + 2);
}

// Site aggregator -> cloud: the site's model delta since it adopted the cloud's model, weighted at
// the cloud by the samples the site aggregated meanwhile.
struct SiteUpdateMessage : Message {
  const char* kind() const override { return "site update"; }
  size_t site = 0;    // index in topology.sites
  int64_t round = 0;  // the cloud round whose model the site adopted
  backend::UpdatePayload update;
  int64_t samples = 0;         // samples in the device updates the site applied since adopting
  bool finite = true;          // the site's losses and model stayed finite
  std::string slowest_device;  // the last device to report in the site's last round
};

// Order among deltas delivered at the cloud at the same instant (inbox.hpp): by site.
size_t arrival_rank(const SiteUpdateMessage& m) { return m.site; }

// What the cloud and its sites share: each site's courier, its lane in the cloud's inbox, and
// whether it owes the cloud a delta (a model was sent and neither a delta nor a failure came back).
struct Sites {
  Inbox* cloud = nullptr;
  std::vector<DownlinkCourier*> couriers;  // owned by the topology
  std::vector<size_t> lanes;
  std::vector<bool> outstanding;
  HierarchyRecord* record = nullptr;
};

class SiteAggregator {
 public:
  SiteAggregator(RunState& state, Sites& sites, size_t site, Inbox& inbox, std::vector<size_t> members,
                 backend::ModelStore& store)
      : state_(state),
        sites_(sites),
        site_(site),
        adoption_(backend::role<backend::ModelAdoption>(store)),
        rounds_(state, inbox, std::move(members), store,
                util::derive_seed(state.scenario.seed, "site-selection", site)) {}

  void operator()() {
    SiteRecord& record = sites_.record->sites[site_];
    sg4::Host* here = sg4::this_actor::get_host();
    const std::string me = "site aggregator on " + here->get_name();
    while (true) {
      std::unique_ptr<ModelMessage> model;
      try {
        model = expect<ModelMessage>(sites_.couriers[site_]->receive(), me);
      } catch (const simgrid::NetworkFailureException&) {
        record.models_failed += 1;  // a link fault cut the cloud's model: the site owes nothing
        owes_nothing();
        continue;
      }
      record.bytes_from_cloud += model->bytes;
      state_.links.carried(model->from, here, model->bytes);
      // The flat server's rule for empty rounds, at the site: the version (the round number the
      // devices' updates carry) changes only with the site's model, so a straggler of an empty round
      // is aggregated later. A new tag is needed when the adopted model differs from the one the
      // last round's devices were sent (a new cloud version, or site rounds applied since the last
      // adopt), unless no round was sent the current tag yet (after an applied round).
      const bool changes = applied_since_adopt_ || model->round != adopted_cloud_round_;
      if (changes && tag_sent_) {
        ++version_;
        tag_sent_ = false;
      }
      adopted_cloud_round_ = model->round;
      applied_since_adopt_ = false;
      adoption_.adopt(model->model);
      auto delta = std::make_unique<SiteUpdateMessage>();
      delta->site = site_;
      delta->round = model->round;
      for (int64_t r = 0; r < state_.scenario.topology.site_rounds; ++r) {
        const RoundResult result = rounds_.run(version_, draw_++);
        if (result.ended) {
          state_.stop("completed", "stop.sim_time_s reached");
          return;
        }
        tag_sent_ = true;
        record.site_rounds += 1;
        delta->finite = delta->finite && result.finite;
        if (!result.row.applied) continue;  // an empty round: the model and its version stay
        ++version_;
        tag_sent_ = false;
        applied_since_adopt_ = true;
        delta->samples += static_cast<int64_t>(result.samples);
        delta->slowest_device = result.row.slowest_device;
      }
      delta->update = adoption_.delta_since_adopt();
      delta->bytes = message_bytes(delta->update.bytes);
      try {
        const LinkLedger::Transfer busy(state_.links, here, sites_.cloud->host(), delta->bytes);
        sites_.cloud->send(sites_.lanes[site_], std::move(delta));
      } catch (const simgrid::NetworkFailureException&) {
        if (state_.stopping()) return;
        record.deltas_failed += 1;
        owes_nothing();
      }
    }
  }

 private:
  void owes_nothing() {
    sites_.outstanding[site_] = false;
    sites_.cloud->poke();  // the cloud may be waiting for this site
  }
  RunState& state_;
  Sites& sites_;
  size_t site_;
  backend::ModelAdoption& adoption_;
  SyncRounds rounds_;
  int64_t version_ = 0;  // the site model's version: the round number its models and updates carry
  int64_t draw_ = 0;     // site rounds so far, empty ones too: each draws its own selection
  bool tag_sent_ = false, applied_since_adopt_ = false;
  int64_t adopted_cloud_round_ = -1;
};

class CloudAggregator {
 public:
  CloudAggregator(RunState& state, Sites& sites, backend::ModelStore& store)
      : state_(state),
        sites_(sites),
        source_(backend::role<backend::ModelSource>(store)),
        sum_(backend::role<backend::RoundAggregation>(store)),
        evaluation_(backend::role<backend::ModelEvaluation>(store)) {}

  void operator()() {
    if (state_.scenario.topology.cloud_async()) return on_arrival();
    while (!state_.should_stop(sg4::Engine::get_clock())) {
      if (!round()) break;
    }
  }

 private:
  // Posts the cloud's current model to site `s`, which then owes a delta.
  void send_model(size_t s) {
    auto model = std::make_unique<ModelMessage>();
    model->round = state_.rounds_done;
    model->posted_at_s = sg4::Engine::get_clock();
    model->from = sites_.cloud->host();
    model->model = source_.dense_payload();
    model->bytes = message_bytes(model->model.bytes);
    sites_.outstanding[s] = true;
    sites_.couriers[s]->post(std::move(model));
  }

  // A delta delivered: its bytes, and its site no longer owes one.
  std::unique_ptr<SiteUpdateMessage> take(std::unique_ptr<Message> next) {
    auto delta = expect<SiteUpdateMessage>(std::move(next), "cloud aggregator");
    sites_.record->sites[delta->site].bytes_to_cloud += delta->bytes;
    state_.links.carried(delta->from, sites_.cloud->host(), delta->bytes);
    sites_.outstanding[delta->site] = false;
    return delta;
  }

  // topology.cloud_aggregation async: each delta is applied on arrival, x <- x - (m_s / M) d_s (the
  // site's share of the devices), and the site gets the new model at once. Each applied delta is a
  // round of the run; its staleness (rounds applied since the site's model) goes to staleness.csv.
  void on_arrival() {
    const size_t n = sites_.couriers.size();
    const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
    const auto fleet = static_cast<double>(state_.devices.size());
    while (!state_.should_stop(sg4::Engine::get_clock())) {
      for (size_t s = 0; s < n; ++s)
        if (!sites_.outstanding[s]) send_model(s);  // at the start, and after a failed transfer
      std::unique_ptr<Message> next = sites_.cloud->next(deadline);
      if (!next) {
        if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) {
          state_.stop("completed", "stop.sim_time_s reached");
          return;
        }
        continue;  // poked: a site's transfer failed
      }
      const auto delta = take(std::move(next));
      SiteRecord& site = sites_.record->sites[delta->site];
      if (delta->samples == 0) continue;  // the site trained nothing: nothing to apply
      const int64_t staleness = state_.rounds_done - delta->round;
      sg4::this_actor::execute(cloud_apply_flops(state_.backend.cost().params, 1));
      sum_.accumulate(delta->update, delta->site, static_cast<double>(site.devices) / fleet);
      const bool finite = sum_.apply_accumulated(1.0, 1.0) && delta->finite;
      site.deltas_aggregated += 1;
      state_.rounds_done += 1;
      state_.round_ends_s.push_back(sg4::Engine::get_clock());
      state_.async.staleness.push_back({sg4::Engine::get_clock(), site.host, staleness});
      if (!finite) {
        state_.stop("diverged", "loss or parameters became NaN/Inf at update " + std::to_string(state_.rounds_done));
      }
    }
  }

  // One cloud round; false when the run ends in it.
  bool round() {
    const size_t n = sites_.couriers.size();
    Inbox& inbox = *sites_.cloud;
    const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
    const auto& round_timeout = state_.scenario.training.round_timeout_s;
    const double started = sg4::Engine::get_clock();
    report::RoundRow row;
    row.round = state_.rounds_done;
    row.start_s = started;
    // Every site is asked each cloud round; one still busy with an earlier round is missing.
    row.selected = static_cast<int64_t>(n);
    const int64_t up_before = state_.bytes_up, down_before = state_.bytes_down;
    std::vector<bool> waits_for(n, false), arrived(n, false);
    size_t expected = 0;
    for (size_t s = 0; s < n; ++s) {
      if (sites_.outstanding[s]) continue;  // still busy with an earlier round
      send_model(s);
      waits_for[s] = true;
      expected += 1;
    }
    const RoundClock clock(started, round_timeout, deadline);
    const double closes = clock.closes, until = clock.until;
    auto owed = [&] {
      for (size_t s = 0; s < n; ++s)
        if (waits_for[s] && !arrived[s] && sites_.outstanding[s]) return true;
      return false;
    };
    size_t present = 0;
    double weight_total = 0;
    bool finite = true;
    while (expected == 0 ? closes >= 0 : owed()) {
      std::unique_ptr<Message> next = inbox.next(until);
      if (!next) {
        if (until >= 0 && sg4::Engine::get_clock() >= until) {
          if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) {
            state_.stop("completed", "stop.sim_time_s reached");  // the round in flight is abandoned
            return false;
          }
          break;
        }
        continue;  // poked: a site's transfer failed
      }
      const auto delta = take(std::move(next));
      SiteRecord& site = sites_.record->sites[delta->site];
      if (delta->round != state_.rounds_done) {
        site.deltas_late += 1;
        row.late += 1;
        continue;
      }
      site.deltas_aggregated += 1;
      finite = finite && delta->finite;
      const auto w = static_cast<double>(delta->samples);
      if (w > 0) sum_.accumulate(delta->update, delta->site, w);
      weight_total += w;
      arrived[delta->site] = true;
      present += 1;
      if (!delta->slowest_device.empty()) row.slowest_device = delta->slowest_device;
    }
    const auto missing = static_cast<int64_t>(n - present);
    sites_.record->missing_deltas += missing;
    row.updates = static_cast<int64_t>(present);
    row.missing = missing;
    if (weight_total > 0) {
      sg4::this_actor::execute(cloud_apply_flops(state_.backend.cost().params, static_cast<int64_t>(present)));
      finite = sum_.apply_accumulated(1.0, weight_total) && finite;
      state_.rounds_done += 1;
      row.applied = true;
    } else {
      state_.updates.empty_rounds += 1;  // no site trained anything: the model stays as it is
    }
    row.end_s = sg4::Engine::get_clock();
    row.bytes_up = state_.bytes_up - up_before;
    row.bytes_down = state_.bytes_down - down_before;
    state_.rounds.push_back(row);
    if (!row.applied) return true;
    XBT_DEBUG("cloud round %ld applied", static_cast<long>(state_.rounds_done));
    if (finite) Observer::evaluate_if_near_target(state_, evaluation_);
    if (!finite) {
      state_.stop("diverged", "loss or parameters became NaN/Inf in round " + std::to_string(state_.rounds_done));
    }
    return true;
  }

  RunState& state_;
  Sites& sites_;
  backend::ModelSource& source_;
  backend::RoundAggregation& sum_;
  backend::ModelEvaluation& evaluation_;
};

class Hierarchical : public Topology {
 public:
  explicit Hierarchical(const scenario::TopologySpec& spec) : spec_(spec) {}

  void check_before_loading(const platform::PlatformInfo& info, const scenario::Scenario& scenario) const override {
    for (const scenario::SiteSpec& site : spec_.sites) {
      check_routable(info, "topology.sites." + site.host, site.host, scenario.server);
    }
  }

  // A device's upstream is its site's aggregator, whose upstream is the server.
  std::vector<sg4::Host*> upstream_hosts(const sg4::Engine& engine, const scenario::Scenario& scenario,
                                         sg4::Host* server) override {
    std::vector<sg4::Host*> upstream(scenario.devices.size(), server);
    for (const scenario::SiteSpec& site : spec_.sites) {
      const std::string path = "topology.sites." + site.host;
      sg4::Host* host = find_host(engine, path, site.host, scenario);
      check_route(host, server, path);
      check_route(server, host, path);
      for (size_t i : site.members) upstream[i] = host;
      site_hosts_.push_back(host);
    }
    return upstream;
  }

  std::optional<backend::DeltaLink> delta_link() const override {
    return backend::DeltaLink{spec_.site_compression, "topology.site_compression", "site-uplink"};
  }

  Root start(RunState& state, const PlatformHosts& hosts) override;

  void summarize(const RunState& state, nlohmann::json& summary) const override {
    summary["bytes_by_level"] = bytes_by_level(record_, state.bytes_up, state.bytes_down);
    summary["bytes_to_server"] = summary["bytes_by_level"]["site_to_cloud"];
    summary["bytes_from_server"] = summary["bytes_by_level"]["cloud_to_site"];
    summary["sites"] = sites_summary(record_);
    summary["missing_site_deltas"] = record_.missing_deltas;
  }

 private:
  const scenario::TopologySpec& spec_;
  std::vector<sg4::Host*> site_hosts_;  // topology.sites order
  HierarchyRecord record_;
  std::vector<std::unique_ptr<Inbox>> inboxes_;                // the cloud's, then each site's
  std::vector<std::unique_ptr<DownlinkCourier>> couriers_;     // the cloud's to each site
  std::vector<std::unique_ptr<backend::ModelStore>> stores_;   // each site's, then the cloud's
};

Root Hierarchical::start(RunState& state, const PlatformHosts& hosts) {
  auto sites = std::make_shared<Sites>();
  sites->record = &record_;
  sites->cloud = inboxes_.emplace_back(std::make_unique<Inbox>(hosts.server, "cloud")).get();
  sites->outstanding.assign(spec_.sites.size(), false);
  for (size_t s = 0; s < spec_.sites.size(); ++s) {
    const scenario::SiteSpec& site = spec_.sites[s];
    sg4::Host* host = site_hosts_[s];
    record_.sites.push_back({.host = site.host, .devices = static_cast<int64_t>(site.members.size())});
    sites->lanes.push_back(sites->cloud->connect(site.host));
    sites->couriers.push_back(couriers_.emplace_back(std::make_unique<DownlinkCourier>("site/" + site.host)).get());
    sites->couriers.back()->start(hosts.server, host, state.links);
    // The site's own inbox, members and store: its devices know nothing else.
    Inbox& inbox = *inboxes_.emplace_back(std::make_unique<Inbox>(host, "site/" + site.host));
    for (size_t i : site.members) {
      state.upstream[i] = &inbox;
      state.lanes[i] = inbox.connect(state.scenario.devices[i].name);
      state.couriers[i]->start(host, hosts.devices[i], state.links);
    }
    backend::ModelStore& store = *stores_.emplace_back(state.backend.make_adopting_store(site.members, s));
    auto aggregator = std::make_shared<SiteAggregator>(state, *sites, s, inbox, site.members, store);
    sg4::ActorPtr actor =
        sg4::Actor::create("site/" + site.host, host, guarded(state, [aggregator, sites] { (*aggregator)(); }));
    actor->daemonize();
    inbox.set_owner(actor);
  }
  backend::ModelStore& cloud_store = *stores_.emplace_back(state.backend.make_delta_store(spec_.sites.size()));
  auto cloud = std::make_shared<CloudAggregator>(state, *sites, cloud_store);
  sg4::ActorPtr server = sg4::Actor::create("cloud", hosts.server, guarded(state, [cloud, sites] { (*cloud)(); }));
  sites->cloud->set_owner(server);
  return {hosts.server, &backend::role<backend::ModelEvaluation>(cloud_store)};
}

}  // namespace

std::unique_ptr<Topology> make_hierarchical(const scenario::Scenario& scenario) {
  return std::make_unique<Hierarchical>(scenario.topology);
}

}  // namespace edgetrain::sim

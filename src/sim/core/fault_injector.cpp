// See fault_injector.hpp.
#include "sim/core/fault_injector.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <simgrid/s4u.hpp>

#include "platform/bounds.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/core/churn_cycles.hpp"
#include "sim/core/device_actor.hpp"
#include "sim/core/device_traces.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/platform.hpp"
#include "stream/rate_profile.hpp"
#include "stream/rates.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

// Switches device i off at the current time (see the header for what that counts), in two halves:
// what changes before anything else runs (it is off, its time is offline, its update in progress is
// failed), then what yields to other actors (its aggregator is told, its stream and host follow).
void going_off(RunState& state, size_t i) {
  const double now = sg4::Engine::get_clock();
  DeviceLiveness& live = state.live[i];
  live.on = false;
  state.ledgers[i].finish(now);
  state.ledgers[i].open(TimeLedger::Bucket::Offline);
  state.count_failed(i, live.pushing, /*tell_upstream=*/false);
}

void gone_off(RunState& state, size_t i) {
  const double now = sg4::Engine::get_clock();
  if (state.upstream.at(i)) state.upstream[i]->poke();
  if (DeviceStream* stream = state.streams[i].get()) {
    stream->catch_up(now);  // what arrived while it was on is buffered
    state.buffer_timeline.record(i, stream->point(now, state.devices[i].device));
  }
  if (state.slots) {
    state.slots->evict(state, i);  // a population's device: off its slot, if it was on one
    return;
  }
  state.device_hosts[i]->turn_off();
}

void switch_off(RunState& state, size_t i) {
  going_off(state, i);
  gone_off(state, i);
}

// A round-based aggregator whose members were all off waits for one to come back (sync_rounds.hpp):
// tell it. Aggregators on arrival and gossip peers take a poke as a failure to look at: not them.
void tell_back_on(RunState& state, size_t i) {
  if (!state.mode.applies_on_arrival() && !state.scenario.topology.gossip() && state.upstream.at(i))
    state.upstream[i]->poke();
}

void switch_on(RunState& state, size_t i) {
  const double now = sg4::Engine::get_clock();
  report::DeviceRecord& record = state.devices[i];
  if (!state.slots) state.device_hosts[i]->turn_on();
  state.ledgers[i].finish(now);
  state.ledgers[i].open(TimeLedger::Bucket::Wait);
  if (state.slots) {
    // A population's device waits off any slot until a round places it (and starts its actor there).
    state.live[i].on = true;
    record.restarts += 1;
    tell_back_on(state, i);
    return;
  }
  if (DeviceStream* stream = state.streams[i].get(); stream && stream->loses_while_off()) {
    record.stream->samples_lost_offline += stream->lose_until(now);
  }
  // Messages sent to it while it was off (queued, never received) are stale: drop them.
  state.courier(i).clear();
  state.live[i].on = true;
  record.restarts += 1;
  sg4::Actor::create(record.device, state.device_hosts[i], guarded(state, DeviceActor(state, i, *state.upstream[i])))
      ->daemonize();
  tell_back_on(state, i);
}

// Plays one off interval: false when the run is stopping (nothing more to play).
bool cycle(RunState& state, size_t i, double off_at, double on_at) {
  sg4::this_actor::sleep_until(off_at);
  if (state.stopping()) return false;
  switch_off(state, i);
  if (std::isinf(on_at)) {
    state.live[i].gone = true;
    return false;  // off until the run ends (a trace's last interval)
  }
  sg4::this_actor::sleep_until(on_at);
  switch_on(state, i);
  return true;
}

void device_churn(RunState& state, size_t i, const scenario::DeviceFaultSpec& spec) {
  if (!spec.mtbf_s) {
    for (const auto& interval : spec.off)
      if (!cycle(state, i, interval.off_s, interval.on_s)) return;
    return;
  }
  // Each cycle starts at the planned time the previous one ended, not at the clock (which may differ
  // by a rounding): a population's churn plans the same times.
  ChurnCycles cycles(state.scenario.seed, i, spec);
  for (ChurnCycle c = cycles.next(sg4::Engine::get_clock()); cycle(state, i, c.off_at, c.on_at);)
    c = cycles.next(c.on_at);
}

// A population's churn (traces.availability, faults.devices): one actor plays every device's off
// intervals in time order, so a million devices cost a heap entry each rather than an actor each (and
// random churn the count of its draws rather than a generator). The events of one instant are played as
// one actor per device would play them: every device going off is off (and its update counted as
// failed) before any aggregator looks, then its transfers are cut; a device coming back is on only once
// the others have run (a host is switched on before its device is).
void population_churn(RunState& state) {
  struct Next {
    double at, on_at;  // on_at: when an off event's interval ends
    size_t device;
    uint64_t step;  // a trace's interval, or the values random churn has drawn
    bool off;       // switch off at `at` (else on)
    bool operator>(const Next& o) const { return at != o.at ? at > o.at : device > o.device; }
  };
  const uint64_t seed = state.scenario.seed;
  std::priority_queue<Next, std::vector<Next>, std::greater<>> queue;
  // Device i's next off interval after `step`, from `on_at` (its previous one's end), if it has one.
  auto plan = [&](size_t i, uint64_t step, double on_at) {
    const scenario::DeviceFaultSpec& spec = *state.faults[i];
    if (spec.mtbf_s) {
      ChurnCycles cycles(seed, i, spec, step);
      const ChurnCycle c = cycles.next(on_at);
      queue.push({c.off_at, c.on_at, i, cycles.drawn(), true});
    } else if (step < spec.off.size()) {
      queue.push({spec.off[step].off_s, spec.off[step].on_s, i, step + 1, true});
    }
  };
  const double start = sg4::Engine::get_clock();
  for (size_t i = 0; i < state.faults.size(); ++i)
    if (state.faults[i]) plan(i, 0, start);
  while (!queue.empty()) {
    const double at = queue.top().at;
    sg4::this_actor::sleep_until(at);
    std::vector<Next> events;
    while (!queue.empty() && queue.top().at == at) {
      events.push_back(queue.top());
      queue.pop();
    }
    const bool stopping = state.stopping();
    for (const Next& e : events)
      if (e.off && !stopping) going_off(state, e.device);
    for (const Next& e : events)
      if (e.off && !stopping) gone_off(state, e.device);
    sg4::this_actor::yield();
    for (const Next& e : events) {
      if (e.off) {
        if (stopping) continue;
        if (std::isinf(e.on_at)) {
          state.live[e.device].gone = true;
        } else {
          queue.push({e.on_at, e.on_at, e.device, e.step, false});
        }
        continue;
      }
      switch_on(state, e.device);
      plan(e.device, e.step, e.at);
    }
  }
}

// The platform links an entry names: "<id>" of a SPLITDUPLEX link means both directions.
std::vector<sg4::Link*> links_named(const sg4::Engine& engine, const std::string& name) {
  if (sg4::Link* link = engine.link_by_name_or_null(name)) return {link};
  std::vector<sg4::Link*> both;
  for (const char* suffix : {"_UP", "_DOWN"}) {
    if (sg4::Link* link = engine.link_by_name_or_null(name + suffix)) both.push_back(link);
  }
  return both;
}

// Bandwidth steps and outages of one entry, merged by time (at equal times: bandwidth first,
// then off, then on, as listed).
std::multimap<double, LinkEvent> link_events(const scenario::LinkFaultSpec& spec, const std::string& at) {
  std::multimap<double, LinkEvent> events;
  if (!spec.trace.empty()) {
    stream::RateProfile profile = stream::RateProfile::constant(1.0);
    try {
      profile = stream::RateProfile::from_trace_csv(spec.trace, "bandwidth_bps", platform::kMaxBandwidthBps);  // as the platform file
    } catch (const stream::StreamError& e) {
      throw PlatformError(at + ".trace: " + e.what());
    }
    for (size_t s = 0; s < profile.step_count(); ++s) {
      if (!(profile.step_rate(s) > 0)) {
        throw PlatformError(at + ".trace: " + spec.trace.string() + ": bandwidth must be > 0 at time " +
                            std::to_string(profile.step_start(s)) + " (use " + at + ".off_s for an outage)");
      }
      events.emplace(profile.step_start(s), LinkEvent{LinkEvent::Kind::Bandwidth, profile.step_rate(s)});
    }
  }
  for (const auto& o : spec.off) {
    events.emplace(o.off_s, LinkEvent{LinkEvent::Kind::Off});
    events.emplace(o.on_s, LinkEvent{LinkEvent::Kind::On});
  }
  return events;
}

void link_faults(const std::vector<sg4::Link*>& links, const std::multimap<double, LinkEvent>& events) {
  for (const auto& [time, event] : events) {
    sg4::this_actor::sleep_until(time);
    for (sg4::Link* link : links) {
      switch (event.kind) {
        case LinkEvent::Kind::Bandwidth: link->set_bandwidth(event.bandwidth_bps / 8); break;  // SimGrid: bytes/s
        case LinkEvent::Kind::Off: link->turn_off(); break;
        case LinkEvent::Kind::On: link->turn_on(); break;
      }
    }
  }
}

}  // namespace

std::vector<const scenario::DeviceFaultSpec*> device_faults(
    const scenario::Scenario& scenario, const std::vector<sg4::Host*>& hosts,
    const std::vector<std::optional<scenario::DeviceFaultSpec>>& traced) {
  const size_t n = scenario.devices.size();
  std::vector<const scenario::DeviceFaultSpec*> out(n, nullptr);
  const scenario::DeviceFaultSpec* every = nullptr;
  if (scenario.faults && !scenario.faults->devices.empty()) {
    std::unordered_map<std::string_view, size_t> index;  // names are unique (scenario checks)
    for (size_t i = 0; i < n; ++i) index.emplace(scenario.devices[i].name, i);
    for (const auto& entry : scenario.faults->devices) {
      if (entry.device == "*") every = &entry;
      if (const auto it = index.find(entry.device); it != index.end()) out[it->second] = &entry;
    }
  }
  const std::string key =
      scenario.faults && !scenario.faults->devices.empty() ? "faults.devices" : "traces.availability";
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (!out[i]) out[i] = every;
    if (const auto& plan = trace_of(traced, i)) out[i] = &*plan;  // the rules allow one of the two
    any = any || out[i];
  }
  if (!any || hosts.empty()) return out;  // a population's devices have no hosts of their own
  // Each host's first two devices: a device with faults must have its host to itself, and the
  // message names the first other device on it.
  std::unordered_map<const sg4::Host*, std::array<size_t, 2>> first_two;
  for (size_t i = 0; i < n; ++i) {
    auto [it, added] = first_two.try_emplace(hosts[i], std::array<size_t, 2>{i, n});
    if (!added && it->second[1] == n) it->second[1] = i;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!out[i]) continue;
    const std::array<size_t, 2>& on_host = first_two.at(hosts[i]);
    const size_t j = on_host[0] != i ? on_host[0] : on_host[1];
    if (j != n) {
      throw PlatformError(key + ": device \"" + scenario.devices[i].name + "\" shares host \"" +
                          hosts[i]->get_name() + "\" with device \"" + scenario.devices[j].name +
                          "\"; a fault switches the whole host off, so give each device with faults its own host");
    }
  }
  return out;
}

std::vector<LinkFaultPlan> plan_link_faults(const sg4::Engine& engine, const scenario::Scenario& scenario) {
  std::vector<LinkFaultPlan> plans;
  if (!scenario.faults) return plans;
  const auto& entries = scenario.faults->links;
  for (size_t k = 0; k < entries.size(); ++k) {
    const std::string at = "faults.links[" + std::to_string(k) + "]";
    LinkFaultPlan plan{entries[k].link, links_named(engine, entries[k].link), {}};
    if (plan.links.empty()) {
      // The first few names: a fleet's platform has a link or two per device.
      constexpr size_t kShown = 12;
      const std::vector<sg4::Link*> all = engine.get_all_links();
      std::string names;
      for (size_t l = 0; l < all.size() && l < kShown; ++l) names += (l ? ", " : "") + all[l]->get_name();
      if (all.size() > kShown) names += " and " + std::to_string(all.size() - kShown) + " more";
      throw PlatformError(at + ".link: no link \"" + entries[k].link + "\" in platform " + scenario.platform.string() +
                          " (links: " + names + ")" +
                          (scenario.population ? "; a population's devices have no links of their own" : ""));
    }
    plan.events = link_events(entries[k], at);  // reads and checks the trace
    plans.push_back(std::move(plan));
  }
  return plans;
}

void start_fault_actors(RunState& state, sg4::Host* where, const std::vector<LinkFaultPlan>& link_plans) {
  const scenario::Scenario& sc = state.scenario;
  const bool churn = std::any_of(state.faults.begin(), state.faults.end(), [](const auto* f) { return f != nullptr; });
  if (state.slots && churn) {
    sg4::Actor::create("faults/population", where, guarded(state, [&state] { population_churn(state); }))->daemonize();
  }
  for (size_t i = 0; !state.slots && i < state.faults.size(); ++i) {
    const scenario::DeviceFaultSpec* spec = state.faults[i];
    if (!spec) continue;
    sg4::Actor::create("faults/" + sc.devices[i].name, where,
                       guarded(state, [&state, i, spec] { device_churn(state, i, *spec); }))
        ->daemonize();
  }
  for (const LinkFaultPlan& plan : link_plans) {
    sg4::Actor::create("faults/link/" + plan.name, where,
                       guarded(state, [&plan] { link_faults(plan.links, plan.events); }))
        ->daemonize();
  }
}

}  // namespace edgetrain::sim

// Data injection against non-IID skew (ScaDLES): each round a seeded random alpha fraction of
// the devices shares beta of its batch. Shared samples ride with the sharer's gradient to the
// server (their bytes are on the wire), and the server hands them out round-robin to the
// devices that did not share, with the next round's model (bytes on the wire again); those
// devices train on them in addition to their own batch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "sim/core/messages.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

class Injection {
 public:
  explicit Injection(RunState& state) : state_(state) {}
  // Chooses this round's sharers among `members` (device indices; models[m] goes to
  // members[m]) and attaches the pool collected last round to the models.
  void plan_round(int64_t round, const std::vector<size_t>& members,
                  std::vector<std::unique_ptr<ModelMessage>>& models);
  // Takes the shared samples out of an update of this round as it arrives.
  void collect(const UpdateMessage& update);
  // The round closed: what arrived forms the pool, in device order (not arrival order).
  void close_round();

 private:
  struct Shared {
    int64_t index, bytes;
  };
  RunState& state_;
  std::map<size_t, std::vector<Shared>> arrived_;  // this round's, by device
  std::vector<Shared> pool_;
  std::vector<bool> previous_sharers_;  // who shared the samples now in the pool (member positions)
};

}  // namespace edgetrain::sim

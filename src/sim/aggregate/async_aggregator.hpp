// The aggregator that applies updates on arrival (mode async, Hardy et al.'s parameter server;
// local-sgd with async aggregation, with training.buffer_size FedBuff, Nguyen et al. 2022), a role
// built with its inbox, its members and its model store. It answers each pull with the dense
// current model and its version j (the versions applied so far), and takes each push as it
// arrives, in simulated arrival order (inbox.hpp), charging its cost on its host (so a busy
// aggregator queues pushes). A push computed at version j and taken at version i has staleness
// d = i - j; the store scales it by training.staleness_lr (backend/staleness.hpp) into a buffer,
// and every training.buffer_size pushes applies the buffer's average as one new version (a buffer
// of one: each push applied on arrival). With training.max_staleness, staleness_policy drop drops
// a staler push (counted); hold delays the pull of a device too far ahead of the slowest
// (ssp_barrier.hpp), which the device sees as waiting for its model.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "backend/model_store.hpp"
#include "sim/aggregate/ssp_barrier.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/run_state.hpp"
#include "strategy/aggregation_cost.hpp"

namespace edgetrain::sim {

class AsyncAggregator {
 public:
  // `store`: the aggregator's, as a model source and in buffered aggregation.
  AsyncAggregator(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store);
  void operator()();

 private:
  void pulled(const PullRequest& pull);
  void reply(size_t device);
  void take(const UpdateMessage& push);
  // Hold: members that were switched off leave the barrier (scanned when a failure pokes).
  void leave_if_off();
  // Hold: the pulls the barrier no longer holds are answered.
  void release();
  RunState& state_;
  Inbox& inbox_;
  std::vector<size_t> members_;
  backend::ModelSource& source_;
  backend::BufferedAggregation& buffering_;
  std::vector<size_t> position_;  // device index -> member position
  const int64_t buffer_size_;
  int64_t buffered_ = 0;               // pushes in the buffer
  bool buffer_finite_ = true;          // every buffered push's loss was finite
  std::optional<SspBarrier> barrier_;  // staleness_policy hold
  std::vector<int64_t> restarts_;      // hold: each member's restarts when it last pulled
  strategy::AggregationCost cost_{state_.scenario};  // an adaptive optimiser's FLOPs beyond SGD's
};

}  // namespace edgetrain::sim

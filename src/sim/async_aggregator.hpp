// The aggregator that applies updates on arrival (mode async, Hardy et al.'s parameter server;
// local-sgd with async aggregation), a role built with its inbox, its members and its model
// store. It answers each pull with the dense current model and its update counter j, and
// applies each push as it arrives, in simulated arrival order (inbox.hpp), charging its apply
// cost on its host (so a busy aggregator queues pushes). A push computed at version j and
// applied at version i has staleness d = i - j; the store scales its step by
// training.staleness_lr (backend/staleness.hpp), and with training.max_staleness a staler push
// is dropped and counted.
#pragma once

#include <memory>
#include <vector>

#include "sim/inbox.hpp"
#include "sim/run_state.hpp"

namespace edgetrain::sim {

class AsyncAggregator {
 public:
  AsyncAggregator(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store)
      : state_(state), inbox_(inbox), members_(std::move(members)), store_(store) {}
  void operator()();

 private:
  void reply(const PullRequest& pull);
  void apply(const UpdateMessage& push);
  RunState& state_;
  Inbox& inbox_;
  std::vector<size_t> members_;
  backend::ModelStore& store_;
  std::vector<size_t> position_;  // device index -> member position
};

}  // namespace edgetrain::sim

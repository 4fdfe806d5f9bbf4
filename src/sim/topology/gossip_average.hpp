// The model the observer evaluates in a gossip run: the average of the peers' models, built in a
// scratch store of the back-end before each evaluation (a decorator on the sim/ side: no tensors
// here), with the spread of the peers' models around it (the mean L2 distance to the average).
// It is only evaluated: nothing is sent from it or applied to it.
#pragma once

#include <memory>
#include <vector>

#include "backend/learner.hpp"

namespace edgetrain::sim {

class GossipAverage : public backend::ModelStore {
 public:
  GossipAverage(std::unique_ptr<backend::ModelStore> scratch, std::vector<backend::ModelStore*> peers)
      : scratch_(std::move(scratch)), peers_(std::move(peers)) {}

  std::optional<backend::Evaluation> evaluate(const std::function<bool()>& cancelled) override;
  backend::ModelPayload dense_payload() override;

  backend::ModelPayload payload_for(size_t) override { refuse("sent"); }
  void accumulate(const backend::UpdatePayload&, size_t, double) override { refuse("updated"); }
  bool apply_accumulated(double, double) override { refuse("updated"); }
  void buffer(const backend::UpdatePayload&, size_t, int64_t) override { refuse("updated"); }
  bool apply_buffer(double, int64_t) override { refuse("updated"); }
  bool mix(const std::vector<std::pair<backend::ModelPayload, double>>&) override { refuse("mixed"); }
  double distance(const backend::ModelPayload& other) const override { return scratch_->distance(other); }

 private:
  [[noreturn]] static void refuse(const char* what);
  // Makes the scratch model the peers' average; false when it is not finite.
  bool average();
  std::unique_ptr<backend::ModelStore> scratch_;
  std::vector<backend::ModelStore*> peers_;
};

}  // namespace edgetrain::sim

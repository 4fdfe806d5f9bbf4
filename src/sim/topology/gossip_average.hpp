// The model the observer evaluates in a gossip run: the average of the peers' models, built in a
// scratch store of the back-end before each evaluation (a decorator on the sim/ side: no tensors
// here), with the spread of the peers' models around it (the mean L2 distance to the average).
// It is only evaluated: its one role is evaluation (backend/model_store.hpp).
#pragma once

#include <memory>
#include <vector>

#include "backend/model_store.hpp"

namespace edgetrain::sim {

class GossipAverage : public backend::ModelStore, public backend::ModelEvaluation {
 public:
  // `scratch`: a store over every device, mixed into the average; `peers`: the peers' stores.
  GossipAverage(std::unique_ptr<backend::ModelStore> scratch, const std::vector<backend::ModelStore*>& peers);

  std::optional<backend::Evaluation> evaluate(const std::function<bool()>& cancelled) override;

 private:
  struct Peer {
    backend::ModelSource* model;
    backend::ModelMixing* mixing;
  };
  // Makes the scratch model the peers' average; false when it is not finite.
  bool average();
  std::unique_ptr<backend::ModelStore> scratch_;
  backend::ModelSource& scratch_model_;
  backend::ModelMixing& scratch_mixing_;
  backend::ModelEvaluation& scratch_evaluation_;
  std::vector<Peer> peers_;
};

}  // namespace edgetrain::sim

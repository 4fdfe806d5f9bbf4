// See gossip_average.hpp.
#include "sim/topology/gossip_average.hpp"

#include <limits>

namespace edgetrain::sim {

GossipAverage::GossipAverage(std::unique_ptr<backend::ModelStore> scratch,
                             const std::vector<backend::ModelStore*>& peers)
    : scratch_(std::move(scratch)),
      scratch_model_(backend::role<backend::ModelSource>(*scratch_)),
      scratch_mixing_(backend::role<backend::ModelMixing>(*scratch_)),
      scratch_evaluation_(backend::role<backend::ModelEvaluation>(*scratch_)) {
  for (backend::ModelStore* p : peers) {
    peers_.push_back({&backend::role<backend::ModelSource>(*p), &backend::role<backend::ModelMixing>(*p)});
  }
}

bool GossipAverage::average() {
  std::vector<std::pair<backend::ModelPayload, double>> models;
  const double w = 1.0 / static_cast<double>(peers_.size());
  for (const Peer& p : peers_) models.emplace_back(p.model->dense_payload(), w);
  return scratch_mixing_.mix(models);
}

std::optional<backend::Evaluation> GossipAverage::evaluate(const std::function<bool()>& cancelled) {
  const bool finite = average();
  std::optional<backend::Evaluation> e = scratch_evaluation_.evaluate(cancelled);
  if (!e) return e;
  double spread = 0;
  if (finite) {
    const backend::ModelPayload mean = scratch_model_.dense_payload();
    for (const Peer& p : peers_) spread += p.mixing->distance(mean);
    spread /= static_cast<double>(peers_.size());
  } else {
    spread = std::numeric_limits<double>::quiet_NaN();
  }
  e->model_spread = spread;
  return e;
}

}  // namespace edgetrain::sim

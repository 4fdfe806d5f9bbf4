// See gossip_average.hpp.
#include "sim/topology/gossip_average.hpp"

#include <limits>

#include "sim/core/messages.hpp"

namespace edgetrain::sim {

void GossipAverage::refuse(const char* what) {
  throw ProtocolError(std::string("the gossip devices' average model is only evaluated, never ") + what);
}

bool GossipAverage::average() {
  std::vector<std::pair<backend::ModelPayload, double>> models;
  const double w = 1.0 / static_cast<double>(peers_.size());
  for (backend::ModelStore* p : peers_) models.emplace_back(p->dense_payload(), w);
  return scratch_->mix(models);
}

backend::ModelPayload GossipAverage::dense_payload() {
  average();
  return scratch_->dense_payload();
}

std::optional<backend::Evaluation> GossipAverage::evaluate(const std::function<bool()>& cancelled) {
  const bool finite = average();
  std::optional<backend::Evaluation> e = scratch_->evaluate(cancelled);
  if (!e) return e;
  double spread = 0;
  if (finite) {
    const backend::ModelPayload mean = scratch_->dense_payload();
    for (backend::ModelStore* p : peers_) spread += p->distance(mean);
    spread /= static_cast<double>(peers_.size());
  } else {
    spread = std::numeric_limits<double>::quiet_NaN();
  }
  e->model_spread = spread;
  return e;
}

}  // namespace edgetrain::sim

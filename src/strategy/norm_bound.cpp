// Norm bounding (Sun et al., "Can You Really Backdoor Federated Learning?", 2019): each update scaled
// down to L2 norm `norm_bound` when it is longer, then the round's weighted mean.
#include "privacy/clip.hpp"
#include "strategy/defence.hpp"

namespace edgetrain::strategy {

void norm_bound(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out) {
  std::vector<double> sum(round.updates[0].size(), 0.0);
  double total = 0;
  std::vector<float> bounded;
  for (size_t i = 0; i < round.updates.size(); ++i) {
    bounded = round.updates[i];
    privacy::clip_to_norm(bounded, spec.norm_bound);
    const double w = round.weights[i];
    for (size_t k = 0; k < sum.size(); ++k) sum[k] += w * bounded[k];
    total += w;
  }
  out.resize(sum.size());
  for (size_t k = 0; k < sum.size(); ++k) out[k] = static_cast<float>(sum[k] / total);
}

}  // namespace edgetrain::strategy

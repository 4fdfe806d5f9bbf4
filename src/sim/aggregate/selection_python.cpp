// A Python selection (or a Python strategy's configure_fit) behind the selection policy seam: the candidates
// and what came back, passed through; the round's generator is the policy's own (self.rng), not this one.
#include "sim/aggregate/selection_policy.hpp"

namespace edgetrain::sim {
namespace {

class PickedSelection final : public SelectionPolicy {
 public:
  explicit PickedSelection(std::shared_ptr<policy::DevicePicker> picker) : picker_(std::move(picker)) {}
  void pick(std::vector<size_t>& pool, size_t count, int64_t round, uint64_t&, std::vector<bool>& chosen) override {
    picker_->pick(pool, count, round, chosen);
  }
  void delivered(size_t member, double round_time_s) override { picker_->delivered(member, round_time_s); }
  void aggregated(size_t member, int64_t samples, double loss, double round_time_s) override {
    picker_->aggregated(member, samples, loss, round_time_s);
  }

 private:
  std::shared_ptr<policy::DevicePicker> picker_;
};

}  // namespace

std::unique_ptr<SelectionPolicy> make_picked(std::shared_ptr<policy::DevicePicker> picker) {
  return std::make_unique<PickedSelection>(std::move(picker));
}

}  // namespace edgetrain::sim

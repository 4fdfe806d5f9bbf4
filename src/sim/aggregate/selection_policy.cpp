// The selection kinds table (selection_policy.hpp), and the uniform draw the policies share.
#include "sim/aggregate/selection_policy.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include "util/seed.hpp"

namespace edgetrain::sim {
namespace {

std::unique_ptr<SelectionPolicy> made_elsewhere(const scenario::SelectionSpec&, size_t) {
  throw std::logic_error("training.selection.kind python: the policy is loaded with the run's policies");
}

const auto kKinds = std::to_array<SelectionKind>({
    {.name = "all", .every = true, .uses_availability = false, .make = make_uniform},
    {.name = "random", .uses_availability = false, .make = make_uniform},
    {.name = "available", .uses_availability = true, .make = make_uniform},
    {.name = "oort", .uses_availability = true, .make = make_oort},
    // Made by policy::load_policies (policy/policy.hpp), with the run's interpreter: RoundSelection is given it.
    {.name = "python", .uses_availability = true, .make = made_elsewhere},
});

}  // namespace

const SelectionKind& selection_kind(const std::string& name) {
  for (const SelectionKind& kind : kKinds)
    if (kind.name == name) return kind;
  throw std::invalid_argument("training.selection.kind: unknown kind \"" + name + "\"");  // the schema refuses it first
}

void sample_front(std::vector<size_t>& pool, size_t count, uint64_t& state) {
  for (size_t i = 0; i < count; ++i) {
    state = util::mix64(state);
    const size_t j = i + static_cast<size_t>(state % (pool.size() - i));
    std::swap(pool[i], pool[j]);
  }
}

}  // namespace edgetrain::sim

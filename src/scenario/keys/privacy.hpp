// The keys of privacy mechanisms on the updates (`privacy.*`): differential privacy (`privacy.dp`:
// clipping, noise, where it is added and in which order with compression, the accountant's
// assumptions) and `stop.epsilon`'s rule; docs/explanation/privacy.md says what each does.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> privacy_rows();  // privacy, privacy.dp.*
std::vector<Rule> privacy_rules();

}  // namespace edgetrain::scenario::keys

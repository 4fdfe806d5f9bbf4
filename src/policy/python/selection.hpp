// A Python selection and a Python deadline as the engine's policies (selection.cpp).
#pragma once

#include <memory>

#include "policy/policy.hpp"
#include "policy/python/classes.hpp"

namespace edgetrain::policy {

std::shared_ptr<DevicePicker> make_python_selection(LoadedClass cls);
std::shared_ptr<DeadlinePolicy> make_python_deadline(LoadedClass cls);

}  // namespace edgetrain::policy

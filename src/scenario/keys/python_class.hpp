// The two keys of a policy written in Python (docs/how-to/python-policies.md): "<section>.python",
// "FILE.py:CLASS" (the file relative to the scenario, made absolute, must exist; CLASS a Python
// identifier), and "<section>.settings", an object of the constructor's keyword arguments (JSON values).
#pragma once

#include <string>

#include "scenario/scenario.hpp"
#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

// The row "<path>": the class; `place` is where it goes in the scenario (null: its section is off). Required
// when the key `kind_key` (resolved earlier) is "python", refused otherwise (the row's allowed_only_when).
KeySpec python_class_key(std::string path, std::string description, PythonClass* (*place)(Scenario&),
                         std::string kind_key);
// The row "<path>": its settings (default {}).
KeySpec python_settings_key(std::string path, std::string description, PythonClass* (*place)(Scenario&));

}  // namespace edgetrain::scenario::keys

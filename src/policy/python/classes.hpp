// Loading a policy's class from its file, and the arrays the policies exchange with the engine. Only the
// files of src/policy/python see pybind11; what takes or returns Python objects runs on the interpreter's
// thread (host.hpp), inside run_python.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compress/compressor.hpp"
#include "policy/python/host.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::policy {

namespace py = pybind11;

// A policy object. Its Python object is never released: it lives as long as the interpreter, which lives
// as long as the process (host.hpp), and a release would need the interpreter's thread at exit.
struct LoadedClass {
  PolicySource source;
  py::handle instance;
  // True when the class overrides `method` of its edgetrain base class (or has it, without one). Any thread.
  bool overrides(const char* method, const char* base_module, const char* base_class) const;
};

// Imports FILE, makes CLASS(**settings) and gives it `rng`, a numpy Generator seeded with `seed`. The
// instance must have `required` (a method name). Throws scenario::ScenarioError naming `key`.
LoadedClass load_class(const std::string& key, const scenario::PythonClass& cls, uint64_t seed, const char* required);

// Read-only numpy views of `data`, one per layer, keeping `data` alive as long as any view is.
py::list layer_views(const std::shared_ptr<const std::vector<float>>& data, const std::vector<compress::Layer>& layers);
// Per device of `n`: whether it is in `pool` (what a policy's answer is checked against).
std::vector<bool> members_of(const std::vector<size_t>& pool, size_t n);
// A numpy int64 array holding `values`.
py::array_t<int64_t> index_array(const std::vector<size_t>& values);
// `value` (a Parameters, or a sequence of arrays) copied into `out` as float32, checked against `layers`;
// `what` names the method for messages.
void copy_model(py::handle value, const std::vector<compress::Layer>& layers, const std::string& what,
                std::vector<float>& out);

}  // namespace edgetrain::policy

// See classes.hpp.
#include "policy/python/classes.hpp"

#include <pybind11/eval.h>

#include <filesystem>

#include "scenario/error.hpp"

namespace fs = std::filesystem;

namespace edgetrain::policy {
namespace {

// Makes edgetrain's Python modules (edgetrain.strategy, edgetrain.policies) importable without running the
// package's __init__, which loads the extension the engine does not need: from beside this program (the
// build tree's python/, an install's dist-packages) or from Python's own path.
constexpr const char* kBootstrap = R"(
def _edgetrain_modules(beside):
    import os, sys, types
    if "edgetrain" in sys.modules:
        return
    for folder in beside + sys.path:
        package = os.path.join(folder, "edgetrain")
        if os.path.isfile(os.path.join(package, "strategy.py")):
            module = types.ModuleType("edgetrain")
            module.__path__ = [package]
            sys.modules["edgetrain"] = module
            return
    raise ImportError("edgetrain's Python modules (edgetrain/strategy.py) are neither beside the engine nor on "
                      "Python's path")

def _edgetrain_load(file, name, settings, seed):
    import importlib.util, os, sys, random
    import numpy
    folder = os.path.dirname(file)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # its own helper modules
    module_name = "edgetrain_policy_" + os.path.splitext(os.path.basename(file))[0]
    module = sys.modules.get(module_name)
    if module is None or getattr(module, "__file__", None) != file:
        spec = importlib.util.spec_from_file_location(module_name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise AttributeError(f"{os.path.basename(file)} defines no {name}")
    random.seed(seed)
    numpy.random.seed(seed % 2**32)
    instance = getattr(module, name)(**settings)
    instance.rng = numpy.random.default_rng(seed)
    return instance
)";

std::vector<std::string> beside_this_program() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  return {(dir / "python").string(), (dir.parent_path() / "lib/python3/dist-packages").string(),
          (dir.parent_path() / ("lib/python" + std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION) +
                                "/dist-packages")).string()};
}

py::dict helpers() {
  static py::dict* made = [] {
    auto* scope = new py::dict(py::module_::import("__main__").attr("__dict__").attr("copy")());
    py::exec(kBootstrap, *scope);
    (*scope)["_edgetrain_modules"](py::cast(beside_this_program()));
    return scope;
  }();
  return *made;
}

}  // namespace

bool LoadedClass::overrides(const char* method, const char* base_module, const char* base_class) const {
  bool out = false;
  run_python(source, "inspecting the class", [&] {
    const py::object type = py::type::of(instance);
    if (!py::hasattr(type, method)) return;
    const py::object base = py::module_::import(base_module).attr(base_class);
    out = !py::hasattr(base, method) || !type.attr(method).is(base.attr(method));
  });
  return out;
}

LoadedClass load_class(const std::string& key, const scenario::PythonClass& cls, uint64_t seed, const char* required) {
  LoadedClass loaded{{key, cls.file.string()}, {}};
  try {
    run_python(loaded.source, "loading the class", [&] {
      const py::object settings = py::module_::import("json").attr("loads")(cls.settings.dump());
      const py::object instance = helpers()["_edgetrain_load"](cls.file.string(), cls.name, settings, seed);
      if (!py::hasattr(instance, required))
        throw PolicyError(key + ": " + cls.name + " has no method " + required);
      loaded.instance = instance.inc_ref();
    });
  } catch (const PolicyError& e) {
    throw scenario::ScenarioError(e.what());  // the scenario names a class that cannot run: bad input
  }
  return loaded;
}

py::list layer_views(const std::shared_ptr<const std::vector<float>>& data, const std::vector<compress::Layer>& layers) {
  py::list views;
  const py::capsule keep(new std::shared_ptr<const std::vector<float>>(data),
                         [](void* p) { delete static_cast<std::shared_ptr<const std::vector<float>>*>(p); });
  for (const compress::Layer& layer : layers) {
    std::vector<py::ssize_t> strides(layer.shape.size(), sizeof(float));
    for (size_t k = layer.shape.size(); k-- > 1;) strides[k - 1] = strides[k] * layer.shape[k];
    py::array_t<float> view(layer.shape, strides, data->data() + layer.offset, keep);
    view.attr("setflags")(py::arg("write") = false);
    views.append(view);
  }
  return views;
}

std::vector<bool> members_of(const std::vector<size_t>& pool, size_t n) {
  std::vector<bool> out(n, false);
  for (size_t d : pool) out[d] = true;
  return out;
}

py::array_t<int64_t> index_array(const std::vector<size_t>& values) {
  py::array_t<int64_t> out(static_cast<py::ssize_t>(values.size()));
  int64_t* p = out.mutable_data();
  for (size_t k = 0; k < values.size(); ++k) p[k] = static_cast<int64_t>(values[k]);
  return out;
}

void copy_model(py::handle value, const std::vector<compress::Layer>& layers, const std::string& what,
                std::vector<float>& out) {
  const py::object arrays = py::hasattr(value, "tensors") ? value.attr("tensors") : py::reinterpret_borrow<py::object>(value);
  const py::list list(arrays);
  if (list.size() != layers.size())
    throw PolicyError(what + " gave " + std::to_string(list.size()) + " arrays; the model has " +
                      std::to_string(layers.size()) + " layers");
  int64_t total = 0;
  for (const compress::Layer& layer : layers) total = std::max(total, layer.offset + layer.numel);
  out.assign(static_cast<size_t>(total), 0.0f);
  for (size_t k = 0; k < layers.size(); ++k) {
    const auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(list[k]);
    if (!array) throw PolicyError(what + ": array " + std::to_string(k) + " is not numeric");
    const compress::Layer& layer = layers[k];
    const bool same = array.ndim() == static_cast<py::ssize_t>(layer.shape.size()) &&
                      std::equal(layer.shape.begin(), layer.shape.end(), array.shape(),
                                 [](int64_t a, py::ssize_t b) { return a == b; });
    if (!same)
      throw PolicyError(what + ": array " + std::to_string(k) + " has shape " +
                        py::str(py::tuple(py::cast(std::vector<py::ssize_t>(array.shape(), array.shape() + array.ndim()))))
                            .cast<std::string>() + "; layer " + layer.name + " has " +
                        py::str(py::tuple(py::cast(layer.shape))).cast<std::string>());
    std::copy_n(array.data(), layer.numel, out.begin() + layer.offset);
  }
}

}  // namespace edgetrain::policy

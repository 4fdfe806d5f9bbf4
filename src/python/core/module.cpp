// edgetrain._core: the parts of edgetrain the Python module runs in its own process, none of which
// needs SimGrid or LibTorch: resolving a scenario (its keys, defaults and one-line errors), the
// schema, fleet generation and the comparison of results folders. Runs and sweeps execute in a
// child `edgetrain` process instead (edgetrain/_engine.py): SimGrid keeps global state across
// engines, and the child pins its kernels as the command line does. JSON crosses as text.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/draw.hpp"
#include "fleet/parse.hpp"
#include "fleet/xml.hpp"
#include "report/compare.hpp"
#include "report/output_file.hpp"
#include "scenario/load.hpp"
#include "scenario/schema.hpp"
#include "scenario/schema_default.hpp"
#include "util/input_error.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;
using namespace edgetrain;

namespace {

// Calls `work`, turning edgetrain's input errors into edgetrain.InputError (its message the
// command line's one line) and anything else into RuntimeError.
template <class Work>
auto guarded(Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const py::error_already_set&) {
    throw;
  } catch (const std::exception& e) {
    if (!dynamic_cast<const util::InputError*>(&e)) throw std::runtime_error(std::string("internal error: ") + e.what());
    // Kept for the process's life (never destroyed: its destructor would run after the interpreter's end).
    static const py::object* input_error = new py::object(py::module_::import("edgetrain._errors").attr("InputError"));
    PyErr_SetString(input_error->ptr(), e.what());
    throw py::error_already_set();
  }
}

std::optional<uint64_t> seed_of(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  return scenario::parse_seed_option(*text, "seed");
}

// The resolved scenario of a file, or of a document standing for no file (relative paths from the
// current directory, default name "scenario": as `edgetrain run -`).
std::string resolve(const std::optional<std::string>& file, const std::optional<std::string>& document,
                    const std::vector<std::string>& sets, const std::optional<std::string>& seed) {
  return guarded([&] {
    const std::optional<uint64_t> s = seed_of(seed);
    if (file) return scenario::load_scenario(*file, sets, s).resolved.dump();
    return scenario::parse_scenario(nlohmann::json::parse(*document), {}, sets, s).resolved.dump();
  });
}

py::list schema_keys() {
  py::list rows;
  for (const scenario::KeySpec& k : scenario::schema_keys()) {
    if (k.part_of_value) continue;
    py::dict row;
    row["key"] = k.path;
    row["type"] = k.type_doc.empty() ? scenario::type_text(k) : k.type_doc;
    row["default"] = scenario::default_text(k);
    row["range"] = scenario::range_text(k);
    row["description"] = k.description;
    rows.append(row);
  }
  return rows;
}

// A fleet drawn from a description file or document; written to `out` (and its device list beside
// it) when given. Returns the platform XML, the device list CSV and the description in words.
py::dict draw_fleet(const std::optional<std::string>& file, const std::optional<std::string>& document,
               const std::optional<std::string>& seed, const std::optional<std::string>& out) {
  return guarded([&] {
    const std::optional<uint64_t> seed_option = seed_of(seed);
    const std::string shown = file ? *file : "fleet";
    const fleet::FleetSpec spec = file ? fleet::load_fleet_file(*file)
                                       : fleet::parse_fleet(nlohmann::json::parse(*document), "", fs::current_path());
    fleet::check_host_per_device(spec, shown);
    std::vector<fs::path> inputs;
    if (file) inputs.push_back(*file);
    const fs::path devices = out ? fleet::device_list_path(*out) : fs::path();
    if (out) {  // both checked before the draw, as `edgetrain fleet` does
      report::check_output(*out, *out, inputs);
      report::check_output(devices, devices.string(), inputs);
    }
    const fleet::Fleet drawn = fleet::draw_fleet(spec, seed_option.value_or(spec.seed));
    const std::string xml = fleet::platform_xml(drawn), devices_csv = fleet::device_list_csv(drawn);
    if (out) {
      report::write_output(*out, xml, *out, inputs);
      inputs.push_back(*out);
      report::write_output(devices, devices_csv, devices.string(), inputs);
    }
    py::dict result;
    result["xml"] = xml;
    result["devices_csv"] = devices_csv;
    result["text"] = fleet::describe_fleet(drawn);
    return result;
  });
}

std::string compare(const std::vector<std::string>& folders) {
  return guarded([&] {
    std::vector<report::RunRecord> runs;
    for (const std::string& f : folders) runs.push_back(report::load_run_record(f));
    return report::to_json(report::compare_runs(runs, scenario::schema_default, scenario::null_is_off)).dump();
  });
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "edgetrain's scenario, schema, fleet and compare code, in process (see the edgetrain package)";
  m.def("resolve", &resolve, py::arg("file"), py::arg("document"), py::arg("sets"), py::arg("seed"),
        "The resolved scenario (JSON text) of a file or a JSON document; raises InputError.");
  m.def("schema_keys", &schema_keys, "Every scenario key: key, type, default, range, description.");
  m.def("schema_markdown", [] { return scenario::schema_markdown(); }, "The scenario keys as a Markdown table.");
  m.def("fleet", &draw_fleet, py::arg("file"), py::arg("document"), py::arg("seed"), py::arg("out"),
        "A platform drawn from a fleet description; raises InputError.");
  m.def("compare", &compare, py::arg("folders"), "edgetrain compare --format json of results folders.");
}

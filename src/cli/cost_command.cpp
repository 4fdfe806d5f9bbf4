// `edgetrain cost --model MODEL --device CLASS|PROFILE.json --batch B [--input CxHxW] [--json]`: the
// seconds of one training step under the compute model (src/compute: a roofline by layer kind), with
// its breakdown per layer kind, the FLOP model's figure beside it and the error band the published
// checks give. Exit status 0, or 2 for bad input with one line on stderr.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/commands.hpp"
#include "compute/class_fidelity.hpp"
#include "compute/devices.hpp"
#include "compute/fidelity.hpp"
#include "compute/profile_file.hpp"
#include "learn/catalogue.hpp"
#include "learn/model_shape.hpp"
#include "util/printable.hpp"

namespace edgetrain::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kUsage =
    "usage: edgetrain cost --model MODEL --device CLASS|PROFILE.json --batch B [--input CxHxW] [--json]\n"
    "       edgetrain cost --published\n";

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

po::options_description options() {
  std::string classes;
  for (const auto& d : compute::device_classes()) classes += (classes.empty() ? "" : ", ") + d.profile.name;
  po::options_description o("options");
  o.add_options()("help,h", "this help")("model", po::value<std::string>(),
                                           "a catalogue model (edgetrain schema: model.name), mlp, cnn, or a TorchScript file FILE.pt")(
      "device", po::value<std::string>(),
      ("a device class (" + classes + ") or a profile file written by calibrate-compute").c_str())(
      "batch", po::value<std::string>(), "samples per step (1 to 1000000)")(
      "input", po::value<std::string>(),
      "sample shape CxHxW (default: the model's reference input; mlp, cnn and TorchScript: 1x28x28)")("json", "print JSON")(
      "published", "instead: the device classes, the published steps they are fitted to and checked against, and each "
      "class's errors and rank correlations, as JSON");
  return o;
}

struct Shape {
  int64_t c = 0, h = 0, w = 0;
};

Shape parse_input(const std::string& text) {
  static const std::regex re("([0-9]{1,6})x([0-9]{1,6})x([0-9]{1,6})");
  std::smatch m;
  if (!std::regex_match(text, m, re)) throw BadInput("--input: expected CxHxW (e.g. 3x224x224), got \"" + text + "\"");
  Shape s{std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
  if (s.c < 1 || s.h < 1 || s.w < 1) throw BadInput("--input: every dimension must be >= 1, got \"" + text + "\"");
  if (static_cast<double>(s.c) * s.h * s.w > 1e8) throw BadInput("--input: more than 10^8 values per sample");
  return s;
}

// The model's layers at the input asked for, and that input.
std::pair<compute::Layers, Shape> model_layers(const std::string& name, const std::optional<Shape>& input) {
  const bool script = name.ends_with(".pt") || name.find('/') != std::string::npos;
  if (name == "mlp" || name == "cnn" || script) {
    learn::ModelConfig config;
    config.name = name;
    if (script) {
      config.name = "torchscript";
      config.file = name;
      config.classes = 0;  // the module's own output decides
    }
    const Shape s = input.value_or(Shape{1, 28, 28});
    config.channels = s.c;
    config.height = s.h;
    config.width = s.w;
    return {learn::model_shape(config).compute_layers, s};
  }
  const learn::CatalogueModel* m = learn::find_model(name);
  if (!m) {
    std::string names = "mlp, cnn";
    for (std::string_view n : learn::catalogue_names()) names += ", " + std::string(n);
    throw BadInput("--model: unknown model \"" + name + "\" (one of " + names + ", or a TorchScript file FILE.pt)");
  }
  if (!input) return {m->compute_layers, Shape{m->input.channels, m->input.height, m->input.width}};
  return {learn::model_at_input(name, input->c, input->h, input->w).compute_layers, *input};
}

std::pair<compute::Profile, std::optional<std::string>> device_profile(const std::string& device) {
  if (const compute::DeviceClass* d = compute::find_device(device)) return {d->profile, device};
  if (device.find('/') != std::string::npos || device.ends_with(".json"))
    return {compute::read_profile_file(device), std::nullopt};
  std::string classes;
  for (const auto& d : compute::device_classes()) classes += (classes.empty() ? "" : ", ") + d.profile.name;
  throw BadInput("--device: unknown device class \"" + device + "\" (one of " + classes + ", or a profile file)");
}

int64_t parse_batch(const std::string& text) {
  static const std::regex re("[0-9]{1,7}");
  if (!std::regex_match(text, re) || std::stoll(text) < 1 || std::stoll(text) > 1000000)
    throw BadInput("--batch: expected an integer from 1 to 1000000, got \"" + text + "\"");
  return std::stoll(text);
}

int fail(const std::string& message) {
  std::fprintf(stderr, "edgetrain cost: %s\n", util::printable(message).c_str());
  return 2;
}

nlohmann::ordered_json optional_json(const std::optional<double>& x) {
  return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
}

// What tools/docs/compute_fidelity.py renders as results/fidelity/compute.md.
void print_published() {
  nlohmann::ordered_json j;
  j["held_out_goal"] = compute::kHeldOutGoal;
  for (const compute::DeviceClass& d : compute::device_classes()) {
    nlohmann::ordered_json e{{"name", d.profile.name}, {"about", d.profile.about},     {"fitted", d.fitted},
                             {"basis", d.basis},       {"flops_s", d.profile.flops_s}, {"bytes_s", d.profile.bytes_s},
                             {"layer_overhead_s", d.profile.layer_overhead_s}};
    for (size_t k = 0; k < compute::kKinds; ++k)
      e["efficiency"][std::string(compute::kKindNames[k])] = d.profile.efficiency[k];
    j["devices"].push_back(e);
  }
  for (const compute::ClassFidelity& f : compute::class_fidelity()) {
    j["classes"].push_back({{"device", f.device},
                            {"fitted_steps", f.fitted_steps},
                            {"held_out_steps", f.held_out_steps},
                            {"models", f.models},
                            {"fitted_roofline_error", optional_json(f.fitted.roofline)},
                            {"fitted_flop_model_error", optional_json(f.fitted.flop_model)},
                            {"held_out_roofline_error", optional_json(f.held_out.roofline)},
                            {"held_out_flop_model_error", optional_json(f.held_out.flop_model)},
                            {"spearman_roofline", optional_json(f.spearman_roofline)},
                            {"spearman_flop_model", optional_json(f.spearman_flop_model)}});
  }
  for (const compute::Check& c : compute::published_checks()) {
    const compute::Measurement& m = *c.measurement;
    j["checks"].push_back({{"device", m.device},
                           {"model", m.model},
                           {"batch", m.batch},
                           {"held_out", m.held_out},
                           {"published_seconds", m.seconds},
                           {"published_seconds_high", m.range() ? nlohmann::ordered_json(m.seconds_high) : nullptr},
                           {"published_steps", m.steps},
                           {"measured_s", m.step_s()},
                           {"measured_high_s", m.range() ? nlohmann::ordered_json(m.step_high_s()) : nullptr},
                           {"roofline_s", c.roofline_s},
                           {"roofline_error", c.roofline_error()},
                           {"flop_model_s", c.flop_model_s},
                           {"flop_model_error", c.flop_model_error()},
                           {"source", m.source->title},
                           {"url", m.source->url},
                           {"setting", m.source->setting}});
  }
  std::cout << j.dump(2) << "\n";
}

}  // namespace

int cost_command(const std::vector<std::string>& args) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options()).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << kUsage << "\n" << options();
      return 0;
    }
    if (vm.count("published")) {
      print_published();
      return 0;
    }
    for (const char* required : {"model", "device", "batch"})
      if (!vm.count(required)) throw po::error(std::string("missing --") + required);
  } catch (const po::error& e) {
    std::fprintf(stderr, "edgetrain cost: %s\n%s", util::printable(e.what()).c_str(), kUsage);
    return 2;
  }
  try {
    const std::string model = vm["model"].as<std::string>();
    const int64_t batch = parse_batch(vm["batch"].as<std::string>());
    std::optional<Shape> input;
    if (vm.count("input")) input = parse_input(vm["input"].as<std::string>());
    const auto [layers, shape] = model_layers(model, input);
    const auto [profile, device_class] = device_profile(vm["device"].as<std::string>());
    const compute::StepCost cost = compute::step_cost(layers, batch, profile);
    const double flops = compute::kTrainingFactor * static_cast<double>(batch) * compute::forward_flops(layers);
    std::optional<compute::StepFidelity> fidelity;
    if (device_class) fidelity = compute::step_fidelity(model, *device_class);
    const std::string shape_text = std::to_string(shape.c) + "x" + std::to_string(shape.h) + "x" + std::to_string(shape.w);
    if (vm.count("json")) {
      nlohmann::ordered_json j;
      j["model"] = model;
      j["device"] = profile.name;
      j["batch"] = batch;
      j["input"] = shape_text;
      j["compute_model"] = "roofline-by-layer-kind";
      j["step_s"] = cost.step_s;
      for (size_t k = 0; k < compute::kKinds; ++k) j["by_kind_s"][std::string(compute::kKindNames[k])] = cost.by_kind_s[k];
      j["step_flops"] = flops;
      j["error_band"] = fidelity && fidelity->error_band ? nlohmann::ordered_json(*fidelity->error_band) : nullptr;
      j["error_basis"] = fidelity ? fidelity->basis : "a profile file: its own calibration";
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::printf("%s on %s, batch %lld, input %s: %.4g s per training step (%.4g GFLOP)\n", model.c_str(),
                profile.name.c_str(), static_cast<long long>(batch), shape_text.c_str(), cost.step_s, flops / 1e9);
    for (size_t k = 0; k < compute::kKinds; ++k) {
      if (cost.by_kind_s[k] == 0) continue;
      std::printf("  %-10s %10.4g s  %5.1f%%\n", std::string(compute::kKindNames[k]).c_str(), cost.by_kind_s[k],
                  100 * cost.by_kind_s[k] / cost.step_s);
    }
    if (fidelity && fidelity->error_band) {
      std::printf("expected error: within %.0f%% (%s)\n", 100 * *fidelity->error_band, fidelity->basis.c_str());
    } else {
      std::printf("expected error: unknown (%s)\n",
                  fidelity ? fidelity->basis.c_str() : "a profile file: only its own calibration backs it");
    }
    return 0;
  } catch (const BadInput& e) {
    return fail(e.what());
  } catch (const util::InputError& e) {
    return fail(dynamic_cast<const std::exception&>(e).what());
  }
}

}  // namespace edgetrain::cli

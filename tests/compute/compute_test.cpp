// The compute model: the roofline's arithmetic by hand, the fit recovering a profile from its own
// predictions, the published checks (the hold-out errors results/fidelity/compute.md quotes, the rule
// that picks the held-out steps), Spearman's rank correlation on cases worked by hand, the fidelity a
// run reports, and the profile file's refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compute/class_fidelity.hpp"
#include "compute/devices.hpp"
#include "compute/fidelity.hpp"
#include "compute/fit.hpp"
#include "compute/profile_file.hpp"
#include "compute/roofline.hpp"
#include "compute/spearman.hpp"
#include "learn/catalogue.hpp"

using namespace edgetrain::compute;

TEST_CASE("roofline: each layer the larger of its compute and memory times, plus the overhead") {
  const Layers layers{{Kind::conv, 1e9, 1e6, 4e6}, {Kind::norm, 0, 2e6, 8}, {Kind::depthwise, 1e7, 1e6, 0}};
  Profile p{"t", "", 1e10, 1e9, 1e-3};
  p.efficiency[static_cast<size_t>(Kind::depthwise)] = 0.1;
  const StepCost c = step_cost(layers, 2, p);
  const double conv = std::max(3 * 2 * 1e9 / 1e10, 3 * (2 * 1e6 + 4e6) / 1e9) + 1e-3;     // compute-bound: 0.6 s
  const double norm = 3 * (2 * 2e6 + 8) / 1e9 + 1e-3;                                      // memory only
  const double dw = std::max(3 * 2 * 1e7 / 1e9, 3 * 2 * 1e6 / 1e8) + 1e-3;               // at 10% of both
  CHECK(c.by_kind_s[static_cast<size_t>(Kind::conv)] == doctest::Approx(conv));
  CHECK(c.by_kind_s[static_cast<size_t>(Kind::norm)] == doctest::Approx(norm));
  CHECK(c.by_kind_s[static_cast<size_t>(Kind::depthwise)] == doctest::Approx(dw));
  CHECK(c.step_s == doctest::Approx(conv + norm + dw));
  CHECK(flop_model_step_s(layers, 2, 1e10) == doctest::Approx(3 * 2 * (1e9 + 1e7) / 1e10));
}

TEST_CASE("fit: recovers a profile from steps it predicted") {
  const Profile truth{"truth", "", 2e10, 6e8, 2e-5};
  std::vector<Layers> models;
  for (const char* name : {"resnet18", "mobilenet_v2", "mnasnet_050", "resnet50"})
    models.push_back(edgetrain::learn::find_model(name)->compute_layers);
  std::vector<Point> points;
  for (const Layers& l : models)
    for (int64_t b : {1, 16}) points.push_back({&l, b, step_cost(l, b, truth).step_s});
  const Profile fitted = fit_profile(Profile{"start", "", 1e9, 1e9, 1e-4}, {Knob::flops, Knob::bytes, Knob::overhead}, points);
  for (const Point& pt : points) CHECK(step_cost(*pt.layers, pt.batch, fitted).step_s == doctest::Approx(pt.step_s).epsilon(0.01));
  CHECK(fitted.flops_s == doctest::Approx(truth.flops_s).epsilon(0.02));
  CHECK(fitted.bytes_s == doctest::Approx(truth.bytes_s).epsilon(0.02));
}

TEST_CASE("published checks: every held-out step within the issue's 35%, or its class's band says it is not") {
  int held_out = 0;
  for (const Check& c : published_checks()) {
    CAPTURE(c.measurement->device);
    CAPTURE(c.measurement->model);
    CHECK(find_device(c.measurement->device)->fitted);  // every class with a published step is fitted
    if (!c.measurement->held_out) continue;
    ++held_out;
    const double e = std::fabs(c.roofline_error());
    const StepFidelity f = step_fidelity(c.measurement->model, c.measurement->device);
    REQUIRE(f.error_band.has_value());
    CHECK(*f.error_band >= e);
    if (e > kHeldOutGoal) CHECK(f.basis.find("over the 35% goal") != std::string::npos);
    else CHECK(f.basis.find("over the") == std::string::npos);
  }
  CHECK(held_out >= 7);
  // The goal holds today: a change that breaks it must say so here, not only on the page.
  for (const ClassFidelity& k : class_fidelity()) {
    CAPTURE(k.device);
    CHECK(*k.held_out.roofline <= kHeldOutGoal);
  }
  // The band over all devices is the largest of the fitted classes'.
  CHECK(*held_out_band("", false) ==
        std::max({*held_out_band("rpi4", false), *held_out_band("rpi5", false), *held_out_band("jetson_nano", false)}));
  // The FLOP model cannot place ResNets and MobileNets on one device: that is what the issue is about.
  CHECK(*held_out_band("rpi4", true) > 1.0);
  CHECK(*held_out_band("rpi4", false) < *held_out_band("rpi4", true));
}

TEST_CASE("published steps: held out by the rule, fixed before any error was seen (published.hpp)") {
  std::map<std::string, std::vector<const Measurement*>> by_class;
  for (const Measurement& m : published_measurements()) {
    CAPTURE(m.model);
    if (m.range()) CHECK(m.held_out);  // a fit needs one figure
    else by_class[m.device].push_back(&m);
  }
  for (auto& [device, steps] : by_class) {
    auto step_flops = [](const Measurement* m) {
      return static_cast<double>(m->batch) * forward_flops(edgetrain::learn::find_model(m->model)->compute_layers);
    };
    std::stable_sort(steps.begin(), steps.end(),
                     [&](const Measurement* a, const Measurement* b) { return step_flops(a) < step_flops(b); });
    for (size_t i = 0; i < steps.size(); ++i) {
      CAPTURE(device);
      CAPTURE(steps[i]->model);
      CHECK(steps[i]->held_out == (i % 2 == 1 && i + 1 < steps.size()));
    }
  }
}

TEST_CASE("a published range: the error against its farther end") {
  const Source s{"t", "u", "x"};
  const Measurement m{"rpi4", "resnet18", 8, 420, 625, true, &s, 480};  // 0.672 to 0.768 s a step
  CHECK(m.range());
  CHECK(relative_error(m, 0.687) == doctest::Approx(0.687 / 0.768 - 1));  // -10.5%, not +2.2%
  CHECK(relative_error(m, 0.6) == doctest::Approx(0.6 / 0.768 - 1));
  CHECK(relative_error(m, 0.9) == doctest::Approx(0.9 / 0.672 - 1));
  const Measurement one{"rpi4", "resnet18", 8, 420, 625, false, &s};
  CHECK(!one.range());
  CHECK(relative_error(one, 0.84) == doctest::Approx(0.25));
}

TEST_CASE("spearman: ranks with ties, and correlations worked by hand") {
  CHECK(ranks({3, 1, 3}) == std::vector<double>{2.5, 1, 2.5});
  CHECK(ranks({10, 30, 20, 20, 5}) == std::vector<double>{2, 5, 3.5, 3.5, 1});
  CHECK(*spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
  CHECK(*spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
  // One swap among four, no ties: 1 - 6 x (0 + 1 + 1 + 0) / (4 x 15) = 0.8.
  CHECK(*spearman({1, 2, 3, 4}, {1, 3, 2, 4}) == doctest::Approx(0.8));
  // A tie: ranks {1, 2.5, 2.5, 4} against {1, 2, 3, 4}, Pearson's r of the ranks = 4.5 / sqrt(4.5 x 5).
  CHECK(*spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == doctest::Approx(4.5 / std::sqrt(4.5 * 5)));
  CHECK(!spearman({1, 2}, {1, 2}));             // too few
  CHECK(!spearman({1, 2, 3}, {1, 2}));          // unequal lengths
  CHECK(!spearman({5, 5, 5}, {1, 2, 3}));       // no order to compare
}

TEST_CASE("class fidelity: per class, its steps, errors and rank correlations") {
  REQUIRE(class_fidelity().size() == 3);
  const ClassFidelity* pi4 = find_class_fidelity("rpi4");
  REQUIRE(pi4 != nullptr);
  CHECK(pi4->fitted_steps == 5);
  CHECK(pi4->held_out_steps == 3);
  CHECK(pi4->models.size() == 8);
  CHECK(*pi4->held_out.roofline == doctest::Approx(*held_out_band("rpi4", false)));
  CHECK(*pi4->held_out.flop_model == doctest::Approx(*held_out_band("rpi4", true)));
  // The Spearman figure is the published and predicted step times' own.
  std::vector<double> published, predicted;
  for (const Check& c : published_checks())
    if (std::string_view(c.measurement->device) == "rpi4") {
      published.push_back(c.measurement->step_s());
      predicted.push_back(c.roofline_s);
    }
  CHECK(*pi4->spearman_roofline == doctest::Approx(*spearman(predicted, published)));
  CHECK(*pi4->spearman_roofline >= *pi4->spearman_flop_model);
  // The Jetson Nano: two ResNet-18 steps, one a range, so no order across models to compare.
  const ClassFidelity* nano = find_class_fidelity("jetson_nano");
  REQUIRE(nano != nullptr);
  CHECK(nano->models == std::vector<std::string>{"resnet18"});
  CHECK(!nano->spearman_roofline);
  CHECK(find_class_fidelity("nuc") == nullptr);
}

TEST_CASE("device classes: the shipped ones, fitted or derived, each with a basis") {
  for (const char* name : {"rpi4", "rpi5", "jetson_nano", "jetson_orin_nano", "phone_midrange", "nuc"}) {
    CAPTURE(name);
    const DeviceClass* d = find_device(name);
    REQUIRE(d != nullptr);
    CHECK(d->profile.flops_s > 0);
    CHECK(d->profile.bytes_s > 0);
    CHECK(!d->basis.empty());
  }
  CHECK(find_device("rpi4")->fitted);
  CHECK(find_device("jetson_nano")->fitted);
  CHECK(!find_device("nuc")->fitted);
  CHECK(find_device("pi4") == nullptr);
  // The Pi 5 is faster than the Pi 4 on the same step.
  const Layers& l = edgetrain::learn::find_model("mnasnet_100")->compute_layers;
  CHECK(step_cost(l, 16, find_device("rpi5")->profile).step_s < step_cost(l, 16, find_device("rpi4")->profile).step_s);
}

TEST_CASE("fidelity: model, profile and band, or why there is none") {
  const StepFidelity f = step_fidelity("resnet50", "rpi4");
  CHECK(f.compute_model == "roofline-by-layer-kind");
  CHECK(f.profile == "rpi4");
  REQUIRE(f.error_band.has_value());
  CHECK(*f.error_band == doctest::Approx(*held_out_band("rpi4", false)));
  const StepFidelity flops = step_fidelity("resnet50", "");
  CHECK(flops.compute_model == "flops-over-host-speed");
  CHECK(*flops.error_band > *f.error_band);
  CHECK(!step_fidelity("bert-base", "rpi4").error_band);
  CHECK(!step_fidelity("resnet50", "nuc").error_band);
  CHECK(step_fidelity("resnet50", "nuc").basis.find("not fitted") != std::string::npos);
  // A class whose published steps are all one model: a band for that model, none for another.
  CHECK(step_fidelity("resnet18", "jetson_nano").error_band == held_out_band("jetson_nano", false));
  const StepFidelity other = step_fidelity("mobilenet_v2", "jetson_nano");
  CHECK(!other.error_band);
  CHECK(other.basis.find("all resnet18") != std::string::npos);
  CHECK_THROWS_AS(step_fidelity("resnet50", "pi9"), std::invalid_argument);
}

TEST_CASE("profile file: written and read back, and refusals that name the file and the key") {
  Profile p{"box", "a test", 3e9, 2e9, 1e-6};
  p.efficiency[2] = 0.25;
  const std::string path = (std::filesystem::temp_directory_path() / "edgetrain_compute_test_profile.json").string();
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(profile_json(p));
  const Profile back = read_profile_file(path);
  CHECK(back.name == "box");
  CHECK(back.flops_s == p.flops_s);
  CHECK(back.efficiency[2] == 0.25);
  write("{\"flops_s\": 1e9, \"bytes_s\": -1, \"layer_overhead_s\": 0}");
  CHECK_THROWS_WITH_AS(read_profile_file(path), (path + ": \"bytes_s\" must be from 1000 to 1e+15, not -1").c_str(),
                       ProfileFileError);
  // Values that make a step that never ends: the platform's speed bounds, a second a layer at most.
  write("{\"flops_s\": 1e-300, \"bytes_s\": 1e9, \"layer_overhead_s\": 0}");
  CHECK_THROWS_WITH_AS(read_profile_file(path), (path + ": \"flops_s\" must be from 1e+06 to 1e+15, not 1e-300").c_str(),
                       ProfileFileError);
  write("{\"flops_s\": 1e9, \"bytes_s\": 1e9, \"layer_overhead_s\": 1e9}");
  CHECK_THROWS_WITH_AS(read_profile_file(path), (path + ": \"layer_overhead_s\" must be from 0 to 1, not 1e+09").c_str(),
                       ProfileFileError);
  write("{\"flops_s\": 1e9, \"bytes_s\": 1e9, \"layer_overhead_s\": 0, \"efficiency\": {\"dense\": 1e-300}}");
  CHECK_THROWS_AS(read_profile_file(path), ProfileFileError);
  // Nesting that would exhaust the stack, refused before it is parsed.
  write(std::string(100000, '[') + std::string(100000, ']'));
  CHECK_THROWS_WITH_AS(read_profile_file(path), (path + ":1:65: nesting deeper than 64 levels").c_str(), ProfileFileError);
  write("{\"flops_s\": 1e9, \"bytes_s\": 1e9, \"layer_overhead_s\": 0, \"efficiency\": {\"lstm\": 1}}");
  CHECK_THROWS_WITH_AS(read_profile_file(path), (path + ": efficiency of an unknown layer kind \"lstm\"").c_str(),
                       ProfileFileError);
  write("not json");
  CHECK_THROWS_AS(read_profile_file(path), ProfileFileError);
  std::remove(path.c_str());
}

// Cost of each compressor on a real model's update (never asserted anywhere): encode, decode, the
// device's error-feedback round (what sim/uplink does per step: p = g + e, encode p, e = p -
// D(C(p))), ScaDLES's top-k norm gap, and the server's SGD step, on the MLP 784-128-10
// (101,770 values) and the AdaComp CNN (21,840) layouts. Prints the median wall time of --reps
// repetitions per operation; under callgrind (tools/bench/codecs.sh --callgrind) each operation
// is its own function (op_*), so inclusive instruction counts per operation come out of one run.
//
// Usage: bench_codecs [--reps N] [--only KIND-LABEL] [--layout mlp|cnn]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "compress/compressor.hpp"
#include "learn/sgd.hpp"

using namespace edgetrain;
using compress::Compressor;
using compress::Config;
using compress::Context;
using compress::Encoded;
using compress::ErrorFeedback;
using compress::Layer;

namespace {

std::vector<Layer> layout(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<Layer> layers;
  int64_t offset = 0;
  for (const auto& shape : shapes) {
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    layers.push_back({"layer" + std::to_string(layers.size()), shape, offset, numel});
    offset += numel;
  }
  return layers;
}

// Gradient-like values: normal, scaled per layer.
std::vector<float> gradient(const std::vector<Layer>& layers, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> g;
  for (size_t li = 0; li < layers.size(); ++li) {
    const float scale = li % 2 ? 0.1f : 0.01f;
    for (int64_t i = 0; i < layers[li].numel; ++i) g.push_back(scale * normal(rng));
  }
  return g;
}

struct Kind {
  const char* label;
  Config config;
};

std::vector<Kind> kinds() {
  auto make = [](const char* label, const char* kind, auto set) {
    Config c;
    c.kind = kind;
    set(c);
    return Kind{label, c};
  };
  auto nothing = [](Config&) {};
  return {
      make("none", "none", nothing),
      make("fp16", "fp16", nothing),
      make("topk-1%", "topk", [](Config& c) { c.ratio = 0.01; }),
      make("topk-10%", "topk", [](Config& c) { c.ratio = 0.1; }),
      make("topk-1%-global", "topk", [](Config& c) { c.ratio = 0.01, c.scope = "global"; }),
      make("topk-1%-packed", "topk", [](Config& c) { c.ratio = 0.01, c.packed_indices = true; }),
      make("randomk-1%", "randomk", [](Config& c) { c.ratio = 0.01; }),
      make("threshold-0.01", "threshold", [](Config& c) { c.threshold = 0.01; }),
      make("adacomp-1%", "adacomp", [](Config& c) { c.ratio = 0.01; }),
      make("adacomp-bins-50", "adacomp-bins", [](Config& c) { c.bin_size = 50; }),
      make("qsgd-16", "qsgd", [](Config& c) { c.levels = 16; }),
      make("terngrad", "terngrad", nothing),
      make("signsgd", "signsgd", nothing),
      make("onebit", "onebit", nothing),
      make("powersgd-2", "powersgd", [](Config& c) { c.rank = 2; }),
  };
}

// Keeps results alive so the optimiser cannot drop the work.
volatile uint64_t sink = 0;

__attribute__((noinline)) void op_encode(Compressor& c, const std::vector<float>& g, const Context& ctx) {
  sink = sink + c.encode(g, ctx).payload.size();
}

__attribute__((noinline)) void op_decode(const Compressor& c, const std::vector<uint8_t>& payload, const Context& ctx) {
  sink = sink + c.decode(payload, ctx).size();
}

// The device's step as sim/uplink.cpp does it with error feedback.
__attribute__((noinline)) void op_feedback_round(Compressor& c, ErrorFeedback& ef, const std::vector<float>& g,
                                                 const Context& ctx) {
  const std::span<const float> p = ef.correct(g);
  sink = sink + compress::all_finite(p);
  const Encoded e = c.encode(p, ctx);
  ef.remember(c, e.payload, ctx);
  sink = sink + e.payload.size();
}

__attribute__((noinline)) void op_norm_gap(const std::vector<float>& g, const std::vector<Layer>& layers,
                                           double ratio) {
  sink = sink + static_cast<uint64_t>(1e9 * compress::topk_norm_gap(g, layers, ratio, "layer"));
}

__attribute__((noinline)) void op_sgd(learn::Sgd& sgd, std::vector<float>& params, const std::vector<float>& g) {
  sgd.step(params, g, 0.01);
  sink = sink + static_cast<uint64_t>(params[0] > 0);
}

// Median wall time of `reps` calls, in microseconds.
double median_us(int reps, const std::function<void(int)>& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f(r);
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  std::string only, only_layout;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--layout") && i + 1 < argc) {
      only_layout = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_codecs [--reps N] [--only KIND-LABEL] [--layout mlp|cnn]\n");
      return 2;
    }
  }
  struct Model {
    const char* name;
    std::vector<Layer> layers;
  };
  const Model models[] = {
      {"mlp", layout({{128, 784}, {128}, {10, 128}, {10}})},
      {"cnn", layout({{10, 1, 5, 5}, {10}, {20, 10, 5, 5}, {20}, {50, 320}, {50}, {10, 50}, {10}})},
  };
  std::printf("%-6s %-16s %12s %12s %14s\n", "model", "kind", "encode_us", "decode_us", "feedback_us");
  for (const Model& m : models) {
    if (!only_layout.empty() && only_layout != m.name) continue;
    std::vector<std::vector<float>> inputs;
    for (uint64_t s = 0; s < 4; ++s) inputs.push_back(gradient(m.layers, s));
    for (const Kind& k : kinds()) {
      if (!only.empty() && only != k.label) continue;
      auto c = compress::make_compressor(k.config, m.layers);
      const double enc = median_us(reps, [&](int r) { op_encode(*c, inputs[r % 4], Context{1, r}); });
      const std::vector<uint8_t> payload = c->encode(inputs[0], Context{1, 0}).payload;
      const double dec = median_us(reps, [&](int) { op_decode(*c, payload, Context{1, 0}); });
      auto fresh = compress::make_compressor(k.config, m.layers);
      ErrorFeedback ef(inputs[0].size());
      const double fb = median_us(reps, [&](int r) { op_feedback_round(*fresh, ef, inputs[r % 4], Context{1, r}); });
      std::printf("%-6s %-16s %12.1f %12.1f %14.1f\n", m.name, k.label, enc, dec, fb);
    }
    if (only.empty() || only == "norm-gap") {
      const double gap = median_us(reps, [&](int r) { op_norm_gap(inputs[r % 4], m.layers, 0.1); });
      std::printf("%-6s %-16s %12.1f %12s %14s\n", m.name, "norm-gap-10%", gap, "-", "-");
    }
    if (only.empty() || only == "sgd") {
      learn::Sgd sgd(0.9, 5e-4);
      std::vector<float> params(inputs[0].size(), 0.5f);
      const double step = median_us(reps, [&](int r) { op_sgd(sgd, params, inputs[r % 4]); });
      std::printf("%-6s %-16s %12.1f %12s %14s\n", m.name, "sgd-step", step, "-", "-");
    }
  }
  return 0;
}

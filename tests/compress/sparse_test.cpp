// Sparse compressors against brute-force references: the sent set is exactly the top-k /
// threshold / bin-rule set, decoding puts the sent values in place and zeros elsewhere, payload
// sizes follow the formulas of docs/how-to/compression.md (checked on hand-computed numbers too), randomk's sender and
// receiver agree, adacomp-bins conserves its residual, every scheme is deterministic, and
// malformed payloads or settings raise CompressError.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <set>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "helpers.hpp"

using namespace edgetrain::compress;

namespace {

using compress_test::random_vector;
using compress_test::total;
const auto layout = compress_test::layout_of_sizes;

using Factory = std::unique_ptr<Compressor> (*)(const Config&, const std::vector<Layer>&);

// Gaussian entries, or small integers (many ties in magnitude) when `ties`.
// Reference k rule, written independently of the library's.
int64_t ref_k(double ratio, int64_t n) {
  if (n == 0) return 0;
  return std::clamp<int64_t>(static_cast<int64_t>(std::floor(ratio * n + 1e-9)), 1, n);
}

// ceil(log2 n), at least 1.
int ref_bits(int64_t n) {
  int bits = 1;
  while ((int64_t{1} << bits) < n) ++bits;
  return bits;
}

int64_t index_bytes(int64_t count, int64_t n, bool packed) {
  return packed ? (count * ref_bits(n) + 7) / 8 : 4 * count;
}

// The k largest |x| in [begin, end) by a full sort (ties: lower index first), as flat indices.
std::vector<int64_t> ref_top_k(const std::vector<float>& x, int64_t begin, int64_t end, int64_t k) {
  std::vector<int64_t> idx(end - begin);
  std::iota(idx.begin(), idx.end(), begin);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return std::fabs(x[a]) > std::fabs(x[b]); });
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

std::vector<int64_t> flatten(const std::vector<std::vector<int64_t>>& per_layer) {
  std::vector<int64_t> out;
  for (const auto& l : per_layer) out.insert(out.end(), l.begin(), l.end());
  return out;
}

// Decoded must equal x on the sent indices and be 0 elsewhere.
void check_decoded(const std::vector<float>& decoded, const std::vector<float>& x, const std::vector<int64_t>& sent) {
  REQUIRE(decoded.size() == x.size());
  std::vector<bool> is_sent(x.size(), false);
  for (int64_t i : sent) is_sent[i] = true;
  int64_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i) wrong += decoded[i] != (is_sent[i] ? x[i] : 0.0f);
  CHECK(wrong == 0);
}

// Per-layer index lists must lie in their layer and increase.
void check_index_lists(const Encoded& e, const std::vector<Layer>& layers) {
  REQUIRE(e.indices.size() == layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t j = 0; j < e.indices[l].size(); ++j) {
      CHECK(e.indices[l][j] >= layers[l].offset);
      CHECK(e.indices[l][j] < layers[l].offset + layers[l].numel);
      if (j > 0) CHECK(e.indices[l][j] > e.indices[l][j - 1]);
    }
  }
}

Config config(const std::string& kind, double ratio = 0.1, bool packed = false) {
  Config c;
  c.kind = kind;
  c.ratio = ratio;
  c.packed_indices = packed;
  return c;
}

const std::vector<std::vector<int64_t>> kLayouts = {{1},    {3},      {1, 3, 1}, {1, 3, 1000}, {10, 7, 64, 1, 1000},
                                                    {5000}, {0, 5, 0}};
const std::vector<double> kRatios = {0.001, 0.01, 0.1, 0.3, 0.5, 1.0};

}  // namespace

TEST_CASE("topk layer scope sends exactly the k largest per layer") {
  for (bool packed : {false, true}) {
    for (bool ties : {false, true}) {
      for (const auto& sizes : kLayouts) {
        for (double ratio : kRatios) {
          CAPTURE(packed);
          CAPTURE(ties);
          CAPTURE(sizes.size());
          CAPTURE(ratio);
          const auto layers = layout(sizes);
          auto c = make_topk(config("topk", ratio, packed), layers);
          const std::vector<float> x = random_vector(total(layers), 5 + sizes.size(), ties);
          const Encoded e = c->encode(x, {});
          check_index_lists(e, layers);
          int64_t expected_size = 0;
          for (size_t l = 0; l < layers.size(); ++l) {
            const int64_t k = ref_k(ratio, layers[l].numel);
            CHECK(e.indices[l] == ref_top_k(x, layers[l].offset, layers[l].offset + layers[l].numel, k));
            expected_size += 4 * k + index_bytes(k, layers[l].numel, packed);
          }
          CHECK(static_cast<int64_t>(e.payload.size()) == expected_size);
          check_decoded(c->decode(e.payload, {}), x, flatten(e.indices));
        }
      }
    }
  }
}

TEST_CASE("topk global scope selects over the whole vector") {
  for (bool packed : {false, true}) {
    for (const auto& sizes : kLayouts) {
      for (double ratio : kRatios) {
        CAPTURE(packed);
        CAPTURE(ratio);
        const auto layers = layout(sizes);
        const int64_t n = total(layers);
        Config cfg = config("topk", ratio, packed);
        cfg.scope = "global";
        auto c = make_topk(cfg, layers);
        const std::vector<float> x = random_vector(n, 17, ratio > 0.2);
        const Encoded e = c->encode(x, {});
        check_index_lists(e, layers);
        const int64_t k = ref_k(ratio, n);
        CHECK(flatten(e.indices) == ref_top_k(x, 0, n, k));
        CHECK(static_cast<int64_t>(e.payload.size()) == 4 * k + index_bytes(k, n, packed));
        check_decoded(c->decode(e.payload, {}), x, flatten(e.indices));
      }
    }
  }
}

TEST_CASE("topk sizes match hand-computed values") {
  // Layers 1, 3, 1000 at ratio 0.01: k = 1, 1, 10.
  const auto layers = layout({1, 3, 1000});
  const std::vector<float> x = random_vector(1004, 3);
  CHECK(make_topk(config("topk", 0.01), layers)->encode(x, {}).payload.size() == 96);  // 8 x 12
  // Packed: 4 x 12 values + 1 byte (1 bit) + 1 byte (2 bits) + ceil(10 x 10 / 8) = 13 bytes.
  CHECK(make_topk(config("topk", 0.01, true), layers)->encode(x, {}).payload.size() == 63);
  // Global: k = floor(10.04) = 10; packed indices over 1004 entries take 10 bits: 40 + 13.
  Config global = config("topk", 0.01, true);
  global.scope = "global";
  CHECK(make_topk(global, layers)->encode(x, {}).payload.size() == 53);
  global.packed_indices = false;
  CHECK(make_topk(global, layers)->encode(x, {}).payload.size() == 80);
  // The products are integers although in doubles 0.29 x 100 = 28.999999999999996 and
  // 0.7 x 90 = 62.99999999999999: they keep 29 and 63.
  const Encoded e = make_topk(config("topk", 0.29), layout({100, 90}))->encode(random_vector(190, 1), {});
  CHECK(e.indices[0].size() == 29);
  CHECK(make_topk(config("topk", 0.7), layout({90}))->encode(random_vector(90, 1), {}).indices[0].size() == 63);
  CHECK(e.indices[1].size() == 26);  // floor(26.1)
  CHECK(e.payload.size() == 8 * (29 + 26));
}

TEST_CASE("topk breaks ties by the lower index") {
  const auto layers = layout({6});
  const std::vector<float> x = {1, -2, 2, -1, 2, 0.5};
  auto c = make_topk(config("topk", 0.5), layers);  // k = 3
  CHECK(c->encode(x, {}).indices[0] == std::vector<int64_t>{1, 2, 4});
  auto c2 = make_topk(config("topk", 0.34), layers);  // k = 2
  CHECK(c2->encode(x, {}).indices[0] == std::vector<int64_t>{1, 2});
  const std::vector<float> same(6, -1.0f);
  CHECK(c->encode(same, {}).indices[0] == std::vector<int64_t>{0, 1, 2});
}

// The selection judges its first bound from every 8th entry of a large block: patterns where
// that sample misleads (it sees only the large entries, or only the small ones), where the k-th
// largest is 0 or ties with thousands of entries, all against a full sort.
TEST_CASE("topk matches a full sort where a strided sample misleads") {
  const int64_t n = 20000;
  const std::vector<std::function<float(int64_t)>> patterns = {
      [](int64_t i) { return i % 8 == 0 ? 1.0f : 1e-3f; },
      [](int64_t i) { return i % 8 == 0 ? 1e-3f : -1.0f; },
      [](int64_t i) { return i % 997 == 5 ? static_cast<float>(i) : 0.0f; },
      [](int64_t i) { return i % 2 ? 0.5f : -0.5f; },
      [](int64_t i) { return std::ldexp(1.0f, static_cast<int>(i % 40) - 20) * (i % 3 ? 1.0f : -1.0f); },
  };
  for (size_t p = 0; p < patterns.size(); ++p) {
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = patterns[p](i);
    for (double ratio : {0.001, 0.01, 0.2, 0.9}) {
      for (const char* scope : {"layer", "global"}) {
        CAPTURE(p);
        CAPTURE(ratio);
        CAPTURE(scope);
        Config c = config("topk", ratio);
        c.scope = scope;
        auto topk = make_topk(c, layout({n}));
        CHECK(flatten(topk->encode(x, {}).indices) == ref_top_k(x, 0, n, ref_k(ratio, n)));
      }
    }
  }
}

TEST_CASE("adacomp is per-layer topk whatever the scope") {
  for (bool packed : {false, true}) {
    for (const auto& sizes : kLayouts) {
      const auto layers = layout(sizes);
      Config cfg = config("adacomp", 0.1, packed);
      cfg.scope = "global";
      auto a = make_adacomp(cfg, layers);
      auto t = make_topk(config("topk", 0.1, packed), layers);
      const std::vector<float> x = random_vector(total(layers), 23, true);
      const Encoded ea = a->encode(x, {});
      const Encoded et = t->encode(x, {});
      CHECK(ea.payload == et.payload);
      CHECK(ea.indices == et.indices);
      for (size_t l = 0; l < layers.size(); ++l) {
        CHECK(ea.indices[l] ==
              ref_top_k(x, layers[l].offset, layers[l].offset + layers[l].numel, ref_k(0.1, layers[l].numel)));
      }
      check_decoded(a->decode(ea.payload, {}), x, flatten(ea.indices));
    }
  }
}

TEST_CASE("randomk sender and receiver agree on the indices") {
  for (const auto& sizes : kLayouts) {
    for (double ratio : kRatios) {
      CAPTURE(ratio);
      const auto layers = layout(sizes);
      auto sender = make_randomk(config("randomk", ratio), layers);
      auto receiver = make_randomk(config("randomk", ratio), layers);
      const std::vector<float> x = random_vector(total(layers), 29);
      const Context ctx{12345, 7};
      const Encoded e = sender->encode(x, ctx);
      check_index_lists(e, layers);
      int64_t sum_k = 0;
      for (size_t l = 0; l < layers.size(); ++l) {
        CHECK(static_cast<int64_t>(e.indices[l].size()) == ref_k(ratio, layers[l].numel));
        sum_k += ref_k(ratio, layers[l].numel);
      }
      CHECK(static_cast<int64_t>(e.payload.size()) == 4 * sum_k);
      check_decoded(receiver->decode(e.payload, ctx), x, flatten(e.indices));
    }
  }
}

TEST_CASE("randomk indices differ by step and seed and layer") {
  const auto layers = layout({1000, 1000});
  auto c = make_randomk(config("randomk", 0.1), layers);
  const std::vector<float> x = random_vector(2000, 2);
  const Encoded a = c->encode(x, {1, 0});
  const Encoded b = c->encode(x, {1, 1});
  const Encoded other_seed = c->encode(x, {2, 0});
  const Encoded again = make_randomk(config("randomk", 0.1), layers)->encode(x, {1, 0});
  CHECK(a.indices == again.indices);
  CHECK(a.payload == again.payload);
  CHECK(a.indices[0] != b.indices[0]);
  CHECK(a.indices[1] != b.indices[1]);
  CHECK(a.indices[0] != other_seed.indices[0]);
  std::vector<int64_t> second_shifted = a.indices[1];
  for (int64_t& i : second_shifted) i -= 1000;
  CHECK(a.indices[0] != second_shifted);
  // A receiver at another step puts the values elsewhere.
  CHECK(c->decode(a.payload, {1, 1}) != c->decode(a.payload, {1, 0}));
}

TEST_CASE("randomk draws every index about equally often") {
  const auto layers = layout({20});
  auto c = make_randomk(config("randomk", 0.25), layers);  // k = 5
  const std::vector<float> x(20, 1.0f);
  std::vector<int64_t> counts(20, 0);
  const int steps = 20000;
  for (int s = 0; s < steps; ++s) {
    const Encoded e = c->encode(x, {99, s});
    REQUIRE(e.indices[0].size() == 5);
    for (int64_t i : e.indices[0]) ++counts[i];
  }
  // Expected 5000 each, standard deviation about 61.
  for (int64_t n : counts) CHECK(std::abs(n - 5000) < 300);
}

TEST_CASE("threshold sends exactly the entries above it") {
  for (bool packed : {false, true}) {
    for (const auto& sizes : kLayouts) {
      for (double t : {0.0, 0.5, 1.0, 2.0, 10.0}) {
        CAPTURE(packed);
        CAPTURE(t);
        const auto layers = layout(sizes);
        Config cfg = config("threshold", 0.1, packed);
        cfg.threshold = t;
        auto c = make_threshold(cfg, layers);
        const std::vector<float> x = random_vector(total(layers), 31, t != 0.5);  // integers: |v| == t occurs
        const Encoded e = c->encode(x, {});
        check_index_lists(e, layers);
        int64_t expected_size = 0;
        for (size_t l = 0; l < layers.size(); ++l) {
          std::vector<int64_t> ref;
          for (int64_t i = layers[l].offset; i < layers[l].offset + layers[l].numel; ++i) {
            if (std::fabs(x[i]) > t) ref.push_back(i);
          }
          CHECK(e.indices[l] == ref);
          const auto c_l = static_cast<int64_t>(ref.size());
          expected_size += 4 + 4 * c_l + index_bytes(c_l, layers[l].numel, packed);
        }
        CHECK(static_cast<int64_t>(e.payload.size()) == expected_size);
        check_decoded(c->decode(e.payload, {}), x, flatten(e.indices));
      }
    }
  }
}

TEST_CASE("threshold sizes match hand-computed values") {
  Config cfg = config("threshold");
  cfg.threshold = 1.0;
  const std::vector<float> x = {0.5f, -1.0f, 1.5f, -3.0f, 1.0f, 0.0f, 2.0f};
  // Layers 3 and 4: counts 1 ({1.5}) and 2 ({-3, 2}): (4 + 8) + (4 + 16) = 32.
  const auto layers = layout({3, 4});
  const Encoded e = make_threshold(cfg, layers)->encode(x, {});
  CHECK(e.payload.size() == 32);
  CHECK(e.indices == std::vector<std::vector<int64_t>>{{2}, {3, 6}});
  cfg.packed_indices = true;  // 2 bits for n = 3 and 4: (4 + 4 + 1) + (4 + 8 + 1) = 22
  CHECK(make_threshold(cfg, layers)->encode(x, {}).payload.size() == 22);
}

namespace {

// Chen et al.'s rule, written out directly: returns the sent flat indices per layer and updates
// the residual.
std::vector<std::vector<int64_t>> ref_adacomp_bins(std::vector<float>& residual, const std::vector<float>& g,
                                                   const std::vector<Layer>& layers, int64_t bin) {
  std::vector<float> big_g(g.size()), h(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    big_g[i] = residual[i] + g[i];
    h[i] = big_g[i] + g[i];
  }
  std::vector<std::vector<int64_t>> sent(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    const int64_t begin = layers[l].offset, end = begin + layers[l].numel;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t bin_begin = begin + (i - begin) / bin * bin;
      const int64_t bin_end = std::min(end, bin_begin + bin);
      float m = 0;
      for (int64_t j = bin_begin; j < bin_end; ++j) m = std::max(m, std::fabs(big_g[j]));
      if (big_g[i] != 0 && std::fabs(h[i]) >= m) sent[l].push_back(i);
    }
  }
  residual = big_g;
  for (const auto& s : sent) {
    for (int64_t i : s) residual[i] = 0;
  }
  return sent;
}

}  // namespace

TEST_CASE("adacomp-bins follows the bin rule and keeps its residual") {
  for (bool packed : {false, true}) {
    for (int64_t bin : {1, 3, 50, 5000}) {
      for (const auto& sizes : kLayouts) {
        CAPTURE(packed);
        CAPTURE(bin);
        const auto layers = layout(sizes);
        const int64_t n = total(layers);
        Config cfg = config("adacomp-bins", 0.1, packed);
        cfg.bin_size = bin;
        auto c = make_adacomp_bins(cfg, layers);
        std::vector<float> ref_residual(n, 0.0f);
        std::vector<double> sum_inputs(n, 0), sum_decoded(n, 0);
        for (int step = 0; step < 6; ++step) {
          const std::vector<float> g = random_vector(n, 100 + step, step % 2 == 1);
          std::vector<float> expected_g(n);
          for (int64_t i = 0; i < n; ++i) expected_g[i] = ref_residual[i] + g[i];
          const auto expected = ref_adacomp_bins(ref_residual, g, layers, bin);
          const Encoded e = c->encode(g, {0, step});
          check_index_lists(e, layers);
          CHECK(e.indices == expected);
          int64_t expected_size = 0;
          for (size_t l = 0; l < layers.size(); ++l) {
            const auto c_l = static_cast<int64_t>(expected[l].size());
            expected_size += 4 + 4 * c_l + index_bytes(c_l, layers[l].numel, packed);
          }
          CHECK(static_cast<int64_t>(e.payload.size()) == expected_size);
          const std::vector<float> d = c->decode(e.payload, {0, step});
          check_decoded(d, expected_g, flatten(e.indices));  // sent entries carry G_i
          for (int64_t i = 0; i < n; ++i) {
            sum_inputs[i] += g[i];
            sum_decoded[i] += d[i];
          }
        }
        // Conservation: everything put in was either sent or is still in the residual.
        for (int64_t i = 0; i < n; ++i) CHECK(sum_decoded[i] + ref_residual[i] == doctest::Approx(sum_inputs[i]));
      }
    }
  }
}

TEST_CASE("adacomp-bins conserves the sum of its inputs over many steps") {
  const auto layers = layout({1, 3, 257, 1000});
  const int64_t n = total(layers);
  Config cfg = config("adacomp-bins");
  cfg.bin_size = 50;
  auto c = make_adacomp_bins(cfg, layers);
  std::vector<double> sum_inputs(n, 0), sum_decoded(n, 0);
  int64_t sent = 0;
  for (int step = 0; step < 40; ++step) {
    const std::vector<float> g = random_vector(n, 500 + step);
    const Encoded e = c->encode(g, {0, step});
    sent += static_cast<int64_t>(flatten(e.indices).size());
    const std::vector<float> d = c->decode(e.payload, {0, step});
    for (int64_t i = 0; i < n; ++i) {
      sum_inputs[i] += g[i];
      sum_decoded[i] += d[i];
    }
  }
  CHECK(sent < 40 * n / 2);  // it does compress
  // The residual is what a zero update would have to flush: it is not exposed, so recover it
  // from the next step: with g = 0, G = r and H = r, so every bin sends its maximum entries
  // until nothing is left.
  std::vector<double> flushed(n, 0);
  for (int step = 40; step < 40 + 2000; ++step) {
    const Encoded e = c->encode(std::vector<float>(n, 0.0f), {0, step});
    if (flatten(e.indices).empty()) break;
    const std::vector<float> d = c->decode(e.payload, {0, step});
    for (int64_t i = 0; i < n; ++i) flushed[i] += d[i];
  }
  CHECK(flatten(c->encode(std::vector<float>(n, 0.0f), {0, 9999}).indices).empty());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    wrong += std::fabs(sum_decoded[i] + flushed[i] - sum_inputs[i]) > 1e-4 * (1 + std::fabs(sum_inputs[i]));
  }
  CHECK(wrong == 0);
}

TEST_CASE("adacomp-bins hand example") {
  Config cfg = config("adacomp-bins");
  cfg.bin_size = 2;
  auto c = make_adacomp_bins(cfg, layout({4}));
  // G = g, H = 2g. Bin {1, -3}: max 3, |H| = 2, 6 -> send index 1. Bin {0.5, 0.25}: max 0.5,
  // |H| = 1, 0.5 -> send both.
  const Encoded e1 = c->encode(std::vector<float>{1, -3, 0.5, 0.25}, {});
  CHECK(e1.indices[0] == std::vector<int64_t>{1, 2, 3});
  CHECK(e1.payload.size() == 4 + 3 * 8);
  CHECK(c->decode(e1.payload, {}) == std::vector<float>{0, -3, 0.5, 0.25});
  // Residual {1, 0, 0, 0}; a zero update sends it; the all-zero second bin sends nothing.
  const Encoded e2 = c->encode(std::vector<float>{0, 0, 0, 0}, {});
  CHECK(e2.indices[0] == std::vector<int64_t>{0});
  CHECK(c->decode(e2.payload, {}) == std::vector<float>{1, 0, 0, 0});
  CHECK(c->encode(std::vector<float>{0, 0, 0, 0}, {}).payload.size() == 4);
}

TEST_CASE("every sparse scheme is deterministic") {
  const auto layers = layout({1, 3, 100, 1000});
  const int64_t n = total(layers);
  const std::vector<std::pair<std::string, Factory>> schemes = {{"topk", &make_topk},
                                                                {"randomk", &make_randomk},
                                                                {"threshold", &make_threshold},
                                                                {"adacomp", &make_adacomp},
                                                                {"adacomp-bins", &make_adacomp_bins}};
  for (const auto& [kind, make] : schemes) {
    CAPTURE(kind);
    Config cfg = config(kind, 0.05, kind == "threshold");
    cfg.threshold = 1.5;
    cfg.bin_size = 7;
    auto a = make(cfg, layers);
    auto b = make(cfg, layers);
    for (int step = 0; step < 5; ++step) {
      const std::vector<float> x = random_vector(n, 40 + step, step == 2);
      const Context ctx{77, step};
      const Encoded ea = a->encode(x, ctx);
      const Encoded eb = b->encode(x, ctx);
      CHECK(ea.payload == eb.payload);
      CHECK(ea.indices == eb.indices);
      CHECK(a->decode(ea.payload, ctx) == b->decode(eb.payload, ctx));
    }
  }
}

namespace {

// Little-endian u32 at byte `at`.
void put_u32(std::vector<uint8_t>& p, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

void check_length_errors(const Compressor& c, std::vector<uint8_t> payload, const Context& ctx = {}) {
  CHECK_NOTHROW(c.decode(payload, ctx));
  payload.push_back(0);
  CHECK_THROWS_AS(c.decode(payload, ctx), CompressError);
  payload.resize(payload.size() - 2);
  CHECK_THROWS_AS(c.decode(payload, ctx), CompressError);
  CHECK_THROWS_AS(c.decode(std::vector<uint8_t>{}, ctx), CompressError);
}

}  // namespace

TEST_CASE("malformed topk payloads raise CompressError") {
  const auto layers = layout({10});
  auto c = make_topk(config("topk", 0.3), layers);  // k = 3: values at bytes 0..11, indices at 12..23
  const std::vector<float> x = {0, 5, 0, 0, 7, 0, 0, 0, 0, 9};
  const std::vector<uint8_t> good = c->encode(x, {}).payload;
  check_length_errors(*c, good);
  std::vector<uint8_t> p = good;
  put_u32(p, 20, 10);  // index out of range
  CHECK_THROWS_AS(c->decode(p, {}), CompressError);
  p = good;
  put_u32(p, 16, 1);  // duplicate: 1, 1, 9
  CHECK_THROWS_AS(c->decode(p, {}), CompressError);
  p = good;
  put_u32(p, 12, 4);  // decreasing: 4, 1, 9
  put_u32(p, 16, 1);
  CHECK_THROWS_AS(c->decode(p, {}), CompressError);
  // Packed: 1000 entries need 10 bits; 1023 is a valid bit pattern but out of range.
  auto packed = make_topk(config("topk", 0.001, true), layout({1000}));  // k = 1: 4 + 2 bytes
  std::vector<float> y(1000, 0.0f);
  y[500] = 1;
  std::vector<uint8_t> q = packed->encode(y, {}).payload;
  REQUIRE(q.size() == 6);
  CHECK(packed->decode(q, {})[500] == 1.0f);
  q[4] = 0xff;
  q[5] = 0x03;
  CHECK_THROWS_AS(packed->decode(q, {}), CompressError);
  check_length_errors(*packed, packed->encode(y, {}).payload);
}

TEST_CASE("malformed threshold and adacomp-bins payloads raise CompressError") {
  Config cfg = config("threshold");
  cfg.threshold = 1;
  cfg.bin_size = 2;
  const auto layers = layout({4, 3});
  const std::vector<float> x = {0, 2, 3, 0, -4, 0, 0};
  for (Factory make : {&make_threshold, &make_adacomp_bins}) {
    auto c = make(cfg, layers);
    const std::vector<uint8_t> good = c->encode(x, {}).payload;
    // Layer 0: count 2 (bytes 0..3), values (4..11), indices 1, 2 (12..19); layer 1: count 1 (20..23) ...
    REQUIRE(good.size() == 4 + 16 + 4 + 8);
    check_length_errors(*c, good);
    std::vector<uint8_t> p = good;
    put_u32(p, 0, 5);  // more entries than the layer has
    CHECK_THROWS_AS(c->decode(p, {}), CompressError);
    p = good;
    put_u32(p, 0, 0xffffffffu);
    CHECK_THROWS_AS(c->decode(p, {}), CompressError);
    p = good;
    put_u32(p, 16, 4);  // index 4 in a layer of 4
    CHECK_THROWS_AS(c->decode(p, {}), CompressError);
    p = good;
    put_u32(p, 16, 1);  // repeated index
    CHECK_THROWS_AS(c->decode(p, {}), CompressError);
    p = good;
    put_u32(p, 0, 1);  // a count that does not match the rest of the payload
    CHECK_THROWS_AS(c->decode(p, {}), CompressError);
  }
}

TEST_CASE("malformed randomk payloads raise CompressError") {
  const auto layers = layout({1, 50});
  auto c = make_randomk(config("randomk", 0.1), layers);  // k = 1 + 5
  const Context ctx{3, 4};
  check_length_errors(*c, c->encode(random_vector(51, 8), ctx).payload, ctx);
}

TEST_CASE("sparse settings are validated and named") {
  const auto layers = layout({10});
  for (Factory make : {&make_topk, &make_randomk, &make_adacomp}) {
    for (double bad : {0.0, -0.1, 1.5, std::nan("")}) {
      CHECK_THROWS_AS(make(config("topk", bad), layers), CompressError);
    }
    CHECK_NOTHROW(make(config("topk", 1.0), layers));
  }
  CHECK_THROWS_WITH(make_topk(config("topk", 0.0), layers), "compression.ratio: must be in (0, 1], got 0");
  CHECK_THROWS_WITH(make_topk(config("topk", 1.5), layers), "compression.ratio: must be in (0, 1], got 1.5");
  Config scope = config("topk");
  scope.scope = "row";
  CHECK_THROWS_WITH_AS(make_topk(scope, layers), doctest::Contains("compression.scope"), CompressError);
  Config bins = config("adacomp-bins");
  bins.bin_size = 0;
  CHECK_THROWS_WITH_AS(make_adacomp_bins(bins, layers), "compression.bin_size: must be >= 1, got 0", CompressError);
  Config thr = config("threshold");
  thr.threshold = -1;
  CHECK_THROWS_WITH_AS(make_threshold(thr, layers), "compression.threshold: must be >= 0, got -1", CompressError);
  thr.threshold = std::nan("");
  CHECK_THROWS_AS(make_threshold(thr, layers), CompressError);
  // The update must match the layers.
  CHECK_THROWS_AS(make_topk(config("topk"), layers)->encode(random_vector(9, 1), {}), CompressError);
  CHECK_THROWS_AS(make_adacomp_bins(config("adacomp-bins"), layers)->encode(random_vector(11, 1), {}), CompressError);
}

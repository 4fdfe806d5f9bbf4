// Payload sizes without data (timing-only mode) against the lengths the real encoders produce.
#include "compress/size.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "helpers.hpp"

using namespace edgetrain::compress;
using compress_test::layout_of_shapes;
using compress_test::random_vector;
using compress_test::total;

namespace {

// Every data-independent kind with the settings that change its size.
std::vector<Config> sized_configs() {
  std::vector<Config> configs;
  auto add = [&](std::string kind, auto&& set) {
    Config c;
    c.kind = std::move(kind);
    set(c);
    configs.push_back(c);
  };
  auto none = [](Config&) {};
  add("none", none);
  add("fp16", none);
  for (double ratio : {0.001, 0.01, 0.29, 0.5, 1.0}) {
    for (bool packed : {false, true}) {
      for (const char* scope : {"layer", "global"}) {
        add("topk", [&](Config& c) {
          c.ratio = ratio, c.packed_indices = packed;
          c.scope = scope;
        });
      }
      add("adacomp", [&](Config& c) { c.ratio = ratio, c.packed_indices = packed; });
      add("randomk", [&](Config& c) { c.ratio = ratio, c.packed_indices = packed; });  // packing has no effect
    }
  }
  for (int64_t levels : std::vector<int64_t>{1, 2, 3, 7, 16, 255, 256, int64_t{1} << 31})
    add("qsgd", [&](Config& c) { c.levels = levels; });
  add("terngrad", none);
  add("signsgd", none);
  add("onebit", none);
  for (int64_t rank : {1, 2, 4, 64}) add("powersgd", [&](Config& c) { c.rank = rank; });
  return configs;
}

std::vector<std::vector<Layer>> layouts() {
  return {
      layout_of_shapes({{1}}),
      layout_of_shapes({{1}, {1}, {1}}),
      layout_of_shapes({{1, 1}, {3}, {2, 5}, {1}}),
      layout_of_shapes({{7}, {0}, {9}, {8}, {17}, {1000}}),
      layout_of_shapes({{16, 3, 5, 5}, {16}, {5, 1}, {1, 5}, {10, 16 * 4 * 4}, {10}}),
      // About 100k parameters: the MLP 784-128-10.
      layout_of_shapes({{128, 784}, {128}, {10, 128}, {10}}),
  };
}

std::string describe(const Config& c) {
  return c.kind + " ratio " + std::to_string(c.ratio) + " scope " + c.scope + " packed " +
         std::to_string(c.packed_indices) + " levels " + std::to_string(c.levels) + " rank " + std::to_string(c.rank);
}

}  // namespace

TEST_CASE("size: the formula equals the encoded length for every data-independent kind, layout and input") {
  const auto all = layouts();
  for (const Config& c : sized_configs()) {
    for (size_t li = 0; li < all.size(); ++li) {
      const auto& layers = all[li];
      CAPTURE(describe(c));
      CAPTURE(li);
      const std::optional<int64_t> formula = formula_payload_bytes(c, layers);
      REQUIRE(formula.has_value());
      auto compressor = make_compressor(c, layers);  // one sender: stateful kinds see successive steps
      const int64_t n = total(layers);
      for (uint64_t seed : {1u, 2u, 3u}) {
        for (bool ties : {false, true}) {
          const auto u = random_vector(n, seed, ties);
          CHECK(static_cast<int64_t>(compressor->encode(u, {seed, static_cast<int64_t>(seed)}).payload.size()) ==
                *formula);
        }
      }
      const std::vector<float> zeros(static_cast<size_t>(n), 0.0f);
      CHECK(static_cast<int64_t>(compressor->encode(zeros, {9, 9}).payload.size()) == *formula);
    }
  }
}

TEST_CASE("size: hand-computed lengths of a small layout") {
  // Layers of 10 (2x5 matrix), 3 and 1 entries: N = 14.
  const auto layers = layout_of_shapes({{2, 5}, {3}, {1}});
  auto bytes = [&](Config c) { return *formula_payload_bytes(c, layers); };
  Config c;
  CHECK(bytes(c) == 56);
  c.kind = "fp16";
  CHECK(bytes(c) == 28);
  c.kind = "topk";
  c.ratio = 0.3;  // k = 3, 1, 1
  CHECK(bytes(c) == 8 * 5);
  c.packed_indices = true;  // indices of 4, 2 and 1 bits: 2 + 1 + 1 bytes
  CHECK(bytes(c) == 4 * 5 + 2 + 1 + 1);
  c.scope = "global";  // k = 4 of 14, 4-bit indices
  CHECK(bytes(c) == 4 * 4 + 2);
  c.kind = "qsgd";
  c.levels = 16;  // 17 values in 5 bits, plus the sign: 6 bits each
  CHECK(bytes(c) == (4 + 8) + (4 + 3) + (4 + 1));
  c.kind = "onebit";
  CHECK(bytes(c) == (8 + 2) + (8 + 1) + (8 + 1));
  c.kind = "powersgd";
  c.rank = 4;  // r' = 2 for the 2x5 matrix: P 2x2, Q 5x2
  CHECK(bytes(c) == 4 * 2 * (2 + 5) + 4 * 3 + 4);
}

TEST_CASE("size: data-dependent kinds have no formula, and a declared ratio sizes them") {
  const auto layers = layout_of_shapes({{128, 784}, {128}, {10, 128}, {10}});
  for (const char* kind : {"threshold", "adacomp-bins"}) {
    Config c;
    c.kind = kind;
    CHECK_FALSE(formula_payload_bytes(c, layers).has_value());
  }
  // 101,770 entries = 407,080 dense bytes.
  CHECK(declared_payload_bytes(layers, 1.0) == 407080);
  CHECK(declared_payload_bytes(layers, 0.01) == 4071);  // 4070.8 rounded
  CHECK(declared_payload_bytes(layers, 0.5) == 203540);
}

TEST_CASE("size: settings a real run refuses are refused the same way") {
  const auto layers = layout_of_shapes({{4}});
  Config c;
  c.kind = "topk";
  c.ratio = 0;
  CHECK_THROWS_AS(formula_payload_bytes(c, layers), ConfigError);
  c.kind = "qsgd";
  c.levels = 0;
  CHECK_THROWS_AS(formula_payload_bytes(c, layers), ConfigError);
  c.kind = "zip";
  CHECK_THROWS_AS(formula_payload_bytes(c, layers), ConfigError);
  const std::vector<Layer> gap = {{"a", {2}, 0, 2}, {"b", {2}, 3, 2}};
  c.kind = "none";
  CHECK_THROWS_AS(formula_payload_bytes(c, gap), CompressError);
}

TEST_CASE("size: the timing-only reference's size table lists every kind as the code sizes it") {
  std::ifstream in(std::string(EDGETRAIN_SOURCE_DIR) + "/docs/reference/timing-only.md");
  std::stringstream readme;
  readme << in.rdbuf();
  const std::string text = readme.str();
  const size_t begin = text.find("<!-- sizes:begin -->"), end = text.find("<!-- sizes:end -->");
  REQUIRE(begin != std::string::npos);
  REQUIRE(end > begin);
  std::istringstream rows(text.substr(begin, end - begin));
  std::set<std::string> listed;
  const auto layers = layout_of_shapes({{4, 3}, {3}});
  for (std::string row; std::getline(rows, row);) {
    if (row.rfind("| `", 0) != 0) continue;
    const std::string kind = row.substr(3, row.find('`', 3) - 3);
    const std::string size = row.substr(row.find(" | ") + 3);
    CAPTURE(kind);
    CHECK(listed.insert(kind).second);
    Config c;
    c.kind = kind;
    CHECK(formula_payload_bytes(c, layers).has_value() == (size.rfind("formula: ", 0) == 0));
    if (size.rfind("formula: ", 0) != 0) CHECK(size.rfind("declared: ", 0) == 0);
  }
  CHECK(listed == std::set<std::string>{"none", "fp16", "topk", "randomk", "threshold", "qsgd", "terngrad", "signsgd",
                                        "onebit", "powersgd", "adacomp", "adacomp-bins"});
}

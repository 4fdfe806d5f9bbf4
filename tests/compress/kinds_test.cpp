// The kinds table against the compressors it names. Every row builds, its size formula (where it
// has one) is the length of real encodings, its index column says whether encodings carry index
// sets, and its settings column is exactly what its factory and encoder read. A kind is reachable
// only through its row (make_compressor, the scenario's keys), and these cases walk every row:
// a kind added with an incomplete row fails here.
#include "compress/kinds.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "compress/size.hpp"
#include "helpers.hpp"

using namespace edgetrain::compress;
using compress_test::layout_of_shapes;
using compress_test::random_vector;
using compress_test::total;

namespace {

std::vector<std::vector<Layer>> layouts() {
  return {
      layout_of_shapes({{1}}),
      layout_of_shapes({{2, 5}, {3}, {1}}),
      layout_of_shapes({{7}, {0}, {9}, {1000}}),
      layout_of_shapes({{16, 3, 5, 5}, {16}, {10, 64}, {10}}),
  };
}

Config config_of(const Kind& kind) {
  Config c;
  c.kind = kind.name;
  return c;
}

// One encoding of a fresh compressor (stateful kinds start from the same state each time).
std::vector<uint8_t> first_payload(const Config& c, const std::vector<Layer>& layers) {
  return make_compressor(c, layers)->encode(random_vector(total(layers), 7), {3, 0}).payload;
}

// A change of one setting: a value its readers refuse (a ConfigError naming it), or for
// index_bits, which has no bad value, one that changes what its readers send.
struct Probe {
  Setting setting;
  std::string key;
  void (*change)(Config&);
};

const std::vector<Probe>& probes() {
  static const std::vector<Probe> all = {
      {Setting::Ratio, "ratio", [](Config& c) { c.ratio = 0; }},
      {Setting::Scope, "scope", [](Config& c) { c.scope = "diagonal"; }},
      {Setting::IndexBits, "index_bits", [](Config& c) { c.packed_indices = true; }},
      {Setting::Threshold, "threshold", [](Config& c) { c.threshold = -1; }},
      {Setting::Levels, "levels", [](Config& c) { c.levels = 0; }},
      {Setting::Rank, "rank", [](Config& c) { c.rank = 0; }},
      {Setting::BinSize, "bin_size", [](Config& c) { c.bin_size = 0; }},
  };
  return all;
}

}  // namespace

TEST_CASE("kinds: every kind once, in the order of the scenario's key table, each found by its name") {
  CHECK(kind_names() == std::vector<std::string>{"none", "fp16", "topk", "randomk", "threshold", "qsgd", "terngrad",
                                                 "signsgd", "onebit", "powersgd", "adacomp", "adacomp-bins"});
  for (const Kind& k : kinds()) {
    CAPTURE(k.name);
    CHECK(&kind_named(k.name) == &k);
    CHECK_FALSE(k.description.empty());
    CHECK((k.make != nullptr));
  }
}

TEST_CASE("kinds: an unknown kind is refused on compression.kind") {
  CHECK_THROWS_WITH_AS(kind_named("zip"), "compression.kind: unknown compressor \"zip\"", ConfigError);
  Config c;
  c.kind = "zip";
  CHECK_THROWS_WITH_AS(make_compressor(c, layout_of_shapes({{4}})), "compression.kind: unknown compressor \"zip\"",
                       ConfigError);
  CHECK_THROWS_WITH_AS(formula_payload_bytes(c, layout_of_shapes({{4}})),
                       "compression.kind: unknown compressor \"zip\"", ConfigError);
}

TEST_CASE("kinds: every kind builds, its formula is the length of its encodings, its index sets as its row says") {
  for (const Kind& k : kinds()) {
    for (const auto& layers : layouts()) {
      CAPTURE(k.name);
      CAPTURE(total(layers));
      const Config c = config_of(k);
      auto compressor = make_compressor(c, layers);
      const std::optional<int64_t> formula = formula_payload_bytes(c, layers);
      CHECK(formula.has_value() == (k.payload_bytes != nullptr));
      for (int64_t step = 0; step < 3; ++step) {  // one sender: stateful kinds see successive steps
        const Encoded e = compressor->encode(random_vector(total(layers), 11 + static_cast<uint64_t>(step)), {5, step});
        if (formula) CHECK(static_cast<int64_t>(e.payload.size()) == *formula);
        CHECK(e.indices.empty() == !k.sends_indices);
      }
    }
  }
}

TEST_CASE("kinds: the settings column is what each kind's factory and encoder read") {
  const auto layers = layout_of_shapes({{16, 3, 5, 5}, {16}, {10, 64}, {10}});
  for (const Kind& k : kinds()) {
    const std::vector<uint8_t> baseline = first_payload(config_of(k), layers);
    for (const Probe& p : probes()) {
      CAPTURE(k.name);
      CAPTURE(p.key);
      Config changed = config_of(k);
      p.change(changed);
      if (!k.reads(p.setting)) {
        CHECK(first_payload(changed, layers) == baseline);
      } else if (p.setting == Setting::IndexBits) {
        CHECK(first_payload(changed, layers) != baseline);
      } else {
        try {
          make_compressor(changed, layers);
          FAIL("accepted");
        } catch (const ConfigError& e) {
          CHECK(e.setting() == p.key);
        }
      }
    }
    // The sender's and timing-only's settings: no kind reads them.
    Config sender = config_of(k);
    sender.error_feedback = true;
    sender.timing_ratio = 0.5;
    CHECK(first_payload(sender, layers) == baseline);
  }
}

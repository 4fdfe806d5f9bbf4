// Golden hashes of every compressor's bytes: payload, decoded vector, sent indices and the
// error-feedback residual over a few steps of a 101,770-value update (the MLP's layout), plus
// the top-k norm gap's exact doubles and a special-values vector (NaN, inf, -0, subnormals) for
// the schemes that accept it. The expected values were computed by the encoders as they were
// before they were made faster: any change to a single byte or bit fails here. (The norm gap's
// values are those of its position-order sum, which replaced a sum in std::nth_element's order:
// the last bits of 6 of these 16 moved then, and no encoding did.) The inputs come
// from the generator's raw bits (no std distributions), so they are the same everywhere.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compress/compressor.hpp"
#include "helpers.hpp"

using namespace edgetrain::compress;

namespace {

// FNV-1a, 64 bits.
struct Hash {
  uint64_t h = 0xcbf29ce484222325ULL;
  void byte(uint8_t b) { h = (h ^ b) * 0x100000001b3ULL; }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void bytes(const std::vector<uint8_t>& v) {
    u64(v.size());
    for (uint8_t b : v) byte(b);
  }
  void floats(const std::vector<float>& v) {
    u64(v.size());
    for (float f : v) u64(std::bit_cast<uint32_t>(f));
  }
  void indices(const std::vector<std::vector<int64_t>>& v) {
    u64(v.size());
    for (const auto& layer : v) {
      u64(layer.size());
      for (int64_t i : layer) u64(static_cast<uint64_t>(i));
    }
  }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

std::string hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The MLP 784-128-10 and the AdaComp CNN layouts as learn::Model lays them out.
std::vector<Layer> mlp_layers() { return compress_test::layout_of_shapes({{128, 784}, {128}, {10, 128}, {10}}); }
std::vector<Layer> cnn_layers() {
  return compress_test::layout_of_shapes({{10, 1, 5, 5}, {10}, {20, 10, 5, 5}, {20}, {50, 320}, {50}, {10, 50}, {10}});
}

// A gradient-like update: per layer a different scale (fp16 meets subnormals in one), heavy
// tails, about 3% exact zeros, and in fc2.weight values on a 1/8 grid (many tied magnitudes).
std::vector<float> update(const std::vector<Layer>& layers, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double scales[] = {1e-2, 1.0, 3e-5, 10.0};
  std::vector<float> g(static_cast<size_t>(compress_test::total(layers)));
  for (size_t li = 0; li < layers.size(); ++li) {
    for (int64_t i = 0; i < layers[li].numel; ++i) {
      const uint64_t r = rng();
      const double u = static_cast<double>(r >> 11) * 0x1.0p-52 - 1.0;  // [-1, 1)
      double v = u * u * u * scales[li % 4];
      if ((r & 31) == 0) v = 0;
      if (li == 2) v = std::round(v * 8) / 8;
      g[static_cast<size_t>(layers[li].offset + i)] = static_cast<float>(v);
    }
  }
  return g;
}

struct Case {
  const char* name;
  Config config;
};

Config cfg(std::string kind, void (*setter)(Config&) = nullptr) {
  Config c;
  c.kind = std::move(kind);
  if (setter) setter(c);
  return c;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"none", cfg("none")},
      {"fp16", cfg("fp16")},
      {"topk layer", cfg("topk")},
      {"topk layer packed", cfg("topk", [](Config& c) { c.packed_indices = true; })},
      {"topk global", cfg("topk", [](Config& c) { c.scope = "global"; })},
      {"topk global packed 10%",
       cfg("topk", [](Config& c) { c.scope = "global", c.packed_indices = true, c.ratio = 0.1; })},
      {"randomk", cfg("randomk")},
      {"randomk 30%", cfg("randomk", [](Config& c) { c.ratio = 0.3; })},
      {"threshold", cfg("threshold", [](Config& c) { c.threshold = 0.3; })},
      {"threshold packed", cfg("threshold", [](Config& c) { c.threshold = 0.005, c.packed_indices = true; })},
      {"adacomp", cfg("adacomp", [](Config& c) { c.scope = "global"; })},
      {"adacomp-bins", cfg("adacomp-bins")},
      {"adacomp-bins packed 7", cfg("adacomp-bins", [](Config& c) { c.bin_size = 7, c.packed_indices = true; })},
      {"qsgd 16", cfg("qsgd")},
      {"qsgd 1", cfg("qsgd", [](Config& c) { c.levels = 1; })},
      {"qsgd 1000", cfg("qsgd", [](Config& c) { c.levels = 1000; })},
      {"terngrad", cfg("terngrad")},
      {"signsgd", cfg("signsgd")},
      {"onebit", cfg("onebit")},
      {"powersgd 2", cfg("powersgd")},
      {"powersgd 1", cfg("powersgd", [](Config& c) { c.rank = 1; })},
  };
  return all;
}

// Expected hashes of each layout/case: payloads, decoded vectors, indices (all steps), final
// residual.
struct Expected {
  const char *name, *payload, *decoded, *indices, *residual;
};

const std::vector<Expected> expected = {
    {"mlp/none", "1ca9af59bc7e671e", "ee7bf3a32494512e", "81d23fd7003c2305", "28488b2938566969"},
    {"mlp/fp16", "ef6765c86afe380c", "a02b4337dbedfad9", "81d23fd7003c2305", "7a728d0177cccb12"},
    {"mlp/topk layer", "5b83708977e7c706", "dd5c7184dde8d8e1", "3ea86966c72aa422", "f671bf8192d47c78"},
    {"mlp/topk layer packed", "6bb01653e8da8d87", "dd5c7184dde8d8e1", "3ea86966c72aa422", "f671bf8192d47c78"},
    {"mlp/topk global", "ad9395264f72d570", "9c107f3d1da45882", "fedf3b0e3323e57c", "3a7b5561d5716e4f"},
    {"mlp/topk global packed 10%", "9a3fa4788cce14af", "6fec61fca4294bd2", "020025cbd87588eb", "80e6cd75a8eddbe5"},
    {"mlp/randomk", "44bd21318cdd825e", "d7695740199901d7", "1002cfda79cf0b6a", "bf33c6ce084a9d98"},
    {"mlp/randomk 30%", "07927a36d95ac7bf", "13345601188bb345", "b91055b7f147441d", "1436b8402bbd6dfa"},
    {"mlp/threshold", "8cc335bc52df545f", "59b073e7f224c3dd", "fd5fbfe08745583e", "b26f125f14bbe62c"},
    {"mlp/threshold packed", "24dca8eee5858fba", "8f47dc7b34302ab4", "ccf9e51ed73432d9", "b82d0947a47e9bb4"},
    {"mlp/adacomp", "5b83708977e7c706", "dd5c7184dde8d8e1", "3ea86966c72aa422", "f671bf8192d47c78"},
    {"mlp/adacomp-bins", "4ab6e6eca9c95dfa", "d60587b01a7bf0fb", "8a83000880e72cb2", "6650f6a36d0131ab"},
    {"mlp/adacomp-bins packed 7", "080744cc0bd55558", "8dfb190ac88cf2fe", "11c5e1fb454a560c", "2dd8173d4e74f284"},
    {"mlp/qsgd 16", "fc04cbf6c9f491c6", "5aacd4243642c6c1", "81d23fd7003c2305", "6b6fde647c0c9cbd"},
    {"mlp/qsgd 1", "572d00707d1b8c24", "502375fabf82a43a", "81d23fd7003c2305", "03e8228e5c42291f"},
    {"mlp/qsgd 1000", "0a86b125f96f97b1", "fb494c56269d00ad", "81d23fd7003c2305", "4bb8bbd97180c4a7"},
    {"mlp/terngrad", "06e71be1bdffef99", "a576ee794b8813ec", "81d23fd7003c2305", "b071a540ff5ec377"},
    {"mlp/signsgd", "c1013529f85c6e59", "3bd2c315fd83a5bd", "81d23fd7003c2305", "3a4f5b1dc7008b05"},
    {"mlp/onebit", "24d158c15cea51b4", "5b754d71693cd558", "81d23fd7003c2305", "171f235ae46d569c"},
    {"mlp/powersgd 2", "ad34ee2f0cfa56c9", "bac53202443b5330", "81d23fd7003c2305", "0f2c34c6d6a2ebcf"},
    {"mlp/powersgd 1", "467db922cd149c09", "26dae96e8b5b9dbd", "81d23fd7003c2305", "a7af67c78a257019"},
    {"cnn/none", "b31180a0d09d4b34", "f32f8993a6fbc449", "81d23fd7003c2305", "7c905066787fe8be"},
    {"cnn/fp16", "e75dbd15228dec4b", "358339ccfedcbbbc", "81d23fd7003c2305", "2635dff57ba8509f"},
    {"cnn/topk layer", "c307d8e97e4caf55", "dcd2e2f18db82459", "a8f72ec1ffe8327b", "0ca9512c69260584"},
    {"cnn/topk layer packed", "f7e95284994e4e87", "dcd2e2f18db82459", "a8f72ec1ffe8327b", "0ca9512c69260584"},
    {"cnn/topk global", "df17889d1e8c16a3", "0dfb1f4ca3966046", "9eb132a902830d6f", "7e29e31b2f6435d4"},
    {"cnn/topk global packed 10%", "9e777252df646201", "a94111cc1c1a60d1", "2fdda4020503d580", "943a8b07245360dc"},
    {"cnn/randomk", "ba02c8c08f700ef4", "8bd15cd90f49ca3e", "2edf1062f7815d4e", "182daacdcf266b45"},
    {"cnn/randomk 30%", "ddcda8fed12ca7ea", "5838e8d15c5fc56b", "49668d26f04923d3", "7579ff2d02e061be"},
    {"cnn/threshold", "0ed6d34de192186b", "968884409342b07b", "1b287dce4e83aab4", "899f1a6a7dfebd79"},
    {"cnn/threshold packed", "0f0371978fdf7c68", "baf966b6c72b07c0", "03532384ed98b329", "9e0932a0fa922476"},
    {"cnn/adacomp", "c307d8e97e4caf55", "dcd2e2f18db82459", "a8f72ec1ffe8327b", "0ca9512c69260584"},
    {"cnn/adacomp-bins", "96bcad7877c73598", "90059038c3c18823", "f616bb15a2e5cefd", "d0e86cae5abfc53f"},
    {"cnn/adacomp-bins packed 7", "53293c017ef63e9b", "3bf65b3ca9a2fbad", "a4b4db1465b8c182", "01e80e7389636e85"},
    {"cnn/qsgd 16", "cb88f5e36d27736e", "8eea868f131fa33f", "81d23fd7003c2305", "e09d685350ee772b"},
    {"cnn/qsgd 1", "44894fa1594c3fce", "17355479325ad486", "81d23fd7003c2305", "2ecb79ed369b42ee"},
    {"cnn/qsgd 1000", "5f6a1ed6f41d64e1", "a8dbf2fe5d147da5", "81d23fd7003c2305", "fe4d7ea7dfcd559e"},
    {"cnn/terngrad", "94ea448238725473", "8aba83d75f9b00ff", "81d23fd7003c2305", "9ba877ec980bd4ac"},
    {"cnn/signsgd", "1f5885bf88bfffe7", "fb3341b9995adbaa", "81d23fd7003c2305", "bab151c65806a432"},
    {"cnn/onebit", "bf7ec99c45fe2dbe", "20558b331148a0ca", "81d23fd7003c2305", "c81fdb37961b0ded"},
    {"cnn/powersgd 2", "1a5fdfc6d6e56937", "c6a57fe40c6fa3e3", "81d23fd7003c2305", "cbf83a02b33091b7"},
    {"cnn/powersgd 1", "b7776e723db9f491", "1b518b8bfacff228", "81d23fd7003c2305", "5e5dfb3f96b642e0"},
    {"special/none", "be130b77b3114fe8", "288f9cde587c7774", "a8c7f832281a39c5", ""},
    {"special/fp16", "07a28a4049df8539", "89efca3faf962f14", "a8c7f832281a39c5", ""},
    {"special/topk layer", "b081a64ad2f22bf3", "192e26d3b9da4b94", "ff2883d9462d5e66", ""},
    {"special/topk layer packed", "4af12bf336159731", "192e26d3b9da4b94", "ff2883d9462d5e66", ""},
    {"special/topk global", "fa2ccf04613d69b8", "52f5834a5b91e0f4", "4f1371444019d7b4", ""},
    {"special/topk global packed 10%", "b64339c8691abac2", "f5c56e457800dd94", "4d8a8737465677e9", ""},
    {"special/randomk", "024bf73f880f0039", "bbb06153a946c098", "3a01e5fed9efee33", ""},
    {"special/randomk 30%", "3709278f8bf29634", "b9f2d54a5fdd3912", "f2164213c3c28621", ""},
    {"special/threshold", "db8adadadf3e5af1", "c8e7e68f8d8ff594", "b6ce8195d734e1ed", ""},
    {"special/threshold packed", "84554e2f72592adf", "c8e7e68f8d8ff594", "b6ce8195d734e1ed", ""},
    {"special/adacomp", "b081a64ad2f22bf3", "192e26d3b9da4b94", "ff2883d9462d5e66", ""},
    {"special/adacomp-bins", "f01a2a3083aa23e9", "fb740adc147661a9", "4c6471fab6655f3f", ""},
    {"special/adacomp-bins packed 7", "762fd41a6d3355ae", "c73b50df02d11c7a", "64b169a29bcf04d9", ""},
    {"gap/mlp/layer/0.001000", "3fd17688f7a6638a", "", "", ""},
    {"gap/mlp/layer/0.010000", "3fd16de403c98964", "", "", ""},
    {"gap/mlp/layer/0.100000", "3fcc4a0e3b6bef76", "", "", ""},
    {"gap/mlp/layer/0.500000", "3f3b7ba13f2fa23c", "", "", ""},
    {"gap/mlp/global/0.001000", "3f79269b7a178152", "", "", ""},
    {"gap/mlp/global/0.010000", "3f778787788ce194", "", "", ""},
    {"gap/mlp/global/0.100000", "3f67529019ee2a6d", "", "", ""},
    {"gap/mlp/global/0.500000", "3f024a992750a289", "", "", ""},
    {"gap/cnn/layer/0.001000", "3fde5f6b4df2ccae", "", "", ""},
    {"gap/cnn/layer/0.010000", "3fde5eec0bf5cfaf", "", "", ""},
    {"gap/cnn/layer/0.100000", "3fd48ece3b4ca361", "", "", ""},
    {"gap/cnn/layer/0.500000", "3f8242b821532aab", "", "", ""},
    {"gap/cnn/global/0.001000", "3f849448e47ac4e4", "", "", ""},
    {"gap/cnn/global/0.010000", "3f2f4966c01fe729", "", "", ""},
    {"gap/cnn/global/0.100000", "3f180be544578c44", "", "", ""},
    {"gap/cnn/global/0.500000", "3e7578b549fd36b5", "", "", ""},
};

const Expected* expected_for(const std::string& name) {
  for (const Expected& e : expected) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

// Values the sparse and dense schemes must carry as they are (quantisers refuse them).
std::vector<float> special_values(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n), 0.0f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            -0.0f,
                            1e-40f,
                            -3e-8f,
                            65520.0f,
                            65519.0f,
                            -7.0f,
                            7.0f,
                            6e-5f,
                            1e30f};
  for (size_t i = 0; i < v.size(); ++i) v[i] = specials[(i * 7919) % 12] * static_cast<float>(1 + i % 3);
  return v;
}

}  // namespace

TEST_CASE("golden bytes of every compressor with error feedback over three steps") {
  int missing = 0;
  for (const bool cnn : {false, true}) {
    const std::vector<Layer> layers = cnn ? cnn_layers() : mlp_layers();
    const int64_t n = compress_test::total(layers);
    REQUIRE(n == (cnn ? 21840 : 101770));
    for (const Case& c : cases()) {
      const std::string name = std::string(cnn ? "cnn/" : "mlp/") + c.name;
      CAPTURE(name);
      auto compressor = make_compressor(c.config, layers);
      ErrorFeedback feedback(static_cast<size_t>(n));
      Hash payload, decoded, indices;
      for (int64_t step = 0; step < 3; ++step) {
        const Context context{0x5eedULL + 7, step};
        const std::span<const float> corrected = feedback.correct(update(layers, 100 + static_cast<uint64_t>(step)));
        const std::vector<float> p(corrected.begin(), corrected.end());
        const Encoded e = compressor->encode(p, context);
        const std::vector<float> d = compressor->decode(e.payload, context);
        // decode_into overwrites every entry; remember() leaves exactly p - d, bit for bit.
        std::vector<float> into(d.size(), -1.5f);
        compressor->decode_into(e.payload, context, into);
        CHECK(same_bits(into, d));
        feedback.remember(*compressor, e.payload, context);
        std::vector<float> p_minus_d(p.size());
        for (size_t i = 0; i < p.size(); ++i) p_minus_d[i] = p[i] - d[i];
        CHECK(same_bits(feedback.residual(), p_minus_d));
        payload.bytes(e.payload);
        decoded.floats(d);
        indices.indices(e.indices);
      }
      Hash residual;
      residual.floats(feedback.residual());
      const Expected* want = expected_for(name);
      if (!want) {
        ++missing;
        MESSAGE("{\"" << name << "\", \"" << hex(payload.h) << "\", \"" << hex(decoded.h) << "\", \"" << hex(indices.h)
                      << "\", \"" << hex(residual.h) << "\"},");
        continue;
      }
      CHECK(hex(payload.h) == want->payload);
      CHECK(hex(decoded.h) == want->decoded);
      CHECK(hex(indices.h) == want->indices);
      CHECK(hex(residual.h) == want->residual);
    }
  }
  CHECK(missing == 0);
}

TEST_CASE("golden bytes of the sparse and dense compressors on NaN, infinities and subnormals") {
  const std::vector<Layer> layers = mlp_layers();
  const std::vector<float> v = special_values(compress_test::total(layers));
  int missing = 0;
  for (const Case& c : cases()) {
    if (c.config.kind == "qsgd" || c.config.kind == "terngrad" || c.config.kind == "signsgd" ||
        c.config.kind == "onebit" || c.config.kind == "powersgd")
      continue;
    const std::string name = std::string("special/") + c.name;
    CAPTURE(name);
    auto compressor = make_compressor(c.config, layers);
    const Context context{3, 1};
    const Encoded e = compressor->encode(v, context);
    Hash payload, decoded, indices;
    payload.bytes(e.payload);
    decoded.floats(compressor->decode(e.payload, context));
    indices.indices(e.indices);
    const Expected* want = expected_for(name);
    if (!want) {
      ++missing;
      MESSAGE("{\"" << name << "\", \"" << hex(payload.h) << "\", \"" << hex(decoded.h) << "\", \"" << hex(indices.h)
                    << "\", \"\"},");
      continue;
    }
    CHECK(hex(payload.h) == want->payload);
    CHECK(hex(decoded.h) == want->decoded);
    CHECK(hex(indices.h) == want->indices);
  }
  CHECK(missing == 0);
}

TEST_CASE("golden values of the top-k norm gap") {
  int missing = 0;
  for (const bool cnn : {false, true}) {
    const std::vector<Layer> layers = cnn ? cnn_layers() : mlp_layers();
    const std::vector<float> g = update(layers, 7);
    for (const char* scope : {"layer", "global"}) {
      for (const double ratio : {0.001, 0.01, 0.1, 0.5}) {
        const std::string name = std::string("gap/") + (cnn ? "cnn/" : "mlp/") + scope + "/" + std::to_string(ratio);
        CAPTURE(name);
        const uint64_t bits = std::bit_cast<uint64_t>(topk_norm_gap(g, layers, ratio, scope));
        const Expected* want = expected_for(name);
        if (!want) {
          ++missing;
          MESSAGE("{\"" << name << "\", \"" << hex(bits) << "\", \"\", \"\", \"\"},");
          continue;
        }
        CHECK(hex(bits) == want->payload);
      }
    }
  }
  CHECK(missing == 0);
}

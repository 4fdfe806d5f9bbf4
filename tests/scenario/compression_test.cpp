// Tests of the compression section: the uplink compressor (the `compression` keys themselves),
// ScaDLES adaptive compression and the downlink compressor.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "scenario/schema.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

const std::vector<std::string> kAllKinds = {"none",     "fp16",    "topk",   "randomk",  "threshold", "qsgd",
                                            "terngrad", "signsgd", "onebit", "powersgd", "adacomp",   "adacomp-bins"};

// minimal_doc() with `compression` set to `c`.
json with_compression(json c) {
  json doc = minimal_doc();
  doc["compression"] = std::move(c);
  return doc;
}

// The parse error of minimal_doc() with `compression` set to `c`.
std::string compression_error(const TempDir& dir, json c) { return parse_error(dir, with_compression(std::move(c))); }

void check_same_compressor(const CompressorSpec& a, const CompressorSpec& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.ratio == b.ratio);
  CHECK(a.scope == b.scope);
  CHECK(a.packed_indices == b.packed_indices);
  CHECK(a.error_feedback == b.error_feedback);
  CHECK(a.threshold == b.threshold);
  CHECK(a.levels == b.levels);
  CHECK(a.rank == b.rank);
  CHECK(a.bin_size == b.bin_size);
}

void check_same_compression(const CompressionSpec& a, const CompressionSpec& b) {
  check_same_compressor(a.uplink, b.uplink);
  REQUIRE(a.adaptive.has_value() == b.adaptive.has_value());
  if (a.adaptive) {
    CHECK(a.adaptive->delta == b.adaptive->delta);
    CHECK(a.adaptive->smoothing == b.adaptive->smoothing);
  }
  REQUIRE(a.downlink.has_value() == b.downlink.has_value());
  if (a.downlink) check_same_compressor(*a.downlink, *b.downlink);
}

}  // namespace

TEST_CASE("compression: absent or null means none") {
  TempDir dir;
  for (const json& doc : {minimal_doc(), with_compression(nullptr)}) {
    const Scenario s = parse_in(dir, doc);
    CHECK(s.compression.uplink.kind == "none");
    CHECK(!s.compression.uplink.error_feedback);
    CHECK(!s.compression.adaptive);
    CHECK(!s.compression.downlink);
    REQUIRE(s.resolved.contains("compression"));
    CHECK(s.resolved["compression"].is_null());
  }
  // An empty section is the same, spelled out.
  const Scenario s = parse_in(dir, with_compression(json::object()));
  CHECK(s.compression.uplink.kind == "none");
  CHECK(!s.compression.downlink);
  CHECK(s.resolved["compression"] == json::parse(R"({"kind": "none", "downlink": null})"));
}

TEST_CASE("compression: topk defaults") {
  TempDir dir;
  const Scenario s = parse_in(dir, with_compression({{"kind", "topk"}}));
  const CompressorSpec& up = s.compression.uplink;
  CHECK(up.kind == "topk");
  CHECK(up.ratio == 0.01);
  CHECK(up.scope == "layer");
  CHECK(!up.packed_indices);
  CHECK(!up.error_feedback);
  CHECK(!s.compression.adaptive);
  CHECK(!s.compression.downlink);
  CHECK(s.resolved["compression"] == json::parse(R"({"kind": "topk", "ratio": 0.01, "scope": "layer",
      "index_bits": 32, "error_feedback": false, "adaptive": null, "downlink": null})"));
}

TEST_CASE("compression: each kind resolves the keys it uses") {
  TempDir dir;
  const std::map<std::string, json> expected = {
      {"none", json::parse(R"({"kind": "none", "downlink": null})")},
      {"fp16", json::parse(R"({"kind": "fp16", "error_feedback": false, "downlink": null})")},
      {"randomk", json::parse(R"({"kind": "randomk", "ratio": 0.01, "error_feedback": false, "downlink": null})")},
      {"threshold", json::parse(R"({"kind": "threshold", "index_bits": 32, "error_feedback": false,
                                    "threshold": 0.5, "downlink": null})")},
      {"qsgd", json::parse(R"({"kind": "qsgd", "error_feedback": false, "levels": 16, "downlink": null})")},
      {"terngrad", json::parse(R"({"kind": "terngrad", "error_feedback": false, "downlink": null})")},
      {"signsgd", json::parse(R"({"kind": "signsgd", "error_feedback": true, "downlink": null})")},
      {"onebit", json::parse(R"({"kind": "onebit", "error_feedback": true, "downlink": null})")},
      {"powersgd", json::parse(R"({"kind": "powersgd", "error_feedback": true, "rank": 2, "downlink": null})")},
      {"adacomp", json::parse(R"({"kind": "adacomp", "ratio": 0.01, "index_bits": 32, "error_feedback": false,
                                  "downlink": null})")},
      {"adacomp-bins", json::parse(R"({"kind": "adacomp-bins", "index_bits": 32, "error_feedback": false,
                                       "bin_size": 50, "downlink": null})")},
  };
  for (const auto& [kind, resolved] : expected) {
    CAPTURE(kind);
    json c = {{"kind", kind}};
    if (kind == "threshold") c["threshold"] = 0.5;
    const Scenario s = parse_in(dir, with_compression(c));
    CHECK(s.resolved["compression"] == resolved);
    CHECK(s.compression.uplink.kind == kind);
  }
  // Every declared kind is covered (topk has its own test).
  CHECK(expected.size() + 1 == kAllKinds.size());
}

TEST_CASE("compression: error_feedback default per kind") {
  TempDir dir;
  for (const auto& kind : kAllKinds) {
    CAPTURE(kind);
    json c = {{"kind", kind}};
    if (kind == "threshold") c["threshold"] = 0.1;
    const bool expected = kind == "signsgd" || kind == "onebit" || kind == "powersgd";
    CHECK(parse_in(dir, with_compression(c)).compression.uplink.error_feedback == expected);
    // Explicitly off works for every kind; explicitly on for all but adacomp-bins (none ignores it).
    c["error_feedback"] = false;
    CHECK(!parse_in(dir, with_compression(c)).compression.uplink.error_feedback);
    c["error_feedback"] = true;
    if (kind == "adacomp-bins") {
      CHECK(compression_error(dir, c) == "compression.error_feedback: adacomp-bins keeps its own residual");
    } else {
      CHECK(parse_in(dir, with_compression(c)).compression.uplink.error_feedback == (kind != "none"));
    }
  }
}

TEST_CASE("compression: settings") {
  TempDir dir;
  Scenario s = parse_in(dir, with_compression(json::parse(R"({"kind": "topk", "ratio": 0.1, "scope": "global",
      "index_bits": "packed", "error_feedback": true})")));
  CHECK(s.compression.uplink.ratio == 0.1);
  CHECK(s.compression.uplink.scope == "global");
  CHECK(s.compression.uplink.packed_indices);
  CHECK(s.compression.uplink.error_feedback);
  CHECK(s.resolved["compression"]["index_bits"] == "packed");
  // 32.0 is the integer 32; ratio 1 is allowed.
  s = parse_in(dir, with_compression({{"kind", "adacomp"}, {"index_bits", 32.0}, {"ratio", 1}}));
  CHECK(!s.compression.uplink.packed_indices);
  CHECK(s.resolved["compression"]["index_bits"] == 32);
  CHECK(s.resolved["compression"]["index_bits"].is_number_integer());
  CHECK(s.compression.uplink.ratio == 1.0);
  s = parse_in(dir, with_compression({{"kind", "threshold"}, {"threshold", 0}}));
  CHECK(s.compression.uplink.threshold == 0.0);
  s = parse_in(dir, with_compression({{"kind", "qsgd"}, {"levels", 4}}));
  CHECK(s.compression.uplink.levels == 4);
  s = parse_in(dir, with_compression({{"kind", "powersgd"}, {"rank", 1}, {"error_feedback", false}}));
  CHECK(s.compression.uplink.rank == 1);
  CHECK(!s.compression.uplink.error_feedback);
  s = parse_in(dir, with_compression({{"kind", "adacomp-bins"}, {"bin_size", 500}, {"index_bits", "packed"}}));
  CHECK(s.compression.uplink.bin_size == 500);
  CHECK(s.compression.uplink.packed_indices);
}

TEST_CASE("compression: errors") {
  TempDir dir;
  CHECK(compression_error(dir, {{"kind", "topk"}, {"ratio", 0}}) == "compression.ratio: must be in (0, 1], got 0");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"ratio", 1.5}}) == "compression.ratio: must be in (0, 1], got 1.5");
  CHECK(compression_error(dir, {{"kind", "randomk"}, {"ratio", -0.1}}) ==
        "compression.ratio: must be in (0, 1], got -0.1");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"ratio", "1%"}}) ==
        "compression.ratio: expected a number, got \"1%\"");
  const std::string kinds =
      "none, fp16, topk, randomk, threshold, qsgd, terngrad, signsgd, onebit, powersgd, adacomp, adacomp-bins, or an "
      "alias (fp32, int8, int4, int2, ternary, sign, 1bit, topk-P%, randomk-P%, adacomp-P%, powersgd-rankR)";
  CHECK(compression_error(dir, {{"kind", "top-k"}}) ==
        "compression.kind: must be one of " + kinds + "; got \"top-k\" (did you mean \"topk\"?)");
  CHECK(compression_error(dir, {{"kind", "PowerSGD"}}) ==
        "compression.kind: must be one of " + kinds + "; got \"PowerSGD\" (did you mean \"powersgd\"?)");
  CHECK(compression_error(dir, {{"kind", "gzip"}}) == "compression.kind: must be one of " + kinds + "; got \"gzip\"");
  CHECK(compression_error(dir, {{"kind", "threshold"}}) ==
        "compression.threshold: required when compression.kind is threshold");
  CHECK(compression_error(dir, {{"kind", "threshold"}, {"threshold", -1}}) ==
        "compression.threshold: must be >= 0, got -1");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"index_bits", 16}}) ==
        "compression.index_bits: must be 32 or \"packed\", got 16");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"index_bits", "pack"}}) ==
        "compression.index_bits: must be 32 or \"packed\", got \"pack\" (did you mean \"packed\"?)");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"index_bits", "32"}}) ==
        "compression.index_bits: must be 32 or \"packed\", got \"32\"");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"index_bits", true}}) ==
        "compression.index_bits: must be 32 or \"packed\", got true");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"scope", "model"}}) ==
        "compression.scope: must be one of layer, global; got \"model\"");
  CHECK(compression_error(dir, {{"kind", "signsgd"}, {"error_feedback", "yes"}}) ==
        "compression.error_feedback: expected true or false, got \"yes\"");
  CHECK(compression_error(dir, {{"kind", "qsgd"}, {"levels", 0}}) ==
        "compression.levels: must be a positive integer, got 0");
  CHECK(compression_error(dir, {{"kind", "qsgd"}, {"levels", 2.5}}) ==
        "compression.levels: expected a positive integer, got 2.5");
  CHECK(compression_error(dir, {{"kind", "powersgd"}, {"rank", 0}}) ==
        "compression.rank: must be a positive integer, got 0");
  CHECK(compression_error(dir, {{"kind", "adacomp-bins"}, {"bin_size", 0}}) ==
        "compression.bin_size: must be a positive integer, got 0");
  CHECK(compression_error(dir, {{"kind", "adacomp-bins"}, {"error_feedback", true}}) ==
        "compression.error_feedback: adacomp-bins keeps its own residual");
  CHECK(compression_error(dir, 5) ==
        "compression: expected an object (with keys kind, ratio, scope, index_bits, error_feedback, threshold, "
        "levels, rank, bin_size, timing_ratio, adaptive, downlink) or null, got 5");
  CHECK(compression_error(dir, {{"kind", "topk"}, {"ratoi", 0.1}}) ==
        "compression.ratoi: unknown key (did you mean \"ratio\"?)");
  json doc = minimal_doc();
  doc["compresion"] = {{"kind", "topk"}};
  CHECK(parse_error(dir, doc) == "compresion: unknown key (did you mean \"compression\"?)");
}

TEST_CASE("compression: keys of other kinds are checked but ignored") {
  TempDir dir;
  json c = json::parse(R"({"kind": "fp16", "ratio": 0.5, "scope": "global", "index_bits": "packed",
      "threshold": 3, "levels": 4, "rank": 8, "bin_size": 10})");
  const Scenario s = parse_in(dir, with_compression(c));
  CHECK(s.compression.uplink.ratio == 0.01);
  CHECK(s.compression.uplink.scope == "layer");
  CHECK(!s.compression.uplink.packed_indices);
  CHECK(s.compression.uplink.threshold == 0.0);
  CHECK(s.compression.uplink.levels == 16);
  CHECK(s.compression.uplink.rank == 2);
  CHECK(s.compression.uplink.bin_size == 50);
  CHECK(s.resolved["compression"] == json::parse(R"({"kind": "fp16", "error_feedback": false, "downlink": null})"));
  // Still type- and range-checked.
  c["ratio"] = 2;
  CHECK(compression_error(dir, c) == "compression.ratio: must be in (0, 1], got 2");
  c["ratio"] = 0.5;
  c["index_bits"] = 8;
  CHECK(compression_error(dir, c) == "compression.index_bits: must be 32 or \"packed\", got 8");
  // With kind none, even error_feedback is ignored.
  const Scenario n = parse_in(dir, with_compression({{"kind", "none"}, {"error_feedback", true}}));
  CHECK(!n.compression.uplink.error_feedback);
  CHECK(!n.resolved["compression"].contains("error_feedback"));
}

TEST_CASE("compression: adaptive") {
  TempDir dir;
  Scenario s = parse_in(dir, with_compression({{"kind", "topk"}, {"adaptive", json::object()}}));
  REQUIRE(s.compression.adaptive);
  CHECK(s.compression.adaptive->delta == 0.3);
  CHECK(s.compression.adaptive->smoothing == 0.9);
  CHECK(s.resolved["compression"]["adaptive"] == json::parse(R"({"delta": 0.3, "smoothing": 0.9})"));
  s = parse_in(dir, with_compression(json::parse(R"({"kind": "topk", "adaptive": {"delta": 0, "smoothing": 0}})")));
  CHECK(s.compression.adaptive->delta == 0.0);
  CHECK(s.compression.adaptive->smoothing == 0.0);
  s = parse_in(dir, with_compression({{"kind", "topk"}, {"adaptive", nullptr}}));
  CHECK(!s.compression.adaptive);

  CHECK(compression_error(dir, json::parse(R"({"kind": "topk", "adaptive": {"delta": -0.1}})")) ==
        "compression.adaptive.delta: must be >= 0, got -0.1");
  CHECK(compression_error(dir, json::parse(R"({"kind": "topk", "adaptive": {"smoothing": 1}})")) ==
        "compression.adaptive.smoothing: must be in [0, 1), got 1");
  CHECK(compression_error(dir, json::parse(R"({"kind": "topk", "adaptive": {"detla": 0.1}})")) ==
        "compression.adaptive.detla: unknown key (did you mean \"delta\"?)");
  CHECK(compression_error(dir, json::parse(R"({"kind": "topk", "adaptive": true})")) ==
        "compression.adaptive: expected an object (with keys delta, smoothing) or null, got true");
  // Only with a topk uplink: an error otherwise (not silently ignored).
  CHECK(compression_error(dir, json::parse(R"({"kind": "randomk", "adaptive": {"delta": 0.2}})")) ==
        "compression.adaptive: allowed only when compression.kind is topk (here compression.kind is \"randomk\")");
  CHECK(compression_error(dir, json::parse(R"({"adaptive": {}})")) ==
        "compression.adaptive: allowed only when compression.kind is topk (here compression.kind is \"none\")");
  // Null is "off", so it is fine with any kind.
  s = parse_in(dir, with_compression({{"kind", "qsgd"}, {"adaptive", nullptr}}));
  CHECK(!s.compression.adaptive);
  CHECK(!s.resolved["compression"].contains("adaptive"));
}

TEST_CASE("compression: downlink") {
  TempDir dir;
  Scenario s = parse_in(dir, with_compression({{"downlink", {{"kind", "fp16"}}}}));
  CHECK(s.compression.uplink.kind == "none");
  REQUIRE(s.compression.downlink);
  CHECK(s.compression.downlink->kind == "fp16");
  CHECK(!s.compression.downlink->error_feedback);
  CHECK(s.resolved["compression"] ==
        json::parse(R"({"kind": "none", "downlink": {"kind": "fp16", "error_feedback": false}})"));

  s = parse_in(dir, with_compression(json::parse(R"({"kind": "topk", "ratio": 0.05, "adaptive": {"delta": 0.2},
      "downlink": {"kind": "topk", "ratio": 0.1, "scope": "global", "index_bits": "packed"}})")));
  CHECK(s.compression.uplink.ratio == 0.05);
  REQUIRE(s.compression.adaptive);
  CHECK(s.compression.adaptive->delta == 0.2);
  REQUIRE(s.compression.downlink);
  const CompressorSpec& down = *s.compression.downlink;
  CHECK(down.kind == "topk");
  CHECK(down.ratio == 0.1);
  CHECK(down.scope == "global");
  CHECK(down.packed_indices);
  CHECK(!down.error_feedback);
  CHECK(s.resolved["compression"]["downlink"] == json::parse(R"({"kind": "topk", "ratio": 0.1, "scope": "global",
      "index_bits": "packed", "error_feedback": false})"));

  // Same per-kind defaults as the uplink.
  for (const auto& kind : kAllKinds) {
    CAPTURE(kind);
    json d = {{"kind", kind}};
    if (kind == "threshold") d["threshold"] = 1;
    const Scenario k = parse_in(dir, with_compression({{"downlink", d}}));
    REQUIRE(k.compression.downlink);
    CHECK(k.compression.downlink->kind == kind);
    CHECK(k.compression.downlink->error_feedback == (kind == "signsgd" || kind == "onebit" || kind == "powersgd"));
    CHECK(k.compression.downlink->levels == 16);
    CHECK(k.compression.downlink->rank == 2);
    CHECK(k.compression.downlink->bin_size == 50);
  }
  s = parse_in(dir, with_compression(json::parse(R"({"downlink": {"kind": "powersgd", "rank": 4}})")));
  CHECK(s.compression.downlink->rank == 4);
  CHECK(s.compression.downlink->error_feedback);
  s = parse_in(dir, with_compression({{"kind", "qsgd"}, {"downlink", nullptr}}));
  CHECK(!s.compression.downlink);
}

TEST_CASE("compression: downlink errors name the nested key") {
  TempDir dir;
  auto down = [&](const std::string& text) { return compression_error(dir, {{"downlink", json::parse(text)}}); };
  CHECK(down(R"({"kind": "topk", "ratio": 2})") == "compression.downlink.ratio: must be in (0, 1], got 2");
  CHECK(down("{}") == "compression.downlink.kind: required key is missing");
  CHECK(down(R"({"ratio": 0.1})") == "compression.downlink.kind: required key is missing");
  CHECK(down(R"({"kind": "topk8"})").rfind("compression.downlink.kind: must be one of none, fp16, ", 0) == 0);
  CHECK(down(R"({"kind": "threshold"})") ==
        "compression.downlink.threshold: required when compression.downlink.kind is threshold");
  CHECK(down(R"({"kind": "topk", "index_bits": "pack"})") ==
        "compression.downlink.index_bits: must be 32 or \"packed\", got \"pack\" (did you mean \"packed\"?)");
  CHECK(down(R"({"kind": "adacomp-bins", "error_feedback": true})") ==
        "compression.downlink.error_feedback: adacomp-bins keeps its own residual");
  CHECK(down(R"({"kind": "qsgd", "levels": 0})") == "compression.downlink.levels: must be a positive integer, got 0");
  CHECK(down(R"({"kind": "topk", "adaptive": {}})") ==
        "compression.downlink.adaptive: unknown key (did you mean \"compression.adaptive\"?)");
  CHECK(down(R"({"kind": "topk", "raito": 0.1})") ==
        "compression.downlink.raito: unknown key (did you mean \"ratio\"?)");
  CHECK(down("\"fp16\"") ==
        "compression.downlink: expected an object (with keys kind, ratio, scope, index_bits, error_feedback, "
        "threshold, levels, rank, bin_size, timing_ratio) or null, got \"fp16\"");
  // A key of another kind is checked but ignored, as on the uplink.
  CHECK(down(R"({"kind": "fp16", "ratio": 3})") == "compression.downlink.ratio: must be in (0, 1], got 3");
  CHECK(down(R"({"kind": "fp16", "ratio": 0.5})") == "<no error>");
}

TEST_CASE("compression: overrides") {
  TempDir dir;
  Scenario s = parse_in(dir, minimal_doc(), {"compression.kind=topk"});
  CHECK(s.compression.uplink.kind == "topk");
  CHECK(s.compression.uplink.ratio == 0.01);
  s = parse_in(dir, minimal_doc(), {"compression.kind=topk", "compression.ratio=0.1"});
  CHECK(s.compression.uplink.ratio == 0.1);
  s = parse_in(dir, minimal_doc(), {"compression.kind=topk", R"(compression.adaptive={"delta":0.2})"});
  REQUIRE(s.compression.adaptive);
  CHECK(s.compression.adaptive->delta == 0.2);
  CHECK(s.compression.adaptive->smoothing == 0.9);
  s = parse_in(dir, minimal_doc(), {"compression.kind=topk", "compression.adaptive.smoothing=0.5"});
  CHECK(s.compression.adaptive->smoothing == 0.5);
  s = parse_in(dir, minimal_doc(), {"compression.downlink.kind=fp16"});
  CHECK(s.compression.uplink.kind == "none");
  REQUIRE(s.compression.downlink);
  CHECK(s.compression.downlink->kind == "fp16");
  // index_bits: a number or a plain word.
  s = parse_in(dir, minimal_doc(), {"compression.kind=topk", "compression.index_bits=packed"});
  CHECK(s.compression.uplink.packed_indices);
  s = parse_in(dir, minimal_doc(), {"compression.kind=topk", "compression.index_bits=32"});
  CHECK(!s.compression.uplink.packed_indices);
  s = parse_in(dir, minimal_doc(), {"compression.kind=signsgd", "compression.error_feedback=false"});
  CHECK(!s.compression.uplink.error_feedback);
  // Turning compression off again, on the way to a sweep.
  s = parse_in(dir, with_compression({{"kind", "topk"}}), {"compression=null"});
  CHECK(s.compression.uplink.kind == "none");
  // A kind flipped by --set that no longer allows adaptive.
  CHECK(parse_error(dir, with_compression(json::parse(R"({"kind": "topk", "adaptive": {}})")),
                    {"compression.kind=randomk"}) ==
        "compression.adaptive: allowed only when compression.kind is topk (here compression.kind is \"randomk\")");
  CHECK(parse_error(dir, minimal_doc(), {"compression.ratio=2"}) == "compression.ratio: must be in (0, 1], got 2");
  CHECK(parse_error(dir, minimal_doc(), {"compression.downlink.kind=fp16", "compression.downlink.ratio=2"}) ==
        "compression.downlink.ratio: must be in (0, 1], got 2");
  CHECK(parse_error(dir, minimal_doc(), {"compression.kind=topk", "compression.adaptive.dleta=1"}) ==
        "compression.adaptive.dleta: unknown key (did you mean \"delta\"?)");
}

TEST_CASE("compression: the resolved document reloads to the same compression") {
  TempDir dir;
  const std::vector<json> sections = {
      nullptr,
      json::object(),
      json::parse(R"({"kind": "topk", "ratio": 0.05, "scope": "global", "index_bits": "packed",
                      "error_feedback": true, "adaptive": {"delta": 0.25, "smoothing": 0.5},
                      "downlink": {"kind": "threshold", "threshold": 0.01, "index_bits": "packed"}})"),
      json::parse(R"({"kind": "powersgd", "rank": 3, "downlink": {"kind": "qsgd", "levels": 8,
                      "error_feedback": true}})"),
      json::parse(R"({"kind": "adacomp-bins", "bin_size": 20, "downlink": {"kind": "signsgd",
                      "error_feedback": false}})"),
      json::parse(R"({"kind": "onebit", "downlink": {"kind": "adacomp", "ratio": 0.2}})"),
  };
  for (const auto& c : sections) {
    CAPTURE(c.dump());
    const Scenario a = parse_in(dir, with_compression(c));
    const auto copy = dir.write("results/run/scenario.json", a.resolved.dump(2));
    const Scenario b = load_scenario(copy);
    check_same_compression(a.compression, b.compression);
    CHECK(a.resolved == b.resolved);
    const Scenario m = parse_scenario(a.resolved, {});
    check_same_compression(a.compression, m.compression);
    CHECK(a.resolved == m.resolved);
  }
}

TEST_CASE("compression: describe shows both directions") {
  TempDir dir;
  std::string d = describe(parse_in(dir, minimal_doc()));
  CHECK(d.find("uplink    none\n") != std::string::npos);
  CHECK(d.find("downlink  dense model\n") != std::string::npos);
  d = describe(parse_in(dir, with_compression(json::parse(R"({"kind": "topk", "adaptive": {},
      "downlink": {"kind": "qsgd", "levels": 4}})"))));
  CHECK(d.find("uplink    topk (ratio 0.01, scope layer, index_bits 32, error_feedback false), adaptive (delta 0.3, "
               "smoothing 0.9)\n") != std::string::npos);
  CHECK(d.find("downlink  model deltas, qsgd (error_feedback false, levels 4)\n") != std::string::npos);
}

TEST_CASE("compression: odd inputs only throw ScenarioError") {
  TempDir dir;
  for (std::string set :
       {"compression=5", "compression=[]", "compression.kind=7", "compression.kind=null", "compression.ratio=1e999",
        "compression.index_bits=[]", "compression.index_bits=null", "compression.adaptive=7",
        "compression.adaptive.delta=x", "compression.downlink=[]", "compression.downlink.kind=null",
        "compression.downlink.adaptive.delta=1", "compression.downlink.index_bits=33", "compression.levels=1e30",
        "compression.error_feedback=1"}) {
    CAPTURE(set);
    const std::string e = parse_error(dir, with_compression({{"kind", "topk"}}), {set});
    CHECK(e != "<no error>");
    CHECK(e.find("<not a ScenarioError") == std::string::npos);
  }
}

TEST_CASE("compression: markdown rows") {
  const std::string md = schema_markdown();
  CHECK(md.find("| `compression` | object or null | `null` (no compression: dense fp32 both ways) |") !=
        std::string::npos);
  CHECK(md.find("| `compression.kind` | enum | `\"none\"` |") != std::string::npos);
  CHECK(md.find("topk = largest \\|g\\| entries, value + index;") != std::string::npos);
  CHECK(md.find("| `compression.index_bits` | integer or string | `32` |") != std::string::npos);
  CHECK(md.find("One of `32`, `\"packed\"`.") != std::string::npos);
  CHECK(md.find("| `compression.error_feedback` | boolean | `true` if compression.kind is signsgd, onebit or "
                "powersgd; `false` |") != std::string::npos);
  CHECK(md.find("Default true for signsgd, onebit and powersgd, false otherwise.") != std::string::npos);
  CHECK(md.find("Used only when compression.kind is not none (ignored otherwise).") != std::string::npos);
  CHECK(md.find("| `compression.threshold` | number | required if compression.kind is threshold |") !=
        std::string::npos);
  CHECK(md.find("Allowed only when compression.kind is topk (an error otherwise).") != std::string::npos);
  CHECK(md.find("| `compression.downlink.kind` | enum | required |") != std::string::npos);
  CHECK(md.find("| `compression.downlink.ratio` | number | `0.01` | Downlink `compression.ratio`. Must be in (0, 1]. "
                "Used only when compression.downlink.kind is topk, randomk or adacomp (ignored otherwise). |") !=
        std::string::npos);
  CHECK(md.find("- `compression.error_feedback`: ") != std::string::npos);
  CHECK(child_names("compression") == std::vector<std::string>{"kind", "ratio", "scope", "index_bits", "error_feedback",
                                                               "threshold", "levels", "rank", "bin_size",
                                                               "timing_ratio", "adaptive", "downlink"});
  CHECK(child_names("compression.downlink") == std::vector<std::string>{"kind", "ratio", "scope", "index_bits",
                                                                        "error_feedback", "threshold", "levels", "rank",
                                                                        "bin_size", "timing_ratio"});
  CHECK(child_names("compression.adaptive") == std::vector<std::string>{"delta", "smoothing"});
}

TEST_CASE("compression: an alias is its kind with the settings it fixes, in every direction") {
  TempDir dir;
  // Each alias parses to exactly what its kind and settings written out parse to.
  const std::vector<std::pair<json, json>> pairs = {
      {{{"kind", "int8"}}, {{"kind", "qsgd"}, {"levels", 127}}},
      {{{"kind", "int4"}}, {{"kind", "qsgd"}, {"levels", 7}}},
      {{{"kind", "int2"}}, {{"kind", "qsgd"}, {"levels", 1}}},
      {{{"kind", "fp32"}}, {{"kind", "none"}}},
      {{{"kind", "ternary"}}, {{"kind", "terngrad"}}},
      {{{"kind", "sign"}}, {{"kind", "signsgd"}}},
      {{{"kind", "1bit"}}, {{"kind", "onebit"}}},
      {{{"kind", "topk-1%"}}, {{"kind", "topk"}, {"ratio", 0.01}}},
      {{{"kind", "topk-0.5%"}, {"scope", "global"}}, {{"kind", "topk"}, {"ratio", 0.005}, {"scope", "global"}}},
      {{{"kind", "randomk-10%"}}, {{"kind", "randomk"}, {"ratio", 0.1}}},
      {{{"kind", "adacomp-100%"}}, {{"kind", "adacomp"}, {"ratio", 1.0}}},
      {{{"kind", "powersgd-rank4"}}, {{"kind", "powersgd"}, {"rank", 4}}},
      {{{"kind", "int8"}, {"levels", 127}}, {{"kind", "qsgd"}, {"levels", 127}}},  // the same value: allowed
  };
  for (const auto& [alias, written] : pairs) {
    CAPTURE(alias.dump());
    json up = alias, down = alias;
    up["downlink"] = down;
    json plain = written, plain_down = written;
    plain["downlink"] = plain_down;
    check_same_compression(parse_in(dir, with_compression(up)).compression,
                           parse_in(dir, with_compression(plain)).compression);
  }
  // The resolved scenario holds the kind; its words name the alias back (validate prints them).
  const Scenario s = parse_in(dir, with_compression({{"kind", "int8"}}));
  CHECK(s.resolved["compression"]["kind"] == "qsgd");
  CHECK(describe(s).find("int8 = qsgd") != std::string::npos);
}

TEST_CASE("compression: an alias with another value of its setting, a bad pattern or an unknown name is one line") {
  TempDir dir;
  CHECK(compression_error(dir, {{"kind", "int8"}, {"levels", 16}}) ==
        "compression.levels: kind int8 is qsgd with levels 127, got 16 (give kind qsgd to choose levels)");
  CHECK(compression_error(dir, {{"kind", "topk-0%"}}) ==
        "compression.kind: topk-0%: the percentage must be above 0 and at most 100");
  CHECK(compression_error(dir, {{"kind", "topk-150%"}}) ==
        "compression.kind: topk-150%: the percentage must be above 0 and at most 100");
  CHECK(compression_error(dir, {{"kind", "powersgd-rank2.5"}}) ==
        "compression.kind: powersgd-rank2.5: the rank must be a whole number from 1 to 4096");
  const std::string unknown = compression_error(dir, {{"kind", "int16"}});
  CHECK(unknown.find("compression.kind: must be one of none, fp16,") == 0);
  CHECK(unknown.find("or an alias (fp32, int8, int4, int2, ternary, sign, 1bit, topk-P%") != std::string::npos);
  CHECK(compression_error(dir, {{"kind", "none"}, {"downlink", {{"kind", "int8"}, {"levels", 3}}}}).find(
            "compression.downlink.levels: kind int8 is qsgd") == 0);
  // The schema lists the aliases beside the kinds.
  bool listed = false;
  for (const KeySpec& k : schema_keys())
    if (k.path == "compression.kind") listed = k.description.find("int8 = qsgd, levels 127") != std::string::npos;
  CHECK(listed);
}

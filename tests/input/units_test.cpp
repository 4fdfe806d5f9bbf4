// Tests of parse_quantity: every unit family, the numbers-are-base-unit rule, and the messages
// for strings that are not quantities.
#include "input/units.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "input/error.hpp"

using edgetrain::input::parse_quantity;
using edgetrain::input::Unit;
using nlohmann::json;

namespace {
// The input::Error message `f` throws, or a marker when it throws nothing (or something else).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const edgetrain::input::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not an input error: ") + e.what() + ">";
  }
  return "<no error>";
}

double q(const json& v, Unit u) { return parse_quantity(v, u, "x"); }
}  // namespace

TEST_CASE("units: durations in every spelling") {
  CHECK(q(2, Unit::Seconds) == 2.0);
  CHECK(q(0.25, Unit::Seconds) == 0.25);
  CHECK(q("500ms", Unit::Seconds) == doctest::Approx(0.5));
  CHECK(q("2s", Unit::Seconds) == 2.0);
  CHECK(q("1.5min", Unit::Seconds) == 90.0);
  CHECK(q("1h", Unit::Seconds) == 3600.0);
  CHECK(q("10us", Unit::Seconds) == doctest::Approx(1e-5));
  CHECK(q(" 250 ms ", Unit::Seconds) == doctest::Approx(0.25));
  CHECK(q("+3s", Unit::Seconds) == 3.0);
  CHECK(q("1e3ms", Unit::Seconds) == doctest::Approx(1.0));
  CHECK(q("7", Unit::Seconds) == 7.0);  // a bare number in a string is the base unit too
  // Negative values parse; rejecting them is the caller's range check.
  CHECK(q("-5ms", Unit::Seconds) == doctest::Approx(-0.005));
  CHECK(q(-2, Unit::Seconds) == -2.0);
}

TEST_CASE("units: sizes, decimal and binary prefixes") {
  CHECK(q(1500, Unit::Bytes) == 1500.0);
  CHECK(q("10B", Unit::Bytes) == 10.0);
  CHECK(q("4kB", Unit::Bytes) == 4000.0);
  CHECK(q("4KB", Unit::Bytes) == 4000.0);
  CHECK(q("4KiB", Unit::Bytes) == 4096.0);
  CHECK(q("3MB", Unit::Bytes) == 3e6);
  CHECK(q("2MiB", Unit::Bytes) == 2097152.0);
  CHECK(q("1GB", Unit::Bytes) == 1e9);
  CHECK(q("1GiB", Unit::Bytes) == 1073741824.0);
}

TEST_CASE("units: flops use SimGrid's spelling") {
  CHECK(q(1e9, Unit::Flops) == 1e9);
  CHECK(q("2f", Unit::Flops) == 2.0);
  CHECK(q("3kf", Unit::Flops) == 3000.0);
  CHECK(q("500Mf", Unit::Flops) == 5e8);
  CHECK(q("2Gf", Unit::Flops) == 2e9);
  CHECK(q("1Tf", Unit::Flops) == 1e12);
  CHECK(error_of([] { q("1.5GFlops", Unit::Flops); }) ==
        "x: cannot read \"1.5GFlops\" as an amount of computation (use a number of flops or a unit: "
        "f, kf, Mf, Gf, Tf, Pf)");
}

TEST_CASE("units: bandwidth in bits and bytes per second") {
  CHECK(q(1e6, Unit::BitsPerSecond) == 1e6);  // a number is already bits per second
  CHECK(q("10Mbps", Unit::BitsPerSecond) == 1e7);
  CHECK(q("1MBps", Unit::BitsPerSecond) == 8e6);  // bytes: times eight
  CHECK(q("1Gbps", Unit::BitsPerSecond) == 1e9);
  CHECK(q("100kbps", Unit::BitsPerSecond) == 1e5);
  CHECK(q("1KiBps", Unit::BitsPerSecond) == 8192.0);
  CHECK(q("2bps", Unit::BitsPerSecond) == 2.0);
  // Case matters: megabits and megabytes differ by eight.
  CHECK(q("8Mbps", Unit::BitsPerSecond) == q("1MBps", Unit::BitsPerSecond));
  CHECK(error_of([] { q("10 mbps", Unit::BitsPerSecond); }) ==
        "x: cannot read \"10 mbps\" as a bandwidth (use a number of bits per second or a unit: bps, kbps, "
        "Mbps, "
        "Gbps, Tbps, Bps, kBps, MBps, GBps, TBps, KiBps, MiBps, GiBps)");
}

TEST_CASE("units: counts accept k, M, G") {
  CHECK(q(5, Unit::Count) == 5.0);
  CHECK(q("60k", Unit::Count) == 60000.0);
  CHECK(q("2M", Unit::Count) == 2e6);
  CHECK(error_of([] { q("3 dozen", Unit::Count); }) ==
        "x: cannot read \"3 dozen\" as a count (use a number or a suffix: k, M, G)");
}

TEST_CASE("units: bad strings name the path and the accepted units") {
  CHECK(error_of([] { parse_quantity("5 parsecs", Unit::Seconds, "eval.every_s"); }) ==
        "eval.every_s: cannot read \"5 parsecs\" as a duration (use a number of seconds or a unit: "
        "us, ms, s, min, h)");
  CHECK(error_of([] { parse_quantity("4 kb", Unit::Bytes, "msg.size"); }) ==
        "msg.size: cannot read \"4 kb\" as a size (use a number of bytes or a unit: "
        "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  // Things that start like numbers but are not quantities.
  for (const char* bad : {"", "   ", "ms", "s5", "5 5ms", "+-5s", "--5s", "inf", "nan", "infs", "1e400s", "5e", "5.s.",
                          "0x10s", "5 ms s"}) {
    CAPTURE(bad);
    CHECK(error_of([&] { q(bad, Unit::Seconds); }).find("x: cannot read") == 0);
  }
}

TEST_CASE("units: wrong JSON types") {
  CHECK(error_of([] { parse_quantity(true, Unit::Seconds, "eval.every_s"); }) ==
        "eval.every_s: expected a duration (number of seconds or string like \"500ms\"), got true");
  CHECK(error_of([] { parse_quantity(nullptr, Unit::Bytes, "a.b"); }) ==
        "a.b: expected a size (number of bytes or string like \"4MiB\"), got null");
  CHECK(error_of([] {
          parse_quantity(json::array({1, 2}), Unit::BitsPerSecond, "link");
        }) == "link: expected a bandwidth (number of bits per second or string like \"10Mbps\"), got [1,2]");
  CHECK(error_of([] { parse_quantity(json::object(), Unit::Flops, "cost"); }) ==
        "cost: expected an amount of computation (number of flops or string like \"2Gf\"), got {}");
}

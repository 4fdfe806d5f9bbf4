// Fuzz target: stream-rate and link-bandwidth trace CSVs (stream::RateProfile::from_trace_text, the
// reader behind from_trace_csv), then the arrival processes driven by the parsed profile.
//
// Input: one flag byte, the CSV text, and optionally a NUL byte followed by operation bytes.
//   flag bit 0: the value column is "bandwidth_bps" (a link trace) instead of "rate"
//   flag bit 1: poisson arrivals instead of fluid; the other bits seed the generator
//   operation byte b: odd -> time_of_next(count) with count = 1 + (b >> 1) % 8 scaled by 10^((b >> 4) % 8);
//                     even -> advance_to a time picked by b among the trace's breakpoints, their
//                     midpoints and clock + 10^k seconds
// A trace may be rejected with StreamError; an accepted one must give a consistent profile, and the
// arrival processes may refuse (StreamError) but never crash, overflow or hang.
// fuzz.sh: -max_len=4096
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "stream/arrivals.hpp"
#include "stream/rate_profile.hpp"
#include "stream/rates.hpp"

namespace {

using edgetrain::stream::ArrivalChunk;
using edgetrain::stream::ArrivalProcess;
using edgetrain::stream::RateProfile;
using edgetrain::stream::StreamError;

[[noreturn]] void violated(const char* what, double a = 0, double b = 0) {
  std::fprintf(stderr, "trace_fuzz: invariant violated: %s (%.17g, %.17g)\n", what, a, b);
  std::abort();
}

// What every accepted profile promises its users (rate_profile.hpp).
void check_profile(const RateProfile& p) {
  if (p.step_count() == 0 || p.step_start(0) != 0) violated("the first step starts at 0");
  for (size_t i = 0; i < p.step_count(); ++i) {
    if (!(p.step_rate(i) >= 0) || !std::isfinite(p.step_rate(i))) violated("rates are finite and >= 0", p.step_rate(i));
    if (i > 0 && !(p.step_start(i) > p.step_start(i - 1))) violated("steps increase", p.step_start(i));
    if (i > 0 && !(p.step_cumulative(i) >= p.step_cumulative(i - 1)))
      violated("Lambda never decreases", p.step_cumulative(i - 1), p.step_cumulative(i));
  }
  if (!(p.step_rate(p.step_count() - 1) > 0)) violated("the last rate is > 0");
  const double nominal = p.nominal_rate();
  if (!(nominal > 0) || !std::isfinite(nominal)) violated("the nominal rate is finite and > 0", nominal);
  for (size_t i = 0; i < p.step_count(); ++i) {
    const double t = p.step_start(i);
    const double u = p.cumulative(t);
    if (std::isnan(u) || u < 0) violated("Lambda(t) is a number >= 0", t, u);
    if (u > 0 && std::isfinite(u) && !(p.inverse(u) <= t)) violated("inverse(Lambda(t)) <= t", t, p.inverse(u));
  }
}

// Times worth advancing to: the breakpoints, midpoints between them, and clock + 10^k.
double pick_time(const RateProfile& p, double clock, uint8_t b) {
  const unsigned choice = b >> 1;
  const size_t n = p.step_count();
  if (choice < 40 && n > 1) {
    const size_t i = 1 + choice % (n - 1);
    return choice % 2 ? p.step_start(i) : (p.step_start(i - 1) + p.step_start(i)) / 2;
  }
  return clock + std::pow(10.0, static_cast<double>(choice % 16) - 6);
}

void run_arrivals(const RateProfile& profile, uint8_t flags, std::string_view ops) {
  const auto kind = flags & 2 ? ArrivalProcess::Kind::Poisson : ArrivalProcess::Kind::Fluid;
  ArrivalProcess arrivals(profile, kind, flags >> 2);
  std::optional<std::pair<double, int64_t>> promised;  // fluid: time_of_next's (time, total) promise
  for (const char c : ops.substr(0, 64)) {
    const auto b = static_cast<uint8_t>(c);
    try {
      if (b & 1) {
        const int64_t count = (1 + (b >> 1) % 8) * static_cast<int64_t>(std::pow(10.0, (b >> 4) % 8));
        const double t = arrivals.time_of_next(count);
        if (!(t >= arrivals.clock()) || !std::isfinite(t)) violated("time_of_next is finite, >= the clock", t);
        if (kind == ArrivalProcess::Kind::Fluid) promised = {t, arrivals.total_arrived() + count};
        continue;
      }
      const double from = arrivals.clock();
      const double to = std::max(from, pick_time(profile, from, b));
      int64_t seq = arrivals.total_arrived();
      for (const ArrivalChunk& chunk : arrivals.advance_to(to)) {
        if (chunk.first_seq != seq || chunk.count <= 0) violated("chunks are consecutive and non-empty");
        if (!(chunk.t_first >= from && chunk.t_first <= chunk.t_last && chunk.t_last <= to))
          violated("chunk times lie in (clock, t]", chunk.t_first, chunk.t_last);
        seq += chunk.count;
      }
      if (seq != arrivals.total_arrived()) violated("chunks add up to the arrivals");
      if (promised && to == promised->first && seq < promised->second)
        violated("advance_to(time_of_next(m)) brings m samples", static_cast<double>(seq),
                 static_cast<double>(promised->second));
      promised.reset();
    } catch (const StreamError&) {
      return;  // e.g. more than 2^53 samples: refused, the run would stop with that message
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t nul = rest.find('\0');
  const std::string_view csv = rest.substr(0, nul);
  const std::string_view ops = nul == std::string_view::npos ? std::string_view{} : rest.substr(nul + 1);
  const std::string value = flags & 1 ? "bandwidth_bps" : "rate";
  // A link trace's bound is the fault injector's kMaxBandwidthBps (src/sim, which this build lacks).
  const double max_value = flags & 1 ? 1e15 : edgetrain::util::kMaxRate;
  std::optional<RateProfile> profile;
  try {
    profile = RateProfile::from_trace_text(csv, "trace.csv", value, max_value);
  } catch (const StreamError& e) {
    const std::string_view message = e.what();
    if (message.substr(0, 10) != "trace.csv:") violated("errors name the file");
    for (const char c : message) {
      if (c >= 0 && c < 0x20) violated("errors are one printable line", c);
    }
    return 0;
  }
  check_profile(*profile);
  run_arrivals(*profile, flags, ops);
  return 0;
}

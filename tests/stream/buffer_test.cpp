// Stream buffers: the four policies against a per-sample reference model, exact accounting,
// FIFO order, ages, and the linear growth of a persistence buffer.
#include "stream/buffer.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <deque>
#include <random>

#include "stream/rates.hpp"

using namespace edgetrain::stream;

namespace {

ArrivalChunk chunk(int64_t first_seq, int64_t count, double t_first, double t_last) {
  return {first_seq, count, t_first, t_last};
}

std::vector<int64_t> range(int64_t from, int64_t to) {  // [from, to)
  std::vector<int64_t> out;
  for (int64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

// The obvious per-sample implementation of each policy, to compare the chunked buffer against.
struct ReferenceBuffer {
  BufferPolicy policy;
  int64_t capacity;
  std::deque<int64_t> seqs;
  int64_t dropped = 0;
  void add(const ArrivalChunk& c) {
    for (int64_t s = c.first_seq; s < c.first_seq + c.count; ++s) {
      if (policy == BufferPolicy::DropNewest && static_cast<int64_t>(seqs.size()) >= capacity) {
        ++dropped;
        continue;
      }
      seqs.push_back(s);
      if (policy == BufferPolicy::DropOldest && static_cast<int64_t>(seqs.size()) > capacity) {
        seqs.pop_front();
        ++dropped;
      }
    }
  }
  void truncate(int64_t keep) {
    while (policy == BufferPolicy::Truncation && static_cast<int64_t>(seqs.size()) > keep) {
      seqs.pop_front();
      ++dropped;
    }
  }
  std::vector<int64_t> take(int64_t count) {
    std::vector<int64_t> out(seqs.begin(), seqs.begin() + count);
    seqs.erase(seqs.begin(), seqs.begin() + count);
    return out;
  }
};

}  // namespace

TEST_CASE("buffer policies parse by name") {
  for (const char* name : {"persistence", "truncation", "drop-oldest", "drop-newest"})
    CHECK(buffer_policy_name(parse_buffer_policy(name)) == name);
  CHECK(parse_buffer_policy("drop-oldest") == BufferPolicy::DropOldest);
  CHECK_THROWS_WITH_AS(parse_buffer_policy("lifo"),
                       "unknown buffer policy 'lifo' (expected persistence, truncation, drop-oldest or drop-newest)",
                       StreamError);
  CHECK_THROWS_WITH_AS(StreamBuffer(BufferPolicy::DropNewest, 0),
                       "stream buffer: policy drop-newest needs a capacity > 0, got 0", StreamError);
  CHECK_NOTHROW(StreamBuffer(BufferPolicy::Persistence, 0));
}

TEST_CASE("every sample is accounted for under long random operation sequences") {
  for (BufferPolicy policy :
       {BufferPolicy::Persistence, BufferPolicy::Truncation, BufferPolicy::DropOldest, BufferPolicy::DropNewest}) {
    CAPTURE(buffer_policy_name(policy));
    const int64_t capacity = 37;
    StreamBuffer buffer(policy, capacity);
    ReferenceBuffer reference{policy, capacity, {}, 0};
    std::mt19937_64 rng(static_cast<uint64_t>(policy) + 1);
    int64_t next_seq = 0, taken_total = 0, peak = 0;
    double now = 0;
    for (int op = 0; op < 20000; ++op) {
      const uint64_t what = rng() % 10;
      if (what < 5) {
        const auto count = static_cast<int64_t>(rng() % 60);
        next_seq += static_cast<int64_t>(rng() % 3);  // sequence numbers may skip
        const double t_first = now + 0.001, t_last = now + 0.01 * (1 + rng() % 10);
        const ArrivalChunk c = chunk(next_seq, count, t_first, count == 1 ? t_first : t_last);
        buffer.add(c);
        reference.add(c);
        next_seq += count;
        now = c.t_last;
      } else if (what < 7) {
        const auto keep = static_cast<int64_t>(rng() % 80);
        buffer.truncate(keep);
        reference.truncate(keep);
      } else {
        const auto count = buffer.size() == 0 ? 0 : static_cast<int64_t>(rng() % (buffer.size() + 1));
        now += 0.05;
        const TakenSamples taken = buffer.take(count, now);
        CHECK(taken.seqs == reference.take(count));
        CHECK(taken.age_max_s >= 0);
        CHECK(taken.age_sum_s <= taken.age_max_s * static_cast<double>(count) + 1e-9);
        taken_total += count;
      }
      peak = std::max(peak, buffer.size());
      REQUIRE(buffer.arrived() == buffer.taken() + buffer.dropped() + buffer.size());
      CHECK(buffer.size() == static_cast<int64_t>(reference.seqs.size()));
      CHECK(buffer.dropped() == reference.dropped);
      CHECK(buffer.taken() == taken_total);
      CHECK(buffer.peak() >= peak);
      if (policy == BufferPolicy::DropOldest || policy == BufferPolicy::DropNewest) {
        CHECK(buffer.size() <= capacity);
        CHECK(buffer.peak() <= capacity);
      }
      if (policy == BufferPolicy::Persistence) CHECK(buffer.dropped() == 0);
    }
    CHECK(buffer.peak() == peak);
    CHECK(buffer.arrived() > 100000);
  }
}

TEST_CASE("drop-oldest keeps the newest samples") {
  StreamBuffer b(BufferPolicy::DropOldest, 5);
  b.add(chunk(0, 10, 0.1, 1.0));
  CHECK(b.size() == 5);
  CHECK(b.dropped() == 5);
  b.add(chunk(10, 2, 1.1, 1.2));
  CHECK(b.dropped() == 7);
  CHECK(b.take(5, 2).seqs == range(7, 12));
  CHECK(b.peak() == 5);
}

TEST_CASE("drop-newest keeps the oldest samples") {
  StreamBuffer b(BufferPolicy::DropNewest, 5);
  b.add(chunk(0, 3, 0.1, 0.3));
  b.add(chunk(3, 7, 0.4, 1.0));
  CHECK(b.size() == 5);
  CHECK(b.dropped() == 5);
  b.add(chunk(10, 4, 1.1, 1.4));  // full: everything refused
  CHECK(b.dropped() == 9);
  const TakenSamples t = b.take(5, 2);
  CHECK(t.seqs == range(0, 5));
  // The kept part of the second chunk keeps its arrival times: samples 3 and 4 arrived at 0.4 and 0.5.
  CHECK(t.age_sum_s == doctest::Approx(5 * 2 - (0.1 + 0.2 + 0.3 + 0.4 + 0.5)));
  CHECK(t.age_max_s == doctest::Approx(1.9));
}

TEST_CASE("truncation keeps the newest samples") {
  StreamBuffer b(BufferPolicy::Truncation, 0);
  b.add(chunk(0, 12, 0.1, 1.2));
  b.add(chunk(12, 8, 1.3, 2.0));
  b.truncate(7);
  CHECK(b.size() == 7);
  CHECK(b.dropped() == 13);
  b.truncate(10);  // already small enough
  CHECK(b.size() == 7);
  const TakenSamples t = b.take(7, 2.0);
  CHECK(t.seqs == range(13, 20));
  CHECK(t.age_max_s == doctest::Approx(0.6));
  CHECK(t.age_sum_s == doctest::Approx(0.6 + 0.5 + 0.4 + 0.3 + 0.2 + 0.1 + 0.0));
  b.truncate(0);
  CHECK(b.size() == 0);

  StreamBuffer p(BufferPolicy::Persistence, 0);  // truncate is a no-op for the other policies
  p.add(chunk(0, 12, 0.1, 1.2));
  p.truncate(3);
  CHECK(p.size() == 12);
  CHECK(p.dropped() == 0);
}

TEST_CASE("take returns the oldest samples first across chunks") {
  StreamBuffer b(BufferPolicy::Persistence, 0);
  b.add(chunk(0, 3, 0, 0.2));
  b.add(chunk(5, 1, 0.3, 0.3));  // sequence numbers 3 and 4 skipped (dropped elsewhere)
  b.add(chunk(0, 0, 0.4, 0.4));  // empty chunks are fine
  b.add(std::vector<ArrivalChunk>{chunk(6, 4, 0.5, 0.8), chunk(10, 2, 0.9, 1.0)});
  CHECK(b.size() == 10);
  CHECK(b.take(2, 1).seqs == std::vector<int64_t>{0, 1});
  CHECK(b.take(4, 1).seqs == std::vector<int64_t>{2, 5, 6, 7});
  CHECK(b.take(0, 1).seqs.empty());
  CHECK(b.take(4, 1).seqs == std::vector<int64_t>{8, 9, 10, 11});
  CHECK(b.size() == 0);
  CHECK(b.taken() == 10);
  CHECK_THROWS_WITH_AS(b.take(1, 2), "stream buffer: cannot take 1 samples from a buffer holding 0", StreamError);
  CHECK_THROWS_AS(b.truncate(-1), StreamError);
  CHECK_THROWS_AS(b.add(chunk(0, -1, 0, 0)), StreamError);
  CHECK_THROWS_AS(b.add(chunk(0, 2, 1, 0.5)), StreamError);
}

TEST_CASE("ages of taken samples follow their arrival times") {
  // Fluid 10 samples/s: by t = 1 ten samples have arrived at 0.1, 0.2, ..., 1.0.
  ArrivalProcess arrivals(RateProfile::constant(10), ArrivalProcess::Kind::Fluid, 0);
  StreamBuffer b(BufferPolicy::Persistence, 0);
  b.add(arrivals.advance_to(1.0));
  REQUIRE(b.size() == 10);
  StreamBuffer copy = b;
  const TakenSamples all = b.take(10, 1.0);
  CHECK(all.age_sum_s == doctest::Approx(4.5));
  CHECK(all.age_max_s == doctest::Approx(0.9));
  // In two parts: ages 0.9..0.6 then 0.5..0.0.
  const TakenSamples first = copy.take(4, 1.0), second = copy.take(6, 1.0);
  CHECK(first.age_sum_s == doctest::Approx(3.0));
  CHECK(first.age_max_s == doctest::Approx(0.9));
  CHECK(second.age_sum_s == doctest::Approx(1.5));
  CHECK(second.age_max_s == doctest::Approx(0.5));

  // Across a rate change (10/s, then 2/s from t = 1): samples at 0.1..1.0, then 1.5, 2.0.
  ArrivalProcess stepped(RateProfile::from_steps({0, 1}, {10, 2}), ArrivalProcess::Kind::Fluid, 0);
  StreamBuffer c(BufferPolicy::Persistence, 0);
  c.add(stepped.advance_to(2.0));
  const TakenSamples t = c.take(12, 3.0);
  CHECK(t.age_sum_s == doctest::Approx(10 * 3.0 - 5.5 + (3.0 - 1.5) + (3.0 - 2.0)));
  CHECK(t.age_max_s == doctest::Approx(2.9));
}

TEST_CASE("a persistence buffer grows linearly with the steps") {
  // Fluid rate S = 64.75 samples/s, a step every t = 0.5 s that trains b = 20 samples. Each step:
  // advance to k t, add the arrivals, take b. After k steps the buffer holds exactly
  // floor(S t k) - b k = floor(259 k / 8) - 20 k samples, i.e. (t S - b) k = 12.375 k within one sample.
  // (S and t are exact binary fractions, so floor(S t k) is exact in integer arithmetic.)
  const double rate = 64.75, step = 0.5;
  const int64_t batch = 20;
  ArrivalProcess arrivals(RateProfile::constant(rate), ArrivalProcess::Kind::Fluid, 0);
  StreamBuffer b(BufferPolicy::Persistence, 0);
  for (int64_t k = 1; k <= 1000; ++k) {
    b.add(arrivals.advance_to(step * static_cast<double>(k)));
    b.take(batch, step * static_cast<double>(k));
    CHECK(b.size() == 259 * k / 8 - batch * k);
    CHECK(std::abs(static_cast<double>(b.size()) - (step * rate - batch) * static_cast<double>(k)) < 1);
  }
  CHECK(b.dropped() == 0);
  CHECK(b.peak() == 259 * 1000 / 8 - batch * 999);  // the peak is right after the last arrivals

  // A non-binary rate (64.7/s, growth 12.35 per step): the same law, up to rounding at exact integers.
  ArrivalProcess a2(RateProfile::constant(64.7), ArrivalProcess::Kind::Fluid, 0);
  StreamBuffer b2(BufferPolicy::Persistence, 0);
  for (int64_t k = 1; k <= 1000; ++k) {
    b2.add(a2.advance_to(0.5 * static_cast<double>(k)));
    b2.take(batch, 0.5 * static_cast<double>(k));
    const int64_t exact = 647 * k / 20 - batch * k;  // floor(32.35 k) - 20 k
    if (647 * k % 20 != 0) CHECK(b2.size() == exact);
    CHECK(std::abs(static_cast<double>(b2.size()) - 12.35 * static_cast<double>(k)) < 1);
  }
}

TEST_CASE("a truncation buffer stays bounded by its window") {
  // Rate 64.75/s, steps of 0.5 s training 20: truncating to keep = 40 before each take leaves 20.
  ArrivalProcess arrivals(RateProfile::constant(64.75), ArrivalProcess::Kind::Fluid, 0);
  StreamBuffer b(BufferPolicy::Truncation, 0);
  for (int k = 1; k <= 200; ++k) {
    b.add(arrivals.advance_to(0.5 * k));
    b.truncate(40);
    b.take(20, 0.5 * k);
    CHECK(b.size() == (k == 1 ? 12 : 20));  // the first step only had 32 samples
    CHECK(b.arrived() == b.taken() + b.dropped() + b.size());
  }
  CHECK(b.peak() <= 20 + 33);
}

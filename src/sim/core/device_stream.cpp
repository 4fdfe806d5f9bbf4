// See device_stream.hpp.
#include "sim/core/device_stream.hpp"

#include <cmath>

namespace edgetrain::sim {
namespace {

stream::RateProfile profile_of(const scenario::StreamSpec& spec, double rate) {
  if (!spec.trace.empty()) return stream::RateProfile::from_trace_csv(spec.trace);
  return stream::RateProfile::constant(rate);
}

}  // namespace

DeviceStream::DeviceStream(const scenario::StreamSpec& spec, double rate, int64_t sample_bytes,
                           stream::SampleOrder order, uint64_t arrivals_seed)
    : arrivals_(
          profile_of(spec, rate),
          spec.arrivals == "poisson" ? stream::ArrivalProcess::Kind::Poisson : stream::ArrivalProcess::Kind::Fluid,
          arrivals_seed),
      buffer_(stream::parse_buffer_policy(spec.buffer.policy), spec.buffer.capacity_samples),
      order_(std::move(order)),
      nominal_rate_(arrivals_.profile().nominal_rate()),
      window_s_(spec.buffer.window_s),
      sample_bytes_(sample_bytes),
      lose_while_off_(spec.while_off == "lose") {}

void DeviceStream::catch_up(double now) {
  if (now > arrivals_.clock()) buffer_.add(arrivals_.advance_to(now));
}

int64_t DeviceStream::lose_until(double now) {
  int64_t lost = 0;
  if (now > arrivals_.clock()) {
    for (const stream::ArrivalChunk& c : arrivals_.advance_to(now)) lost += c.count;
  }
  return lost;
}

double DeviceStream::prepare_step(int64_t batch, double now) {
  catch_up(now);
  if (buffer_.policy() == stream::BufferPolicy::Truncation) {
    const auto window = static_cast<int64_t>(std::ceil(nominal_rate_ * window_s_));
    buffer_.truncate(std::max(batch, window));
  }
  return batch_ready_at(batch, now);
}

double DeviceStream::batch_ready_at(int64_t batch, double now) {
  catch_up(now);
  if (buffer_.size() >= batch) return now;
  return arrivals_.time_of_next(batch - buffer_.size());
}

std::vector<int64_t> DeviceStream::take(int64_t batch, double now, report::StreamRecord& record, bool identities) {
  catch_up(now);
  const stream::TakenSamples taken = buffer_.take(batch, now);
  record.age_sum_s += taken.age_sum_s;
  record.sample_age_max_s = std::max(record.sample_age_max_s, taken.age_max_s);
  std::vector<int64_t> indices;
  indices.reserve(taken.seqs.size());
  for (int64_t seq : taken.seqs) {
    if (identities) {
      indices.push_back(order_.index_of(seq));
    } else {
      order_.note(seq);
      indices.push_back(0);
    }
  }
  return indices;
}

void DeviceStream::fill(report::StreamRecord& record) const {
  record.rate_samples_per_s = nominal_rate_;
  record.samples_arrived = buffer_.arrived();
  record.samples_dropped = buffer_.dropped();
  record.buffer_peak_samples = buffer_.peak();
  record.buffer_final_samples = buffer_.size();
}

report::BufferPoint DeviceStream::point(double now, const std::string& device) const {
  return {now,
          device,
          buffer_.size(),
          buffer_.size() * sample_bytes_,
          buffer_.arrived(),
          buffer_.taken(),
          buffer_.dropped()};
}

}  // namespace edgetrain::sim

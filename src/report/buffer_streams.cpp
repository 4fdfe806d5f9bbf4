// See buffer_streams.hpp.
#include "report/buffer_streams.hpp"

namespace edgetrain::report {

BufferStreams::BufferStreams(double every_s)
    : every_s_(every_s), series_(every_s, [this](const FleetBufferPoint& p) {
        fleet_.row().add(p.sim_time_s).add(p.buffered_samples).add(p.buffered_bytes).add(p.arrived).add(p.taken).add(
            p.dropped);
      }) {}

void BufferStreams::open(const std::filesystem::path& folder, const std::filesystem::path& shown,
                         const std::string& note) {
  buffers_.open(folder / "buffers.csv", (shown / "buffers.csv").string(), note,
                {"sim_time_s", "device", "buffered_samples", "buffered_bytes", "arrived", "taken", "dropped"});
  fleet_.open(folder / "buffers_fleet.csv", (shown / "buffers_fleet.csv").string(), note,
              {"sim_time_s", "buffered_samples", "buffered_bytes", "arrived", "taken", "dropped"});
}

void BufferStreams::record(size_t device, const BufferPoint& point) {
  const bool seen = device < last_time_.size() && last_time_[device] >= 0;
  if (seen && point.sim_time_s - last_time_[device] < every_s_) return;
  finish(device, point);
}

void BufferStreams::finish(size_t device, const BufferPoint& p) {
  if (last_time_.size() <= device) last_time_.resize(device + 1, -1.0);
  last_time_[device] = p.sim_time_s;
  buffers_.row().add(p.sim_time_s).add(p.device).add(p.buffered_samples).add(p.buffered_bytes).add(p.arrived).add(
      p.taken).add(p.dropped);
  series_.add(p);
}

void BufferStreams::close(double end_s) {
  series_.finish(end_s);  // header only without streams
  buffers_.close();
  fleet_.close();
}

}  // namespace edgetrain::report

// See wire.hpp.
#include "mpi/wire.hpp"

namespace edgetrain::mpi {

void write_update(Writer& w, const backend::UpdatePayload& u) {
  w.put_vector<uint8_t>(u.encoded);
  w.put<int64_t>(u.bytes);
  w.put<uint8_t>(u.compressed);
  w.put<uint64_t>(u.indices.size());
  for (const auto& layer : u.indices) w.put_vector<int64_t>(layer);
  w.put<int64_t>(u.step);
  w.put_vector<uint8_t>(u.control);
  w.put<uint8_t>(u.control_compressed);
  w.put_vector<float>(u.server_part);
  w.put<double>(u.qffl_h);
}

backend::UpdatePayload read_update(Reader& r) {
  backend::UpdatePayload u;
  u.encoded = r.get_vector<uint8_t>();
  u.bytes = r.get<int64_t>();
  u.compressed = r.get<uint8_t>() != 0;
  const auto layers = r.get<uint64_t>();
  if (layers > (1u << 20)) throw WireError("an update with an implausible number of index sets");
  u.indices.resize(layers);
  for (auto& layer : u.indices) layer = r.get_vector<int64_t>();
  u.step = r.get<int64_t>();
  u.control = r.get_vector<uint8_t>();
  u.control_compressed = r.get<uint8_t>() != 0;
  u.server_part = r.get_vector<float>();
  u.qffl_h = r.get<double>();
  return u;
}

}  // namespace edgetrain::mpi

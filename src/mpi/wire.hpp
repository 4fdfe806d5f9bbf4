// The bytes of the messages between rank 0 and the learning workers: plain values, byte strings and
// float vectors written in order, read back in the same order (same binary on every rank, same
// machine type: no byte swapping). An UpdatePayload round-trips exactly, so an update a worker
// computed is, bit for bit, the one the device would have computed on rank 0.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/learner.hpp"

namespace edgetrain::mpi {

// A message that ends early or holds what its reader does not expect.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Writer {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&value, sizeof value);
  }
  template <class T>
  void put_vector(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<uint64_t>(values.size());
    append(values.data(), values.size() * sizeof(T));
  }
  void put_string(const std::string& s) { put_vector<char>(std::span<const char>(s.data(), s.size())); }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  void append(const void* data, size_t size) {
    const size_t at = bytes_.size();
    bytes_.resize(at + size);
    if (size) std::memcpy(bytes_.data() + at, data, size);
  }
  std::vector<uint8_t> bytes_;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    take(&value, sizeof value);
    return value;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto count = get<uint64_t>();
    if (count > (bytes_.size() - at_) / sizeof(T)) throw WireError("a message ends inside a vector");
    std::vector<T> values(count);
    take(values.data(), count * sizeof(T));
    return values;
  }
  std::string get_string() {
    const std::vector<char> chars = get_vector<char>();
    return {chars.begin(), chars.end()};
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  void take(void* out, size_t size) {
    if (size > bytes_.size() - at_) throw WireError("a message ends early");
    if (size) std::memcpy(out, bytes_.data() + at_, size);
    at_ += size;
  }
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

void write_update(Writer& w, const backend::UpdatePayload& update);
backend::UpdatePayload read_update(Reader& r);

}  // namespace edgetrain::mpi

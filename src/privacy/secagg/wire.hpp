// Byte-level encoding of secure-aggregation messages: little-endian integers, fixed-size arrays, and
// field elements packed at b bits each (a masked input of m elements takes ceil(m*b/8) bytes). The
// reader checks every length, so a truncated or padded message is an error, not a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "privacy/secagg/primitives.hpp"

namespace edgetrain::privacy::secagg {

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v);
  void u64(uint64_t v);
  void bytes(std::span<const uint8_t> v) { out_.insert(out_.end(), v.begin(), v.end()); }
  // Each value's low `bits` bits, least significant first, padded with zeros to a whole byte.
  void packed(std::span<const uint32_t> values, uint32_t bits);
  Bytes take() { return std::move(out_); }

 private:
  Bytes out_;
};

// Reads `message`, named `what` in errors (std::invalid_argument).
class Reader {
 public:
  Reader(std::span<const uint8_t> message, std::string what) : in_(message), what_(std::move(what)) {}
  uint8_t u8();
  uint32_t u32();
  uint64_t u64();
  void bytes(std::span<uint8_t> out);
  std::vector<uint32_t> packed(size_t count, uint32_t bits);
  // A list count, refused when the rest of the message cannot hold `count` entries of `entry_bytes`.
  uint32_t count(size_t entry_bytes);
  // Throws unless every byte was read.
  void finish() const;

 private:
  std::span<const uint8_t> take(size_t n);
  std::span<const uint8_t> in_;
  size_t at_ = 0;
  std::string what_;
};

}  // namespace edgetrain::privacy::secagg

// See wire.hpp.
#include "privacy/secagg/wire.hpp"

#include <algorithm>
#include <stdexcept>

namespace edgetrain::privacy::secagg {

void Writer::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void Writer::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void Writer::packed(std::span<const uint32_t> values, uint32_t bits) {
  uint64_t pending = 0;
  uint32_t filled = 0;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  for (uint32_t v : values) {
    pending |= (v & mask) << filled;
    filled += bits;
    for (; filled >= 8; filled -= 8, pending >>= 8) out_.push_back(static_cast<uint8_t>(pending));
  }
  if (filled > 0) out_.push_back(static_cast<uint8_t>(pending));
}

std::span<const uint8_t> Reader::take(size_t n) {
  if (in_.size() - at_ < n)
    throw std::invalid_argument("secagg " + what_ + ": message truncated (" + std::to_string(in_.size()) + " bytes)");
  const auto out = in_.subspan(at_, n);
  at_ += n;
  return out;
}

uint8_t Reader::u8() { return take(1)[0]; }

uint32_t Reader::u32() {
  const auto b = take(4);
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(b[i]) << (8 * i);
  return v;
}

uint64_t Reader::u64() {
  const auto b = take(8);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
  return v;
}

void Reader::bytes(std::span<uint8_t> out) {
  const auto b = take(out.size());
  std::copy(b.begin(), b.end(), out.begin());
}

std::vector<uint32_t> Reader::packed(size_t count, uint32_t bits) {
  const auto b = take((count * bits + 7) / 8);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  std::vector<uint32_t> values(count);
  uint64_t pending = 0;
  uint32_t filled = 0;
  size_t next = 0;
  for (auto& v : values) {
    for (; filled < bits; filled += 8) pending |= static_cast<uint64_t>(b[next++]) << filled;
    v = static_cast<uint32_t>(pending & mask);
    pending >>= bits;
    filled -= bits;
  }
  return values;
}

uint32_t Reader::count(size_t entry_bytes) {
  const uint32_t n = u32();
  if (static_cast<uint64_t>(n) * entry_bytes > in_.size() - at_)
    throw std::invalid_argument("secagg " + what_ + ": a list of " + std::to_string(n) +
                                " entries overruns the message");
  return n;
}

void Reader::finish() const {
  if (at_ != in_.size())
    throw std::invalid_argument("secagg " + what_ + ": " + std::to_string(in_.size() - at_) + " trailing bytes");
}

}  // namespace edgetrain::privacy::secagg

// The bit packer and reader of wire.hpp against a bit-at-a-time reference (bit b of the i-th
// value at stream bit i * width + b, LSB first within each byte), for every width 1..64.
#include "compress/wire.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

using namespace edgetrain::compress;

TEST_CASE("packed fields of every width match a bit-at-a-time reference") {
  std::mt19937_64 rng(11);
  for (int bits = 1; bits <= 64; ++bits) {
    CAPTURE(bits);
    for (const size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{64}, size_t{333}}) {
      CAPTURE(count);
      std::vector<uint64_t> values(count);
      for (uint64_t& v : values) v = rng();  // high bits beyond the width must be dropped
      std::vector<uint8_t> reference(packed_bytes(count, bits), 0);
      for (size_t i = 0; i < count; ++i) {
        for (int b = 0; b < bits; ++b) {
          const size_t bit = i * static_cast<size_t>(bits) + static_cast<size_t>(b);
          reference[bit / 8] |= static_cast<uint8_t>(((values[i] >> b) & 1u) << (bit % 8));
        }
      }
      std::vector<uint8_t> packed;
      ByteWriter w(packed);
      BitWriter bw(w.extend(packed_bytes(count, bits)));
      for (uint64_t v : values) bw.put(v, bits);
      bw.finish();
      CHECK(packed == reference);
      ByteReader r(packed);
      BitReader br = r.packed_reader(count, bits);
      const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      for (size_t i = 0; i < count; ++i) CHECK(br.get(bits) == (values[i] & mask));
      CHECK(r.done());
    }
  }
}

TEST_CASE("a truncated packed field is refused before it is read") {
  const std::vector<uint8_t> bytes(3, 0xff);
  ByteReader r(bytes);
  CHECK_THROWS_AS(r.packed_reader(5, 5), CompressError);  // 25 bits need 4 bytes
}

// Reads the 8-bit RGB or RGBA PNG files that Chromium's screenshots are (zlib, no other library),
// to tell a rendered page from a blank one.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace test {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint32_t> pixels;  // 0xRRGGBB, row by row
};

inline uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) | (uint32_t(uint8_t(s[at + 2])) << 8) |
         uint8_t(s[at + 3]);
}

inline Image read_png(const std::string& file) {
  if (file.size() < 8 || file.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0)
    throw std::runtime_error("not a PNG");
  Image img;
  int channels = 0;
  std::string data;
  for (size_t at = 8; at + 8 <= file.size();) {
    const uint32_t length = be32(file, at);
    const std::string type = file.substr(at + 4, 4);
    if (at + 12 + length > file.size()) throw std::runtime_error("truncated PNG");
    const std::string body = file.substr(at + 8, length);
    if (type == "IHDR") {
      img.width = be32(body, 0);
      img.height = be32(body, 4);
      const int depth = uint8_t(body[8]), color = uint8_t(body[9]), interlace = uint8_t(body[12]);
      if (depth != 8 || (color != 2 && color != 6) || interlace != 0)
        throw std::runtime_error("unsupported PNG layout");
      channels = color == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      data += body;
    }
    at += 12 + length;
  }
  const size_t stride = size_t(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(data.data()), data.size()) != Z_OK ||
      size != raw.size()) {
    throw std::runtime_error("bad PNG data");
  }
  std::vector<uint8_t> prev(stride, 0), row(stride);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(channels) ? row[i - channels] : 0, b = prev[i],
                c = i >= size_t(channels) ? prev[i - channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw std::runtime_error("bad PNG filter");
      }
      row[i] = uint8_t(in[i] + predicted);
    }
    for (uint32_t x = 0; x < img.width; ++x) {
      const uint8_t* p = &row[x * channels];
      img.pixels.push_back((uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2]);
    }
    prev = row;
  }
  return img;
}

}  // namespace test

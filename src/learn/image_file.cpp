// See image_file.hpp. stb_image is compiled into Debian's libstb.so: only its header here.
#include "learn/image_file.hpp"

#include <stb_image.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

bool is_image_file(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* e : {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tga", ".pgm", ".ppm", ".pnm", ".psd"}) {
    if (ext == e) return true;
  }
  return false;
}

ImageSize image_size(const std::filesystem::path& file) {
  int w = 0, h = 0, c = 0;
  if (!stbi_info(file.c_str(), &w, &h, &c)) {
    const char* why = stbi_failure_reason();
    throw DataError("dataset: " + file.string() + " does not decode as an image (" + (why ? why : "unknown") + ")");
  }
  return {c <= 2 ? 1 : 3, h, w};
}

void decode_image(const std::filesystem::path& file, const ImageSize& expected, const std::filesystem::path& first,
                  std::vector<uint8_t>& out) {
  int w = 0, h = 0, c = 0;
  const int channels = static_cast<int>(expected.channels);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load(file.c_str(), &w, &h, &c, channels), stbi_image_free);
  if (!pixels) {
    const char* why = stbi_failure_reason();
    throw DataError("dataset: " + file.string() + " does not decode as an image (" + (why ? why : "unknown") + ")");
  }
  if (w != expected.width || h != expected.height) {
    throw DataError("dataset: " + file.string() + " is " + std::to_string(w) + "x" + std::to_string(h) + " but " +
                    first.string() + " " + std::to_string(expected.width) + "x" + std::to_string(expected.height) +
                    ": all images must have one size");
  }
  const size_t plane = static_cast<size_t>(w) * static_cast<size_t>(h), at = out.size();
  out.resize(at + plane * static_cast<size_t>(channels));
  for (size_t p = 0; p < plane; ++p) {
    for (int k = 0; k < channels; ++k) out[at + static_cast<size_t>(k) * plane + p] = pixels.get()[p * channels + k];
  }
}

Dataset decode_images(const std::vector<std::filesystem::path>& files, const std::vector<int64_t>& labels,
                      const ImageSize& size, const std::filesystem::path& first) {
  Dataset d;
  d.channels = size.channels;
  d.height = size.height;
  d.width = size.width;
  d.raw_sample_bytes = d.sample_size();
  for (const auto& f : files) decode_image(f, size, first, d.codes);
  d.labels = labels;
  return d;
}

}  // namespace edgetrain::learn

// One image file decoded with stb_image (Debian's libstb: PNG, JPEG, BMP, GIF, TGA, PNM...) into
// channel-first bytes, for the image folder and FedScale loaders. No LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

struct ImageSize {
  int64_t channels = 1, height = 0, width = 0;  // channels: 1 (grey, grey + alpha) or 3 (RGB, RGBA)
};

// From the file's header only; DataError naming the file when stb cannot read it.
ImageSize image_size(const std::filesystem::path& file);
// Decodes `file` as `expected.channels` channels (grey images are repeated to RGB, colour images
// averaged to grey by stb, alpha dropped) and appends its C x H x W bytes to `out`. DataError naming
// the file when it does not decode or its size differs from `expected`'s (`first` names the file
// that set it).
void decode_image(const std::filesystem::path& file, const ImageSize& expected, const std::filesystem::path& first,
                  std::vector<uint8_t>& out);
// A split of `files` (all of `size`, which `first` set) with their `labels`, pixels kept as codes.
Dataset decode_images(const std::vector<std::filesystem::path>& files, const std::vector<int64_t>& labels,
                      const ImageSize& size, const std::filesystem::path& first);
// True for the file names stb decodes (by extension, any case).
bool is_image_file(const std::filesystem::path& file);

}  // namespace edgetrain::learn

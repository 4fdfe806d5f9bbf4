// See image_file.hpp. stb_image is compiled into Debian's libstb.so: only its header here.
#include "learn/image_file.hpp"

#include <stb_image.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <string_view>

#include "learn/dataset.hpp"
#include "util/printable.hpp"
#include "util/read_input.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::learn {

namespace {

// An image file is read whole (it is decoded from memory): far above any training image.
constexpr util::InputRule kImageInput{"an image file", 256 * util::kMiB, false, "images are read as files"};
// Pixels of one image at most (2^28: a 16384 x 16384 picture), checked from the header before decoding.
constexpr uint64_t kMaxPixels = uint64_t{1} << 28;

std::string lower_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool starts_with(std::string_view bytes, std::string_view magic) { return bytes.substr(0, magic.size()) == magic; }

// Whether the bytes begin as the format the extension names. stb_image sniffs the format from the
// content, not the name, and Debian's 2.27 loops for ever on a truncated Radiance HDR file
// (CVE-2021-42715): only the documented formats reach it, each checked by its signature. TGA has none:
// its header's image type must be one stb reads, and the content must not be HDR's or PIC's.
bool has_signature(std::string_view bytes, const std::string& ext) {
  if (ext == ".png") return starts_with(bytes, "\x89PNG\r\n\x1a\n");
  if (ext == ".jpg" || ext == ".jpeg") return starts_with(bytes, "\xff\xd8\xff");
  if (ext == ".bmp") return starts_with(bytes, "BM");
  if (ext == ".gif") return starts_with(bytes, "GIF87a") || starts_with(bytes, "GIF89a");
  if (ext == ".psd") return starts_with(bytes, "8BPS");
  if (ext == ".pgm" || ext == ".ppm" || ext == ".pnm") return starts_with(bytes, "P5") || starts_with(bytes, "P6");
  if (ext == ".tga") {
    if (bytes.size() < 18 || starts_with(bytes, "#?") || starts_with(bytes, "\x53\x80\xf6\x34")) return false;
    const auto type = static_cast<unsigned char>(bytes[2]);
    return type == 1 || type == 2 || type == 3 || type == 9 || type == 10 || type == 11;
  }
  return false;
}

DataError bad_image(const std::filesystem::path& file, const std::string& why) {
  return DataError("dataset: " + util::printable(file.string()) + " " + why);
}

// The file's bytes, checked against its extension's signature and read with a bound.
std::string image_bytes(const std::filesystem::path& file) {
  std::string bytes = util::read_input_as<DataError>(file, kImageInput);
  if (!has_signature(bytes, lower_extension(file)))
    throw bad_image(file, "is not a " + lower_extension(file).substr(1) + " file (its first bytes are not that "
                          "format's signature)");
  return bytes;
}

const stbi_uc* data_of(const std::string& bytes) { return reinterpret_cast<const stbi_uc*>(bytes.data()); }
int length_of(const std::string& bytes) { return static_cast<int>(bytes.size()); }  // at most 256 MiB

ImageSize checked_size(const std::filesystem::path& file, const std::string& bytes) {
  int w = 0, h = 0, c = 0;
  if (!stbi_info_from_memory(data_of(bytes), length_of(bytes), &w, &h, &c)) {
    const char* why = stbi_failure_reason();
    throw bad_image(file, std::string("does not decode as an image (") + (why ? why : "unknown") + ")");
  }
  if (w <= 0 || h <= 0 || static_cast<uint64_t>(w) * static_cast<uint64_t>(h) > kMaxPixels)
    throw bad_image(file, "is " + std::to_string(w) + "x" + std::to_string(h) + " pixels: at most 2^28 are read");
  return {c <= 2 ? 1 : 3, h, w};
}

}  // namespace

bool is_image_file(const std::filesystem::path& file) {
  const std::string ext = lower_extension(file);
  for (const char* e : {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tga", ".pgm", ".ppm", ".pnm", ".psd"}) {
    if (ext == e) return true;
  }
  return false;
}

ImageSize image_size(const std::filesystem::path& file) { return checked_size(file, image_bytes(file)); }

void decode_image(const std::filesystem::path& file, const ImageSize& expected, const std::filesystem::path& first,
                  std::vector<uint8_t>& out) {
  const std::string bytes = image_bytes(file);
  (void)checked_size(file, bytes);
  int w = 0, h = 0, c = 0;
  const int channels = static_cast<int>(expected.channels);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(data_of(bytes), length_of(bytes), &w, &h, &c, channels), stbi_image_free);
  if (!pixels) {
    const char* why = stbi_failure_reason();
    throw bad_image(file, std::string("does not decode as an image (") + (why ? why : "unknown") + ")");
  }
  if (w != expected.width || h != expected.height) {
    throw bad_image(file, "is " + std::to_string(w) + "x" + std::to_string(h) + " but " +
                              util::printable(first.string()) + " " + std::to_string(expected.width) + "x" +
                              std::to_string(expected.height) + ": all images must have one size");
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
  for (const auto& f : files) {
    util::throw_if_stopped("decoding images");  // Ctrl-C between two images
    decode_image(f, size, first, d.codes);
  }
  d.labels = labels;
  return d;
}

}  // namespace edgetrain::learn

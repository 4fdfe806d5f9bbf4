// The image folder and FedScale loaders on PNG files written here with stb_image_write: classes
// and clients, channel-first pixels kept as codes, and each broken file refused in one line.
#include "learn/images.hpp"

#include <doctest/doctest.h>
#include <stb_image_write.h>

#include "data_fixtures.hpp"
#include "learn/fedscale.hpp"

using namespace edgetrain::learn;
namespace fs = std::filesystem;

namespace {

// A w x h image of `channels` whose pixel p, channel c is base + 10*c + p.
void png(const fs::path& p, int w, int h, int channels, int base) {
  fs::create_directories(p.parent_path());
  std::vector<uint8_t> px(static_cast<size_t>(w * h * channels));
  for (int i = 0; i < w * h; ++i) {
    for (int c = 0; c < channels; ++c)
      px[static_cast<size_t>(i * channels + c)] = static_cast<uint8_t>(base + 10 * c + i);
  }
  REQUIRE(stbi_write_png(p.c_str(), w, h, channels, px.data(), w * channels) != 0);
}

// train/{cat,dog}/ with 2 and 1 RGB 2x1 images, test/dog/ with one.
fs::path image_dir(const std::string& name) {
  const fs::path dir = fixtures::scratch("images-" + name);
  png(dir / "train/cat/a.png", 2, 1, 3, 0);
  png(dir / "train/cat/b.png", 2, 1, 3, 100);
  png(dir / "train/dog/a.png", 2, 1, 3, 50);
  png(dir / "test/dog/z.png", 2, 1, 3, 7);
  fixtures::write(dir / "train/cat/readme.txt", "not an image");
  return dir;
}

}  // namespace

TEST_CASE("images: a folder per class, round-robin over the classes, pixels channel-first") {
  const fs::path dir = image_dir("ok");
  const DatasetPair d = load_image_folder({.dir = dir});
  CHECK(d.train.size() == 3);
  CHECK(d.train.labels == std::vector<int64_t>{0, 1, 0});  // cat a, dog a, cat b
  CHECK(d.test.labels == std::vector<int64_t>{1});
  CHECK(d.train.classes == 2);
  CHECK(d.train.channels == 3);
  CHECK(d.train.height == 1);
  CHECK(d.train.width == 2);
  // cat/a.png: channel 0 = 0, 1; channel 1 = 10, 11; channel 2 = 20, 21.
  CHECK(std::vector<uint8_t>(d.train.codes.begin(), d.train.codes.begin() + 6) ==
        std::vector<uint8_t>{0, 1, 10, 11, 20, 21});
  CHECK(d.train.raw_sample_bytes == 6);
  const DatasetShape s = image_folder_shape({.dir = dir});
  CHECK(s.train_samples == 3);
  CHECK(s.test_samples == 1);
  CHECK(s.classes == 2);
  CHECK(s.sample_floats() == 6);
  const DatasetPair cut = load_image_folder({.dir = dir, .train_limit = 2});
  CHECK(cut.train.labels == std::vector<int64_t>{0, 1});  // a limit keeps the classes balanced
  // A grey set: one channel.
  const fs::path grey = fixtures::scratch("images-grey");
  png(grey / "train/0/a.png", 3, 2, 1, 0);
  png(grey / "train/1/a.png", 3, 2, 1, 9);
  png(grey / "test/1/a.png", 3, 2, 1, 9);
  const DatasetPair g = load_image_folder({.dir = grey});
  CHECK(g.train.channels == 1);
  CHECK(g.train.sample_size() == 6);
}

TEST_CASE("images: broken files are refused with one line naming the file and the fault") {
  const fs::path dir = image_dir("sizes");
  png(dir / "train/dog/b.png", 3, 1, 3, 0);
  const std::string sizes = (dir / "train/dog/b.png").string() + " is 3x1 but " + (dir / "train/cat/a.png").string() +
                            " 2x1: all images must have one size";
  CHECK_THROWS_WITH_AS(load_image_folder({.dir = dir}), doctest::Contains(sizes.c_str()), DataError);
  const fs::path bad = image_dir("undecodable");
  fixtures::write(bad / "train/dog/c.png", "not a png at all");
  const std::string undecodable = (bad / "train/dog/c.png").string() + " is not a png file";
  CHECK_THROWS_WITH_AS(load_image_folder({.dir = bad}), doctest::Contains(undecodable.c_str()), DataError);
  // A truncated Radiance HDR file named .png: stb_image 2.27 sniffs the content and loops for ever on
  // it (CVE-2021-42715); its signature is checked against the extension first.
  const fs::path hdr = image_dir("hdr");
  fixtures::write(hdr / "train/dog/a.png", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 8\n\x02\x02\x00\x08\x7f\x7f\x7f\x7f");
  CHECK_THROWS_WITH_AS(load_image_folder({.dir = hdr}), doctest::Contains("a.png is not a png file"), DataError);

  const fs::path stray = image_dir("stray");
  png(stray / "test/bird/a.png", 2, 1, 3, 0);
  CHECK_THROWS_WITH_AS(load_image_folder({.dir = stray}), doctest::Contains("test/bird is not a class of"), DataError);
}

TEST_CASE("images: a folder per user gives each training sample its user, the classes of all users") {
  // alice holds cat (2) and dog (1), bob only bird (1): classes bird, cat, dog; test/ per user too.
  const fs::path dir = fixtures::scratch("images-users");
  png(dir / "train/alice/cat/a.png", 2, 1, 1, 0);
  png(dir / "train/alice/cat/b.png", 2, 1, 1, 1);
  png(dir / "train/alice/dog/a.png", 2, 1, 1, 2);
  png(dir / "train/bob/bird/a.png", 2, 1, 1, 3);
  png(dir / "test/carol/dog/a.png", 2, 1, 1, 4);
  const DatasetPair d = load_image_folder({.dir = dir, .user_folders = true});
  CHECK(d.train.classes == 3);
  CHECK(d.train.labels == std::vector<int64_t>{1, 2, 1, 0});  // alice round-robin (cat, dog, cat), then bob
  CHECK(d.train.sample_users == std::vector<int64_t>{0, 0, 0, 1});
  CHECK(d.test.labels == std::vector<int64_t>{2});
  CHECK(image_folder_shape({.dir = dir, .user_folders = true}).user_samples == std::vector<int64_t>{3, 1});
  // A limit cuts users in order: the first three samples are alice's.
  CHECK(image_folder_shape({.dir = dir, .user_folders = true, .train_limit = 3}).user_samples ==
        std::vector<int64_t>{3});
  // The class layout carries no users.
  CHECK(load_image_folder({.dir = image_dir("no-users")}).train.sample_users.empty());
  // A test class no training user has is refused.
  png(dir / "test/carol/fish/a.png", 2, 1, 1, 5);
  CHECK_THROWS_WITH_AS(load_image_folder({.dir = dir, .user_folders = true}),
                       doctest::Contains("test/carol/fish is not a class of"), DataError);
}

TEST_CASE("fedscale: the clients of train.csv are the samples' users") {
  const fs::path dir = fixtures::scratch("fedscale");
  png(dir / "train/x1.png", 2, 2, 1, 0);
  png(dir / "train/x2.png", 2, 2, 1, 40);
  png(dir / "train/sub/x3.png", 2, 2, 1, 80);
  png(dir / "test/t1.png", 2, 2, 1, 3);
  fixtures::write(dir / "client_data_mapping/train.csv",
                  "client_id,sample_path,label_name,label_id\n"
                  "7,x1.png,cat,0\n9,x2.png,dog,4\n7,\"sub/x3.png\",dog,4\n");
  fixtures::write(dir / "client_data_mapping/test.csv", "label_id,sample_path,client_id,label_name\n1,t1.png,3,dog\n");
  const DatasetPair d = load_fedscale_dataset({.dir = dir});
  CHECK(d.train.sample_users == std::vector<int64_t>{0, 1, 0});
  CHECK(d.train.labels == std::vector<int64_t>{0, 4, 4});
  CHECK(d.test.labels == std::vector<int64_t>{1});
  CHECK(d.train.classes == 5);
  CHECK(d.train.codes.size() == 12);
  CHECK(d.train.codes[4] == 40);
  const DatasetShape s = fedscale_dataset_shape({.dir = dir});
  CHECK(s.user_samples == std::vector<int64_t>{2, 1});
  CHECK(s.classes == 5);
  CHECK(s.sample_floats() == 4);

  // Labels within dataset.classes' bound; a mapping without a newline is one line, read with a bound.
  fixtures::write(dir / "client_data_mapping/train.csv",
                  "client_id,sample_path,label_name,label_id\n7,x1.png,cat,1000000000000000\n");
  CHECK_THROWS_WITH_AS(load_fedscale_dataset({.dir = dir}), doctest::Contains("labels are 0 to 999"), DataError);
  fixtures::write(dir / "client_data_mapping/train.csv", std::string(100000, 'x'));
  CHECK_THROWS_WITH_AS(load_fedscale_dataset({.dir = dir}), doctest::Contains("has no column client_id"), DataError);
  fixtures::write(dir / "client_data_mapping/train.csv",
                  "client_id,sample_path,label_name,label_id\n7,x1.png,cat,zero\n");
  CHECK_THROWS_WITH_AS(load_fedscale_dataset({.dir = dir}),
                       doctest::Contains("train.csv line 2 has label_id \"zero\": not an integer"), DataError);
  fixtures::write(dir / "client_data_mapping/train.csv",
                  "client_id,sample_path,label_name,label_id\n7,gone.png,cat,0\n");
  CHECK_THROWS_WITH_AS(load_fedscale_dataset({.dir = dir}), doctest::Contains("gone.png (named by"), DataError);
  fixtures::write(dir / "client_data_mapping/train.csv", "client,sample_path,label_name,label_id\n7,x1.png,cat,0\n");
  CHECK_THROWS_WITH_AS(load_fedscale_dataset({.dir = dir}), doctest::Contains("has no column client_id"), DataError);
  fixtures::write(dir / "client_data_mapping/train.csv", "client_id,sample_path,label_name,label_id\n7,x1.png,cat,0\n");
  FedScaleSpec declared{.dir = dir, .classes = 1};
  declared.classes = 2;
  fixtures::write(dir / "client_data_mapping/test.csv", "client_id,sample_path,label_name,label_id\n3,t1.png,dog,2\n");
  CHECK_THROWS_WITH_AS(load_fedscale_dataset(declared),
                       doctest::Contains("test.csv has label 2 at sample 0, outside 0-1"), DataError);
}

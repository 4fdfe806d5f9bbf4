// The dataset keys of the user's formats (npz, images, leaf, fedscale) and the natural partition:
// values accepted, defaults, and each refusal as one line naming its JSON path.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

json with_dataset(const json& dataset) {
  json doc = minimal_doc();
  doc["dataset"] = dataset;
  return doc;
}

}  // namespace

TEST_CASE("dataset npz: the file alone, the four array names by default, channels undeclared") {
  TempDir dir;
  dir.write("mnist.npz", "");
  const Scenario s = parse_in(dir, with_dataset({{"name", "npz"}, {"file", "mnist.npz"}}));
  CHECK(s.dataset.file == dir / "mnist.npz");
  CHECK(s.dataset.arrays.x_train == "x_train");
  CHECK(s.dataset.arrays.y_test == "y_test");
  CHECK(s.dataset.channels_at.empty());
  CHECK(s.dataset.classes == 0);  // the largest label + 1
  const Scenario named = parse_in(dir, with_dataset({{"name", "npz"},
                                                     {"file", "mnist.npz"},
                                                     {"channels_at", "last"},
                                                     {"classes", 10},
                                                     {"arrays", {{"x_train", "a"}, {"y_test", "d"}}}}));
  CHECK(named.dataset.arrays.x_train == "a");
  CHECK(named.dataset.arrays.y_train == "y_train");
  CHECK(named.dataset.arrays.y_test == "d");
  CHECK(named.dataset.channels_at == "last");
  CHECK(named.dataset.classes == 10);
  CHECK(parse_error(dir, with_dataset({{"name", "npz"}})).find("dataset.file") == 0);
  CHECK(parse_error(dir, with_dataset({{"name", "npz"}, {"file", "gone.npz"}})) ==
        "dataset.file: file not found: " + (dir / "gone.npz").string());
  CHECK(parse_error(dir, with_dataset({{"name", "npz"}, {"file", "mnist.npz"}, {"channels_at", "middle"}}))
            .find("dataset.channels_at: ") == 0);
}

TEST_CASE("dataset leaf and fedscale: a folder, inferred shape and classes, the natural partition") {
  TempDir dir;
  dir.mkdir("femnist");
  const Scenario s =
      parse_in(dir, with_dataset({{"name", "leaf"}, {"path", "femnist"}, {"partition", {{"kind", "natural"}}}}));
  CHECK(s.dataset.path == dir / "femnist");
  CHECK(s.dataset.shape.empty());  // inferred from the samples' length
  CHECK(s.dataset.classes == 0);
  CHECK(s.dataset.partition.kind == "natural");
  CHECK(s.dataset.partition.users_per_device == 1);
  CHECK_FALSE(s.dataset.partition.shuffle_users);
  const Scenario f = parse_in(
      dir, with_dataset({{"name", "fedscale"},
                         {"path", "femnist"},
                         {"classes", 62},
                         {"partition", {{"kind", "natural"}, {"users_per_device", 3}, {"shuffle_users", true}}}}));
  CHECK(f.dataset.classes == 62);
  CHECK(f.dataset.partition.users_per_device == 3);
  CHECK(f.dataset.partition.shuffle_users);
  const Scenario shaped = parse_in(dir, with_dataset({{"name", "leaf"}, {"path", "femnist"}, {"shape", {1, 28, 28}}}));
  CHECK(shaped.dataset.shape == std::vector<int64_t>{1, 28, 28});
  CHECK(parse_error(dir, with_dataset({{"name", "leaf"}})).find("dataset.path") == 0);
  CHECK(parse_error(dir, with_dataset({{"name", "fedscale"},
                                       {"path", "femnist"},
                                       {"partition", {{"kind", "natural"}, {"users_per_device", 0}}}}))
            .find("dataset.partition.users_per_device: must be") == 0);
}

TEST_CASE("dataset: natural needs users, synthetic data keeps its shape and classes when given null") {
  TempDir dir;
  dir.mkdir("flowers");
  dir.write("x.npz", "");
  const json natural = {{"kind", "natural"}};
  CHECK(parse_error(dir, with_dataset({{"name", "synthetic"}, {"partition", natural}})) ==
        "dataset.partition.kind: natural needs a data set whose samples carry users (dataset.name leaf, "
        "fedscale, npz or images), not synthetic");
  // An image folder carries users only with a folder per user; an npz with its users array (read when loaded).
  CHECK(parse_error(dir, with_dataset({{"name", "images"}, {"path", "flowers"}, {"partition", natural}})) ==
        "dataset.partition.kind: natural on an image folder needs dataset.layout user/class "
        "(train/<user>/<class>/): with a folder per class the samples carry no users");
  CHECK(parse_in(dir, with_dataset({{"name", "images"}, {"path", "flowers"}, {"layout", "user/class"},
                                    {"partition", natural}}))
            .dataset.layout == "user/class");
  CHECK(parse_in(dir, with_dataset({{"name", "npz"}, {"file", "x.npz"}, {"partition", natural}})).dataset.arrays.users ==
        "users_train");
  // null is "not given": synthetic data takes its defaults.
  const Scenario synthetic =
      parse_in(dir, with_dataset({{"name", "synthetic"}, {"classes", nullptr}, {"shape", nullptr}}));
  CHECK(synthetic.dataset.classes == 10);
  CHECK(synthetic.dataset.shape == std::vector<int64_t>{1, 28, 28});
  CHECK(parse_in(dir, with_dataset({{"name", "images"}, {"path", "flowers"}})).dataset.path == dir / "flowers");
}

// See images.hpp.
#include "learn/images.hpp"

#include <algorithm>
#include <map>

#include "learn/image_file.hpp"
#include "util/printable.hpp"

namespace edgetrain::learn {
namespace {

namespace fs = std::filesystem;

// One split's files in sample order, with their labels (and users, with user folders).
struct Listing {
  std::vector<fs::path> files;
  std::vector<int64_t> labels;
  std::vector<int64_t> users;
};

std::vector<fs::path> sorted_entries(const fs::path& dir, bool folders) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (folders ? e.is_directory() : (e.is_regular_file() && is_image_file(e.path()))) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What a split's folder holds, in words, for messages.
std::string holding(bool user_folders) { return user_folders ? "a folder per user, each a folder per class" : "a folder per class"; }

std::vector<std::string> class_names(const fs::path& dir, bool user_folders) {
  const fs::path train = dir / "train";
  if (!fs::is_directory(train))
    throw DataError("dataset: " + train.string() + " is not a directory (" + holding(user_folders) + ")");
  std::vector<std::string> names;
  if (user_folders) {  // every user's class folders, in name order
    for (const fs::path& user : sorted_entries(train, true))
      for (const fs::path& p : sorted_entries(user, true)) names.push_back(p.filename().string());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  } else {
    for (const fs::path& p : sorted_entries(train, true)) names.push_back(p.filename().string());
  }
  if (names.size() < 2)
    throw DataError("dataset: " + train.string() + " holds " + std::to_string(names.size()) +
                    " class folders; at least 2 are needed");
  if (names.size() > static_cast<size_t>(kMaxClasses))
    throw DataError("dataset: " + train.string() + " holds " + std::to_string(names.size()) +
                    " class folders; at most " + std::to_string(kMaxClasses) + " are read (dataset.classes' bound)");
  return names;
}

// Appends the class folders of `root` to `l`, round-robin over the classes, as samples of `user`, until
// `l` holds `limit` files (0: no limit).
void list_classes(const fs::path& dir, const fs::path& root, const std::vector<std::string>& classes, int64_t user,
                  int64_t limit, Listing& l) {
  std::vector<std::vector<fs::path>> per_class(classes.size());
  for (const fs::path& folder : sorted_entries(root, true)) {
    const auto it = std::find(classes.begin(), classes.end(), folder.filename().string());
    if (it == classes.end()) {
      throw DataError("dataset: " + util::printable(folder.string()) + " is not a class of " +
                      util::printable((dir / "train").string()));
    }
    per_class[static_cast<size_t>(it - classes.begin())] = sorted_entries(folder, false);
  }
  for (size_t round = 0;; ++round) {
    bool any = false;
    for (size_t c = 0; c < per_class.size(); ++c) {
      if (round >= per_class[c].size()) continue;
      any = true;
      if (limit > 0 && static_cast<int64_t>(l.files.size()) >= limit) break;
      l.files.push_back(per_class[c][round]);
      l.labels.push_back(static_cast<int64_t>(c));
      l.users.push_back(user);
    }
    if (!any || (limit > 0 && static_cast<int64_t>(l.files.size()) >= limit)) break;
  }
}

Listing list_split(const fs::path& dir, const std::string& split, const std::vector<std::string>& classes,
                   int64_t limit, bool user_folders) {
  const fs::path root = dir / split;
  if (!fs::is_directory(root))
    throw DataError("dataset: " + root.string() + " is not a directory (" + holding(user_folders) + ")");
  Listing l;
  if (user_folders) {
    int64_t user = 0;
    for (const fs::path& folder : sorted_entries(root, true)) list_classes(dir, folder, classes, user++, limit, l);
  } else {
    list_classes(dir, root, classes, 0, limit, l);
    l.users.clear();
  }
  if (l.files.empty()) throw DataError("dataset: " + root.string() + " holds no image");
  return l;
}


}  // namespace

DatasetPair load_image_folder(const ImageFolderSpec& spec) {
  const auto classes = class_names(spec.dir, spec.user_folders);
  const Listing train = list_split(spec.dir, "train", classes, spec.train_limit, spec.user_folders);
  const Listing test = list_split(spec.dir, "test", classes, spec.test_limit, spec.user_folders);
  const fs::path& first = train.files.front();
  const ImageSize size = image_size(first);
  DatasetPair pair{decode_images(train.files, train.labels, size, first),
                   decode_images(test.files, test.labels, size, first)};
  pair.train.sample_users = train.users;  // the test set's users play no part
  finish_dataset(pair, static_cast<int64_t>(classes.size()), (spec.dir / "train").string(),
                 (spec.dir / "test").string());
  return pair;
}

DatasetShape image_folder_shape(const ImageFolderSpec& spec) {
  const auto classes = class_names(spec.dir, spec.user_folders);
  const Listing train = list_split(spec.dir, "train", classes, spec.train_limit, spec.user_folders);
  const Listing test = list_split(spec.dir, "test", classes, spec.test_limit, spec.user_folders);
  const ImageSize size = image_size(train.files.front());
  DatasetShape s;
  s.train_samples = static_cast<int64_t>(train.files.size());
  s.test_samples = static_cast<int64_t>(test.files.size());
  s.channels = size.channels;
  s.height = size.height;
  s.width = size.width;
  s.classes = static_cast<int64_t>(classes.size());
  s.value_bytes = 1;
  s.read_bytes = static_cast<double>(s.sample_floats()) * 2;  // one decoded image at a time
  s.user_samples = user_counts(train.users);
  return s;
}

}  // namespace edgetrain::learn

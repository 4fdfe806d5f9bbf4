// See results_dir.hpp.
#include "report/results_dir.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fstream>

#include "report/output_file.hpp"

namespace edgetrain::report {
namespace {

namespace fs = std::filesystem;

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The pid of a temporary folder name `.NAME.tmp-PID` or `.NAME.old-PID`; 0 for any other name.
pid_t temporary_owner(const std::string& entry) {
  const size_t dash = entry.rfind('-');
  if (entry.empty() || entry[0] != '.' || dash == std::string::npos) return 0;
  const std::string pid = entry.substr(dash + 1), head = entry.substr(0, dash);
  if (!all_digits(pid) || pid.size() > 9 || head.size() <= 5) return 0;
  const std::string kind = head.substr(head.size() - 4);
  return kind == ".tmp" || kind == ".old" ? static_cast<pid_t>(std::stol(pid)) : 0;
}

bool running(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// A result file, the temporary file `FILE.tmpPID` that earlier versions wrote beside it, or what
// `edgetrain plot` and `edgetrain report` write into a run folder by default (drawn from the
// results, so replaced with them).
bool written_by_edgetrain(const std::string& entry) {
  if (entry == "report.html" || entry == "plots") return true;
  for (const std::string& file : ResultsDir::result_files()) {
    if (entry == file) return true;
    if (entry.rfind(file + ".tmp", 0) == 0 && all_digits(entry.substr(file.size() + 4))) return true;
  }
  return false;
}

// `out` made absolute with its symlinks resolved: the folder itself is what gets replaced.
fs::path resolve(const fs::path& out, const std::string& shown) {
  std::error_code ec;
  fs::path folder = fs::weakly_canonical(fs::absolute(out), ec);
  if (ec) throw OutputError("--out " + shown + ": " + ec.message());
  if (!folder.has_filename()) folder = folder.parent_path();  // a trailing slash
  if (!folder.has_filename() || folder == folder.root_path()) {
    throw OutputError("--out " + shown + ": not a folder edgetrain can replace");
  }
  return folder;
}

// Makes a rename or a new file in `dir` durable.
void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

const std::vector<std::string>& ResultsDir::result_files() {
  static const std::vector<std::string> files = {"scenario.json", "metrics.csv",       "devices.csv",
                                                 "buffers.csv",   "buffers_fleet.csv", "links.csv",
                                                 "staleness.csv", "rounds.csv",        "platform.xml",
                                                 "summary.json"};
  return files;
}

int remove_stale_temporaries(const fs::path& parent) {
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const pid_t owner = temporary_owner(entry.path().filename().string());
    if (owner <= 0 || owner == ::getpid() || running(owner) || !entry.is_directory(ec)) continue;
    std::error_code remove_ec;
    fs::remove_all(entry.path(), remove_ec);
    removed += remove_ec ? 0 : 1;
  }
  return removed;
}

ResultsDir::ResultsDir(const fs::path& out) : shown_(out.string()), folder_(resolve(out, shown_)) {
  const fs::path parent = folder_.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw OutputError("--out " + shown_ + ": cannot create folder " + parent.string() + ": " + ec.message());
  lock_ = std::make_unique<FolderLock>(folder_, shown_);
  const fs::file_status status = fs::status(folder_, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    throw OutputError("--out " + shown_ + ": exists and is not a folder");
  }
  if (fs::is_directory(status)) {
    // The whole folder is replaced: never one that holds anything but results.
    for (const auto& entry : fs::directory_iterator(folder_, ec)) {
      const std::string name = entry.path().filename().string();
      if (!written_by_edgetrain(name)) {
        throw OutputError("--out " + shown_ + ": holds \"" + name +
                          "\", which edgetrain did not write; a run replaces the whole folder, so move it away or "
                          "choose another --out");
      }
    }
    if (ec) throw OutputError("--out " + shown_ + ": cannot read the folder: " + ec.message());
  }
  remove_stale_temporaries(parent);
  tmp_ = parent / ("." + folder_.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp_, ec);
  if (!fs::create_directory(tmp_, ec) || ec) {
    throw OutputError("--out " + shown_ + ": cannot create " + tmp_.string() + ": " +
                      (ec ? ec.message() : std::string("it already exists")));
  }
}

ResultsDir::~ResultsDir() {
  std::error_code ec;
  if (!committed_ && !tmp_.empty()) fs::remove_all(tmp_, ec);
}

std::optional<nlohmann::json> ResultsDir::previous_scenario() const {
  std::ifstream in(folder_ / "scenario.json", std::ios::binary);
  if (!in) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded()) return std::nullopt;
  return doc;
}

void ResultsDir::write(const std::string& name, const std::string& content) {
  const auto& known = result_files();
  if (std::find(known.begin(), known.end(), name) == known.end()) throw std::logic_error("not a result file: " + name);
  if (const std::error_code ec = write_file(tmp_ / name, content)) {
    std::error_code exists_ec;
    throw OutputError(
        (fs::path(shown_) / name).string() + ": cannot write: " + ec.message() + " (" +
        (fs::exists(folder_, exists_ec) ? "the previous results are left as they were" : "no results were written") +
        ")");
  }
}

void ResultsDir::commit() {
  const fs::path parent = folder_.parent_path();
  sync_folder(tmp_);
  auto fail = [&](const std::string& what, int err) {
    throw OutputError("--out " + shown_ + ": " + what + ": " + std::error_code(err, std::generic_category()).message());
  };
  fs::path previous;  // where the previous results are after the swap
  std::error_code ec;
  if (!fs::exists(folder_, ec)) {
    if (std::rename(tmp_.c_str(), folder_.c_str()) != 0) fail("cannot move the results into place", errno);
  } else if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, folder_.c_str(), RENAME_EXCHANGE) == 0) {
    previous = tmp_;  // one atomic swap: the folder is at all times either the old or the new results
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // A file system without an atomic exchange: move the previous folder aside first.
    previous = parent / ("." + folder_.filename().string() + ".old-" + std::to_string(::getpid()));
    fs::remove_all(previous, ec);
    if (std::rename(folder_.c_str(), previous.c_str()) != 0) fail("cannot move the previous results aside", errno);
    if (std::rename(tmp_.c_str(), folder_.c_str()) != 0) {
      const int err = errno;
      std::rename(previous.c_str(), folder_.c_str());
      fail("cannot move the results into place", err);
    }
  } else {
    fail("cannot move the results into place", errno);
  }
  committed_ = true;
  sync_folder(parent);
  if (!previous.empty()) fs::remove_all(previous, ec);
}

}  // namespace edgetrain::report

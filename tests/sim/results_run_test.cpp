// Results folders through the binary: a run's folder is replaced as a whole or not at all. A
// second run on the same --out is refused while the first runs; an unusable --out fails before
// anything is simulated; a write that fails (file size limit, full disk) leaves the previous
// results as they were; a killed run's temporary folder is removed by the next run.
#include <doctest/doctest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cstring>
#include <set>

#include "cli_helpers.hpp"
#include "process_helpers.hpp"

using namespace test;

namespace {

const std::string kSimulating = "edgetrain: two-devices: 2 devices";
const std::vector<std::string> kFiles = {"scenario.json", "summary.json",  "metrics.csv", "devices.csv",
                                         "links.csv",     "staleness.csv", "buffers.csv"};

std::vector<std::string> run_args(const fs::path& out, const std::vector<std::string>& sets = {}) {
  std::vector<std::string> args = {"run", (kData / "two-devices.json").string(), "--out", out.string()};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

// A run that lasts until it is signalled.
const std::vector<std::string> kEndless = {"stop.rounds=null", "stop.sim_time_s=1e9", "eval.every_s=100"};

std::map<std::string, std::string> contents(const fs::path& out) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(out)) files[e.path().filename().string()] = slurp(e.path());
  return files;
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

Ended run_to_end(const std::vector<std::string>& args, const std::string& tag,
                 const std::function<void()>& in_child = {}) {
  Child c = start_cli(args, tag, in_child);
  return wait_cli(c, 120);
}

}  // namespace

TEST_CASE("a second run on the same --out is refused while the first runs, and the first's results are whole") {
  const fs::path parent = fresh_dir("concurrent");
  const fs::path out = parent / "run";
  Child first = start_cli(run_args(out, kEndless), "concurrent-first");
  REQUIRE_MESSAGE(wait_for_err(first, kSimulating, 120), slurp(first.dir / "err"));
  const Ended second = run_to_end(run_args(out), "concurrent-second");
  CHECK(second.result.status == 2);
  CHECK(second.result.err == "edgetrain: --out " + out.string() + ": another edgetrain run (pid " +
                                 std::to_string(first.pid) +
                                 ") is writing this folder; wait for it to end or choose another --out\n");
  CHECK(second.result.out.empty());
  ::kill(first.pid, SIGINT);
  const Ended e = wait_cli(first, 60);
  CHECK(e.result.status == 130);
  for (const auto& f : kFiles) CHECK(fs::exists(out / f));
  CHECK(read_json(out / "summary.json")["status"] == "interrupted");
  CHECK(read_json(out / "scenario.json")["stop"]["sim_time_s"] == 1e9);  // the first run's, whole
  CHECK(entries(parent) == std::set<std::string>{"run"});                // no lock, no temporary folder of either run
  // Once the first has ended, the folder is free.
  const Ended third = run_to_end(run_args(out), "concurrent-third");
  CHECK(third.result.status == 0);
  CHECK(read_json(out / "summary.json")["status"] == "completed");
}

TEST_CASE("an unusable --out fails with exit 2 before anything is simulated") {
  const fs::path dir = fresh_dir("unwritable");
  std::ofstream(dir / "a-file") << "not a folder";
  // A path through a regular file cannot be created, even by root. The run would otherwise last
  // until the guard kills it.
  const fs::path out = dir / "a-file" / "run";
  const Ended e = run_to_end(run_args(out, kEndless), "unwritable");
  CHECK_FALSE(e.timed_out);
  CHECK(e.result.status == 2);
  CHECK(e.result.err == "edgetrain: --out " + out.string() + ": cannot create folder " + (dir / "a-file").string() +
                            ": Not a directory\n");
  CHECK(e.result.out.empty());
  // A folder holding files edgetrain did not write is never replaced.
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "keep";
  const Ended foreign = run_to_end(run_args(dir / "mine", kEndless), "unwritable-foreign");
  CHECK(foreign.result.status == 2);
  CHECK(foreign.result.err.find("holds \"notes.txt\", which edgetrain did not write") != std::string::npos);
  CHECK(entries(dir / "mine") == std::set<std::string>{"notes.txt"});
}

TEST_CASE("a write that fails keeps the previous results intact and says which file and why") {
  const fs::path parent = fresh_dir("file-limit");
  const fs::path out = parent / "run";
  REQUIRE(run_to_end(run_args(out), "file-limit-first").result.status == 0);
  const auto before = contents(out);
  // A file size limit binds root too: writes past 512 bytes fail with EFBIG (SIGXFSZ ignored).
  const Ended e = run_to_end(run_args(out, {"seed=9"}), "file-limit-second", [] {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{512, 512};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  });
  CHECK(e.result.status == 2);
  CHECK(e.result.err.find(": cannot write: File too large (the previous results are left as they were)") !=
        std::string::npos);
  // Names the file: the first to pass the limit, selections.csv (streamed while the run goes).
  CHECK(e.result.err.find("\nedgetrain: " + (out / "selections.csv").string() + ": cannot write") !=
        std::string::npos);
  CHECK(contents(out) == before);
  CHECK(entries(parent) == std::set<std::string>{"run"});
}

TEST_CASE("a full disk keeps the previous results intact (a tmpfs, skipped where mount is not allowed)") {
  const fs::path mnt = fs::temp_directory_path() / "edgetrain-test-full-disk";
  ::umount(mnt.c_str());  // left mounted by an earlier run that stopped halfway
  fresh_dir("full-disk");
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") != 0) {
    MESSAGE("skipped: cannot mount a tmpfs here (needs root): " << std::strerror(errno));
    return;
  }
  struct Unmount {
    fs::path at;
    ~Unmount() { ::umount(at.c_str()); }
  } unmount{mnt};
  const fs::path out = mnt / "run";
  const Ended first = run_to_end(run_args(out), "full-disk-first");
  CHECK(first.result.status == 0);
  const auto before = contents(out);
  // Fill the disk but for a few KiB: the next run's files no longer fit.
  struct statvfs fs_info {};
  ::statvfs(mnt.c_str(), &fs_info);
  const auto free_bytes = static_cast<size_t>(fs_info.f_bavail) * fs_info.f_frsize;
  std::ofstream(mnt / ".filler") << std::string(free_bytes - 8192, 'x');
  const Ended second = run_to_end(run_args(out, {"seed=9"}), "full-disk-second");
  CHECK(second.result.status == 2);
  CHECK(second.result.err.find(": cannot write: No space left on device (the previous results are left as they "
                               "were)") != std::string::npos);
  CHECK(contents(out) == before);
  CHECK(entries(mnt) == std::set<std::string>{"run", ".filler"});
}

TEST_CASE("a killed run leaves the previous results and the next run removes its temporary folder") {
  const fs::path parent = fresh_dir("killed");
  const fs::path out = parent / "run";
  REQUIRE(run_to_end(run_args(out), "killed-first").result.status == 0);
  const auto before = contents(out);
  Child killed = start_cli(run_args(out, kEndless), "killed-second");
  REQUIRE_MESSAGE(wait_for_err(killed, kSimulating, 120), slurp(killed.dir / "err"));
  const std::string tmp = ".run.tmp-" + std::to_string(killed.pid);
  ::kill(killed.pid, SIGKILL);
  CHECK(wait_cli(killed, 60).result.status == 128 + SIGKILL);
  CHECK(contents(out) == before);
  CHECK(fs::is_directory(parent / tmp));  // what SIGKILL leaves: no handler runs
  const Ended next = run_to_end(run_args(out, {"seed=9"}), "killed-third");
  CHECK(next.result.status == 0);
  CHECK(entries(parent) == std::set<std::string>{"run"});
  CHECK(read_json(out / "summary.json")["seed"] == 9);
}

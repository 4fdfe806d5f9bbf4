// The one writer of -o files (report::write_output): a regular file replaced through a rename, a
// character device or FIFO written through and never replaced, other special files refused, a
// symlink's target written (the link stays), and a target that is one of the command's inputs
// refused, by device and inode (a hard link or a symlink to the input is the input).
#include "report/output_file.hpp"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "files.hpp"

using namespace edgetrain::report;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) { return test::fresh_dir("edgetrain-output-", name); }

using test::slurp;

std::string refusal(const fs::path& path, const std::vector<fs::path>& inputs = {}) {
  try {
    write_output(path, "new", "-o " + path.string(), inputs);
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

size_t entries(const fs::path& dir) { return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {})); }

}  // namespace

TEST_CASE("write_output: a regular file is replaced whole, a new one created, nothing left beside them") {
  const fs::path dir = fresh("regular");
  write_output(dir / "a.xml", "first", "a.xml");
  write_output(dir / "a.xml", "second", "a.xml");
  CHECK(slurp(dir / "a.xml") == "second");
  CHECK(entries(dir) == 1);
  CHECK(refusal(dir / "missing-folder" / "a.xml").find("cannot write: No such file or directory") != std::string::npos);
}

TEST_CASE("write_output: character devices and FIFOs are written through, never replaced") {
  write_output("/dev/null", "discarded", "-o /dev/null");
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  const fs::path fifo = fresh("fifo") / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  write_output(fifo, "through the pipe", "-o pipe");
  reader.join();
  CHECK(received == "through the pipe");
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  CHECK(entries(fifo.parent_path()) == 1);
}

TEST_CASE("write_output: a folder, a socket or a block device is refused with one line, untouched") {
  const fs::path dir = fresh("special");
  fs::create_directories(dir / "folder");
  CHECK(refusal(dir / "folder") == "-o " + (dir / "folder").string() +
                                       ": is a folder; edgetrain writes a regular file there, or through a character "
                                       "device or FIFO");
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = (dir / "sock").string();
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  REQUIRE(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  CHECK(refusal(dir / "sock").find(": is a socket;") != std::string::npos);
  CHECK(fs::is_socket(fs::symlink_status(dir / "sock")));
  ::close(sock);
  // A block device: made here when allowed (root), else any the system has.
  fs::path block = dir / "block";
  if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) {
    block.clear();
    for (const auto& e : fs::directory_iterator("/dev")) {
      if (fs::is_block_file(fs::symlink_status(e.path()))) {
        block = e.path();
        break;
      }
    }
  }
  if (!block.empty()) {
    CAPTURE(block);
    CHECK(refusal(block).find(": is a block device;") != std::string::npos);
    CHECK(fs::is_block_file(fs::symlink_status(block)));
  }
  CHECK(entries(dir) == (block.parent_path() == dir ? 3u : 2u));
}

TEST_CASE("write_output: a symlink's target is written and the link stays, a dangling one gets its target") {
  const fs::path dir = fresh("symlink");
  std::ofstream(dir / "real.html") << "old";
  fs::create_symlink("real.html", dir / "latest.html");
  write_output(dir / "latest.html", "new", "latest.html");
  CHECK(fs::is_symlink(dir / "latest.html"));
  CHECK(slurp(dir / "real.html") == "new");
  fs::create_directories(dir / "sub");
  fs::create_symlink("../made.html", dir / "sub" / "dangling.html");
  write_output(dir / "sub" / "dangling.html", "made", "dangling.html");
  CHECK(fs::is_symlink(dir / "sub" / "dangling.html"));
  CHECK(slurp(dir / "made.html") == "made");
  CHECK(entries(dir) == 4);  // real.html, latest.html, sub, made.html: no temporary left
}

TEST_CASE("write_output: the command's own input is refused, also through a hard link or a symlink") {
  const fs::path dir = fresh("input");
  std::ofstream(dir / "fleet.json") << "{\"devices\": 3}";
  fs::create_hard_link(dir / "fleet.json", dir / "hard.json");
  fs::create_symlink(dir / "fleet.json", dir / "soft.json");
  for (const std::string name : {"fleet.json", "hard.json", "soft.json"}) {
    CAPTURE(name);
    CHECK(refusal(dir / name, {dir / "fleet.json"}) ==
          "-o " + (dir / name).string() + ": is the input " + (dir / "fleet.json").string() +
              "; writing it would destroy what is read: choose another output file");
  }
  CHECK(slurp(dir / "fleet.json") == "{\"devices\": 3}");
  CHECK(refusal(dir / "other.xml", {dir / "fleet.json"}).empty());
}

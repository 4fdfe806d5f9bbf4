// See read_input.hpp.
#include "util/read_input.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::util {
namespace {

// How often a wait for a stream looks at the stop flag.
constexpr int kPollMs = 100;
constexpr size_t kChunk = 1 << 16;

std::string size_text(uint64_t bytes) {
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens `file` without blocking and refuses what `rule` (and `regular_only`) does not take: a folder,
// a stream where a regular file is needed, a regular file larger than the bound.
struct Opened {
  Fd fd;
  struct stat st {};
  bool regular() const { return S_ISREG(st.st_mode); }
};

Opened open_input(const std::filesystem::path& file, const InputRule& rule, bool regular_only) {
  const std::string shown = printable(file.string());
  auto fail = [&](const std::string& why) { return ReadError(shown + ": " + why); };
  Opened o{Fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC))};
  if (o.fd.get() < 0) {
    const int e = errno;
    if (e == ENOENT) throw fail("cannot open file (no such file)");
    if (e == EISDIR) throw fail("cannot open file (it is a directory)");
    throw fail(std::string("cannot open file (") + std::strerror(e) + ")");
  }
  if (::fstat(o.fd.get(), &o.st) != 0) throw fail(std::string("cannot read file (") + std::strerror(errno) + ")");
  if (S_ISDIR(o.st.st_mode)) throw fail("cannot open file (it is a directory)");
  if (!o.regular() && (regular_only || !rule.streams)) {
    throw fail(std::string(rule.what) + " must be a regular file, not a pipe, FIFO or device (" + rule.regular + ")");
  }
  if (o.regular() && static_cast<uint64_t>(o.st.st_size) > rule.max_bytes) {
    throw fail(std::string(rule.what) + " is larger than " + size_text(rule.max_bytes) + " (" +
               std::to_string(o.st.st_size) + " bytes): edgetrain reads at most that much");
  }
  return o;
}

}  // namespace

uint64_t check_regular_input(const std::filesystem::path& file, const InputRule& rule) {
  return static_cast<uint64_t>(open_input(file, rule, true).st.st_size);
}

std::string read_input(const std::filesystem::path& file, const InputRule& rule) {
  const std::string shown = printable(file.string());
  auto fail = [&](const std::string& why) { return ReadError(shown + ": " + why); };
  const Opened opened = open_input(file, rule, false);
  const Fd& fd = opened.fd;
  const struct stat& st = opened.st;
  const bool regular = opened.regular();
  auto too_large = [&](const std::string& size) {
    return fail(std::string(rule.what) + " is larger than " + size_text(rule.max_bytes) + " (" + size +
                "): edgetrain reads at most that much");
  };
  if (regular) {
    // A regular file never blocks: plain reads from here.
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  }
  std::string content;
  if (regular) content.reserve(static_cast<size_t>(st.st_size));
  char buffer[kChunk];
  while (true) {
    if (!regular) {
      // Wait for data (or the writer's end), looking at the stop flag in between.
      pollfd p{fd.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, kPollMs);
      if (stop_requested()) throw Interrupted("waiting for " + shown);
      if (ready < 0 && errno != EINTR) throw fail(std::string("cannot read file (") + std::strerror(errno) + ")");
      if (ready <= 0) continue;
    }
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw fail(std::string("cannot read file (") + std::strerror(errno) + ")");
    }
    if (n == 0) break;
    if (content.size() + static_cast<size_t>(n) > rule.max_bytes) {
      throw too_large(regular ? "it grew while being read" : "a stream that goes on past it");
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  return content;
}

}  // namespace edgetrain::util

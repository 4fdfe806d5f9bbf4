// report.html in a real browser (Debian's headless Chromium): opened from disk with no server, it
// renders (the screenshot is a real image, not a blank page), its DOM holds the figures and tables,
// and it makes no network request. Every request Chromium makes goes to a proxy this test listens
// on (--proxy-server, no bypass even for loopback; names resolve nowhere), which records the host
// of each. A control page that does fetch an image proves the trap catches requests. Chromium's
// own background calls to Google's update and account services are told apart by host; the page
// itself is checked to name no network address at all, so those hosts cannot hide a fetch of it.
// Where Chromium is missing or cannot start, the test says so and exits 77 (skipped), never passes.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include "plot_helpers.hpp"
#include "png_image.hpp"

using namespace test;

namespace {

constexpr const char* kChromium = "/usr/bin/chromium";

void skip(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(77);
}

// A proxy that answers nothing: it records the host of each request line and closes.
class ProxyTrap {
 public:
  ProxyTrap() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 64) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ProxyTrap() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::set<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(hosts_, {});
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::string head;
      char buffer[512];
      pollfd q{c, POLLIN, 0};
      while (head.find("\r\n") == std::string::npos && head.size() < 4096 && ::poll(&q, 1, 1000) > 0) {
        const ssize_t n = ::read(c, buffer, sizeof buffer);
        if (n <= 0) break;
        head.append(buffer, size_t(n));
      }
      ::close(c);
      std::lock_guard<std::mutex> lock(mutex_);
      hosts_.insert(host_of(head.substr(0, head.find("\r\n"))));
    }
  }
  // "CONNECT host:443 HTTP/1.1" or "GET http://host/path HTTP/1.1" -> host.
  static std::string host_of(const std::string& line) {
    std::string target = line.substr(line.find(' ') + 1);
    target = target.substr(0, target.find(' '));
    if (const size_t scheme = target.find("://"); scheme != std::string::npos) target = target.substr(scheme + 3);
    target = target.substr(0, target.find_first_of("/:"));
    return target.empty() ? "(unreadable request: " + line + ")" : target;
  }
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::set<std::string> hosts_;
};

// Chromium's own background services (component updates, network time, sign-in), which it calls
// whatever the page; anything else a page load asks for is the page's.
bool chromium_service(const std::string& host) {
  for (const std::string domain : {"google.com", "googleapis.com", "gvt1.com", "gstatic.com"}) {
    if (host == domain || (host.size() > domain.size() &&
                           host.compare(host.size() - domain.size() - 1, std::string::npos, "." + domain) == 0)) {
      return true;
    }
  }
  return false;
}

std::set<std::string> page_requests(ProxyTrap& trap) {
  std::set<std::string> mine;
  for (const std::string& host : trap.take()) {
    if (!chromium_service(host)) mine.insert(host);
  }
  return mine;
}

// Runs headless Chromium on a file with extra arguments; its stdout.
Result chromium(const ProxyTrap& trap, const fs::path& page, const std::string& args, const std::string& tag) {
  const fs::path dir = fresh_dir("chromium-" + tag);
  const std::string cmd =
      std::string("timeout -k 5 90 ") + kChromium +
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-sync --disable-default-apps"
      " --disable-background-networking --disable-component-update --hide-scrollbars --user-data-dir=" +
      (dir / "profile").string() + " --proxy-server=http://127.0.0.1:" + std::to_string(trap.port()) +
      " '--proxy-bypass-list=<-loopback>' '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' " + args +
      " file://" + page.string() + " >" + (dir / "out").string() + " 2>" + (dir / "err").string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t.substr(t.rfind('\n') == std::string::npos ? 0 : t.rfind('\n') + 1);
}

}  // namespace

TEST_CASE("browser: report.html renders offline in headless Chromium, shows its plots and tables, fetches nothing") {
  if (::access(kChromium, X_OK) != 0) skip(std::string(kChromium) + " is not installed (apt-get install chromium)");
  ProxyTrap trap;

  // The control: a page that fetches an image must be caught, or the trap proves nothing.
  const fs::path control = fresh_dir("browser-control") / "control.html";
  write_file(
      control,
      "<!DOCTYPE html><html><body><p>control</p><img src=\"http://edgetrain-probe.invalid/x.png\"></body></html>");
  const Result c = chromium(trap, control, "--dump-dom", "control");
  if (c.status != 0 || c.out.find("<p>control</p>") == std::string::npos) {
    skip("headless Chromium cannot start here (exit " + std::to_string(c.status) + "): " + last_line(c.err));
  }
  CHECK(page_requests(trap) == std::set<std::string>{"edgetrain-probe.invalid"});

  // The page, alone in its folder.
  const fs::path run = many_run("browser");
  const fs::path page = fresh_dir("browser-page") / "report.html";
  const Result r = run_cli("report " + run.string() + " -o " + page.string(), "browser-report");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  check_self_contained(slurp(page));

  const Result dom = chromium(trap, page, "--dump-dom", "dom");
  REQUIRE_MESSAGE(dom.status == 0, last_line(dom.err));
  const size_t figures = occurrences(slurp(page), "<svg ");
  CHECK(figures == 5);  // time split, links, bytes per device, buffers, rounds (timing-only: no accuracy)
  CHECK(occurrences(dom.out, "<svg ") == figures);  // parsed as SVG by the browser
  CHECK(occurrences(dom.out, "</svg>") == figures);
  CHECK(occurrences(dom.out, "<table>") >= 8);
  CHECK(occurrences(dom.out, "<title>") > 50);
  for (const std::string shown : {"<h3>Bytes and load per link</h3>", ">Bottleneck</h3>", ">Resolved scenario</h3>",
                                  ">pi (10)<", "<td>final_test_accuracy</td>"}) {
    CAPTURE(shown);
    CHECK(dom.out.find(shown) != std::string::npos);
  }

  const fs::path shot = page.parent_path() / "screenshot.png";
  const Result s = chromium(trap, page, "--screenshot=" + shot.string() + " --window-size=1200,2400", "shot");
  REQUIRE_MESSAGE(s.status == 0, last_line(s.err));
  REQUIRE(fs::exists(shot));
  const Image img = read_png(slurp(shot));
  CHECK(img.width == 1200);
  CHECK(img.height == 2400);
  std::set<uint32_t> colors(img.pixels.begin(), img.pixels.end());
  size_t white = 0, red = 0;
  for (uint32_t p : img.pixels) {
    white += p == 0xffffff;
    red += p == 0xd62728;  // the bottleneck's bars
  }
  CHECK(colors.size() > 100);  // text, bars, lines: not a blank or one-colour page
  CHECK(white < img.pixels.size() * 95 / 100);
  CHECK(red > 500);

  CHECK(page_requests(trap).empty());
}

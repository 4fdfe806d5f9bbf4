// Hostile names in report.html and the figures: run ids (sweep.json's `id`, sweep.csv's `id`
// column), device names, link names and a scenario's name that hold markup, quotes, event handlers
// or matplotlib mathtext. The page is parsed as a browser parses it (tests/plot/check_html.py:
// no element or attribute injected, every name shown as text, a CSP that forbids script), and
// headless Chromium runs no script of it; two control pages prove that the probe would see a
// script run (the same payload unescaped fires) and that the CSP alone stops it.
#include <doctest/doctest.h>

#include "plot_helpers.hpp"

using namespace test;

namespace {

// What a payload's script writes when it runs, built at run time so that the page's own text
// never holds it.
constexpr const char* kFired = "PWNED";
const std::string kScript = "<script>document.body.setAttribute('data-x','PW'+'NED')</script>";
const std::string kAttribute = "\"><img src=#x onerror=\"document.title='PW'+'NED'\"><b x=\"";

// Legal device names (printable ASCII, no comma or double quote), and one with mathtext.
const std::vector<std::string> kDevices = {"<img src=#x onerror=document.title='PW'+'NED'>", "d$\\frac$",
                                           "</td><script>document.title='PW'+'NED'</script>", "a'b&c"};

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

std::string shell_word(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A run whose devices and one link bear hostile names (the link renamed in a copy of the platform).
fs::path hostile_run(const std::string& tag) {
  const fs::path dir = fresh_dir("hostile-platform-" + tag);
  std::string xml = slurp(kData / "homogeneous8.xml");
  const std::string link = "&lt;script&gt;document.title=&apos;PW&apos;+&apos;NED&apos;&lt;/script&gt;d1-up";
  for (size_t at = xml.find("\"d1-up\""); at != std::string::npos; at = xml.find("\"d1-up\"", at + 1)) {
    xml.replace(at + 1, 5, link);
  }
  write_file(dir / "platform.xml", xml);
  std::string devices = "[";
  for (size_t i = 0; i < kDevices.size(); ++i) {
    devices += std::string(i ? "," : "") + "{\"host\":\"d" + std::to_string(i + 1) +
               "\",\"name\":" + json_string(kDevices[i]) + "}";
  }
  return tiny_run(
      tag, "--set platform=" + (dir / "platform.xml").string() + " --set " + shell_word("devices=" + devices + "]"));
}

Result check_html(const fs::path& page, const std::vector<std::string>& hostile) {
  std::string cmd = "/usr/bin/python3 " + (kSource / "tests/plot/check_html.py").string() + " " + page.string();
  for (const auto& h : hostile) cmd += " " + shell_word(h);
  const fs::path out = page.parent_path() / "check.out";
  const int raw = std::system((cmd + " >" + out.string() + " 2>&1").c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), ""};
}

// A sweep folder whose runs bear hostile ids: in sweep.json for one run, in an `id` column of
// sweep.csv for another.
fs::path hostile_sweep(const std::string& tag) {
  const fs::path dir = fake_sweep(tag);
  nlohmann::json plan = read_json(dir / "sweep.json");
  plan["runs"][0]["id"] = kAttribute + kScript;
  write_file(dir / "sweep.json", plan.dump(2));
  std::string csv = slurp(dir / "sweep.csv");
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = csv.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(csv.substr(start, end - start));
  }
  lines[0] += ",id";
  lines[1] += ",";  // empty: sweep.json's id
  lines[2] += ",\"" + std::string("x\"\"") + "><script>document.title='PW'+'NED'</script>\"";
  lines[3] += ",3";
  csv.clear();
  for (const auto& l : lines) csv += l + "\n";
  write_file(dir / "sweep.csv", csv);
  return dir;
}

Result chromium_dom(const fs::path& page, const std::string& tag) {
  const fs::path dir = fresh_dir("hostile-chromium-" + tag);
  const std::string cmd =
      "timeout -k 5 90 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions"
      " --disable-sync --disable-background-networking --disable-component-update --user-data-dir=" +
      (dir / "profile").string() +
      " '--host-resolver-rules=MAP * ~NOTFOUND' --virtual-time-budget=2000 --dump-dom file://" + page.string() + " >" +
      (dir / "out").string() + " 2>" + (dir / "err").string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

}  // namespace

TEST_CASE("hostile names: device and link names with markup or mathtext are text in report.html and in plot") {
  const fs::path run = hostile_run("names");
  const fs::path page = fresh_dir("hostile-names-page") / "report.html";
  const Result r = run_cli("report " + run.string() + " -o " + page.string(), "hostile-names-report");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::vector<std::string> shown = kDevices;
  shown.push_back("<script>document.title='PW'+'NED'</script>d1-up");
  const Result check = check_html(page, shown);
  CHECK_MESSAGE(check.status == 0, check.out);
  // matplotlib draws d$\frac$ as it is (no mathtext): the figures are made, in every format.
  for (const std::string format : {"png", "svg", "pdf"}) {
    const fs::path images = fresh_dir("hostile-names-plot-" + format);
    const Result p = run_cli("plot " + run.string() + " --out " + images.string() + " --format " + format,
                             "hostile-names-plot-" + format);
    CAPTURE(format);
    CHECK_MESSAGE(p.status == 0, p.err);
    CHECK(fs::exists(images / ("devices_bytes." + format)));
  }
}

TEST_CASE("hostile names: run ids from sweep.json and sweep.csv inject no element or attribute into report.html") {
  const fs::path sweep = hostile_sweep("ids");
  const fs::path page = fresh_dir("hostile-ids-page") / "report.html";
  const Result r = run_cli("report " + sweep.string() + " -o " + page.string(), "hostile-ids-report");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const Result check = check_html(page, {kAttribute + kScript, "x\"><script>document.title='PW'+'NED'</script>"});
  CHECK_MESSAGE(check.status == 0, check.out);
  const std::string html = slurp(page);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
}

TEST_CASE(
    "browser: headless Chromium runs no script of a report whose names hold scripts, the probe and the CSP are "
    "proven") {
  if (::access("/usr/bin/chromium", X_OK) != 0) {
    std::printf("SKIPPED: /usr/bin/chromium is not installed\n");
    std::_Exit(77);
  }
  // Control 1: the payload unescaped, without a CSP, fires (so the probe can see a script run).
  const fs::path controls = fresh_dir("hostile-controls");
  write_file(controls / "fires.html",
             "<!DOCTYPE html><html><body><p id=\"" + kAttribute + kScript + "\"></p></body></html>");
  const Result fires = chromium_dom(controls / "fires.html", "fires");
  if (fires.status != 0 || fires.out.find("<body") == std::string::npos) {
    std::printf("SKIPPED: headless Chromium cannot start here (exit %d)\n", fires.status);
    std::_Exit(77);
  }
  CHECK(fires.out.find(kFired) != std::string::npos);
  // Control 2: the same page with the report's CSP runs nothing: the policy alone stops it.
  const std::string csp =
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
      "'none'; style-src 'unsafe-inline'; img-src data:\">";
  write_file(controls / "csp.html", "<!DOCTYPE html><html><head>" + csp + "</head><body><p id=\"" + kAttribute +
                                        kScript + "\"></p></body></html>");
  const Result blocked = chromium_dom(controls / "csp.html", "csp");
  REQUIRE(blocked.status == 0);
  CHECK(blocked.out.find(kFired) == std::string::npos);
  CHECK(blocked.out.find("<body data-x") == std::string::npos);  // the script element itself holds "data-x"

  for (const fs::path& folder : {hostile_sweep("browser"), hostile_run("browser")}) {
    const fs::path page = fresh_dir("hostile-browser-page") / "report.html";
    const Result r = run_cli("report " + folder.string() + " -o " + page.string(), "hostile-browser-report");
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const Result dom = chromium_dom(page, "report");
    REQUIRE(dom.status == 0);
    CAPTURE(folder);
    CHECK(dom.out.find("<svg ") != std::string::npos);  // the page rendered, figures and all
    CHECK(dom.out.find(kFired) == std::string::npos);
  }
}

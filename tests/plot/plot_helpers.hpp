// Run folders for the plot, report and browser tests: a tiny real run with streams (accuracy,
// buffers), a timing-only run of 30 devices of three classes (the many-device figures, rounds.csv,
// buffers_fleet.csv, the bottleneck section), and a sweep folder made by hand around two real runs.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <string>

#include "../sim/cli_helpers.hpp"

namespace test {

inline void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// The eight-device test scenario with a stream on every device and frequent evaluations and buffer rows.
inline fs::path tiny_run(const std::string& tag, const std::string& sets = "") {
  const fs::path out = fresh_dir("plot-run-" + tag) / "run";
  const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --out " + out.string() +
                               " --quiet --set 'stream={\"rate\":400}' --set eval.every_s=0.05"
                               " --set report.buffer_every_s=0.02 " +
                               sets,
                           "plot-run-" + tag);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return out;
}

// 30 devices (pi-0..9, jetson-10..19, phone-20..29) on the quickstart platform's hosts of their class
// (so devices.csv's class is pi, jetson or phone), timing only.
inline fs::path many_run(const std::string& tag) {
  std::string devices = "[";
  const char* classes[] = {"pi", "jetson", "phone"};
  const int hosts[] = {3, 2, 3};
  for (int i = 0; i < 30; ++i) {
    const int c = i / 10;
    devices += std::string(i ? "," : "") + "{\"host\":\"" + classes[c] + "-" + std::to_string(i % hosts[c] + 1) +
               "\",\"name\":\"" + classes[c] + "-" + std::to_string(i) + "\"}";
  }
  return tiny_run(
      tag, "--set training.compute=timing-only --set platform=" + (kSource / "platforms/quickstart.xml").string() +
               " --set server=cloud --set 'devices=" + devices + "]'");
}

// A summary figure no run writes yet (energy, a later issue), shown when present.
inline void add_energy(const fs::path& run) {
  nlohmann::json summary = read_json(run / "summary.json");
  summary["energy_j"] = 12.5;
  write_file(run / "summary.json", summary.dump(2));
}

// A sweep folder as `edgetrain sweep` writes it, around two real runs (training.mode sync and async)
// and a failed one.
inline fs::path fake_sweep(const std::string& tag) {
  const fs::path dir = fresh_dir("plot-sweep-" + tag);
  std::string csv =
      "training.mode,seed,status,status_reason,final_test_accuracy,sim_time_s,bytes_up,time_to_target_s,folder\n";
  nlohmann::json runs = nlohmann::json::array();
  int id = 1;
  for (const std::string mode : {"sync", "async"}) {
    const fs::path run = tiny_run(tag + "-" + mode, "--set training.mode=" + mode);
    const std::string folder = "runs/" + std::to_string(id);
    fs::create_directories(dir / "runs");
    fs::rename(run, dir / folder);
    const auto s = read_json(dir / folder / "summary.json");
    csv += mode + ",1," + s["status"].get<std::string>() + "," + s["status_reason"].get<std::string>() + "," +
           s["final_test_accuracy"].dump() + "," + s["sim_time_s"].dump() + "," + s["bytes_up"].dump() + ",," + folder +
           "\n";
    runs.push_back({{"id", std::to_string(id)},
                    {"folder", folder},
                    {"overrides", {{"training.mode", mode}, {"seed", 1}}},
                    {"hash", "h" + std::to_string(id)}});
    ++id;
  }
  // A third run failed before writing its results: its row has no figures and its folder no run.
  csv += "local-sgd,1,failed,exit status 1,,,,,runs/3\n";
  runs.push_back({{"id", "3"},
                  {"folder", "runs/3"},
                  {"overrides", {{"training.mode", "local-sgd"}, {"seed", 1}}},
                  {"hash", "h3"}});
  write_file(dir / "sweep.csv", csv);
  write_file(
      dir / "sweep.json",
      nlohmann::json{{"base", "quickstart.json"}, {"varied", {"training.mode", "seed"}}, {"runs", runs}}.dump(2));
  return dir;
}

inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// What makes a page self-contained: no attribute or style that would fetch anything.
inline void check_self_contained(const std::string& page) {
  const std::regex reference(R"re((?:src|href|xlink:href|action|poster)\s*=\s*"([^"]*)")re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), reference); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1];
    CAPTURE(target);
    CHECK((target.rfind("#", 0) == 0 || target.rfind("data:", 0) == 0));
  }
  for (const std::string fetching :
       {"<script", "<link", "<iframe", "<object", "<embed", "@import", "http://", "https://"}) {
    CAPTURE(fetching);
    if (fetching.rfind("http", 0) == 0) {
      // SVG and XML namespace names are identifiers, not fetched; nothing else may be an address.
      std::string rest = std::regex_replace(page, std::regex(R"re(xmlns(:\w+)?="[^"]*")re"), "");
      rest = std::regex_replace(rest, std::regex(R"re(<!DOCTYPE svg[^>]*>)re"), "");
      CHECK(rest.find(fetching) == std::string::npos);
    } else {
      CHECK(page.find(fetching) == std::string::npos);
    }
  }
  const std::regex url(R"re(url\(\s*([^)]*)\))re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), url); it != std::sregex_iterator(); ++it) {
    CHECK(std::string((*it)[1]).rfind("#", 0) == 0);
  }
}

}  // namespace test

// `edgetrain crosscheck SCENARIO.json [--out DIR] [--seed N] [--set key.path=value]... [--threads N]
// [--quiet]`: runs the scenario flow-level as `run` does, recording every transfer and what it
// waited for, then replays them under ns-3's packet-level TCP (src/packet), once per router queue of
// the spread (packet/tcp_settings.hpp), and writes
// crosscheck.csv and crosscheck.json beside the run's results. Five rounds unless --set
// stop.rounds says otherwise: a packet-level replay costs far more than the flow model.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/scenario_command.hpp"
#include "packet/crosscheck.hpp"
#include "packet/replay.hpp"

namespace edgetrain::cli {

namespace {

constexpr const char* kDefaultRounds = "stop.rounds=5";

bool sets_rounds(const std::vector<std::string>& sets) {
  for (const std::string& s : sets)
    if (s.rfind("stop.rounds=", 0) == 0) return true;
  return false;
}

}  // namespace

int crosscheck_command(const std::vector<std::string>& words) {
  ScenarioArgs args;
  if (const std::optional<int> status = read_scenario_args("crosscheck", words, args)) return *status;
  if (!sets_rounds(args.sets)) args.sets.insert(args.sets.begin(), kDefaultRounds);
  return with_scenario(args, [&](const scenario::Scenario& sc, const sim::RunOptions& run_options) {
    sim::RunOptions options = run_options;
    if (args.out_dir.empty()) options.out_dir = std::filesystem::path("results") / (sc.name + ".crosscheck");
    options.warn_replacing = false;
    std::string lines;
    options.crosscheck = [&](const packet::Workload& workload, int64_t local) {
      const packet::TcpSettings tcp;
      std::vector<packet::QueueReplay> replays;
      for (const packet::QueueConfig& queue : packet::queue_spread()) {
        packet::TcpSettings under = tcp;
        under.queue = queue;
        replays.push_back({queue, packet::replay(workload, under)});
      }
      const auto report = packet::crosscheck_report(workload, replays, tcp, local);
      lines = report.text;
      return std::map<std::string, std::string>{{"crosscheck.csv", report.csv}, {"crosscheck.json", report.json}};
    };
    const int status = sim::run_scenario(sc, options);
    std::printf("%s", lines.c_str());
    return status;
  });
}

}  // namespace edgetrain::cli

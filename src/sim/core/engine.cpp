#include "sim/core/engine.hpp"

#include <simgrid/s4u.hpp>

#include "sim/core/simgrid_flags.hpp"

namespace edgetrain::sim {

// SimGrid reads its --cfg/--log flags from argv. Defaults go first so the user's flags win:
// CM02 makes a transfer take exactly latency + size/bandwidth (docs/explanation/time-model.md), the Full
// network solver shares bandwidth correctly (3.32's default, Lazy, lets a link carry up to twice its
// capacity: capacity_check.hpp), and configuration chatter is silenced.
std::unique_ptr<simgrid::s4u::Engine> make_engine(const std::vector<std::string>& simgrid_args,
                                                  const platform::PlatformInfo& info, int stack_kib,
                                                  bool guard_pages) {
  static std::vector<std::string> args;  // argv must outlive the engine
  args = {"edgetrain", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0", "--cfg=network/optim:Full",
          "--log=xbt_cfg.thres:warning",
          // The host energy plugin warns for every host without wattage and logs every figure at the
          // end: edgetrain writes the figures (energy_meter.hpp).
          "--log=host_energy.thres:error"};
  if (stack_kib > 0) args.push_back("--cfg=contexts/stack-size:" + std::to_string(stack_kib));
  if (!guard_pages) args.push_back("--cfg=contexts/guard-size:0");
  std::vector<EngineFlag> flags;
  for (const std::string& a : simgrid_args) flags.push_back({a, a});
  for (const auto& [key, value] : info.config) {
    flags.push_back({"--cfg=" + key + ":" + value, "platform <config> property \"" + key + "\" = \"" + value + "\""});
  }
  check_engine_flags(args, flags);
  args.insert(args.end(), simgrid_args.begin(), simgrid_args.end());
  static std::vector<char*> argv;
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
}

}  // namespace edgetrain::sim

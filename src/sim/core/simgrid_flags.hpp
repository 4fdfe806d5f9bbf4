// SimGrid's own flags (--cfg=..., --log=..., and a platform file's <config> properties), checked
// before the run's Engine exists. SimGrid 3.32 answers a bad value with abort() (an unknown
// model, a malformed --log) or with an exception thrown out of the Engine's constructor (an
// unknown key, a value of the wrong type), neither of which can be turned into a clean message
// in the process itself. So a forked child builds an Engine from the same arguments first; if it
// dies, its first SimGrid error line becomes the PlatformError naming the flag.
#pragma once

#include <string>
#include <vector>

namespace edgetrain::sim {

struct EngineFlag {
  std::string arg;    // as SimGrid reads it: "--cfg=network/model:CM02"
  std::string shown;  // how the message names it: the flag, or "PLATFORM: <config> prop ..."
};

// `defaults` come first in argv (edgetrain's own defaults, known good); throws PlatformError
// "FLAG: SimGrid's message" for the first of `flags` SimGrid refuses.
void check_engine_flags(const std::vector<std::string>& defaults, const std::vector<EngineFlag>& flags);

}  // namespace edgetrain::sim

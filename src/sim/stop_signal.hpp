// SIGINT/SIGTERM during a run: the server stops at the next round boundary and the results
// so far are written with status "interrupted".
#pragma once

namespace edgetrain::sim {

void install_interrupt_handler();
bool interrupt_requested();

}  // namespace edgetrain::sim

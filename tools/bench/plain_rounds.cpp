// Benchmark baseline (tools/bench/run.sh, section 10): the obvious plain SimGrid program for the rounds a
// timing-only edgetrain run simulates. Each round the server sends the model to every device with
// put_async and waits for all; each device receives it, computes its update's FLOPs, and sends the
// update to the server's one mailbox, where the server has posted a receive for each (get_async); once all
// are in, the next round starts. The same
// network model as edgetrain's (CM02, no cross-traffic, the Full solver), nothing else: no ledgers, no
// accounting, no outputs. Prints the simulated end and the wall time of the simulation itself.
//
// Usage: bench_plain_rounds PLATFORM.xml SERVER ROUNDS MODEL_BYTES UPDATE_BYTES FLOPS [--cfg=...]
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Setup {
  int rounds = 0;
  double model_bytes = 0, update_bytes = 0, flops = 0;
};

// A device: forever, the next model in, its update's computation, its update out.
void device(const Setup& setup) {
  sg4::Mailbox* in = sg4::Mailbox::by_name(sg4::this_actor::get_host()->get_name());
  sg4::Mailbox* server = sg4::Mailbox::by_name("server");
  while (true) {
    in->get<int>();
    sg4::this_actor::execute(setup.flops);
    static int update = 0;
    server->put(&update, static_cast<uint64_t>(setup.update_bytes));
  }
}

void server(const Setup& setup, const std::vector<sg4::Host*>& devices) {
  sg4::Mailbox* in = sg4::Mailbox::by_name("server");
  static int token = 0;
  std::vector<int*> updates(devices.size());
  for (int r = 0; r < setup.rounds; ++r) {
    std::vector<sg4::CommPtr> sends;
    sends.reserve(devices.size());
    for (sg4::Host* d : devices)
      sends.push_back(sg4::Mailbox::by_name(d->get_name())->put_async(&token, static_cast<uint64_t>(setup.model_bytes)));
    sg4::Comm::wait_all(sends);
    std::vector<sg4::CommPtr> receives;
    receives.reserve(devices.size());
    for (size_t k = 0; k < devices.size(); ++k) receives.push_back(in->get_async<int>(&updates[k]));
    sg4::Comm::wait_all(receives);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args = {argv[0], "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                   "--cfg=network/optim:Full", "--log=xbt_cfg.thres:warning"};
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) (std::string(argv[i]).rfind("--", 0) == 0 ? args : positional).push_back(argv[i]);
  if (positional.size() != 6) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml SERVER ROUNDS MODEL_BYTES UPDATE_BYTES FLOPS [--cfg=...]\n", argv[0]);
    return 2;
  }
  std::vector<char*> engine_argv;
  for (auto& a : args) engine_argv.push_back(a.data());
  int engine_argc = static_cast<int>(engine_argv.size());
  sg4::Engine engine(&engine_argc, engine_argv.data());
  engine.load_platform(positional[0]);
  const Setup setup{std::atoi(positional[2].c_str()), std::atof(positional[3].c_str()),
                    std::atof(positional[4].c_str()), std::atof(positional[5].c_str())};
  sg4::Host* host = engine.host_by_name_or_null(positional[1]);
  if (!host) {
    std::fprintf(stderr, "no host %s in %s\n", positional[1].c_str(), positional[0].c_str());
    return 2;
  }
  std::vector<sg4::Host*> devices;
  for (sg4::Host* h : engine.get_all_hosts()) {
    if (h == host) continue;
    devices.push_back(h);
    sg4::Actor::create(h->get_name(), h, [&setup] { device(setup); })->daemonize();
  }
  sg4::Actor::create("server", host, [&setup, &devices] { server(setup, devices); });
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  std::printf("devices %zu rounds %d simulated %.6f s wall %.3f s\n", devices.size(), setup.rounds,
              sg4::Engine::get_clock(), wall.count());
  return 0;
}

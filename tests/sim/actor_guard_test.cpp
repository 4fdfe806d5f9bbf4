// The actor guard in its own SimGrid engine (this test case is its own process): an exception
// thrown inside an actor no longer aborts the process; it reaches the run with the actor's name,
// and every other actor is killed (its stack unwound), so engine.run() returns at once.
#include "sim/core/actor_guard.hpp"

#include <doctest/doctest.h>

#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <vector>

#include "cli_helpers.hpp"

namespace sg4 = simgrid::s4u;
using namespace edgetrain;

namespace {

struct Failures {
  std::vector<std::string> seen;  // "actor: message"
  void fail(const std::string& actor, std::exception_ptr e) { seen.push_back(actor + ": " + sim::error_message(e)); }
};

struct Unwound {  // counts the stacks unwound by the kill
  int* count;
  ~Unwound() { *count += 1; }
};

}  // namespace

TEST_CASE("an exception in an actor ends the simulation cleanly instead of aborting the process") {
  int argc = 1;
  char name[] = "actor_guard_test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  engine.load_platform((test::kData / "two-devices.xml").string());
  engine.seal_platform();
  sg4::Host* host = engine.host_by_name("server");
  Failures failures;
  int unwound = 0;
  sg4::Actor::create("receiver", host, sim::guarded(failures, [&] {
                       const Unwound guard{&unwound};
                       sg4::Mailbox::by_name("nobody-sends")->get<int>();  // blocked for ever
                     }));
  sg4::Actor::create("sleeper", host,
                     sim::guarded(failures,
                                  [&] {
                                    const Unwound guard{&unwound};
                                    sg4::this_actor::sleep_for(1e6);
                                  }))
      ->daemonize();
  sg4::Actor::create("thrower", host, sim::guarded(failures, [] {
                       sg4::this_actor::sleep_for(1.5);
                       throw std::runtime_error("boom");
                     }));
  sg4::Actor::create("late", host, sim::guarded(failures, [] {
                       sg4::this_actor::sleep_for(2);
                       throw 42;  // never reached: the first failure ended the simulation
                     }));
  engine.run();
  CHECK(sg4::Engine::get_clock() == doctest::Approx(1.5));
  CHECK(failures.seen == std::vector<std::string>{"thrower: boom"});
  CHECK(unwound == 2);
  CHECK(sim::error_message(std::make_exception_ptr(42)) == "an exception that is not a std::exception");
}

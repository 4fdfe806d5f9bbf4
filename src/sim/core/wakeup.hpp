// The one way an actor sleeps until another wakes it (couriers, inboxes, a topology's monitor), safe
// to kill. SimGrid 3.32 kills an actor by unwinding its stack with a ForcefulKillException; a
// simcall made during that unwinding (unlocking an s4u::Mutex from ~std::unique_lock, the usual
// condition-variable idiom) can raise it again inside the destructor, which is noexcept: the
// process ends in std::terminate ("Received a ForcefulKillException at the top-level exception
// handler", exit 134) and no results are written. It happens when the actor was woken (and handed
// the mutex) in the same instant as it was killed: a run that ends while a model is being posted.
// Here the mutex SimGrid's wait needs is locked and unlocked by hand, never by a destructor: a
// killed waiter leaves it locked, and nobody else locks it (notifying needs no lock; all actors
// run in one thread, the mutex guards nothing but SimGrid's own precondition).
#pragma once

#include <mutex>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

namespace edgetrain::sim {

class Wakeup {
 public:
  void notify_one() { changed_->notify_one(); }
  void notify_all() { changed_->notify_all(); }

  // Blocks the calling actor until `ready()` holds (checked before each wait).
  template <class Ready>
  void wait(Ready ready) {
    if (ready()) return;
    mutex_->lock();
    while (!ready()) changed_->wait(mutex_);
    mutex_->unlock();
  }
  // The same, giving up at simulated time `deadline`: false then (even if `ready()` became true in
  // that instant: the caller looks again), true when `ready()` holds before.
  template <class Ready>
  bool wait_until(double deadline, Ready ready) {
    if (ready()) return true;
    // SimGrid's timed wait takes a std::unique_lock but uses only its mutex: one that does not
    // own it (defer_lock) has nothing to unlock when a kill unwinds it.
    std::unique_lock<simgrid::s4u::Mutex> lock(*mutex_, std::defer_lock);
    mutex_->lock();
    bool done = false;
    while (!(done = ready()) && simgrid::s4u::Engine::get_clock() < deadline) {
      if (changed_->wait_until(lock, deadline) == std::cv_status::timeout) break;  // relocked by SimGrid
    }
    mutex_->unlock();
    return done;
  }

 private:
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
};

}  // namespace edgetrain::sim

// The pool that runs real training steps and evaluations while the simulation goes on. An actor
// submits a job when its simulated compute starts and waits for it when that compute ends;
// SimGrid keeps the simulated clock, so how many threads run the jobs changes wall time only.
// Jobs must be pure functions of what they are given (each owns its inputs and outputs), which
// keeps results byte-identical for any thread count. With one thread the jobs run on the
// waiting thread itself, when it waits (no hand-off at all); with more, on that many workers of
// their own, so that no job runs on the waiting thread (there, on an actor's stack: SimGrid
// actors can then keep small stacks). No LibTorch or SimGrid here.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace edgetrain::backend {

class WorkerPool {
 public:
  // A job gets the index of the worker that runs it, in [0, threads): the index of a workspace
  // it may use alone while it runs.
  using Job = std::function<void(size_t worker)>;
  class Ticket;

  explicit WorkerPool(size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  size_t threads() const { return threads_; }
  Ticket submit(Job job);
  // Blocks until the ticket's job ran (with one thread: runs the queued jobs up to it here, as
  // worker 0); rethrows what the job threw.
  void wait(Ticket& ticket);

  class Ticket {
   public:
    Ticket() = default;
    bool pending() const { return state_ != nullptr; }

   private:
    friend class WorkerPool;
    struct State {
      bool done = false;
      std::exception_ptr error;
    };
    std::shared_ptr<State> state_;
  };

 private:
  struct Queued {
    Job job;
    std::shared_ptr<Ticket::State> state;
  };
  void run(Queued& q, size_t worker);
  void worker_loop(size_t worker);

  size_t threads_;
  std::mutex mutex_;
  std::condition_variable work_, finished_;
  std::deque<Queued> queue_;
  bool closing_ = false;
  std::vector<std::thread> workers_;  // none with one thread: the waiting thread is worker 0
};

}  // namespace edgetrain::backend

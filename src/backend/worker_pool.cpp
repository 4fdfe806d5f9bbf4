// See worker_pool.hpp.
#include "backend/worker_pool.hpp"

#include <algorithm>

namespace edgetrain::backend {

WorkerPool::WorkerPool(size_t threads) : threads_(std::max<size_t>(1, threads)) {
  if (threads_ > 1)
    for (size_t w = 0; w < threads_; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_.notify_all();
  for (auto& t : workers_) t.join();
}

WorkerPool::Ticket WorkerPool::submit(Job job) {
  Ticket ticket;
  ticket.state_ = std::make_shared<Ticket::State>();
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back({std::move(job), ticket.state_});
  }
  work_.notify_one();
  return ticket;
}

void WorkerPool::run(Queued& q, size_t worker) {
  std::exception_ptr error;
  try {
    q.job(worker);
  } catch (...) {
    error = std::current_exception();
  }
  q.job = nullptr;  // what the job captured goes now, not when the ticket does
  {
    const std::lock_guard lock(mutex_);
    q.state->error = error;
    q.state->done = true;
  }
  finished_.notify_all();
}

void WorkerPool::worker_loop(size_t worker) {
  std::unique_lock lock(mutex_);
  while (true) {
    work_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, nothing left
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    run(q, worker);
    lock.lock();
  }
}

void WorkerPool::wait(Ticket& ticket) {
  if (!ticket.state_) return;
  std::unique_lock lock(mutex_);
  while (!ticket.state_->done) {
    if (workers_.empty() && !queue_.empty()) {
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      run(q, 0);
      lock.lock();
    } else {
      finished_.wait(lock);
    }
  }
  const std::exception_ptr error = ticket.state_->error;
  ticket.state_.reset();
  if (error) std::rethrow_exception(error);
}

}  // namespace edgetrain::backend

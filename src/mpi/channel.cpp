// See channel.hpp.
#include "mpi/channel.hpp"

#include <mpi.h>
#include <sched.h>
#include <sys/prctl.h>

#include <chrono>
#include <climits>
#include <iterator>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace edgetrain::mpi {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<size_t>(length)));
}

}  // namespace

void Backoff::idle() {
  if (++idle_ < 200) {
    sched_yield();
    return;
  }
  // Short sleeps, taken as asked: Linux's default timer slack (50 us) would make each one a sleep of 55 us or
  // more, which a reply then waits on at both ends of every step.
  static const bool exact = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  (void)exact;
  std::this_thread::sleep_for(std::chrono::microseconds(std::min(20, (idle_ - 199) / 10 + 1)));
}

struct Channel::Posted {
  std::vector<uint8_t> bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

void Channel::post(int rank, Tag tag, std::vector<uint8_t> bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) throw std::runtime_error("an MPI message over 2 GiB");
  const Clock::time_point start = Clock::now();
  reap();
  Posted& p = posted_.emplace_back();
  p.bytes = std::move(bytes);  // its buffer stays where it is until the request completes
  check(MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, rank, static_cast<int>(tag),
                  MPI_COMM_WORLD, &p.request),
        "MPI_Isend");
  stats_.send_s += since(start);
  stats_.messages_sent += 1;
  stats_.bytes_sent += static_cast<int64_t>(p.bytes.size());
}

Channel::Channel() = default;

Channel::~Channel() {
  try {
    flush();
  } catch (const std::exception&) {
    // A peer that is gone takes nothing more.
  }
}

void Channel::reap() {
  for (auto it = posted_.begin(); it != posted_.end();) {
    int done = 0;
    check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    it = done ? posted_.erase(it) : std::next(it);
  }
}

void Channel::flush() {
  const Clock::time_point start = Clock::now();
  Backoff backoff;
  for (reap(); !posted_.empty(); reap()) backoff.idle();
  stats_.send_s += since(start);
}

void Channel::send(int rank, Tag tag, const std::vector<uint8_t>& bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) throw std::runtime_error("an MPI message over 2 GiB");
  const Clock::time_point start = Clock::now();
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, rank, static_cast<int>(tag), MPI_COMM_WORLD),
        "MPI_Send");
  stats_.send_s += since(start);
  stats_.messages_sent += 1;
  stats_.bytes_sent += static_cast<int64_t>(bytes.size());
}

std::optional<std::vector<uint8_t>> Channel::poll(int rank, Tag tag) {
  if (!posted_.empty()) reap();
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(rank, static_cast<int>(tag), MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<uint8_t> bytes(static_cast<size_t>(count));
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, rank, static_cast<int>(tag), MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  stats_.messages_received += 1;
  stats_.bytes_received += count;
  return bytes;
}

std::vector<uint8_t> Channel::receive(int rank, Tag tag) {
  const Clock::time_point start = Clock::now();
  Backoff backoff;
  for (;;) {
    if (std::optional<std::vector<uint8_t>> bytes = poll(rank, tag)) {
      stats_.receive_s += since(start);
      return std::move(*bytes);
    }
    backoff.idle();
  }
}

std::string Channel::stats_json(int ranks, const std::vector<double>& memory_estimates) const {
  const TransferStats& s = stats_;
  // What rank 0 spent in MPI beyond the workers' own waits for their steps.
  const double overhead_s = std::max(0.0, s.send_s + s.receive_s - s.worker_busy_s);
  char text[640];
  std::snprintf(text, sizeof text,
                "{\"ranks\": %d, \"steps\": %ld, \"messages_sent\": %ld, \"messages_received\": %ld, "
                "\"bytes_sent\": %ld, \"bytes_received\": %ld, \"send_s\": %.6f, \"receive_s\": %.6f, "
                "\"worker_busy_s\": %.6f, \"overhead_s\": %.6f, \"overhead_per_step_s\": %.9f, "
                "\"memory_estimate_bytes\": [",
                ranks, s.steps, s.messages_sent, s.messages_received, s.bytes_sent, s.bytes_received, s.send_s,
                s.receive_s, s.worker_busy_s, overhead_s, s.steps > 0 ? overhead_s / static_cast<double>(s.steps) : 0.0);
  std::string json = text;
  for (size_t k = 0; k < memory_estimates.size(); ++k)
    json += (k ? ", " : "") + std::to_string(static_cast<int64_t>(memory_estimates[k]));
  return json + "]}\n";
}

}  // namespace edgetrain::mpi

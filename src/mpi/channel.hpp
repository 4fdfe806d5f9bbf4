// Point-to-point messages between rank 0 and the learning workers (MPI_COMM_WORLD, bytes), and what
// they cost rank 0. A wait polls (MPI_Iprobe) and backs off to short sleeps instead of Open MPI's
// busy wait, so that a waiting rank leaves the cores to the ranks that train (ranks share cores under
// --oversubscribe). Only the thread that made the Session calls these.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

namespace edgetrain::mpi {

enum class Tag : int { command = 1, reply = 2 };

// Wall time and bytes in this process's sends and receives. `worker_busy_s` is what the workers said
// they spent waiting for the steps' jobs while rank 0 waited for their replies: training, not transfer.
struct TransferStats {
  int64_t messages_sent = 0, messages_received = 0, bytes_sent = 0, bytes_received = 0;
  double send_s = 0, receive_s = 0, worker_busy_s = 0;
  int64_t steps = 0;  // steps started on the workers
};

class Channel {
 public:
  Channel();
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  void send(int rank, Tag tag, const std::vector<uint8_t>& bytes);
  // Sends without waiting for the peer to take the message (MPI_Isend; the channel keeps the bytes until it
  // has): rank 0's commands, so that it simulates on while a worker is busy. Messages to one rank keep
  // their order, posted or sent.
  void post(int rank, Tag tag, std::vector<uint8_t> bytes);
  // Waits until every posted message was taken.
  void flush();
  // Waits for the next message with `tag` from `rank`.
  std::vector<uint8_t> receive(int rank, Tag tag);
  // The next message with `tag` from `rank` if one has arrived; nothing otherwise (does not wait).
  std::optional<std::vector<uint8_t>> poll(int rank, Tag tag);
  TransferStats& stats() { return stats_; }
  // The stats as a JSON object (bench/mpi reads it), with the transfer overhead per step and each rank's memory
  // estimate, rank 0 first.
  std::string stats_json(int ranks, const std::vector<double>& memory_estimates) const;

 private:
  void reap();  // forgets the posted messages that were taken

  struct Posted;
  std::list<Posted> posted_;
  TransferStats stats_;
};

// Sleeps a little longer each time it is called without progress (a spin of yields first): a wait
// that costs a waiting rank almost no CPU and answers within ~0.2 ms.
class Backoff {
 public:
  void idle();
  void reset() { idle_ = 0; }

 private:
  int idle_ = 0;
};

}  // namespace edgetrain::mpi

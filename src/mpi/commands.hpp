// What rank 0 asks a learning worker, one byte at the head of each command message (Tag::command), and
// what the worker answers (Tag::reply: a status byte, then the answer or the error's text). The worker
// answers build and the finishing commands only; a command's device index follows its byte.
#pragma once

#include <cstdint>

namespace edgetrain::mpi {

enum class Command : uint8_t {
  build = 1,      // set up the learning side (scenario from this rank's own command line); reply
  receive,        // device, model (snapshot by id or values, delta, version, control)
  start_step,     // device, batch's sample ids; no reply: the step runs while rank 0 simulates
  finish_step,    // device; reply: busy seconds, loss
  finish_update,  // device; reply: busy seconds, the update, compressed updates, secure input
  // device; the update's last step: the protocol asks for the update right after it, with no simulated time
  // between (device_actor.cpp), so one round trip brings both. Reply: busy seconds, loss, then finish_update's.
  finish_last_step,
  abandon,        // device; no reply
  quit,           // rank 0 ends: the worker returns
};

enum class Status : uint8_t { ok = 0, error = 1 };

// How a snapshot travels in a receive command.
enum class Snapshot : uint8_t { none = 0, cached = 1, values = 2 };

// Snapshots a worker keeps (per worker rank): the model and, with SCAFFOLD, its control variate of the
// current version, plus older versions an asynchronous run's devices still start from.
inline constexpr size_t kSnapshotsPerRank = 4;

}  // namespace edgetrain::mpi

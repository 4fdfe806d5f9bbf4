// See worker.hpp.
#include "mpi/worker.hpp"

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "mpi/channel.hpp"
#include "mpi/commands.hpp"
#include "mpi/snapshot_lru.hpp"
#include "mpi/wire.hpp"

namespace edgetrain::mpi {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The error's first line: LibTorch's errors carry their C++ backtrace below it, and rank 0 reports one line.
std::vector<uint8_t> error_reply(const std::string& message) {
  Writer w;
  w.put(Status::error);
  w.put_string(message.substr(0, message.find('\n')));
  return std::move(w.bytes());
}

// What a worker knows of one device between rank 0's commands.
struct DeviceState {
  std::optional<std::string> error;  // a receive or a step that failed: the answer to the next question
  bool started = false;              // a step started and not yet waited for
  std::optional<double> loss;        // its loss, when it was waited for while idle
  double busy_s = 0;                 // time spent waiting for its steps since the last reply
};

// Rank 0's commands run on the devices of `learning`. With one thread the pool runs a job only when it
// is waited for, so the worker waits for its started steps itself whenever no command is pending: the
// steps then run while rank 0 simulates, as they do on a pool of their own.
class Server {
 public:
  Server(backend::Backend& learning, Channel& channel, bool run_steps_when_idle)
      : learning_(learning), channel_(channel), run_when_idle_(run_steps_when_idle) {}

  void run() {
    Backoff backoff;
    for (;;) {
      if (std::optional<std::vector<uint8_t>> message = channel_.poll(0, Tag::command)) {
        backoff.reset();
        if (!handle(*message)) return;
      } else if (run_when_idle_ && run_one_started()) {
        backoff.reset();
      } else {
        backoff.idle();
      }
    }
  }

 private:
  // False on quit.
  bool handle(const std::vector<uint8_t>& message) {
    Reader r(message);
    const auto command = r.get<Command>();
    if (command == Command::quit) return false;
    if (command == Command::build) return true;  // built already
    const auto device = static_cast<size_t>(r.get<uint64_t>());
    DeviceState& state = states_[device];
    switch (command) {
      case Command::receive: receive(r, device, state); break;
      case Command::start_step: start_step(r, device, state); break;
      case Command::finish_step: channel_.send(0, Tag::reply, finish_step(device, state)); break;
      case Command::finish_update: channel_.send(0, Tag::reply, finish_update(device, state, false)); break;
      case Command::finish_last_step: channel_.send(0, Tag::reply, finish_update(device, state, true)); break;
      case Command::abandon:
        learning_.device(device).abandon();
        state = DeviceState{};
        break;
      default: throw WireError("unknown command " + std::to_string(static_cast<int>(command)));
    }
    return true;
  }

  // The snapshot as rank 0 sent it; the LRU sees the same calls as rank 0's mirror, whatever fails.
  std::shared_ptr<const std::vector<float>> snapshot(Reader& r) {
    const auto how = r.get<Snapshot>();
    if (how == Snapshot::none) return nullptr;
    const auto id = r.get<uint64_t>();
    if (how == Snapshot::values) {
      auto values = std::make_shared<const std::vector<float>>(r.get_vector<float>());
      held_.insert(id, values);
      return values;
    }
    if (auto* held = held_.find(id)) return held->second;
    throw WireError("snapshot " + std::to_string(id) + " is not held by this worker");
  }

  void receive(Reader& r, size_t device, DeviceState& state) {
    try {
      backend::ModelPayload model;
      model.params = snapshot(r);
      if (r.get<uint8_t>()) model.delta = r.get_vector<uint8_t>();
      model.bytes = r.get<int64_t>();
      model.version = r.get<int64_t>();
      model.control = snapshot(r);
      learning_.device(device).receive(model);
    } catch (const std::exception& e) {
      state.error = e.what();
    }
  }

  void start_step(Reader& r, size_t device, DeviceState& state) {
    if (state.error) return;
    try {
      learning_.device(device).start_step(r.get_vector<int64_t>());
      state.started = true;
      started_.push_back(device);
    } catch (const std::exception& e) {
      state.error = e.what();
    }
  }

  // Waits for the oldest started step; false when none is left.
  bool run_one_started() {
    while (!started_.empty()) {
      const size_t device = started_.front();
      started_.pop_front();
      DeviceState& state = states_[device];
      if (!state.started) continue;
      wait_for_step(device, state);
      return true;
    }
    return false;
  }

  void wait_for_step(size_t device, DeviceState& state) {
    const Clock::time_point start = Clock::now();
    try {
      state.loss = learning_.device(device).finish_step();
    } catch (const std::exception& e) {
      state.error = e.what();
    }
    state.busy_s += since(start);
    state.started = false;
  }

  std::vector<uint8_t> finish_step(size_t device, DeviceState& state) {
    if (state.started) wait_for_step(device, state);
    if (state.error) return error_reply(*std::exchange(state.error, std::nullopt));
    Writer w;
    w.put(Status::ok);
    w.put<double>(std::exchange(state.busy_s, 0.0));
    w.put<double>(state.loss.value_or(0.0));
    state.loss.reset();
    return std::move(w.bytes());
  }

  // The update's answer; with the step's loss first when `with_loss` (finish_last_step: finish_step's answer
  // and finish_update's in one).
  std::vector<uint8_t> finish_update(size_t device, DeviceState& state, bool with_loss) {
    if (state.started) wait_for_step(device, state);
    if (state.error) return error_reply(*std::exchange(state.error, std::nullopt));
    const Clock::time_point start = Clock::now();
    try {
      Writer update;
      write_finished_update(update, device);
      Writer w;
      w.put(Status::ok);
      w.put<double>(std::exchange(state.busy_s, 0.0) + since(start));
      if (with_loss) w.put<double>(state.loss.value_or(0.0));
      append(w, update);
      state.loss.reset();
      return std::move(w.bytes());
    } catch (const std::exception& e) {
      return error_reply(e.what());
    }
  }

  // The device's finished update, its count of compressed updates and its secure-aggregation input.
  void write_finished_update(Writer& w, size_t device) {
    backend::DeviceLearner& learner = learning_.device(device);
    const backend::UpdatePayload update = learner.finish_update();
    write_update(w, update);
    w.put<int64_t>(learner.compressed_updates());
    w.put_vector<float>(learner.secure_input());
  }

  static void append(Writer& w, Writer& tail) {
    std::vector<uint8_t>& to = w.bytes();
    to.insert(to.end(), tail.bytes().begin(), tail.bytes().end());
  }

  backend::Backend& learning_;
  Channel& channel_;
  bool run_when_idle_;
  std::map<size_t, DeviceState> states_;
  std::deque<size_t> started_;  // devices whose steps started, oldest first
  SnapshotLru<std::shared_ptr<const std::vector<float>>> held_{kSnapshotsPerRank};
};

// Waits for quit, answering nothing else (after a failed build).
void wait_for_quit(Channel& channel) {
  for (;;) {
    const std::vector<uint8_t> message = channel.receive(0, Tag::command);
    if (!message.empty() && Reader(message).get<Command>() == Command::quit) return;
  }
}

}  // namespace

void run_worker(const std::function<WorkerSetup()>& build) {
  Channel channel;
  const std::vector<uint8_t> first = channel.receive(0, Tag::command);
  if (first.empty() || Reader(first).get<Command>() != Command::build) return;  // quit before any training
  WorkerSetup setup;
  try {
    setup = build();
  } catch (const std::exception& e) {
    channel.send(0, Tag::reply, error_reply(e.what()));
    wait_for_quit(channel);
    return;
  }
  Writer ready;
  ready.put(Status::ok);
  ready.put(setup.learning->memory.total());  // rank 0 reports it beside the others (EDGETRAIN_MPI_STATS)
  channel.send(0, Tag::reply, ready.bytes());
  Server(*setup.learning->backend, channel, setup.threads == 1).run();
}

}  // namespace edgetrain::mpi

// See remote_learner.hpp.
#include "mpi/remote_learner.hpp"

#include "mpi/wire.hpp"

namespace edgetrain::mpi {

namespace {

// A snapshot by id when the worker holds it, else its values under a new id (both sides then hold it).
void put_snapshot(Writer& w, WorkerLink& link, const std::shared_ptr<const std::vector<float>>& snapshot) {
  if (!snapshot) {
    w.put(Snapshot::none);
    return;
  }
  if (auto* held = link.held.find_if([&](const auto& s) { return s == snapshot; })) {
    w.put(Snapshot::cached);
    w.put<uint64_t>(held->first);
    return;
  }
  const uint64_t id = link.next_id++;
  link.held.insert(id, snapshot);
  w.put(Snapshot::values);
  w.put<uint64_t>(id);
  w.put_vector<float>(*snapshot);
}

}  // namespace

RemoteLearner::RemoteLearner(size_t device, std::string name, WorkerLink& link, Channel& channel,
                             int64_t compressed_updates, int64_t steps_per_update)
    : device_(device),
      name_(std::move(name)),
      link_(link),
      channel_(channel),
      compressed_updates_(compressed_updates),
      steps_per_update_(steps_per_update) {}

Writer RemoteLearner::command(Command c) const {
  Writer w;
  w.put(c);
  w.put<uint64_t>(device_);
  return w;
}

void RemoteLearner::receive(const backend::ModelPayload& model) {
  Writer w = command(Command::receive);
  put_snapshot(w, link_, model.params);
  w.put<uint8_t>(model.delta.has_value());
  if (model.delta) w.put_vector<uint8_t>(*model.delta);
  w.put<int64_t>(model.bytes);
  w.put<int64_t>(model.version);
  put_snapshot(w, link_, model.control);
  channel_.post(link_.rank, Tag::command, std::move(w.bytes()));
  steps_finished_ = 0;
  ready_.reset();
}

void RemoteLearner::start_step(std::vector<int64_t> batch) {
  Writer w = command(Command::start_step);
  w.put_vector<int64_t>(batch);
  channel_.post(link_.rank, Tag::command, std::move(w.bytes()));
  channel_.stats().steps += 1;
}

std::vector<uint8_t> RemoteLearner::await_reply() {
  std::vector<uint8_t> reply = channel_.receive(link_.rank, Tag::reply);
  Reader r(reply);
  const auto status = r.get<Status>();
  if (status != Status::ok) {
    throw WorkerError("learning worker (MPI rank " + std::to_string(link_.rank) + ") failed on device " + name_ +
                      ": " + r.get_string());
  }
  channel_.stats().worker_busy_s += r.get<double>();
  return reply;
}

double RemoteLearner::finish_step() {
  const bool last = ++steps_finished_ == steps_per_update_;
  channel_.post(link_.rank, Tag::command, command(last ? Command::finish_last_step : Command::finish_step).bytes());
  const std::vector<uint8_t> reply = await_reply();
  Reader r(reply);
  r.get<Status>();
  r.get<double>();
  const auto loss = r.get<double>();
  if (last) ready_ = read_update_reply(r);
  return loss;
}

backend::UpdatePayload RemoteLearner::read_update_reply(Reader& r) {
  backend::UpdatePayload update = read_update(r);
  compressed_updates_ = r.get<int64_t>();
  secure_input_ = r.get_vector<float>();
  return update;
}

backend::UpdatePayload RemoteLearner::finish_update() {
  steps_finished_ = 0;
  if (ready_) {
    backend::UpdatePayload update = std::move(*ready_);
    ready_.reset();
    return update;
  }
  channel_.post(link_.rank, Tag::command, command(Command::finish_update).bytes());
  const std::vector<uint8_t> reply = await_reply();
  Reader r(reply);
  r.get<Status>();
  r.get<double>();
  return read_update_reply(r);
}

void RemoteLearner::abandon() {
  steps_finished_ = 0;
  ready_.reset();
  channel_.post(link_.rank, Tag::command, command(Command::abandon).bytes());
}

}  // namespace edgetrain::mpi

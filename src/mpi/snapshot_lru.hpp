// The model snapshots a worker rank keeps, by id, least recently used first out. Rank 0 keeps the same
// structure for each worker rank, over the snapshots it sent there, and makes the same calls in the same
// order as the worker: both hold the same ids, so rank 0 sends a snapshot's values only when the
// worker does not have them (once per rank per snapshot while it stays among the last `capacity` used).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <utility>

namespace edgetrain::mpi {

template <class Value>
class SnapshotLru {
 public:
  explicit SnapshotLru(size_t capacity) : capacity_(capacity) {}

  // The entry whose value satisfies `match`, made the most recently used; null when none does.
  template <class Match>
  std::pair<uint64_t, Value>* find_if(Match match) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (!match(it->second)) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return &entries_.front();
    }
    return nullptr;
  }
  std::pair<uint64_t, Value>* find(uint64_t id) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != id) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return &entries_.front();
    }
    return nullptr;
  }
  // Adds `value` as the most recently used, dropping the least recently used beyond the capacity.
  void insert(uint64_t id, Value value) {
    entries_.emplace_front(id, std::move(value));
    if (entries_.size() > capacity_) entries_.pop_back();
  }
  size_t size() const { return entries_.size(); }

 private:
  size_t capacity_;
  std::list<std::pair<uint64_t, Value>> entries_;  // most recently used first
};

}  // namespace edgetrain::mpi

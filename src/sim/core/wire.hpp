// Sizes of what crosses the simulated network. Every message is a SimGrid communication of
// exactly these many bytes: the payload's real encoded length plus one fixed header.
#pragma once

#include <cstdint>

namespace edgetrain::sim {

// Fixed per-message header (docs/explanation/time-model.md): message type, round/update counter,
// device id, sample count and payload length, padded to a round 64 bytes (about what a
// small gRPC/HTTP2 frame header plus protobuf framing costs).
inline constexpr int64_t kHeaderBytes = 64;

// A sample shared for data injection travels as its raw bytes plus a 4-byte label.
inline constexpr int64_t kInjectedLabelBytes = 4;

constexpr int64_t message_bytes(int64_t payload_bytes) { return kHeaderBytes + payload_bytes; }

}  // namespace edgetrain::sim

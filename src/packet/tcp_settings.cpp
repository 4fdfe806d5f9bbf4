#include "packet/tcp_settings.hpp"

namespace edgetrain::packet {

std::string QueueConfig::name() const {
  switch (kind) {
    case Kind::drop_tail:
      return "drop-tail " + std::to_string(packets) + " packets";
    case Kind::bdp:
      return "drop-tail one BDP";
    case Kind::fq_codel:
      return "fq_codel";
  }
  return {};
}

std::vector<QueueConfig> queue_spread() {
  return {{QueueConfig::Kind::drop_tail, 100},
          {QueueConfig::Kind::drop_tail, 1000},
          {QueueConfig::Kind::bdp, 0},
          {QueueConfig::Kind::fq_codel, 0}};
}

}  // namespace edgetrain::packet

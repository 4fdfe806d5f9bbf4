// Hierarchical aggregation (topology.kind hierarchical; HierFAVG, Liu et al., ICC 2020): devices
// send to their site's aggregator, an actor on the site's host with an inbox and a model store of
// its own; the server is the cloud and aggregates the sites.
//
// Each cloud round (a round of the run: stop.rounds, a row of rounds.csv) the cloud sends its dense
// model to every site that is not still busy with an earlier round (a courier per site: a real
// transfer over the site's uplink). A site adopts it, runs topology.site_rounds synchronous rounds
// with its members (exactly a flat server's rounds: sync_rounds.hpp, selection per site), and sends
// the cloud its delta d_s = adopted - current, encoded with topology.site_compression, weighted by
// w_s = the samples the site aggregated since it adopted. The cloud takes the deltas as they come
// and, once every site reported (or at training.round_timeout_s), is charged params x (n + 2) FLOPs
// (the weighted sum of n deltas, the scaling, the step) and applies x <- x - sum w_s d_s / sum w_s,
// plainly: momentum, weight decay and learning rates were applied at the sites. A delta of an
// earlier cloud round arrives late and is counted, not applied. With topology.cloud_aggregation
// async the cloud instead applies each delta on arrival, x <- x - (m_s / M) d_s (the site's share of
// the devices), and sends that site the new model at once.
#pragma once

#include "sim/topology/topology.hpp"

namespace edgetrain::sim {

// FLOPs the cloud is charged to apply n site deltas.
inline double cloud_apply_flops(int64_t params, int64_t deltas) {
  return static_cast<double>(params) * static_cast<double>(deltas + 2);
}

}  // namespace edgetrain::sim

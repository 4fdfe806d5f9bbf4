// Linux's retransmission timeout on ns-3's estimator. Linux sets RTO = srtt + rttvar with rttvar never
// below TCP_RTO_MIN (tcp_rtt_estimator), so a timeout always waits at least 200 ms beyond the smoothed
// round trip; ns-3 takes max(srtt + 4 x variation, MinRto), which under a growing queue fires before
// the acknowledgement can come back and retransmits spuriously, segment after segment.
#pragma once

#include <ns3/nstime.h>
#include <ns3/rtt-estimator.h>

namespace edgetrain::packet {

class LinuxRttEstimator : public ns3::RttMeanDeviation {
 public:
  static ns3::TypeId GetTypeId();
  ns3::TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  void Measurement(ns3::Time sample) override;
  ns3::Ptr<ns3::RttEstimator> Copy() const override;

 private:
  ns3::Time min_variation_;  // a quarter of TCP_RTO_MIN: ns-3 adds four variations to srtt
};

}  // namespace edgetrain::packet

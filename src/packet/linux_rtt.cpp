#include "packet/linux_rtt.hpp"

#include <ns3/core-module.h>

namespace edgetrain::packet {

NS_OBJECT_ENSURE_REGISTERED(LinuxRttEstimator);

ns3::TypeId LinuxRttEstimator::GetTypeId() {
  static ns3::TypeId tid = ns3::TypeId("edgetrain::LinuxRttEstimator")
                               .SetParent<ns3::RttMeanDeviation>()
                               .SetGroupName("Internet")
                               .AddConstructor<LinuxRttEstimator>()
                               .AddAttribute("MinRto", "Linux's TCP_RTO_MIN: the least a timeout waits beyond srtt",
                                             ns3::TimeValue(ns3::MilliSeconds(200)),
                                             ns3::MakeTimeAccessor(&LinuxRttEstimator::min_variation_),
                                             ns3::MakeTimeChecker());
  return tid;
}

void LinuxRttEstimator::Measurement(ns3::Time sample) {
  ns3::RttMeanDeviation::Measurement(sample);
  m_estimatedVariation = ns3::Max(m_estimatedVariation, min_variation_ / 4);
}

ns3::Ptr<ns3::RttEstimator> LinuxRttEstimator::Copy() const { return ns3::CopyObject<LinuxRttEstimator>(this); }

}  // namespace edgetrain::packet

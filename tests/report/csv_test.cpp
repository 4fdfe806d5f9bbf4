// CSV formatting and the result tables.
#include "report/csv.hpp"

#include <doctest/doctest.h>

#include "report/run_record.hpp"

using namespace edgetrain::report;

TEST_CASE("numbers use the shortest form that reads back exactly") {
  CHECK(format_number(0.1) == "0.1");
  CHECK(format_number(12.0) == "12");
  CHECK(format_number(1.0 / 3) == "0.3333333333333333");
  CHECK(std::stod(format_number(1.0 / 3)) == 1.0 / 3);
  CHECK(format_number(std::nan("")) == "nan");
}

TEST_CASE("cells with commas or quotes are quoted and widths are checked") {
  CsvTable t({"a", "b"});
  t.row().add("x,y").add(int64_t{3});
  t.row().add("say \"hi\"").add(0.5);
  CHECK(t.str() == "a,b\n\"x,y\",3\n\"say \"\"hi\"\"\",0.5\n");
  t.row().add("short");
  CHECK_THROWS_AS(t.str(), std::logic_error);
}

TEST_CASE("metrics.csv and devices.csv carry units in their headers") {
  CHECK(metrics_csv({}) == "sim_time_s,round,test_accuracy,test_loss,bytes_up,bytes_down,devices_energy_j,energy_j\n");
  DeviceRecord d;
  d.device = "pi-1";
  d.host = "pi-1";
  d.host_speed_flops = 3e9;
  d.batch_size = 32;
  d.device_class = "pi";
  d.wait_s = 2;
  const std::string csv = devices_csv({d});
  CHECK(csv.rfind(
            "device,host,class,host_speed_flops,batch_size,steps,rounds_selected,rounds_aggregated,partition_samples,"
            "samples_trained,"
            "compute_s,wait_s,data_wait_s,unselected_s,"
            "comm_s,bound,bytes_up,bytes_down,bytes_up_uncompressed,compression_ratio,cnc_ratio,stream_rate_samples_"
            "per_s,"
            "samples_arrived,samples_dropped,buffer_peak_samples,"
            "buffer_final_samples,sample_age_mean_s,sample_age_max_s,samples_injected_sent,"
            "samples_injected_received,stale_drops,offline_s,restarts,failed_pushes,late_pushes,"
            "samples_lost_in_faults,samples_lost_offline,samples_held_at_end,model_memory_bytes,buffer_peak_bytes,"
            "energy_j\n",
            0) == 0);
  // A device without a stream leaves the stream columns empty.
  CHECK(csv.find("pi-1,pi-1,pi,3000000000,32,0,0,0,0,0,0,2,0,0,0,wait,0,0,0,1,,,,,,,,,0,0,0,0,0,0,0,0,,0,0,0,\n") !=
        std::string::npos);
}

TEST_CASE("a device is bound by the largest of compute, communication, data wait and other wait") {
  DeviceRecord d;
  d.compute_s = 1;
  d.comm_s = 3;
  d.wait_s = 2;
  CHECK(std::string(device_bound(d)) == "communication");
  d.stream = StreamRecord{};
  d.stream->data_wait_s = 1.5;  // of the 2 s of waiting: 1.5 s for data, 0.5 s for the others
  d.comm_s = 1;
  CHECK(std::string(device_bound(d)) == "data");
  d.compute_s = 1.5;  // a tie: the first listed (compute) wins
  CHECK(std::string(device_bound(d)) == "compute");
  d.wait_s = 9;
  CHECK(std::string(device_bound(d)) == "wait");
}

TEST_CASE("a device is not bound by its time out of the rounds, and one that took no part is bound by none") {
  // Selected in one round of ten: 1 s down and up, 2 s of compute, 1 s waiting for the round's
  // slowest, 36 s out of the rounds (wait_s holds both waits).
  DeviceRecord d;
  d.comm_s = 1;
  d.compute_s = 2;
  d.wait_s = 37;
  CHECK(std::string(device_bound(d)) == "wait");
  d.unselected_s = 36;
  CHECK(std::string(device_bound(d)) == "compute");
  // Never selected: the whole run out of the rounds.
  DeviceRecord idle;
  idle.wait_s = 40;
  idle.unselected_s = 40;
  CHECK(std::string(device_bound(idle)) == "none");
  // Switched off the whole run: nothing bounded it either.
  DeviceRecord off;
  off.offline_s = 40;
  CHECK(std::string(device_bound(off)) == "none");
  // unselected_s is a part of wait_s: never more than the waiting left after the data wait.
  DeviceRecord streaming;
  streaming.comm_s = 1;
  streaming.wait_s = 5;
  streaming.unselected_s = 5;
  streaming.stream = StreamRecord{};
  streaming.stream->data_wait_s = 3;
  CHECK(std::string(device_bound(streaming)) == "data");
}

TEST_CASE("stream columns: mean sample age is per trained sample") {
  DeviceRecord d;
  d.device = d.host = "x";
  d.samples_trained = 4;
  d.stream = StreamRecord{};
  d.stream->rate_samples_per_s = 2.5;
  d.stream->samples_arrived = 10;
  d.stream->age_sum_s = 6;
  d.stream->sample_age_max_s = 3;
  d.stream->samples_lost_offline = 7;
  const std::string csv = devices_csv({d});
  CHECK(csv.find(",2.5,10,0,0,0,1.5,3,0,0,0,0,0,0,0,0,7,0,0,0,\n") != std::string::npos);
}

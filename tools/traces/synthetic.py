#!/usr/bin/python3
"""Synthetic device traces with the schema of edgetrain's trace CSVs (docs/how-to/device-traces.md),
seeded: the same arguments give the same bytes.

  capacity rows `device,compute_ms_per_sample,bandwidth_kbps`:
    compute_ms_per_sample  log-normal, median 162 ms, sigma 0.8 (ln), clipped to [5, 5000]
    bandwidth_kbps         log-normal, median 5648 kbit/s, sigma 1.2 (ln), clipped to [50, 500000]
  availability rows `device,start_s,end_s` over one period of 518,400 s (6 days; --period-s sets
  another, the same windows in proportion), repeated up to --horizon-s: per device 1 to 15 on windows (uniform), together on for a share of the period drawn
  uniform in [0.05, 0.8], the windows' lengths and the gaps between them split at random.

The medians, the period and the order of magnitude of the windows are those of the client records
FedScale's client code quotes as examples of its traces (computation 162.0 ms, communication 5648.1
kbit/s; finish_time 518,400 s with 8 on windows, 211,625 s on in all); the spreads are our assumption,
not fitted to FedScale's full traces (see the how-to page). `--pickles DIR` also writes the same
traces as FedScale's two pickles (plain dicts), which tools/traces/fedscale_to_csv.py converts back.
"""
import argparse
import math
import os
import pickle
import random
import sys

PERIOD_S = 518400.0


def lognormal(rng, median, sigma, lo, hi):
    return min(hi, max(lo, median * math.exp(rng.gauss(0.0, sigma))))


def capacity(n, seed):
    rng = random.Random(f"capacity-{seed}")
    out = {}
    for i in range(n):
        out[i + 1] = {
            "computation": round(lognormal(rng, 162.0, 0.8, 5.0, 5000.0), 3),
            "communication": round(lognormal(rng, 5648.1, 1.2, 50.0, 500000.0), 3),
        }
    return out


def behaviour(n, seed, period_s=PERIOD_S):
    rng = random.Random(f"behaviour-{seed}")
    out = {}
    for i in range(n):
        windows = rng.randint(1, 15)
        on_total = rng.uniform(0.05, 0.8) * period_s
        off_total = period_s - on_total
        on_cuts = sorted(rng.uniform(0, on_total) for _ in range(windows - 1))
        on_lengths = [b - a for a, b in zip([0.0] + on_cuts, on_cuts + [on_total])]
        off_cuts = sorted(rng.uniform(0, off_total) for _ in range(windows))
        gaps = [b - a for a, b in zip([0.0] + off_cuts, off_cuts + [off_total])]  # windows + 1 gaps
        active, inactive, t = [], [], 0.0
        for k in range(windows):
            t += gaps[k]
            start = round(t)
            t += on_lengths[k]
            end = round(t)
            if end > start:
                active.append(start)
                inactive.append(end)
        out[i + 1] = {"active": active, "inactive": inactive, "finish_time": int(period_s),
                      "duration": sum(b - a for a, b in zip(active, inactive))}
    return out


def main(argv=None):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fedscale_to_csv import (MAX_OUTPUT_BYTES, MAX_TIME_S, availability_plans, capacity_rows,  # noqa: E402
                                 iter_availability_rows, printable, write_csv)

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--devices", type=int, required=True, help="devices in each trace (1 to 1,000,000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--capacity-out", default="capacity.csv")
    p.add_argument("--availability-out", default="availability.csv")
    p.add_argument("--period-s", type=float, default=PERIOD_S, help="the availability period (default 518,400 s)")
    p.add_argument("--horizon-s", type=float, help="repeat the period up to this time (default: one period)")
    p.add_argument("--pickles", help="also write client_device_capacity and client_behave_trace into this folder")
    args = p.parse_args(argv)
    if not 1 <= args.devices <= 1_000_000:
        p.error("--devices must be 1 to 1,000,000")
    if not 10 <= args.period_s <= MAX_TIME_S:  # also refuses nan and inf
        p.error(f"--period-s must be at least 10 and at most {MAX_TIME_S:g}")
    if args.horizon_s is not None and not 0 < args.horizon_s <= MAX_TIME_S:
        p.error(f"--horizon-s must be > 0 and at most {MAX_TIME_S:g} (the longest time edgetrain simulates)")
    cap, beh = capacity(args.devices, args.seed), behaviour(args.devices, args.seed, args.period_s)
    try:
        write_csv(args.capacity_out, "device,compute_ms_per_sample,bandwidth_kbps", capacity_rows(cap),
                  MAX_OUTPUT_BYTES)
        write_csv(args.availability_out, "device,start_s,end_s",
                  iter_availability_rows(availability_plans(beh, args.horizon_s)), MAX_OUTPUT_BYTES)
    except (ValueError, OSError) as e:  # too many rows for the horizon, an output that cannot be written
        sys.stderr.write(f"synthetic: {printable(str(e))}\n")
        return 2
    if args.pickles:
        os.makedirs(args.pickles, exist_ok=True)
        for name, value in (("client_device_capacity", cap), ("client_behave_trace", beh)):
            with open(os.path.join(args.pickles, name), "wb") as f:
                pickle.dump(value, f, protocol=4)
    return 0


if __name__ == "__main__":
    sys.exit(main())

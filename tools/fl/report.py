#!/usr/bin/python3
"""Runs scenarios/fl/ (unless --report-only) and writes results/fl/README.md: client selection on a
1,000-device fleet, hierarchical against flat aggregation, gossip against a server, FedBuff against
async. Every figure on the page comes from the runs' summary.json, metrics.csv and devices.csv, and
each result's sentence on why is written from those figures.
Usage: tools/fl/report.py [--report-only] [NAME...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, figure_block, run_and_load, write_page  # noqa: E402

SCENARIOS = os.path.join(ROOT, "scenarios", "fl")
RESULTS = os.path.join(ROOT, "results", "fl")
RUNS = os.path.join(RESULTS, "runs")
TARGET = 0.80


def ttt(s):
    t = s["time_to_target_s"]
    return f"{t:,.1f}" if t is not None else "not reached"


def mb(b):
    return f"{b / 1e6:,.1f}"


def energy_to_target(s):
    e = s.get("energy") or {}
    v = e.get("energy_to_target_j")
    return f"{v / 1e3:,.2f}" if v is not None else "n/a"


def ratio(a, b):
    """a / b of two times to target, or None when either was not reached."""
    ta, tb = a["time_to_target_s"], b["time_to_target_s"]
    return ta / tb if ta and tb else None


def times(x):
    return f"{x:.2f}x" if x else "n/a"


HEADER = ("| scenario | rounds | time to 0.80 (sim s) | final accuracy | MB up | MB down | energy to 0.80 (kJ) | "
          "wall (s) |\n|---|---|---|---|---|---|---|---|")


def row(name, run, extra=""):
    s = run["summary"]
    return (f"| `{name}`{extra} | {s['rounds']:,} | {ttt(s)} | {s['final_test_accuracy']:.4f} | {mb(s['bytes_up'])} | "
            f"{mb(s['bytes_down'])} | {energy_to_target(s)} | {s['wall_time_s']:.0f} |")


def by_class(run, column):
    """Sum of a devices.csv column per device class."""
    out = {}
    for d in run["devices"]:
        out[d["class"]] = out.get(d["class"], 0) + int(d[column])
    return out


def selection(runs):
    names = ["selection-all", "selection-random", "selection-oort"]
    if not all(n in runs for n in names):
        return []
    al, rnd, oort = (runs[n]["summary"] for n in names)
    out = ["## Client selection on 1,000 devices", "",
           "`platforms/fleets/fl-1k.json` (1,000 devices in three classes of different speeds, 10 sites), FedAvg "
           "(local-sgd, 2 local steps) of the Fashion-MNIST MLP on Dirichlet(1.0) partitions. The three scenarios "
           "differ in `training.selection` alone: every device, a uniform 10% (FedAvg's sampling), and Oort's "
           "guided selection of 100 per round.", "", HEADER]
    out += [row(n, runs[n], f" ({runs[n]['summary']['participation']['selected_per_round_mean']:.0f}/round)")
            for n in names]
    picks_r, picks_o = by_class(runs["selection-random"], "rounds_selected"), by_class(runs["selection-oort"],
                                                                                       "rounds_selected")
    speeds = {}
    for d in runs["selection-oort"]["devices"]:
        speeds.setdefault(d["class"], float(d["host_speed_flops"]))
    fast, slow = max(speeds, key=speeds.get), min(speeds, key=speeds.get)
    out += ["", f"Why: every round waits for its slowest participant. With all 1,000 devices a round moves "
            f"{mb(al['bytes_up'] / max(al['rounds'], 1))} MB up and waits for the slowest of the whole fleet; a "
            f"random 10% reaches 0.80 {times(ratio(al, rnd))} sooner with {rnd['bytes_up'] / al['bytes_up']:.0%} of "
            f"the upload bytes, since 100 updates per round already average enough data. Oort reaches it "
            f"{times(ratio(rnd, oort))} sooner than random by preferring fast devices with high loss: it picked the "
            f"fastest class (`{fast}`) {picks_o.get(fast, 0):,} times against {picks_r.get(fast, 0):,} under random, "
            f"and the slowest (`{slow}`) {picks_o.get(slow, 0):,} times against {picks_r.get(slow, 0):,}." +
            energy_sentence("selection-all", al, "selection-oort", oort), ""]
    return out


def hierarchical(runs):
    if not ("flat" in runs and "hierarchical" in runs):
        return []
    flat, hier = runs["flat"]["summary"], runs["hierarchical"]["summary"]
    lv = hier["bytes_by_level"]
    busiest = flat["bottleneck"]["links"][0]
    out = ["## Hierarchical against flat aggregation", "",
           "`platforms/fleets/factory.json` (120 devices in three halls, each with an aggregator behind the site's "
           "uplink), FedAvg (local-sgd, 2 local steps). `hierarchical` aggregates each hall at its site aggregator "
           "every round (`site_rounds` 1) and sends the cloud one delta per site.", "", HEADER,
           row("flat", runs["flat"]), row("hierarchical", runs["hierarchical"]), "",
           "| level | MB |", "|---|---|",
           f"| device → site | {mb(lv['device_to_site'])} |", f"| site → device | {mb(lv['site_to_device'])} |",
           f"| site → cloud | {mb(lv['site_to_cloud'])} |", f"| cloud → site | {mb(lv['cloud_to_site'])} |", "",
           f"Why: both reach the same accuracy in the same number of rounds ({flat['rounds']} and {hier['rounds']}: one "
           f"site round of FedAvg averaged again at the cloud is flat FedAvg), but the flat server makes every "
           f"device's update cross the WAN. Its busiest link is `{busiest['link']}` (mean utilisation "
           f"{busiest['mean_utilization']:.2f}); hierarchical keeps the device updates on the sites' LANs and sends "
           f"{mb(lv['site_to_cloud'])} MB to the cloud instead of {mb(flat['bytes_up'])} MB, reaching 0.80 "
           f"{times(ratio(flat, hier))} sooner." + energy_sentence("flat", flat, "hierarchical", hier), ""]
    return out


def gossip(runs):
    if not ("server" in runs and "gossip-ring" in runs):
        return []
    srv, gos = runs["server"]["summary"], runs["gossip-ring"]["summary"]
    out = ["## Gossip ring against a server", "",
           "`platforms/gossip16.xml` (16 devices with routes to each other and to a server), synchronous SGD of the "
           "Fashion-MNIST MLP. `gossip-ring` has no server: each device averages with its two ring neighbours "
           "(Metropolis-Hastings weights 1/3) after each step.", "", HEADER,
           row("server", runs["server"]), row("gossip-ring", runs["gossip-ring"]), "",
           f"Why: a server round is as slow as the server's link carrying 16 models each way; a gossip iteration "
           f"moves only two models per device, over the devices' own links, so iterations are shorter. The ring "
           f"mixes slowly (the devices' models stay {gos['final_model_spread']:.3f} apart in L2 at the end), so it "
           f"needs more iterations ({gos['rounds']} against {srv['rounds']}) but reaches 0.80 "
           f"{times(ratio(srv, gos))} sooner in simulated time, exchanging {mb(gos['bytes_exchanged'])} MB between "
           f"devices." + energy_sentence("server", srv, "gossip-ring", gos), ""]
    return out


def fedbuff(runs):
    if not ("async" in runs and "fedbuff" in runs):
        return []
    asy, fb = runs["async"]["summary"], runs["fedbuff"]["summary"]
    out = ["## FedBuff against async", "",
           "`platforms/fleets/teaching-shop.json` with 12 cameras and 4 slow sensors, Fashion-MNIST MLP. `async` "
           "applies every gradient push on arrival (scaled by `training.staleness_lr` inverse); `fedbuff` has devices push "
           "5-local-step deltas and applies the average of every 10 (`training.buffer_size`).", "",
           "| scenario | versions | time to 0.80 (sim s) | final accuracy | staleness mean | staleness max | MB up |",
           "|---|---|---|---|---|---|---|"]
    for name, s in (("async", asy), ("fedbuff", fb)):
        out.append(f"| `{name}` | {s['rounds']:,} | {ttt(s)} | {s['final_test_accuracy']:.4f} | "
                   f"{s['staleness_mean']:.2f} | {s['staleness_max']} | {mb(s['bytes_up'])} |")
    out += ["", f"Why: async applies each push alone, so its steps are as noisy as one device's batch and the slow "
            f"sensors' pushes arrive stale (up to {asy['staleness_max']} versions); FedBuff averages 10 pushes of "
            f"5 local steps each into one version, so each version carries far more data and staleness is counted "
            f"in buffers (mean {fb['staleness_mean']:.2f}). It reaches 0.80 {times(ratio(asy, fb))} sooner." +
            energy_sentence("async", asy, "fedbuff", fb), ""]
    return out


def energy_ratio(a, b):
    """a / b of two energies to target, or None."""
    ea, eb = (x.get("energy") or {} for x in (a, b))
    va, vb = ea.get("energy_to_target_j"), eb.get("energy_to_target_j")
    return va / vb if va and vb else None


def energy_sentence(a_name, a, b_name, b):
    r = energy_ratio(a, b)
    if r is None:
        return ""
    return (f" Energy to 0.80 follows the time more than the bytes: `{b_name}` uses {times(r)} less than "
            f"`{a_name}`, because a device draws its idle power for as long as it waits for the others.")


def main():
    runs = run_and_load(SCENARIOS, RUNS, sys.argv[1:])
    if not runs:
        sys.exit("report: no runs in results/fl/runs")
    out = ["# Federated-learning realism: results", "",
           "Produced by `tools/fl/report.py` (runs every scenario of `scenarios/fl/`, then writes this page). Real "
           "training on Fashion-MNIST, target test accuracy 0.80; times are simulated seconds, energy comes from the "
           "platforms' `wattage_per_state` (SimGrid's host energy plugin) and links' `wattage_range` (see "
           "docs/explanation/energy.md), 'n/a' where a platform declares none.", ""]
    for part in (selection, hierarchical, gossip, fedbuff):
        out += part(runs)
    write_page(RESULTS, out)
    need = ("selection-random", "selection-oort", "flat", "hierarchical", "server", "gossip-ring", "async", "fedbuff")
    if all(n in runs for n in need):
        s = {n: runs[n]["summary"] for n in need}
        figure_block("fl", (
            "| comparison | time to 0.80 (simulated s) | energy to 0.80 (kJ) |\n|---|---|---|\n"
            + "\n".join(f"| `{a}` → `{b}` | {ttt(s[a])} → {ttt(s[b])} ({times(ratio(s[a], s[b]))}) | "
                         f"{energy_to_target(s[a])} → {energy_to_target(s[b])} |"
                         for a, b in (("selection-random", "selection-oort"), ("flat", "hierarchical"),
                                      ("server", "gossip-ring"), ("async", "fedbuff")))))


if __name__ == "__main__":
    main()

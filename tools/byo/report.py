#!/usr/bin/python3
"""Runs scenarios/byo/ (natural, iid, dirichlet: the same TorchScript CNN, samples, fleet and
availability trace, partitioned three ways) and writes results/byo/README.md and its figure, every
figure on the page from the runs' summary.json, metrics.csv and devices.csv and from the data files.
Writes the data first (tools/byo/prepare.py) when scenarios/byo/data/ is missing.

Usage: tools/byo/report.py [--report-only] [--out DIR] [--set key=value]...
  --report-only  write the page from the runs already in DIR/runs
  --out DIR      where the runs and the page go (default results/byo)
  --set          passed to every `edgetrain run` (a shortened run: --set stop.rounds=3)
"""
import glob
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, load_runs, pyplot, run_scenarios, time_to_accuracy, write_page  # noqa: E402

SCENARIOS = os.path.join(ROOT, "scenarios", "byo")
DATA = os.path.join(SCENARIOS, "data")
NAMES = ("natural", "iid", "dirichlet")
TARGET = 0.80
PARTITION = {"natural": "LEAF users, one per device (`natural`)",
             "iid": "IID shares of the npz (`iid`: equal, the remainder left out)",
             "dirichlet": "Dirichlet(0.3) shares of the npz (`dirichlet`)"}


def leaf_users():
    """Per LEAF training user, its sample count and the share of its samples in its two largest classes."""
    users = []
    for path in sorted(glob.glob(os.path.join(DATA, "leaf", "train", "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for name in data["users"]:
            y = data["user_data"][name]["y"]
            counts = sorted((y.count(c) for c in set(y)), reverse=True)
            users.append((len(y), sum(counts[:2]) / len(y)))
    return users


def spread(values):
    return f"{min(values):,} / {statistics.median(values):,.0f} / {max(values):,}"


def column(run, name, kind=float):
    return [kind(d[name]) for d in run["devices"]]


def reached(run):
    t = time_to_accuracy(run, TARGET)
    return f"{t:,.0f}" if t is not None else "not reached"


def plot(runs, path):
    plt = pyplot()
    if plt is None:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in NAMES:
        rows = runs[name]["metrics"]
        ax.plot([float(r["sim_time_s"]) for r in rows], [float(r["test_accuracy"]) for r in rows], label=name)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("test accuracy")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"report: wrote {os.path.relpath(path, ROOT)}")
    return True


def second_half(run):
    """The lowest and highest test accuracy over the second half of the run's evaluations."""
    end = float(run["summary"]["sim_time_s"])
    acc = [float(m["test_accuracy"]) for m in run["metrics"] if float(m["sim_time_s"]) >= end / 2]
    return min(acc), max(acc)


def page(runs, out_dir):
    s = {n: runs[n]["summary"] for n in NAMES}
    nat, x = runs["natural"], s["natural"]
    users = leaf_users()
    on_share = 1 - statistics.mean(float(d["offline_s"]) for d in nat["devices"]) / x["sim_time_s"]
    part = x["participation"]
    lines = [
        "# Bring your own: natural partitions against IID and Dirichlet under one availability trace", "",
        "Produced by `tools/byo/report.py` (writes the data with `tools/byo/prepare.py` if missing, runs the three "
        "scenarios of `scenarios/byo/`, then writes this page; the tutorial is "
        "[docs/tutorials/bring-your-own.md](../../docs/tutorials/bring-your-own.md)). The three runs share "
        "everything but the partition: the TorchScript CNN of `tools/torchscript/export.py cnn-bn` "
        f"({x['model_params']:,} parameters, BatchNorm), the same {sum(u[0] for u in users):,} Fashion-MNIST "
        "training samples (read from LEAF JSON for `natural`, from `fashion.npz` for the others), the 200 phones "
        "of `platforms/fleets/phones.json`, FedAvg (local-sgd, 10 local steps of batch 16) over 20 of the devices "
        "that are on in each round, and the synthetic availability trace (its 6-day period compressed to 60 s). "
        "The LEAF users are made by the prepare script, since Fashion-MNIST has no writers: see its header.", "",
        f"| scenario | partition | samples per device (min / median / max) | time to {TARGET:.2f} (sim s) | "
        "test accuracy at the end | best | second half of the run (lowest to highest) |",
        "|---|---|---|---|---|---|---|"]
    halves = {n: second_half(runs[n]) for n in NAMES}
    for n in NAMES:
        r, y = runs[n], s[n]
        best = max(float(m["test_accuracy"]) for m in r["metrics"])
        low, high = halves[n]
        lines.append(
            f"| `{n}` | {PARTITION[n]} | {spread(column(r, 'partition_samples', int))} | {reached(r)} | "
            f"{y['final_test_accuracy']:.4f} | {best:.4f} | {low:.4f} to {high:.4f} |")
    same = all(s[n]["rounds"] == x["rounds"] and s[n]["failed_pushes"] == x["failed_pushes"] for n in NAMES)
    two = statistics.median(u[1] for u in users)
    lines += [
        "", f"The natural users' two largest classes hold a median {two:.0%} of their samples (an even mix: 20%).",
        "",
        ("The three runs have the same timing, as they should: a local-sgd round's time does not depend on what "
         "the samples hold. " if same else "") +
        f"{x['rounds']:,} rounds in {x['sim_time_s']:.0f} simulated seconds; a device was on {on_share:.0%} of the "
        f"run on average, and of the {part['selected']:,} selections {part['failed']:,} were cut short by the "
        f"device going off ({x['samples_lost_in_faults']:,} samples trained for nothing) and {part['missing']:,} "
        f"missed the {runs['natural']['scenario']['training']['round_timeout_s']:g} s round timeout.", ""]
    if plot(runs, os.path.join(out_dir, "accuracy.png")):
        lines += ["![test accuracy against simulated time](accuracy.png)", ""]
    swing = {n: high - low for n, (low, high) in halves.items()}
    lines += [
        f"Why: the same samples, the same devices on and off, the same rounds, so the differences come from who "
        f"holds what. IID shares give every selected device the same mix, and each round's average is a steady "
        f"step: its accuracy moves within {swing['iid']:.3f} over the second half. The natural users pull their "
        f"local models towards their two favourite classes, and the 20 devices of a round hold an uneven mix of "
        f"classes that changes as the trace switches devices on and off, so the average swings "
        f"({swing['natural']:.3f}); Dirichlet(0.3) draws each device's class mix, and with it its share, from "
        f"the seed, and swings alike ({swing['dirichlet']:.3f}). In both, the devices with few samples (natural "
        f"users range from {min(u[0] for u in users)} to {max(u[0] for u in users)}) run over them many times "
        f"in 10 local steps of 16 and pull hardest towards their own classes.", ""]
    write_page(out_dir, lines)


def main(argv):
    out_dir = os.path.join(ROOT, "results", "byo")
    extra = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--out":
            out_dir = os.path.abspath(args.pop(0))
        elif a == "--set":
            extra += ["--set", args.pop(0)]
        elif a != "--report-only":
            sys.exit(f"report: unknown argument {a} (see the header of tools/byo/report.py)")
    runs_dir = os.path.join(out_dir, "runs")
    if "--report-only" not in argv:
        if not os.path.isdir(DATA):
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "byo", "prepare.py")], check=True)
        run_scenarios(SCENARIOS, NAMES, runs_dir, extra=extra)
    runs = load_runs(runs_dir)
    missing = [n for n in NAMES if n not in runs]
    if missing:
        sys.exit(f"report: no finished run of {', '.join(missing)} in {runs_dir}")
    page(runs, out_dir)


if __name__ == "__main__":
    main(sys.argv[1:])

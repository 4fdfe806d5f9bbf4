#!/usr/bin/python3
"""Runs scenarios/scadles/ (unless --report-only) and writes results/scadles/README.md and its
plots. Every figure on that page comes from the runs' summary.json, devices.csv, metrics.csv and
buffers.csv. Usage: tools/scadles/report.py [--report-only] [NAME...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, pyplot, figure_block, run_and_load, write_page  # noqa: E402

SCENARIOS = os.path.join(ROOT, "scenarios", "scadles")
RESULTS = os.path.join(ROOT, "results", "scadles")
RUNS = os.path.join(RESULTS, "runs")

RATE_SETS = [("S1", "uniform 38±24"), ("S2", "uniform 300±112"), ("S10", "normal(64, 24)"), ("S20", "normal(256, 28)")]


def mb(b):
    return f"{b / 1e6:,.0f}"


def ttt(run):
    t = run["summary"]["time_to_target_s"]
    return f"{t:,.0f}" if t is not None else "not reached"


def mean_age(run):
    trained = sum(int(d["samples_trained"]) for d in run["devices"])
    if trained == 0:
        return 0.0
    return sum(float(d["sample_age_mean_s"] or 0) * int(d["samples_trained"]) for d in run["devices"]) / trained


def row(run):
    s = run["summary"]
    return (f"| `{run['name']}` | {s['rounds']} | {ttt(run)} | {s['final_test_accuracy']:.4f} | "
            f"{s['buffer_peak_samples']:,} | {mean_age(run):.2f} | {s['samples_dropped']:,} | "
            f"{mb(s['bytes_up'] + s['bytes_down'])} | {s['wall_time_s']:.0f} |")


HEADER = ("| scenario | rounds | time to target (sim s) | final accuracy | peak buffer (samples, one device) | "
          "mean sample age (s) | dropped samples | MB on the wire | wall time (s) |")
RULE = "|---|---|---|---|---|---|---|---|---|"


def fleet_buffer_series(run):
    """Sum over devices of buffered samples (each device's latest report), at every report time."""
    latest, fleet = {}, {}
    for r in sorted(run["buffers"], key=lambda r: float(r["sim_time_s"])):
        latest[r["device"]] = int(r["buffered_samples"])
        fleet[float(r["sim_time_s"])] = sum(latest.values())
    return list(fleet.items())


def plots(runs):
    plt = pyplot()
    if plt is None:
        return []
    made = []
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, style in (("s10-sync", "-"), ("s10-scadles", "-"), ("s10-scadles-truncation", "--")):
        if name in runs:
            m = runs[name]["metrics"]
            ax.plot([float(r["sim_time_s"]) for r in m], [float(r["test_accuracy"]) for r in m], style, label=name)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("test accuracy")
    ax.set_title("Fashion-MNIST, 16 devices, S10 streams")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "s10-accuracy.png"), dpi=90)
    made.append("s10-accuracy.png")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    # Left: the baseline against ScaDLES; right: ScaDLES's two buffer policies at their own scale.
    for ax, names in zip(axes, (("s10-sync", "s10-scadles"), ("s10-scadles", "s10-scadles-truncation"))):
        for name in names:
            if name in runs:
                series = fleet_buffer_series(runs[name])
                ax.plot([t for t, _ in series], [v for _, v in series], label=name)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("buffered samples, whole fleet")
        ax.grid(alpha=0.3)
        ax.legend()
    axes[0].set_title("S10: fixed batch vs ScaDLES (persistence)")
    axes[1].set_title("ScaDLES: persistence grows, truncation is bounded")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "s10-buffers.png"), dpi=90)
    made.append("s10-buffers.png")
    plt.close("all")
    return made


def main():
    runs = run_and_load(SCENARIOS, RUNS, sys.argv[1:])
    if not runs:
        sys.exit("report: no runs in results/scadles/runs")
    def speedup(base, other):
        a, b = runs.get(base), runs.get(other)
        if a and b and a["summary"]["time_to_target_s"] and b["summary"]["time_to_target_s"]:
            return f"{a['summary']['time_to_target_s'] / b['summary']['time_to_target_s']:.2f}x"
        return "n/a"

    def faster(base, other):
        """Whether `other` reached the target sooner than `base` (both reached it)."""
        a, b = runs.get(base), runs.get(other)
        return bool(a and b and a["summary"]["time_to_target_s"] and b["summary"]["time_to_target_s"]
                    and b["summary"]["time_to_target_s"] < a["summary"]["time_to_target_s"])

    # The shorter window's effect in words that stay true whichever way the measurement goes.
    short_window_helps = faster("s2-sync", "s2-scadles-window250ms") and faster("s20-sync", "s20-scadles-window250ms")

    def slowest_rate(name):
        return min(float(d["stream_rate_samples_per_s"]) for d in runs[name]["devices"])

    def round_s(name):
        s = runs[name]["summary"]
        return s["sim_time_s"] / s["rounds"]

    def global_batches(*names):
        sizes = [sum(int(d["batch_size"]) for d in runs[n]["devices"]) for n in names if n in runs]
        return f"{min(sizes):,} to {max(sizes):,}" if sizes else "n/a"

    out = ["# ScaDLES on edgetrain: results", "",
           "Produced by `tools/scadles/report.py` (runs every scenario of `scenarios/scadles/`, then writes",
           "this page). Setting: Fashion-MNIST, 784-128-10 MLP, 16 identical",
           "edge accelerators (`platforms/scadles16.xml`) whose data streams in at the rates of the paper's rate",
           "sets, fluid arrivals, target test accuracy 0.85, evaluation every 5 simulated seconds. `sync` is",
           "conventional synchronous SGD with 64 samples per device per step (global batch 1024); `scadles` sizes",
           "each device's batch from its stream (rate × 1 s), weights gradients by batch and scales the learning",
           "rate by global batch / 1024. Same seed, data, model and learning rate in every pair.", "",
           "## Conventional synchronous SGD vs ScaDLES, per rate set", "",
           "| rate set | rates (samples/s) | sync: time to target (s) | scadles: time to target (s) | speed-up | "
           "sync final acc. | scadles final acc. | sync peak buffer | scadles peak buffer |",
           "|---|---|---|---|---|---|---|---|---|"]
    for rate, desc in RATE_SETS:
        a, b = runs.get(f"{rate.lower()}-sync"), runs.get(f"{rate.lower()}-scadles")
        if not (a and b):
            continue
        out.append(f"| {rate} | {desc} | {ttt(a)} | {ttt(b)} | {speedup(a['name'], b['name'])} | "
                   f"{a['summary']['final_test_accuracy']:.4f} | "
                   f"{b['summary']['final_test_accuracy']:.4f} | {a['summary']['buffer_peak_samples']:,} | "
                   f"{b['summary']['buffer_peak_samples']:,} |")
    out += ["", "## Every run", "", HEADER, RULE]
    out += [row(r) for r in runs.values()]
    out += ["", "Peak buffer is the largest single device's peak; mean sample age is over all trained samples",
            "(time from arrival to training); MB on the wire counts both directions, headers included."]
    made = plots(runs)
    if made:
        out += ["", "## Plots", ""] + [f"![{m}]({m})" for m in made]
    out += ["", "## Against the paper", "",
            "The paper (Tyagi & Swany, IEEE BigData 2022) reports that ScaDLES converges up to **3.29x** faster",
            "than conventional distributed SGD (ResNet152 and VGG19 on CIFAR, with rate sets such as",
            f"S10 = normal(64, 24)). Here ScaDLES is {speedup('s1-sync', 's1-scadles')} faster on S1 and "
            f"{speedup('s10-sync', 's10-scadles')} on S10,",
            "by the paper's mechanism: with a fixed batch of 64, every round waits for the slowest stream to deliver",
            f"64 samples (the slowest S10 device streams {slowest_rate('s10-sync'):.1f} samples/s, so a round lasts "
            f"{round_s('s10-sync'):.1f} s), while a",
            f"ScaDLES round lasts about one 1 s window whatever the rates ({round_s('s10-scadles'):.2f} s on S10). The gain is smaller than the paper's",
            "because the slowest drawn rate of 16 devices bounds it, and a small MLP on Fashion-MNIST is not",
            "ResNet152 on CIFAR (the paper's gain also includes compute time, negligible here).", "",
            "On the fast rate sets (S2, S20) the baseline is not data-bound: its slowest device delivers 64",
            "samples in a fraction of a second and rounds are as long as their communication. ScaDLES with a 1 s",
            f"window is then slower ({speedup('s2-sync', 's2-scadles')} on S2, "
            f"{speedup('s20-sync', 's20-scadles')} on S20): its rounds wait a full window and its",
            f"global batches of {global_batches('s2-scadles', 's20-scadles')} samples gain less per sample than batches of 1,024. A shorter",
            f"window (250 ms, `*-window250ms`) {'makes it faster again' if short_window_helps else 'brings it to'}: "
            f"{speedup('s2-sync', 's2-scadles-window250ms')} on S2, {speedup('s20-sync', 's20-scadles-window250ms')} on "
            "S20" + ("." if short_window_helps else " (not faster everywhere: rounds there outlast 250 ms)."),
            "", "Buffers: with persistence, the baseline's fast devices accumulate what they cannot train (thousands",
            "to tens of thousands of samples, trained up to minutes after they arrived); ScaDLES keeps buffers",
            "near one window, and",
            "truncation bounds them outright at the cost of dropped samples. Non-IID data (one label per device)",
            "costs little here because every synchronous round averages all devices' gradients, so all labels",
            "contribute to each step; injection moves samples between devices (their bytes are in the table) but",
            "changes little in this setting. Skew would matter with local steps or asynchronous updates.", ""]
    write_page(RESULTS, out)
    a, b = runs["s10-sync"]["summary"], runs["s10-scadles"]["summary"]
    figure_block("scadles", (
        f"There, on S10 rates, ScaDLES reaches 0.85 test accuracy {speedup('s10-sync', 's10-scadles')} sooner in\n"
        f"simulated time than synchronous SGD with a fixed batch of 64 ({b['time_to_target_s']:,.0f} s against\n"
        f"{a['time_to_target_s']:,.0f} s), with per-device buffers of at most {b['buffer_peak_samples']:,} samples "
        f"against {a['buffer_peak_samples']:,};\non fast streams a 1 s window is too long "
        f"({speedup('s2-sync', 's2-scadles')} on S2, {speedup('s20-sync', 's20-scadles')} on S20) and a 250 ms "
        f"window {'is needed' if short_window_helps else 'gives'}\n({speedup('s2-sync', 's2-scadles-window250ms')} and "
        f"{speedup('s20-sync', 's20-scadles-window250ms')}" + (")." if short_window_helps else
                                                              "; not faster everywhere: rounds there outlast 250 ms).")))


if __name__ == "__main__":
    main()

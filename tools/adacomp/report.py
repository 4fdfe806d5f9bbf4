#!/usr/bin/python3
"""Runs scenarios/adacomp/ (unless --report-only) and writes results/adacomp/README.md and its plots.

Every figure on that page comes from the runs' summary.json, devices.csv, metrics.csv and
staleness.csv. Usage: tools/adacomp/report.py [--mnist DIR] [--report-only] [NAME...]
With --mnist DIR (a folder of the MNIST IDX files, not packaged by Debian) the same scenarios run
on MNIST, into results/adacomp/mnist/.
"""
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, describe, first_at_accuracy, pyplot, figure_block, run_and_load, write_page  # noqa: E402

SCENARIOS = os.path.join(ROOT, "scenarios", "adacomp")
RESULTS = os.path.join(ROOT, "results", "adacomp")
DATASET = "Fashion-MNIST"
TARGETS = (0.75, 0.78)
BASELINE = "async-plain"
ORDER = ["async-plain", "async-inverse", "adacomp-1pct", "adacomp-0.5pct", "adacomp-1pct-churn"]


def bytes_to_target(run, target):
    """Cumulative bytes sent to the server (pulls and pushes) at the first evaluation >= target."""
    row = first_at_accuracy(run, target)
    return int(row["bytes_up"]) if row else None


def mb(b):
    return f"{b / 1e6:,.1f}"


def bytes_per_push(run):
    """Mean bytes of a push (encoding + header), leaving out the pull requests (a bare header each)."""
    s = run["summary"]
    pushes = sum(int(d["steps"]) for d in run["devices"])
    return (s["bytes_up"] - s["message_header_bytes"] * pushes) / pushes if pushes else 0


def at_target(run, target):
    """(MB sent to the server, simulated s) at the first evaluation >= target, or None."""
    hit = first_at_accuracy(run, target)
    return (int(hit["bytes_up"]), float(hit["sim_time_s"])) if hit else None


def plots(runs, names):
    plt = pyplot()
    if plt is None:
        return []
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in names:
        m = runs[name]["metrics"]
        ax.plot([int(r["bytes_up"]) / 1e6 for r in m], [float(r["test_accuracy"]) for r in m], label=name)
    ax.set_xscale("log")
    for t in TARGETS:
        ax.axhline(t, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("bytes sent to the server (MB, log scale)")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "accuracy-vs-bytes.png"), dpi=90)
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in names:
        counts = Counter(int(r["staleness"]) for r in runs[name]["staleness"])
        total = sum(counts.values())
        xs = sorted(counts)
        ax.plot(xs, [counts[x] / total for x in xs], marker=".", label=name)
    ax.set_xlabel("staleness d (updates applied between pull and push)")
    ax.set_ylabel("fraction of applied pushes")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "staleness.png"), dpi=90)
    return ["accuracy-vs-bytes.png", "staleness.png"]


def main():
    global RESULTS, DATASET
    argv, extra = sys.argv[1:], []
    if "--mnist" in argv:
        at = argv.index("--mnist")
        if at + 1 >= len(argv):
            sys.exit("report: --mnist needs the folder of the MNIST IDX files")
        extra = ["--set", "dataset.name=mnist", "--set", "dataset.path=" + os.path.abspath(argv[at + 1])]
        del argv[at:at + 2]
        RESULTS, DATASET = os.path.join(RESULTS, "mnist"), "MNIST"
    runs = run_and_load(SCENARIOS, os.path.join(RESULTS, "runs"), argv, extra)
    if BASELINE not in runs:
        sys.exit(f"report: the {BASELINE} baseline run is missing")
    names = [n for n in ORDER if n in runs]
    base = {t: bytes_to_target(runs[BASELINE], t) for t in TARGETS}
    out = ["# The AdaComp setting on edgetrain: results", "",
           "Produced by `/usr/bin/python3 tools/adacomp/report.py` (runs every scenario of `scenarios/adacomp/`,",
           "two at a time, then writes this page and its plots). Setting (`platforms/adacomp16.xml`): 16 devices",
           "(5 GFLOP/s) on 4 Mbit/s up / 20 Mbit/s down access links (20 ms), all pushing to one parameter",
           f"server through a shared 10 Mbit/s ingress link; {DATASET}, the AdaComp-style CNN (two 5x5",
           f"convolutions with 10 and 20 channels, a 50-unit hidden layer: "
           f"{runs[BASELINE]['summary']['model_params']:,} parameters), asynchronous SGD,",
           "batch 10 per push, no momentum, devices starting within the first second, the same seed everywhere.",
           "Bytes sent to the server count every pull request (a 64-byte header) and every push (its real",
           "encoding plus the 64-byte header); the accuracy is measured on 2,000 test images every 5 simulated",
           "seconds.", "",
           "| scenario | pushes | bytes per push | "
           + " | ".join(f"MB to the server until {t} (reduction vs plain async) | sim s to {t}" for t in TARGETS)
           + " | final accuracy | best | staleness mean / p50 / p95 / max |",
           "|---|---|---|" + "---|---|" * len(TARGETS) + "---|---|---|"]
    for name in names:
        s = runs[name]["summary"]
        pushes = sum(int(d["steps"]) for d in runs[name]["devices"])
        per_push = bytes_per_push(runs[name])
        cells = []
        for t in TARGETS:
            hit = first_at_accuracy(runs[name], t)
            to_target = int(hit["bytes_up"]) if hit else None
            cells.append(f"{mb(to_target)} ({base[t] / to_target:.1f}x) | {float(hit['sim_time_s']):,.0f}"
                         if to_target and base[t] else "not reached | -")
        out.append(f"| `{name}` | {pushes:,} | {per_push:,.0f} | {' | '.join(cells)} | {s['final_test_accuracy']:.4f} | "
                   f"{s['best_test_accuracy']:.4f} | {s['staleness_mean']:.1f} / {s['staleness_p50']} / "
                   f"{s['staleness_p95']} / {s['staleness_max']} |")
    out += ["", "What each scenario is:", ""]
    out += [f"- `{n}`: {describe(SCENARIOS, n)}" for n in names]

    if "adacomp-1pct-churn" in runs:
        c = runs["adacomp-1pct-churn"]["summary"]
        devices = runs["adacomp-1pct-churn"]["devices"]
        alive = 1 - c["offline_s"] / (c["sim_time_s"] * len(devices))
        out += ["", "## Training through device failures", "",
                f"`adacomp-1pct-churn` switches devices off and on (seeded exponential times, MTBF 60 s, MTTR 15 s) "
                f"and cuts the server's ingress link from 30 s to 40 s. The run ended with status `{c['status']}`: "
                f"{c['restarts']} restarts, devices on {100 * alive:.0f}% of the time "
                f"({c['offline_s']:,.0f} device-seconds off), {c['failed_pushes']} pushes cut by a failure (counted "
                f"as failed, not as sent), {c['samples_lost_in_faults']} samples lost with them; final accuracy "
                f"{c['final_test_accuracy']:.4f} against {runs['adacomp-1pct']['summary']['final_test_accuracy']:.4f} "
                f"without failures, after {c['sim_time_s']:,.0f} simulated seconds instead of "
                f"{runs['adacomp-1pct']['summary']['sim_time_s']:,.0f}." if "adacomp-1pct" in runs else ""]

    shrink = bytes_per_push(runs[BASELINE]) / bytes_per_push(runs["adacomp-1pct"]) if "adacomp-1pct" in runs else 0
    made = plots(runs, names)
    if made:
        out += ["", "## Plots", ""] + [f"![{p}]({p})" for p in made]
    out += ["", "## Reading it", "",
            "- The reduction is measured at the same accuracy, in bytes sent to the server until the first",
            "  evaluation at or above the target; it depends on the target (a lower target favours the",
            "  compressed runs less) and on the evaluation interval (5 s).",
            "- The paper reports 191x on MNIST with its own CNN and training length. Here, per push, an AdaComp",
            f"  c = 1% update is about {shrink:.0f}x smaller than a dense one (value + 32-bit index per kept entry, per layer),",
            "  and it needs more pushes to reach the same accuracy; the figure above is what remains of that.",
            f"- Dense pushes contend on the 10 Mbit/s ingress (16 x {bytes_per_push(runs[BASELINE]) / 1e3:.0f} KB per "
            "round of pushes), so plain async",
            "  takes far longer in simulated time; sparse pushes leave the ingress nearly idle and the devices",
            "  compute-bound, which raises the staleness every push sees.", ""]
    write_page(RESULTS, out)
    if DATASET == "Fashion-MNIST" and all(n in runs for n in ORDER):
        figure_block("adacomp", readme_text(runs, shrink))


def readme_text(runs, shrink):
    """The paragraph on this study in docs/explanation/async.md, from the same runs as the page."""
    low, high = TARGETS
    plain, ada = runs[BASELINE], runs["adacomp-1pct"]
    p, a = at_target(plain, high), at_target(ada, high)
    inverse = at_target(runs["async-inverse"], high)
    churn = runs["adacomp-1pct-churn"]["summary"]
    ratio_low = (at_target(plain, low)[0] / at_target(ada, low)[0]) if at_target(plain, low) and at_target(ada, low) else 0
    stale = Counter(int(r["staleness"]) for r in plain["staleness"])
    top, share = stale.most_common(1)[0][0], stale.most_common(1)[0][1] / sum(stale.values())
    if not (p and a):
        return f"Measured there: AdaComp c = 1% or plain async SGD does not reach {high} test accuracy."
    inverse_text = (f"reach {high} with {mb(inverse[0])} MB" if inverse else f"still not reach {high}")
    return (f"Measured there: to reach {high} test accuracy\nAdaComp c = 1% sends {mb(a[0])} MB to the server "
            f"against {mb(p[0])} MB for plain async SGD, **{p[0] / a[0]:.1f}x less**\n({ratio_low:.1f}x at {low}), "
            f"in {a[1]:,.0f} simulated seconds instead of {p[1]:,.0f}; each push is {shrink:.0f}x smaller, but it "
            f"takes more of\nthem, and within its {ada['summary']['rounds']:,} pushes it reaches "
            f"{ada['summary']['best_test_accuracy']:.2f} at best where plain async reaches "
            f"{plain['summary']['best_test_accuracy']:.2f}. The paper's\n191x was measured on MNIST with longer "
            f"training. The inverse rule lets plain async use a larger step "
            f"({runs['async-inverse']['scenario']['training']['lr']:g}) and {inverse_text}.\n"
            f"Plain async sees staleness {top} on {100 * share:.0f}% of its pushes (N = {len(plain['devices'])} devices); "
            f"the churn run loses {churn['failed_pushes']} pushes to failures, keeps training and ends at "
            f"{churn['final_test_accuracy']:.4f}.")


if __name__ == "__main__":
    main()

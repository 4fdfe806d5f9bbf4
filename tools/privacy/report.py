#!/usr/bin/python3
"""Writes results/privacy/README.md: what differential privacy costs in accuracy on a 1,000-device fleet
(scenarios/privacy/dp-fleet.json, real training), what secure aggregation costs in bytes and time as the
round grows from 10 to 1,000 phones on LTE (scenarios/privacy/secagg-phones.json, timing-only), and how
the two meet compression, client sampling and energy. Every figure on the page is measured here.

  (no flag)   runs everything: the real-training runs (about 6 minutes on 2 busy cores), whose measured
              figures go to results/privacy/figures.json, then the timing-only runs, and writes the page
  --render    reruns the timing-only runs and writes the page with the figures.json in the tree (no training)
  --check     rewrites nothing: reruns the timing-only runs (every epsilon, time and byte on the page),
              takes the accuracies from results/privacy/figures.json, renders the page and fails (exit 1,
              with a diff) when it differs from the one in the tree (the privacy/results test)

usage: tools/privacy/report.py [--render | --check] [--binary build/edgetrain]"""
import argparse
import difflib
import json
import math
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, CachedRuns, write_text  # noqa: E402

RESULTS = os.path.join(ROOT, "results", "privacy")
PAGE = os.path.join(RESULTS, "README.md")
FIGURES = os.path.join(RESULTS, "figures.json")
DP = "scenarios/privacy/dp-fleet.json"
SA = "scenarios/privacy/secagg-phones.json"
NOISE = (1, 2, 4, 8)  # central noise multipliers of the accuracy table
SIZES = (10, 30, 100, 300, 1000)  # phones a round in the secure-aggregation table
KINDS = ("none", "secagg", "secagg+")
TIMING = ("--set", "training.compute=timing-only")
# Every class on LTE alone (a share of null removes the fleet's other link classes).
ALL_LTE = ("--set", 'platform.classes.flagship.links={"4g":1,"5g":null}',
           "--set", 'platform.classes.midrange.links={"4g":1,"5g":null,"4g-edge":null}',
           "--set", 'platform.classes.budget.links={"4g":1,"4g-edge":null}')
TOPK = ("--set", "compression.kind=topk", "--set", "compression.ratio=0.01", "--set", "compression.error_feedback=true")


def dp_args(z):
    """The --set arguments of one row of the accuracy table: no DP (z None) or central noise z."""
    return ("--set", "privacy.dp=null") if z is None else ("--set", f"privacy.dp.noise_multiplier={z:g}")


ALL_ROUNDS = (*TIMING, *dp_args(1), "--set", "training.selection=null")


def sa_args(n, kind, *extra):
    """A fleet of n phones on LTE, every phone each round, with `kind` of secure aggregation."""
    sa = ("--set", "privacy.secure_aggregation=null") if kind == "none" else (
        "--set", f"privacy.secure_aggregation.kind={kind}")
    return ("--set", f"platform.devices={n}", *ALL_LTE, *sa, *extra)


def command(scenario, args):
    """The command a row was measured with, as the page prints it."""
    quoted = [f"'{a}'" if any(c in a for c in '{}"') else a for a in args]
    return " ".join(["build/edgetrain run", scenario, *quoted])


# ---------------------------------------------------------------------------------------------------
# Measuring


def measure_training(binary):
    """The real-training runs of the accuracy table, two at a time; their figures go to figures.json."""
    with tempfile.TemporaryDirectory(prefix="edgetrain-privacy-") as scratch:
        def one(i, z):  # a runner of its own per run: CachedRuns numbers its folders, one thread at a time
            return z, CachedRuns(binary, os.path.join(scratch, str(i)), "tools/privacy/report.py")(DP, *dp_args(z))

        with ThreadPoolExecutor(max_workers=2) as pool:
            done = list(pool.map(one, *zip(*enumerate((None, *NOISE)))))
    rows = {}
    for z, run in done:
        s = run["summary"]
        rows["none" if z is None else f"{z:g}"] = {
            "command": command(DP, dp_args(z)), "rounds": s["rounds"], "sim_time_s": s["sim_time_s"],
            "final_test_accuracy": s["final_test_accuracy"], "best_test_accuracy": s["best_test_accuracy"],
            "epsilon": (s.get("privacy") or {}).get("epsilon"), "wall_time_s": s["wall_time_s"]}
    # Every device every round (q = 1): timing-only, but 1,000 updates a round make it too slow for --check.
    with tempfile.TemporaryDirectory(prefix="edgetrain-privacy-") as scratch:
        s = CachedRuns(binary, scratch, "tools/privacy/report.py")(DP, *ALL_ROUNDS)["summary"]
    every = {"command": command(DP, ALL_ROUNDS), "rounds": s["rounds"], "sim_time_s": s["sim_time_s"],
             "epsilon": s["privacy"]["epsilon"], "wall_time_s": s["wall_time_s"]}
    return {"dp_fleet": rows, "dp_all_devices": every}


def timing(runs):
    """Every timing-only figure of the page (the --check reruns these)."""
    t = {"dp": {}, "sa": {}, "interplay": {}}
    for z in (None, *NOISE):
        t["dp"]["none" if z is None else f"{z:g}"] = runs(DP, *TIMING, *dp_args(z))["summary"]
    for z in NOISE:
        t["dp"][f"{z:g} poisson"] = runs(DP, *TIMING, *dp_args(z), "--set", "privacy.dp.sampling=poisson")["summary"]
    for n in SIZES:
        for kind in KINDS:
            t["sa"][(n, kind)] = runs(SA, *sa_args(n, kind))
    n = 100
    for kind in ("none", "secagg"):
        t["interplay"][(kind, "topk")] = runs(SA, *sa_args(n, kind, *TOPK))["summary"]
    t["interplay"][("secagg", "16")] = runs(SA, *sa_args(n, "secagg", "--set",
                                                         "privacy.secure_aggregation.field_bits=16"))["summary"]
    return t


# ---------------------------------------------------------------------------------------------------
# The page


def kb(b):
    return f"{b / 1e3:,.1f}"


def mb(b):
    return f"{b / 1e6:,.2f}"


def eps(x):
    return "n/a" if x is None else f"{x:,.2f}"


def secagg(summary):
    return (summary.get("privacy") or {}).get("secure_aggregation") or {}


def per_device_round(run):
    s = run["summary"]
    return (s["bytes_up"] + s["bytes_down"]) / (s["devices"] * s["rounds"])


def exponent(a, b, n_a, n_b):
    """The growth exponent between two sizes: log(b / a) / log(n_b / n_a)."""
    return math.log(b / a) / math.log(n_b / n_a) if a > 0 and b > 0 else float("nan")


def dp_section(figures, t):
    real = figures["dp_fleet"]
    dp = t["dp"]
    base = dp["none"]
    rounds = base["rounds"]
    out = ["## Accuracy against epsilon: central DP on 1,000 devices", "",
           f"`scenarios/privacy/dp-fleet.json`: the 1,000 devices of `platforms/fleets/fl-1k.json`, FedAvg (local-sgd, "
           f"2 local steps, lr 0.1) of the Fashion-MNIST MLP on Dirichlet(1.0) partitions, a seeded uniform 100 "
           f"devices a round, {rounds} rounds; central DP-FedAvg (each update clipped to L2 norm 1, Gaussian noise "
           f"z x clip on the round's sum), epsilon at delta 1e-5. Real training, one seed.", "",
           "```sh",
           *(real[k]["command"] + f" --out /tmp/dp-{k}" for k in real),
           "```", "",
           "| noise multiplier z | epsilon, 100 of 1,000 (fixed-size sample) | epsilon, Poisson draw (q = 0.1) "
           "| final test accuracy | best test accuracy | simulated time (s) |",
           "|---|---|---|---|---|---|"]
    for k in real:
        r = real[k]
        pois = dp.get(f"{k} poisson", {}).get("privacy", {}) if k != "none" else {}
        e = (dp[k].get("privacy") or {}).get("epsilon")
        out.append(f"| {'no DP' if k == 'none' else k} | {eps(e) if k != 'none' else 'infinite'} | "
                   f"{eps(pois.get('epsilon')) if k != 'none' else ''} | {r['final_test_accuracy']:.4f} | "
                   f"{r['best_test_accuracy']:.4f} | {dp[k]['sim_time_s']:,.2f} |")
    every = figures["dp_all_devices"]
    out += ["",
            f"The accuracies are those of the real runs, stored in `results/privacy/figures.json` by the full run "
            f"(their wall time there); every other figure of this table comes from timing-only runs of the same "
            f"scenarios (`--set training.compute=timing-only`), which `--check` reruns: the accountant and the "
            f"simulated time do not depend on the values trained. The Poisson column is "
            f"`--set privacy.dp.sampling=poisson`: each device in a round with probability 0.1, drawn so and "
            f"accounted so (a round of varying size). With every device every round (q = 1, `{every['command']}`, "
            f"timing-only; its figures are stored in `figures.json` too, its 1,000 updates a round being too slow "
            f"for the test) z = 1 spends epsilon {eps(every['epsilon'])} over the same {every['rounds']} "
            f"rounds, in {every['sim_time_s']:,.2f} simulated seconds.", ""]
    z1 = dp["1"]["privacy"]["epsilon"]
    out += [f"What it shows: central noise costs no byte and no second (the simulated time is that of the run without "
            f"DP), only accuracy. Sampling amplifies privacy only under the analysis that allows it: drawn as "
            f"Poisson, 100 of 1,000 a round on average spends {eps(dp['1 poisson']['privacy']['epsilon'])} at z = 1 against "
            f"{eps(every['epsilon'])} with every device; drawn as exactly 100 (a fixed-size sample, where a device "
            f"added can displace one that would have counted, sensitivity 2 x clip) it spends "
            f"{eps(z1)}: the accountant sees z/2 (see docs/explanation/privacy.md, The accountant).", ""]
    return out


PAPERS = [
    "| | client communication | client computation | server communication | server computation |",
    "|---|---|---|---|---|",
    "| SecAgg (Bonawitz et al., CCS 2017) | O(n + m) | O(n² + mn) | O(n² + mn) | O(mn²) |",
    "| SecAgg+ (Bell et al., CCS 2020) | O(log n + m) | O(m log n + log² n) | O(n log n + mn) | O(n log² n + mn log n) |",
]


def sa_section(t):
    sa = t["sa"]
    out = ["## Secure aggregation against participants: 10 to 1,000 phones on LTE", "",
           "`scenarios/privacy/secagg-phones.json`: `platforms/fleets/phones.json` resized to n phones "
           "(`platform.devices`), every phone on its LTE class (8 Mbit/s up, 30 down, 30 ms), synchronous SGD of "
           "the Fashion-MNIST MLP (m = 101,770 parameters, 407 KB in fp32), every phone every round, 2 rounds, "
           "timing-only (the protocol's messages have the sizes of the real ones; its computation is charged from "
           "measured operation costs). SecAgg+ uses k = 2⌈1.5 log2 n⌉ neighbours; both a strict-majority "
           "threshold, 32-bit field. For one n:", "",
           "```sh", command(SA, sa_args(1000, "secagg+")) + " --out /tmp/sa", "```", "",
           "| n | aggregation | KB per device per round (up + down) | MB per round (all devices) | "
           "protocol (s per round) | round (s, mean) | beyond the plain update (KB per device per round) |",
           "|---|---|---|---|---|---|---|"]
    for n in SIZES:
        for kind in KINDS:
            run = sa[(n, kind)]
            s = run["summary"]
            a = secagg(s)
            rounds = s["rounds"]
            prot = a.get("protocol_s")
            out.append(f"| {n:,} | {kind} | {kb(per_device_round(run))} | "
                       f"{mb((s['bytes_up'] + s['bytes_down']) / rounds)} | "
                       f"{'' if prot is None else f'{prot / rounds:,.2f}'} | {s['round_s']['mean']:,.2f} | "
                       f"{'' if kind == 'none' else kb(per_device_round(run) - per_device_round(sa[(n, 'none')]))} |")
    out += ["", "What the papers give (n clients, m model coordinates):", "", *PAPERS, ""]

    def over(n, kind):
        """Bytes per device per round beyond the update's own (secure aggregation's overhead)."""
        return per_device_round(sa[(n, kind)]) - per_device_round(sa[(n, "none")])

    def total(n, kind):
        s = sa[(n, kind)]["summary"]
        return (s["bytes_up"] + s["bytes_down"]) / s["rounds"]

    def prot(n, kind):
        s = sa[(n, kind)]["summary"]
        return secagg(s)["protocol_s"] / s["rounds"]

    out += ["Measured growth from n = 100 to n = 1,000 (ten times the clients), as a ratio and as the exponent "
            "e of n^e it fits:", "",
            "| | per-device overhead bytes | total bytes per round | protocol time |", "|---|---|---|---|"]
    for kind in ("secagg", "secagg+"):
        cells = []
        for f in (over, total, prot):
            a, b = f(100, kind), f(1000, kind)
            cells.append(f"{b / a:,.2f}x (e = {exponent(a, b, 100, 1000):.2f})")
        out.append(f"| {kind} | " + " | ".join(cells) + " |")
    def rnd(n, kind):
        return sa[(n, kind)]["summary"]["round_s"]["mean"]

    def comp(n, kind):
        d = sa[(n, kind)]["devices"]
        return sum(float(x["compute_s"]) for x in d) / len(d) / sa[(n, kind)]["summary"]["rounds"]

    ks = ", ".join(f"{min(2 * math.ceil(1.5 * math.log2(n)), n - 1)} at n = {n:,}" for n in SIZES)
    out += ["", f"SecAgg+'s neighbours: k = {ks}; at n = 10 the graph is complete and SecAgg+ is SecAgg.", "",
            f"What it shows: at n = 1,000 a SecAgg client moves {kb(over(1000, 'secagg'))} KB a round beyond its "
            f"update (it receives a sealed share pair from each of its n - 1 peers, 132 bytes each with its ids, and the lists of the "
            f"later phases grow with n too), against {kb(over(1000, 'secagg+'))} KB under SecAgg+, whose neighbourhood grows as log n: "
            f"the per-device overhead grows linearly under SecAgg (e near 1, the paper's O(n)) and about "
            f"logarithmically under SecAgg+. The update (m) dominates SecAgg+'s totals at every n, which grow as n; "
            f"SecAgg's grow faster once its key phases catch up with the update. Time grows more than bytes: a "
            f"round of 1,000 phones takes {rnd(1000, 'secagg'):,.2f} s under SecAgg against "
            f"{rnd(1000, 'none'):,.2f} s without and {rnd(1000, 'secagg+'):,.2f} s under SecAgg+, most of it "
            f"computation, not the protocol's messages: a phone computes {comp(1000, 'secagg'):,.2f} s a round "
            f"under SecAgg (a mask of m elements expanded and added for each of its n - 1 peers, the O(mn) term), "
            f"{comp(1000, 'secagg+'):,.2f} s under SecAgg+ (k peers) and {comp(1000, 'none'):,.3f} s without "
            f"(devices.csv's `compute_s` a round, the training step included).", ""]
    return out


def interplay_section(figures, t):
    it, sa, dp = t["interplay"], t["sa"], t["dp"]
    n = 100

    def up(s):
        return s["bytes_up"] / (s["devices"] * s["rounds"])

    none, sec = sa[(n, "none")]["summary"], sa[(n, "secagg")]["summary"]
    rows = [("none, dense", none), ("none, top-k 1% with error feedback", it[("none", "topk")]),
            ("secagg, dense (32-bit field)", sec), ("secagg, top-k 1% with error feedback", it[("secagg", "topk")]),
            ("secagg, dense, 16-bit field", it[("secagg", "16")])]
    out = ["## Where privacy meets compression, sampling and energy", "",
           f"### Compression under secure aggregation ({n} phones, timing-only)", "",
           "```sh", command(SA, sa_args(n, "secagg", *TOPK)) + " --out /tmp/sa-topk",
           command(SA, sa_args(n, "secagg", "--set", "privacy.secure_aggregation.field_bits=16")) +
           " --out /tmp/sa-16", "```", "",
           "| aggregation, uplink | KB up per device per round | round (s, mean) |", "|---|---|---|"]
    out += [f"| {name} | {kb(up(s))} | {s['round_s']['mean']:,.2f} |" for name, s in rows]
    out += ["", f"Top-k shrinks the plain upload {up(none) / up(it[('none', 'topk')]):,.1f}x but not the masked one "
            f"({kb(up(it[('secagg', 'topk')]))} KB against {kb(up(sec))} KB dense): a masked vector is dense in the "
            f"field, whatever the update's sparsity (and the round under SecAgg is long for another reason: each "
            f"phone expands and adds a mask of m elements for each of its {n - 1} peers). A 16-bit field halves "
            f"the masked input instead ({kb(up(it[('secagg', '16')]))} KB up with the key phases), at the price "
            f"of precision: floor((2^b - 1) / 2n) levels per unit of range, {(2 ** 16 - 1) // (2 * n):,} at "
            f"b = 16 against {(2 ** 32 - 1) // (2 * n):,} at b = 32 for n = {n}.", ""]
    e_fixed, e_pois = (dp[k]["privacy"]["epsilon"] for k in ("1", "1 poisson"))
    out += ["### Client sampling and epsilon", "",
            f"From the accuracy table's runs, z = 1 over {dp['1']['rounds']} rounds: 100 of 1,000 devices a round "
            f"spends epsilon {eps(e_pois)} drawn as Poisson sampling (q = 0.1) and {eps(e_fixed)} drawn as a "
            f"fixed-size sample; every device every round (q = 1) spends {eps(figures['dp_all_devices']['epsilon'])}.", ""]
    out += ["### Energy", ""]
    rows = []
    for n2 in (100, 1000):
        base = sa[(n2, "none")]["summary"].get("energy") or {}
        for kind in ("secagg", "secagg+"):
            s = sa[(n2, kind)]["summary"]
            e = s.get("energy") or {}
            if base.get("total_j") and e.get("total_j"):
                rows.append(f"| {n2:,} | {kind} | {base['total_j'] / 1e3:,.2f} | {e['total_j'] / 1e3:,.2f} | "
                            f"{e['total_j'] / base['total_j']:.2f}x |")
    if rows:
        out += ["The phones declare their power (`wattage_per_state`, and the LTE radio's `wattage_range`): "
                "energy of the whole run (2 rounds) with and without secure aggregation, same rounds.", "",
                "| n | aggregation | energy without (kJ) | energy with (kJ) | ratio |", "|---|---|---|---|---|", *rows, ""]
    else:
        out += ["The fleet declares no wattage: no energy figure.", ""]
    return out


def render(figures, t):
    out = ["# Privacy: what differential privacy and secure aggregation cost", "",
           "Written by `tools/privacy/report.py`. The full run (`/usr/bin/python3 tools/privacy/report.py`, about "
           "6 minutes on 2 busy cores) trains the accuracy table's models for real and stores their figures in "
           "`results/privacy/figures.json`, then runs everything else timing-only. The test `privacy/results` "
           "(`tools/privacy/report.py --check`) reruns the timing-only runs, renders this page again with the "
           "accuracies of `figures.json` and fails when it differs: every epsilon, byte and second here is "
           "checked against the code; the accuracies are checked only against their stored measurements. How DP "
           "and secure aggregation are built: docs/explanation/privacy.md and "
           "docs/explanation/secure-aggregation.md.", ""]
    out += dp_section(figures, t)
    out += sa_section(t)
    out += interplay_section(figures, t)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--render", action="store_true")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "edgetrain"))
    a = ap.parse_args()
    if not a.check and not a.render:
        figures = measure_training(a.binary)
        write_text(FIGURES, json.dumps(figures, indent=1) + "\n")
    with open(FIGURES) as f:
        figures = json.load(f)
    with tempfile.TemporaryDirectory(prefix="edgetrain-privacy-") as scratch:
        runs = CachedRuns(a.binary, scratch, "tools/privacy/report.py")
        t = timing(runs)
    page = render(figures, t) + "\n"
    if not a.check:
        for k, r in figures["dp_fleet"].items():  # timing-only and real runs agree on time and epsilon
            s = t["dp"][k]
            if abs(s["sim_time_s"] - r["sim_time_s"]) > 1e-9 or (s.get("privacy") or {}).get("epsilon") != r["epsilon"]:
                print(f"report: warning: row {k}: the real run's time or epsilon ({r['sim_time_s']}, {r['epsilon']}) "
                      f"differs from the timing-only run's ({s['sim_time_s']}, {(s.get('privacy') or {}).get('epsilon')})")
        write_text(PAGE, page)
        return 0
    with open(PAGE) as f:
        have = f.read()
    if have == page:
        print("results/privacy/README.md: matches")
        return 0
    print("results/privacy/README.md does not match the code (rerun tools/privacy/report.py):")
    print("\n".join(difflib.unified_diff(have.splitlines(), page.splitlines(), "results/privacy/README.md",
                                         "the code gives", lineterm="")))
    return 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Writes results/algorithms/README.md: the federated algorithms of `strategy`, and attackers against the
defences of `defence`, on the shipped natural non-IID example (scenarios/byo/natural.json: LEAF users, one
per device, on 200 phones coming and going with a trace, 20 of those on per round). Every figure on the page
is measured here.

  (no flag)   runs every row with real training (about 25 minutes on 2 cores), writes the measured figures
              to results/algorithms/figures.json, then the page
  --check     rewrites nothing: reruns each row's settings timing-only, without its attack (a row's time and
              bytes do not depend on what is learnt, so they must equal figures.json's, but for a row whose
              model diverged), renders the page from figures.json and fails (exit 1, with a diff) when either
              differs (the algorithms/results test, about a minute)

usage: tools/algorithms/report.py [--check] [--binary build/edgetrain] [--jobs N] [--runs DIR [--resume]]"""
import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, CachedRuns, first_at_accuracy, load_run, write_text  # noqa: E402

RESULTS = os.path.join(ROOT, "results", "algorithms")
PAGE = os.path.join(RESULTS, "README.md")
FIGURES = os.path.join(RESULTS, "figures.json")
SCENARIO = "scenarios/byo/natural.json"
TARGET = 0.70
# Every row: plain FedAvg's server (training.momentum 0: the shipped example's 0.9 is server momentum).
BASE = ("training.momentum=0",)
STRATEGIES = [
    ("FedAvg", ()),
    ("FedAvgM", ("strategy.kind=fedavgm",)),
    ("FedAdam", ("strategy.kind=fedadam",)),
    ("FedYogi", ("strategy.kind=fedyogi",)),
    ("FedProx", ("strategy.kind=fedprox", "strategy.mu=0.01")),
    ("FedProx, mu 0.1", ("strategy.kind=fedprox", "strategy.mu=0.1")),
    ("SCAFFOLD", ("strategy.kind=scaffold",)),
    ("SCAFFOLD, top-k 10%", ("strategy.kind=scaffold", "compression.kind=topk-10%")),
    ("FedAvg, top-k 10%", ("compression.kind=topk-10%",)),
    ("FedDyn", ("strategy.kind=feddyn",)),
    ("SplitFed, cut after 4 modules", ("strategy.kind=splitfed", "strategy.cut_layers=4")),
]
# Personalisation: each device's personalised model on its own classes' test samples (FedAvg's row: the
# global model evaluated so, the baseline); time to PERSONAL_TARGET of their mean.
PERSONAL = [
    ("FedAvg, global model per device", ("strategy.personal_test_samples=100",)),
    ("FedPer", ("strategy.kind=fedper",)),
    ("FedRep", ("strategy.kind=fedrep",)),
    ("FedBN", ("strategy.kind=fedbn",)),
    ("Ditto", ("strategy.kind=ditto",)),
    ("QFedAvg, q 1, global model per device", ("strategy.kind=qfedavg", "strategy.q=1", "strategy.personal_test_samples=100")),
]
PERSONAL_TARGET = 0.80
PER_ROUND = 20
DEFENCES = [
    ("none", ()),
    ("median", ("defence.kind=median",)),
    ("trimmed-mean", ("defence.kind=trimmed-mean", "defence.trim=0.3")),
    ("krum", ("defence.kind=krum",)),
    ("multikrum", ("defence.kind=multikrum",)),
    ("bulyan", ("defence.kind=bulyan",)),
    ("norm-bound", ("defence.kind=norm-bound", "defence.norm_bound=0.5")),
]
ATTACKS = [("sign-flip", ("attack.kind=sign-flip", "attack.scale=4"), [d for d, _ in DEFENCES]),
           ("backdoor", ("attack.kind=backdoor",), ["none", "multikrum", "norm-bound"])]
FRACTIONS = (0.1, 0.3)


def byzantine(fraction, defence):
    """f stated for the Krum family (a round of 20 updates): the rows' timing then needs no attack."""
    if defence not in ("krum", "multikrum", "bulyan"):
        return ()
    return (f"defence.byzantine={-(-round(fraction * 100) * PER_ROUND // 100)}",)


def rows():
    """(section, label, settings) of every row, in page order."""
    out = [("strategy", label, BASE + sets) for label, sets in STRATEGIES]
    out += [("personal", label, BASE + sets) for label, sets in PERSONAL]
    defence_sets = dict(DEFENCES)
    for attack, attack_sets, defences in ATTACKS:
        for fraction in FRACTIONS:
            for d in defences:
                sets = BASE + attack_sets + (f"attack.fraction={fraction}",) + defence_sets[d] + byzantine(fraction, d)
                out.append((attack, f"{attack} {fraction:.0%} / {d}", sets))
    return out


def command(sets):
    return f"edgetrain run {SCENARIO} " + " ".join(f"--set {s}" for s in sets)


def args(sets, *extra):
    return tuple(a for s in sets + extra for a in ("--set", s))


def figures_of(run):
    s = run["summary"]
    reached = first_at_accuracy(run, TARGET)
    attack = s.get("attack") or {}
    personal = s.get("personalisation") or {}
    reached_personal = first_at_accuracy(run, PERSONAL_TARGET, "personal_accuracy_mean") if personal else None
    return {
        "sim_time_s": s["sim_time_s"], "rounds": s["rounds"], "bytes_up": s["bytes_up"], "bytes_down": s["bytes_down"],
        "final_accuracy": s["final_test_accuracy"], "best_accuracy": s["best_test_accuracy"],
        "time_to_target_s": float(reached["sim_time_s"]) if reached else None,
        "bytes_to_target": int(reached["bytes_up"]) + int(reached["bytes_down"]) if reached else None,
        "attack_success": attack.get("final_attack_success"),
        "personal_mean": personal.get("final_accuracy_mean"), "personal_p10": personal.get("final_accuracy_p10"),
        "personal_time_to_target_s": float(reached_personal["sim_time_s"]) if reached_personal else None,
        "personal_bytes_to_target":
            int(reached_personal["bytes_up"]) + int(reached_personal["bytes_down"]) if reached_personal else None,
        "late_pushes": s["late_pushes"],
        "status": s["status"],
    }


def slug(label):
    """A row's run folder name."""
    return "".join(c if c.isalnum() else "-" for c in label.lower())


def measure(binary, jobs, runs_dir, resume):
    """Every row, real training, `jobs` at a time (one worker thread each), into runs_dir/row<i>; with
    `resume`, a row whose run finished before is read again instead of rerun."""
    def one(numbered):
        _, (_, label, sets) = numbered
        out = os.path.join(runs_dir, slug(label))
        if not (resume and os.path.exists(os.path.join(out, "summary.json"))):
            done = subprocess.run([binary, "run", SCENARIO, "--quiet", "--threads", "1", "--out", out, *args(sets)],
                                  cwd=ROOT, capture_output=True, text=True)
            if done.returncode not in (0, 3):  # 3: the run diverged, a result like any other
                raise SystemExit(f"tools/algorithms/report.py: {command(sets)} exited {done.returncode}:\n{done.stderr}")
            print(f"report: {label}: done", flush=True)
        return label, figures_of(load_run(out))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(one, enumerate(rows())))


def accuracy(r, key):
    """An accuracy cell: the figure, or how the run ended when the model diverged."""
    return "diverged" if r["status"] == "diverged" or r[key] is None else f"{r[key]:.4f}"


def mb(v):
    return f"{v / 1e6:,.1f}"


def render(figures):
    f = figures
    lines = [
        "# Federated algorithms on the wire",
        "",
        "Produced by `tools/algorithms/report.py` (real training, about 25 minutes on 2 cores; `--check` reruns each "
        "row's settings timing-only and renders this page again). Every row runs the shipped natural non-IID "
        f"example, `{SCENARIO}`: a TorchScript CNN trained by local SGD (10 local steps of 16) on the LEAF users of "
        "Fashion-MNIST, one per device, on the 200 phones of `platforms/fleets/phones.json`, which come and go as "
        f"the availability trace says; {PER_ROUND} of the devices that are on take part in each round, for 60 "
        "simulated seconds. Every row sets `training.momentum=0`, so that `FedAvg` is plain FedAvg (the shipped "
        "example's 0.9 is server momentum: the `FedAvgM` row). What each algorithm is, and what it sends: "
        "[docs/explanation/strategies.md](../../docs/explanation/strategies.md).",
        "",
        f"## Time and bytes to {TARGET:.2f} test accuracy",
        "",
        "| algorithm | time to target (sim s) | bytes to target (up + down, MB) | final accuracy | best | bytes up, whole run (MB) | bytes down (MB) | command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, _ in STRATEGIES:
        r = f[label]
        sets = BASE + dict(STRATEGIES)[label]
        t = f"{r['time_to_target_s']:,.0f}" if r["time_to_target_s"] is not None else "not reached"
        b = mb(r["bytes_to_target"]) if r["bytes_to_target"] is not None else "-"
        lines.append(f"| {label} | {t} | {b} | {accuracy(r, 'final_accuracy')} | {accuracy(r, 'best_accuracy')} | "
                     f"{mb(r['bytes_up'])} | {mb(r['bytes_down'])} | `{command(sets)}` |")
    scaffold, fedavg, prox, split = f["SCAFFOLD"], f["FedAvg"], f["FedProx"], f["SplitFed, cut after 4 modules"]
    per_round = lambda r, key: r[key] / r["rounds"]  # noqa: E731
    lines += [
        "",
        f"SCAFFOLD's uploads carry the change of the device's control variate beside its model delta, and the "
        f"server's control variate goes down dense beside each model: a round moves "
        f"{per_round(scaffold, 'bytes_up') / per_round(fedavg, 'bytes_up'):.2f} times FedAvg's bytes up and "
        f"{per_round(scaffold, 'bytes_down') / per_round(fedavg, 'bytes_down'):.2f} times its bytes down, so the "
        f"same 60 s hold {scaffold['rounds']} rounds against FedAvg's {fedavg['rounds']}. Compressed, both halves of "
        "its upload shrink alike; the control variate down stays dense.",
        "",
        f"FedProx at mu 0.01 (Flower's example value) changes the local models too little to change an accuracy "
        f"here: {prox['final_accuracy']:.4f} against FedAvg's {fedavg['final_accuracy']:.4f} (the runs' metrics.csv "
        "differ below the fourth digit); mu 0.1 pulls each device's ten local steps back towards the global model.",
        "",
        f"SplitFed runs the CNN's two convolutions and their BatchNorm layers on the phones and the classifier on the "
        f"server: every local step sends the activations at the cut up and their gradient down, so an update's ten "
        f"steps are ten round trips over the phone's link. A round moves "
        f"{per_round(split, 'bytes_up') / per_round(fedavg, 'bytes_up'):.1f} times FedAvg's bytes up, most of it "
        f"activations, and the same 60 s hold {split['rounds']} rounds against FedAvg's {fedavg['rounds']}: on this "
        "fleet's links, sending the model once a round is cheaper than sending activations every step (and the "
        f"shipped example's `round_timeout_s` of 2 s drops {split['late_pushes']} of its updates as late).",
        "",
        f"## Personalisation and fairness: each device's accuracy on its own classes, time and bytes to a mean of "
        f"{PERSONAL_TARGET:.2f}",
        "",
        "Each device that has trained is evaluated with its personalised model on 100 test samples drawn in the "
        "proportions of the classes it trained on; the mean and the 10th percentile (the worst-served devices) are "
        "over those devices. FedAvg's row evaluates its global model so: the baseline; QFedAvg's (q-FFL) too, its "
        "fairness being the worst devices' accuracy. The global model's own test "
        "accuracy is beside: FedPer's and FedRep's global head is never trained (only the body travels).",
        "",
        "| algorithm | time to target (sim s) | bytes to target (MB) | personalised mean | 10th percentile | global model's accuracy | bytes up per round (kB) | rounds | command |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, sets in PERSONAL:
        r = f[label]
        t = f"{r['personal_time_to_target_s']:,.0f}" if r["personal_time_to_target_s"] is not None else "not reached"
        b = mb(r["personal_bytes_to_target"]) if r["personal_bytes_to_target"] is not None else "-"
        lines.append(f"| {label} | {t} | {b} | {r['personal_mean']:.4f} | {r['personal_p10']:.4f} | "
                     f"{accuracy(r, 'final_accuracy')} | {r['bytes_up'] / r['rounds'] / 1e3:,.1f} | {r['rounds']} | "
                     f"`{command(BASE + sets)}` |")
    per, ditto = f["FedPer"], f["Ditto"]
    lines += [
        "",
        f"FedPer's and FedRep's messages carry the body alone (the classifier stays on the device), so a round is "
        f"{per_round(fedavg, 'bytes_up') / per_round(per, 'bytes_up'):.1f} times cheaper up and the same 60 s hold "
        f"{per['rounds']} rounds against FedAvg's {fedavg['rounds']}. Ditto's personal step is a second pass on each "
        f"batch: its rounds take longer ({ditto['rounds']} rounds), and its global model trains as FedAvg's does "
        "(the same model round for round, tested), in fewer rounds.",
        "",
        "No published figure is for this setting (these LEAF users are made from Fashion-MNIST by "
        "`tools/byo/prepare.py`, and the fleet's rounds are cut by its availability trace), so none is put beside.",
        "",
    ]
    for attack, _, defences in ATTACKS:
        lines += [f"## {attack} attackers against the defences", ""]
        success = attack == "backdoor"
        head = "| attackers | defence | final accuracy | best |" + (" attack success |" if success else "") + " rounds | command |"
        lines += [head, "|" + "---|" * (head.count("|") - 1)]
        for fraction in FRACTIONS:
            for d in defences:
                label = f"{attack} {fraction:.0%} / {d}"
                r = f[label]
                sets = next(s for _, l, s in rows() if l == label)
                cells = f"| {fraction:.0%} | {d} | {accuracy(r, 'final_accuracy')} | {r['best_accuracy']:.4f} |"
                if success:
                    cells += " - |" if r["attack_success"] is None else f" {r['attack_success']:.4f} |"
                ended = "" if r["status"] != "diverged" else f" (diverged at {r['sim_time_s']:.1f} s)"
                lines.append(cells + f" {r['rounds']}{ended} | `{command(sets)}` |")
        lines.append("")
    lines += [
        "Attackers are a seeded share of the 200 devices; a round holds whichever of them are on and picked. Krum, "
        "MultiKrum and Bulyan are told f, the attackers' share of a round of 20 (rounded up); Bulyan with 30% "
        "attackers has fewer updates than its 4f + 3 and clamps its counts (docs/explanation/strategies.md). A "
        "defence's comparisons are charged on the server's host: with 3,866 parameters and 20 updates they take "
        "microseconds to milliseconds against rounds of about half a second, so a row's rounds barely move (Bulyan's "
        "repeated Krum costs the most). Every attack and defence row runs FedAvg (plain, as the first table's).",
    ]
    return "\n".join(lines)


def check_timing(binary, figures):
    """Each row's time and bytes against a timing-only run of its settings without the attack (the same
    timing: what is learnt does not change it), but for rows whose model diverged (they stopped early)."""
    wrong = []
    with tempfile.TemporaryDirectory(prefix="edgetrain-algorithms-") as scratch:
        runs = CachedRuns(binary, scratch, "tools/algorithms/report.py")  # one run per distinct setting
        for _, label, sets in rows():
            r = figures[label]
            if r["status"] == "diverged":
                continue
            timing_sets = tuple(s for s in sets if not s.startswith("attack."))
            s = runs(SCENARIO, *args(timing_sets, "training.compute=timing-only"))["summary"]
            for key in ("sim_time_s", "bytes_up", "bytes_down", "rounds"):
                if s[key] != r[key]:
                    wrong.append(f"{label}: timing-only {key} {s[key]} differs from figures.json's {r[key]}")
    return wrong


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "edgetrain"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", default=os.path.join(RESULTS, "runs"), help="where the rows' runs go")
    ap.add_argument("--resume", action="store_true", help="reuse the rows' runs already in --runs")
    a = ap.parse_args()
    if not a.check:
        write_text(FIGURES, json.dumps(measure(a.binary, a.jobs, a.runs, a.resume), indent=1) + "\n")
    with open(FIGURES) as f:
        figures = json.load(f)
    page = render(figures) + "\n"
    if not a.check:
        write_text(PAGE, page)
        return 0
    wrong = check_timing(a.binary, figures)
    with open(PAGE) as f:
        have = f.read()
    if have != page:
        wrong.append("results/algorithms/README.md does not match the code (rerun tools/algorithms/report.py):\n" +
                     "\n".join(difflib.unified_diff(have.splitlines(), page.splitlines(), "results/algorithms/README.md",
                                                    "the code gives", lineterm="")))
    for w in wrong:
        print(w)
    if not wrong:
        print("results/algorithms/README.md: matches")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

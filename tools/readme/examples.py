#!/usr/bin/python3
"""Runs the quick examples on the quickstart fleet (quickstart, bottleneck, async, local-sgd, faults)
and writes the figures quoted for them into the `<!-- figures:NAME -->` blocks of the pages that hold
them (README.md and docs/: the tutorial, the mode pages, the faults guide), so no figure there is
typed by hand. With --check it rewrites nothing: it reruns the examples and fails (exit 1, with a diff) when
a block no longer matches what the code gives; the test suite runs it that way.

Usage: tools/readme/examples.py [--check] [--binary PATH] [NAME...]   (NAME: quickstart, bottleneck,
async, local-sgd, faults; all by default)
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import CachedRuns, figures_main, link  # noqa: E402
from tolerance import acc, below, steered  # noqa: E402

QUICKSTART = "scenarios/quickstart.json"
ASYNC = ["--set", "training.mode=async", "--set", "training.momentum=0", "--set", "stop.rounds=1200"]
LOCAL_SGD = ["--set", "training.mode=local-sgd", "--set", "training.local_steps=5", "--set", "training.momentum=0"]
FAULTS = ["--set", "training.round_timeout_s=10",
          "--set", 'faults={"devices":[{"device":"*","mtbf_s":120,"mttr_s":30}]}']


# The printed summary's training figures: accuracies, and what the training steers in a run that stops
# at its target accuracy (the quickstart's 0.84).
ACCURACIES = re.compile(r"(final|best) ([0-9.]+)")
STEERED = re.compile(r"(rounds|simulated time|time to target|bytes up|bytes down): ([0-9.,]+)")


def marked(stdout):
    stdout = ACCURACIES.sub(lambda m: f"{m.group(1)} {acc(float(m.group(2)))}", stdout)
    return STEERED.sub(lambda m: f"{m.group(1)}: {steered(m.group(2))}", stdout)


def runner(binary, scratch):
    """`run(*ARGS)`: the quickstart with ARGS, its printed summary naming the folder the pages' command
    writes to, its training figures marked."""
    runs = CachedRuns(binary, scratch, "examples")

    def run(*args):
        r = runs(QUICKSTART, *args)
        return dict(r, stdout=marked(r["stdout"].replace(r["out"], "results/quickstart")))
    return run


def mb(b):
    return f"{b / 1e6:.1f} MB"


def pct(x):
    return f"{100 * x:.1f}".rstrip("0").rstrip(".") + "%"


def devices_of(run, prefix):
    return [d for d in run["devices"] if d["device"].startswith(prefix)]


def share(run, prefix, column):
    """The smallest share of the run's simulated time that the devices named prefix* spent in `column`."""
    total = run["summary"]["sim_time_s"]
    return min(float(d[column]) for d in devices_of(run, prefix)) / total


def quickstart(run):
    r = run()
    pi = devices_of(r, "pi-")[0]
    message = int(pi["bytes_up"]) // int(pi["steps"])
    uplink = link(r, "pi-1-up")
    seconds = message * 8 / float(uplink["bandwidth_bps"])
    return (f"```\n{r['stdout'].rstrip()}\n```\n\n"
            f"Measured with `build/edgetrain run {QUICKSTART}` on the 2-core development machine (wall time varies "
            f"with the machine). The Raspberry-Pi-class devices set the pace: a {message:,}-byte gradient needs "
            f"{seconds:.2f} s of their {float(uplink['bandwidth_bps']) / 1e6:g} Mbit/s uplink at its full rate, more "
            f"with TCP's slow start and headers (the default network model), so `devices.csv` shows "
            f"them communicating {steered(pct(share(r, 'pi-', 'comm_s')))} of the time while the Jetsons wait "
            f"{steered(pct(share(r, 'jetson-', 'wait_s')))} of it.")


def async_(run):
    plain = run(*ASYNC)
    inverse = run(*ASYNC, "--set", "training.staleness_lr=inverse")
    momentum = run(*ASYNC[:2], *ASYNC[4:])  # the quickstart's own momentum, 0.9
    s = plain["summary"]
    return (f"On the quickstart fleet, `build/edgetrain run {QUICKSTART} {' '.join(ASYNC)}` applies "
            f"{s['rounds']:,} pushes in {s['sim_time_s']:.2f} simulated seconds (the fast devices push far more "
            f"often than the Raspberry-Pi-class ones) and ends at {acc(s['final_test_accuracy'])} test accuracy; with "
            f"`--set training.staleness_lr=inverse` {acc(inverse['summary']['final_test_accuracy'])}. With the "
            f"quickstart's momentum 0.9 the same run ends {below(momentum['summary']['final_test_accuracy'], 0.3)}: "
            f"stale gradients and heavy-ball momentum do not mix (staleness up to "
            f"{momentum['summary']['staleness_max']} there), and where the run ends differs from one CPU to another "
            f"(see \"Determinism\").")


def local_sgd(run):
    local, sync = run(*LOCAL_SGD)["summary"], run()["summary"]
    return (f"```sh\nbuild/edgetrain run {QUICKSTART} {' '.join(LOCAL_SGD)}\n```\n\n"
            f"reaches the quickstart's 0.84 target at {steered(local['time_to_target_s'], '.0f')} simulated s after "
            f"{steered(local['rounds'])} rounds of 5 local steps ({steered(mb(local['bytes_up']))} up, "
            f"{steered(mb(local['bytes_down']))} down), against {steered(sync['time_to_target_s'], '.0f')} s and "
            f"{steered(sync['rounds'])} rounds for synchronous SGD: the slow "
            f"uplinks, not compute, set the pace, so five times more local computation per round buys "
            f"{'little' if local['time_to_target_s'] < sync['time_to_target_s'] else 'no'} time here.")


def faults(run):
    s = run(*FAULTS)["summary"]
    shown = " \\\n  ".join(f"--set '{v}'" if "{" in v else f"--set {v}" for v in FAULTS[1::2])
    target = (f"still reaches 0.84 (at {steered(s['time_to_target_s'], '.0f')} simulated s, "
              f"{steered(s['rounds'])} rounds)"
              if s["time_to_target_s"] is not None else f"does not reach 0.84 within {s['rounds']} rounds")
    return (f"```sh\nbuild/edgetrain run {QUICKSTART} {shown}\n```\n\n"
            f"{target} with {steered(s['restarts'])} restarts, {steered(s['offline_s'], '.0f')} device-seconds "
            f"off, {steered(s['failed_pushes'])} failed pushes and {steered(s['missing_updates'])} updates missing "
            f"from their rounds: "
            f"rounds without the slowest devices close sooner.")


def bottleneck(run):
    r = run()
    b = r["summary"]["bottleneck"]
    critical = b["critical_path"]
    narrow = link(r, critical["link"])
    ingress = link(r, "cloud-ingress")
    waiting = [c for c, counts in b["by_class"].items() if max(counts, key=counts.get) == "wait"]
    return (f"On the quickstart, `{critical['device']}` is the slowest device of "
            f"{steered(pct(critical['share_of_rounds']))} of the rounds (the three Pis are alike; ties go by device "
            f"order) and its {float(narrow['bandwidth_bps']) / 1e6:g} Mbit/s uplink `{critical['link']}` is the critical link: busy "
            f"{steered(pct(float(narrow['busy_fraction'])))} of the run at "
            f"{steered(float(narrow['utilization_when_busy']), '.2f')} of its capacity. The shared `cloud-ingress` is "
            f"busy {steered(pct(float(ingress['busy_fraction'])))} of the run but at "
            f"{steered(float(ingress['utilization_when_busy']), '.2f')} of its capacity: its traffic is limited by the "
            f"uplinks. "
            f"The {' and '.join(sorted(waiting))} classes are wait-bound.")


BLOCKS = {"quickstart": quickstart, "bottleneck": bottleneck, "async": async_, "local-sgd": local_sgd, "faults": faults}


def comparable(text):
    """Wall time is the one figure that is not the code's: leave it out of the comparison."""
    return re.sub(r"wall time: [0-9.]+ s", "wall time: ... s", text)


if __name__ == "__main__":
    sys.exit(figures_main(sys.argv[1:], BLOCKS, runner, "tools/readme/examples.py", comparable=comparable))

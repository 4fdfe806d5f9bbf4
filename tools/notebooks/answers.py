#!/usr/bin/python3
"""Runs the question variants of each notebook's answer key (notebooks/NAME.ipynb, its last cell) and writes the
key's figures into its `<!-- figures:answers-NAME -->` block, so no figure there is typed by hand. With --check
it rewrites nothing and fails (exit 1, with a diff) when a block no longer matches what the code gives; the
test suite runs it that way, one notebook per test.

The notebooks run the Python module from notebooks/; this script runs the same scenarios with the command line
from the repository root (`edgetrain run SCENARIO --set KEY=VALUE`: the same engine, the same results). A
variant whose answer quotes no accuracy runs timing-only (the same simulated times, bytes and buffers, without
the training). The warnings `edgetrain.validate` gives are those the run's summary records.

Usage: tools/notebooks/answers.py [--check] [--binary PATH] [NAME...]   (all notebooks by default)
"""
import ast
import json
import math
import os
import statistics
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import CachedRuns, ROOT, device, figures_main, first_at_accuracy, link  # noqa: E402
from tolerance import acc, below, steered  # noqa: E402


class Runner:
    """`run(NAME, *ARGS)`: scenarios/NAME.json (or a scenario file given by its absolute path) with ARGS;
    `scratch` is the folder a block may write its own scenarios into."""

    def __init__(self, binary, scratch):
        self.runs, self.scratch = CachedRuns(binary, scratch, "notebooks"), scratch

    def __call__(self, name, *args):
        return self.runs(name if os.path.isabs(name) else f"scenarios/{name}.json", *args)


def sets(*pairs):
    """--set arguments, one per KEY=VALUE."""
    return tuple(arg for pair in pairs for arg in ("--set", pair))


TIMING = sets("training.compute=timing-only")
TOPK = sets("compression.kind=topk", "compression.ratio=0.01", "compression.error_feedback=true")
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
         10: "ten"}
TIMES = {2: "twice", 3: "three times", 4: "four times", 5: "five times"}


def num(row, key):
    return float(row[key])


def round_s(run):
    return run["summary"]["round_s"]["mean"]


def mbit(bps):
    return f"{bps / 1e6:g} Mbit/s"


def items(*answers):
    """The answer key: numbered items, each one paragraph of the list."""
    return "\n".join(f"{i}. {text}" for i, text in enumerate(answers, 1))


def either(condition, yes, no):
    """The words the runs support: `yes` when `condition` holds (as the author found), else `no`, so that
    a change in what the runs show changes the text, and --check fails. (Both are formatted: `no` must format
    whatever the runs gave.)"""
    return yes if condition else no


def notebook_literal(notebook, name):
    """The literal value assigned to `name` (or of the dict key `name`) in a code cell of notebooks/NOTEBOOK:
    the answer key's runs use the notebook's own settings."""
    with open(os.path.join(ROOT, "notebooks", notebook + ".ipynb"), encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return ast.literal_eval(node.value)
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if isinstance(key, ast.Constant) and key.value == name:
                        return ast.literal_eval(value)
    raise SystemExit(f"notebooks/{notebook}.ipynb assigns no literal {name}")


# stragglers.ipynb

STRAGGLERS = "teaching/stragglers"


def stragglers(run):
    sync, asyn = run(STRAGGLERS), run(STRAGGLERS, *sets("training.mode=async"))
    fast = run(STRAGGLERS, *sets("platform.links.pi-1-up.bandwidth=20Mbps"))
    momentum = run(STRAGGLERS, *sets("training.mode=async", "training.momentum=0.9"))
    s, f, a, m = sync["summary"], fast["summary"], asyn["summary"], momentum["summary"]
    target = f"{sync['scenario']['stop']['target_accuracy']:.2f}"

    slowest, count = Counter(r["slowest_device"] for r in fast["rounds"]).most_common(1)[0]
    every = "of every round" if count == len(fast["rounds"]) else f"of {count} of the {len(fast['rounds'])} rounds"
    cp = f["bottleneck"]["critical_path"]
    q1 = (f"With `pi-1-up` at 20 Mbit/s the synchronous run reaches {target} after about "
          f"{steered(f['time_to_target_s'], '.0f')} simulated seconds ({steered(f['rounds'])} rounds of about "
          f"{round_s(fast):.2f} s) instead of about {steered(s['time_to_target_s'], '.0f')} s "
          f"({steered(s['rounds'])} rounds of about {round_s(sync):.2f} s). "
          + either(slowest != "pi-1", "The Pi is no longer the straggler: ", "The Pi is still the straggler: ")
          + f"`rounds.csv` names `{slowest}` as the slowest device {every}, and the critical path's link is "
          f"`{cp['link']}`, a {cp['class']}'s {mbit(cp['link_bandwidth_bps'])} uplink. Sync is "
          + either(f["time_to_target_s"] > a["time_to_target_s"], "still slower than", "faster than")
          + f" async was (about {steered(a['time_to_target_s'], '.0f')} s).")

    warned = any("heavy-ball momentum on stale updates amplifies their staleness and tends to diverge" in w
                 for w in m["warnings"])
    q2 = (either(warned, "`validate` warns that heavy-ball momentum on stale updates amplifies their staleness and "
                         "tends to diverge.", "`validate` gives no warning.")
          + either(m["time_to_target_s"] is None,
                   f" The run never reaches {target}: it stops at the {m['sim_time_s']:.0f} s limit (status "
                   f"`{m['status']}`) with a best accuracy of about {acc(m['best_test_accuracy'], 2)} and a final "
                   f"one {below(m['final_test_accuracy'], 0.3)}.",
                   f" The run reaches {target} (status `{m['status']}`)."))

    ages = {}
    for row in asyn["staleness"]:
        ages.setdefault(row["device"], []).append(int(row["staleness"]))
    pi, others = ages["pi-1"], [v for d, v in ages.items() if d != "pi-1"]
    stalest = max(ages, key=lambda d: statistics.mean(ages[d]))
    pushes = {}
    for d in asyn["devices"]:
        if d["device"] != "pi-1":
            pushes.setdefault(d["class"], []).append(len(ages[d["device"]]))

    def per_class(cls, name):
        lo, hi = min(pushes[cls]), max(pushes[cls])
        return f"{steered(lo)} for each {name}" if lo == hi else f"{steered(lo)} to {steered(hi)} for the {name}s"

    q3 = (either(stalest == "pi-1", "The Pi's (`pi-1`)", f"Not the Pi's but `{stalest}`'s")
          + f": mean staleness about {steered(statistics.mean(pi), '.1f')}, up to {steered(max(pi))} versions, "
          f"against {steered(round(min(statistics.mean(v) for v in others)))} to "
          f"{steered(max(max(v) for v in others))} for the others. It pushes "
          + either(len(pi) < min(min(v) for v in pushes.values()), "fewest", "not the fewest")
          + f" updates ({steered(len(pi))}, against {per_class('jetson', 'Jetson')} and {per_class('phone', 'phone')})"
          f" because every upload takes long on its {mbit(num(link(asyn, 'pi-1-up'), 'bandwidth_bps'))} uplink, and "
          f"while it computes and uploads, the fast devices' updates keep advancing the model.")

    reached = first_at_accuracy(asyn, float(target))
    later = int(asyn["metrics"][-1]["round"]) - int(reached["round"])
    q4 = (f"The target is checked at each evaluation: the one at {steered(num(reached, 'sim_time_s'), '.1f')} s read "
          f"about {acc(num(reached, 'test_accuracy'))}, so the target was reached then (`time_to_target_s` "
          f"{steered(a['time_to_target_s'], '.1f')}, exact only to the {a['time_to_target_exact_to']}). The run then "
          f"ended {'one update' if later == 1 else f'{later} updates'} later and evaluated its final model, which "
          f"read about {acc(a['final_test_accuracy'], 3)}: in asynchronous SGD the accuracy moves with every (possibly "
          f"stale) update and can drop again. `best_test_accuracy` keeps the {acc(a['best_test_accuracy'])}.")
    return items(q1, q2, q3, q4)


# slow-stream.ipynb

SLOW = "teaching/slow-stream"


def slow_stream(run):
    sync, faster = run(SLOW), run(SLOW, *sets("devices.3.stream.rate.value=20"))
    scadles = run(SLOW, *sets("training.mode=scadles"), *TIMING)  # the ScaDLES answers quote no accuracy
    wide, narrow = (run(SLOW, *sets("training.mode=scadles", f"training.window_s={w}"), *TIMING) for w in (2, 0.5))
    fast_devices = [d["device"] for d in sync["devices"] if d["device"] != "phone-2"]
    slow_rate = num(device(sync, "phone-2"), "stream_rate_samples_per_s")
    fast_rate = num(device(sync, fast_devices[0]), "stream_rate_samples_per_s")
    batch = int(device(sync, "phone-2")["batch_size"])

    def bound(r, name="phone-2"):
        return device(r, name)["bound"]

    def fast(r, key):
        return device(r, fast_devices[0])[key]

    def others_wait(r):
        return all(bound(r, d) == "wait" for d in fast_devices)

    q1 = (f"At {num(device(faster, 'phone-2'), 'stream_rate_samples_per_s'):g} samples/s the synchronous run closes "
          f"{faster['summary']['rounds']} rounds instead of {sync['summary']['rounds']} and ends at about "
          f"{acc(faster['summary']['final_test_accuracy'], 3)} accuracy (against about "
          f"{acc(sync['summary']['final_test_accuracy'], 3)}). `phone-2` is "
          + either(bound(faster) == bound(sync), "still", "now")
          + f" `{bound(faster)}`-bound: a batch of {batch} takes "
          f"{batch / num(device(faster, 'phone-2'), 'stream_rate_samples_per_s'):g} s of its stream, and the others "
          + either(others_wait(faster), "still wait for it.", "no longer wait for it."))

    age = statistics.mean(num(device(sync, d), "sample_age_mean_s") for d in fast_devices)
    peak = min(int(device(sync, d)["buffer_peak_samples"]) for d in fast_devices)
    q2 = (f"About {age:.0f} s (of a {sync['summary']['sim_time_s']:.0f} s run). With "
          f"`{sync['scenario']['stream']['buffer']['policy']}` every sample that arrives is kept until it is trained "
          f"on; the fast devices receive {fast_rate:g} samples/s but take only {batch} per round (one round about "
          f"every {round_s(sync):.0f} s), so their buffers grow to "
          + either(1000 <= peak < 1e6, "thousands of samples", f"{peak:,} samples")
          + " and they train on ever older ones.")

    windows = (wide["scenario"]["training"]["window_s"], narrow["scenario"]["training"]["window_s"])
    slow_batches = {int(device(r, "phone-2")["batch_size"]) for r in (wide, narrow)}
    slow_batch = max(slow_batches)
    batch_min = wide["scenario"]["training"]["batch_min"]
    q3 = ("`phone-2`'s batch "
          + either(len(slow_batches) == 1, f"stays {slow_batch} with both windows", f"is {sorted(slow_batches)}")
          + f": {slow_rate:g} samples/s × the window is at most {slow_rate * max(windows):g}, and `batch_min` is "
          f"{batch_min}. So the rounds are still paced by `phone-2` ({slow_batch} samples take "
          f"{slow_batch / slow_rate:g} s) and "
          + either(wide["summary"]["rounds"] == narrow["summary"]["rounds"],
                   f"{wide['summary']['rounds']} rounds close with either window.",
                   f"{wide['summary']['rounds']} and {narrow['summary']['rounds']} rounds close.")
          + f" The fast devices' batches follow the window: {fast(wide, 'batch_size')} with `window_s` {windows[0]:g} "
          f"(they become `{fast(wide, 'bound')}`-bound too: {fast(wide, 'batch_size')} samples are "
          f"{int(fast(wide, 'batch_size')) / fast_rate:g} s of their stream), {fast(narrow, 'batch_size')} with "
          f"{windows[1]:g} (`{fast(narrow, 'bound')}`-bound, and their buffers grow again, to "
          f"{int(fast(narrow, 'buffer_peak_samples')):,} samples, since they take {fast(narrow, 'batch_size')} per "
          f"round of about {round_s(narrow):.0f} s).")

    scadles_batch = int(device(scadles, "phone-2")["batch_size"])
    shorter = round(round_s(sync) / round_s(scadles))
    q4 = (f"A sync round needs {batch} of `phone-2`'s samples, {batch / slow_rate:g} s of its {slow_rate:g} "
          f"samples/s stream. ScaDLES asks it for only {scadles_batch} (about {scadles_batch / slow_rate:g} s of "
          f"stream), so rounds are about {TIMES.get(shorter, f'{shorter} times')} shorter "
          f"({scadles['summary']['rounds']} against {sync['summary']['rounds']}); the fast devices meanwhile train "
          f"on {fast(scadles, 'batch_size')} samples a round instead of {batch}.")
    return items(q1, q2, q3, q4)


# overflow.ipynb

OVERFLOW = "teaching/overflow"


def overflow(run):
    base = run(OVERFLOW)
    truncation = run(OVERFLOW, *sets("stream.buffer.policy=truncation"), *TIMING)
    scadles = run(OVERFLOW, *sets("training.mode=scadles"))
    newest = run(OVERFLOW, *sets("stream.buffer.policy=drop-newest"), *TIMING)
    larger = run(OVERFLOW, *sets("stream.buffer.capacity_samples=5000"), *TIMING)
    pi, pi_base = device(truncation, "pi-1"), device(base, "pi-1")
    window = truncation["scenario"]["stream"]["buffer"]["window_s"]
    oldest = max(num(d, "sample_age_max_s") for d in truncation["devices"])
    drops = statistics.mean(int(d["samples_dropped"]) for d in truncation["devices"])
    base_drops = {int(d["samples_dropped"]) for d in base["devices"]}
    base_drop = max(base_drops)
    q1 = ("With `truncation` the samples trained on are "
          + either(oldest < window, f"under {window:g} s old", f"up to {oldest:.2f} s old")
          + f" (mean about {num(pi, 'sample_age_mean_s'):.2f} s on `pi-1`, max "
          + either(window - 0.01 < num(pi, "sample_age_max_s") < window, f"just under {window:g} s",
                   f"{num(pi, 'sample_age_max_s'):.2f} s")
          + f"), against about {num(pi_base, 'sample_age_mean_s'):.1f} s with `drop-oldest`; each device drops "
          + either(drops > base_drop, "slightly more", "fewer")
          + f" (about {round(drops, -1):,.0f} against {base_drop:,}). The buffer peaks at "
          f"{truncation['summary']['buffer_peak_samples']:,} samples: truncation applies when a step starts, so "
          f"between two steps (a round lasts about {round_s(truncation):.2f} s) the buffer keeps filling.")

    rate = num(pi_base, "stream_rate_samples_per_s")
    scadles_window = scadles["scenario"]["training"]["window_s"]
    pi_scadles = device(scadles, "pi-1")
    arrived = int(pi_scadles["samples_arrived"])
    share = 100 * int(pi_scadles["samples_trained"]) / arrived
    share_sync = 100 * int(pi_base["samples_trained"]) / int(pi_base["samples_arrived"])
    q2 = (f"ScaDLES sizes the batch by the stream, {rate:g} samples/s × `window_s` {scadles_window:g} s = "
          f"{pi_scadles['batch_size']} per step. Each Pi trains {int(pi_scadles['samples_trained']):,} of its "
          f"{arrived:,} samples (about {share:.0f}%, against under {math.ceil(share_sync)}% in sync) and drops "
          f"{int(pi_scadles['samples_dropped']):,}; the final accuracy is about "
          f"{acc(scadles['summary']['final_test_accuracy'], 3)} instead of about "
          f"{acc(base['summary']['final_test_accuracy'], 3)}.")

    pi_newest = device(newest, "pi-1")
    newest_drops = {int(d["samples_dropped"]) for d in newest["devices"]}
    q3 = (f"`drop-newest` refuses arrivals once the buffer is full and keeps the samples it has, so the fleet trains "
          f"on the *oldest* samples: mean age about {num(pi_newest, 'sample_age_mean_s'):.1f} s and up to about "
          f"{num(pi_newest, 'sample_age_max_s'):.1f} s, against about {num(pi_base, 'sample_age_mean_s'):.1f} s and "
          f"{num(pi_base, 'sample_age_max_s'):.1f} s with `drop-oldest`. "
          + either(newest_drops == base_drops, f"Drops are the same, {base_drop:,} per device.",
                   f"Drops differ: {', '.join(f'{n:,}' for n in sorted(newest_drops))} per device against "
                   f"{base_drop:,}."))

    pi_larger = device(larger, "pi-1")
    capacity = larger["scenario"]["stream"]["buffer"]["capacity_samples"]
    q4 = (f"With {capacity:,} samples the devices drop "
          + either(int(pi_larger["samples_dropped"]) < base_drop, "fewer", "more")
          + f" ({int(pi_larger['samples_dropped']):,} each instead of {base_drop:,}) but train on "
          + either(pi_larger["samples_trained"] == pi_base["samples_trained"], "exactly as many", "a different number")
          + f" ({int(pi_larger['samples_trained']):,} for a Pi): the rest just waits longer, so the mean sample age "
          f"grows to about {num(pi_larger, 'sample_age_mean_s'):.1f} s (max {num(pi_larger, 'sample_age_max_s'):.0f} "
          f"s = {capacity:,} / {rate:g} per second). A larger buffer does not help when training is the limit; it "
          f"only costs memory and freshness.")
    return items(q1, q2, q3, q4)


# non-iid.ipynb

NON_IID = "teaching/non-iid"


def non_iid(run):
    shards, iid = run(NON_IID), run(NON_IID, *sets("dataset.partition.kind=iid"))
    fewer = run(NON_IID, *sets("training.local_steps=5"))
    two = run(NON_IID, *sets("dataset.partition.labels_per_device=2"))
    dirichlet = run(NON_IID, *sets('dataset.partition={"kind":"dirichlet","alpha":0.3}'))

    def final(r):
        return r["summary"]["final_test_accuracy"]

    q1 = (f"About {acc(final(two), 3)}, "
          + either(final(shards) < final(two) < final(iid), "between", "not between")
          + f" one label per device (about {acc(final(shards), 3)}) and IID (about {acc(final(iid), 3)}), in "
          + either(two["summary"]["rounds"] == shards["summary"]["rounds"] == iid["summary"]["rounds"],
                   f"the same {two['summary']['rounds']} rounds", f"{two['summary']['rounds']} rounds")
          + ": two labels per device drift less between averagings.")

    samples = [int(d["partition_samples"]) for d in dirichlet["devices"]]
    even = {int(d["partition_samples"]) for d in shards["devices"]}
    q2 = (f"A Dirichlet partition gives each device a mix of labels with a skew set by `alpha`, and unequal amounts "
          f"of data: from about {round(min(samples), -2):,} to about {round(max(samples), -2):,} samples per device "
          f"instead of {max(even):,} each. The final accuracy is about {acc(final(dirichlet), 3)}, "
          + either(final(iid) - final(dirichlet) < final(dirichlet) - final(shards), "much closer to IID",
                   "closer to one label per device")
          + " than one label per device.")

    sending = [d for d in shards["devices"] if d["bound"] == "communication"]
    classes = {d["class"] for d in sending}
    uplink = mbit(num(link(shards, sending[0]["device"] + "-up"), "bandwidth_bps"))
    mostly = all(num(d, "comm_s") > shards["summary"]["sim_time_s"] / 2 for d in sending)
    rest_wait = all(d["bound"] == "wait" for d in shards["devices"] if d not in sending)
    q3 = (f"The rounds are bound by communication, not compute: the {WORDS.get(len(sending), len(sending))} "
          f"{'Pis' if classes == {'pi'} else 'devices'} spend {'most' if mostly else 'part'} of the run sending their "
          f"updates over their {uplink} uplinks (`bound` = `communication`), and the other devices "
          + either(rest_wait, "wait for them", "do not all wait for them")
          + f". Cutting the local computation shortens each round only a little ({fewer['summary']['rounds']} rounds "
          f"instead of {shards['summary']['rounds']}).")

    steps = {r["scenario"]["training"]["local_steps"]: r for r in (fewer, shards)}
    q4 = (either(final(fewer) > final(shards) - 0.02, "No: the two non-IID curves almost overlap.",
                 "Yes: the 5-step curve lies below.")
          + f" {fewer['summary']['rounds']} × {min(steps)} local steps end at about {acc(final(fewer), 3)} and "
          f"{shards['summary']['rounds']} × {max(steps)} at about {acc(final(shards), 3)} (best: about "
          f"{acc(fewer['summary']['best_test_accuracy'], 3)} against {acc(shards['summary']['best_test_accuracy'], 3)})"
          f". With one label per device, most of the extra local steps push each device's model towards its own "
          f"label, and the averaging then cancels that drift: with non-IID data more local work is not more progress.")
    return items(q1, q2, q3, q4)


# compression.ipynb

COMPRESSION = "teaching/compression"
EF = sets("compression.error_feedback=true")
FAST_PIS = sets(*(f"platform.links.pi-{i}-up.bandwidth=100Mbps" for i in (1, 2, 3)))


def compression(run):
    def final(r):
        return r["summary"]["final_test_accuracy"]

    def kb_round(r):
        return int(device(r, "pi-1")["bytes_up"]) / r["summary"]["rounds"] / 1e3

    tenth, tenth_ef = run(COMPRESSION, *sets("compression.kind=topk-0.1%")), run(COMPRESSION, *sets("compression.kind=topk-0.1%"), *EF)
    percent, percent_ef = run(COMPRESSION), run(COMPRESSION, *EF)
    q1 = (f"Top-k 0.1% closes {tenth['summary']['rounds']} rounds and ends at about {acc(final(tenth), 3)} without "
          f"error feedback, {acc(final(tenth_ef), 3)} with it (1%: {acc(final(percent), 3)} and "
          f"{acc(final(percent_ef), 3)}). "
          + either(tenth["summary"]["rounds"] - percent["summary"]["rounds"] < 10,
                   "Barely more rounds than 1%: once the upload is small, the dense model sent down each round and "
                   "the compute set the round's length, so a smaller update buys almost no time, ",
                   "More rounds than 1%, ")
          + "while each round keeps ten times less of the gradient.")

    int8, int4, sign = (run(COMPRESSION, *sets(f"compression.kind={k}")) for k in ("int8", "int4", "sign"))
    q2 = (f"`int4` sends about {kb_round(int4):.1f} KB a round and `sign` about {kb_round(sign):.1f} KB, against "
          f"{kb_round(int8):.1f} KB for `int8`; they end at about {acc(final(int4), 3)} and {acc(final(sign), 3)}, "
          f"against {acc(final(int8), 3)} for `int8`: "
          + either(max(final(int4), final(sign)) >= final(int8) - 0.01,
                   "fewer bits a round, more rounds in the 120 s, and no loss: quantisation keeps every entry.",
                   "fewer bits a round, but each round learns less."))

    dense_fast = run(COMPRESSION, *sets("compression.kind=fp32"), *FAST_PIS)
    ef_fast = run(COMPRESSION, *EF, *FAST_PIS)
    critical = dense_fast["summary"]["bottleneck"]["critical_path"]
    q3 = (f"With 100 Mbit/s uplinks dense closes {dense_fast['summary']['rounds']} rounds and ends at about "
          f"{acc(final(dense_fast), 3)}; top-k with error feedback closes {ef_fast['summary']['rounds']} and ends at "
          f"about {acc(final(ef_fast), 3)}. "
          + either(final(dense_fast) >= final(ef_fast),
                   "Dense wins: the upload no longer limits the rounds, so compression buys few extra rounds and "
                   "each compressed round still learns less.",
                   f"Top-k with error feedback still wins: the dense rounds are now limited by `{critical['link']}` "
                   f"({mbit(critical['link_bandwidth_bps'])}), another device's uplink, so the dense update still "
                   "costs more time than compression costs accuracy."))

    dense = run(COMPRESSION, *sets("compression.kind=fp32"))
    q4 = (f"Accuracy against rounds: after as many rounds as dense ({dense['summary']['rounds']}), top-k without error "
          f"feedback is far below it, so its {percent['summary']['rounds']} rounds do not make up the difference. "
          "Against simulated time the curves mix both effects (more rounds, each worth less).")
    return items(q1, q2, q3, q4)


# thin-uplink.ipynb

THIN = "teaching/thin-uplink"


def thin_uplink(run):
    def per_round(r):
        """The notebook's table row: round time, MB up and down, the Pi's compute and communication per round."""
        s, pi, n = r["summary"], r["devices"][0], r["summary"]["rounds"]
        return {"round_s": s["round_s"]["mean"], "MB_up": s["bytes_up"] / n / 1e6, "MB_down": s["bytes_down"] / n / 1e6,
                "compute_s": num(pi, "compute_s") / n, "comm_s": num(pi, "comm_s") / n, "bound": pi["bound"]}

    dense, topk = per_round(run(THIN)), per_round(run(THIN, *TOPK))
    light = sets("model.name=mobilenet_v2")
    mobile, mobile_topk = per_round(run(THIN, *light)), per_round(run(THIN, *light, *TOPK))
    slower = sets("platform.hosts.pi-1.speed=1Gf")
    slow, slow_topk = per_round(run(THIN, *slower)), per_round(run(THIN, *slower, *TOPK))
    tenth = per_round(run(THIN, *sets("compression.kind=topk", "compression.ratio=0.1",
                                      "compression.error_feedback=true")))
    mobile_speedup = mobile["round_s"] / mobile_topk["round_s"]
    q1 = (f"MobileNetV2 dense is {mobile['bound']}-bound: about {mobile['round_s']:.0f} s per round (about "
          f"{mobile['comm_s']:.0f} s of it communication, about {mobile['compute_s']:.0f} s compute; "
          f"{mobile['MB_up']:.0f} MB up). With top-k it takes about {mobile_topk['round_s']:.0f} s: about "
          f"{mobile_speedup:.1f}x faster, and {mobile_topk['bound']}-bound. A light model has less compute to hide "
          f"the transfer behind, so compression pays "
          + either(mobile_speedup > dense["round_s"] / topk["round_s"], "more.", "less."))

    q2 = (f"At 1 Gflop/s per core the dense round takes about {slow['round_s']:.0f} s and the Pi is "
          f"{slow['bound']}-bound (about {slow['compute_s']:.0f} s of compute against {slow['comm_s']:.0f} s of "
          f"communication per round). Top-k still removes most of the upload: about {slow_topk['round_s']:.0f} s per "
          f"round, {slow['round_s'] / slow_topk['round_s']:.1f}x. In synchronous rounds compute and transfer add up, "
          f"so shrinking either helps as long as it is not negligible.")

    compressed = run(THIN, *TOPK)
    down = link(compressed, "pi-1-down")
    q3 = (f"The dense model it downloads each round (about {topk['MB_down']:.0f} MB in `MB_down`) over its "
          f"{mbit(num(down, 'bandwidth_bps'))} downlink `pi-1-down` (about "
          f"{num(down, 'busy_s') / compressed['summary']['rounds']:.0f} s a round): "
          + either(topk["MB_down"] == dense["MB_down"], "top-k compresses only the upload.",
                   "top-k compresses the download too."))

    q4 = (f"About {tenth['round_s']:.1f} s per round ({tenth['MB_up']:.1f} MB up), "
          + either(topk["round_s"] < tenth["round_s"] < dense["round_s"], "between", "not between")
          + f" dense (about {dense['round_s']:.0f} s) and 1% (about {topk['round_s']:.0f} s).")
    return items(q1, q2, q3, q4)


# site-uplink.ipynb

SITE = "teaching/site-uplink"
CAMERAS = "platform.classes.camera.count"


def site_uplink(run):
    with open(os.path.join(ROOT, "sweeps", "teaching-site-uplink.json")) as f:
        counts = json.load(f)["grid"][CAMERAS]
    line_200 = sets("platform.links.shop-uplink-up.bandwidth=200Mbps",
                    "platform.links.shop-uplink-down.bandwidth=200Mbps")
    base = {c: run(SITE, *sets(f"{CAMERAS}={c}")) for c in counts}
    wide = {c: run(SITE, *sets(f"{CAMERAS}={c}"), *line_200) for c in counts}
    largest = max(counts)
    topk = run(SITE, *sets(f"{CAMERAS}={largest}", "compression.kind=topk", "compression.ratio=0.01"))

    camera_bps = num(link(base[counts[0]], "camera-0-up"), "bandwidth_bps")
    line_bps = num(link(base[counts[0]], "shop-uplink-up"), "bandwidth_bps")
    fill = round(line_bps / camera_bps)

    def own(r):
        b = r["summary"]["bottleneck"]
        return b["links"][0]["link"].startswith("camera-") and b["critical_path"]["link"].startswith("camera-")

    def shop(r):
        b = r["summary"]["bottleneck"]
        return b["links"][0]["link"].startswith("shop-") and b["critical_path"]["link"].startswith("shop-")

    last_own = max(c for c in counts if own(base[c]))
    first_shop = min(c for c in counts if shop(base[c]))
    agrees = (all(own(base[c]) for c in counts if c <= last_own) and
              all(shop(base[c]) for c in counts if c >= first_shop) and last_own <= fill < first_shop)
    quoted = [c for c in counts if c != 20]  # the answer's examples; the table beside it has every count
    q1 = (f"Each camera can send at up to {mbit(camera_bps)}, so about {WORDS.get(fill, fill)} cameras fill the "
          f"{mbit(line_bps)} line. The table "
          + either(agrees, "agrees", "does not quite agree")
          + f": the busiest and critical links are the cameras' own links up to {last_own} cameras and the shop's "
          f"line from {first_shop} on, where the round time starts growing with the count (about "
          + ", ".join(f"{round_s(base[c]):.2f} s at {c}" for c in quoted) + ").")

    flat = max(c for c in counts if f"{round_s(wide[c]):.2f}" == f"{round_s(wide[counts[0]]):.2f}")
    grows = [c for c in counts if c > flat]
    times = round(200e6 / line_bps)
    same = f"{round_s(wide[largest]):.2f}" == f"{round_s(base[largest // times]):.2f}"
    q2 = (f"With 200 Mbit/s the round stays at about {round_s(wide[counts[0]]):.2f} s up to {flat} cameras and grows "
          f"from {grows[0]} on (about " + ", ".join(f"{round_s(wide[c]):.2f} s at {c}" for c in grows) + "). "
          + f"{TIMES.get(times, f'{times} times').capitalize()} the bandwidth carries "
          f"{TIMES.get(times, f'{times} times')} the cameras: {largest} cameras on 200 Mbit/s take "
          + either(same, "the same round time as", "a different round time from")
          + f" {largest // times} on {mbit(line_bps)}.")

    down = topk["summary"]["bottleneck"]["links"][0]["link"]
    q3 = (f"With top-k the {largest}-camera round takes about {round_s(topk):.2f} s instead of about "
          f"{round_s(base[largest]):.2f} s. Top-k compresses only what the cameras send up; the model the cloud sends "
          f"back down each round is dense and crosses the same shop line (`{down}`), so it now dominates the round.")
    return items(q1, q2, q3)


# capacity-planning.ipynb

def capacity_planning(run):
    notebook = "capacity-planning"
    folder = os.path.join(run.scratch, notebook)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "retail-chain.json"), "w") as f:  # the scenario's "platform" names this file
        json.dump(notebook_literal(notebook, "fleet"), f, indent=1)
    scenario = os.path.join(folder, "scenario.json")
    with open(scenario, "w") as f:
        json.dump(notebook_literal(notebook, "scenario"), f, indent=1)
    budget, uplinks = notebook_literal(notebook, "BUDGET_S"), notebook_literal(notebook, "uplinks")
    sizes = notebook_literal(notebook, "grid")["platform.devices"]
    low, high, smallest, biggest = uplinks[0], uplinks[-1], min(sizes), max(sizes)
    cameras = sets("platform.classes.camera.speed=3Gf")

    # Only the runs an answer reads (a sweep's other cells cost time and say nothing more here).
    def fleet(n, uplink=low, *args):
        """The notebook's scenario with n devices and the stores' uplink at `uplink` both ways."""
        return run(scenario, *sets(f"platform.devices={n}", f"platform.sites.store.uplink.up={uplink}",
                                   f"platform.sites.store.uplink.down={uplink}"), *args)

    def fits(uplink, *args):
        """The largest fleet of the grid whose round stays within the budget (the notebook's last line under
        the plot), looked for from the largest down: a round grows with the fleet."""
        return next((n for n in sorted(sizes, reverse=True) if round_s(fleet(n, uplink, *args)) <= budget), None)

    def speed(b):
        return b.replace("Mbps", " Mbit/s").replace("Gbps", " Gbit/s")

    classes = fleet(smallest)["summary"]["bottleneck"]["by_class"]
    cameras_compute = (classes["camera"]["compute"] > 0 and
                       all(sum(c.values()) == c["wait"] for k, c in classes.items() if k != "camera"))
    floor, floor_fast = round_s(fleet(smallest, high)), round_s(fleet(smallest, high, *cameras))
    big, big_fast = round_s(fleet(biggest)), round_s(fleet(biggest, low, *cameras))
    network = fleet(biggest)["summary"]["bottleneck"]["devices"]["communication"] == biggest
    largest, largest_fast = [fits(b) for b in uplinks], [fits(b, *cameras) for b in uplinks]
    q1 = ("The cameras' compute: in the small fleets they are "
          + either(cameras_compute, "`compute`-bound and everyone else waits for them",
                   "not the only ones setting the round")
          + f". With 3 Gflop/s cameras the floor drops from about {floor:.0f} s to about {floor_fast:.0f} s per round. "
          f"The {biggest}-device fleet on {speed(low)} hardly changes ("
          + either(f"{big:.0f}" == f"{big_fast:.0f}", f"about {big:.0f} s either way",
                   f"about {big:.0f} s against {big_fast:.0f} s")
          + "): it is bound by " + either(network, "the store uplinks, not by compute", "compute")
          + f". (On this grid the largest fleets under {budget} s "
          + either(largest == largest_fast, "stay the same", f"become {', '.join(map(str, largest_fast))}")
          + f": {', '.join(map(str, largest[:-1]))} and {largest[-1]} devices.)")

    enough = next(b for b in uplinks if round_s(fleet(biggest, b)) <= budget)
    below_it = uplinks[uplinks.index(enough) - 1]
    q2 = (f"{speed(enough)}: {biggest} devices take about {round_s(fleet(biggest, enough)):.0f} s per round; on "
          f"{speed(below_it)} about {round_s(fleet(biggest, below_it)):.0f} s, over the budget.")

    def up_only(n):
        return run(scenario, *sets(f"platform.devices={n}", "platform.sites.store.uplink.up=1Gbps"))

    unchanged = None
    for n in sorted(sizes):  # up to the first fleet the faster up direction changes by 5% or more
        if abs(round_s(up_only(n)) / round_s(fleet(n)) - 1) >= 0.05:
            break
        unchanged = n
    busiest = up_only(biggest)["summary"]["bottleneck"]["links"][0]["link"]
    q3 = (f"Hardly anything up to {unchanged} devices, and the large fleets stay "
          + either(round_s(up_only(biggest)) > 2 * budget, "far over the budget", "near the budget")
          + f": {biggest} devices take about {round_s(up_only(biggest)):.0f} s (against about "
          f"{round_s(fleet(biggest)):.0f} s with {speed(low)} both ways and about "
          f"{round_s(fleet(biggest, high)):.0f} s with {speed(high)} both ways). Every device downloads the dense "
          f"model each round through the store uplink's "
          + either(busiest.endswith("uplink-down"), "down direction", "up direction")
          + f", which is still {speed(low)}.")

    def store_bytes(r):
        return sum(int(row["bytes"]) for row in r["links"] if row["link"].startswith("store-"))

    halves = store_bytes(fleet(biggest, low, *TOPK)) / store_bytes(fleet(biggest))
    fit = fits(low, *TOPK)
    after = sizes[sizes.index(fit) + 1]
    q4 = (f"It helps the large fleets ({biggest} devices on {speed(low)}: about "
          f"{round_s(fleet(biggest, low, *TOPK)):.0f} s instead of about {round_s(fleet(biggest)):.0f} s), but only by "
          f"shrinking the uploads: the model sent down each round stays dense, so the traffic through the store "
          f"uplink only "
          + either(0.4 < halves < 0.6, "about halves", f"falls to {halves:.0%}")
          + ". "
          + either(fit == largest[0], f"No larger fleet fits under {budget} s on {speed(low)}",
                   f"A larger fleet fits under {budget} s on {speed(low)} ({fit} devices)")
          + f": {after} devices come out at about {round_s(fleet(after, low, *TOPK)):.0f} s.")
    return items(q1, q2, q3, q4)


# privacy.ipynb

PRIVACY = "teaching/privacy"
SECAGG = sets('privacy.secure_aggregation={"kind":"secagg"}')


def privacy(run):
    def pi_kb(r):
        return int(device(r, "pi-1")["bytes_up"]) / r["summary"]["rounds"] / 1e3

    def protocol(r):
        return r["summary"]["privacy"]["secure_aggregation"]

    def epsilon(r):
        return r["summary"]["privacy"]["epsilon"]

    def same(a, b):
        return round_s(a) == round_s(b) and pi_kb(a) == pi_kb(b)

    topk = run(PRIVACY)
    secagg, plus = run(PRIVACY, *SECAGG), run(PRIVACY, *sets('privacy.secure_aggregation={"kind":"secagg+"}'))
    identical = same(secagg, plus) and protocol(secagg)["seconds_by_phase"] == protocol(plus)["seconds_by_phase"]
    # The largest round whose SecAgg+ neighbourhood (the default's formula) holds every other device.
    everyone = max(n for n in range(3, 64) if 2 * math.ceil(1.5 * math.log2(n)) >= n - 1)
    q1 = (either(identical, "Nothing: the runs are identical", "The runs differ")
          + f" (about {round_s(plus):.2f} s per round, about {pi_kb(plus):.0f} KB up per Pi per round, the same "
          "time per phase). SecAgg+ gives each device a neighbourhood of 2⌈1.5 log2 n⌉ devices, at most "
          f"n − 1; with up to {everyone} devices in a round that is everyone, so SecAgg+ is SecAgg.")

    dense = run(PRIVACY, *SECAGG, *sets("compression.kind=none"))
    warned = any("saves no uplink bytes" in w for w in secagg["summary"]["warnings"])
    q2 = (either(same(dense, secagg), "Nothing either: dense under secure aggregation gives the same round time and "
                                      "the same upload as top-k under secure aggregation",
                 "Dense under secure aggregation differs from top-k under secure aggregation")
          + either(warned, " (the warning says so: the masked input is one field element per parameter, whatever the "
                           "compressor kept).", ".")
          + " Top-k only keeps its error, not its savings; a smaller field (16 bits) is what shrinks the upload.")

    dp = run(PRIVACY, *sets('privacy.dp={"placement":"distributed"}'))
    noisier = run(PRIVACY, *sets('privacy.dp={"placement":"distributed","noise_multiplier":2.0}'))
    q3 = (f"The epsilon after {noisier['summary']['rounds']} rounds falls from about {epsilon(dp):.1f} to about "
          f"{epsilon(noisier):.1f}: more noise, less privacy spent. Bytes and round time "
          + either(same(dp, noisier), "do not change", "change")
          + f" (about {pi_kb(noisier):.0f} KB per Pi per round, about {round_s(noisier):.2f} s): the update is sent "
          f"dense either way. The price is paid in accuracy, which only a real run shows.")

    central = run(PRIVACY, *sets('privacy.dp={"placement":"central"}'))
    q4 = ("Central DP "
          + either(same(central, topk), "keeps top-k's bytes and time", "changes top-k's bytes and time")
          + f" (about {pi_kb(central):.1f} KB per Pi per round, about {round_s(central):.2f} s per round) with "
          + either(f"{epsilon(central):.1f}" == f"{epsilon(dp):.1f}", "the same epsilon", "another epsilon")
          + f", about {epsilon(central):.1f}: the server adds the noise after decoding the compressed updates. In "
          f"exchange the devices must trust the server, which sees every update without noise.")

    phones = "privacy/secagg-phones"
    small, large = run(phones), run(phones, *sets("platform.devices=300"))

    def phase(name):
        a, b = (protocol(r)["seconds_by_phase"][name] for r in (small, large))
        return f"`{name}` from about {a:.1f} s to {b:.1f} s"

    grown = all(protocol(large)["seconds_by_phase"][p] > protocol(small)["seconds_by_phase"][p]
                for p in ("share_keys", "unmasking", "masked_input"))
    q5 = (f"With {large['summary']['devices']} phones instead of {small['summary']['devices']} the key phases "
          + either(grown, "grow", "do not all grow")
          + f" (over the {small['summary']['rounds']} rounds, {phase('share_keys')} and {phase('unmasking')}; "
          f"`protocol_s` from about {protocol(small)['protocol_s']:.1f} s to {protocol(large)['protocol_s']:.1f} s), "
          f"and so does the masked input's phase (from about {protocol(small)['seconds_by_phase']['masked_input']:.1f} "
          f"s to {protocol(large)['seconds_by_phase']['masked_input']:.1f} s); the mean round goes from about "
          f"{round_s(small):.1f} s to about {round_s(large):.1f} s. Each device exchanges keys and shares with every "
          f"other one in SecAgg, so the key phases grow with the fleet.")
    return items(q1, q2, q3, q4, q5)


BLOCKS = {"stragglers": stragglers, "slow-stream": slow_stream, "overflow": overflow, "non-iid": non_iid,
          "compression": compression,
          "thin-uplink": thin_uplink, "site-uplink": site_uplink, "capacity-planning": capacity_planning,
          "privacy": privacy}


if __name__ == "__main__":
    sys.exit(figures_main(sys.argv[1:], BLOCKS, Runner, "tools/notebooks/answers.py", prefix="answers-"))

#!/usr/bin/python3
"""Runs the teaching scenarios (scenarios/teaching/) and their "change next" variants, and writes the
figures docs/tutorials/teaching.md quotes into its `<!-- figures:NAME -->` blocks, so no figure there is typed by
hand. With --check it rewrites nothing and fails (exit 1, with a diff) when a block no longer matches
what the code gives; the test suite runs it that way, one scenario per test.

Usage: tools/teaching/report.py [--check] [--binary PATH] [NAME...]   (all scenarios by default)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import CachedRuns, device, figures_main  # noqa: E402
from tolerance import acc, steered  # noqa: E402


def runner(binary, scratch):
    """`run(NAME, *ARGS)`: scenarios/teaching/NAME.json with ARGS."""
    runs = CachedRuns(binary, scratch, "teaching")
    return lambda name, *args: runs(f"scenarios/teaching/{name}.json", *args)


def pct(x):
    return f"{100 * x:.0f}%"


def reached(summary):
    t = summary["time_to_target_s"]
    return f"{steered(t, '.1f')} s" if t is not None else "never"


def stragglers(run):
    sync, asyn = run("stragglers")["summary"], run("stragglers", "--set", "training.mode=async")["summary"]
    critical = sync["bottleneck"]["critical_path"]
    return (f"Sync reaches 0.80 test accuracy after {reached(sync)} of simulated time "
            f"({steered(sync['rounds'])} rounds); `{critical['device']}` is the slowest device of "
            f"{steered(pct(critical['share_of_rounds']))} of the rounds, behind its "
            f"{critical['link_bandwidth_bps'] / 1e6:g} Mbit/s uplink `{critical['link']}`, and every other device "
            f"waits for it. Async reaches 0.80 after {reached(asyn)} ({steered(asyn['rounds'])} pushes, staleness up "
            f"to {steered(asyn['staleness_max'])}): the fast devices no longer wait.")


def slow_stream(run):
    sync, scadles = run("slow-stream"), run("slow-stream", "--set", "training.mode=scadles")
    slow, slow_scadles = device(sync, "phone-2"), device(scadles, "phone-2")
    total = sync["summary"]["sim_time_s"]
    return (f"In {total:.0f} simulated seconds sync closes {sync['summary']['rounds']} rounds and ends at "
            f"{acc(sync['summary']['final_test_accuracy'])}: `phone-2` (4 samples/s, batch 32) is `"
            f"{slow['bound']}`-bound, waiting for data {pct(float(slow['data_wait_s']) / total)} of the run, and "
            f"the others are `{device(sync, 'jetson-1')['bound']}`-bound behind it. With `training.mode=scadles` "
            f"each batch is sized by its stream (phone-2's batch becomes {slow_scadles['batch_size']}): "
            f"{scadles['summary']['rounds']} rounds, final accuracy "
            f"{acc(scadles['summary']['final_test_accuracy'])}.")


def overflow(run):
    base, kept = run("overflow"), run("overflow", "--set", "stream.buffer.policy=persistence")
    s = base["summary"]
    fleet_peak = max(int(r["buffered_samples"]) for r in base["buffers_fleet"])
    return (f"Each device receives {int(s['samples_arrived']) // len(base['devices']):,} samples in "
            f"{s['sim_time_s']:.0f} s but trains {s['samples_trained'] // len(base['devices']):,}: "
            f"{pct(s['samples_dropped'] / s['samples_arrived'])} of what arrives is dropped, the oldest first, and "
            f"`buffers_fleet.csv` stays flat at {fleet_peak:,} samples (four buffers of 500). With "
            f"`stream.buffer.policy=persistence` nothing is dropped and the largest buffer grows to "
            f"{kept['summary']['buffer_peak_samples']:,} samples, the ones it trains being ever older "
            f"(mean sample age {float(device(kept, 'pi-1')['sample_age_mean_s']):.1f} s on pi-1, against "
            f"{float(device(base, 'pi-1')['sample_age_mean_s']):.1f} s with the bounded buffer).")


def non_iid(run):
    shards = run("non-iid")["summary"]
    iid = run("non-iid", "--set", "dataset.partition.kind=iid")["summary"]
    fewer = run("non-iid", "--set", "training.local_steps=5")["summary"]
    iid_fewer = run("non-iid", "--set", "dataset.partition.kind=iid", "--set", "training.local_steps=5")["summary"]
    return (f"With one label per device and 20 local steps per round, local SGD ends at "
            f"{acc(shards['final_test_accuracy'])} after {shards['rounds']} rounds: each device drifts towards "
            f"its own label between averagings. The same run on IID partitions ends at "
            f"{acc(iid['final_test_accuracy'])}. Cutting the local steps from 20 to 5 shows the drift: on IID "
            f"partitions the extra local work pays ({acc(iid_fewer['final_test_accuracy'])} with 5 steps against "
            f"{acc(iid['final_test_accuracy'])} with 20), on one label per device it buys nothing "
            f"({acc(fewer['final_test_accuracy'])} against {acc(shards['final_test_accuracy'])}): the averaging "
            f"cancels what each device learnt of its own label alone.")


def age(run, name):
    return float(device(run, name)["sample_age_mean_s"])


def overflow_ages(run):
    """The samples' mean age on pi-1 under each buffer policy (the exercise's figure)."""
    rows = []
    for policy in ("drop-oldest", "drop-newest", "truncation", "persistence"):
        r = run("overflow", "--set", f"stream.buffer.policy={policy}")
        rows.append(f"| `{policy}` | {int(device(r, 'pi-1')['samples_dropped']):,} | "
                    f"{int(device(r, 'pi-1')['buffer_peak_samples']):,} | {age(r, 'pi-1'):.1f} |")
    return ("| policy | pi-1 dropped | pi-1 buffer peak | mean age of a trained sample (s) |\n|---|---|---|---|\n" +
            "\n".join(rows))


TOPK = ("--set", "compression.kind=topk", "--set", "compression.ratio=0.01", "--set", "compression.error_feedback=true")
FAST_UPLINK = ("--set", "platform.links.pi-1-up.bandwidth=1Gbps")


def per_round(summary):
    return summary["sim_time_s"] / summary["rounds"]


def accuracy_by_round(r, round_):
    """The last evaluation at or before `round_` rounds: (its accuracy, its round)."""
    row = [m for m in r["metrics"] if int(m["round"]) <= round_][-1]
    return float(row["test_accuracy"]), int(row["round"])


def compression(run):
    variants = [("dense fp32", run("compression", "--set", "compression.kind=fp32")),
                ("top-k 1%", run("compression")),
                ("top-k 1% + error feedback", run("compression", "--set", "compression.error_feedback=true")),
                ("int8", run("compression", "--set", "compression.kind=int8"))]
    lines = []
    dense_rounds = variants[0][1]["summary"]["rounds"]  # accuracy per round: after as many rounds as dense
    for name, r in variants:
        s = r["summary"]
        at, at_round = accuracy_by_round(r, dense_rounds)
        lines.append(f"| {name} | {int(device(r, 'pi-1')['bytes_up']) / s['rounds'] / 1e3:,.1f} | {s['rounds']} | "
                     f"{acc(at)} (round {at_round}) | {acc(s['final_test_accuracy'])} |")
    dense, topk, ef = (v[1]["summary"] for v in variants[:3])
    return (f"| uplink | KB up per round (pi-1) | rounds in 120 s | accuracy by round {dense_rounds} | final accuracy |\n"
            "|---|---|---|---|---|\n" + "\n".join(lines) + "\n\n"
            f"Top-k 1% sends {dense['bytes_up'] / dense['rounds'] / (topk['bytes_up'] / topk['rounds']):.0f} times fewer "
            f"bytes up a round ({dense['bytes_up'] / topk['bytes_up']:.0f} times fewer over the run) and closes "
            f"{topk['rounds'] / dense['rounds']:.1f} times as many rounds in the same 120 s, yet ends at "
            f"{acc(topk['final_test_accuracy'])} against {acc(dense['final_test_accuracy'])} dense: each of its rounds "
            "moves the model by 1% of the gradient and drops the rest for good. Error feedback keeps what was "
            f"dropped and sends it later: the same bytes end at {acc(ef['final_test_accuracy'])}.")


def thin_uplink(run):
    dense, topk = run("thin-uplink")["summary"], run("thin-uplink", *TOPK)["summary"]
    fast, fast_topk = run("thin-uplink", *FAST_UPLINK)["summary"], run("thin-uplink", *FAST_UPLINK, *TOPK)["summary"]
    return (f"On the Pi's 2 Mbit/s uplink a ResNet-18 round takes {per_round(dense):.1f} s dense and "
            f"{per_round(topk):.1f} s with top-k 1% and error feedback: {per_round(dense) / per_round(topk):.2f}x "
            f"faster, the {dense['bytes_up'] / dense['rounds'] / 1e6:.1f} MB update shrinking to "
            f"{topk['bytes_up'] / topk['rounds'] / 1e6:.2f} MB. With a 1 Gbit/s uplink the round is compute-bound: "
            f"{per_round(fast):.1f} s dense against {per_round(fast_topk):.1f} s compressed, "
            f"{per_round(fast) / per_round(fast_topk):.2f}x.")


def site_uplink(run):
    rows = []
    for count in (2, 5, 10, 20, 40):
        s = run("site-uplink", "--set", f"platform.classes.camera.count={count}")["summary"]
        b = s["bottleneck"]
        rows.append(f"| {count} | {per_round(s):.2f} | `{b['links'][0]['link']}` "
                    f"({b['links'][0]['mean_utilization']:.2f}) | `{b['critical_path']['link']}` |")
    return ("| cameras | round (s) | busiest link (mean utilisation) | critical link of the slowest camera |\n"
            "|---|---|---|---|\n" + "\n".join(rows))


SECAGG = ("--set", 'privacy.secure_aggregation={"kind":"secagg"}')
SECAGG16 = (*SECAGG, "--set", "privacy.secure_aggregation.field_bits=16")
DISTRIBUTED = ("--set", 'privacy.dp={"placement":"distributed"}')


def privacy(run):
    rows = [("dense, no privacy", run("privacy", "--set", "compression.kind=none")),
            ("top-k 1%, no privacy", run("privacy")), ("+ secure aggregation", run("privacy", *SECAGG)),
            ("+ secure aggregation, 16-bit field", run("privacy", *SECAGG16)),
            ("+ distributed DP (no secure aggregation)", run("privacy", *DISTRIBUTED))]
    lines = []
    for name, r in rows:
        s = r["summary"]
        pi = device(r, "pi-1")
        lines.append(f"| {name} | {int(pi['bytes_up']) / s['rounds'] / 1e3:,.1f} | {per_round(s):.2f} |")
    return ("| pi-1 (2 Mbit/s up) | KB up per round | round (s) |\n|---|---|---|\n" + "\n".join(lines))


BLOCKS = {"stragglers": stragglers, "slow-stream": slow_stream, "overflow": overflow,
          "overflow-ages": overflow_ages, "non-iid": non_iid, "compression-accuracy": compression,
          "thin-uplink": thin_uplink, "site-uplink": site_uplink, "privacy": privacy}


if __name__ == "__main__":
    sys.exit(figures_main(sys.argv[1:], BLOCKS, runner, "tools/teaching/report.py"))

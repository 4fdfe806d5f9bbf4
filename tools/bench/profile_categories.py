#!/usr/bin/python3
"""Where the wall time of an edgetrain run goes, from `perf script` output of a run recorded with
`perf record -e cpu-clock --call-graph dwarf` (tools/bench/profile.sh): each sample's call stack
(inline frames included) is put in one category, and the categories are printed with their share.

A sample belongs to a phase when one of its frames anywhere in the stack names it (evaluation,
data loading, start-up, output files). Otherwise the frames are read from the leaf up and the first
that names a category decides (so a memcpy inside Model::Impl::load counts as a parameter copy, and
a sample in SimGrid's library that edgetrain's actor code called counts as SimGrid).
Usage: perf script -F period,ip,sym,dso | profile_categories.py [--title TEXT]"""
import re
import sys
from collections import Counter

# Phases: any frame of the stack, first rule that matches.
PHASES = [
    ("evaluation (test set, observer and end of run)", r"Model::evaluate_unless|Observer::evaluate_now|Workspace::evaluate|ModelStore.*evaluate|::evaluate\b"),
    ("start-up: data loading and standardising", r"learn::load_idx_dataset|learn::make_synthetic_dataset"),
    ("start-up: shared libraries, platform, scenario, model", r"_dl_start|dl_main|_dl_init|_dl_relocate|"
     r"sim::prepare|Model::Model|Model::init_params|setup_devices|scenario::load|check_platform|load_platform|"
     r"simgrid_flags|__libc_start_main.*\n.*static_init"),
    ("output files", r"write_run_outputs"),
    ("exit: library teardown", r"__cxa_finalize|_dl_call_fini|_dl_fini"),
]
# Leaf-first: the first frame from the leaf that matches a rule decides. A rule is (category,
# symbol pattern) or (category, None, dso pattern).
LEAF_FIRST = [
    ("step: parameter copy into LibTorch (Impl::load)", r"(Model|Workspace)::Impl::load"),
    ("step: batch tensors (Impl::batch_tensors)", r"(Model|Workspace)::Impl::batch_tensors"),
    ("step: backward", r"torch::autograd::Engine|at::Tensor::_?backward|torch::autograd::backward"),
    ("step: zero_grad", r"zero_grad"),
    ("step: forward + loss", r"SequentialImpl|ModuleHolder.*forward|cross_entropy|AnyModule|\bforward\b"),
    ("step: gradient copy out, loss, rest of gradient()", r"(Model|Workspace)::gradient"),
    # oneDNN's run-time generated convolution kernels (perf-PID.map) carry no unwind information: the
    # stack ends there. They run the CNN's forward and backward passes, in steps and evaluations alike.
    ("step/evaluation: oneDNN JIT conv kernels (no stack)", None, r"perf-\d+\.map"),
    ("encoding: error feedback", r"compress::ErrorFeedback"),
    ("encoding", r"UplinkEncoder::encode|DownlinkEncoder|compress::.*encode|\bencode\b"),
    ("decoding", r"UplinkDecoder::decode|DownlinkDecoder|compress::.*decode|\bdecode\b"),
    ("aggregation + SGD (server)", r"learn::Sgd::step|SyncServer|AsyncServer|Aggregator|ModelStore|sim::aggregat|staleness"),
    ("SimGrid", None, r"libsimgrid"),
    ("edgetrain protocol actors (rest of src/sim)", r"edgetrain::sim::"),
    ("rest of the back-end (src/backend, worker pool)", r"edgetrain::backend::"),
]
ORDER = [p[0] for p in PHASES[:1]] + [r[0] for r in LEAF_FIRST] + [p[0] for p in PHASES[1:]] + ["other"]


def samples(stream):
    """(period, [(symbol, dso), ...] leaf first) for each sample of `perf script` output."""
    period, frames = None, []
    for line in stream:
        if not line.strip():
            if period is not None:
                yield period, frames
            period, frames = None, []
        elif not line.startswith("\t"):  # a sample's header line (its period last); frames start with a tab
            fields = line.split()
            period = int(fields[-1]) if fields and fields[-1].isdigit() else 1
        else:
            m = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)\s*$", line)
            if m:
                frames.append((m[1], m[2]))
    if period is not None:
        yield period, frames


def category(frames):
    stack = "\n".join(s for s, _ in frames)
    for name, pattern in PHASES:
        if re.search(pattern, stack):
            return name
    for symbol, dso in frames:
        if "kernel.kallsyms" in dso:
            continue  # the system call or page fault's caller decides
        for rule in LEAF_FIRST:
            if len(rule) == 2 and re.search(rule[1], symbol):
                return rule[0]
            if len(rule) == 3 and re.search(rule[2], dso):
                return rule[0]
    return "other"


def leaf_name(frames):
    """The sample's leaf function, short: no argument list; an unnamed one by its library."""
    symbol, dso = frames[0]
    symbol = re.sub(r"\(.*", "", symbol.replace("(anonymous namespace)", "{anon}"))
    if symbol.startswith("[unknown]"):
        symbol += " in " + dso.rsplit("/", 1)[-1]
    return symbol[:80]


OUTSIDE_LOOP = ("start-up", "exit", "output")


def main():
    title = sys.argv[sys.argv.index("--title") + 1] if "--title" in sys.argv else "profile"
    totals, leaves = Counter(), Counter()
    for period, frames in samples(sys.stdin):
        totals[category(frames)] += period
        if frames:
            leaves[leaf_name(frames)] += period
    whole = sum(totals.values())
    if not whole:
        raise SystemExit("profile_categories: no samples (was perf record run with --call-graph dwarf?)")
    print(f"{title}: {whole / 1e9:.2f} s of CPU time sampled")
    # The simulation loop: everything but start-up, output files and exit.
    loop = sum(v for k, v in totals.items() if not k.startswith(OUTSIDE_LOOP))
    print(f"{'category':<54} {'CPU s':>7} {'share':>7} {'of loop':>8}")
    for name in ORDER:
        if totals[name]:
            of_loop = "" if name.startswith(OUTSIDE_LOOP) else f"{100 * totals[name] / loop:>7.1f}%"
            print(f"{name:<54} {totals[name] / 1e9:>7.3f} {100 * totals[name] / whole:>6.1f}% {of_loop:>8}")
    print("\nhottest leaf functions:")
    for sym, period in leaves.most_common(12):
        print(f"  {100 * period / whole:5.1f}%  {sym}")


if __name__ == "__main__":
    main()

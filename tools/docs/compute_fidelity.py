#!/usr/bin/python3
"""Writes results/fidelity/compute.md: the compute model (a roofline by layer kind, src/compute) and
the FLOP model against the published training steps its device profiles are fitted to and checked
against (`edgetrain cost --published`). --check compares the page with what it would write and fails
on a difference (the compute/fidelity-page test), so the page cannot drift from the code.

usage: tools/docs/compute_fidelity.py [--check] [--binary build/edgetrain]"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "results" / "fidelity" / "compute.md"


def pct(x):
    return f"{100 * x:+.1f}%"


def size(x):
    return "—" if x is None else f"{100 * x:.1f}%"


def rho(x):
    return "—" if x is None else f"{x:.2f}"


def published(c):
    """Seconds per step as published: one figure, or a range's two ends."""
    if c["measured_high_s"] is None:
        return f"{c['measured_s']:.3f}"
    return f"{c['measured_s']:.3f} to {c['measured_high_s']:.3f}"


def error(c, predicted):
    """The error of one prediction: against one figure, or against both ends of a range."""
    if c["measured_high_s"] is None:
        return pct(predicted / c["measured_s"] - 1)
    return f"{pct(predicted / c['measured_high_s'] - 1)} to {pct(predicted / c['measured_s'] - 1)}"


def rows(checks):
    return [f"| {c['device']} | `{c['model']}` | {c['batch']} | {'held out' if c['held_out'] else 'fitted'} | "
            f"{published(c)} | {c['roofline_s']:.3f} | {error(c, c['roofline_s'])} | "
            f"{c['flop_model_s']:.3f} | {error(c, c['flop_model_s'])} |" for c in checks]


def band(k, goal):
    """What `edgetrain cost` says of this class's steps: its held-out roofline error, against the goal."""
    e = k["held_out_roofline_error"]
    if e is None:
        return "none (no held-out step)"
    text = f"within {100 * e:.0f}%" + ("" if e <= goal else f" (**over the {100 * goal:.0f}% goal**)")
    if len(k["models"]) == 1:
        text += f", `{k['models'][0]}` only"
    return text


def summary(data):
    goal, classes = data["held_out_goal"], data["classes"]
    out = ["Per device class: the largest error on the steps its profile was fitted to and on the steps held out "
           "of every fit, for the roofline and for FLOPs / the fitted rate, and Spearman's rank correlation of "
           "predicted against published step times over the class's steps (those published as one figure; 1: the "
           "models in the same order). *Band*: what `edgetrain cost` and a run's `fidelity` section print for the "
           "class (its largest held-out roofline error).", "",
           "| class | steps fitted / held out | fitted: roofline | fitted: FLOPs | held out: roofline | "
           "held out: FLOPs | Spearman: roofline | Spearman: FLOPs | band |",
           "|---|---|---|---|---|---|---|---|---|"]
    for k in classes:
        out.append(f"| `{k['device']}` | {k['fitted_steps']} / {k['held_out_steps']} | "
                   f"{size(k['fitted_roofline_error'])} | {size(k['fitted_flop_model_error'])} | "
                   f"{size(k['held_out_roofline_error'])} | {size(k['held_out_flop_model_error'])} | "
                   f"{rho(k['spearman_roofline'])} | {rho(k['spearman_flop_model'])} | {band(k, goal)} |")
    held = [c for c in data["checks"] if c["held_out"]]
    over = [k["device"] for k in classes
            if k["held_out_roofline_error"] is not None and k["held_out_roofline_error"] > goal]
    out += ["", f"The issue's goal, every held-out published step within {100 * goal:.0f}%: "
            + ("met" if not over else "**not met** (" + ", ".join(over) + ")")
            + f" on the {len(held)} held-out steps of {len(classes)} classes."]
    single = [k for k in classes if len(k["models"]) == 1]
    if single:
        out += ["", " ".join(f"`{k['device']}`'s published steps are all `{k['models'][0]}`: its band says "
                             "nothing of another model (`cost` prints no band for one), and there is no order of "
                             "models to correlate." for k in single)]
    return out


def render(data):
    checks, devices = data["checks"], data["devices"]
    out = ["# Compute model against published training steps", "",
           "Written by `tools/docs/compute_fidelity.py` from `edgetrain cost --published`; the test "
           "`compute/fidelity-page` fails when this page differs from what the code gives. What the models are and "
           "when to trust which: [The compute model](../../docs/explanation/compute-model.md).", "",
           "Each row is one published training step (seconds per step = the published time / its steps; a source "
           "that gives a range gives two ends, and an error against each). *Roofline*: the compute model with the "
           "device's fitted profile. *FLOPs*: training FLOPs / one FLOP rate, the rate that fits the same device's "
           "fitted steps best (the FLOP model at its best: a platform speed not fitted to the device errs more). "
           "Held-out steps took no part in any fit; which ones are held out is one rule, fixed before any error "
           "was seen (src/compute/published.hpp).", "",
           "| device | model | batch | fit | published s/step | roofline s | error | FLOPs s | error |",
           "|---|---|---|---|---|---|---|---|---|"]
    fitted = {d["name"] for d in devices if d["fitted"]}
    ours, derived = [c for c in checks if c["device"] in fitted], [c for c in checks if c["device"] not in fitted]
    out += rows(ours)
    out += ["", "## Summary", ""] + summary(data) + [""]
    if derived:
        out += ["## Derived classes against the steps found", "",
                "A class no fitted step backs is derived from a datasheet ceiling and the fitted Pi 4's proportions "
                "(its basis below); a published step found for it is held out and shows how far that derivation "
                "is. *FLOPs* here runs at the derived ceiling.", "",
                "| device | model | batch | fit | published s/step | roofline s | error | FLOPs s | error |",
                "|---|---|---|---|---|---|---|---|---|"] + rows(derived) + [""]
    out += [
            "## Device profiles", "",
            "| class | hardware | compute ceiling GFLOP/s | memory ceiling GB/s | overhead µs/layer | depthwise efficiency | basis |",
            "|---|---|---|---|---|---|---|"]
    for d in devices:
        out.append(f"| `{d['name']}` | {d['about']} | {d['flops_s'] / 1e9:.3g} | {d['bytes_s'] / 1e9:.3g} | "
                   f"{d['layer_overhead_s'] * 1e6:.3g} | {d['efficiency']['depthwise']:.3g} | {d['basis']} |")
    out += ["", "## Sources", ""]
    seen = []
    for c in checks:
        if c["source"] not in seen:
            seen.append(c["source"])
            out.append(f"- {c['source']}: <{c['url']}> ({c['setting']}).")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--binary", default=str(ROOT / "build" / "edgetrain"))
    args = parser.parse_args()
    data = json.loads(subprocess.run([args.binary, "cost", "--published"], check=True, capture_output=True,
                                     text=True).stdout)
    page = render(data)
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != page:
            sys.stderr.write(f"{PAGE.relative_to(ROOT)} is out of date: run tools/docs/compute_fidelity.py\n")
            return 1
        return 0
    PAGE.write_text(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())

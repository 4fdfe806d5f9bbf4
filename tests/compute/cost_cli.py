#!/usr/bin/python3
"""edgetrain cost end to end: a step's JSON (step_s equals its breakdown's sum, the FLOPs are the
catalogue's training FLOPs), and bad input as one line with exit status 2. Three processes: each loads
LibTorch (about a second).

usage: tests/compute/cost_cli.py BINARY"""
import json
import subprocess
import sys

binary = sys.argv[1]


def run(*args):
    return subprocess.run([binary, "cost", *args], capture_output=True, text=True, timeout=60)


r = run("--model", "mobilenet_v2_050", "--device", "rpi4", "--batch", "16", "--json")
assert r.returncode == 0, r.stderr
j = json.loads(r.stdout)
assert j["step_s"] > 0 and abs(sum(j["by_kind_s"].values()) - j["step_s"]) < 1e-9 * j["step_s"], j
assert j["by_kind_s"]["depthwise"] > 0 and j["input"] == "3x224x224", j
# 2 x 97,131,840 MACs + 1000 bias adds, x3 for training, x16 samples.
assert abs(j["step_flops"] - 3 * 16 * (2 * 97131840 + 1000)) < 1, j["step_flops"]
assert 0 < j["error_band"] < 0.35, j

for args, expected in (
    (("--model", "resnet18", "--device", "pi9", "--batch", "4"), 'unknown device class "pi9"'),
    (("--model", "resnet99", "--device", "rpi4", "--batch", "0x"), "--batch: expected an integer"),
):
    r = run(*args)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and expected in r.stderr, (args, r.stderr)
print("ok")

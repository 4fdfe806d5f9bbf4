#!/usr/bin/python3
"""The shipped bring-your-own example end to end (scenarios/byo/): tools/byo/prepare.py is seeded and
keeps the npz and the LEAF split the same samples; each scenario runs (three real rounds); the natural
partition gives each device its LEAF user's samples, Dirichlet deals out the same total and IID
equal shares of it; the trace
takes devices off; tools/byo/report.py writes its page from the runs.

Usage: tests/tools/byo_test.py EDGETRAIN   (writes scenarios/byo/data/ when missing, as the report does)
"""
import csv
import filecmp
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PREPARE = os.path.join(ROOT, "tools", "byo", "prepare.py")
DATA = os.path.join(ROOT, "scenarios", "byo", "data")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def prepare(out, *args):
    subprocess.run([sys.executable, PREPARE, "--out", out, *args], check=True, stdout=subprocess.DEVNULL)


def leaf_counts(folder):
    """Each training user's num_samples, checked against its x and y."""
    counts, wrong = [], []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for name, n in zip(data["users"], data["num_samples"]):
            if not len(data["user_data"][name]["x"]) == n == len(data["user_data"][name]["y"]):
                wrong.append(name)
            counts.append(n)
    check(not wrong and len(counts) == 200, f"LEAF split: 200 users, x and y of num_samples each (wrong: {wrong[:3]})")
    return counts


def devices(out):
    with open(os.path.join(out, "devices.csv")) as f:
        return list(csv.DictReader(f))


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="edgetrain-byo-") as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        prepare(a, "--users", "12")
        prepare(b, "--users", "12")
        same = all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)
                   for f in ("fashion.npz", "availability.csv", "leaf/train/users_0000-0011.json",
                             "leaf/test/users_0000-0011.json"))
        check(same, "prepare: the same arguments write the same npz, LEAF files and trace")
        if not os.path.isdir(DATA):
            prepare(DATA)
        counts = leaf_counts(os.path.join(DATA, "leaf", "train"))
        npz = np.load(os.path.join(DATA, "fashion.npz"))
        check(npz["x_train"].shape == (sum(counts), 28, 28) and npz["x_train"].dtype == np.uint8,
              f"fashion.npz holds the LEAF split's {sum(counts):,} training samples as uint8 28x28")
        runs = {}
        for name in ("natural", "iid", "dirichlet"):
            out = os.path.join(tmp, name)
            p = subprocess.run([binary, "run", os.path.join(ROOT, "scenarios", "byo", name + ".json"), "--quiet",
                                "--out", out, "--set", "stop.rounds=3"], capture_output=True, text=True)
            check(p.returncode == 0, f"{name}: runs three rounds ({p.stderr.strip()[-300:]})")
            if p.returncode == 0:
                runs[name] = devices(out)
        if "natural" in runs:
            got = [int(d["partition_samples"]) for d in runs["natural"]]
            check(got == counts, "natural: device k holds LEAF user k's samples")
            check(any(float(d["offline_s"]) > 0 for d in runs["natural"]), "natural: the trace takes devices off")
        if "dirichlet" in runs:
            total = sum(int(d["partition_samples"]) for d in runs["dirichlet"])
            check(total == sum(counts), f"dirichlet: the devices hold the same {sum(counts):,} samples")
        if "iid" in runs:
            share = sum(counts) // len(counts)
            check(all(int(d["partition_samples"]) == share for d in runs["iid"]),
                  f"iid: every device holds an equal share of them ({share}, the remainder left out)")
        if len(runs) == 3:
            page_dir = os.path.join(tmp, "page")
            os.makedirs(os.path.join(page_dir, "runs"))
            for name in runs:
                os.symlink(os.path.join(tmp, name), os.path.join(page_dir, "runs", name))
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "byo", "report.py"), "--report-only",
                                "--out", page_dir], capture_output=True, text=True)
            check(p.returncode == 0, f"report: writes the page ({p.stderr.strip()[-300:]})")
            if p.returncode == 0:
                with open(os.path.join(page_dir, "README.md")) as f:
                    text = f.read()
                check(all(f"| `{n}` |" in text for n in runs), "report: one row per scenario")
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

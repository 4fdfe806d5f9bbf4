#!/usr/bin/python3
"""Runs every shipped scenario (scenarios/**/*.json) and prints one SHA-256 per output file, with
summary.json's wall_time_s masked, so that a change meant to keep behaviour can be checked byte
for byte: run it before and after, and diff the two listings.

    /usr/bin/python3 tools/dev/outputs_digest.py [--binary build/edgetrain] [--jobs 2] [--set K=V]... > before.txt

--set shortens every run alike (e.g. --set stop.rounds=3): a quicker check of the same code paths.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def digest_folder(folder):
    rows = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            data = f.read()
        if name == "summary.json":
            summary = json.loads(data)
            summary["wall_time_s"] = None
            data = json.dumps(summary, sort_keys=True).encode()
        rows.append((name, hashlib.sha256(data).hexdigest()))
    return rows


def run_one(binary, scenario, work, sets):
    out = os.path.join(work, scenario.replace("/", "_"))
    p = subprocess.run([binary, "run", os.path.join(ROOT, scenario), "--quiet", "--out", out,
                        *[a for s in sets for a in ("--set", s)]],
                       capture_output=True, text=True)
    lines = ["%s exit %d" % (scenario, p.returncode)]
    if os.path.isdir(out):
        lines += ["%s %s %s" % (scenario, name, h) for name, h in digest_folder(out)]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "edgetrain"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], help="a scenario override for every run")
    args = ap.parse_args()
    scenarios = sorted(os.path.relpath(os.path.join(d, f), ROOT)
                       for d, _, files in os.walk(os.path.join(ROOT, "scenarios")) for f in files
                       if f.endswith(".json") and "data" not in os.path.relpath(d, ROOT).split(os.sep))
    with tempfile.TemporaryDirectory(prefix="edgetrain-digest-") as work:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for lines in pool.map(lambda s: run_one(args.binary, s, work, args.set), scenarios):
                print("\n".join(lines))
                sys.stdout.flush()


if __name__ == "__main__":
    main()

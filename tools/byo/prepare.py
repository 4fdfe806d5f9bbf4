#!/usr/bin/python3
"""Writes the files scenarios/byo/ runs on, from what Debian ships (no download), seeded: the same
arguments give the same samples, users, weights and trace.

  tools/byo/prepare.py [--out scenarios/byo/data] [--users 200] [--seed 1]

- cnn.pt: a TorchScript CNN with BatchNorm (tools/torchscript/export.py cnn-bn, seed 0), from python3-torch.
- leaf/train/*.json, leaf/test/*.json: Fashion-MNIST (dataset-fashion-mnist) split into LEAF users.
  Fashion-MNIST has no writers, so the users are made here the way LEAF's natural splits look (FEMNIST's
  writers hold from a handful to hundreds of samples, in unequal mixes of classes): each user holds a
  log-normal number of training samples (median 60, sigma 0.8, clipped to [8, 400]), 80% of them from
  two favourite classes of its own and 20% from all ten, drawn without replacement; its test samples,
  a fifth as many (at least 2), come from the test set with the same mix. Pixels are written as
  integers 0-255 (edgetrain standardises LEAF values as given, so the scale does not matter).
- fashion.npz: the same samples as the LEAF split, users one after the other (x_train (N, 28, 28)
  uint8, y_train, x_test, y_test), so that IID and Dirichlet partitions of it share the natural
  split's data.
- availability.csv: tools/traces/synthetic.py's availability trace for the users, its 6-day period
  compressed to --period-s of simulated time (default 60 s) so that devices come and go within a run.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FASHION = "/usr/share/datasets/fashion-mnist"
CLASSES = 10
USERS_PER_FILE = 50


def idx(name):
    """An IDX file of dataset-fashion-mnist as a numpy array (header: magic, then one size per dimension)."""
    with gzip.open(os.path.join(FASHION, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def make_users(rng, users, train_labels, test_labels):
    """Per user, the indices of its training and test samples."""
    pools = {}
    for split, labels in (("train", train_labels), ("test", test_labels)):
        pools[split] = [list(rng.permutation(np.flatnonzero(labels == c))) for c in range(CLASSES)]
    out = []
    for _ in range(users):
        n = int(np.clip(round(60 * np.exp(rng.normal(0.0, 0.8))), 8, 400))
        favourite = rng.choice(CLASSES, 2, replace=False)
        mix = np.full(CLASSES, 0.2 / CLASSES)
        mix[favourite] += 0.4
        picked = {}
        for split, count in (("train", n), ("test", max(2, round(n / 5)))):
            picked[split] = []
            for c, k in enumerate(rng.multinomial(count, mix)):
                pool = pools[split][c]
                if k > len(pool):
                    sys.exit(f"prepare: class {c} of the {split} set ran out of samples; use fewer --users")
                picked[split] += [pool.pop() for _ in range(k)]
        out.append(picked)
    return out


def write_leaf(folder, names, per_user, images, labels):
    os.makedirs(folder, exist_ok=True)
    for start in range(0, len(names), USERS_PER_FILE):
        chunk = names[start:start + USERS_PER_FILE]
        data = {"users": chunk, "num_samples": [len(per_user[start + i]) for i in range(len(chunk))],
                "user_data": {}}
        for i, name in enumerate(chunk):
            ix = per_user[start + i]
            data["user_data"][name] = {"x": images[ix].reshape(len(ix), -1).tolist(),
                                       "y": labels[ix].tolist()}
        path = os.path.join(folder, f"users_{start:04d}-{start + len(chunk) - 1:04d}.json")
        with open(path, "w") as f:
            json.dump(data, f, separators=(",", ":"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "scenarios", "byo", "data"))
    p.add_argument("--users", type=int, default=200, help="LEAF users (one per device of the example's fleet)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--period-s", type=float, default=60.0, help="the availability trace's period")
    args = p.parse_args()
    if not 1 <= args.users <= 1000:
        p.error("--users must be 1 to 1,000")
    rng = np.random.default_rng(args.seed)
    x_train, y_train = idx("train-images-idx3-ubyte.gz"), idx("train-labels-idx1-ubyte.gz")
    x_test, y_test = idx("t10k-images-idx3-ubyte.gz"), idx("t10k-labels-idx1-ubyte.gz")
    users = make_users(rng, args.users, y_train, y_test)
    names = [f"f{u:04d}" for u in range(args.users)]  # FEMNIST-like user names
    os.makedirs(args.out, exist_ok=True)
    write_leaf(os.path.join(args.out, "leaf", "train"), names, [u["train"] for u in users], x_train, y_train)
    write_leaf(os.path.join(args.out, "leaf", "test"), names, [u["test"] for u in users], x_test, y_test)
    train = np.concatenate([u["train"] for u in users])
    test = np.concatenate([u["test"] for u in users])
    np.savez_compressed(os.path.join(args.out, "fashion.npz"), x_train=x_train[train], y_train=y_train[train],
                        x_test=x_test[test], y_test=y_test[test])
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "torchscript", "export.py"), "cnn-bn",
                    os.path.join(args.out, "cnn.pt"), "--seed", "0"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "traces", "synthetic.py"), "--devices",
                    str(args.users), "--seed", str(args.seed), "--period-s", str(args.period_s),
                    "--horizon-s", str(10 * args.period_s), "--capacity-out", os.devnull,
                    "--availability-out", os.path.join(args.out, "availability.csv")], check=True)
    print(f"{args.out}: {args.users} users, {len(train)} training and {len(test)} test samples; "
          f"cnn.pt, fashion.npz, leaf/, availability.csv")


if __name__ == "__main__":
    main()

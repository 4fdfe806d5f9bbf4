#!/usr/bin/python3
"""Benchmark baseline: the plain Python PyTorch training loop a user would write (Debian's
python3-torch, one intra-op thread), with no simulation. Reads the Fashion-MNIST IDX files,
standardises them as edgetrain does, builds edgetrain's model (784-128-10 MLP or the small CNN) and
runs N SGD steps on shuffled batches. tools/bench/run.sh times it as a whole process against
`edgetrain run` doing the same steps.
Usage: bare_loop.py [--data DIR] [--model mlp|cnn] [--steps N] [--batch B] [--lr X]
                    [--train-samples N] [--threads N] [--seed N]"""
import argparse
import gzip
import os
import struct
import time

import numpy as np
import torch


def read_idx(path):
    """An IDX file (gzipped or not) as a numpy uint8 array of its shape."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        dims = struct.unpack(">" + "I" * (magic & 0xFF), f.read(4 * (magic & 0xFF)))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


def build(name):
    """edgetrain's models (src/learn/torch/network.cpp)."""
    nn = torch.nn
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(1, 10, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Conv2d(10, 20, 5), nn.MaxPool2d(2),
                         nn.ReLU(), nn.Flatten(), nn.Linear(320, 50), nn.ReLU(), nn.Linear(50, 10))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--train-samples", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    images = read_idx(os.path.join(a.data, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(a.data, "train-labels-idx1-ubyte.gz"))
    if a.train_samples > 0:
        images, labels = images[: a.train_samples], labels[: a.train_samples]
    x = torch.from_numpy(images.copy()).float().div_(255).unsqueeze(1)
    x = (x - x.mean()) / x.std(unbiased=False)
    y = torch.from_numpy(labels.astype(np.int64))
    n = x.shape[0]
    net = build(a.model)
    sgd = torch.optim.SGD(net.parameters(), lr=a.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    start = time.perf_counter()
    order, at, loss_sum = torch.randperm(n), 0, 0.0
    for _ in range(a.steps):
        if at + a.batch > n:  # a new epoch: reshuffle
            order, at = torch.randperm(n), 0
        idx = order[at:at + a.batch]
        at += a.batch
        sgd.zero_grad()
        loss = loss_fn(net(x[idx]), y[idx])
        loss.backward()
        sgd.step()
        loss_sum += loss.item()
    loop_s = time.perf_counter() - start
    print(f"bare PyTorch loop: {a.model}, {a.steps} steps of batch {a.batch}, loop {loop_s:.3f} s "
          f"({1e3 * loop_s / a.steps:.3f} ms per step), mean loss {loss_sum / a.steps:.4f}")


if __name__ == "__main__":
    main()

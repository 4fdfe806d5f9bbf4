#!/usr/bin/python3
"""Exports a PyTorch model as a TorchScript archive that edgetrain trains (model.name torchscript).

  tools/torchscript/export.py MODEL OUT.pt [--input 1x28x28] [--classes 10] [--seed 0]

MODEL: mlp (Flatten, Linear, ReLU, Linear: edgetrain's built-in mlp; --hidden, and --weights RAW to
start from edgetrain's own initial weights, raw float32 in its parameter order), cnn-bn (two 3x3
convolutions with BatchNorm, then a linear layer), char-lstm (LEAF's Shakespeare model: characters
embedded in 8 dimensions, a two-layer LSTM of --hidden units (256 in LEAF), the next character; for
LEAF text, --input 1x1x80 --classes 80), resnet18 or mobilenet_v2 (torchvision's, their first
convolution taking --input's channels). Needs Debian's python3-torch (and python3-torchvision
for the last two). The module is scripted (torch.jit.script) and saved; its weights are the
initial model.
"""
import argparse
import sys

import torch
from torch import nn


class CnnBn(nn.Module):
    """Two 3x3 convolutions with BatchNorm and 2x2 pooling, then a linear layer to the classes."""

    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(channels, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.classifier = nn.Linear(16 * 4 * 4, classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class CharLstm(nn.Module):
    """LEAF's Shakespeare model. edgetrain hands the characters as their alphabet indices in fp32
    (a LEAF text data set is not standardised), so forward casts them back to integers."""

    def __init__(self, hidden: int, classes: int):
        super().__init__()
        self.embed = nn.Embedding(80, 8)
        self.lstm = nn.LSTM(8, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        tokens = x.reshape(x.size(0), -1).long()
        states, _ = self.lstm(self.embed(tokens))
        return self.out(states[:, -1, :])


def mlp(args, c, h, w):
    layers, width = [nn.Flatten()], c * h * w
    for hidden in args.hidden:
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    net = nn.Sequential(*layers, nn.Linear(width, args.classes))
    if args.weights:
        flat = torch.from_numpy(__import__("numpy").fromfile(args.weights, dtype="float32"))
        params = list(net.parameters())
        if flat.numel() != sum(p.numel() for p in params):
            sys.exit(f"export: {args.weights} holds {flat.numel()} values, the mlp has "
                     f"{sum(p.numel() for p in params)} parameters")
        with torch.no_grad():
            offset = 0
            for p in params:
                p.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
    return net


def vision(name, c, classes):
    import torchvision  # python3-torchvision
    net = getattr(torchvision.models, name)(num_classes=classes)
    if name == "resnet18" and c != 3:
        net.conv1 = nn.Conv2d(c, 64, 7, 2, 3, bias=False)
    if name == "mobilenet_v2" and c != 3:
        net.features[0][0] = nn.Conv2d(c, 32, 3, 2, 1, bias=False)
    return net


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", choices=["mlp", "cnn-bn", "char-lstm", "resnet18", "mobilenet_v2"])
    p.add_argument("out")
    p.add_argument("--input", default="1x28x28", help="sample shape CxHxW")
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--seed", type=int, default=0, help="torch.manual_seed before building")
    p.add_argument("--hidden", type=int, nargs="*", help="mlp: hidden widths (default 128); char-lstm: its "
                   "LSTM's units (default 256)")
    p.add_argument("--weights", help="mlp: raw float32 initial weights in parameter order")
    args = p.parse_args()
    c, h, w = (int(v) for v in args.input.split("x"))
    torch.manual_seed(args.seed)
    if args.model == "mlp":
        args.hidden = args.hidden or [128]
        net = mlp(args, c, h, w)
    elif args.model == "char-lstm":
        net = CharLstm((args.hidden or [256])[0], args.classes)
    elif args.model == "cnn-bn":
        net = CnnBn(c, args.classes)
    else:
        net = vision(args.model, c, args.classes)
    scripted = torch.jit.script(net)
    scripted(torch.zeros(2, c, h, w))  # fails here, not in edgetrain, if the input does not fit
    scripted.save(args.out)
    params = sum(p.numel() for p in scripted.parameters())
    print(f"{args.out}: {args.model}, {params} parameters, input {args.input}, {args.classes} classes")


if __name__ == "__main__":
    main()

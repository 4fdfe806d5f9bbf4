#!/usr/bin/python3
"""Parameter counts and forward MACs of the catalogue's mobile models and width variants, from
torchvision 0.14's own constructors (apt-get install python3-torchvision; Debian's /usr/bin/python3).
tests/learn/catalogue_test.cpp holds these figures; rerun this when a model joins the catalogue."""
import torch
import torchvision.models as M

MODELS = {
    "resnet34": lambda: M.resnet34(),
    "mobilenet_v2": lambda: M.mobilenet_v2(),
    "mobilenet_v2_075": lambda: M.mobilenet_v2(width_mult=0.75),
    "mobilenet_v2_050": lambda: M.mobilenet_v2(width_mult=0.5),
    "mnasnet_100": lambda: M.mnasnet1_0(),
    "mnasnet_075": lambda: M.mnasnet0_75(),
    "mnasnet_050": lambda: M.mnasnet0_5(),
}


def macs(net, shape=(1, 3, 224, 224)):
    total = [0]

    def hook(module, _inputs, out):
        if isinstance(module, torch.nn.Conv2d):
            k = module.kernel_size[0] * module.kernel_size[1]
            total[0] += out.numel() * (module.in_channels // module.groups) * k
        elif isinstance(module, torch.nn.Linear):
            total[0] += out.numel() * module.in_features

    for m in net.modules():
        if not list(m.children()):
            m.register_forward_hook(hook)
    net.eval()
    with torch.no_grad():
        net(torch.zeros(*shape))
    return total[0]


for name, build in MODELS.items():
    net = build()
    print(f"{name}: {sum(p.numel() for p in net.parameters())} parameters, {macs(net)} MACs")

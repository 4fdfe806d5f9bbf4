#!/usr/bin/python3
"""Writes the held-out platforms of results/fidelity/held-out/: platforms no calibration and no model
parameter of edgetrain was fitted on, where results/fidelity/README.md checks the flow model and the
slow-start TCP model against ns-3 (issue: a LAN of 1 Gbit/s and 0.2 ms, a 600 ms satellite path, a
3-level fleet of 40 devices, asymmetric DSL). Each is a star around host "cloud": device -> its uplink
-> (site and region links) -> backbone -> cloud ingress, and back by the matching downlinks.

usage: tools/docs/held_out_platforms.py"""
import pathlib

OUT = pathlib.Path(__file__).resolve().parents[2] / "results" / "fidelity" / "held-out"

# name: (devices, [(up, down, latency) of each level from the device inward], cloud link (bw, latency))
PLATFORMS = {
    "lan": (8, [("1Gbps", "1Gbps", "50us")], ("1Gbps", "50us")),
    "satellite": (4, [("10Mbps", "50Mbps", "300ms")], ("100Mbps", "1ms")),
    "dsl": (8, [("1Mbps", "16Mbps", "20ms"), ("10Gbps", "10Gbps", "15ms")], ("100Mbps", "1ms")),
    "fleet3": (40, [("10Mbps", "50Mbps", "5ms"), ("100Mbps", "100Mbps", "10ms"), ("1Gbps", "1Gbps", "15ms")],
               ("1Gbps", "1ms")),
}
# fleet3: 10 devices a site, 2 sites a region.
SITE, REGION = 10, 20


def xml(name, devices, levels, cloud):
    lines = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             f"<!-- Held-out platform {name}: written by tools/docs/held_out_platforms.py -->",
             '<platform version="4.1">', '  <zone id="held-out" routing="Full">', '    <host id="cloud" speed="50Gf" core="8"/>']
    for d in range(devices):
        lines.append(f'    <host id="d{d}" speed="5Gf" core="4"/>')
    lines.append(f'    <link id="cloud-in" bandwidth="{cloud[0]}" latency="{cloud[1]}"/>')
    lines.append(f'    <link id="cloud-out" bandwidth="{cloud[0]}" latency="{cloud[1]}"/>')

    def group(level, d):
        # Level 0 is each device's own link; deeper levels are shared by a site, then a region, then all.
        return d if level == 0 else (d // SITE if level == 1 and len(levels) == 3 else
                                     d // REGION if level == 2 and len(levels) == 3 else 0)

    made = set()
    for level, (up, down, lat) in enumerate(levels):
        for d in range(devices):
            g = group(level, d)
            if (level, g) in made:
                continue
            made.add((level, g))
            lines.append(f'    <link id="l{level}-{g}-up" bandwidth="{up}" latency="{lat}"/>')
            lines.append(f'    <link id="l{level}-{g}-down" bandwidth="{down}" latency="{lat}"/>')
    for d in range(devices):
        ups = [f"l{level}-{group(level, d)}-up" for level in range(len(levels))] + ["cloud-in"]
        downs = ["cloud-out"] + [f"l{level}-{group(level, d)}-down" for level in reversed(range(len(levels)))]
        lines.append(f'    <route src="d{d}" dst="cloud" symmetrical="NO">' +
                     "".join(f'<link_ctn id="{l}"/>' for l in ups) + "</route>")
        lines.append(f'    <route src="cloud" dst="d{d}" symmetrical="NO">' +
                     "".join(f'<link_ctn id="{l}"/>' for l in downs) + "</route>")
    lines += ["  </zone>", "</platform>", ""]
    return "\n".join(lines)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (devices, levels, cloud) in PLATFORMS.items():
        (OUT / f"{name}.xml").write_text(xml(name, devices, levels, cloud))
        print(f"wrote {(OUT / f'{name}.xml').relative_to(OUT.parents[2])}")


if __name__ == "__main__":
    main()

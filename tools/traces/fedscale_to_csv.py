#!/usr/bin/python3
"""FedScale's device traces as edgetrain's trace CSVs (docs/how-to/device-traces.md).

FedScale ships two pickles:
  - the device capacity trace (client_device_capacity): {client_id: {"computation": ms per sample,
    "communication": kbit/s}}, written as rows `device,compute_ms_per_sample,bandwidth_kbps`;
  - the behaviour trace (client_behave_trace): {client_id: {"active": [t, ...], "inactive": [t, ...],
    "finish_time": period_s, ...}}, where a client is on from active[i] to inactive[i] and the
    pattern repeats every finish_time seconds; written as rows `device,start_s,end_s`, repeated up
    to --horizon-s (default: one period), a client's windows sorted, clipped to its period and merged
    where they touch or overlap, empty ones left out.

A pickle can run any code when it is loaded. This converter never lets it: its unpickler refuses
every global (find_class raises), so no class, function or REDUCE call can be built, and only
dicts, lists, tuples, numbers, strings, booleans and None come out; anything else is refused too.
"""
import argparse
import io
import math
import pickle
import sys

ALLOWED = (dict, list, tuple, int, float, str, bool, type(None))


class RefusedPickle(Exception):
    """The pickle asks for something other than plain data."""


class PlainDataUnpickler(pickle.Unpickler):
    """An unpickler that builds no object but builtin containers, numbers and strings."""

    def find_class(self, module, name):
        raise RefusedPickle(f"the pickle asks for {module}.{name}: only dicts, lists, numbers and strings are read")

    def persistent_load(self, pid):
        raise RefusedPickle("the pickle holds a persistent id: only dicts, lists, numbers and strings are read")


def check_plain(value, depth=0):
    """Raises RefusedPickle unless `value` is made only of the allowed types."""
    stack = [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, ALLOWED):
            raise RefusedPickle(f"the pickle holds a {type(v).__name__}: only dicts, lists, numbers and strings are read")
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)


def load_plain(data: bytes):
    """The plain data in the pickle bytes `data`, never executing anything."""
    try:
        value = PlainDataUnpickler(io.BytesIO(data)).load()
    except RefusedPickle:
        raise
    except Exception as e:  # a truncated or malformed pickle
        raise RefusedPickle(f"not a readable pickle ({type(e).__name__}: {e})") from None
    check_plain(value)
    return value


def number(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"{what}: expected a number, got {v!r}")
    return float(v)


def fmt(x):
    """Shortest text that reads back as the same double (integers without a point)."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def capacity_rows(trace, limit=None):
    if not isinstance(trace, dict):
        raise ValueError("capacity trace: expected a dict of client id -> {computation, communication}")
    rows = []
    for client, rec in trace.items():
        if limit is not None and len(rows) >= limit:
            break
        if not isinstance(rec, dict) or "computation" not in rec or "communication" not in rec:
            raise ValueError(f"capacity trace: client {client!r}: expected a dict with computation and communication")
        ms = number(rec["computation"], f"client {client!r} computation")
        kbps = number(rec["communication"], f"client {client!r} communication")
        rows.append((str(client), ms, kbps))
    return rows


def on_windows(rec, horizon_s, client):
    """A client's on intervals [start, end) up to horizon_s (default one period), sorted and merged."""
    if not isinstance(rec, dict) or not all(k in rec for k in ("active", "inactive", "finish_time")):
        raise ValueError(f"behaviour trace: client {client!r}: expected a dict with active, inactive and finish_time")
    active, inactive = rec["active"], rec["inactive"]
    if not isinstance(active, (list, tuple)) or not isinstance(inactive, (list, tuple)) or len(active) != len(inactive):
        raise ValueError(f"behaviour trace: client {client!r}: active and inactive must be lists of one length")
    period = number(rec["finish_time"], f"client {client!r} finish_time")
    if period <= 0:
        raise ValueError(f"behaviour trace: client {client!r}: finish_time must be > 0, got {period}")
    base = []
    for a, b in zip(active, inactive):
        a = max(0.0, number(a, f"client {client!r} active"))
        b = min(period, number(b, f"client {client!r} inactive"))
        if b > a:
            base.append((a, b))
    base.sort()
    horizon = period if horizon_s is None else horizon_s
    out = []
    k = 0
    while k * period < horizon:
        for a, b in base:
            s, e = a + k * period, min(b + k * period, horizon)
            if e <= s:
                continue
            if out and s <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], e))
            else:
                out.append((s, e))
        k += 1
    return out


def availability_rows(trace, horizon_s=None, limit=None):
    if not isinstance(trace, dict):
        raise ValueError("behaviour trace: expected a dict of client id -> {active, inactive, finish_time}")
    rows, clients = [], 0
    for client, rec in trace.items():
        if limit is not None and clients >= limit:
            break
        clients += 1
        for s, e in on_windows(rec, horizon_s, client):
            rows.append((str(client), s, e))
    return rows


def write_csv(path, header, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + "\n")
        for name, a, b in rows:
            f.write(f"{name},{fmt(a)},{fmt(b)}\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--capacity", help="FedScale's device capacity pickle")
    p.add_argument("--behaviour", help="FedScale's behaviour (availability) pickle")
    p.add_argument("--capacity-out", default="capacity.csv", help="default: capacity.csv")
    p.add_argument("--availability-out", default="availability.csv", help="default: availability.csv")
    p.add_argument("--horizon-s", type=float, help="repeat each client's period up to this time (default: one period)")
    p.add_argument("--limit", type=int, help="only the first N clients of each pickle")
    args = p.parse_args(argv)
    if not args.capacity and not args.behaviour:
        p.error("give --capacity, --behaviour or both")
    if args.horizon_s is not None and not args.horizon_s > 0:
        p.error("--horizon-s must be > 0")
    try:
        if args.capacity:
            with open(args.capacity, "rb") as f:
                rows = capacity_rows(load_plain(f.read()), args.limit)
            write_csv(args.capacity_out, "device,compute_ms_per_sample,bandwidth_kbps", rows)
            print(f"{args.capacity_out}: {len(rows)} devices", file=sys.stderr)
        if args.behaviour:
            with open(args.behaviour, "rb") as f:
                rows = availability_rows(load_plain(f.read()), args.horizon_s, args.limit)
            write_csv(args.availability_out, "device,start_s,end_s", rows)
            print(f"{args.availability_out}: {len(rows)} on intervals", file=sys.stderr)
    except (RefusedPickle, ValueError, OSError) as e:
        print(f"fedscale_to_csv: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

A pickle can run any code when it is loaded. This converter never lets it: it does not use Python's
unpickler at all but reads the pickle with its own small interpreter of the opcodes that build plain
data (dicts, lists, tuples, numbers, strings, booleans, None); an opcode that would import a name,
call anything, build an object, a set or bytes is refused. The pickle is untrusted input in every
other way too (docs/reference/bad-input.md, "The FedScale converter"): the file is read with a size
bound, the process's memory is bounded, dict keys are strings or integers, shared and self-referencing
containers are walked once, numbers are checked before they are used, and the rows written are
bounded (per client and in all) by counts computed before any row is made. Anything else is one line
on stderr, exit status 2; nothing is written unless every output can be written whole.
"""
import argparse
import math
import os
import re
import resource
import stat
import sys

from plain_pickle import RefusedPickle, client_label, describe, load_plain, printable, quoted

# Limits (docs/reference/bad-input.md, "The FedScale converter").
MAX_INPUT_BYTES = 256 << 20  # a pickle read; as edgetrain's bound on a trace file
MAX_MEMORY_BYTES = 4 << 30  # the process's data (RLIMIT_DATA), lowered to what the machine has available
MAX_OUTPUT_BYTES = 256 << 20  # a CSV written: edgetrain reads at most 256 MiB of a trace file
MAX_ROWS_PER_CLIENT = 10**6  # on intervals of one client up to the horizon
MAX_ROWS = 10**7  # rows of one CSV
MAX_TIME_S = 1e9  # edgetrain's longest time (util::kMaxTimeS): the horizon is cut there
MIN_PERIOD_S = 1e-6  # the simulator's clock resolution: a shorter finish_time is refused
MAX_MS_PER_SAMPLE = 1e7  # the capacity ranges edgetrain reads (src/input/trace_files.cpp)
MIN_KBPS, MAX_KBPS = 1e-3, 1e12
MAX_NAME = 64  # a device name: 1 to 64 printable ASCII characters (edgetrain's devices[].name)


def read_input(path, what):
    """The bytes of an input file, at most MAX_INPUT_BYTES: a regular file by its size before a byte
    is read, a stream (pipe, process substitution) while it is read. O_NONBLOCK: a FIFO nobody
    writes to does not block open() (a read from it then ends at once, empty)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ValueError(f"{printable(path)}: is a folder, not the {what} pickle")
        if stat.S_ISREG(st.st_mode) and st.st_size > MAX_INPUT_BYTES:
            raise ValueError(f"{printable(path)}: {st.st_size} bytes, more than the {MAX_INPUT_BYTES >> 20} MiB "
                             f"the converter reads of a pickle")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= MAX_INPUT_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_INPUT_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_INPUT_BYTES:
        raise ValueError(f"{printable(path)}: more than the {MAX_INPUT_BYTES >> 20} MiB the converter reads of a "
                         f"pickle (a stream that goes on past it)")
    if not size:
        raise ValueError(f"{printable(path)}: empty, not the {what} pickle")
    return b"".join(chunks), (st.st_dev, st.st_ino)


# -- The traces ------------------------------------------------------------------------------------------------------


def number(v, what):
    """A finite number of the file as a float; booleans, strings, containers and numbers too large
    for a double are refused."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{what}: expected a number, got {describe(v)}")
    if isinstance(v, int):
        if v.bit_length() > 1000:  # float() would overflow
            raise ValueError(f"{what}: expected a finite number, got {describe(v)}")
        v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{what}: expected a finite number, got {describe(v)}")
    return v


def device_name(client):
    """The CSV's device name of a client id: an integer's digits, or a string that is a plain CSV
    cell and a legal edgetrain device name (1 to 64 printable ASCII characters, no comma or double
    quote, no space at either end) and not a comment (a leading #)."""
    if isinstance(client, bool) or not isinstance(client, (int, str)):
        raise ValueError(f"{client_label(client)}: a client id is an integer or a string")
    if isinstance(client, int):
        if client.bit_length() > 200:
            raise ValueError(f"{client_label(client)}: a client id of more than {MAX_NAME} digits")
        name = str(client)
    else:
        name = client
    if not 1 <= len(name) <= MAX_NAME:
        raise ValueError(f"{client_label(client)}: a device name has 1 to {MAX_NAME} characters")
    for i, c in enumerate(name):
        if not " " <= c <= "~" or c in ',"':
            raise ValueError(f"{client_label(client)}: character {printable(repr(c))} at {i + 1}: a device name is "
                             "printable ASCII without , or \"")
    if name != name.strip(" ") or name.startswith("#"):
        raise ValueError(f"{client_label(client)}: a device name neither starts with # nor has a space at either end")
    return name


class _Names:
    """Device names given so far: two client ids that give one name (1 and "1") are refused."""

    def __init__(self, trace):
        self.trace = trace
        self.seen = {}

    def name(self, client):
        try:
            name = device_name(client)
        except ValueError as e:
            raise ValueError(f"{self.trace}: {e}") from None
        if name in self.seen:  # the keys of one dict: another key (1 and "1")
            raise ValueError(f"{self.trace}: {client_label(self.seen[name])} and {client_label(client)} are both "
                             f"device {quoted(name)}")
        self.seen[name] = client
        return name


def _clients(trace, what, limit):
    if not isinstance(trace, dict):
        raise ValueError(f"{what}: expected a dict of client id -> record, got {describe(trace)}")
    if limit is not None and limit < 1:
        raise ValueError("--limit must be at least 1")
    for n, item in enumerate(trace.items()):
        if limit is not None and n >= limit:
            return
        yield item


def capacity_rows(trace, limit=None):
    """(device, compute_ms_per_sample, bandwidth_kbps) per client, checked as edgetrain reads them."""
    names = _Names("capacity trace")
    rows = []
    for client, rec in _clients(trace, "capacity trace", limit):
        name = names.name(client)
        if not isinstance(rec, dict) or "computation" not in rec or "communication" not in rec:
            raise ValueError(f"capacity trace: {client_label(client)}: expected a dict with computation and "
                             f"communication, got {describe(rec)}")
        ms = number(rec["computation"], f"capacity trace: {client_label(client)} computation")
        kbps = number(rec["communication"], f"capacity trace: {client_label(client)} communication")
        if not 0 < ms <= MAX_MS_PER_SAMPLE:
            raise ValueError(f"capacity trace: {client_label(client)} computation: ms per sample must be > 0 and "
                             f"<= {MAX_MS_PER_SAMPLE:g} (as edgetrain reads it), got {ms!r}")
        if not MIN_KBPS <= kbps <= MAX_KBPS:
            raise ValueError(f"capacity trace: {client_label(client)} communication: kbit/s must be >= {MIN_KBPS:g} "
                             f"(1 bit/s) and <= {MAX_KBPS:g} (as edgetrain reads it), got {kbps!r}")
        rows.append((name, ms, kbps))
        if len(rows) > MAX_ROWS:
            raise ValueError(f"capacity trace: more than {MAX_ROWS:,} clients, the most a CSV of the converter holds "
                             "(use --limit)")
    return rows


class _Plan:
    """One client's on windows within one period (sorted, merged) and how often they repeat."""

    __slots__ = ("name", "base", "period", "periods", "horizon", "rows")

    def __init__(self, name, base, period, horizon):
        self.name, self.base, self.period, self.horizon = name, base, period, horizon
        if not base:
            self.periods, self.rows = 0, 0
        elif base == [(0.0, period)]:  # always on: one interval up to the horizon
            self.periods, self.rows = 1, 1
        else:
            # A period of at least 1us and a horizon of at most 10^9 s: at most 10^15, a finite count.
            self.periods = max(1, math.ceil(horizon / period))
            wraps = base[0][0] == 0.0 and base[-1][1] == period  # a window joins the next period's first
            self.rows = (len(base) - wraps) * self.periods + wraps

    def windows(self):
        if self.rows == 1 and self.base == [(0.0, self.period)]:
            return [(0.0, self.horizon)]
        out = []
        for k in range(self.periods):
            offset = k * self.period
            if offset >= self.horizon:
                break
            for a, b in self.base:
                s, e = a + offset, min(b + offset, self.horizon)
                if e <= s:
                    continue
                if out and s <= out[-1][1]:
                    out[-1] = (out[-1][0], max(out[-1][1], e))
                else:
                    out.append((s, e))
        return out


def _base_windows(active, inactive, period, where):
    base = []
    for i, (a, b) in enumerate(zip(active, inactive)):
        a = max(0.0, number(a, f"{where} active[{i}]"))
        b = min(period, number(b, f"{where} inactive[{i}]"))
        if b > a:
            base.append((a, b))
    base.sort()
    merged = []
    for a, b in base:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _plan(rec, horizon_s, client, name, cache):
    where = f"behaviour trace: {client_label(client)}"
    if not isinstance(rec, dict) or not all(k in rec for k in ("active", "inactive", "finish_time")):
        raise ValueError(f"{where}: expected a dict with active, inactive and finish_time, got {describe(rec)}")
    active, inactive = rec["active"], rec["inactive"]
    if not isinstance(active, (list, tuple)) or not isinstance(inactive, (list, tuple)):
        raise ValueError(f"{where}: active and inactive must be lists, got {describe(active)} and {describe(inactive)}")
    if len(active) != len(inactive):
        raise ValueError(f"{where}: active and inactive must be lists of one length, got {len(active)} and "
                         f"{len(inactive)} entries")
    period = number(rec["finish_time"], f"{where} finish_time")
    if not period >= MIN_PERIOD_S:
        raise ValueError(f"{where}: finish_time must be at least 1e-06 s (the simulator's clock resolution), "
                         f"got {period!r}")
    horizon = min(period if horizon_s is None else horizon_s, MAX_TIME_S)
    key = (id(active), id(inactive), period)  # lists shared by many clients are read once
    base = cache.get(key) if cache is not None else None
    if base is None:
        base = _base_windows(active, inactive, period, where)
        if cache is not None:
            cache[key] = base
    plan = _Plan(name, base, period, horizon)
    if plan.rows > MAX_ROWS_PER_CLIENT:
        raise ValueError(f"{where}: {len(base)} on windows a period repeated {plan.periods:,} times up to "
                         f"{horizon:g} s (finish_time {period:g} s) make {plan.rows:,} rows, more than the "
                         f"{MAX_ROWS_PER_CLIENT:,} a client may have (give a shorter --horizon-s)")
    return plan


def on_windows(rec, horizon_s, client):
    """A client's on intervals [start, end) up to horizon_s (default one period), sorted and merged."""
    return _plan(rec, horizon_s, client, None, None).windows()


def availability_plans(trace, horizon_s=None, limit=None):
    """Each client's plan, every record checked and the rows counted before any row is made."""
    if horizon_s is not None and not (isinstance(horizon_s, (int, float)) and 0 < horizon_s <= MAX_TIME_S):
        raise ValueError(f"--horizon-s must be > 0 and at most {MAX_TIME_S:g} s (the longest time edgetrain "
                         f"simulates), got {describe(horizon_s)}")
    names = _Names("behaviour trace")
    cache, plans, total = {}, [], 0
    for client, rec in _clients(trace, "behaviour trace", limit):
        plan = _plan(rec, horizon_s, client, names.name(client), cache)
        total += plan.rows
        if total > MAX_ROWS:
            raise ValueError(f"behaviour trace: more than {MAX_ROWS:,} rows in all up to the horizon (passed at "
                             f"{client_label(client)}, client number {len(plans) + 1:,}): use --limit or a shorter "
                             "--horizon-s")
        plans.append(plan)
    return plans


def iter_availability_rows(plans):
    for plan in plans:
        for s, e in plan.windows():
            yield plan.name, s, e


def availability_rows(trace, horizon_s=None, limit=None):
    return list(iter_availability_rows(availability_plans(trace, horizon_s, limit)))


# -- Writing -------------------------------------------------------------------------------------------------------


def fmt(x):
    """Shortest text that reads back as the same double (integers without a point)."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


class OutputTooLarge(ValueError):
    """A CSV past the size edgetrain reads."""


def csv_text(header, rows, max_bytes=None):
    """The CSV's lines, refused past max_bytes."""
    size = len(header) + 1
    yield header + "\n"
    for name, a, b in rows:
        line = f"{name},{fmt(a)},{fmt(b)}\n"
        size += len(line)
        if max_bytes is not None and size > max_bytes:
            raise OutputTooLarge(f"the CSV would be larger than {max_bytes >> 20} MiB, more than edgetrain reads of a "
                             "trace file (use --limit or a shorter --horizon-s)")
        yield line


def _own_fd(path):
    """The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N names, else None."""
    p = os.path.normpath(os.path.abspath(path))
    if p in ("/dev/stdout", "/dev/stderr"):
        return 1 if p == "/dev/stdout" else 2
    m = re.fullmatch(rf"/dev/fd/(\d+)|/proc/(?:self|{os.getpid()})/fd/(\d+)", p)
    return int(m.group(1) or m.group(2)) if m else None


class Output:
    """An output file written whole or not at all: into a temporary file beside it (removed on any
    failure), renamed over it by commit(). A character device or FIFO (/dev/null, a named pipe) and an
    open file of the process (/dev/stdout, /dev/fd/N, even when it is a regular file) are written
    through; a folder is refused. A symlink is followed: its target gets the content."""

    def __init__(self, path):
        self.path = path
        if not path or path.endswith("/") or os.path.basename(path) in (".", ".."):
            raise ValueError(f"{printable(path)!r}: not a file name (the output is a file)")
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        self.fd = _own_fd(path) if st is not None else None
        self.through = st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)
                                           or self.fd is not None)
        if st is not None and not self.through and not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{printable(path)}: is {'a folder' if stat.S_ISDIR(st.st_mode) else 'a special file'}; "
                             "the converter writes a regular file there, or through a character device or FIFO")
        self.identity = (st.st_dev, st.st_ino) if st is not None else None
        self.target = path if self.through else os.path.realpath(path)
        self.temporary = None if self.through else os.path.join(
            os.path.dirname(self.target), f".{os.path.basename(self.target)}.tmp-{os.getpid()}")

    def write(self, chunks):
        try:
            if self.fd is not None:  # at the descriptor's own offset (a shell's > or >> file)
                f = os.fdopen(os.dup(self.fd), "w", encoding="utf-8")
            elif self.through:
                f = open(self.path, "w", encoding="utf-8")
            else:
                f = os.fdopen(os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666),
                              "w", encoding="utf-8")
            with f:
                for chunk in chunks:
                    f.write(chunk)
        except OSError as e:
            raise ValueError(f"{printable(self.path)}: cannot write: {e.strerror or e}") from None

    def commit(self):
        if self.temporary:
            try:
                os.replace(self.temporary, self.target)
            except OSError as e:
                raise ValueError(f"{printable(self.path)}: cannot write: {e.strerror or e}") from None
            self.temporary = None

    def discard(self):
        if self.temporary and os.path.lexists(self.temporary):
            os.unlink(self.temporary)
        self.temporary = None


def write_csv(path, header, rows, max_bytes=None):
    out = Output(path)
    try:
        out.write(csv_text(header, rows, max_bytes))
        out.commit()
    except OutputTooLarge as e:
        raise ValueError(f"{printable(path)}: {e}") from None
    finally:
        out.discard()


# -- The command ---------------------------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's own is the usage and the message: two lines)
        sys.stderr.write(f"fedscale_to_csv: {printable(message)} (see --help)\n")
        sys.exit(2)


def _limit_memory():
    """The process's data segment (what Python allocates) bounded, so that a pickle describing more
    objects than the machine holds ends in a MemoryError, refused with one line."""
    limit = MAX_MEMORY_BYTES
    floor = 512 << 20  # below this the interpreter itself could fail before the message is out
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    limit = min(limit, int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    limit = max(limit, floor)
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def _horizon_arg(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {printable(text[:40])!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_TIME_S):
        raise argparse.ArgumentTypeError(f"must be > 0 and at most {MAX_TIME_S:g} s (the longest time edgetrain "
                                         f"simulates), got {printable(text[:40])}")
    return value


def _count_arg(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {printable(text[:40])!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def convert(args):
    """Reads and checks every input, then writes every output (each whole, or none of them)."""
    jobs = []  # [path, header, rows, what rows are]
    inputs = {}
    if args.capacity:
        data, identity = read_input(args.capacity, "capacity")
        inputs[identity] = args.capacity
        rows = capacity_rows(load_plain(data), args.limit)
        jobs.append([args.capacity_out, "device,compute_ms_per_sample,bandwidth_kbps", rows, "devices"])
    if args.behaviour:
        data, identity = read_input(args.behaviour, "behaviour")
        inputs[identity] = args.behaviour
        plans = availability_plans(load_plain(data), args.horizon_s, args.limit)
        jobs.append([args.availability_out, "device,start_s,end_s", iter_availability_rows(plans), "on intervals"])
    del data
    outputs = []
    try:
        for path, header, rows, what in jobs:
            out = Output(path)
            if out.identity is not None and out.identity in inputs:
                raise ValueError(f"{printable(path)}: is the input {printable(inputs[out.identity])}; writing it "
                                 "would destroy what is read")
            if not out.through and any(o.target == out.target for o in outputs):
                raise ValueError(f"{printable(path)}: given as both outputs")
            outputs.append(out)
        counts = []
        for out, (_, header, rows, _) in zip(outputs, jobs):
            counted = _Counted(rows)
            try:
                out.write(csv_text(header, counted, MAX_OUTPUT_BYTES))
            except OutputTooLarge as e:
                raise ValueError(f"{printable(out.path)}: {e}") from None
            counts.append(counted.n)
        for out in outputs:
            out.commit()
    finally:
        for out in outputs:
            out.discard()
    for out, n, job in zip(outputs, counts, jobs):
        print(f"{printable(out.path)}: {n} {job[3]}", file=sys.stderr)


class _Counted:
    def __init__(self, rows):
        self.rows, self.n = rows, 0

    def __iter__(self):
        for row in self.rows:
            self.n += 1
            yield row


def main(argv=None):
    p = Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--capacity", help="FedScale's device capacity pickle")
    p.add_argument("--behaviour", help="FedScale's behaviour (availability) pickle")
    p.add_argument("--capacity-out", default="capacity.csv", help="default: capacity.csv")
    p.add_argument("--availability-out", default="availability.csv", help="default: availability.csv")
    p.add_argument("--horizon-s", type=_horizon_arg,
                   help=f"repeat each client's period up to this time, at most {MAX_TIME_S:g} s (default: one period)")
    p.add_argument("--limit", type=_count_arg, help="only the first N clients of each pickle")
    args = p.parse_args(argv)
    if not args.capacity and not args.behaviour:
        p.error("give --capacity, --behaviour or both")
    try:
        _limit_memory()
        convert(args)
    except (RefusedPickle, ValueError) as e:
        print(f"fedscale_to_csv: {printable(str(e))}", file=sys.stderr)
        return 2
    except OSError as e:
        where = e.filename if e.filename is not None else "output"
        print(f"fedscale_to_csv: {printable(str(where))}: {printable(e.strerror or str(e))}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"fedscale_to_csv: out of memory: the traces need more than the converter may take "
              f"({MAX_MEMORY_BYTES >> 30} GiB, or what the machine has available); use --limit", file=sys.stderr)
        return 2
    except RecursionError:
        print("fedscale_to_csv: a structure nested too deeply", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fedscale_to_csv: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

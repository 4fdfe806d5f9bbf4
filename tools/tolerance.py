"""How a figure block is checked against what the code gives, on any x86-64 machine.

The figures a page quotes come from real training, whose arithmetic (BLAS, ATen and oneDNN kernels
picked per instruction set) moves in its low digits from one CPU to another. A block function marks
the figures that follow the training's arithmetic; every other figure, and every word, must match
exactly:

- `acc(x)`: an accuracy or loss, printed to 4 digits, matches within ACCURACY (absolute);
- `steered(x, spec)`: the number x (or every number in a text) is a figure of a run that stops when it reaches its
  target accuracy (its rounds, simulated time, bytes, event counts): it matches within STEERED
  (relative) or one unit of its last printed digit, whichever is larger;
- `below(x, bound)`: a figure of a chaotic run (momentum on stale gradients), whose value differs
  a lot between CPUs, is quoted as what it shows ("below 0.3"), and a value above the bound fails.

Simulated times, bytes and counts of runs that stop on rounds or on simulated time do not depend
on the training: they stay exact. The tolerances are those measured over every checked figure with
the kernels forced to each instruction set (docs/explanation/determinism.md), with a margin.
"""
import re

ACCURACY = 0.01
STEERED = 0.05

_OPEN, _CLOSE = "\ue000", "\ue001"  # around a marked figure: kind letter, then its text (not whitespace)
_MARK = re.compile(_OPEN + "([as])(.*?)" + _CLOSE, re.S)
_NUMBER = re.compile(r"-?[0-9][0-9,]*(?:\.[0-9]+)?")


def acc(x, digits=4):
    return f"{_OPEN}a{x:.{digits}f}{_CLOSE}"


def steered(value, spec=""):
    """`value` (a number, formatted with `spec`, or a text whose numbers are all steered), marked."""
    return f"{_OPEN}s{value if isinstance(value, str) else format(value, spec)}{_CLOSE}"


def below(x, bound):
    return f"below {bound:g}" if x < bound else f"{x:.4f} (not below {bound:g})"


def plain(text):
    """The text as the page shows it: marks removed."""
    return _MARK.sub(lambda m: m.group(2), text)


def _value(number):
    return float(number.replace(",", ""))


def _unit(number):
    """One unit of the number's last printed digit."""
    return 10.0 ** -len(number.split(".")[1]) if "." in number else 1.0


def _within(kind, want, got):
    w, g = _value(want), _value(got)
    if kind == "a":
        return abs(g - w) <= ACCURACY + 1e-12
    return abs(g - w) <= max(STEERED * abs(w), _unit(want)) + 1e-12


def _pattern(token):
    """A regular expression for a page's word given the code's marked word, and the figures it captures:
    (kind, the code's number) per group, in order."""
    parts, figures, at = [], [], 0
    for m in _MARK.finditer(token):
        parts.append(re.escape(token[at:m.start()]))
        at = m.end()
        inner_at = 0
        for n in _NUMBER.finditer(m.group(2)):
            parts.append(re.escape(m.group(2)[inner_at:n.start()]) + "(" + _NUMBER.pattern + ")")
            figures.append((m.group(1), n.group(0)))
            inner_at = n.end()
        parts.append(re.escape(m.group(2)[inner_at:]))
    parts.append(re.escape(token[at:]))
    return re.compile("".join(parts)), figures


def _words(text):
    """Whitespace-separated words, a mark's inner spaces kept inside its word (the page's line breaks
    do not count: a figure one digit longer may move them)."""
    text = _MARK.sub(lambda m: m.group(0).replace(" ", "\x00").replace("\n", "\x00"), text)
    return [w.replace("\x00", " ") for w in text.split()]


def mismatches(page, code):
    """What differs between a page's block and the code's marked text beyond the tolerances: a list
    of lines (empty when they match)."""
    have = page.split()
    want = _words(code)
    out = []
    i = 0  # index into the page's words; a marked word spans as many page words as it has spaces
    for word in want:
        span = len(plain(word).split())
        got = " ".join(have[i:i + span])
        i += span
        if _OPEN not in word:
            if got != word:
                out.append(f"'{got}' where the code gives '{word}'")
                break  # the words no longer line up
            continue
        pattern, figures = _pattern(word)
        m = pattern.fullmatch(got)
        if not m:
            out.append(f"'{got}' where the code gives '{plain(word)}'")
            break
        for (kind, number), seen in zip(figures, m.groups()):
            if not _within(kind, number, seen):
                tolerance = f"±{ACCURACY}" if kind == "a" else f"±{STEERED:.0%} (a run stopped at its target)"
                out.append(f"{seen} where the code gives {number}, beyond {tolerance}")
    if not out and i != len(have):
        out.append(f"the page has more words than the code gives: '{' '.join(have[i:i + 8])}'")
    return out

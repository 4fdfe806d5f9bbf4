"""What every figure shares: a Chart (a matplotlib figure, a tooltip per point or bar, the numbers
behind it as a table), unit formatting, and the two outputs: an image file (edgetrain plot) or an
inline SVG with <title> tooltips that a browser shows on hover, without JavaScript (edgetrain report).
Outputs are deterministic: no date in the SVG, a fixed hash salt for its ids."""

import io
import re

import matplotlib

matplotlib.use("Agg")  # renders offline, no display needed
import matplotlib.pyplot as plt  # noqa: E402

from html_build import attributes, element  # noqa: E402

matplotlib.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text: smaller files, readable by the browser and by tests
        "svg.hashsalt": "edgetrain",
        # Names (devices, links, runs) are drawn as they are: a $ in one is not matplotlib mathtext,
        # which would fail on a legal name such as d$\frac$.
        "text.parse_math": False,
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
    }
)

COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]
HIGHLIGHT = "#d62728"  # the bottleneck, in every figure that shows one
MAX_TIPS = 200  # hover points per series: beyond that, evenly spread ones


class Chart:
    """One figure: `key` names its file (edgetrain plot) and its anchor (edgetrain report)."""

    def __init__(self, key, title, caption="", size=(7.5, 3.6)):
        self.key, self.title, self.caption = key, title, caption
        self.figure = plt.figure(figsize=size)
        self.tips = {}  # gid -> tooltip text
        self.table = None  # (header, rows) of the numbers shown

    def tip(self, artist, text):
        """Attaches a hover text to a matplotlib artist (a line, a marker, a bar)."""
        gid = f"tip{len(self.tips)}"
        artist.set_gid(gid)
        self.tips[gid] = text
        return artist

    def save(self, path, fmt, heading, dpi, size=None):
        """An image file; `heading` is drawn above the figure (the report has its own <h3>), `size`
        (inches) replaces the figure's own."""
        if heading:
            self.figure.suptitle(heading, fontsize=10, parse_math=False)  # a name is text, not a formula
        if size:
            self.figure.set_size_inches(*size)
        self.figure.savefig(path, format=fmt, dpi=dpi, bbox_inches="tight", metadata=_metadata(fmt))

    def svg(self, prefix):
        """The figure as an inline <svg> element: tooltips as <title> children of the hovered groups,
        every id prefixed so that several figures can share one page."""
        buffer = io.StringIO()
        self.figure.savefig(buffer, format="svg", bbox_inches="tight", metadata=_metadata("svg"))
        text = buffer.getvalue()
        text = text[text.index("<svg"):]
        text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)  # RDF boilerplate, not shown
        for gid, tip in self.tips.items():
            text = text.replace(f'<g id="{gid}">', f'<g id="{gid}">' + element("title", None, tip), 1)
        text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', text)
        text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", text)
        text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', text)
        return text.replace("<svg ", "<svg" + attributes({"role": "img", "aria-label": self.title}) + " ", 1)

    def close(self):
        plt.close(self.figure)


def _metadata(fmt):
    if fmt == "svg":
        return {"Date": None, "Creator": "edgetrain"}
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": "edgetrain"}
    return {"Software": "edgetrain"}


def target_accuracy(run):
    """The run's stop.target_accuracy, or None (a line on the accuracy charts)."""
    return (run.scenario.get("stop") or {}).get("target_accuracy")


def spread(count, limit=MAX_TIPS, keep=()):
    """At most `limit` indices of 0..count-1, evenly spread, always with the first, the last and `keep`."""
    if count <= limit:
        return list(range(count))
    step = (count - 1) / (limit - 1)
    chosen = {round(i * step) for i in range(limit)}
    chosen.update(k for k in keep if 0 <= k < count)
    return sorted(chosen)


def byte_scale(largest):
    """(divisor, unit) for SI byte amounts, as edgetrain's summary prints them."""
    for divisor, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if largest >= divisor:
            return divisor, unit
    return 1.0, "B"


def fmt_bytes(value):
    if value is None:
        return "-"
    divisor, unit = byte_scale(abs(value))
    return f"{value:.0f} B" if unit == "B" else f"{value / divisor:.1f} {unit}"


def fmt_seconds(value):
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.1f} s"
    if abs(value) >= 1:
        return f"{value:.2f} s"
    return f"{value * 1e3:.3g} ms"


def fmt_number(value):
    """A value for a table cell: integers as integers, others with 4 significant digits."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e15):
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def pct(fraction):
    return "-" if fraction is None else f"{100 * fraction:.1f}%"

"""HTML written by construction: every element, attribute and text node of report.html goes through
element() or text(), which escape whatever they are given; only what they return (Markup) is
written as it is. A name or an id from a results folder (a run id, a device, a link, a scenario
name) is therefore always text: it cannot open an element, an attribute or a script. Tag and
attribute names are this program's own (checked), and links only point inside the page."""

import html
import re

_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")
_VOID = {"meta", "br", "img"}


class Markup(str):
    """HTML built by this module (or by matplotlib's SVG writer, which escapes its own text)."""

    __slots__ = ()


def text(value):
    """`value` as an HTML text node or attribute value: escaped, unless it is Markup already."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def join(*parts):
    """The parts one after another, each as text() makes it."""
    return Markup("".join(text(p) for p in parts))


def attributes(attrs):
    """' name="value"' for each attribute whose value is not None, every value escaped."""
    written = []
    for name, value in (attrs or {}).items():
        if value is None:
            continue
        if not _NAME.match(name):
            raise ValueError(f"not an attribute name: {name!r}")
        if name in ("href", "src") and not str(value).startswith("#"):
            raise ValueError(f"{name} must point inside the page: {value!r}")  # self-contained, no fetch
        written.append(f' {name}="{html.escape(str(value), quote=True)}"')  # Markup too: quotes matter here
    return Markup("".join(written))


def element(tag, attrs=None, *children):
    """<tag attr="value"...>children</tag>; attributes whose value is None are left out."""
    if not _NAME.match(tag):
        raise ValueError(f"not a tag name: {tag!r}")
    start = f"<{tag}{attributes(attrs)}>"
    if tag in _VOID:
        return Markup(start)
    return Markup(start + join(*children) + f"</{tag}>")


def anchor_id(*parts):
    """An id attribute's value made of parts (a prefix, a run id): the parts joined by '-', every
    byte but letters, digits, '-' and '.' written as _XX, so that every run id, whatever it holds,
    gives a distinct, plain id (and a plain #fragment)."""
    joined = "-".join(str(p) for p in parts)
    return re.sub(r"[^A-Za-z0-9.-]", lambda m: "".join(f"_{b:02x}" for b in m.group(0).encode()), joined)

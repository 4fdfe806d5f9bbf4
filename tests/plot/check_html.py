"""Checks a report.html for injected markup, as a browser's parser sees it (html.parser): no element
that runs or fetches anything, no event-handler attribute, links only inside the page, the CSP that
forbids script, and each hostile string given on the command line shown as text or attribute value
(so it was rendered, not dropped) and never parsed as markup. Prints one line per problem; exit 1
if any. Usage: check_html.py PAGE HOSTILE..."""

import sys
from html.parser import HTMLParser

FORBIDDEN = {"script", "img", "iframe", "object", "embed", "link", "base", "form", "input", "frame", "image", "audio",
             "video", "source", "foreignobject", "animate", "set", "meta-refresh"}


class Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.texts, self.csp = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in FORBIDDEN and not (tag == "image" and all(k != "href" or v.startswith("data:") for k, v in attrs)):
            self.problems.append(f"element <{tag}> {attrs}")
        for name, value in attrs:
            value = value or ""
            self.texts.append(value)
            if name.startswith("on"):
                self.problems.append(f"event handler {name}={value!r} on <{tag}>")
            if name in ("href", "xlink:href", "src", "action") and not value.startswith(("#", "data:")):
                self.problems.append(f"{name}={value!r} on <{tag}> points outside the page")
        if tag == "meta" and dict(attrs).get("http-equiv") == "Content-Security-Policy":
            self.csp = dict(attrs).get("content")

    def handle_data(self, data):
        self.texts.append(data)


def main(page, hostile):
    c = Collector()
    c.feed(open(page, encoding="utf-8").read())
    c.close()
    if not c.csp or "script-src 'none'" not in c.csp or "default-src 'none'" not in c.csp:
        c.problems.append(f"no Content-Security-Policy forbidding script: {c.csp!r}")
    shown = "\n".join(c.texts)
    for h in hostile:
        if h not in shown:
            c.problems.append(f"{h!r} is not shown as text")
    for p in c.problems:
        print(p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))

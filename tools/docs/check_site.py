#!/usr/bin/python3
"""The docs site's check (ctest docs/site): builds docs/ with `mkdocs build --strict` into a temporary
folder (a link to a missing page, a nav entry without its page, a link out of docs/ to a file the
repository lacks: each fails the build), then checks what --strict leaves out:
  - the nav of mkdocs.yml reaches every page of docs/ (mkdocs only mentions a page it leaves out);
  - every link of the built pages leads to a page that exists and, with a #fragment, to an anchor it
    holds (mkdocs 1.4 does not check anchors);
  - README.md's links lead to files that exist (anchors in docs pages included), and its "Where to read
    next" names every page of the nav.
Exit status 0 when all hold, 1 (saying what is wrong) otherwise, 77 when mkdocs is not installed (ctest
shows the test as skipped). Usage: tools/docs/check_site.py
"""
import html.parser
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = os.path.join(ROOT, "docs")


class Page(html.parser.HTMLParser):
    """The ids a built page holds and the links it makes."""

    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


def nav_pages(nav):
    """The Markdown files the nav names, in order."""
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            yield from nav_pages(value)
        elif not re.match(r"[a-z]+://", value):
            yield value


def doc_pages():
    return sorted(os.path.relpath(os.path.join(folder, n), DOCS).replace(os.sep, "/")
                  for folder, _, names in os.walk(DOCS) for n in names if n.endswith(".md"))


def parse_site(site):
    pages = {}
    for folder, _, names in os.walk(site):
        for n in names:
            if n.endswith(".html"):
                path = os.path.join(folder, n)
                page = Page()
                with open(path, encoding="utf-8") as f:
                    page.feed(f.read())
                pages[os.path.relpath(path, site).replace(os.sep, "/")] = page
    return pages


def site_problems(pages):
    problems = []
    for name, page in sorted(pages.items()):
        for href in page.links:
            url = urllib.parse.urlsplit(href)
            if url.scheme or url.netloc or href.startswith("/"):
                continue  # an address outside the site
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), urllib.parse.unquote(url.path))) \
                if url.path else name
            if not target.endswith(".html"):
                continue  # the theme's own files
            if target not in pages:
                problems.append(f"{name}: link to {href}: no such page")
            elif url.fragment and url.fragment not in pages[target].ids:
                problems.append(f"{name}: link to {href}: no anchor #{url.fragment} in {target}")
    return problems


def readme_problems(pages, nav):
    problems = []
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = re.sub(r"^```.*?^```", "", f.read(), flags=re.M | re.S)
    linked = set()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        url = urllib.parse.urlsplit(target)
        if url.scheme or url.netloc:
            continue
        path = posixpath.normpath(url.path) if url.path else "README.md"
        if not os.path.exists(os.path.join(ROOT, path)):
            problems.append(f"README.md: link to {target}: no such file")
            continue
        if path.startswith("docs/") and path.endswith(".md"):
            page = path[len("docs/"):]
            linked.add(page)
            built = page[:-3] + ".html"
            if url.fragment and url.fragment not in pages[built].ids:
                problems.append(f"README.md: link to {target}: no anchor #{url.fragment} in {path}")
    for page in nav:
        if page not in linked and page != "index.md":
            problems.append(f"README.md: \"Where to read next\" does not link docs/{page}")
    return problems


def main():
    mkdocs = shutil.which("mkdocs")
    if not mkdocs:
        print("SKIP: mkdocs is not installed (apt-get install mkdocs; tools/setup.sh installs it)")
        return 77
    import yaml  # python3-yaml, which Debian's mkdocs depends on

    with open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8") as f:
        config = yaml.safe_load(f)
    nav = list(nav_pages(config["nav"]))
    problems = [f"docs/{p}: not in the nav of mkdocs.yml (no page of the site reaches it)"
                for p in doc_pages() if p not in nav]
    with tempfile.TemporaryDirectory(prefix="edgetrain-docs-") as site:
        build = subprocess.run([mkdocs, "build", "--strict", "--config-file",
                                os.path.join(ROOT, "mkdocs.yml"), "--site-dir", site],
                               cwd=ROOT, capture_output=True, text=True)
        if build.returncode != 0:
            said = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", build.stdout + build.stderr).splitlines()
                    if not line.startswith("INFO")]
            print("\n".join(said))
            problems.append("mkdocs build --strict failed (above)")
        else:
            pages = parse_site(site)
            problems += site_problems(pages) + readme_problems(pages, nav)
    problems = list(dict.fromkeys(problems))  # a link made twice is one problem
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print(f"docs: {len(nav)} pages built with --strict, every page in the nav, every link and anchor resolves")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

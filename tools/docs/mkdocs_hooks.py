"""The mkdocs hook of the docs site (mkdocs.yml `hooks:`). A page's relative links to files outside
docs/ (results pages, scenarios, the README) work where the repository is browsed, but the site holds
docs/ alone: there each becomes the file's path in code, `results/bench/README.md`, and a link to a
file the repository does not hold is a warning (an error under --strict, as mkdocs' own broken links)."""
import logging
import os
import re

log = logging.getLogger("mkdocs.hooks.outside_links")
FENCED = re.compile(r"^(```.*?^```)", re.M | re.S)
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown, page, config, files):
    docs = os.path.realpath(config["docs_dir"])
    root = os.path.dirname(os.path.realpath(config["config_file_path"]))
    here = os.path.dirname(os.path.realpath(page.file.abs_src_path))

    def outside(m):
        text, target = m.group(1), m.group(2)
        if re.match(r"[a-zA-Z][a-zA-Z+.-]*:", target) or target.startswith("/"):
            return m.group(0)  # an address, not a file of the repository
        path = os.path.normpath(os.path.join(here, target))
        if path == docs or path.startswith(docs + os.sep):
            return m.group(0)  # mkdocs checks these itself
        shown = os.path.relpath(path, root)
        if shown.startswith("..") or not os.path.exists(path):
            log.warning(f"Documentation file '{page.file.src_uri}' links to '{target}', "
                        f"which is not a file of the repository.")
            return m.group(0)
        code = f"`{shown}`"
        return code if text in (shown, code) else f"{text} ({code})"

    parts = FENCED.split(markdown)
    return "".join(p if p.startswith("```") else LINK.sub(outside, p) for p in parts)

"""Check the built site: the pages a reader needs exist, and every internal link lands.

Run after ``make docs`` (``make docs-check`` does both)::

    python docs/sphinxext/check_site.py docs/_build/html --examples examples

Checks, each reported with its count:

1. ``index.html`` exists, and every example ``examples/[section/]NAME.py`` has its gallery page
   ``auto_examples/[section/]NAME.html``; each teaching example's page (``examples/*.py``) shows
   at least one figure.
2. Every internal link (``href``/``src`` of ``a``, ``link``, ``img``, ``script``, ``iframe``
   and ``source`` in every page) names a file that exists, and every ``#anchor`` an ``id`` (or
   ``name``) in the page it points to.
3. No page loads a script or a stylesheet from the network, and every page with a formula loads
   the MathJax copied into the site (``_static/mathjax``).
4. The API reference's one-line summaries do not stop at an abbreviation ("eq.", "c.p.d.", ...);
   the number of citation links to the references page is reported.

Exits 1 when any check fails, listing the failures (at most 20 per kind).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["Page", "read_page", "check_site", "main"]

_LINK_ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src", "source": "src"}


class Page(HTMLParser):
    """The ids, links and figures of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)
        self.images: list[str] = []
        self.has_math = False
        self.mathjax: list[str] = []
        self.citations = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v for k, v in attrs if v is not None}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.ids.add(values["name"])
        attr = _LINK_ATTRS.get(tag)
        if attr and attr in values:
            self.links.append((tag, values[attr]))
        if tag == "img" and "src" in values:
            self.images.append(values["src"])
        if "math" in values.get("class", "").split():
            self.has_math = True
        if tag == "a" and "sdpkern-cite" in values.get("class", "").split():
            self.citations += 1
        if tag == "script" and "mathjax" in values.get("src", "").lower():
            self.mathjax.append(values["src"])


def read_page(path: Path) -> Page:
    """Parse one page."""
    page = Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    page.close()
    return page


def _is_external(url: str) -> bool:
    scheme = urlsplit(url).scheme
    return bool(scheme) or url.startswith("//")


def check_site(root: Path, examples: Path | None) -> dict[str, list[str]]:
    """Run the checks; return failures by kind (empty lists when all pass) and print the counts."""
    failures: dict[str, list[str]] = defaultdict(list)
    # pages, not the theme's template fragments copied into _static
    pages = sorted(p for p in root.rglob("*.html") if "_static" not in p.relative_to(root).parts)
    parsed = {p.resolve(): read_page(p) for p in pages}
    if not (root / "index.html").is_file():
        failures["missing pages"].append("index.html")

    n_examples = 0
    if examples is not None:
        for script in sorted(examples.rglob("*.py")):
            n_examples += 1
            rel = script.relative_to(examples).with_suffix(".html")
            page = root / "auto_examples" / rel
            if not page.is_file():
                failures["missing gallery pages"].append(str(Path("auto_examples") / rel))
            elif script.parent == examples and not any("sphx_glr_" in src for src in parsed[page.resolve()].images):
                failures["teaching examples without a figure"].append(str(Path("auto_examples") / rel))

    n_links = n_anchors = 0
    for path in pages:
        page = parsed[path.resolve()]
        for tag, url in page.links:
            if _is_external(url):
                if tag in ("script", "link") and urlsplit(url).scheme in ("http", "https", ""):
                    failures["network resources"].append(f"{path.relative_to(root)}: <{tag}> {url}")
                continue
            if url.startswith(("mailto:", "javascript:", "data:")) or url in ("", "#"):
                continue
            parts = urlsplit(url)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path.resolve()
            if target.is_dir():
                target = target / "index.html"
            n_links += 1
            if not target.exists():
                failures["missing files"].append(f"{path.relative_to(root)} -> {url}")
                continue
            if parts.fragment and target.suffix == ".html":
                n_anchors += 1
                ids = parsed[target].ids if target in parsed else read_page(target).ids
                if unquote(parts.fragment) not in ids:
                    failures["missing anchors"].append(f"{path.relative_to(root)} -> {url}")

    print(f"pages: {len(pages)}; index.html: {'yes' if (root / 'index.html').is_file() else 'NO'}")
    print(f"examples: {n_examples}, gallery pages missing: {len(failures['missing gallery pages'])}, "
          f"teaching examples without a figure: {len(failures['teaching examples without a figure'])}")  # fmt: skip
    print(f"internal links: {n_links} ({n_anchors} with an anchor); missing files: {len(failures['missing files'])}, "
          f"missing anchors: {len(failures['missing anchors'])}")  # fmt: skip
    math_pages = [p for p in pages if parsed[p.resolve()].has_math]
    for path in math_pages:
        srcs = parsed[path.resolve()].mathjax
        if not any(not _is_external(src) and "_static/mathjax/" in src for src in srcs):
            failures["formulas without the bundled MathJax"].append(f"{path.relative_to(root)}: {srcs}")
    print(f"scripts or stylesheets loaded from the network: {len(failures['network resources'])}")
    print(f"pages with formulas: {len(math_pages)}, without the bundled MathJax: "
          f"{len(failures['formulas without the bundled MathJax'])}")  # fmt: skip
    api = root / "api.html"
    if api.is_file():
        cells = re.findall(r"<td><p>(.*?)</p></td>", api.read_text(encoding="utf-8"), re.S)
        summaries = [re.sub(r"<[^>]+>", "", c).strip() for c in cells[1::2]]
        cut = [t for t in summaries if re.search(r"(\beqs?|c\.p\.d|\bp\.d|\bCh|\bProp|\bcf|\bvs)\.$", t)]
        failures["API summaries cut at an abbreviation"].extend(cut)
        print(f"API summaries: {len(summaries)}, cut at an abbreviation: {len(cut)}")
    print(f"citation links to the references page: {sum(parsed[p.resolve()].citations for p in pages)}")
    return {k: v for k, v in failures.items() if v}


def main(argv: list[str] | None = None) -> int:
    """Command line: check the site, list failures, exit 1 if any."""
    ap = argparse.ArgumentParser(description="Check the built documentation site.")
    ap.add_argument("site", type=Path, help="the HTML output directory (docs/_build/html)")
    ap.add_argument("--examples", type=Path, default=None, help="the examples directory, to check the gallery")
    args = ap.parse_args(argv)
    if not args.site.is_dir():
        print(f"check_site: {args.site} is not a directory (run make docs first)", file=sys.stderr)
        return 1
    failures = check_site(args.site, args.examples)
    for kind, items in failures.items():
        print(f"\n{kind} ({len(items)}):")
        for item in items[:20]:
            print(f"  {item}")
        if len(items) > 20:
            print(f"  ... and {len(items) - 20} more")
    print("site check: " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

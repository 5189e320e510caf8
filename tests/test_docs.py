"""Cheap checks of what `make docs` relies on, so `make test` catches them first: every example
has a gallery title and quick arguments, and every README section the site includes is marked."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
pytestmark = pytest.mark.skipif(not (ROOT / "docs" / "conf.py").is_file(), reason="needs the source tree")


@pytest.fixture(scope="module")
def quick_args() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))
    try:
        from gallery_hooks import QUICK_ARGS
    finally:
        sys.path.pop(0)
    return QUICK_ARGS


def test_every_example_has_quick_arguments(quick_args: dict[str, list[str]]) -> None:
    assert {p.name for p in EXAMPLES} == set(quick_args)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_has_a_gallery_title(path: Path) -> None:
    """sphinx-gallery takes the docstring's first lines as the page title: a line, then '='s."""
    text = path.read_text(encoding="utf-8")
    m = re.match(r'"""(?P<title>[^\n]+)\n(?P<rule>=+)\n', text)
    assert m, f"{path.name}: the docstring must start with a title line underlined by '='"
    assert len(m["rule"]) >= len(m["title"]), f"{path.name}: the underline is shorter than the title"
    assert "__doc__.splitlines()[0]" not in text  # the gallery runs examples with an empty __doc__


def test_readme_sections_the_site_includes_are_marked() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = [*(ROOT / "docs" / "guide").glob("*.md"), ROOT / "docs" / "index.md"]
    keys = {k for page in pages for k in re.findall(r"<!-- docs:([\w-]+) -->", page.read_text(encoding="utf-8"))}
    assert keys >= {"intro", "quick-start", "hyperkernels", "sdpm", "cpd", "native", "export", "experiments"}
    for key in keys:
        start, end = f"<!-- docs:{key} -->", f"<!-- /docs:{key} -->"
        assert readme.count(start) == 1 and readme.count(end) == 1, f"README.md: markers of {key!r}"
        assert readme.index(start) < readme.index(end)

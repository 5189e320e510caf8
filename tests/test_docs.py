"""Cheap checks of what `make docs` relies on, so `make test` catches them first: every example
has a gallery title, every command-line script quick arguments, no example ends the interpreter,
every README section the site includes is marked, and the docs extensions (citation links,
one-line summaries, plain-text markup) do what they say."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").rglob("*.py"))
SCRIPTS = [p for p in EXAMPLES if p.parent.name in ("benchmarks", "reproductions")]
TEACHING = [p for p in EXAMPLES if p.parent == ROOT / "examples"]
pytestmark = pytest.mark.skipif(not (ROOT / "docs" / "conf.py").is_file(), reason="needs the source tree")


@pytest.fixture(scope="module")
def quick_args() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))
    try:
        from gallery_hooks import QUICK_ARGS
    finally:
        sys.path.pop(0)
    return QUICK_ARGS


def test_every_script_has_quick_arguments(quick_args: dict[str, list[str]]) -> None:
    assert {p.name for p in SCRIPTS} == set(quick_args)
    assert len({p.name for p in EXAMPLES}) == len(EXAMPLES), "example file names must be unique"


def test_every_example_is_in_a_gallery_section() -> None:
    assert set(EXAMPLES) == set(SCRIPTS) | set(TEACHING)
    for folder in {p.parent for p in EXAMPLES}:
        assert (folder / "GALLERY_HEADER.rst").is_file(), f"{folder} needs a GALLERY_HEADER.rst"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_no_example_ends_the_interpreter(path: Path) -> None:
    """``raise SystemExit(...)`` or ``sys.exit(...)`` at the end of an example ends sphinx-build,
    with status 0, before it writes a page."""
    text = path.read_text(encoding="utf-8")
    main_block = text.split('if __name__ == "__main__":')[-1]
    assert not re.search(r"^ {4}(raise SystemExit|sys\.exit|exit\()", main_block, re.M), "exit only on failure"


@pytest.mark.parametrize("path", TEACHING, ids=[p.name for p in TEACHING])
def test_teaching_examples_are_narrated_and_draw(path: Path) -> None:
    """sphinx-gallery's conventions: text cells between code cells, at least one figure."""
    text = path.read_text(encoding="utf-8")
    assert path.name.startswith("plot_")
    assert text.count("\n# %%") >= 2, f"{path.name}: narrate it in # %% cells"
    assert "plt.show()" in text or "plt.subplots" in text or "plt.figure" in text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_has_a_gallery_title(path: Path) -> None:
    """sphinx-gallery takes the docstring's first lines as the page title: a line, then '='s."""
    text = path.read_text(encoding="utf-8")
    m = re.match(r'"""\n?(?P<title>[^\n]+)\n(?P<rule>=+)\n', text)
    assert m, f"{path.name}: the docstring must start with a title line underlined by '='"
    assert len(m["rule"]) >= len(m["title"]), f"{path.name}: the underline is shorter than the title"
    assert "__doc__.splitlines()[0]" not in text  # the gallery runs examples with an empty __doc__


def test_readme_sections_the_site_includes_are_marked() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = [*(ROOT / "docs" / "guide").glob("*.md"), *(ROOT / "docs").glob("*.md")]
    keys = {k for page in pages for k in re.findall(r"<!-- docs:([\w-]+) -->", page.read_text(encoding="utf-8"))}
    assert keys >= {"intro", "quick-start", "hyperkernels", "sdpm", "cpd", "native", "export", "experiments"}
    for key in keys:
        start, end = f"<!-- docs:{key} -->", f"<!-- /docs:{key} -->"
        assert readme.count(start) == 1 and readme.count(end) == 1, f"README.md: markers of {key!r}"
        assert readme.index(start) < readme.index(end)


@pytest.fixture(scope="module")
def sphinxext() -> Any:
    pytest.importorskip("sphinx")
    sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))
    try:
        import citations
        import docstring_markup
        import summaries
    finally:
        sys.path.pop(0)
    return citations, docstring_markup, summaries


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("the SDP 002 eq. (3.8) and", ["002 eq. (3.8)"]),
        ("(002 eqs. 3.9-3.12)", ["002 eqs. 3.9-3.12"]),
        ("000 §6.2.", ["000 §6.2"]),
        ("(004; 000 Algorithm 1)", ["004", "000 Algorithm 1"]),
        ("(001 Prop. 1)", ["001 Prop. 1"]),
        ("10 000 iterations, 200 000 more", []),
        ("0.002 s, 1.004", []),
    ],
)
def test_citations_are_found(sphinxext: Any, text: str, cited: list[str]) -> None:
    citations = sphinxext[0]
    assert [m.group(0) for m in citations.CITATION.finditer(text)] == cited


@pytest.mark.parametrize(
    ("paragraph", "first"),
    [
        ("The C-SVM SDP (002 eq. 3.8). More text.", "The C-SVM SDP (002 eq. 3.8)."),
        ("Solve 000 eq. (14) for a c.p.d. kernel. Then more.", "Solve 000 eq. (14) for a c.p.d. kernel."),
        ("The SVM dual, cf. 002 Ch. 3 on it. Next.", "The SVM dual, cf. 002 Ch. 3 on it."),
        ("No full stop here", "No full stop here"),
        ("Uses ``a. B`` inside. Next.", "Uses ``a. B`` inside."),
    ],
)
def test_summaries_end_where_the_sentence_ends(sphinxext: Any, paragraph: str, first: str) -> None:
    assert sphinxext[2].first_sentence(paragraph) == first


def test_plain_markup_is_escaped_in_running_text_only(sphinxext: Any) -> None:
    escape = sphinxext[1].escape_plain_markup
    lines = [
        "Sets dual_coef_ and support_ for |s| points; abs(|xᵀPx|) here.",
        "``|s|`` and :math:`|x|` and `dual_coef_` stay.",
        "dual_coef_ : ndarray",
        "    described |s| here",
        "",
        ".. math::",
        "",
        "    |x| + y_",
        "",
        ">>> a_ = 1",
    ]
    out = escape(lines)
    assert out[0] == "Sets dual_coef\\_ and support\\_ for \\|s\\| points; abs(\\|xᵀPx\\|) here."
    assert out[1] == lines[1]
    assert out[2] == lines[2]  # numpydoc's entry line
    assert out[3] == "    described \\|s\\| here"
    assert out[5:] == lines[5:]  # a directive's body and a doctest


def test_the_site_check_finds_what_it_checks(tmp_path: Path) -> None:
    """docs/sphinxext/check_site.py on a made-up site: each kind of fault is found and counted."""
    sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))
    try:
        from check_site import check_site
    finally:
        sys.path.pop(0)
    site, examples = tmp_path / "html", tmp_path / "examples"
    (site / "auto_examples").mkdir(parents=True)
    (examples / "benchmarks").mkdir(parents=True)
    for name in ("plot_a.py", "plot_b.py", "benchmarks/bench_c.py"):
        (examples / name).write_text('"""T\n=\n"""\n', encoding="utf-8")
    (site / "index.html").write_text(
        '<a href="page.html#here">ok</a> <a href="page.html#gone">anchor</a> <a href="nowhere.html">file</a>'
        '<script src="https://cdn.example/x.js"></script>',
        encoding="utf-8",
    )
    (site / "page.html").write_text('<p id="here" class="math">x</p>', encoding="utf-8")
    figure = '<img src="../_images/sphx_glr_plot_a_001.png">'
    (site / "auto_examples" / "plot_a.html").write_text(figure, encoding="utf-8")
    (site / "auto_examples" / "plot_b.html").write_text("<p>no figure</p>", encoding="utf-8")
    failures = check_site(site, examples)
    assert failures["missing anchors"] == ["index.html -> page.html#gone"]
    assert sorted(failures["missing files"]) == [
        "auto_examples/plot_a.html -> ../_images/sphx_glr_plot_a_001.png",
        "index.html -> nowhere.html",
    ]
    assert failures["missing gallery pages"] == ["auto_examples/benchmarks/bench_c.html"]
    assert failures["teaching examples without a figure"] == ["auto_examples/plot_b.html"]
    assert failures["network resources"] == ["index.html: <script> https://cdn.example/x.js"]
    assert failures["formulas without the bundled MathJax"] == ["page.html: []"]

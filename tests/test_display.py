"""Rich display: ``KernelProblem``, ``Solution`` and ``Exported`` show a table in a notebook
(``_repr_html_``) and aligned text in IPython (``_repr_pretty_``), with what a user looks for and
never the arrays."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from sdpkern.builders import cpd_svm
from sdpkern.builders import hyperkernel as hk
from sdpkern.kernels import ThinPlate


class _Table(HTMLParser):
    """The tags, the cells' text and the caption of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.open: list[str] = []
        self.cells: list[str] = []
        self.caption = ""
        self._where: str | None = None

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        self.open.append(tag)
        self._where = tag

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        if self._where == "caption":
            self.caption += data.strip()
        elif self._where in ("td", "th") and data.strip():
            self.cells.append(data.strip())


def _parse(html: str) -> _Table:
    table = _Table()
    table.feed(html)
    table.close()
    assert table.tags[0] == "table" and not table.open, "one well-formed <table>"
    return table


class _Printer:
    """IPython's pretty printer, as far as ``_repr_pretty_`` uses it."""

    def __init__(self) -> None:
        self.out = ""

    def text(self, s: str) -> None:
        self.out += s


def _pretty(obj: Any, cycle: bool = False) -> str:
    p = _Printer()
    obj._repr_pretty_(p, cycle)
    return p.out


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    idx = np.random.default_rng(3).permutation(X.shape[0])[:20]
    return X[idx, :5], y[idx]


def test_problem_shows_variables_cones_parameters_source_and_scale(data: tuple) -> None:
    X, y = data
    problem = hk.csvm(X, y, C=10.0, form="sdp", eta=1e-3, max_terms=20)
    table = _parse(problem._repr_html_())
    assert table.caption == "KernelProblem: hyperkernel C-SVM [SDP], 002 eq. (3.8)"
    cells = table.cells
    for header in ("Variables", "Constraints by cone (as modelled)", "Parameters", "Scaling", "Solving"):
        assert header in cells
    n_beta = problem.variables["beta"].size
    assert cells[cells.index("beta") + 1] == f"shape ({n_beta},)"
    assert cells[cells.index("PSD") + 1] == "1 constraint(s), order(s) 21"
    assert cells[cells.index("C") + 1] == "10"
    assert cells[cells.index("objective_scale") + 1] == f"{problem.objective_scale:.8g}"
    text = _pretty(problem)
    assert text.splitlines()[0] == table.caption and "objective_scale" in text
    assert _pretty(problem, cycle=True) == repr(problem)


def test_a_deferred_problem_is_shown_without_writing_its_model(data: tuple) -> None:
    X, y = data
    problem = hk.csvm(X, y, C=10.0, form="socp", eta=1e-3, max_terms=20)
    if "_write" not in problem.__dict__:
        pytest.skip("the SOCP form is written at build time here")
    cells = _parse(problem._repr_html_()).cells
    assert any(c.startswith("not written yet") for c in cells)
    assert "_write" in problem.__dict__  # still deferred
    assert cells[cells.index("solve() by default") + 1].startswith("cone generation")


def test_solution_shows_status_objective_certificate_timings_attempts(data: tuple) -> None:
    X, y = data
    sol = cpd_svm.squared_hinge(X[:, :2], np.where(y == 1, 1.0, -1.0), ThinPlate(), C=2.0).solve()
    table = _parse(sol._repr_html_())
    cells = table.cells
    assert table.caption == f"Solution: optimal, objective {sol.objective:.10g}"
    assert cells[cells.index("status") + 1] == f"optimal (clarabel said {sol.solver_status!r})"
    assert cells[cells.index("relative gap") + 1] == f"{sol.certificate.relative_gap:.3g}"
    assert cells[cells.index("iterations") + 1] == str(sol.certificate.iterations)
    assert cells[cells.index("total") + 1] == f"{sol.total_time:.3g}"
    assert cells[cells.index("1. clarabel") + 1].startswith("requested: optimal in ")
    assert "Model" in cells and "decision function" in cells
    assert "Certificate" in _pretty(sol)


def test_exported_shows_a_summary_never_the_arrays(data: tuple, tmp_path: Path) -> None:
    X, y = data
    problem = hk.csvm(X, y, C=10.0, form="sdp", eta=1e-3, max_terms=20)
    exported = problem.export(tmp_path / "csvm.dat-s")
    # a summary: a few hundred characters of text (the dataclass repr printed 7.7-31k of arrays)
    cells = _parse(exported._repr_html_()).cells
    for shown in (repr(exported), " ".join(cells), _pretty(exported)):
        assert len(shown) < 1000 and "array(" not in shown and "[[" not in shown
    assert cells[cells.index("format") + 1] == "sdpa"
    assert cells[cells.index("size") + 1] == f"{(tmp_path / 'csvm.dat-s').stat().st_size:,} bytes"
    assert cells[cells.index("variables") + 1] == str(exported.data.n)
    assert cells[cells.index("PSD") + 1] == "1 cone(s), order(s) 21"
    assert repr(exported).startswith("Exported('sdpa', path=")

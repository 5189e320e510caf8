"""Free MPS / QPS files for the problems with no cone beyond the non-negative orthant.

Second route: HiGHS (``highspy``, the ``solvers`` extra; skipped when absent) reads each written
file and solves it; its optimum must be the in-process one (Clarabel) to 1e-6 relative. The
reader must give back the data written, and hand-written files with the MPS features sdpkern does
not write (OBJSENSE MAX, G rows, RANGES, bounds, QMATRIX) must mean what HiGHS reads them as.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from sdpkern import export
from sdpkern.apps.instances import load
from sdpkern.errors import ExportError, FormatError


def _highs(path: Path) -> float:
    """HiGHS's optimum of the file (it reads ``.mps`` by suffix, QUADOBJ included)."""
    highspy = pytest.importorskip("highspy")
    if path.suffix != ".mps":
        path = Path(shutil.copyfile(path, path.with_suffix(".mps")))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for opt in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
        h.setOptionValue(opt, 1e-9)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.modelStatusToString(h.getModelStatus()) == "Optimal"
    return float(h.getInfo().objective_function_value)


def _l1_svm(sense: str = "min") -> cp.Problem:
    """An LP: the L1-norm linear SVM on 60 breast-cancer points (any cvxpy.Problem can be written)."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:60, :6]
    ypm = np.where(y[:60] > 0, 1.0, -1.0)
    w, b, xi = cp.Variable(6), cp.Variable(), cp.Variable(60, nonneg=True)
    cons = [cp.multiply(ypm, X @ w + b) >= 1 - xi]
    loss = cp.norm1(w) + 0.5 * cp.sum(xi)
    return cp.Problem(cp.Minimize(loss + 3.0) if sense == "min" else cp.Maximize(-loss + 3.0), cons)


CASES = {
    "cpd_squared_hinge": lambda: load("cpd_squared_hinge")[0],
    "cpd_hinge_dual": lambda: load("cpd_hinge_dual")[0],
    "cpd_hinge_primal": lambda: load("cpd_hinge_primal")[0],
    "lp_min": lambda: _l1_svm("min"),
    "lp_max": lambda: _l1_svm("max"),
}


def _optimum(problem) -> float:  # type: ignore[no-untyped-def]
    if isinstance(problem, cp.Problem):
        return float(problem.solve(solver="CLARABEL"))
    return float(problem.solve().objective)


@pytest.mark.parametrize("suffix", [".qps", ".mps"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_highs_solves_the_file_to_the_in_process_optimum(case: str, suffix: str, tmp_path: Path) -> None:
    problem = CASES[case]()
    ref = _optimum(problem)
    info = export.write(CASES[case](), tmp_path / f"p{suffix}")
    assert info.format == "mps"
    assert (info.data.P is not None) == case.startswith("cpd")  # the QPs keep ½xᵀPx, the LPs have none
    value = info.data.sign * _highs(info.path)
    assert abs(value - ref) <= 1e-6 * max(1.0, abs(ref)), (value, ref)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_reader_round_trips_the_file(case: str, tmp_path: Path) -> None:
    info = export.write(CASES[case](), tmp_path / "p.qps")
    back = export.read(info.path)
    d = info.data
    assert back.cones == d.cones and back.sign == d.sign and back.offset == d.offset
    assert np.array_equal(back.c, d.c) and np.array_equal(back.b, d.b)
    assert (back.A != d.A).nnz == 0  # exact: 17 significant digits
    assert (back.P is None) == (d.P is None)
    if d.P is not None:
        assert (back.P != d.P).nnz == 0
    rebuilt, _ = export.to_cvxpy(back)
    ref = _optimum(CASES[case]())
    assert abs(rebuilt.solve(solver="CLARABEL") - ref) <= 1e-6 * max(1.0, abs(ref))
    again = export.write(back, tmp_path / "again.qps")
    assert again.path.read_text().split("\n", 2)[2] == info.path.read_text().split("\n", 2)[2].replace(
        "NAME p", "NAME again"
    )


def test_cones_an_mps_file_cannot_hold(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"MPS/QPS files hold linear and quadratic programs only.*second-order"):
        export.write(load("sdpm_deg2")[0], tmp_path / "p.mps")
    with pytest.raises(ExportError, match=r"PSD \(1\) cone"):
        export.write(load("hk_csvm_sdp_m10")[0], tmp_path / "p.mps")
    qp = export.read(export.write(load("cpd_hinge_dual")[0], tmp_path / "q.qps").path)
    with pytest.raises(ExportError, match="holds no quadratic objective"):
        export.write(qp, tmp_path / "q.dat-s")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.qps"]


FOREIGN = """NAME          TESTLP
* a maximisation with G rows, a range, bounds and a full QMATRIX, in fixed-column layout
OBJSENSE
    MAX
ROWS
 N  COST
 G  LIM1
 L  LIM2
 E  MYEQN
 L  RNG
COLUMNS
    X1        COST         1.0   LIM1         1.0
    X1        LIM2         1.0   RNG          1.0
    X2        COST         2.0   LIM1         1.0
    X2        MYEQN       -1.0   RNG          1.0
    X3        COST        -1.0   MYEQN        1.0
    X4        COST         0.5   LIM2         1.0
RHS
    RHS       LIM1         1.0   LIM2         4.0
    RHS       MYEQN        0.5   RNG          3.0
    RHS       COST        -2.5
RANGES
    RNG       RNG          2.0
BOUNDS
 UP BND       X1           4.0
 LO BND       X2          -1.0
 UP BND       X2           1.0
 MI BND       X3
 UP BND       X3           2.0
 FX BND       X4           0.5
QMATRIX
    X1        X1          -2.0
    X1        X2          -0.5
    X2        X1          -0.5
    X2        X2          -1.0
ENDATA
"""


def test_foreign_features_read_as_highs_reads_them(tmp_path: Path) -> None:
    """max cᵀx + ½xᵀQx + 2.5 (Q ⪯ 0) over G/L/E rows, a ranged row 1 ≤ x1 + x2 ≤ 3 and bounds: the reader's
    data, solved by Clarabel, against HiGHS on the same file."""
    path = tmp_path / "foreign.mps"
    path.write_text(FOREIGN)
    data = export.read(path)
    assert data.sign == -1 and data.P is not None and data.cones.zero == 2  # MYEQN and the fixed X4
    rebuilt, x = export.to_cvxpy(data)
    ours = rebuilt.solve(solver="CLARABEL")
    assert abs(ours - _highs(path)) <= 1e-6 * max(1.0, abs(ours))
    assert x.value[3] == pytest.approx(0.5) and 1.0 - 1e-7 <= x.value[0] + x.value[1] <= 3.0 + 1e-7


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("ROWS\n N obj\nCOLUMNS\n    MARKER MARKER INTORG\n", "line 4: integer markers"),
        ("ROWS\n N obj\n L c1\nCOLUMNS\n x obj 1 c2 1\nENDATA\n", "line 5: row 'c2' was not declared"),
        ("ROWS\n N obj\nCOLUMNS\n x obj one\nENDATA\n", "line 4: 'one' is not a number"),
        ("ROWS\n N obj\nCOLUMNS\n x obj 1\nBOUNDS\n BV BND x\nENDATA\n", "line 6: bound type BV"),
        ("ROWS\n N obj\nCOLUMNS\n x obj 1\nQUADOBJ\n x y 1\nENDATA\n", "line 6: column 'y' was not declared"),
        ("NAME x\n", "no ROWS section"),
    ],
)
def test_malformed_files_name_the_line(text: str, match: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.mps"
    path.write_text(text)
    with pytest.raises(FormatError, match=match):
        export.read(path)

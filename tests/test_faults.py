"""Fault tests and typed errors (issue 17, deliverables 3 and 4).

Each case of the issue's "Untyped or misleading errors" list and each injected fault (a
backend that raises, returns garbage or NaN, a time or iteration limit, a solver missing at
import, an interrupt during a solve or a grid run) has a test here that checks the documented
typed error or status, the argument the message names, and that nothing the user saved is lost.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL
from export_problems import PROBLEMS, require_external_solver

from sdpkern import export
from sdpkern.errors import (
    FormatError,
    InaccurateSolutionError,
    ParameterError,
    UnknownBackendError,
)
from sdpkern.export import solvers


def _small_sdp() -> cp.Problem:
    """min tr(A X) s.t. X ⪰ 0, tr X = 1: optimum λ_min(A); fast for CSDP and DSDP."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 6))
    X = cp.Variable((6, 6), symmetric=True)
    return cp.Problem(cp.Minimize(cp.trace((A + A.T) @ X)), [X >> 0, cp.trace(X) == 1])


# ================================================================ export: typed errors
def test_write_unknown_equalities_option_names_it(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="equalities='bogus'.*'eliminate' or 'pairs'"):
        export.write(PROBLEMS["sdp_var"](), tmp_path / "p.dat-s", equalities="bogus")
    with pytest.raises(ParameterError, match="CBF writer takes no options"):
        export.write(PROBLEMS["sdp_var"](), tmp_path / "p.cbf", equalities="pairs")
    with pytest.raises(ParameterError, match="problem must be"):
        export.write("not a problem", tmp_path / "p.cbf")
    assert list(tmp_path.iterdir()) == []


def test_solve_external_unknown_program_names_argument_and_choices() -> None:
    with pytest.raises(UnknownBackendError, match=r"solver='sedumi'.*\['csdp', 'dsdp', 'sdpa'\]"):
        export.solve_external(_small_sdp(), "sedumi")
    with pytest.raises(UnknownBackendError, match="solver=None"):
        export.solve_external(_small_sdp(), None)  # type: ignore[arg-type]


def test_to_cvxpy_of_a_path_is_a_typed_error() -> None:
    with pytest.raises(ParameterError, match=r"data must be ConicData, got str.*export.read"):
        export.to_cvxpy("x")  # type: ignore[arg-type]


@pytest.mark.parametrize("suffix", [".dat-s", ".cbf"])
def test_export_to_missing_directory_names_the_given_path(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / "no_such_dir" / f"p{suffix}"
    with pytest.raises(FileNotFoundError) as info:
        export.write(PROBLEMS["sdp_var"](), target)
    msg = str(info.value)
    assert str(target) in msg and "does not exist" in msg
    assert ".tmp" not in msg  # not the hidden temporary file
    assert info.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []


def test_export_keeps_usual_permissions(tmp_path: Path) -> None:
    """The atomic write renames a private temporary file; the result must not stay 0600."""
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    info = export.write(PROBLEMS["sdp_var"](), tmp_path / "p.dat-s")
    assert (info.path.stat().st_mode & 0o777) == (0o666 & ~mask)


# ================================================================ export: truncated files
def _cut_lines(path: Path, drop: int) -> None:
    """Cut a file at a line end, ``drop`` lines before its end (as an interrupted copy would)."""
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-drop]))


@pytest.mark.parametrize("drop", [1, 3])
def test_truncated_sdpa_file_is_refused(tmp_path: Path, drop: int) -> None:
    info = export.write(PROBLEMS["sdp_var"](), tmp_path / "p.dat-s")
    text = info.path.read_text()
    assert f"* sdpkern: entries {len(text.splitlines()) - 9}\n" in text  # 5 comments, m, blocks, sizes, c
    export.read(info.path)  # the whole file reads
    _cut_lines(info.path, drop)
    with pytest.raises(FormatError, match="entries.*cut short"):
        export.read(info.path)


def test_sdpa_file_without_entry_count_still_reads(tmp_path: Path) -> None:
    """The count is checked when present; files from other writers have none."""
    info = export.write(PROBLEMS["sdp_var"](), tmp_path / "p.dat-s")
    ref = export.read(info.path)
    plain = tmp_path / "plain.dat-s"
    plain.write_text("".join(ln for ln in info.path.read_text().splitlines(True) if "sdpkern: entries" not in ln))
    again = export.read(plain)
    assert (again.A != ref.A).nnz == 0 and np.array_equal(again.b, ref.b)
    _cut_lines(plain, 1)
    export.read(plain)  # without the count a cut file reads, as a different problem: why it is written


def test_truncated_cbf_file_is_refused(tmp_path: Path) -> None:
    info = export.write(PROBLEMS["lmi_max"](), tmp_path / "p.cbf")
    export.read(info.path)
    text = info.path.read_text()
    # Cut at the blank line before the last section: every section left is complete.
    cut = text.rstrip("\n").rfind("\n\n")
    info.path.write_text(text[: cut + 2])
    with pytest.raises(FormatError, match="lines.*cut short"):
        export.read(info.path)


# ================================================================ external solvers: status rule
@pytest.mark.external
@pytest.mark.parametrize(("solver", "options"), [("dsdp", {"maxit": 2}), ("csdp", {"maxiter": 2})])
def test_external_iteration_limit_raises_like_an_in_process_solve(solver: str, options: dict) -> None:
    require_external_solver(solver)
    with pytest.raises(InaccurateSolutionError, match="iteration_limit") as info:
        export.solve_external(_small_sdp(), solver, options=options)
    assert info.value.status == "iteration_limit"
    assert info.value.result.status == "iteration_limit"  # what the solver returned, for inspection
    # allow_inaccurate accepts optimal_inaccurate only, as in KernelProblem.solve
    with pytest.raises(InaccurateSolutionError):
        export.solve_external(_small_sdp(), solver, options=options, allow_inaccurate=True)


@pytest.mark.external
def test_dsdp_inaccurate_answer_needs_allow_inaccurate(monkeypatch: pytest.MonkeyPatch) -> None:
    """DSDP stopping without "DSDP Converged" is optimal_inaccurate: an error, or a warning when allowed."""
    require_external_solver("dsdp")
    real = subprocess.run

    def no_convergence_line(*args, **kwargs):  # type: ignore[no-untyped-def]
        proc = real(*args, **kwargs)
        proc.stdout = proc.stdout.replace("DSDP Converged", "DSDP Stopped")
        return proc

    monkeypatch.setattr(solvers.subprocess, "run", no_convergence_line)
    with pytest.raises(InaccurateSolutionError, match="optimal_inaccurate"):
        export.solve_external(_small_sdp(), "dsdp")
    from sklearn.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match="dsdp returned an inaccurate optimum"):
        res = export.solve_external(_small_sdp(), "dsdp", allow_inaccurate=True)
    assert res.status == "optimal_inaccurate"  # never relabelled optimal


@pytest.mark.external
def test_external_timeout_is_a_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    require_external_solver("csdp")

    def too_slow(cmd, **kwargs):  # type: ignore[no-untyped-def]
        raise subprocess.TimeoutExpired(cmd, kwargs.get("timeout"))

    monkeypatch.setattr(solvers.subprocess, "run", too_slow)
    with pytest.raises(InaccurateSolutionError, match="timeout=0.5") as info:
        export.solve_external(_small_sdp(), "csdp", timeout=0.5)
    assert info.value.status == "time_limit"


@pytest.mark.external
@pytest.mark.slow
def test_issue_dsdp_case_is_not_a_silent_result() -> None:
    """The issue's case: l2svm (SOCP form) on 20 standardised breast-cancer points.

    DSDP stops at its iteration limit (5.65 against 9.754 in process); it must raise.
    """
    require_external_solver("dsdp")
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    from sdpkern.builders.hyperkernel import l2svm

    X, y = load_breast_cancer(return_X_y=True)
    X20, y20 = StandardScaler().fit_transform(X)[:20], y[:20]
    with pytest.raises(InaccurateSolutionError) as info:
        export.solve_external(l2svm(X20, y20, form="socp", eta=1e-4), "dsdp", timeout=300)
    assert info.value.status == "iteration_limit"


# ================================================================ capabilities and installation
def _tiny_xy(m: int = 12) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(m, 2))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)


def test_backend_without_psd_cone_is_refused_before_cvxpy(monkeypatch: pytest.MonkeyPatch) -> None:
    from sdpkern.builders.hyperkernel import csvm
    from sdpkern.errors import BackendError

    calls: list[object] = []
    monkeypatch.setattr(cp.Problem, "solve", lambda *a, **k: calls.append(a))
    problem = csvm(*_tiny_xy(), form="sdp")
    with pytest.raises(BackendError, match=r"backend='ecos' has no PSD \(semidefinite\) cone.*hyperkernel C-SVM"):
        problem.solve(backend="ecos")
    assert calls == []  # CVXPY was never asked


def test_psd_cone_detection() -> None:
    from sdpkern._capabilities import needs_psd_cone

    x = cp.Variable(2)
    assert needs_psd_cone(cp.Problem(cp.Minimize(cp.norm(x)), [x >= 1])) is None
    X = cp.Variable((2, 2), symmetric=True)
    assert "PSD constraint" in needs_psd_cone(cp.Problem(cp.Minimize(cp.trace(X)), [X >> 0]))
    P = cp.Variable((2, 2), PSD=True)
    assert "PSD variable" in needs_psd_cone(cp.Problem(cp.Minimize(cp.trace(P))))
    assert "lambda_max" in needs_psd_cone(cp.Problem(cp.Minimize(cp.lambda_max(X))))


def test_solver_missing_at_import_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A backend whose package cannot be imported: BackendNotInstalledError naming it (an ImportError)."""
    import importlib.util

    from sdpkern import backends
    from sdpkern.builders.hyperkernel import csvm
    from sdpkern.errors import BackendNotInstalledError

    real = importlib.util.find_spec
    monkeypatch.setattr(backends.importlib.util, "find_spec", lambda name, *a: None if name == "scs" else real(name))
    problem = csvm(*_tiny_xy(), form="socp")
    with pytest.raises(BackendNotInstalledError, match=r"backend='scs' is not installed.*pip install scs") as info:
        problem.solve(backend="scs")
    assert isinstance(info.value, ImportError)
    assert "scs" not in backends.available_backends()


# ================================================================ estimator and kernel input
_ESTIMATORS = [
    "CPDSVC",
    "ThinPlateSVC",
    "SDPMClassifier",
    "PrimalSVC",
    "KrylovRegressor",
    "KrylovFisherDiscriminant",
    "IndefiniteKernelPCA",
    "IndefiniteSVC",
    "HyperkernelSVC",
    "HyperkernelNuSVC",
    "HyperkernelL2SVC",
    "HyperkernelOneClassSVM",
    "HyperkernelNuSVR",
    "HyperkernelAlignment",
]


@pytest.mark.parametrize("name", _ESTIMATORS)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_X_is_a_typed_error_saying_dense_is_required(name: str, fmt: str) -> None:
    """Decision (issue 17): dense input is required everywhere (kernel matrices are dense)."""
    import scipy.sparse as sparse

    import sdpkern.estimators as E
    from sdpkern.errors import DataError

    X, y = _tiny_xy(16)
    Xs = sparse.csr_matrix(X) if fmt == "csr" else sparse.csc_matrix(X)
    with pytest.raises(DataError, match=r"X is a sparse matrix.*dense input.*X\.toarray\(\)"):
        getattr(E, name)().fit(Xs, y)


def test_sparse_X_to_a_builder_and_a_kernel() -> None:
    import scipy.sparse as sparse

    from sdpkern.builders.hyperkernel import csvm
    from sdpkern.errors import DataError
    from sdpkern.kernels import Gaussian

    X, y = _tiny_xy()
    with pytest.raises(DataError, match="X is a sparse matrix"):
        csvm(sparse.csr_matrix(X), y)
    with pytest.raises(DataError, match="Y is a sparse matrix"):
        Gaussian()(X, sparse.csr_matrix(X))


@pytest.mark.parametrize(
    ("make", "match"),
    [
        ("ThinPlate(order=0)", "ThinPlate: order must be an integer >= 1"),
        ("ThinPlate(order=2.0)", "ThinPlate: order must be an integer"),
        ("ThinPlate(2, formula_dimension=0)", "ThinPlate: formula_dimension"),
        ("PowerDistance(beta=2.0)", r"PowerDistance: beta must lie in \(0, 2\)"),
        ("Gaussian(gamma=-1)", "Gaussian: gamma must be > 0, got -1"),
        ("Polynomial(degree=2.5)", "Polynomial: degree must be an integer >= 1, got 2.5"),
    ],
)
def test_kernels_refuse_bad_parameters_at_construction(make: str, match: str) -> None:
    from sdpkern.kernels import Gaussian, Polynomial  # noqa: F401
    from sdpkern.kernels.cpd import PowerDistance, ThinPlate  # noqa: F401

    with pytest.raises(ParameterError, match=match):
        eval(make)


@pytest.mark.parametrize("builder", ["csvm", "nusvm", "l2svm", "one_class", "nu_regression", "alignment"])
def test_base_kernel_where_a_hyperkernel_belongs(builder: str) -> None:
    """csvm(X, y, Gaussian()) used to raise AttributeError from deep inside the basis."""
    from sdpkern.builders import hyperkernel as hk
    from sdpkern.kernels import Gaussian

    X, y = _tiny_xy()
    fn = getattr(hk, builder)
    args = (X,) if builder == "one_class" else (X, y)
    with pytest.raises(ParameterError, match=r"hyperkernel must be a Hyperkernel, got Gaussian.*base kernel"):
        fn(*args, Gaussian())


def test_base_kernel_as_estimator_hyperkernel() -> None:
    from sdpkern.estimators import HyperkernelSVC
    from sdpkern.kernels import Gaussian

    X, y = _tiny_xy()
    with pytest.raises(ParameterError, match="hyperkernel"):
        HyperkernelSVC(hyperkernel=Gaussian()).fit(X, y)


# ================================================================ command line
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["demo", "--n-train", "0"], "argument --n-train: must be an integer >= 20"),
        (["demo", "--backend", "nosuch"], "argument --backend: backend='nosuch' is not known"),
        (["solve", "tiny", "--backend", "nosuch"], "argument --backend/-b: backend='nosuch' is not known"),
    ],
)
def test_cli_usage_errors_are_argparse_errors(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A usage message (argparse's "usage:" line and "error:"), exit code 2, no traceback."""
    from sdpkern.apps.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: sdpkern") and needle in err
    assert "Traceback" not in err


# ================================================================ run_grid: interrupts and damaged files
def _cell_files(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((root / "cells").iterdir())}


def test_keyboard_interrupt_inside_a_solve_during_run_grid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while Clarabel solves inside an estimator's fit (hyperkernel SVC, whose fallback
    and KernelProblem.solve's recovery policy must not swallow it): KeyboardInterrupt reaches
    the caller, the finished cells are valid JSON on disk, and a rerun computes only the rest."""
    import json

    from sdpkern.apps.experiments import run_grid
    from sdpkern.estimators import HyperkernelSVC

    X, y = _tiny_xy(24)
    data = {"tiny": (X, y)}
    real = CLARABEL.solve_via_data
    calls = {"n": 0}

    def interrupted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(CLARABEL, "solve_via_data", interrupted)
    kw = {"n_splits": 4, "results_dir": tmp_path, "n_jobs": 1, "progress": False}
    est = HyperkernelSVC(C=10.0)
    with pytest.raises(KeyboardInterrupt):
        run_grid(est, data, **kw)
    saved = _cell_files(tmp_path)
    assert 1 <= len(saved) < 4 and all(name.endswith(".json") for name in saved)
    assert all(json.loads(text)["score"] >= 0.0 for text in saved.values())
    monkeypatch.setattr(CLARABEL, "solve_via_data", real)
    res = run_grid(est, data, **kw)
    assert res.n_skipped == len(saved) and res.n_computed == 4 - len(saved)
    assert all(_cell_files(tmp_path)[name] == text for name, text in saved.items())  # nothing saved changed


def test_damaged_cell_file_is_kept_aside_and_recomputed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from sdpkern.apps.experiments import run_grid
    from sdpkern.estimators import PrimalSVC

    X, y = _tiny_xy(30)
    kw = {"n_splits": 3, "results_dir": tmp_path, "n_jobs": 1, "progress": False}
    first = run_grid(PrimalSVC(kernel="linear"), {"d": (X, y)}, **kw)
    victim = sorted((tmp_path / "cells").iterdir())[0]
    good = victim.read_text()
    victim.write_text(good[: len(good) // 2])  # a copy cut short
    with caplog.at_level("WARNING", logger="sdpkern.apps.experiments"):
        again = run_grid(PrimalSVC(kernel="linear"), {"d": (X, y)}, **kw)
    assert again.n_skipped == 2 and again.n_computed == 1
    assert "could not be read" in caplog.text
    assert (victim.parent / (victim.name + ".unreadable")).read_text() == good[: len(good) // 2]  # not deleted
    assert again.table(timing=False) == first.table(timing=False)


def test_nan_in_data_written_to_a_file_is_an_export_error(tmp_path: Path) -> None:
    import scipy.sparse as sparse

    from sdpkern.errors import ExportError
    from sdpkern.export import Cones, ConicData

    data = ConicData(c=np.array([np.nan, 1.0]), A=sparse.eye(2), b=np.ones(2), cones=Cones(zero=0, nonneg=2))
    for suffix in (".dat-s", ".cbf"):
        with pytest.raises(ExportError, match="NaN or infinite"):
            export.write(data, tmp_path / f"x{suffix}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.external
@pytest.mark.parametrize("solver", ["csdp", "dsdp"])
def test_external_point_outside_the_cones_is_not_optimal(solver: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's "optimal" is checked against the file's cones (garbage in the solution file)."""
    require_external_solver(solver)
    res = export.solve_external(_small_sdp(), solver)
    assert res.status == "optimal" and res.cone_violation is not None
    assert res.cone_violation <= solvers.FEASIBILITY_TOL
    real = solvers._read_solution_vector

    def shifted(path, m):  # type: ignore[no-untyped-def]
        z = real(path, m)
        return None if z is None else z + 5.0

    monkeypatch.setattr(solvers, "_read_solution_vector", shifted)
    with pytest.raises(InaccurateSolutionError, match="optimal_inaccurate") as info:
        export.solve_external(_small_sdp(), solver)
    assert info.value.result.cone_violation > solvers.FEASIBILITY_TOL


@pytest.mark.external
def test_external_solution_file_missing_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solver that says it converged but leaves no readable solution: status error, SolverError."""
    from sdpkern.errors import SolverError

    require_external_solver("csdp")
    monkeypatch.setattr(solvers, "_read_solution_vector", lambda path, m: None)
    with pytest.raises(SolverError, match="status 'error'") as info:
        export.solve_external(_small_sdp(), "csdp")
    assert type(info.value) is SolverError and info.value.status == "error"


# ================================================================ KernelProblem.solve with faulty backends
# Written against the recovery policy of the certify branch (merged): a failed attempt is
# recorded in Solution.attempts and the other default backend is tried; with recovery=False
# the first attempt's status is raised as a typed error.
def _problem():  # type: ignore[no-untyped-def]
    from sdpkern.builders.hyperkernel import csvm

    return csvm(*_tiny_xy(), form="socp")


def _fake_answer(data: dict, value: float, n: int | None = None):  # type: ignore[no-untyped-def]
    """A Clarabel-like raw answer that claims "Solved" with ``value`` everywhere."""
    from types import SimpleNamespace

    m, nv = data["A"].shape
    size = nv if n is None else n
    return SimpleNamespace(
        status="Solved",
        x=np.full(size, value),
        z=np.full(m, value),
        s=np.full(m, value),
        obj_val=value,
        obj_val_dual=value,
        solve_time=0.0,
        iterations=3,
        r_prim=value,
        r_dual=value,
    )


@pytest.fixture(scope="module")
def reference() -> float:
    return _problem().solve("scs").objective


@pytest.mark.parametrize(
    ("fault", "needle"),
    [
        ("raises", "RuntimeError: the solver crashed"),
        ("nan", "non-finite objective"),
        ("garbage", "could not be read"),
    ],
)
def test_faulty_backend_gives_error_status_and_recovery(
    fault: str, needle: str, reference: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sdpkern.errors import SolverError

    def faulty(self, data, *args, **kwargs):  # type: ignore[no-untyped-def]
        if fault == "raises":
            raise RuntimeError("the solver crashed")
        return _fake_answer(data, np.nan) if fault == "nan" else _fake_answer(data, 1.0, n=1)

    monkeypatch.setattr(CLARABEL, "solve_via_data", faulty)
    # Without recovery: the documented typed error, status "error", naming the backend.
    with pytest.raises(SolverError, match=r"clarabel returned status 'error'") as info:
        _problem().solve("clarabel", recovery=False)
    assert type(info.value) is SolverError and info.value.status == "error"
    # With the recovery policy: the other backend answers, and the failure is on record.
    sol = _problem().solve("clarabel")
    assert sol.status == "optimal" and sol.backend == "scs"
    assert [a.backend for a in sol.attempts] == ["clarabel", "scs"]
    assert sol.attempts[0].status == "error"
    first = sol.attempts[0]
    assert needle in first.certificate.solver_status or needle in first.reason
    assert sol.recovery is not None and "clarabel" in sol.recovery
    assert abs(sol.objective - reference) <= 1e-5 * max(1.0, abs(reference))
    assert np.all(np.isfinite(sol.alpha))


def test_faulty_backend_without_a_fallback_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recovery backend missing at import: the policy has a step fewer, the error stays typed."""
    import importlib.util

    from sdpkern import backends
    from sdpkern.errors import SolverError

    real = importlib.util.find_spec
    monkeypatch.setattr(backends.importlib.util, "find_spec", lambda name, *a: None if name == "scs" else real(name))
    monkeypatch.setattr(CLARABEL, "solve_via_data", lambda self, data, *a, **k: _fake_answer(data, np.nan))
    with pytest.raises(SolverError, match="clarabel returned status 'error'") as info:
        _problem().solve("clarabel")
    assert info.value.status == "error"


@pytest.mark.parametrize(("backend", "limit"), [("clarabel", 1e-9), ("scs", 1e-6)])
def test_time_limit_is_reported_as_time_limit(backend: str, limit: float) -> None:
    """CVXPY calls both limits user_limit; the solver's own word decides (Clarabel MaxTime, SCS
    "reached time_limit_secs"). The caller's limit is reported, not worked around."""
    with pytest.raises(InaccurateSolutionError, match="time_limit") as info:
        _problem().solve(backend, time_limit=limit)
    assert info.value.status == "time_limit"


@pytest.mark.parametrize(
    ("backend", "cap", "status"),
    # CVXPY reports SCS at max_iters as optimal_inaccurate ("solved (inaccurate - reached max_iters)")
    [("clarabel", 1, "iteration_limit"), ("scs", 2, "optimal_inaccurate")],
)
def test_iteration_limit_is_reported_and_never_relabelled(backend: str, cap: int, status: str) -> None:
    from sklearn.exceptions import ConvergenceWarning

    with pytest.raises(InaccurateSolutionError, match=status) as info:
        _problem().solve(backend, max_iter=cap)
    assert info.value.status == status
    with pytest.warns(ConvergenceWarning, match="inaccurate"):
        sol = _problem().solve(backend, max_iter=cap, allow_inaccurate=True)
    assert sol.status == status and sol.certificate is not None  # accepted, not relabelled optimal
    if backend == "scs":
        assert "max_iters" in sol.certificate.solver_status  # the solver's own word says which limit


@pytest.mark.parametrize("when", [1, 2])
def test_keyboard_interrupt_during_a_solve_propagates_and_loses_nothing(
    when: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the first solver call, or in the recovery policy's second one: it propagates
    (never taken for a failed attempt), a Solution returned before still predicts the same, and
    the problem solves again afterwards."""
    problem = _problem()
    X, _ = _tiny_xy()
    before = problem.solve()
    pred = before.decision_function(X).copy()
    alpha = before.alpha.copy()
    real = CLARABEL.solve_via_data
    calls = {"n": 0}

    def interrupted(self, data, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == when:
            raise KeyboardInterrupt
        return _fake_answer(data, np.nan)  # a failed first attempt makes the policy try again

    monkeypatch.setattr(CLARABEL, "solve_via_data", interrupted)
    from cvxpy.reductions.solvers.conic_solvers.scs_conif import SCS

    if when == 2:  # the second call is the recovery's other backend
        monkeypatch.setattr(SCS, "solve_via_data", lambda self, *a, **k: interrupted(self, *a, **k))
    problem.set(C=1.0)
    with pytest.raises(KeyboardInterrupt):
        problem.solve()
    assert calls["n"] == when
    np.testing.assert_array_equal(before.decision_function(X), pred)
    np.testing.assert_array_equal(before.alpha, alpha)
    monkeypatch.setattr(CLARABEL, "solve_via_data", real)
    monkeypatch.undo()
    again = problem.set(C=1.0).solve()
    assert again.status == "optimal" and np.all(np.isfinite(again.alpha))

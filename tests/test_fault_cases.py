"""The faults and bad inputs a new user found: one test (or more) per case, each failing before
its fix. The rule they check: nothing passes for a model that is not one (an uncertified model
is kept for inspection but not served), a feasible problem is never called infeasible, routes
that may disagree say why, and every error is a typed ``SdpkernError`` naming the argument.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from sdpkern import export
from sdpkern.errors import (
    InfeasibleError,
    LabelError,
    NonUniqueSolutionWarning,
    NumericalError,
    ParameterError,
    PathError,
    PathNotFoundError,
    PathPermissionError,
    SdpkernError,
    UncertifiedModelError,
)


@pytest.fixture(scope="module")
def cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


# ================================================================ 1. a time-limited fit is not a model
def test_time_limited_fit_is_kept_for_inspection_but_not_served(cancer) -> None:
    """HyperkernelSVC stopped by its time limit after 0 iterations (Σβ = 152 where the constraint
    is Σβ = 1) used to predict with 0.74 accuracy; now predict refuses, naming the status."""
    from sdpkern.estimators import HyperkernelSVC

    X, y = cancer[0][:120], cancer[1][:120]
    est = HyperkernelSVC(solver="conic", active_set=False, solver_options={"time_limit": 1e-6})
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        est.fit(X, y)
    assert est.status_ == "time_limit"
    assert est.certificate_["value"] is not None  # inspectable
    for method in ("predict", "decision_function", "score"):
        args = (X, y) if method == "score" else (X,)
        with pytest.raises(UncertifiedModelError, match=r"HyperkernelSVC\.\w+: .*status_='time_limit'.*time limit"):
            getattr(est, method)(*args)
    # the same estimator without the limit serves (solved by its default route: faster)
    est.set_params(solver_options=None, solver="auto", active_set=True).fit(X, y)
    assert est.status_ == "optimal" and est.score(X, y) > 0.9


def _estimator_classes() -> list[type]:
    import sdpkern.estimators as E

    return [getattr(E, name) for name in E.__all__ if isinstance(getattr(E, name), type)]


@pytest.mark.parametrize("cls", _estimator_classes(), ids=lambda c: c.__name__)
def test_every_serving_method_of_every_estimator_checks_the_status(cls: type) -> None:
    from sdpkern.estimators._base import SERVING_METHODS

    served = [name for name in SERVING_METHODS if callable(getattr(cls, name, None))]
    assert served, f"{cls.__name__} serves nothing?"
    for name in served:
        assert getattr(getattr(cls, name), "_sdpkern_certified", False), f"{cls.__name__}.{name} is not checked"


@pytest.mark.parametrize("status", ["iteration_limit", "optimal_inaccurate", "time_limit"])
def test_a_native_fit_at_its_cap_is_not_served(status: str, cancer) -> None:
    from sdpkern.estimators import PrimalSVC

    X, y = cancer[0][:80], cancer[1][:80]
    est = PrimalSVC(kernel="rbf").fit(X, y)
    assert est.status_ == "optimal"
    est.predict(X)
    est.status_ = status  # what a fit that stopped early records
    with pytest.raises(UncertifiedModelError) as info:
        est.predict(X)
    assert info.value.status == status and isinstance(info.value, SdpkernError)


def test_primal_svc_at_max_iter_warns_and_refuses(cancer) -> None:
    from sdpkern.estimators import PrimalSVC

    X, y = cancer[0][:200], cancer[1][:200]
    with pytest.warns(ConvergenceWarning):
        est = PrimalSVC(kernel="rbf", solver="exact", max_iter=1, C=100.0).fit(X, y)
    assert est.status_ == "iteration_limit"
    with pytest.raises(UncertifiedModelError, match="max_iter"):
        est.predict(X)


# ================================================================ 2. large C: never called infeasible
def test_large_C_sdp_is_a_numerical_error_not_infeasible(cancer) -> None:
    """csvm's SDP at C = 1e10 on 40 points: the solvers fail numerically, in a way that depends on
    the machine's floating point (Clarabel said "infeasible" on the machines this was found on;
    on an AMD EPYC it says "optimal_inaccurate", then fails, and SCS runs out of time). A
    soft-margin SVM is never infeasible: the error is never InfeasibleError or UnboundedError, and
    it is NumericalError naming C wherever a solver said so, after every recovery attempt. The SOCP
    form solves where the box is orders above its active range (C = 1e8; at 1e10 its answer is
    inaccurate on the AMD EPYC too)."""
    from sdpkern.builders.hyperkernel import csvm
    from sdpkern.errors import SolverError, UnboundedError

    X, y = cancer[0][:40], cancer[1][:40]
    for recovery in (False, True):
        with pytest.raises(SolverError) as info:
            csvm(X, y, C=1e10, form="sdp").solve(method="direct", recovery=recovery)
        assert not isinstance(info.value, (InfeasibleError, UnboundedError))
        if isinstance(info.value, NumericalError):
            assert "feasible and bounded for every parameter value" in str(info.value)
            assert "C=1e+10" in str(info.value)
        else:  # no solver's verdict was infeasible or unbounded
            assert "infeasible" not in str(info.value) and "unbounded" not in str(info.value)
    socp = csvm(X, y, C=1e8, form="socp").solve(method="direct")
    assert socp.status == "optimal"
    small = csvm(X, y, C=1e4, form="socp").solve(method="direct")  # the box is inactive from C ≈ 10 on
    assert socp.objective == pytest.approx(small.objective, rel=1e-6)


@pytest.mark.parametrize("verdict", ["infeasible", "unbounded", "infeasible_inaccurate"])
def test_a_false_verdict_on_a_feasible_bounded_problem_is_a_numerical_error(
    cancer, verdict: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every solver call says ``verdict`` (as Clarabel's "infeasible" on the SDP at C = 1e10 above,
    on some machines): the builder declares the C-SVM feasible and bounded for every parameter
    value, so the error is NumericalError naming the verdict and C, never the verdict's own error."""
    from sdpkern import problem as problem_module
    from sdpkern.builders.hyperkernel import csvm

    monkeypatch.setattr(problem_module, "map_status", lambda cvx_status, word: verdict)
    X, y = cancer[0][:40], cancer[1][:40]
    for recovery in (False, True):
        with pytest.raises(NumericalError, match=r"feasible and bounded for every parameter value.*C=1e\+10") as info:
            csvm(X, y, C=1e10, form="sdp").solve(method="direct", recovery=recovery)
        assert f"'{verdict}'" in str(info.value)


def test_a_hard_margin_problem_is_still_infeasible() -> None:
    """Only problems the builder declares feasible and bounded are spared the infeasible verdict."""
    from sdpkern.apps.instances import load

    problem, _ = load("sdpm_hard_infeasible")
    with pytest.raises(InfeasibleError):
        problem.solve()


# ================================================================ 3. routes that may disagree say why
def test_fewer_points_than_polynomial_terms_warns() -> None:
    """scikit-learn's sample-weight check data: 15 points in 30 dimensions, integer weights with
    zeros: 31 linear polynomials, so the model is not unique and the solvers disagreed silently."""
    from sdpkern.estimators import ThinPlateSVC

    rng = np.random.RandomState(42)
    X = rng.rand(15, 30)
    y = np.arange(15) % 3
    sw = rng.randint(0, 3, size=15)
    for solver in ("auto", "dual", "cvxpy"):
        with pytest.warns(NonUniqueSolutionWarning, match=r"ThinPlateSVC: the \d+ points of positive weight .* the 31"):
            ThinPlateSVC(solver=solver).fit(X, y, sample_weight=sw)
    X2 = rng.rand(60, 3)
    y2 = (X2[:, 0] > 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonUniqueSolutionWarning)
        ThinPlateSVC().fit(X2, y2)  # unisolvent points: no warning
        # points on a line in R^3 are not unisolvent for the 4 linear polynomials, however many
        line = np.outer(np.linspace(0, 1, 40), [1.0, 2.0, 3.0])
    with pytest.warns(NonUniqueSolutionWarning, match="the 40 points determine only 2 of the 4"):
        ThinPlateSVC().fit(line, (line[:, 0] > 0.5).astype(int))


# ================================================================ 4. the demo's --seed
@pytest.mark.parametrize("seed", ["-1", "99999999999", "x"])
def test_demo_seed_out_of_range_is_a_usage_error(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    from sdpkern.apps.cli import main

    assert main(["demo", "--seed", seed, "--quick"]) == 2
    err = capsys.readouterr().err
    assert "argument --seed: must be an integer in [0, 4294967295]" in err and "Traceback" not in err


# ================================================================ 7. file-system errors stay in the hierarchy
def test_reading_a_missing_file(tmp_path: Path) -> None:
    for name in ("missing.dat-s", "missing.cbf", "missing.mps"):
        with pytest.raises(PathNotFoundError, match=rf"cannot read path='.*{name}': no such file") as info:
            export.read(tmp_path / name)
        assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, SdpkernError)
        assert info.value.filename == str(tmp_path / name)


def test_writing_where_a_file_is_in_the_way(tmp_path: Path) -> None:
    from sdpkern.apps.instances import load

    problem, _ = load("sdpm_deg0")
    blocker = tmp_path / "file.cbf"
    blocker.write_text("not a directory")
    with pytest.raises(PathError, match=r"file\.cbf' is a file, not a directory"):
        problem.export(blocker / "x.dat-s")
    assert blocker.read_text() == "not a directory"
    with pytest.raises(PathNotFoundError, match="the directory .*nodir' does not exist"):
        problem.export(tmp_path / "nodir" / "x.dat-s")


def test_writing_without_permission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only directory (simulated: the tests may run as root, who may write anywhere)."""
    import tempfile

    from sdpkern.apps.instances import load

    problem, _ = load("sdpm_deg0")

    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    with pytest.raises(PathPermissionError, match="permission denied in the directory") as info:
        problem.export(tmp_path / "x.cbf")
    assert isinstance(info.value, PermissionError)


def test_unknown_writer_and_solver_options_are_refused(tmp_path: Path) -> None:
    from sdpkern.apps.instances import load

    problem, _ = load("sdpm_deg0")
    with pytest.raises(ParameterError, match=r"the SDPA writer takes equalities= only, got \['bogus_opt'\]"):
        problem.export(tmp_path / "x.dat-s", bogus_opt=1)
    with pytest.raises(ParameterError, match=r"options=\['bogus'\] are not csdp options"):
        export.solve_external(problem, "csdp", options={"bogus": 1})
    with pytest.raises(ParameterError, match=r"not dsdp options; dsdp accepts .*'maxit'"):
        export.solve_external(problem, "dsdp", options={"maxiter": 5})
    assert list(tmp_path.iterdir()) == []


# ================================================================ 8. smaller cases
def test_max_terms_is_named_as_passed(cancer) -> None:
    from sdpkern.builders.hyperkernel import csvm

    X, y = cancer
    sel = np.r_[np.flatnonzero(y == 0)[:6], np.flatnonzero(y == 1)[:6]]
    with pytest.raises(ParameterError, match="max_terms must be an integer >= 1, got 0"):
        csvm(X[sel], y[sel], max_terms=0)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        ("HarmonicHyperkernel(lambda_h=1.5)", r"HarmonicHyperkernel: lambda_h must lie in \(0.0, 1.0\), got 1.5"),
        ("ExplicitHyperkernel([Gaussian(), Gaussian()], weights=[-1, 1])", "ExplicitHyperkernel: weights must be 2"),
        ("HarmonicARD(lambda_h=0)", "HarmonicARD: lambda_h"),
        ("PowerSeriesHyperkernel(scale=2.0, g='arctanh')", "PowerSeriesHyperkernel: scale"),
    ],
)
def test_hyperkernels_refuse_bad_parameters_at_construction(make: str, match: str) -> None:
    from sdpkern.kernels import Gaussian  # noqa: F401
    from sdpkern.kernels.hyperkernels import (  # noqa: F401
        ExplicitHyperkernel,
        HarmonicARD,
        HarmonicHyperkernel,
        PowerSeriesHyperkernel,
    )

    with pytest.raises(ParameterError, match=match):
        eval(make)


def test_labels_with_none_are_a_label_error(cancer) -> None:
    from sdpkern.estimators import HyperkernelSVC

    y = np.array(["a", None] * 6, dtype=object)
    with pytest.raises(LabelError, match="y cannot be used as class labels.*without None"):
        HyperkernelSVC().fit(cancer[0][:12], y)


@pytest.mark.parametrize(
    ("solver", "m", "opts", "match"),
    [
        ("auto", 20, {"max_steps": 5}, r"\['max_steps'\] are options of the native solver, but solver='auto' runs"),
        ("auto", 40, {"max_iter": 3}, r"\['max_iter'\] are not options of the native solver, which solver='auto'"),
        ("conic", 40, {"cache_bytes": 10}, r"\['cache_bytes'\] are options of the native solver"),
    ],
)
def test_solver_options_for_the_other_route_are_named(solver, m, opts, match, cancer) -> None:
    from sdpkern.estimators import HyperkernelSVC

    with pytest.raises(ParameterError, match=match):
        HyperkernelSVC(solver=solver, solver_options=opts).fit(cancer[0][:m], cancer[1][:m])


def test_dir_of_the_package_lists_its_api_only() -> None:
    import sdpkern

    names = dir(sdpkern)
    assert not {"Any", "Path", "ast", "importlib"} & set(names)
    assert {"HyperkernelSVC", "KernelProblem", "csvm", "__version__", "ParameterError"} <= set(names)


def test_python_m_sdpkern_runs_the_cli() -> None:
    out = subprocess.run([sys.executable, "-m", "sdpkern", "list"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "hk_csvm_sdp_m10" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "sdpkern", "solve"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("usage: sdpkern")


def test_dsdp_at_its_iteration_limit_on_arrow_blocks_does_not_suggest_maxit() -> None:
    """DSDP stalls on SOC exports (maxit 200, 1000, 5000 alike): the hint names other solvers."""
    from sdpkern.errors import InaccurateSolutionError
    from sdpkern.export.solvers import ExternalResult, _enforce_status

    res = ExternalResult("dsdp", "iteration_limit", None, None, None, None, 1.0, 0,
                         "DSDP Terminated Due Maximum Number of Iterations")  # fmt: skip
    with pytest.raises(InaccurateSolutionError) as info:
        _enforce_status(res, Path("p.dat-s"), False, arrow=True)
    assert "higher maxit does not help" in str(info.value) and "solver='csdp' or 'sdpa'" in str(info.value)
    with pytest.raises(InaccurateSolutionError, match=r"options=\{'maxit'"):
        _enforce_status(res, Path("p.dat-s"), False, arrow=False)  # a pure SDP: maxit may help


@pytest.mark.parametrize(
    ("phase", "status"),
    [("pdOPT", "optimal"), ("pdFEAS", "optimal_inaccurate"), ("pINF_dFEAS", "infeasible"),
     ("pFEAS_dINF", "unbounded"), ("noINFO", "error")],
)  # fmt: skip
def test_sdpa_phases_map_to_the_status_vocabulary(phase: str, status: str) -> None:
    from sdpkern.export.solvers import _sdpa_status

    assert _sdpa_status(f"phase.value  = {phase}\n   Iteration = 12\n") == status
    if phase == "noINFO":
        assert _sdpa_status("phase.value = noINFO\nIteration = 100\nmaxIteration = 100\n") == "iteration_limit"


def test_cli_bench_checks_backends_cones_before_solving(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    import cvxpy as cp

    from sdpkern.apps.cli import main

    monkeypatch.setattr(cp.Problem, "get_problem_data", lambda *a, **k: pytest.fail("solved before checking"))
    assert main(["bench", "hk_csvm_sdp_m10", "--backends", "clarabel,highs"]) == 2
    err = capsys.readouterr().err
    assert "backend='highs' has no PSD (semidefinite)" in err and "hk_csvm_sdp_m10" in err


def test_an_earlier_attempt_with_cone_duals_can_be_restored() -> None:
    """The recovery policy returns its best attempt, restoring its point when a later one ran;
    a second-order cone's dual (a list: t's and x's parts) made that raise NumPy's ValueError
    (met with SDPA on the SDPM's SOCP form)."""
    from sdpkern.apps.instances import load
    from sdpkern.problem import _snapshot

    problem, _ = load("sdpm_deg2")
    problem.solve(method="direct")
    kept = _snapshot(problem.cvxpy)
    soc = [v for _, v in kept["duals"] if isinstance(v, list)]
    assert soc, "the SDPM SOCP form has SOC constraints"
    name = next(iter(problem.parameters))
    problem.set(**{name: 2.0 * float(problem.parameters[name].value)}).solve(method="direct")
    from sdpkern.problem import _Saved

    _Saved(None, 0.0, 0.0, None, None, kept).restore(problem.cvxpy)  # type: ignore[arg-type]
    for (_, before), con_now in zip(kept["duals"], problem.cvxpy.constraints):
        now = con_now.dual_value
        if isinstance(before, list):
            assert all(np.array_equal(a, b) for a, b in zip(before, now))
        else:
            assert np.array_equal(before, now)

"""The compiled fresh-factor Newton loop and exact line search (``sdpkern._newtoncore``, issue 15).

* ``newton_on_points`` on all points (no hand-over) and ``_beta_zero_newton`` against the
  kept-factor solver ``primal_svm_kernel`` on the same K̃ (``BetaZeroKernel.operator``): wdbc,
  pima and german (400 points, standardised, as ``examples/benchmarks/bench_thin_plate.py``) at C = 0.01,
  1, 100, and a small random case with duplicated points (the jittered factor): coefficients
  to 1e-9 relative to the largest;
* ``exact_line_search`` against a brute-force minimiser (each piece between sorted breakpoints
  minimised on its own, its active set read at the piece's midpoint): objective to 1e-9 relative;
* the hand-over signals (settled None: a violator set over the bound, a failed factorisation),
  the unsettled return at max_iter, NaN without a crash, and the typed errors of the Python caller.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import StandardScaler

from sdpkern import _newtoncore
from sdpkern.datasets import load_keel
from sdpkern.errors import DataError, NotPSDError, ParameterError
from sdpkern.estimators import ThinPlateSVC
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import PrecomputedGram
from sdpkern.native.cpd import newton as cpd_newton
from sdpkern.native.cpd.newton import BetaZeroKernel, _beta_zero_newton, _newton_arrays, beta_zero_kernel
from sdpkern.native.primal_svm import exact_line_search, primal_svm_kernel

TOL = 1e-9  # coefficients, relative to the largest


def _keel(name: str, n: int = 400) -> tuple[BetaZeroKernel, np.ndarray]:
    """The bench's small-n set-up (examples/benchmarks/bench_thin_plate.py: keel(name, 400), StandardScaler)."""
    ds = load_keel(name)
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:n]
    X, y = StandardScaler().fit_transform(ds.X[idx]), ds.y[idx]
    kernel = ThinPlateSVC()._kernel()
    bz = beta_zero_kernel(kernel(X), polynomial_factor(X, kernel).Q)
    return bz, np.where(y == np.unique(y)[1], 1.0, -1.0)


def _kept_factor(bz: BetaZeroKernel, y: np.ndarray, C: float):  # type: ignore[no-untyped-def]
    n = y.shape[0]
    return primal_svm_kernel(bz.operator, y, C, unpenalized=np.zeros((n, 0)), max_iter=100,
                             warm_start_size=cpd_newton._BETA_ZERO_WARM_START)  # fmt: skip


def _compiled_on_all(bz: BetaZeroKernel, y: np.ndarray, C: float, c0: np.ndarray | None = None, max_iter: int = 100):
    """The compiled loop on all points, cold (or from c0), never handing over for size."""
    Phi, Q, M, ya = _newton_arrays(bz, y, C, max_iter)
    n = ya.shape[0]
    c = np.zeros(n) if c0 is None else c0
    return _newtoncore.newton_on_points(Phi, Q, M, ya, C, np.arange(n), c, max_iter, n)


def _close(c: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(c - ref).max() / np.abs(ref).max())


@pytest.mark.parametrize("name", ["wdbc", "pima", "german"])
@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_compiled_loop_matches_the_kept_factor_solver(name, C):
    bz, y = _keel(name)
    ref = _kept_factor(bz, y, C)
    assert ref.converged
    c, steps, settled = _compiled_on_all(bz, y, C)
    assert settled is True and steps >= 1
    assert _close(c, ref.coef) <= TOL
    c, steps, settled, nf = _beta_zero_newton(bz, y, C, 100)  # the levels (and any hand-over)
    assert settled and nf >= steps >= 1
    assert _close(c, ref.coef) <= TOL


def test_duplicated_points_jittered_factor():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(70, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=70) > 0, 1.0, -1.0)
    X, y = np.vstack([X, X[:12]]), np.concatenate([y, y[:12]])  # 12 points twice: EᵀΦE singular
    kernel = ThinPlate(2)
    bz = beta_zero_kernel(kernel(X), polynomial_factor(X, kernel).Q)
    assert bz.jitter > 0.0
    for C in (0.1, 10.0):
        ref = _kept_factor(bz, y, C)
        c, _, settled = _compiled_on_all(bz, y, C)
        assert settled is True and ref.converged
        assert _close(c, ref.coef) <= TOL
        c, _, settled, _ = _beta_zero_newton(bz, y, C, 100)
        assert settled and _close(c, ref.coef) <= TOL


def test_no_polynomial_part_is_the_plain_svm_without_offset():
    # k = 0 (Q and M empty): the loop is Chapelle's Newton on K itself; a Gaussian K, against the
    # kept-factor solver without offset
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=90) > 0, 1.0, -1.0)
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=2))
    for C in (0.1, 10.0):
        c, _, settled = _newtoncore.newton_on_points(K, np.zeros((90, 0)), np.zeros((90, 0)), y, C, np.arange(90),
                                                     np.zeros(90), 100, 90)  # fmt: skip
        ref = primal_svm_kernel(PrecomputedGram(K), y, C, unpenalized=np.zeros((90, 0)))
        assert settled is True and ref.converged
        assert _close(c, ref.coef) <= TOL


# --- the exact line search -----------------------------------------------------------------------


def _brute_force_min(q1: float, q2: float, e: np.ndarray, g: np.ndarray, C: float) -> float:
    """min over t ≥ 0 of q1 t + ½ q2 t² + C Σ max(0, e − t g)², piece by piece: between sorted
    breakpoints the active set is the one at the piece's midpoint, the piece a quadratic."""

    def f(t: float) -> float:
        return q1 * t + 0.5 * q2 * t * t + C * float(np.sum(np.maximum(0.0, e - t * g) ** 2))

    with np.errstate(divide="ignore", invalid="ignore"):
        tb = np.where(g != 0, e / g, np.inf)
    ends = np.unique(np.concatenate(([0.0], tb[np.isfinite(tb) & (tb > 0)])))
    best = f(0.0)
    for lo, hi in zip(ends, np.append(ends[1:], np.inf)):
        mid = lo + 1.0 if np.isinf(hi) else 0.5 * (lo + hi)
        on = e - mid * g > 0
        a = q2 + 2 * C * float(g[on] @ g[on])  # f'' on the piece, and f' = a t + b
        b = q1 - 2 * C * float(g[on] @ e[on])
        for t in (lo, hi, -b / a if a > 0 else lo):
            if np.isfinite(t) and lo <= t <= hi:
                best = min(best, f(t))
    return best


floats = st.integers(min_value=-500, max_value=500).map(lambda v: v / 100.0)  # exact zeros and tied breakpoints


@settings(max_examples=300, deadline=None)
@given(
    ge=st.lists(st.tuples(floats, floats), min_size=0, max_size=30),
    q1=floats,
    q2=st.floats(min_value=1e-3, max_value=10.0),
    C=st.floats(min_value=1e-3, max_value=100.0),
    zeros=st.integers(min_value=0, max_value=3),
)
def test_line_search_is_the_brute_force_minimiser(ge, q1, q2, C, zeros):
    e = np.array([v for v, _ in ge], dtype=float)
    g = np.array([w for _, w in ge], dtype=float)
    e[: min(zeros, e.shape[0])] = 0.0  # points on the margin, and (below) steps that leave some unchanged
    g[e.shape[0] - min(zeros, e.shape[0]) :] = 0.0
    t = exact_line_search(q1, q2, e, g, C)
    assert t >= 0.0 and np.isfinite(t)
    fmin = _brute_force_min(q1, q2, e, g, C)
    ft = q1 * t + 0.5 * q2 * t * t + C * float(np.sum(np.maximum(0.0, e - t * g) ** 2))
    assert ft <= fmin + 1e-9 * (1.0 + abs(fmin))
    assert t == _newtoncore.exact_line_search(q1, q2, e, g, C)  # the Python name calls the compiled one


def test_line_search_refuses_mismatched_vectors():
    with pytest.raises(DataError, match="e and g"):
        exact_line_search(-1.0, 1.0, np.ones(3), np.ones(4), 1.0)
    with pytest.raises(ValueError, match="differ in length"):
        _newtoncore.exact_line_search(-1.0, 1.0, np.ones(3), np.ones(4), 1.0)


# --- hand-over, unsettled, bad input -------------------------------------------------------------


def _small() -> tuple[BetaZeroKernel, np.ndarray]:
    rng = np.random.default_rng(11)
    X = rng.normal(size=(120, 3))
    y = np.where(X[:, 0] - X[:, 1] ** 2 + 0.3 * rng.normal(size=120) > 0, 1.0, -1.0)
    kernel = ThinPlate(2)
    return beta_zero_kernel(kernel(X), polynomial_factor(X, kernel).Q), y


def test_a_set_over_the_bound_hands_over_with_the_iterate(monkeypatch):
    bz, y = _small()
    Phi, Q, M, ya = _newton_arrays(bz, y, 1.0, 100)
    n, P = 120, np.arange(120)
    c, steps, settled = _newtoncore.newton_on_points(Phi, Q, M, ya, 1.0, P, np.zeros(n), 100, n - 1)
    assert settled is None and steps == 0 and not c.any()  # cold: every point a violator, at once
    # after some steps: the iterate is returned as reached (zero off P) for the kept-factor solver
    half = np.arange(0, n, 2)
    c1, s1, ok = _newtoncore.newton_on_points(Phi, Q, M, ya, 1.0, half, np.zeros(n), 100, n)
    assert ok is True and s1 >= 1
    c, steps, settled = _newtoncore.newton_on_points(Phi, Q, M, ya, 1.0, P, c1, 100, 5)
    assert settled is None and steps == 0 and np.array_equal(c, c1)
    # through _beta_zero_newton: handed over, and the answer is the kept-factor solver's
    handed = []

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        handed.append(kwargs.get("init") is not None)
        return primal_svm_kernel(*args, **kwargs)

    monkeypatch.setattr(cpd_newton, "_BETA_ZERO_REFACTOR_MAX", 20)
    monkeypatch.setattr(cpd_newton, "primal_svm_kernel", spy)
    c, _, settled, _ = _beta_zero_newton(bz, y, 1.0, 100)
    assert handed == [True] and settled
    assert _close(c, _kept_factor(bz, y, 1.0).coef) <= TOL


def test_a_failed_factorisation_hands_over_and_the_kept_factor_solver_names_it():
    bz, y = _small()
    bad = dataclasses.replace(bz, Phi=-bz.Phi - 10.0 * np.eye(120))
    Phi, Q, M, ya = _newton_arrays(bad, y, 1.0, 100)
    c, steps, settled = _newtoncore.newton_on_points(Phi, Q, M, ya, 1.0, np.arange(120), np.zeros(120), 100, 120)
    assert settled is None and steps == 0 and not c.any()
    with pytest.raises(NotPSDError):  # handed over: the kept-factor solver refuses an indefinite K̃
        _beta_zero_newton(bad, y, 1.0, 100)


def test_max_iter_and_nan_return_unsettled_without_a_crash():
    bz, y = _small()
    c, steps, settled = _compiled_on_all(bz, y, 1.0)
    assert settled is True and steps >= 2
    c1, s1, settled1 = _compiled_on_all(bz, y, 1.0, max_iter=1)
    assert settled1 is False and s1 == 1 and c1.any()
    Phi = bz.Phi.copy()
    Phi[5, :] = Phi[:, 5] = np.nan
    nan = dataclasses.replace(bz, Phi=Phi)
    _, _, settled = _compiled_on_all(nan, y, 1.0)
    assert settled is not True


def test_the_python_caller_validates_and_the_entry_checks_shapes():
    bz, y = _small()
    with pytest.raises(DataError, match="y must be a vector"):
        _beta_zero_newton(bz, y[:-1], 1.0, 100)
    with pytest.raises(DataError, match="-1/\\+1"):
        _beta_zero_newton(bz, 2.0 * y, 1.0, 100)
    with pytest.raises(ParameterError, match="C"):
        _beta_zero_newton(bz, y, 0.0, 100)
    with pytest.raises(ParameterError, match="max_iter"):
        _beta_zero_newton(bz, y, 1.0, 0)
    Phi, Q, M, ya = _newton_arrays(bz, y, 1.0, 100)
    P, c = np.arange(120), np.zeros(120)
    with pytest.raises(ValueError, match="outside"):
        _newtoncore.newton_on_points(Phi, Q, M, ya, 1.0, np.array([0, 120]), c, 100, 120)
    with pytest.raises(ValueError, match="expected"):
        _newtoncore.newton_on_points(Phi, Q[:-1], M, ya, 1.0, P, c, 100, 120)
    with pytest.raises(ValueError):  # a Fortran-ordered Φ: the memoryview refuses it
        _newtoncore.newton_on_points(np.asfortranarray(Phi), Q, M, ya, 1.0, P, c, 100, 120)

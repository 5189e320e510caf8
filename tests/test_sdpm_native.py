"""The native SDPM solver (sdpkern.native.sdpm): each piece against an independent route.

* moment cones: the moments of random discrete measures lie inside, adjoints are adjoints;
* exact minima over θ against a dense grid, the best offset against a grid of b;
* the optimum against the CVXPY builders solved by Clarabel (relative 1e-6) on 20 instances for
  every Taylor degree r = 1..4 on a segment, r = 2, 4 on the whole line, and two and three
  transformation parameters — drawn from real data (KEEL sets of 2 to 60 features) and from
  synthetic trajectories, with random C, offsets and weights;
* the certificate: the returned (w, b, ξ) holds on a dense grid of θ, P ≥ optimum ≥ D;
* Proposition 3, kernels, the hard margin, weights, degenerate whole-line problems, bad input.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sweep_instances import sdpm_trajectories

from sdpkern.builders.sdpm import kernel_sdpm, sdpm, trajectory_margins
from sdpkern.errors import DataError, InfeasibleError, LabelError, ParameterError
from sdpkern.kernels.base import Gaussian, Polynomial
from sdpkern.native.sdpm import (
    least_hinge,
    margin_floor,
    moment_cone,
    quadratic_moment_cone,
    sdpm_features,
    sdpm_native,
)
from sdpkern.trajectories import evaluate_quadratic_trajectories, evaluate_trajectories

LINE_GRID = np.tan(np.linspace(-np.pi / 2, np.pi / 2, 20_002)[1:-1])
KEEL = ["sonar", "pima", "heart", "thyroid", "ionosphere", "wdbc", "banana", "crx", "german"]


def synthetic(m: int, n: int, r: int, seed: int, line: bool) -> tuple[np.ndarray, np.ndarray]:
    """Overlapping classes; Taylor rows of exp(θA)x for a random skew A (a rotation in ℝⁿ); on the
    line the top row also bends towards the own class (else most w are infeasible)."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    X = rng.normal(size=(m, n)) + 0.8 * y[:, None] * (np.arange(n) < 2)
    G = rng.normal(size=(n, n)) / np.sqrt(n)
    A = 0.5 * (G - G.T)
    rows, P = [X], X
    for j in range(1, r + 1):
        P = P @ A.T / j
        rows.append(P)
    V = np.stack(rows, axis=1)
    if line:
        V[:, r, 0] += 0.5 * y
    return V, y


def instance(k: int, r: int, segment: bool) -> tuple[np.ndarray, np.ndarray, dict]:
    """Instance k of a configuration: KEEL data for even k, synthetic for odd k."""
    rng = np.random.default_rng(1000 * r + 17 * k + segment)
    m = int(rng.integers(8, 45))
    if k % 2 == 0:
        V, y = sdpm_trajectories(KEEL[(k // 2) % len(KEEL)], m, int(rng.integers(10**6)), r)
    else:
        V, y = synthetic(m, int(rng.integers(2, 12)), r, int(rng.integers(10**6)), line=not segment)
    opts: dict = {"C": float(10 ** rng.uniform(-1.5, 2.5)), "offset": bool(k % 5 != 4)}
    if k % 3 == 2:
        opts["sample_weight"] = rng.uniform(0.2, 3.0, size=len(y))
    if segment:
        opts["segment"] = float(rng.uniform(0.2, 1.5))
    return V, y, opts


def conic(V: np.ndarray, y: np.ndarray, **opts: object):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sdpm(V, y, **opts).solve(tol=1e-10, recovery=False, allow_inaccurate=True)


def assert_certified(res, V: np.ndarray, y: np.ndarray, segment: float | None, C: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    """The returned (w, b, ξ) satisfies the margin constraints on a dense grid of θ (an independent
    check of the exact minima) and its objective is the reported one, above the dual value."""
    assert res.status == "optimal" and res.gap <= res.tol
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    theta = LINE_GRID if segment is None else np.linspace(-segment, segment, 20_001)
    margins = trajectory_margins(V, y_pm, res.coef, res.intercept, theta)
    assert (margins - (1.0 - res.xi)[:, None]).min() >= -1e-9 * max(1.0, np.abs(margins).max())
    assert res.objective == pytest.approx(0.5 * res.coef @ res.coef + C @ res.xi, rel=1e-12, abs=1e-12)
    assert res.dual_objective <= res.objective


# ----------------------------------------------------------------------------- cones and minima
@pytest.mark.parametrize(
    ("r", "segment"), [(0, False), (2, False), (4, False), (0, True), (1, True), (2, True), (3, True), (4, True)]
)
def test_moment_cones_hold_the_moments_of_measures(r: int, segment: bool) -> None:
    cone = moment_cone(r, segment)
    rng = np.random.default_rng(r)
    for _ in range(50):
        atoms = rng.uniform(-1, 1, size=3) if segment else rng.normal(scale=3.0, size=3)
        nu = rng.uniform(0.1, 2.0, size=3) @ (atoms[:, None] ** np.arange(r + 1))
        for L in cone.apply(nu[None]):
            assert np.linalg.eigvalsh(L[0])[0] >= -1e-10 * max(1.0, np.abs(L).max())
    for L in cone.apply(cone.interior()[None]):
        assert np.linalg.eigvalsh(L[0])[0] > 0
    if segment and r >= 1:  # the moments of a point outside [−1, 1] are outside the segment's cone
        nu = 1.5 ** np.arange(r + 1)
        assert min(np.linalg.eigvalsh(L[0])[0] for L in cone.apply(nu[None])) < -1e-6
    nu, Z = rng.normal(size=(4, r + 1)), [rng.normal(size=(4, A.shape[1], A.shape[1])) for A in cone.blocks]
    lhs = sum(np.einsum("mab,mab->", L, Zk) for L, Zk in zip(cone.apply(nu), Z))
    assert lhs == pytest.approx(np.sum(nu * cone.adjoint(Z)))


def test_odd_degree_on_the_line_names_taylor_degree() -> None:
    with pytest.raises(ParameterError, match="taylor_degree r=3 is odd"):
        moment_cone(3, segment=False)
    V, y = synthetic(10, 3, 3, 0, line=False)
    with pytest.raises(ParameterError, match="taylor_degree"):
        sdpm_native(V, y)


@pytest.mark.parametrize("r", [1, 2, 3, 4])
@pytest.mark.parametrize("segment", [True, False])
def test_margin_floor_is_the_minimum_on_a_dense_grid(r: int, segment: bool) -> None:
    if not segment and r % 2:
        pytest.skip("odd degrees are unbounded below on the line")
    rng = np.random.default_rng(r + 10 * segment)
    c = rng.normal(size=(60, r + 1))
    if not segment:
        c[:, -1] = np.abs(c[:, -1]) + 0.05
    floor, arg = margin_floor(moment_cone(r, segment), c)
    grid = np.linspace(-1, 1, 100_001) if segment else np.linspace(-60, 60, 240_001)
    values = np.polynomial.polynomial.polyval(grid, c.T)
    assert np.all(floor <= values.min(axis=1) + 1e-12)
    assert np.all(floor >= values.min(axis=1) - 1e-5)  # the grid's spacing, 5e-4 on the line
    np.testing.assert_allclose(np.polynomial.polynomial.polyval(arg, c.T).diagonal(), floor, atol=1e-12)
    if not segment:  # a negative leading coefficient: −∞
        c[0, -1] = -1e-3
        assert margin_floor(moment_cone(r, segment), c)[0][0] == -np.inf


def test_quadratic_floor_is_the_minimum_on_a_grid() -> None:
    rng = np.random.default_rng(3)
    cone = quadratic_moment_cone(2)
    B = rng.normal(size=(50, 3, 3))
    A = B @ np.swapaxes(B, 1, 2) + 0.1 * np.eye(3)
    A[:, 0, 0] -= 5.0
    c = np.stack([A[:, a, b] * (1 if a == b else 2) for a, b in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]], 1)
    floor, rho = margin_floor(cone, c)
    g = np.linspace(-8, 8, 801)
    R = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    T = np.concatenate([np.ones((R.shape[0], 1)), R], 1)
    values = np.einsum("ga,mab,gb->mg", T, A, T)
    assert np.all(floor <= values.min(axis=1) + 1e-10) and np.all(floor >= values.min(axis=1) - 1e-3)
    A[0, 1, 1] = -0.5  # indefinite in ρ: unbounded below
    c[0, 3] = -0.5
    assert margin_floor(cone, c)[0][0] == -np.inf


def test_least_hinge_is_the_best_offset() -> None:
    rng = np.random.default_rng(0)
    need, y, cost = rng.normal(size=40), np.where(rng.random(40) < 0.4, 1.0, -1.0), rng.uniform(0.1, 2, 40)
    value, b = least_hinge(need, y, cost)
    grid = np.linspace(-10, 10, 200_001)
    brute = (cost[:, None] * np.maximum(0.0, need[:, None] - y[:, None] * grid[None])).sum(0)
    assert value == pytest.approx(brute.min(), abs=1e-3) and value <= brute.min() + 1e-12
    assert value == pytest.approx(float(cost @ np.maximum(0.0, need - y * b)), rel=1e-12)
    assert least_hinge(need, y, cost, offset=False) == (pytest.approx(float(cost @ np.maximum(need, 0))), 0.0)


# ----------------------------------------------------------------------------- the optimum
CONFIGS = [(1, True), (2, True), (3, True), (4, True), (2, False), (4, False)]


@pytest.mark.parametrize(("r", "segment"), CONFIGS, ids=[f"r{r}-{'segment' if s else 'line'}" for r, s in CONFIGS])
def test_same_optimum_as_the_conic_builder(r: int, segment: bool) -> None:
    """20 instances per configuration: the native objective within 1e-6 (relative) of Clarabel's
    at tol 1e-10, the native answer certified, and its constraints hold on a dense θ grid."""
    worst = 0.0
    for k in range(20):
        V, y, opts = instance(k, r, segment)
        ref = conic(V, y, **opts)
        res = sdpm_native(V, y, **opts)
        rel = abs(res.objective - ref.objective) / abs(ref.objective)
        worst = max(worst, rel)
        assert rel <= 1e-6, (k, opts, res.status, res.objective, ref.objective, ref.status)
        weights = opts.get("sample_weight", np.ones(len(y)))
        assert_certified(res, V, y, opts.get("segment"), opts["C"] * weights)
    assert worst <= 1e-6


def quadratic_instance(k: int, D: int) -> tuple[np.ndarray, np.ndarray, dict]:
    rng = np.random.default_rng(500 + 31 * k + D)
    m, n = int(rng.integers(8, 35)), int(rng.integers(2, 10))
    if k % 2 == 0:
        V, y = sdpm_trajectories(KEEL[(k // 2) % len(KEEL)], m, int(rng.integers(10**6)), 1)
        X = V[:, 0]
        n = X.shape[1]
    else:
        y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
        X = rng.normal(size=(m, n)) + 0.8 * y[:, None] * (np.arange(n) < 2)
    Q = np.zeros((len(y), D + 1, D + 1, n))
    Q[:, 0, 0] = X
    for a in range(1, D + 1):
        Q[:, 0, a] = Q[:, a, 0] = 0.5 * rng.normal(size=(len(y), n)) * 0.3
        for b in range(a, D + 1):
            Q[:, a, b] = Q[:, b, a] = 0.05 * rng.normal(size=(len(y), n))
        Q[:, a, a, 0] += 0.3 * np.where(y == y.max(), 1.0, -1.0)  # curvature towards the own class
    opts: dict = {"C": float(10 ** rng.uniform(-1.5, 2.5)), "offset": bool(k % 5 != 4)}
    if k % 3 == 2:
        opts["sample_weight"] = rng.uniform(0.2, 3.0, size=len(y))
    return Q, y, opts


@pytest.mark.parametrize("D", [2, 3])
def test_same_optimum_with_several_parameters(D: int) -> None:
    """The second-order form of 003 §3 with two and three parameters, 20 instances each."""
    for k in range(20):
        Q, y, opts = quadratic_instance(k, D)
        ref = conic(Q, y, **opts)
        res = sdpm_native(Q, y, **opts)
        assert res.status == "optimal"
        assert abs(res.objective - ref.objective) <= 1e-6 * abs(ref.objective), (k, res.objective, ref.objective)
        # the constraints on a grid of ρ (the minimum over ρ is a Schur complement: checked here by sampling)
        g = np.tan(np.linspace(-1.45, 1.45, 25))
        rho = np.stack(np.meshgrid(*([g] * D)), -1).reshape(-1, D)
        y_pm = np.where(y == y.max(), 1.0, -1.0)
        values = y_pm[:, None] * (evaluate_quadratic_trajectories(Q, rho) @ res.coef + res.intercept)
        assert (values - (1 - res.xi)[:, None]).min() >= -1e-9
        # Proposition 3 with several parameters: the virtual support vectors rebuild w
        sv = res.support[res.rank_one[res.support]]
        if 0 < sv.size == res.support.size:
            virtual = np.stack([evaluate_quadratic_trajectories(Q[i : i + 1], res.theta_star[i])[0] for i in sv])
            w_virtual = (res.alpha[sv] * y_pm[sv]) @ virtual
            assert np.abs(w_virtual - res.coef).max() <= 1e-4 * max(1.0, np.abs(res.coef).max())


@pytest.mark.parametrize("kernel", [Gaussian(gamma=0.2), Polynomial(degree=2, gamma=0.3, coef0=1.0)])
@pytest.mark.parametrize("segment", [None, 0.7])
def test_kernel_sdpm_same_optimum(kernel, segment: float | None) -> None:  # type: ignore[no-untyped-def]
    """003 eq. (8) with kernels: the native solver on a factor of the Taylor Gram matrix, certified
    with the exact Gram matrix, against the conic dual (kernel_sdpm)."""
    for seed in range(4):
        V, y = synthetic(25, 4, 2, seed, line=segment is None)
        C = [0.5, 3.0, 10.0, 50.0][seed]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            problem = kernel_sdpm(V, y, kernel, C=C, segment=segment)
            ref = problem.solve(tol=1e-10, recovery=False, allow_inaccurate=True)
        res = sdpm_native(V, y, C=C, segment=segment, kernel=kernel)
        assert res.status == "optimal" and res.coef is None
        assert res.objective == pytest.approx(ref.objective, rel=1e-6)
        # decision values through the kernel expansion f(x) = Σ y_i μ_iu k^(u,0)(x_i, x) + b
        np.testing.assert_allclose(res.moments, ref.model.extras["mu"], atol=1e-3 * C)


def test_kernel_with_several_parameters() -> None:
    """The kernel SDPM with two parameters (the Gram of kernel_quadratic_gram): the polynomial
    kernel of degree 1 is the linear one, so it reaches the linear second-order form's optimum;
    a Gaussian kernel is certified too."""
    for k in range(6):
        Q, y, opts = quadratic_instance(k, 2)
        linear = sdpm_native(Q, y, **opts)
        poly1 = sdpm_native(Q, y, kernel=Polynomial(degree=1, gamma=1.0, coef0=0.0), **opts)
        assert poly1.status == "optimal" and poly1.coef is None
        assert poly1.objective == pytest.approx(linear.objective, rel=1e-7)
        rbf = sdpm_native(Q, y, kernel=Gaussian(gamma=0.1), **opts)
        assert rbf.status == "optimal" and rbf.dual_objective <= rbf.objective


# ----------------------------------------------------------------------------- Proposition 3
def test_truly_virtual_support_vectors() -> None:
    """θ_i* = μ_i1/μ_i0; with rank-one moments w = Σ α_i y_i x̃_i(θ_i*) (003 Proposition 3), each
    support trajectory touches its margin there, and θ* agrees with the conic builder's."""
    V, y = synthetic(40, 5, 2, 3, line=False)
    res = sdpm_native(V, y, C=5.0, segment=0.8)
    ref = conic(V, y, C=5.0, segment=0.8)
    sv = res.support
    assert sv.size and np.all(res.rank_one[sv]) and np.all(np.abs(res.theta_star[sv]) <= 0.8 + 1e-9)
    virtual = np.stack([evaluate_trajectories(V[i : i + 1], res.theta_star[i])[0] for i in sv])
    w_virtual = (res.alpha[sv] * y[sv]) @ virtual
    assert np.abs(w_virtual - res.coef).max() <= 1e-6 * max(1.0, np.abs(res.coef).max())
    free = sv[res.alpha[sv] < 5.0 * (1 - 1e-6)]
    margin = y[free] * (np.einsum("in,n->i", virtual[np.searchsorted(sv, free)], res.coef) + res.intercept)
    np.testing.assert_allclose(margin, 1.0, atol=1e-6)
    clear = sv[res.alpha[sv] > 1e-3 * res.alpha.max()]
    np.testing.assert_allclose(res.theta_star[clear], ref.model.extras["theta_star"][clear], atol=1e-4)
    assert np.all(np.isnan(res.theta_star[np.setdiff1d(np.arange(len(y)), sv)]))


# ----------------------------------------------------------------------------- margins
def test_hard_margin_and_its_infeasibility() -> None:
    V, y = synthetic(30, 4, 2, 1, line=True)
    V[:, 0, 0] += 2.5 * y  # separable for every θ
    ref = conic(V, y, segment=0.5)
    res = sdpm_native(V, y, C=None, segment=0.5)
    assert res.status == "optimal" and np.all(res.xi <= 1e-9)
    assert res.objective == pytest.approx(ref.objective, rel=1e-6)
    V[0, 0], V[1, 0] = V[1, 0], V[0, 0]  # two trajectories swapped across: nothing separates them
    y[0], y[1] = -y[1], -y[0]
    V[0, 0] = V[1, 0]
    y[0] = -y[1]
    with pytest.raises(InfeasibleError, match="soft margin C"):
        sdpm_native(V, y, C=None, segment=0.5)


def test_weights_are_per_trajectory_C_and_zero_removes() -> None:
    V, y = synthetic(30, 4, 3, 2, line=False)
    w = np.random.default_rng(0).integers(0, 4, size=30)
    weighted = sdpm_native(V, y, C=2.0, segment=0.6, sample_weight=w)
    keep = np.repeat(np.arange(30), w)
    repeated = sdpm_native(V[keep], y[keep], C=2.0, segment=0.6)
    assert weighted.objective == pytest.approx(repeated.objective, rel=1e-8)
    assert np.abs(weighted.coef - repeated.coef).max() <= 1e-5
    assert np.all(weighted.alpha[w == 0] == 0) and not np.isin(np.flatnonzero(w == 0), weighted.support).any()


def test_label_blind_curvature_on_the_line_forces_w_zero() -> None:
    """On ℝ a leading coefficient y_i wᵀ(X_i)_r ≥ 0 is not softened by ξ: curvature that ignores
    the label leaves only w = 0. The iterates' w tends to 0 with leading coefficients negative
    by round-off; the certified point is w = 0 itself."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    V = np.stack([X, 0.05 * np.ones_like(X), 0.1 * X], axis=1)
    res = sdpm_native(V, y, C=1.0)
    ref = conic(V, y, C=1.0)
    assert res.status == "optimal" and res.certified_point == "zero"
    assert np.all(res.coef == 0.0) and res.objective == pytest.approx(ref.objective, rel=1e-7)


def test_a_face_of_forced_zeros_is_repaired_not_relabelled() -> None:
    """Two trajectories curve both ways along feature 1, so the optimum holds w_1 = 0 and their
    linear coefficients at zero (a face without interior). The certified point is the iterate
    projected onto that face: feasible (P ≥ optimum ≥ D), and its gap is what is reported."""
    V, y = synthetic(30, 4, 2, 4, line=True)
    V[0, 2] = 0.0
    V[0, 2, 1] = y[0]
    V[1, 2] = 0.0
    V[1, 2, 1] = -y[1]
    res = sdpm_native(V, y, C=1.0)
    ref = conic(V, y, C=1.0)
    assert res.certified_point in ("repaired", "exact", "zero")
    assert res.objective >= ref.objective * (1 - 1e-7) and res.dual_objective <= ref.objective * (1 + 1e-7)
    assert res.gap == pytest.approx((res.objective - res.dual_objective) / res.objective)
    assert res.status == ("optimal" if res.gap <= res.tol else res.status)
    margins = trajectory_margins(V, y, res.coef, res.intercept, LINE_GRID)
    assert (margins - (1.0 - res.xi)[:, None]).min() >= -1e-9


def test_iteration_limit_returns_the_best_point_uncertified() -> None:
    V, y = synthetic(40, 5, 2, 5, line=False)
    res = sdpm_native(V, y, C=3.0, segment=0.5, max_iter=3)
    assert res.status == "iteration_limit" and res.gap > res.tol and res.iterations == 3
    assert res.dual_objective <= res.objective
    assert len(res.history) == 3


def test_features_are_shared_between_fits() -> None:
    V, y = synthetic(30, 4, 2, 6, line=False)
    f = sdpm_features(V, segment=0.5)
    a, b = sdpm_native(f, y, C=1.0), sdpm_native(V, y, C=1.0, segment=0.5)
    assert a.objective == b.objective and np.array_equal(a.coef, b.coef)
    assert sdpm_features(np.concatenate([V[:, :1], np.zeros_like(V[:, :2])], axis=1)).cone.q == 1  # constant rows


# ----------------------------------------------------------------------------- bad input
def test_bad_input_is_a_typed_error_naming_the_argument() -> None:
    V, y = synthetic(10, 3, 2, 0, line=False)
    with pytest.raises(ParameterError, match="segment"):
        sdpm_native(V, y, segment=0.0)
    with pytest.raises(ParameterError, match="segment"):
        sdpm_native(V, y, segment=-1.0)
    with pytest.raises(ParameterError, match="C"):
        sdpm_native(V, y, C=0.0)
    with pytest.raises(ParameterError, match="tol"):
        sdpm_native(V, y, tol=0.0)
    with pytest.raises(ParameterError, match="max_iter"):
        sdpm_native(V, y, max_iter=0)
    with pytest.raises(DataError, match="y must be 1-D"):
        sdpm_native(V, y[:-1])
    with pytest.raises(LabelError, match="two classes"):
        sdpm_native(V, np.ones(10))
    bad = V.copy()
    bad[1, 2, 0] = np.nan
    with pytest.raises(DataError, match="NaN"):
        sdpm_native(bad, y)
    with pytest.raises(DataError, match="shape"):
        sdpm_native(V[:, 0], y)
    with pytest.raises(DataError, match="same degree and length"):
        sdpm_native([V[0].tolist(), V[1, :2].tolist()], y[:2])
    Q = np.zeros((10, 3, 3, 3))
    Q[:, 0, 0] = V[:, 0]
    with pytest.raises(ParameterError, match="segment"):
        sdpm_native(Q, y, segment=0.5)
    with pytest.raises(ParameterError, match="kernel must be a Linear, Polynomial or Gaussian"):
        from sdpkern.kernels.base import Laplacian

        sdpm_native(Q, y, kernel=Laplacian(gamma=1.0))
    with pytest.raises(DataError, match="all of one class"):
        sdpm_native(V, y, sample_weight=(y > 0).astype(float))
    with pytest.raises(ParameterError, match="sample_weight"):
        sdpm_native(V, y, C=None, sample_weight=np.ones(10))

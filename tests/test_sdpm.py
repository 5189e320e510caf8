"""SDPM builders (003 eqs. 6-11, Propositions 1-3, Corollary 1, §3): each checked by a second route."""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from sklearn.svm import SVC
from sweep_instances import sdpm_trajectories

from sdpkern.builders.sdpm import (
    hankel_parametrisation,
    kernel_sdpm,
    kernel_taylor_gram,
    sdpm,
    segment_map,
    trajectory_margins,
)
from sdpkern.errors import DataError, InfeasibleError, LabelError, ParameterError
from sdpkern.kernels.base import Gaussian, Linear, Polynomial
from sdpkern.trajectories import evaluate_quadratic_trajectories

TIGHT = {"tol": 1e-10}
GRID = np.tan(np.linspace(-np.pi / 2, np.pi / 2, 10_002)[1:-1])  # 10⁴ points covering R


def make(m: int = 20, n: int = 5, r: int = 2, seed: int = 0, gap: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Random trajectories that bend towards their own class (so the full-line SDPM is feasible)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    X[:, 0] += gap * y
    V = np.zeros((m, r + 1, n))
    V[:, 0] = X
    for j in range(1, r):
        V[:, j] = 0.3 * rng.normal(size=(m, n))
    if r >= 1:
        V[:, r, 0] = 0.5 * y if r % 2 == 0 else 0.3 * rng.normal(size=m)
        V[:, r, 1] = 0.1 * rng.normal(size=m)
    return V, y


def assert_margins(V: np.ndarray, y: np.ndarray, sol, theta: np.ndarray = GRID, tol: float = 1e-6) -> float:
    """y_i (wᵀx̃_i(θ) + b) ≥ 1 − ξ_i − tol on the grid (10⁴ points); returns the worst slack."""
    e = sol.model.extras
    margins = trajectory_margins(V, y, e["w"], sol.offset, theta)
    worst = float((margins - (1.0 - e["xi"])[:, None]).min())
    assert worst >= -tol, worst
    return worst


# ----------------------------------------------------------------------------- algebra
@pytest.mark.parametrize("l", [1, 2, 3, 4])
def test_hankel_parametrisation_counts_and_identity(l: int) -> None:
    B, aux = hankel_parametrisation(l)
    assert len(aux) == (l - 1) * l // 2  # 003 §2
    rng = np.random.default_rng(l)
    z = rng.normal(size=B.shape[1])
    G = (B @ z).reshape(l + 1, l + 1, order="F")
    np.testing.assert_allclose(G, G.T)
    theta = 0.7
    tb = theta ** np.arange(l + 1)
    assert tb @ G @ tb == pytest.approx(np.polyval(z[: 2 * l + 1][::-1], theta))
    if l == 2:  # the paper's matrix: ½[[2c0, c1, c2 − u], [c1, 2u, c3], [c2 − u, c3, 2c4]]
        c0, c1, c2, c3, c4, u = z
        paper = 0.5 * np.array([[2 * c0, c1, c2 - u], [c1, 2 * u, c3], [c2 - u, c3, 2 * c4]])
        np.testing.assert_allclose(G, paper)


def test_segment_map_is_corollary_1() -> None:
    r, tau = 3, 0.7
    c = np.array([0.3, -1.0, 0.5, 2.0])
    q = segment_map(r) @ (c * tau ** np.arange(r + 1))
    for x in (-2.0, -0.3, 0.0, 1.5):
        theta = tau * (x * x - 1) / (x * x + 1)
        assert np.polyval(q[::-1], x) == pytest.approx((1 + x * x) ** r * np.polyval(c[::-1], theta))


# ----------------------------------------------------------------------------- l = 0
def test_l0_is_the_hard_margin_svm() -> None:
    V, y = make(r=0, gap=1.5)
    sol = sdpm(V, y).solve(**TIGHT)
    assert sol.model.extras["w"].shape == (5,)
    svc = SVC(kernel="linear", C=1e10, tol=1e-10).fit(V[:, 0], y)
    np.testing.assert_allclose(sol.model.extras["w"], svc.coef_[0], atol=1e-5)
    assert sol.offset == pytest.approx(svc.intercept_[0], abs=1e-5)
    # independent CVXPY QP without offset
    w = cp.Variable(5)
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [cp.multiply(y, V[:, 0] @ w) >= 1]).solve("CLARABEL")
    sol0 = sdpm(V, y, offset=False).solve(**TIGHT)
    np.testing.assert_allclose(sol0.model.extras["w"], w.value, atol=1e-5)
    assert sdpm(V, y).form == "qp"
    # the duals are the SVM's α: w = Σ α_i y_i x_i
    np.testing.assert_allclose(sol.model.extras["w_virtual"], sol.model.extras["w"], atol=1e-6)
    assert_margins(V, y, sol)


# ----------------------------------------------------------------------------- l = 1
@pytest.mark.parametrize("C", [None, 1.0])
def test_l1_socp_equals_2x2_lmi(C: float | None) -> None:
    V, y = make(r=2)
    p_socp, p_lmi = sdpm(V, y, C=C), sdpm(V, y, C=C, form="sdp")
    assert p_socp.form == "socp" and p_lmi.form == "sdp"
    s1, s2 = p_socp.solve(**TIGHT), p_lmi.solve(**TIGHT)
    w1, w2 = s1.model.extras["w"], s2.model.extras["w"]
    assert np.linalg.norm(w1 - w2) <= 1e-6 * np.linalg.norm(w1)
    assert abs(s1.objective - s2.objective) <= 1e-6 * abs(s1.objective)
    assert abs(s1.offset - s2.offset) <= 1e-6 * max(1.0, abs(s1.offset))
    # dual blocks: the SOCP's cone duals mapped to M_i agree with the LMI's M_i
    M1, M2 = np.array(s1.model.extras["M"]), np.array(s2.model.extras["M"])
    np.testing.assert_allclose(M1, M2, atol=1e-5 * np.abs(M2).max())  # duals: one digit less than w
    for s in (s1, s2):
        assert_margins(V, y, s)


def test_l1_dual_blocks_support_and_truly_virtual_vectors() -> None:
    V, y = make(r=2)
    sol = sdpm(V, y).solve(**TIGHT)
    e = sol.model.extras
    w = e["w"]
    # M_i ⪰ 0, and w = Σ_i y_i (α_i X_i0 + β_i X_i1 + γ_i X_i2) (003 eq. 9)
    for M in e["M"]:
        assert np.linalg.eigvalsh(M)[0] >= -1e-8
    np.testing.assert_allclose(e["w_dual"], w, atol=1e-6)
    # Proposition 3: w = Σ α_i y_i x̃_i(θ_i*)
    assert np.abs(e["w_virtual"] - w).max() <= 1e-5 * max(1.0, np.abs(w).max())
    support = e["support"]
    assert 0 < support.size < len(y)
    # Proposition 2: support trajectories touch the margin at θ*, the others have α = 0 and stay off it
    margins = trajectory_margins(V, y, w, sol.offset)
    for i in support:
        x_star = V[i, 0] + e["theta_star"][i] * V[i, 1] + e["theta_star"][i] ** 2 * V[i, 2]
        assert y[i] * (x_star @ w + sol.offset) == pytest.approx(1.0, abs=1e-6)
        assert margins[i].min() == pytest.approx(1.0, abs=1e-6)
    others = np.setdiff1d(np.arange(len(y)), support)
    assert np.all(sol.alpha[others] <= 1e-6 * sol.alpha.max())
    assert e["rank_one"][support].all()
    # the virtual support vectors are not training points: θ* ≠ 0
    assert np.all(np.abs(e["theta_star"][support]) > 1e-3)


# ----------------------------------------------------------------------------- l ≥ 2
@pytest.mark.parametrize(("r", "C"), [(4, None), (4, 5.0), (6, None)])
def test_higher_degree_sdp(r: int, C: float | None) -> None:
    V, y = make(r=r, m=15)
    prob = sdpm(V, y, C=C)
    l = r // 2
    assert prob.form == "sdp"
    assert prob.variables["u"].shape == (15, (l - 1) * l // 2)
    sol = prob.solve(**TIGHT)
    e = sol.model.extras
    assert_margins(V, y, sol)
    np.testing.assert_allclose(e["w_dual"], e["w"], atol=1e-6)
    assert np.abs(e["w_virtual"] - e["w"]).max() <= 1e-5 * max(1.0, np.abs(e["w"]).max())


# ----------------------------------------------------------------------------- segment
def crossing_example() -> tuple[np.ndarray, np.ndarray]:
    """x̃_i(θ) = y_i(1 − 0.3θ − θ², 0.2 i) + θ (0, 0.1): classified right only near θ = 0.

    On [−0.5, 0.5] the first coordinate is smallest at θ = 0.5 only (a unique θ*, so the dual
    blocks have rank one); beyond θ ≈ 0.86 the trajectory crosses to the other side.
    """
    m = 6
    y = np.array([1.0, -1.0] * (m // 2))
    V = np.zeros((m, 3, 2))
    V[:, 0, 0] = y * 1.0
    V[:, 0, 1] = 0.2 * np.arange(m) * y
    V[:, 1, 1] = 0.1
    V[:, 1, 0] = -0.3 * y
    V[:, 2, 0] = -y * 1.0
    return V, y


def test_segment_restriction_holds_inside_and_fails_outside() -> None:
    V, y = crossing_example()
    tau = 0.5
    sol = sdpm(V, y, segment=tau, offset=False).solve(**TIGHT)
    inside = np.linspace(-tau, tau, 10_000)
    assert_margins(V, y, sol, inside)
    outside = trajectory_margins(V, y, sol.model.extras["w"], 0.0, np.linspace(-3, 3, 10_000))
    assert outside.min() < 0.0  # crossed the separator beyond the segment
    e = sol.model.extras
    sv = e["support"]
    assert np.all(np.abs(e["theta_star"][sv]) <= tau + 1e-6)
    assert np.abs(e["w_virtual"] - e["w"]).max() <= 1e-5 * max(1.0, np.abs(e["w"]).max())
    # the full-line version of the same data is infeasible, and says to use C or a segment
    with pytest.raises(InfeasibleError, match="C=") as info:
        sdpm(V, y, offset=False).solve()
    assert "segment" in str(info.value)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_segment_any_degree_with_offset_and_slack(r: int) -> None:
    V, y = make(r=r, seed=3, gap=0.5)
    sol = sdpm(V, y, segment=0.8, C=2.0).solve(**TIGHT)
    assert_margins(V, y, sol, np.linspace(-0.8, 0.8, 10_000))
    e = sol.model.extras
    np.testing.assert_allclose(e["w_dual"], e["w"], atol=1e-6)
    assert np.abs(e["w_virtual"] - e["w"]).max() <= 1e-5 * max(1.0, np.abs(e["w"]).max())


def test_dpp_parameters_resolve_like_fresh_builds() -> None:
    V, y = make(r=2, seed=4, gap=0.3)
    prob = sdpm(V, y, C=1.0, segment=0.5)
    assert prob.cvxpy.is_dcp(dpp=True)
    prob.solve(**TIGHT)
    s = prob.set(C=3.0, tau=0.9).solve(**TIGHT)
    fresh = sdpm(V, y, C=3.0, segment=0.9).solve(**TIGHT)
    assert s.objective == pytest.approx(fresh.objective, rel=1e-7)
    np.testing.assert_allclose(s.model.extras["w"], fresh.model.extras["w"], atol=1e-6)
    with pytest.raises(ParameterError, match="segment"):
        prob.set(tau=-1.0)
    with pytest.raises(ParameterError, match="C"):
        prob.set(C=0.0)


# ----------------------------------------------------------------------------- several parameters
def test_several_parameters_one_param_equals_l1_lmi() -> None:
    V, y = make(r=2)
    Q = np.zeros((len(y), 2, 2, V.shape[2]))
    Q[:, 0, 0], Q[:, 0, 1], Q[:, 1, 0], Q[:, 1, 1] = V[:, 0], V[:, 1] / 2, V[:, 1] / 2, V[:, 2]
    s_q = sdpm(Q, y).solve(**TIGHT)
    s_l = sdpm(V, y, form="sdp").solve(**TIGHT)
    np.testing.assert_allclose(s_q.model.extras["w"], s_l.model.extras["w"], atol=1e-6)


def test_several_parameters_margins_on_a_grid() -> None:
    rng = np.random.default_rng(5)
    V, y = make(r=2, m=15)
    n = V.shape[2]
    Q = np.zeros((15, 3, 3, n))
    Q[:, 0, 0] = V[:, 0]
    Q[:, 0, 1] = Q[:, 1, 0] = V[:, 1] / 2
    Q[:, 0, 2] = Q[:, 2, 0] = 0.1 * rng.normal(size=(15, n))
    Q[:, 1, 1] = V[:, 2]
    Q[:, 2, 2, 0] = 0.4 * y
    Q[:, 1, 2] = Q[:, 2, 1] = 0.02 * rng.normal(size=(15, n))
    sol = sdpm(Q, y).solve(**TIGHT)
    e = sol.model.extras
    g = np.tan(np.linspace(-1.5, 1.5, 100))
    rho = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)  # 10⁴ points of R²
    values = evaluate_quadratic_trajectories(Q, rho) @ e["w"] + sol.offset
    assert (y[:, None] * values).min() >= 1 - 1e-6
    np.testing.assert_allclose(e["w_dual"], e["w"], atol=1e-6)
    assert np.abs(e["w_virtual"] - e["w"]).max() <= 1e-5 * max(1.0, np.abs(e["w"]).max())


# ----------------------------------------------------------------------------- kernels
def _fd_gram(kernel, A: np.ndarray, B: np.ndarray, h: float = 1e-2) -> np.ndarray:
    """k^{(u,v)} by a 2-D polynomial fit of k(ã(θ), b̃(θ')) on a 7×7 stencil (independent route)."""
    ks = np.arange(-3, 4) * h
    rA, rB = A.shape[1] - 1, B.shape[1] - 1
    vals = np.empty((7, 7, A.shape[0], B.shape[0]))
    for a, t in enumerate(ks):
        for b, s in enumerate(ks):
            xa = np.einsum("j,mjn->mn", t ** np.arange(rA + 1), A)
            xb = np.einsum("j,mjn->mn", s ** np.arange(rB + 1), B)
            vals[a, b] = kernel(xa, xb)
    Vd = np.linalg.inv(np.vander(ks, 7, increasing=True))
    coef = np.einsum("ua,vb,abij->iujv", Vd, Vd, vals)
    return coef[:, : rA + 1, :, : rB + 1]


@pytest.mark.parametrize("kernel", [Linear(), Polynomial(degree=3, gamma=0.5, coef0=1.0), Gaussian(gamma=0.3)])
def test_kernel_taylor_gram_matches_finite_differences(kernel) -> None:
    A, _ = make(m=4, n=3, r=2, seed=1)
    B, _ = make(m=3, n=3, r=2, seed=2)
    exact = kernel_taylor_gram(kernel, A, B)
    np.testing.assert_allclose(exact, _fd_gram(kernel, A, B), atol=1e-6 * max(1.0, np.abs(exact).max()))
    # the block Gram of a trajectory set is a Gram matrix: symmetric PSD
    K = kernel_taylor_gram(kernel, A).reshape(12, 12)
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    assert np.linalg.eigvalsh(K)[0] >= -1e-9 * np.abs(K).max()


@pytest.mark.parametrize(("segment", "C"), [(None, None), (None, 1.0), (0.6, 2.0)])
def test_kernel_sdpm_linear_equals_linear_sdpm(segment: float | None, C: float | None) -> None:
    V, y = make(r=2, seed=6, gap=0.8)
    primal = sdpm(V, y, C=C, segment=segment).solve(**TIGHT)
    dual = kernel_sdpm(V, y, Linear(), C=C, segment=segment).solve(**TIGHT)
    mu = dual.model.extras["mu"]
    w_k = np.einsum("i,ij,ijn->n", y, mu, V)
    w = primal.model.extras["w"]
    assert np.abs(w_k - w).max() <= 1e-6 * max(1.0, np.abs(w).max())
    assert dual.objective == pytest.approx(primal.objective, rel=1e-6)
    assert dual.offset == pytest.approx(primal.offset, abs=1e-6)
    X_test = np.random.default_rng(0).normal(size=(7, 5))
    np.testing.assert_allclose(dual.decision_function(X_test), primal.decision_function(X_test), atol=1e-6)


@pytest.mark.filterwarnings("ignore:clarabel returned status")
@pytest.mark.parametrize("segment", [None, 0.7])
def test_gaussian_kernel_sdpm_margins_on_grid(segment: float | None) -> None:
    V, y = make(r=2, seed=7, gap=0.5)
    # Clarabel may stop at "AlmostSolved" (relative gap ~3e-8) on these instances: a trajectory
    # whose virtual support vector sits far out (θ* ≈ 4 here) makes the problem ill-conditioned.
    # The answer is checked below on the 10⁴-point grid, which is what the margin claim is about.
    # recovery=False keeps Clarabel's answer: the recovery policy would move on to SCS, whose
    # "optimal" at its own tolerance leaves slacks of ~5e-6, above this test's 1e-6.
    sol = kernel_sdpm(V, y, Gaussian(gamma=0.2), C=10.0, segment=segment).solve(allow_inaccurate=True, recovery=False)
    e = sol.model.extras
    theta = GRID if segment is None else np.linspace(-segment, segment, 10_000)
    values = e["train_coefficients"] @ (theta[None, :] ** np.arange(3)[:, None]) + sol.offset
    xi = np.maximum(0.0, 1.0 - (y[:, None] * values).min(axis=1))
    # slacks are paid for: ξ_i > 0 only where α_i reaches C
    assert np.all((xi <= 1e-6) | (sol.alpha >= 10.0 - 1e-5))
    assert (y[:, None] * values - (1 - xi)[:, None]).min() >= -1e-6
    # decision on the training points is the θ = 0 value of the trajectory
    np.testing.assert_allclose(sol.decision_function(V[:, 0]), e["train_coefficients"][:, 0] + sol.offset, atol=1e-8)
    assert np.mean(np.sign(sol.decision_function(V[:, 0])) == y) == 1.0


# ----------------------------------------------------------------------------- bad input
def test_bad_input_errors() -> None:
    V, y = make(r=2)
    with pytest.raises(DataError, match="trajectories"):
        sdpm(V[:, 0], y)
    with pytest.raises(DataError, match="odd degree r=3.*segment"):
        sdpm(make(r=3)[0], y)
    with pytest.raises(DataError, match="odd degree"):
        kernel_sdpm(make(r=1)[0], y)
    with pytest.raises(ParameterError, match="segment"):
        sdpm(V, y, segment=0.0)
    with pytest.raises(ParameterError, match="segment"):
        sdpm(V, y, segment=-1.0)
    with pytest.raises(ParameterError, match="segment"):
        kernel_sdpm(V, y, segment=0.0)
    with pytest.raises(LabelError, match="two classes"):
        sdpm(V, np.ones(len(y)))
    with pytest.raises(LabelError, match="two classes"):
        sdpm(V, np.arange(len(y)) % 3)
    with pytest.raises(DataError, match="y"):
        sdpm(V, y[:-1])
    bad = V.copy()
    bad[2, 1, 3] = np.nan
    with pytest.raises(DataError, match="NaN"):
        sdpm(bad, y)
    with pytest.raises(ParameterError, match="C"):
        sdpm(V, y, C=-1.0)
    with pytest.raises(ParameterError, match="form"):
        sdpm(V, y, form="lp")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="kernel"):
        kernel_sdpm(V, y, object())  # type: ignore[arg-type]


def test_infeasible_hard_margin_suggests_C() -> None:
    V, y = make(r=2)
    V[0, 0] = V[1, 0]
    y[0], y[1] = 1.0, -1.0  # the same trajectory with both labels
    with pytest.raises(InfeasibleError, match="soft margin C"):
        sdpm(V, y).solve()
    with pytest.raises(InfeasibleError, match="soft margin C"):
        kernel_sdpm(V, y, Gaussian(gamma=0.5)).solve()
    sdpm(V, y, C=1.0).solve()  # the soft margin solves it


def test_summary_and_sources() -> None:
    V, y = make(r=2)
    prob = sdpm(V, y, C=1.0)
    assert "003 eq. (6)" in prob.source
    text = prob.summary()
    assert "soc" in text and "C" in text
    assert math.isclose(prob.parameters["C"].value, 1.0)


# ----------------------------------------------------------------------------- issue 17: sweep misses
@pytest.mark.parametrize(
    ("name", "m", "seed", "r", "C", "segment"),
    [("sonar", 81, 98008915, 3, 5672.286816351535, 1.0), ("pima", 67, 29783550, 4, 0.027793899561337182, None)],
)
def test_soft_margin_slacks_in_cost_units_are_certified(
    name: str, m: int, seed: int, r: int, C: float, segment: float | None
) -> None:
    """Status-sweep misses (issue 17): Clarabel stopped at AlmostSolved on these two (r = 3 on
    [−1, 1], C = 5.7e3, every ξ = 0; r = 4 on ℝ, C = 0.028, w = 0). With the slacks solved as
    ζ = ξ·C/σ (``sdpm._ObjectiveScale``; σ = 1 was the first fix, ζ = C·ξ) both are ``optimal``
    on the default backend without recovery, and agree with SCS on the same problem to 1e-6
    relative (SCS's own tolerance)."""
    V, y = sdpm_trajectories(name, m, seed, r)
    p = sdpm(V, y, C=C, segment=segment)
    sol = p.solve("clarabel", recovery=False)
    assert sol.status == "optimal" and sol.attempts[0].backend == "clarabel"
    other = p.solve("scs", recovery=False)
    assert other.status == "optimal"
    assert sol.objective == pytest.approx(other.objective, rel=1e-6)
    # the objective is ½‖w‖² + C Σ ξ in the user's units (ξ = κ·ζ comes back as "xi")
    w, xi = sol.model.extras["w"], sol.model.extras["xi"]
    assert sol.objective == pytest.approx(0.5 * w @ w + C * xi.sum(), rel=1e-7)

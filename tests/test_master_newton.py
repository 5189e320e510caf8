"""The native master's Newton β step (docs/hyperkernel_derivations.md §1.7).

Second route for D's Hessian: central differences of D's exact gradient ∂D/∂β'_l = −c·½uᵀK_l u
(the envelope theorem, independent of the KKT algebra the Hessian comes from), from inner solves
at β' ± h·d along directions d = e_l − e_k inside the simplex, h = 1e-5. The inner solves run at
smo_tol 1e-11, so the differences are exact to about 1e-5 of H's scale; the test asks 1e-3 (a
missing term, such as the L2-SVM's bias or a binding equality, is an error of order one). Then
the fit: the same certified optimum with Newton steps and with level steps only, in fewer steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sdpkern.datasets import load_keel
from sdpkern.kernels import hyperkernel_terms
from sdpkern.kernels.hyperkernels import ARDDictionary
from sdpkern.native import hyperkernel_families as hf
from sdpkern.native import hyperkernel_master as hm


def _data(name: str, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    d = load_keel(name)
    X = (d.X - d.X.mean(0)) / (d.X.std(0) + 1e-12)
    idx = np.random.default_rng(seed).choice(len(d.y), m, replace=False)
    return X[idx], np.where(d.y[idx] > 0, 1.0, -1.0)


def _family(name: str, y: np.ndarray) -> hm.MasterFamily:
    m = y.size
    if name == "csvm":
        return hm._CSVCFamily(y=y, box=1.0)
    if name == "nusvm":
        return hf._NuSVCFamily(y=y, nu=0.3)
    if name == "l2svm":
        return hf._L2SVCFamily(y=y, C=1.0)
    if name == "one_class":
        return hf._OneClassFamily(nu=0.3, m=m)
    if name == "alignment":
        return hf._AlignmentFamily(target=y, ridge=1e-2)
    target = y + 0.3 * np.sin(np.arange(m))  # a real-valued target
    # at C = 100 the tube is slack at the optimum (ε = 0; test_nu_regression_hessian_where_the_tube_is_slack)
    return hf._NuSVRFamily(y=target, C=100.0 if name == "nu_regression_slack" else 1.0, nu=0.3)


def _master(family: hm.MasterFamily, X: np.ndarray, n_jobs: int = 1) -> tuple[hm._Master, np.ndarray]:
    R = np.vstack([np.ones(X.shape[1]), (np.arange(X.shape[1]) < X.shape[1] // 2).astype(float)])
    B = ARDDictionary(relevances=R).fitted(X).basis(X)
    opts = hm._master_options(B, 1, 64 << 20, 1e-11, 10**8, n_jobs)
    opts |= {"working_set": 10**6, "working_set_cache_bytes": 64 << 20, "working_set_rounds": 100,
             "newton_points": 10**6}  # fmt: skip
    return hm._Master(B, family, 0.5, opts), np.arange(B.size)


@pytest.mark.parametrize("name", ["csvm", "nusvm", "l2svm", "one_class", "nu_regression", "alignment"])
@pytest.mark.parametrize("data", [("pima", 0), ("banana", 1), ("wdbc", 2)])
def test_hessian_matches_differences_of_the_gradient(name: str, data: tuple[str, int]) -> None:
    X, y = _data(data[0], 160, data[1])
    _check_hessian(name, X, y, data[1])


@pytest.mark.parametrize("data", [("pima", 0), ("banana", 1), ("wdbc", 2)])
def test_nu_regression_hessian_where_the_tube_is_slack(data: tuple[str, int]) -> None:
    # ε = 0 at the optimum (Σ|α* − α| < Cνm): every point inside the box is free and only 1ᵀ(α* − α)
    # = 0 binds; the tube's row, or one variable per point where α = α* > 0 pads the slack, would
    # give the Hessian of a smaller face
    X, y = _data(data[0], 160, data[1])
    point = _check_hessian("nu_regression_slack", X, y, data[1])
    fam = hf._NuSVRFamily(y=y, C=100.0, nu=0.3)
    alpha = point.inner.alpha
    assert float(np.abs(alpha[160:] - alpha[:160]).sum()) < 100.0 * 0.3 * 160 * (1 - 1e-6)
    assert fam.curvature(alpha).equalities.shape[0] == 1


@pytest.mark.parametrize("name", ["csvm", "nusvm", "l2svm", "one_class", "alignment"])
def test_hessian_with_repeated_points_matches_differences_of_the_gradient(name: str) -> None:
    # every point twice (integer sample weights as repeats): free copies of a point make the
    # bordered matrix singular; the ridge gives its least-norm solution, not a missing Hessian
    X, y = _data("pima", 80, 5)
    _check_hessian(name, np.vstack([X, X]), np.concatenate([y, y]), 5)


@pytest.mark.parametrize("name", ["csvm", "nusvm", "one_class", "nu_regression"])
def test_hessian_blocks_consumed_in_two_threads_give_the_same_bits(name: str, monkeypatch: Any) -> None:
    # the Hessian's pass over K(β)[F, support ∪ F] (free_blocks): each chunk of rows is computed
    # and added into K(β)[F, F] and the (K_l u)[F] in one of n_jobs threads, each writing its own
    # rows, so two threads give one thread's bits: the bordered matrix and the (K_l u)[F], and the
    # Hessian solved from them. Chunks of a few rows: many of them
    monkeypatch.setattr(hyperkernel_terms, "_CHUNK_ELEMENTS", 4000)
    # (at one inner point, and the Hessians solved with one master's BLAS threads: OpenBLAS's
    # dpotrf and dtrsm on two threads give other last bits from about 120 rows on some kernels,
    # e.g. its Haswell kernels on an AMD EPYC; the inner solves and the Hessian's solve run with
    # n_jobs BLAS threads, docs/hyperkernel.md, "One BLAS thread")
    X, y = _data("pima", 160, 3)
    beta = np.random.default_rng(3).dirichlet(np.ones(12))
    first, terms = _master(_family(name, y), X, 1)
    assert terms.size == 12
    point = first.inner(terms, beta, None)
    cv = first._curvature(point.inner.alpha)
    assert cv is not None
    passes, H = [], []
    for n_jobs in (1, 2):
        master, _ = _master(_family(name, y), X, n_jobs)
        M, Ku = master._bordered(terms, point.beta, point.inner.u, cv)
        passes.append((M.copy(), Ku))
        H.append(first._solve_hessian(cv, Ku, [M], None))
    np.testing.assert_array_equal(passes[0][0], passes[1][0])
    np.testing.assert_array_equal(passes[0][1], passes[1][1])
    assert H[0] is not None and H[1] is not None
    np.testing.assert_array_equal(H[0], H[1])


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("outside", [0, 9])
def test_bordered_matrix_and_products_from_one_lower_triangle_pass(n_jobs: int, outside: int, monkeypatch: Any) -> None:
    # u supported within the free set F (the L2-SVM, the alignment), or also on a few points
    # outside it (``outside``: the ν-regression's points at ±C): one pass over F's pairs' lower
    # triangle and the block of F's rows and those points' columns give every (K_l u)[F] and
    # K(β)[F, F] on and below the diagonal, the triangle LAPACK reads. Second route: the dense
    # blocks of every term (term_block), 1e-12; chunks of a few columns, so that many chunks
    # write their own columns of K
    monkeypatch.setattr(hyperkernel_terms, "_CHUNK_ELEMENTS", 4000)
    X, y = _data("pima", 150, 4)
    master, terms = _master(_family("l2svm", y), X, n_jobs)
    rng = np.random.default_rng(4)
    beta = rng.dirichlet(np.ones(terms.size))
    pick = rng.choice(150, 97 + outside, replace=False)
    F, S = np.sort(pick[:97]), np.sort(pick)
    u = np.zeros(150)
    u[S] = rng.normal(size=S.size)
    K = np.zeros((F.size, F.size), order="F")
    V = master.free_blocks(terms, beta, u, F, K)
    B = master.B
    dense = hyperkernel_terms.term_block(B.hyperkernel, B.features[terms], B.X[F], B.X[F])
    wide = hyperkernel_terms.term_block(B.hyperkernel, B.features[terms], B.X[F], B.X[S])
    np.testing.assert_allclose(V, np.einsum("lij,j->il", wide, u[S]), rtol=1e-12, atol=1e-13)
    want = np.tensordot(master.c * beta, dense, axes=1)
    low = np.tril_indices(F.size)
    np.testing.assert_allclose(K[low], want[low], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("data", [("pima", 6), ("banana", 1), ("wdbc", 2)])
def test_the_bordered_matrix_is_factorised_only_when_a_newton_step_is_due(
    data: tuple[str, int], monkeypatch: Any
) -> None:
    # u's support is the free set (the L2-SVM's first, SMO, solve): the cut's pass fills the
    # Hessian's bordered matrix, and its factorisation waits for a Newton step from that point.
    # Second route: the Hessian computed at once (_hessian), the same bits; the next inner solve
    # drops the matrix, and the Hessian of a point it replaced is computed again, unchanged
    X, y = _data(data[0], 160, data[1])
    master, terms = _master(_family("l2svm", y), X)
    factorised: list[int] = []
    solve = hm._solve_symmetric

    def counted(A: np.ndarray, B: np.ndarray, definite: bool) -> np.ndarray | None:
        factorised.append(A.shape[0])
        return solve(A, B, definite)

    monkeypatch.setattr(hm, "_solve_symmetric", counted)
    beta = np.random.default_rng(data[1]).dirichlet(np.ones(terms.size))
    point = master.inner(terms, beta, None)
    assert master.pending is not None and master.pending[0] is point and point.H is None and not factorised
    H = master.hessian(terms, point)
    assert H is not None and len(factorised) == 1 and master.pending is None
    cv = master._curvature(point.inner.alpha)
    assert cv is not None
    eager, _ = master._hessian(terms, point.beta, point.inner.u, cv)
    np.testing.assert_array_equal(H, eager)
    other = master.inner(terms, beta[::-1].copy(), None)
    assert master.pending is not None and master.pending[0] is other
    np.testing.assert_array_equal(master.hessian(terms, point), eager)
    assert master.pending is not None and master.pending[0] is other  # another point's: kept


def _check_hessian(name: str, X: np.ndarray, y: np.ndarray, seed: int) -> hm._Point:
    master, terms = _master(_family(name, y), X)
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet(np.ones(terms.size))
    point = master.inner(terms, beta, None)
    H = master.hessian(terms, point)
    assert H is not None and H.shape == (terms.size, terms.size)
    assert np.allclose(H, H.T) and np.linalg.eigvalsh(H).min() >= -1e-8 * np.abs(H).max()  # D is convex
    h = 1e-5
    for l, k in [(0, 1), (2, 7), (terms.size - 1, 3)]:
        d = np.zeros(terms.size)
        d[l], d[k] = 1.0, -1.0
        up = master.inner(terms, beta + h * d, point.inner.alpha)
        down = master.inner(terms, beta - h * d, point.inner.alpha)
        fd = -(up.q - down.q) / (2 * h)  # D's gradient in β' is −c·q
        assert np.allclose(H @ d, fd, rtol=0, atol=1e-3 * np.abs(H).max()), (name, l, k, H @ d, fd)
    return point


def _fit(name: str, X: np.ndarray, y: np.ndarray, **options: Any) -> hm.NativeMasterResult:
    B = ARDDictionary().fitted(X).basis(X)
    if name == "l2svm":
        return hf.hyperkernel_l2svm_native(B, y, C=1.0, lambda_Q=0.5, **options)
    if name == "one_class":
        return hf.hyperkernel_one_class_native(B, nu=0.3, lambda_Q=0.5, **options)
    if name == "alignment":
        return hf.hyperkernel_alignment_native(B, y, ridge=1e-2, lambda_Q=0.5, **options)
    return hm.hyperkernel_csvm_native(B, y, C=1.0, lambda_Q=0.5, **options)


@pytest.mark.parametrize("name", ["csvm", "l2svm", "one_class", "alignment"])
@pytest.mark.parametrize("data", [("pima", 3), ("ringnorm", 4)])
def test_newton_steps_reach_the_level_bundles_optimum_in_fewer_steps(name: str, data: tuple[str, int]) -> None:
    X, y = _data(data[0], 300, data[1])
    newton = _fit(name, X, y)
    level = _fit(name, X, y, newton_points=0)
    assert newton.status == level.status == "optimal"
    assert abs(newton.objective - level.objective) <= 2e-6 * max(1.0, abs(level.objective))
    assert newton.steps <= level.steps


def test_csvm_trial_points_stop_once_worse_than_the_best_and_the_optimum_is_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a trial point's SMO stops once its dual value shows J ≥ the best J (twonorm, m = 400: one
    # trial point does); the second route ignores that level and solves every point to the end:
    # the same certified optimum (1e-6 relative, the master's tolerance) in more SMO steps
    X, y = _data("twonorm", 400, 5)
    solve = hm.solve_csvc
    statuses: list[str] = []

    def spy(*args: Any, **kw: Any) -> Any:
        sol = solve(*args, **kw)
        statuses.append(sol.status)
        return sol

    monkeypatch.setattr(hm, "solve_csvc", spy)
    stopped = _fit("csvm", X, y)
    assert statuses.count("objective_target") >= 1
    monkeypatch.setattr(hm, "solve_csvc", lambda *a, objective_target=None, **kw: solve(*a, **kw))
    full = _fit("csvm", X, y)
    assert stopped.status == full.status == "optimal"
    assert abs(stopped.objective - full.objective) <= 1e-6 * max(1.0, abs(full.objective))
    assert stopped.smo_iterations < full.smo_iterations


def _segment_point(beta: list[float], J: float, slope: float, d: np.ndarray, L: np.ndarray, reg: Any,
                   exact: bool = True) -> hm._Point:
    """A master point with J and cut slopes q that give φ'(t) = ``slope`` along d (∇R − q)·d."""
    b = np.array(beta)
    q = reg.grad(b, L) - slope * d / float(d @ d)
    z = np.zeros(1)
    return hm._Point(J, b, hm.InnerSolution(z, z, z, 0.0, 0.0, 0, exact=exact), q)


@pytest.mark.parametrize("weight", [0.0, 3.0])
def test_an_overshooting_newton_step_is_followed_by_the_minimiser_of_its_cubic(weight: float) -> None:
    # along a → b, φ(t) = (t − 0.6)²(t + 1): φ(0) = 0.36, φ(1) = 0.32, φ'(0) = −0.84, φ'(1) = 1.76,
    # the strong Wolfe curvature condition fails (1.76 > 0.9·0.84) and the cubic through the
    # ends is φ itself, least at t = 0.6 (Nocedal & Wright eq. 3.59, exact for a cubic)
    L = np.array([[1.0, 0.5], [0.2, 1.0]])
    reg = hm._Regulariser(weight, True)
    a_beta, b_beta = [0.8, 0.2], [0.2, 0.8]
    d = np.array(b_beta) - np.array(a_beta)
    a = _segment_point(a_beta, 0.36, -0.84, d, L, reg)
    b = _segment_point(b_beta, 0.32, 1.76, d, L, reg)
    got = hm._interpolated(a, b, L, reg)
    assert got is not None
    np.testing.assert_allclose(got, np.array(a_beta) + 0.6 * d, rtol=0, atol=1e-12)
    # a step that meets the conditions (φ'(1) = −0.1, sufficient decrease), or whose end's solve
    # stopped early (a bound for J, not D's gradient), is not interpolated
    assert hm._interpolated(a, _segment_point(b_beta, 0.1, -0.1, d, L, reg), L, reg) is None
    assert hm._interpolated(a, _segment_point(b_beta, 0.32, 1.76, d, L, reg, exact=False), L, reg) is None
    # a step that went up (J(b) > J(a)) is interpolated whatever its end's slope
    up = hm._interpolated(a, _segment_point(b_beta, 0.5, 0.2, d, L, reg), L, reg)
    assert up is not None and 0.0 < float((up - a.beta) @ d / (d @ d)) < 1.0


@pytest.mark.parametrize("name", ["alignment", "csvm"])
def test_the_step_after_an_overshooting_newton_step_reaches_the_same_optimum_in_fewer_steps(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pima, m = 300: Newton steps that go past J's minimum on their line are followed by the
    # cubic's minimiser on that line (21 → 19 inner solves for the alignment, 12 → 10 for the
    # C-SVM). Second route: the master without it (level steps after a step that did not lower J,
    # Newton steps otherwise); the same certified optimum to 1e-9 (1e-12 measured). The alignment's
    # Newton steps are those it takes without its fractional model
    monkeypatch.setattr(hf._AlignmentFamily, "quadratic_part", lambda self: None)
    X, y = _data("pima", 300, 1)
    interpolated = _fit(name, X, y)
    monkeypatch.setattr(hm, "_interpolated", lambda *args: None)
    plain = _fit(name, X, y)
    assert interpolated.status == plain.status == "optimal"
    assert abs(interpolated.objective - plain.objective) <= 1e-9 * max(1.0, abs(plain.objective))
    assert interpolated.steps < plain.steps


@pytest.mark.parametrize("data", [("pima", 1), ("ringnorm", 4), ("banana", 5), ("wdbc", 6)])
def test_the_alignments_fractional_model_reaches_the_newton_steps_optimum_in_fewer_steps(
    data: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the alignment's steps on D restricted to the span of its maximisers and their derivatives
    # (sdpkern.native.fractional_model) against its Newton steps on D's quadratic model, the second
    # route: the same certified optimum to 1e-9 of J, and fewer inner solves (pima, m = 300,
    # the dictionary's full basis: 8 against 19)
    X, y = _data(data[0], 300, data[1])
    modelled = _fit("alignment", X, y)
    monkeypatch.setattr(hf._AlignmentFamily, "quadratic_part", lambda self: None)
    newton = _fit("alignment", X, y)
    assert modelled.status == newton.status == "optimal"
    assert abs(modelled.objective - newton.objective) <= 1e-9 * max(1.0, abs(newton.objective))
    assert modelled.steps < newton.steps


def test_newton_points_is_checked() -> None:
    from sdpkern.errors import ParameterError

    X, y = _data("pima", 60, 0)
    with pytest.raises(ParameterError, match="newton_points"):
        _fit("csvm", X, y, newton_points=-1)


@pytest.mark.parametrize(("weight", "squared"), [(0.0, True), (10.0, True), (10.0, False)])
def test_newton_step_is_the_models_minimiser_where_the_hessian_is_large(weight: float, squared: bool) -> None:
    # the β step's small QP against its KKT solution (an interior minimiser, so 1ᵀβ = 1 is the
    # only active constraint): with H in the 1e4s its values are 1e4 where the last β steps'
    # J differ by 1e-4, and at Clarabel's default tolerance the step was 7.5e-8 off (6e-7 with
    # the norm's cone; the steps then stalled short of the minimum). Asked: 1e-10 where the
    # model is a QP, 1e-8 through the norm's cone (1.9e-9 measured at tolerance 1e-11)
    rng = np.random.default_rng(0)
    n = 12
    G = rng.standard_normal((n, n))
    H = 1e4 * (G @ G.T / n + np.eye(n))
    L = rng.standard_normal((n, 3))
    center = np.full(n, 1.0 / n)
    beta = rng.dirichlet(np.full(n, 5.0))
    # stationarity of −qᵀβ + ½(β − c)ᵀH(β − c) + R(β) on 1ᵀβ = 1, multiplier 3
    reg = hm._Regulariser(weight, squared)
    q = H @ (beta - center) + reg.grad(beta, L) + 3.0
    step = hm._newton_step(q, center, H, L, reg)
    assert step is not None
    np.testing.assert_allclose(step, beta, rtol=0, atol=1e-10 if squared else 1e-8)


@pytest.mark.parametrize("definite", [True, False])
def test_symmetric_solve_matches_numpy_and_refuses_a_singular_matrix(definite: bool) -> None:
    # the Hessian's solve (Cholesky where the bordered matrix is definite, else Bunch-Kaufman)
    # against numpy's general solve; a singular matrix gives None (no Newton step), not a
    # least-squares answer from the destroyed factor
    rng = np.random.default_rng(0)
    G = rng.standard_normal((30, 30))
    A = G @ G.T + np.eye(30) if definite else G + G.T
    B = rng.standard_normal((30, 4))
    X = hm._solve_symmetric(np.asfortranarray(A), B, definite)
    assert X is not None
    np.testing.assert_allclose(X, np.linalg.solve(A, B), rtol=1e-9, atol=1e-9)
    S = np.zeros((30, 30), order="F")
    S[:10, :10] = (G @ G.T)[:10, :10]
    assert hm._solve_symmetric(S, B, definite) is None


@pytest.mark.parametrize("data", [("pima", 6), ("banana", 7), ("wdbc", 8)])
def test_l2_svm_direct_solve_is_the_smo_maximiser_and_its_factor_the_hessians(data: tuple[str, int]) -> None:
    # the L2-SVM's inner solve from its support vectors' KKT system (_direct), against the SMO's
    # from the same warm start at the same β (smo_tol 1e-11): the same maximiser, outputs and
    # cut; and the Hessian from the direct solve's factor against the one the master computes
    # afresh (its own pass over F × supp u and its own factorisation)
    X, y = _data(data[0], 150, data[1])
    weights = np.random.default_rng(data[1]).integers(0, 3, 150).astype(float)  # some weights 0
    family = hf._L2SVCFamily(y=y, C=1.0, weights=weights)
    master, terms = _master(family, X)
    rng = np.random.default_rng(data[1])
    beta = rng.dirichlet(np.ones(terms.size))
    start = master.inner(terms, beta, None)
    near = np.clip(beta + 1e-4 * rng.standard_normal(terms.size), 0.0, None)
    near /= near.sum()
    family.settled = False
    smo = master.inner(terms, near, start.inner.alpha)
    assert smo.inner.n_iter > 0
    family.settled = True
    direct = master.inner(terms, near, start.inner.alpha)
    assert direct.inner.n_iter == 0  # the direct solve ran, no SMO step
    scale = np.abs(smo.inner.alpha).max()
    np.testing.assert_allclose(direct.inner.alpha, smo.inner.alpha, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(direct.inner.Ku, smo.inner.Ku, rtol=0, atol=1e-8 * np.abs(smo.inner.Ku).max())
    np.testing.assert_allclose(direct.q, smo.q, rtol=1e-8)
    assert abs(direct.J - smo.J) <= 1e-10 * abs(smo.J)
    assert direct.H is not None
    cv = master._curvature(direct.inner.alpha)
    assert cv is not None
    fresh, _ = master._hessian(terms, near, direct.inner.u, cv)
    assert fresh is not None
    np.testing.assert_allclose(direct.H, fresh, rtol=0, atol=1e-9 * np.abs(fresh).max())


@pytest.mark.parametrize("name", ["csvm", "nusvm", "one_class", "nu_regression", "nu_regression_slack"])
def test_hessian_by_the_bordered_matrix_where_cholesky_fails(name: str, monkeypatch: Any) -> None:
    # M's Cholesky factorisation with the equalities by their Schur complement; where M is not
    # definite in floating point (simulated: the definite solve refuses), the bordered matrix is
    # built again and solved by LAPACK's symmetric indefinite solve. Second route of each other:
    # the same Hessian to 1e-8 of its largest entry
    X, y = _data("pima", 160, 7)
    master, terms = _master(_family(name, y), X)
    beta = np.random.default_rng(7).dirichlet(np.ones(terms.size))
    point = master.inner(terms, beta, None)
    cv = master._curvature(point.inner.alpha)
    assert cv is not None and cv.equalities.shape[0] >= 1
    H, _ = master._hessian(terms, point.beta, point.inner.u, cv)
    solve = hm._solve_symmetric
    calls: list[bool] = []

    def refuse(A: np.ndarray, B: np.ndarray, definite: bool) -> np.ndarray | None:
        calls.append(definite)
        return None if definite else solve(A, B, definite)

    monkeypatch.setattr(hm, "_solve_symmetric", refuse)
    again, _ = master._hessian(terms, point.beta, point.inner.u, cv)
    assert calls == [True, False]
    assert H is not None and again is not None
    np.testing.assert_allclose(again, H, rtol=0, atol=1e-8 * np.abs(H).max())


@pytest.mark.parametrize("data", [("pima", 0), ("banana", 1)])
def test_nu_regression_face_factor_gives_the_hessian_and_cut_of_the_pass(data: tuple[str, int]) -> None:
    # where the ν-regression's inner solve ends on a face step, that step's Cholesky factor of
    # K(β)[F, F] (scaled by 1/(Cm)) serves the master's Newton step, and one pass over the free
    # points and u's support (the points at ±C: in the support, not free) gives the cut. Second
    # route: the bordered matrix built and factorised afresh, and the cut by its own pass; the
    # same Hessian to 1e-10 of its largest entry (1e-14 measured) and the same cut to 1e-12 of its
    # largest entry (its small entries, 1/200 of the largest, differ in their last bits with the
    # summation order: 1.5e-12 of their own size on an AMD EPYC)
    X, y = _data(data[0], 160, data[1])
    master, terms = _master(_family("nu_regression", y), X)
    beta = np.random.default_rng(data[1]).dirichlet(np.ones(terms.size))
    point = master.inner(terms, beta, None)
    assert point.H is not None  # the factor came with the solve: the Hessian is ready
    u = point.inner.u
    cv = master._curvature(point.inner.alpha)
    assert cv is not None and not set(np.flatnonzero(u)) <= set(cv.points)
    fresh, _ = master._hessian(terms, point.beta, u, cv)
    assert fresh is not None
    np.testing.assert_allclose(point.H, fresh, rtol=0, atol=1e-10 * np.abs(fresh).max())
    cut = master.c * master.quadratics(terms, u)
    np.testing.assert_allclose(point.q, cut, rtol=0, atol=1e-12 * np.abs(cut).max())

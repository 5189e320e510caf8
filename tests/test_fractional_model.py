"""The alignment master's fractional model (sdpkern.native.fractional_model, docs/hyperkernel_derivations.md §1.8).

D(β) = ½yᵀ(Σ_l β_l K_l + εI)⁻¹y and its restriction D_W to the span of W, on small dense
problems where both are computed directly: D_W ≤ D everywhere, equal with D's gradient at a β
whose maximiser is in span W, and with D's Hessian where the maximiser's derivatives are too
(second route: central differences of D_W, and §1.7's formulas). The model's own slopes and
Hessian against those differences; its minimiser over the simplex (the master's Newton method on
it) against CVXPY's ``matrix_frac`` on the same data (an SDP, Clarabel through CVXPY's own
canonicalisation).
"""

from __future__ import annotations

import numpy as np
import pytest

from sdpkern.native import hyperkernel_master as hm
from sdpkern.native.fractional_model import MAX_COLUMNS, FractionalModel

RIDGE = 1e-2


def _problem(seed: int, m: int = 40, p: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """p Gaussian kernels of different widths on m random points, a ±1 target, and L (p, 3)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.array([np.exp(-d2 / (2.0 * w)) for w in np.geomspace(0.2, 5.0, p)])
    y = np.sign(X[:, 0] + 0.3 * rng.normal(size=m))
    return K, y, rng.normal(size=(p, 3))


def _D(K: np.ndarray, y: np.ndarray, beta: np.ndarray) -> tuple[float, np.ndarray]:
    """D(β) and its maximiser α = (K(β) + εI)⁻¹y."""
    M = np.tensordot(beta, K, axes=1) + RIDGE * np.eye(y.size)
    alpha = np.linalg.solve(M, y)
    return 0.5 * float(y @ alpha), alpha


def _model(K: np.ndarray, y: np.ndarray, W: np.ndarray) -> FractionalModel:
    model = FractionalModel(y, RIDGE, 1.0)
    model.add(np.arange(K.shape[0]), W, np.einsum("lij,jr->ilr", K, W))
    return model


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_model_is_a_lower_bound_exact_at_its_maximisers(seed: int) -> None:
    K, y, _ = _problem(seed)
    rng = np.random.default_rng(seed + 10)
    points = rng.dirichlet(np.ones(K.shape[0]), size=3)
    alphas = [_D(K, y, b)[1] for b in points]
    model = _model(K, y, np.column_stack(alphas))
    for b in points:  # exact where the maximiser is a column (1e-9 of D: round-off of a 40-point solve)
        D = _D(K, y, b)[0]
        assert abs(model.value(b) - D) <= 1e-9 * D
    for b in rng.dirichlet(np.ones(K.shape[0]), size=20):  # below D elsewhere, and strictly somewhere
        assert model.value(b) <= _D(K, y, b)[0] * (1 + 1e-12)
    gaps = [_D(K, y, b)[0] - model.value(b) for b in rng.dirichlet(np.ones(K.shape[0]), size=5)]
    assert max(gaps) > 1e-3 * _D(K, y, points[0])[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_with_the_maximisers_derivatives_the_model_has_ds_gradient_and_hessian(seed: int) -> None:
    # at β̂, span W holds α and ∂α/∂β_l = −M⁻¹K_lα: D_W's gradient and Hessian there (central
    # differences of D_W, h = 1e-4) equal D's, ∂D/∂β_l = −½αᵀK_lα and H = VᵀM⁻¹V (§1.7), to 1e-5
    # of H's scale
    K, y, _ = _problem(seed)
    p = K.shape[0]
    b = np.random.default_rng(seed).dirichlet(np.ones(p))
    _, alpha = _D(K, y, b)
    M = np.tensordot(b, K, axes=1) + RIDGE * np.eye(y.size)
    V = np.einsum("lij,j->il", K, alpha)
    Z = np.linalg.solve(M, V)
    H = V.T @ Z
    g = -0.5 * V.T @ alpha
    full = _model(K, y, np.column_stack([alpha, Z]))
    bare = _model(K, y, alpha[:, None])
    h = 1e-4
    E = np.eye(p)

    def grad(model: FractionalModel, beta: np.ndarray) -> np.ndarray:
        return np.array([(model.value(beta + h * e) - model.value(beta - h * e)) / (2 * h) for e in E])

    np.testing.assert_allclose(grad(full, b), g, rtol=0, atol=1e-6 * np.abs(g).max())
    Hd = np.column_stack([(grad(full, b + h * e) - grad(full, b - h * e)) / (2 * h) for e in E])
    np.testing.assert_allclose(Hd, H, rtol=0, atol=1e-5 * np.abs(H).max())
    Hb = np.column_stack([(grad(bare, b + h * e) - grad(bare, b - h * e)) / (2 * h) for e in E])
    # without them (α alone: a one-dimensional model) the Hessian is 9-34 % off in Frobenius norm
    assert np.linalg.norm(Hb - H) > 0.05 * np.linalg.norm(H)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("weight", [0.0, 0.5, 20.0])
def test_the_models_minimiser_matches_cvxpys_matrix_frac(seed: int, weight: float) -> None:
    cp = pytest.importorskip("cvxpy")
    K, y, L = _problem(seed)
    p = K.shape[0]
    rng = np.random.default_rng(seed)
    W = np.column_stack([_D(K, y, b)[1] for b in rng.dirichlet(np.ones(p), size=2)])
    model = _model(K, y, W)
    got = hm._model_min_newton(model, np.full(p, 1.0 / p), L, hm._Regulariser(weight, True))
    G = np.einsum("ia,lij,jb->lab", W, K, W)
    beta = cp.Variable(p, nonneg=True)
    A = RIDGE * (W.T @ W) + sum(beta[l] * G[l] for l in range(p))
    A = 0.5 * (A + A.T)
    prob = cp.Problem(cp.Minimize(0.5 * cp.matrix_frac(W.T @ y, A) + weight * cp.sum_squares(L.T @ beta)),
                      [cp.sum(beta) == 1])  # fmt: skip
    prob.solve(solver=cp.CLARABEL)
    J = model.value(got) + weight * float(np.sum((L.T @ got) ** 2))
    # the same minimum to 1e-7 of its value (both interior-point solutions; their β may differ
    # along the flat directions of a minimiser that is not unique)
    assert abs(J - prob.value) <= 1e-7 * abs(prob.value)
    assert np.all(got >= 0) and abs(got.sum() - 1.0) <= 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_the_models_own_derivatives_match_its_differences(seed: int) -> None:
    K, y, _ = _problem(seed)
    p = K.shape[0]
    rng = np.random.default_rng(seed)
    W = np.column_stack([_D(K, y, b)[1] for b in rng.dirichlet(np.ones(p), size=3)])
    model = _model(K, y, W)
    b = rng.dirichlet(np.ones(p))
    value, q, H = model.derivatives(b)
    assert value == pytest.approx(model.value(b), rel=1e-12)
    h, E = 1e-4, np.eye(p)

    def grad(beta: np.ndarray) -> np.ndarray:  # −q: D_W's gradient
        return np.array([(model.value(beta + h * e) - model.value(beta - h * e)) / (2 * h) for e in E])

    np.testing.assert_allclose(-grad(b), q, rtol=0, atol=1e-6 * np.abs(q).max())
    Hd = np.column_stack([(grad(b + h * e) - grad(b - h * e)) / (2 * h) for e in E])
    np.testing.assert_allclose(Hd, H, rtol=0, atol=1e-5 * np.abs(H).max())


def test_the_oldest_columns_go_beyond_the_cap() -> None:
    K, y, _ = _problem(0, m=MAX_COLUMNS + 40)
    p = K.shape[0]
    W = np.random.default_rng(0).normal(size=(y.size, MAX_COLUMNS + 10))
    model = FractionalModel(y, RIDGE, 1.0)
    model.add(np.arange(p), W[:, :20], np.einsum("lij,jr->ilr", K, W[:, :20]))
    model.add(np.arange(p), W[:, 20:], np.einsum("lij,jr->ilr", K, W[:, 20:]))
    assert model.size == MAX_COLUMNS
    kept = W[:, -MAX_COLUMNS:] / np.linalg.norm(W[:, -MAX_COLUMNS:], axis=0)
    np.testing.assert_array_equal(model.W, kept)
    np.testing.assert_allclose(model.G, np.einsum("ia,lij,jb->lab", kept, K, kept, optimize=True), rtol=0, atol=1e-10)


def test_columns_over_other_terms_replace_the_model() -> None:
    K, y, _ = _problem(0)
    model = _model(K, y, _D(K, y, np.full(5, 0.2))[1][:, None])
    assert model.size == 1
    sub = np.array([0, 2])
    alpha = _D(K[sub], y, np.array([0.5, 0.5]))[1]
    model.add(sub, alpha[:, None], np.einsum("lij,j->il", K[sub], alpha)[:, :, None])
    assert model.size == 1 and np.array_equal(model.terms, sub)

"""The β = 0 kernel of f by the shifted factor (``_shifted_kernel``, issue 15) against the echelon
route it replaces where it can (``_echelon_kernel``, 000 Appendix B's basis of 𝒫⊥):

* K̃ = Φ + QLQᵀ from both to 1e-10 relative, on random data (thin-plate orders 2 and 3) and on the
  bench's 400-point wdbc, pima and german sets; the α map of each: Qᵀα = 0 (1e-12 relative to α)
  and Φα = K̃c (1e-9 relative), and the same α (1e-8 relative);
* the route taken: shifted on the bench's sets, the echelon one (with its jitter) on duplicated
  points and on a smooth kernel whose shifted factor has a pivot below ``_SHIFT_PIVOT`` · ρ;
* a first shift below λ_max(L) (not positive definite) and one between λ_max(L) and 2λ_max(L)
  (accepted by the factorisation, refused by the check) are retried at 16ρ and give the same K̃;
* with ``overwrite_phi`` (the factor made in Φ's own storage) the same K̃ bit for bit, and Φ
  restored bit for bit: when the route succeeds, after a retry, and when it gives way;
* the whole β = 0 fit on wdbc by either route: the same objective (1e-10 relative).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from sdpkern.datasets import load_keel
from sdpkern.estimators import ThinPlateSVC
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import PrecomputedGram
from sdpkern.native import dense_cholesky
from sdpkern.native.cpd import newton as cpd_newton
from sdpkern.native.cpd.newton import (
    _echelon_kernel,
    _EchelonKernel,
    _shifted_kernel,
    _ShiftedKernel,
    beta_zero_kernel,
    cpd_beta_zero_svm,
)


def _random(n: int, d: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d))


def _keel(name: str, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    ds = load_keel(name)
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:n]
    X, y = StandardScaler().fit_transform(ds.X[idx]), ds.y[idx]
    return X, np.where(y == np.unique(y)[1], 1.0, -1.0)


def _agree(Phi: np.ndarray, Q: np.ndarray) -> None:
    sh, ec = _shifted_kernel(Phi, Q), _echelon_kernel(Phi, Q)
    assert isinstance(sh, _ShiftedKernel)
    scale = np.abs(ec.K).max()
    assert np.abs(sh.K - ec.K).max() <= 1e-10 * scale
    c = np.random.default_rng(1).normal(size=Phi.shape[0])
    a_sh, a_ec = sh.coefficients(Phi, c), ec.coefficients(Phi, c)
    assert np.abs(Q.T @ a_sh).max() <= 1e-12 * np.abs(a_sh).max()
    Kc = ec.K @ c
    assert np.abs(Phi @ a_sh - Kc).max() <= 1e-9 * np.abs(Kc).max()
    assert np.abs(a_sh - a_ec).max() <= 1e-8 * np.abs(a_ec).max()


KERNELS = [(2, ThinPlate(2)), (5, ThinPlate(2, formula_dimension=2)), (3, ThinPlate(3))]


@pytest.mark.parametrize(("d", "kernel"), KERNELS)
def test_shifted_kernel_matches_the_echelon_route_on_random_data(d, kernel):
    X = _random(150, d, seed=d)
    _agree(kernel(X), polynomial_factor(X, kernel).Q)


@pytest.mark.parametrize("name", ["wdbc", "pima", "german"])
def test_shifted_kernel_matches_the_echelon_route_on_the_bench_sets(name):
    X, _ = _keel(name)
    kernel = ThinPlateSVC()._kernel()
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    _agree(Phi, Q)
    assert isinstance(beta_zero_kernel(Phi, Q), _ShiftedKernel)


def test_duplicated_points_take_the_echelon_route_with_its_jitter():
    X = _random(80, 2, seed=3)
    X = np.vstack([X, X[:10]])
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    assert _shifted_kernel(Phi, Q) is None
    bz = beta_zero_kernel(Phi, Q)
    assert isinstance(bz, _EchelonKernel) and bz.jitter > 0.0


def test_a_small_pivot_gives_way_to_the_echelon_route():
    # thin-plate of order 3 in R² on 400 banana points: the null-space Gram's small eigenvalues sit
    # next to ρ in Φ_ρ (measured pivot² / ρ ≈ 5e-14); the echelon factor holds that Gram alone
    X = load_keel("banana").X[:400]
    kernel = ThinPlate(3)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    assert _shifted_kernel(Phi, Q) is None
    assert isinstance(beta_zero_kernel(Phi, Q), _EchelonKernel)


@pytest.mark.parametrize("first", [0.25, 1.5])  # × λ_max(L): not positive definite; refused by the check
def test_a_first_shift_too_small_is_retried_farther_out(monkeypatch, first):
    X = _random(120, 3, seed=7)
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    ec = _echelon_kernel(Phi, Q)
    lmax = float(np.linalg.eigvalsh(ec.L)[-1])
    monkeypatch.setattr(cpd_newton, "_SHIFT", first * lmax / (Phi.shape[0] * np.abs(Phi).max()))
    calls = []

    def counted(A, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(A.shape[0])
        return dense_cholesky.cho_factor(A, *args, **kwargs)

    monkeypatch.setattr(cpd_newton, "cho_factor", counted)
    sh = _shifted_kernel(Phi, Q)
    assert isinstance(sh, _ShiftedKernel)
    assert calls == [120, 120]  # the first shift refused, the second (16ρ) taken
    assert np.abs(sh.K - ec.K).max() <= 1e-10 * np.abs(ec.K).max()


def test_the_beta_zero_fit_is_the_same_by_either_route(monkeypatch):
    X, y = _keel("wdbc")
    kernel = ThinPlateSVC()._kernel()
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    shifted = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1.0)
    monkeypatch.setattr(cpd_newton, "_shifted_kernel", lambda Phi, Q, overwrite_phi=False: None)
    echelon = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1.0)
    assert shifted.converged and echelon.converged
    assert abs(shifted.objective - echelon.objective) <= 1e-10 * echelon.objective
    assert np.abs(shifted.f - echelon.f).max() <= 1e-8 * np.abs(echelon.f).max()


@pytest.mark.parametrize("case", ["taken", "retried", "given_way"])
def test_overwrite_phi_restores_phi_bit_for_bit(monkeypatch, case):
    X = _random(120, 3, seed=7)
    if case == "given_way":
        X = np.vstack([X, X[:5]])  # duplicated points: Φ_ρ singular, the echelon route decides
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    if case == "retried":
        lmax = float(np.linalg.eigvalsh(_echelon_kernel(Phi, Q).L)[-1])
        monkeypatch.setattr(cpd_newton, "_SHIFT", 0.25 * lmax / (Phi.shape[0] * np.abs(Phi).max()))
    before = Phi.copy()
    ref = _shifted_kernel(Phi, Q)
    assert np.array_equal(Phi, before)  # (the copy route never writes Φ)
    got = _shifted_kernel(Phi, Q, overwrite_phi=True)
    assert np.array_equal(Phi, before)
    if case == "given_way":
        assert ref is None and got is None
    else:
        assert ref is not None and got is not None
        assert np.array_equal(got.L, ref.L) and np.array_equal(got.G, ref.G)


def test_the_estimator_leaves_its_cached_phi_as_the_kernel_made_it():
    # the β = 0 route uses the workspace's Φ as work space and must restore it bit for bit: the
    # next fit with the same memory reads it
    from sdpkern.native.cpd import CPDMemory

    X, y = _keel("wdbc")
    memory = CPDMemory()
    model = ThinPlateSVC(C=1.0, memory=memory).fit(X, y)
    assert model.beta_zero_ and model.solver_ == "beta_zero"
    (ws,) = memory._kept.values()
    assert np.array_equal(ws.dense().K, ThinPlateSVC()._kernel()(X / model.scale_))

"""Pseudo-Euclidean embedding (001 Prop. 1, App. A), eq. (12), suitability (001 §6), spectrum repairs."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from sdpkern._validation import check_psd
from sdpkern.errors import DataError, NotPSDError, ParameterError
from sdpkern.kernels import Epanechnikov, Gaussian, Linear, Sigmoid, SquaredEuclidean, squared_distances
from sdpkern.kernels.spectrum import center_kernel, eigen_signature, repair_spectrum
from sdpkern.native.pseudo_euclidean import (
    induced_squared_distances,
    kernel_suitability,
    pseudo_euclidean_embedding,
    svm_suitability,
    wMw,
)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _X(n: int = 60, d: int = 3, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d))


def _labels(X: np.ndarray) -> np.ndarray:
    return np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)


KERNELS = {
    "sigmoid": Sigmoid(gamma=0.5, coef0=-1.0),
    "epanechnikov": Epanechnikov(sigma=4.0),
    "sqeuclidean": SquaredEuclidean(),
    "gaussian": Gaussian(gamma=0.5),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_embedding_reproduces_squared_distances(name: str) -> None:
    """Acceptance: the embedding reproduces the input squared distances to 1e-8."""
    X = _X()
    K = KERNELS[name](X)
    D = induced_squared_distances(K)
    emb = pseudo_euclidean_embedding(K)
    scale = max(1.0, np.abs(D).max())
    assert np.abs(emb.squared_distances() - D).max() <= 1e-8 * scale
    # the same from the squared-distance matrix itself
    emb_d = pseudo_euclidean_embedding(squared_distances=D)
    assert np.abs(emb_d.squared_distances() - D).max() <= 1e-8 * scale
    assert emb_d.signature == emb.signature


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_signature_is_the_centred_kernels_eigenvalue_signs(name: str) -> None:
    """Acceptance: (p, q) = numbers of positive / negative eigenvalues of J K J."""
    X = _X(seed=1)
    K = KERNELS[name](X)
    emb = pseudo_euclidean_embedding(K)
    lam = np.linalg.eigvalsh(center_kernel(K))
    thr = 1e-10 * np.abs(lam).max()
    assert emb.signature == (int(np.sum(lam > thr)), int(np.sum(lam < -thr)))
    assert emb.signature == eigen_signature(center_kernel(K)).pq
    assert emb.p + emb.q < K.shape[0]  # J has eigenvalue 0 (001 App. A)
    if name == "gaussian":
        assert emb.q == 0
    if name in ("sigmoid", "sqeuclidean"):
        assert emb.q > 0
    # centred, and the inner products are the centred kernel
    np.testing.assert_allclose(emb.coordinates.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(emb.inner(emb.coordinates), center_kernel(K), atol=1e-8 * np.abs(K).max())


def test_euclidean_distances_embed_in_euclidean_space() -> None:
    X = _X(n=30, d=4)
    emb = pseudo_euclidean_embedding(squared_distances=squared_distances(X))
    assert emb.signature == (4, 0)


def test_transform_of_training_points_gives_the_coordinates() -> None:
    X = _X(n=40)
    K = Sigmoid(gamma=0.5, coef0=-1.0)(X)
    emb = pseudo_euclidean_embedding(K)
    np.testing.assert_allclose(emb.transform(K), emb.coordinates, atol=1e-8)


@pytest.mark.parametrize("name", ["sigmoid", "epanechnikov", "sqeuclidean"])
def test_wMw_eq12_equals_the_embedding_value(name: str) -> None:
    """Acceptance: wᵀMw by 001 eq. (12) equals the squared norm of w in R^(p,q) to 1e-8."""
    X = _X(seed=2)
    y = _labels(X)
    K = KERNELS[name](X)
    svc = SVC(kernel="precomputed", C=1.0).fit(K, y)
    c = np.zeros(X.shape[0])
    c[svc.support_] = svc.dual_coef_[0]
    assert abs(c.sum()) < 1e-8  # Σ α_i y_i = 0, which eq. (12) needs
    emb = pseudo_euclidean_embedding(K)
    w = c @ emb.coordinates  # w = Σ α_i y_i Φ(x_i)
    in_embedding = float(emb.inner(w[None, :], w[None, :])[0, 0])
    assert abs(wMw(K, c) - in_embedding) <= 1e-8 * max(1.0, abs(in_embedding))


def test_negative_kernel_is_flagged_before_training() -> None:
    """Acceptance: −k with k p.d. is flagged unsuitable before training (001 §6)."""
    X = _X(seed=3)
    for k in (Gaussian(gamma=0.5), Linear()):
        report = kernel_suitability(-k(X))
        assert not report.suitable and report.n_positive == 0
        assert "no positive eigenvalue" in report.reasons[0]
        assert kernel_suitability(k(X)).suitable


def test_svm_suitability_report() -> None:
    X = _X(seed=4)
    y = _labels(X)
    K = Gaussian(gamma=0.5)(X)
    svc = SVC(kernel="precomputed", C=1.0).fit(K, y)
    c = np.zeros(X.shape[0])
    c[svc.support_] = svc.dual_coef_[0]
    rep = svm_suitability(K, c, 1.0)
    assert rep.suitable and rep.wMw > 0 and rep.wMw_sign == 1 and rep.n_negative == 0
    assert rep.bounded_sv_ratio == pytest.approx(np.mean(np.abs(c) >= 1.0 - 1e-8))
    # −K: wᵀMw ≤ 0 for any c with Σ c_i = 0
    bad = svm_suitability(-K, c, 1.0)
    assert not bad.suitable and bad.wMw < 0 and bad.wMw_sign == -1
    # many bounded coefficients only add a note
    noted = svm_suitability(K, c, 1.0, max_bounded_ratio=0.0)
    assert noted.suitable and "at the bound C" in noted.notes[0]


# --- spectrum repairs ------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["clip", "flip", "shift", "square"])
def test_repairs_are_psd_and_keep_eigenvectors(method: str) -> None:
    K = Sigmoid(gamma=0.5, coef0=-1.0)(_X(seed=5))
    lam, U = np.linalg.eigh(K)
    R = repair_spectrum(K, method)
    check_psd(R, "R", tol=1e-10)
    expected = {"clip": np.clip(lam, 0, None), "flip": np.abs(lam), "shift": lam - lam[0], "square": lam**2}[method]
    np.testing.assert_allclose(np.diag(U.T @ R @ U), expected, atol=1e-9 * np.abs(expected).max())
    if method == "square":
        np.testing.assert_allclose(R, K @ K, atol=1e-10 * np.abs(K @ K).max())


def test_clip_is_identity_on_psd() -> None:
    K = Gaussian(gamma=0.5)(_X(seed=6))
    np.testing.assert_allclose(repair_spectrum(K, "clip"), K, atol=1e-10)


# --- bad input -------------------------------------------------------------------------------


def test_squared_distances_with_nonzero_diagonal_are_refused() -> None:
    D = squared_distances(_X(n=10))
    D[3, 3] = 0.5
    with pytest.raises(DataError, match="squared_distances must have a zero diagonal"):
        pseudo_euclidean_embedding(squared_distances=D)


def test_non_symmetric_inputs_are_refused() -> None:
    D = squared_distances(_X(n=10))
    D[0, 1] += 1.0
    with pytest.raises(DataError, match="squared_distances must be symmetric"):
        pseudo_euclidean_embedding(squared_distances=D)
    with pytest.raises(DataError, match="kernel must be symmetric"):
        pseudo_euclidean_embedding(D)
    with pytest.raises(ParameterError, match="exactly one of"):
        pseudo_euclidean_embedding()


def test_indefinite_where_psd_required_names_min_eigenvalue_and_repairs() -> None:
    K = Sigmoid(gamma=0.5, coef0=-1.0)(_X(seed=7))
    with pytest.raises(NotPSDError, match=r"smallest eigenvalue -.*repair_spectrum.*clip.*flip.*shift.*square") as e:
        check_psd(K, "K")
    assert e.value.min_eigenvalue == pytest.approx(np.linalg.eigvalsh(K)[0])
    check_psd(repair_spectrum(K, "clip"), "K", tol=1e-10)  # the named repair works


def test_repair_method_errors() -> None:
    with pytest.raises(ParameterError, match="method must be one of"):
        repair_spectrum(np.eye(2), "abs")
    with pytest.raises(DataError, match="K must be symmetric"):
        repair_spectrum(np.array([[1.0, 2.0], [0.0, 1.0]]))

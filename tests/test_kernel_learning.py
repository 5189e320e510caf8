"""The default hyperkernel learner learns: the dictionary of widths × feature relevances (002 eq. 2.23).

Checks, each against a second route: the dictionary's kernels (compiled loops against the NumPy
``combine``; the width ladder's mean against the previous default's first term), the HSIC screen
(selection and its level on independent data), the native master against Clarabel on the
dictionary's basis, and what the learner does with it (β spreads; noise features are ranked
below the real ones; no default fit collapses; a pair hyperkernel's collapse warns).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sdpkern.builders.hyperkernel import csvm
from sdpkern.datasets import load_keel
from sdpkern.errors import DataError, DegenerateKernelWarning, ParameterError
from sdpkern.estimators import HyperkernelSVC
from sdpkern.kernels import ARDDictionary, HarmonicARD
from sdpkern.kernels.hyperkernel_terms import (
    TermGram,
    learned_block,
    sampled_basis,
    term_block,
    term_quadratics,
)
from sdpkern.kernels.lowrank import hyperkernel_basis
from sdpkern.kernels.relevance import hsic_screen
from sdpkern.native.hyperkernel_master import hyperkernel_csvm_native


def _split(name: str, seed: int, m: int, noise: int = 0) -> tuple[np.ndarray, ...]:
    ds = load_keel(name)
    Xtr, Xte, ytr, yte = train_test_split(ds.X, ds.y, train_size=m, random_state=seed, stratify=ds.y)
    if noise:
        rng = np.random.default_rng(seed)
        Xtr = np.hstack([Xtr, rng.standard_normal((Xtr.shape[0], noise))])
        Xte = np.hstack([Xte, rng.standard_normal((Xte.shape[0], noise))])
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte[:600]), ytr, yte[:600]


def test_dictionary_terms_are_unit_diagonal_orthonormal_and_the_ladder_mean_is_the_previous_first_term():
    X = np.random.default_rng(0).normal(size=(40, 3))
    hk = ARDDictionary(relevances=[[1.0, 1.0, 1.0], [1.0, 0.0, 0.5]], normalization=None).fitted(X)
    B = hk.basis(X)
    assert B.size == 12 and np.array_equal(B.L, np.eye(12))
    K = B.kernels()
    assert np.allclose(np.diagonal(K, axis1=1, axis2=2), 1.0)
    assert all(np.linalg.eigvalsh(k).min() > -1e-10 for k in K)
    # the uniform mixture of the first relevance vector's widths is HarmonicARD(scales="ladder")'s
    # base kernel at a diagonal pair (002 eq. 2.22), the previous default's first term, exactly
    old = HarmonicARD(scales="ladder", widths=hk.widths).base_kernel(np.zeros(3), np.zeros(3), X)
    np.testing.assert_allclose(K[:6].mean(axis=0), old, rtol=1e-13, atol=1e-15)
    # relevance 0 ignores a feature: moving x along it leaves every kernel of that vector unchanged
    Y = X.copy()
    Y[:, 1] += 5.0
    np.testing.assert_allclose(term_block(hk, B.features[6:], X, Y), term_block(hk, B.features[6:], X, X), atol=1e-14)
    # the bases of 002 §3.2.1 return the dictionary itself
    assert np.array_equal(hyperkernel_basis(hk, X).features, B.features)
    assert np.array_equal(sampled_basis(hk, X).features, B.features)


def test_centred_weights_give_every_term_unit_centred_trace():
    X = np.random.default_rng(3).normal(size=(60, 4))
    plain = ARDDictionary(normalization=None).fitted(X).basis(X).kernels()
    B = ARDDictionary().fitted(X).basis(X)
    K = B.kernels()
    H = np.eye(60) - 1.0 / 60
    # w_i K_i: the weight is the last feature column, and L = diag(√w) factors the term block
    w = B.features[:, -1]
    np.testing.assert_allclose(K, w[:, None, None] * plain, rtol=1e-12)
    np.testing.assert_allclose(np.einsum("ij,lji->l", H, K @ H), 60.0, rtol=1e-10)
    np.testing.assert_allclose(B.L @ B.L.T, np.diag(w), rtol=1e-14)
    # narrow widths have little mean kernel and so small weights; the widest the largest
    assert np.all(w >= 1.0) and w[np.argmin(B.features[:, 0])] == w.max()


def test_compiled_dictionary_loops_match_the_numpy_combine():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(30, 4)), rng.normal(size=(7, 4))
    hk = ARDDictionary(relevances=[[1, 1, 1, 1], [0.2, 1, 0, 0.7]]).fitted(X)
    F = hk.basis(X).features  # inverse widths and the centred weight
    by_combine = np.stack([hk.combine(g, hk.gram_features(X, Y)) for g in F])
    np.testing.assert_allclose(term_block(hk, F, X, Y), by_combine, rtol=1e-12)
    beta = rng.random(F.shape[0])
    np.testing.assert_allclose(learned_block(hk, F, beta, X, Y), np.tensordot(beta, by_combine, 1), rtol=1e-12)
    np.testing.assert_allclose(TermGram(hk, F[9], X).to_dense(), hk.combine(F[9], hk.gram_features(X)), rtol=1e-12)
    u = rng.normal(size=30)
    K = np.stack([hk.combine(g, hk.gram_features(X)) for g in F])
    np.testing.assert_allclose(term_quadratics(hk, F, X, u), 0.5 * np.einsum("lij,i,j->l", K, u, u), rtol=1e-11)


def test_dictionary_parameters_are_checked():
    with pytest.raises(ParameterError, match="relevances"):
        ARDDictionary(relevances=[[1.0, 2.0]]).fitted(np.ones((5, 2)) * np.arange(5)[:, None])
    with pytest.raises(ParameterError, match="relevances"):
        ARDDictionary(relevances=[[0.0, 0.0]]).fitted(np.arange(10.0).reshape(5, 2))
    with pytest.raises(ParameterError, match="relevances"):
        ARDDictionary(relevances=[[1.0, 1.0, 1.0]]).fitted(np.arange(10.0).reshape(5, 2))
    with pytest.raises(ParameterError, match="lambda_h"):
        ARDDictionary(lambda_h=1.5)


def test_hsic_screen_selects_the_dependent_features_and_holds_its_level():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    labels = np.where(X[:, 0] + X[:, 3] ** 2 > 1.0, "a", "b")  # a monotone and an even dependence
    assert hsic_screen(X, labels).selected.tolist() == [True, False, False, True, False, False]
    z = np.sin(2 * X[:, 2]) + 0.1 * rng.normal(size=300)
    reg = hsic_screen(X, z, classification=False)
    assert reg.selected[2] and reg.pvalue[2] < 1e-20  # (the level on independent data is checked below)
    # independent data: at level 0.05 the screen selects nothing in at least 95% of draws
    # (Bonferroni over d features); 200 draws, 5 features each
    hits = sum(
        hsic_screen(r.normal(size=(80, 5)), r.integers(0, 2, 80), level=0.05).selected.any()
        for r in (np.random.default_rng(100 + s) for s in range(200))
    )
    assert hits <= 20
    with pytest.raises(DataError):
        hsic_screen(X, labels[:10])


@pytest.mark.parametrize(("name", "seed"), [("heart", 0), ("thyroid", 1), ("wdbc", 2)])
def test_native_master_matches_clarabel_on_the_dictionary(name, seed):
    X, _, y, _ = _split(name, seed, 80)
    est = HyperkernelSVC()
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    B = est._basis(X, y_pm)
    lam = est._lambda_Q(B, None)
    native = hyperkernel_csvm_native(B, y_pm, C=1.0, lambda_Q=lam)
    conic = csvm(X, y_pm, B.hyperkernel, basis=B, C=1.0, lambda_Q=lam).solve(method="direct")
    assert native.status == conic.status == "optimal"
    assert abs(native.objective - conic.objective) <= 1e-6 * abs(conic.objective)
    # β itself is determined only up to the optimum's flat directions (neighbouring widths' kernels
    # are nearly collinear: heart moved 2.5e-3 of weight between the two narrowest at equal objective)
    assert np.abs(native.beta - conic.beta).sum() <= 2e-2


def test_default_learner_spreads_beta_and_reports_what_it_learned():
    X, Xt, y, yt = _split("pima", 0, 300)
    clf = HyperkernelSVC().fit(X, y)
    assert clf.status_ == "optimal" and np.sum(clf.beta_ > 1e-6) >= 2
    R = clf.relevances_
    assert clf.kernel_weights_.shape == (R.shape[0], 6)
    assert clf.width_weights_.sum() == pytest.approx(1.0) and np.all(clf.width_weights_ >= 0)
    np.testing.assert_allclose(clf.feature_relevance_, clf.kernel_weights_.sum(axis=1) @ R)
    assert np.all((0 <= clf.feature_relevance_) & (clf.feature_relevance_ <= 1 + 1e-12))
    assert clf.lambda_Q_ > 0
    assert len(pickle.dumps(clf)) < 1 << 20  # what predict needs, not m×m matrices


@pytest.mark.parametrize("name", ["heart", "thyroid"])
def test_noise_features_are_ranked_below_the_real_ones_and_barely_hurt(name):
    X, Xt, y, yt = _split(name, 0, 150)
    d = X.shape[1]
    Xn, Xtn, _, _ = _split(name, 0, 150, noise=40)
    clean = HyperkernelSVC().fit(X, y)
    noisy = HyperkernelSVC().fit(Xn, y)
    rel = noisy.feature_relevance_
    auc = np.mean((rel[:d, None] > rel[None, d:]) + 0.5 * (rel[:d, None] == rel[None, d:]))
    assert auc >= 0.75
    assert rel[d:].max() <= rel[:d].max()
    # the RBF SVC at scikit-learn's default γ on the same data: noise hurts it more
    rise = (1 - noisy.score(Xtn, yt)) - (1 - clean.score(Xt, yt))
    svc_rise = (1 - SVC().fit(Xn, y).score(Xtn, yt)) - (1 - SVC().fit(X, y).score(Xt, yt))
    assert rise < max(svc_rise, 0.02)


def test_no_default_fit_collapses_and_a_collapsing_lambda_Q_is_corrected_with_a_warning():
    for name, seed in [("pima", 0), ("heart", 1), ("breast", 2), ("german", 3), ("glass", 4), ("sonar", 5)]:
        X, Xt, y, yt = _split(name, seed, 150)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DegenerateKernelWarning)
            clf = HyperkernelSVC().fit(X, y)
        assert np.unique(clf.predict(Xt)).size == 2, name
    # a λ_Q far above the ladder's entry threshold collapses its learned kernel: corrected, with a warning
    X, Xt, y, _ = _split("pima", 0, 300)
    ladder = HarmonicARD(scales="ladder")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateKernelWarning)
        est = HyperkernelSVC(hyperkernel=ladder, lambda_Q=3000.0)
        est._LAMBDA_Q_CORRECTIONS = 0  # the uncorrected fit: one class for every training point
        assert np.unique(est.fit(X, y).predict(X)).size == 1
    with pytest.warns(DegenerateKernelWarning, match=r"lambda_Q = 3000.*corrected to lambda_Q = (300|30|3)\b"):
        clf = HyperkernelSVC(hyperkernel=ladder, lambda_Q=3000.0).fit(X, y)
    assert clf.lambda_Q_ < 3000.0 and np.unique(clf.predict(X)).size == 2 and np.unique(clf.predict(Xt)).size == 2


def test_one_vs_rest_reports_the_mean_relevance_of_its_models():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::2]
    clf = HyperkernelSVC().fit(X, y[::2])
    assert len(clf.estimators_) == 3
    np.testing.assert_allclose(clf.feature_relevance_, np.mean([m.feature_relevance_ for m in clf.estimators_], axis=0))
    assert clf.width_weights_.sum() == pytest.approx(1.0)

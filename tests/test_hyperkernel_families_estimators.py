"""Every hyperkernel estimator on its native route: bad input, memory, time limit, pickle size.

The rules are HyperkernelSVC's (tests/test_hyperkernel_native.py), checked here for each family:
a typed error naming the argument before any work; InsufficientMemoryError naming m before the
basis is allocated; a time limit hit mid-fit keeps the last point with its gap and a
ConvergenceWarning and refuses to serve it; a fitted model keeps what its serving methods need
(no m×m matrix), so it pickles small.
"""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import sdpkern.estimators.hyperkernel as hk_est
from sdpkern.datasets import load_keel
from sdpkern.errors import DataError, InsufficientMemoryError, LabelError, ParameterError, UncertifiedModelError
from sdpkern.estimators import (
    HyperkernelAlignment,
    HyperkernelL2SVC,
    HyperkernelNuSVC,
    HyperkernelNuSVR,
    HyperkernelOneClassSVM,
    HyperkernelSVC,
)
from sdpkern.kernels.hyperkernels import HarmonicARD


def _data(m: int, name: str = "pima") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = load_keel(name)
    idx = np.random.default_rng(0).permutation(d.X.shape[0])[:m]
    X = (d.X[idx] - d.X[idx].mean(0)) / (d.X[idx].std(0) + 1e-12)
    y = np.where(d.y[idx] > 0, 1.0, -1.0)
    return X, y, X[:, 0] + np.sin(X[:, 1])  # a smooth regression target of the features


_ESTIMATORS = (HyperkernelSVC, HyperkernelNuSVC, HyperkernelL2SVC, HyperkernelOneClassSVM, HyperkernelNuSVR,
               HyperkernelAlignment)  # fmt: skip


def _fit(cls: type, X: np.ndarray, y: np.ndarray, z: np.ndarray, **params: Any) -> Any:
    est = cls(**params)
    if cls is HyperkernelOneClassSVM:
        return est.fit(X)
    return est.fit(X, z if cls is HyperkernelNuSVR else y)


def _serve(est: Any, X: np.ndarray) -> np.ndarray:
    if isinstance(est, HyperkernelAlignment):
        return np.asarray(est.transform(X))
    if isinstance(est, HyperkernelNuSVR):
        return np.asarray(est.predict(X))
    return np.asarray(est.decision_function(X))


@pytest.mark.parametrize("cls", _ESTIMATORS)
def test_default_fit_is_native_certified_and_pickles_under_a_mebibyte(cls):
    X, y, z = _data(240)
    est = _fit(cls, X, y, z)
    assert est.solver_ == "native" and est.status_ == "optimal"
    assert est.certificate_["measure"] == "relative duality gap" and est.certificate_["value"] <= 1e-6
    assert np.isfinite(est.objective_)
    blob = pickle.dumps(est)
    assert len(blob) < 1 << 20, len(blob)
    clone = pickle.loads(blob)
    np.testing.assert_array_equal(_serve(clone, X[:20]), _serve(est, X[:20]))


@pytest.mark.slow
@pytest.mark.parametrize("cls", _ESTIMATORS)
@pytest.mark.parametrize("route", ["conic", "native"])
def test_pair_hyperkernel_fit_pickles_under_a_mebibyte(cls, route):
    # the thesis' pair hyperkernel: the conic route's basis holds a (p, m, m) stack of term kernels
    # while fitting; the fitted model must not
    X, y, z = _data(240)
    est = _fit(cls, X, y, z, hyperkernel=HarmonicARD(0.6, "auto", (1.0,)), solver=route)
    assert est.solver_ == route and est.status_ == "optimal"
    assert len(pickle.dumps(est)) < 1 << 20


@pytest.mark.parametrize("cls", _ESTIMATORS)
def test_time_limit_mid_fit_keeps_the_last_point_and_refuses_to_serve_it(cls):
    X, y, z = _data(80)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est = _fit(cls, X, y, z, lambda_Q=100.0, solver="native", solver_options={"time_limit": 0.0})
    assert est.status_ == "time_limit"
    assert any(issubclass(w.category, ConvergenceWarning) and "time_limit" in str(w.message) for w in rec)
    assert est.certificate_["value"] > 0 and np.isfinite(est.objective_)
    assert np.isfinite(est.beta_).all()
    with pytest.raises(UncertifiedModelError, match="status_='time_limit'"):
        _serve(est, X[:5])


@pytest.mark.parametrize("cls", _ESTIMATORS)
def test_memory_beyond_ram_is_refused_before_the_basis(cls, monkeypatch):
    monkeypatch.setattr(hk_est, "available_memory", lambda: 10**6)
    built = []
    monkeypatch.setattr(hk_est.ARDDictionary, "basis", lambda *a, **k: built.append(1))
    X, y, z = _data(300)
    with pytest.raises(InsufficientMemoryError, match="m = 300") as info:
        _fit(cls, X, y, z, solver="native")
    assert info.value.n_samples == 300 and info.value.estimate_bytes > 10**6
    assert not built


def test_alignment_memory_estimate_counts_its_dense_matrices():
    m = 20_000
    kw: dict[str, Any] = {"solver": "native", "max_terms": 150, "max_pairs": 5000, "cache_bytes": 1 << 30}
    assert hk_est.estimate_fit_bytes(m, 10, dense=True, **kw) >= 2 * 8 * m * m  # K(beta) + ridge I, its factor
    assert hk_est.estimate_fit_bytes(m, 10, **kw) < 2 * 8 * m * m


def test_column_cache_holds_every_column_of_the_learned_kernel_by_default(monkeypatch):
    from types import SimpleNamespace

    from sdpkern.kernels.gram import DEFAULT_CACHE_BYTES
    from sdpkern.native import hyperkernel_master as hm

    m = 20_000
    budget = hm.column_cache_bytes(m)
    opts = hm._master_options(SimpleNamespace(X=np.empty((m, 1)), size=12), 12, budget, 1e-7, 10, 1)
    assert opts["sum_cache_bytes"] >= 8 * m * m  # K(beta)'s m columns
    assert hm.column_cache_bytes(5000) == DEFAULT_CACHE_BYTES  # they fit in 1 GiB already
    assert hm.column_cache_bytes(m, dense=True) == DEFAULT_CACHE_BYTES  # the alignment reads no columns
    assert hm.column_cache_bytes(40_000) == DEFAULT_CACHE_BYTES  # the working sets' SMO has its own
    assert hm.column_cache_bytes(m, 1 << 28) == 1 << 28
    # the estimator's memory check counts the default: at 12,000 points K(beta)'s columns (1.3 GB),
    # then half the cache beside the Newton step's matrix (1.15 GB): about 1.9 GB, 1.4 GB with 256 MiB
    monkeypatch.setattr(hk_est, "available_memory", lambda: 16 * 10**8)

    class Built(Exception):
        pass

    def stop(*a, **k):
        raise Built

    monkeypatch.setattr(hk_est.ARDDictionary, "basis", stop)
    X = np.random.default_rng(0).normal(size=(12_000, 3))
    with pytest.raises(InsufficientMemoryError, match="m = 12000"):
        HyperkernelNuSVR(solver="native").fit(X, X[:, 0])
    with pytest.raises(Built):
        HyperkernelNuSVR(solver="native", solver_options={"cache_bytes": 1 << 28}).fit(X, X[:, 0])


def test_a_cache_too_small_for_one_request_names_cache_bytes():
    X, y, z = _data(200)
    with pytest.raises(ParameterError, match=r"holds \d+ columns of 200 entries.*raise cache_bytes"):
        # no Newton steps (newton_points 0): the SMO alone reads K(β) through its cache (the
        # face steps' and the cold start's factorisations read the pairs directly)
        HyperkernelNuSVR(solver="native", solver_options={"cache_bytes": 8 * 200 * 3, "newton_points": 0}).fit(X, z)


@pytest.mark.parametrize("nu", [0.0, -0.2, 1.01, 2.0])
@pytest.mark.parametrize("cls", [HyperkernelNuSVC, HyperkernelOneClassSVM, HyperkernelNuSVR])
def test_nu_outside_zero_one_is_refused(cls, nu):
    X, y, z = _data(40)
    with pytest.raises(ParameterError, match="nu"):
        _fit(cls, X, y, z, nu=nu)


@pytest.mark.parametrize("solver", ["native", "conic"])
def test_nu_infeasible_for_the_class_balance_names_the_range(solver):
    X, y, z = _data(60)
    y = np.where(np.arange(60) < 9, 1.0, -1.0)  # 9 of 60 positive: nu <= 2 * 9 / 60 = 0.3
    with pytest.raises(ParameterError, match=r"nu=0\.5 is infeasible.*2 min\(m\+, m-\)/m = 0\.3\b.*9 and 51"):
        HyperkernelNuSVC(nu=0.5, solver=solver).fit(X, y)
    assert HyperkernelNuSVC(nu=0.25, solver=solver).fit(X, y).status_ == "optimal"


@pytest.mark.parametrize("solver", ["native", "conic"])
def test_one_class_on_one_point_is_refused(solver):
    with pytest.raises(DataError, match="at least 2 samples.*got 1"):
        HyperkernelOneClassSVM(solver=solver).fit(np.zeros((1, 3)))


@pytest.mark.parametrize("cls", [HyperkernelNuSVR, HyperkernelAlignment])
@pytest.mark.parametrize("solver", ["native", "conic"])
def test_constant_or_nan_regression_targets_are_refused(cls, solver):
    X, _, z = _data(40)
    with pytest.raises(LabelError, match="constant"):
        cls(solver=solver).fit(X, np.full(40, 2.5))
    bad = z.copy()
    bad[7] = np.nan
    with pytest.raises((DataError, ValueError), match="NaN"):
        cls(solver=solver).fit(X, bad)


def test_native_needs_the_socp_form_and_the_alignment_a_ridge():
    X, y, z = _data(40)
    with pytest.raises(ParameterError, match="form='socp'"):
        HyperkernelNuSVC(form="sdp", solver="native").fit(X, y)
    with pytest.raises(ParameterError, match="ridge > 0"):
        HyperkernelAlignment(ridge=0.0, solver="native").fit(X, y)
    assert HyperkernelAlignment(ridge=0.0).fit(X, y).solver_ == "conic"  # auto: the conic route

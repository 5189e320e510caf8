"""Rank-one update/downdate and expansion/deletion of an upper Cholesky factor (000 Appendix B)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpkern.errors import DataError, NotPSDError
from sdpkern.native.cpd.newton import chol_append, chol_delete, chol_downdate, chol_update


def _spd(n: int, seed: int, cond: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    return B @ B.T + cond * n * np.eye(n)


def _factor(A):
    return np.linalg.cholesky(A).T


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 10_000))
def test_update_then_downdate(n, seed):
    A = _spd(n, seed)
    x = np.random.default_rng(seed + 1).normal(size=n) * 3
    R1 = chol_update(_factor(A), x)
    assert np.allclose(np.tril(R1, -1), 0.0)
    np.testing.assert_allclose(R1.T @ R1, A + np.outer(x, x), rtol=1e-12, atol=1e-10 * np.abs(A).max())
    # the factor with positive diagonal is unique: compare with refactorising
    np.testing.assert_allclose(R1, _factor(A + np.outer(x, x)), rtol=1e-9, atol=1e-9)
    R2 = chol_downdate(R1, x)
    np.testing.assert_allclose(R2, _factor(A), rtol=1e-8, atol=1e-8)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 10_000), data=st.data())
def test_append_and_delete(n, seed, data):
    A = _spd(n + 1, seed)
    R = _factor(A[:n, :n])
    Rn = chol_append(R, A[:n, n], A[n, n])
    np.testing.assert_allclose(Rn, _factor(A), rtol=1e-10, atol=1e-10)
    i = data.draw(st.integers(0, n))
    keep = np.r_[0:i, i + 1 : n + 1]
    Rd = chol_delete(_factor(A), i)
    np.testing.assert_allclose(Rd, _factor(A[np.ix_(keep, keep)]), rtol=1e-9, atol=1e-9)


def test_many_modifications_stay_accurate():
    """200 mixed updates/downdates (as in a Newton run) drift by < 1e-9 relative."""
    rng = np.random.default_rng(0)
    n = 60
    A = _spd(n, 3)
    R = _factor(A)
    pool = rng.normal(size=(100, n))
    active = []
    for _ in range(200):
        if active and rng.random() < 0.5:
            j = active.pop(rng.integers(len(active)))
            R = chol_downdate(R, pool[j])
            A = A - np.outer(pool[j], pool[j])
        else:
            j = int(rng.integers(100))
            active.append(j)
            R = chol_update(R, pool[j])
            A = A + np.outer(pool[j], pool[j])
    np.testing.assert_allclose(R.T @ R, A, rtol=1e-9, atol=1e-9 * np.abs(A).max())


def test_downdate_that_loses_definiteness_is_refused():
    A = np.diag([1.0, 1.0])
    with pytest.raises(NotPSDError, match="not positive definite"):
        chol_downdate(_factor(A), np.array([0.0, 1.5]))
    with pytest.raises(NotPSDError, match="not positive definite"):
        chol_append(_factor(A), np.array([1.0, 1.0]), 1.0)


def test_shapes_are_checked():
    R = np.eye(3)
    with pytest.raises(DataError, match="x must have shape"):
        chol_update(R, np.ones(2))
    with pytest.raises(DataError, match="square"):
        chol_update(np.ones((2, 3)), np.ones(2))
    with pytest.raises(DataError, match="out of range"):
        chol_delete(R, 3)


def test_empty_factor():
    assert chol_update(np.zeros((0, 0)), np.zeros(0)).shape == (0, 0)
    np.testing.assert_allclose(chol_append(np.zeros((0, 0)), np.zeros(0), 4.0), [[2.0]])
    assert chol_delete(np.array([[2.0]]), 0).shape == (0, 0)

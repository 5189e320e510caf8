"""The dense Cholesky factorisation every native solver uses (sdpkern.native.dense_cholesky):
LAPACK's up to DIRECT_MAX rows, the compiled left-looking blocked one above, checked against
SciPy's factor."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import LinAlgError, cho_solve
from scipy.linalg import cholesky as scipy_cholesky

from sdpkern._newtoncore import cholesky_blocked
from sdpkern.native import dense_cholesky


def _spd(n: int, seed: int) -> np.ndarray:
    G = np.random.default_rng(seed).normal(size=(n, n + 3))
    return G @ G.T + 1e-3 * n * np.eye(n)


@pytest.mark.parametrize("n, block", [(1, 4), (7, 3), (64, 16), (300, 64), (301, 512), (1000, 128)])
@pytest.mark.parametrize("lower", [True, False])
def test_blocked_factor_is_lapacks_and_leaves_the_other_triangle(n: int, block: int, lower: bool) -> None:
    A0 = _spd(n, n)
    A = np.array(A0, order="F")
    other = np.triu(np.ones((n, n), dtype=bool), 1) if lower else np.tril(np.ones((n, n), dtype=bool), -1)
    A[other] = 7.0
    assert cholesky_blocked(A, block, lower) == 0
    ref = scipy_cholesky(A0, lower=lower)
    got = np.tril(A) if lower else np.triu(A)
    # the same flops in another order: round-off of the factor's size, 1e-13 relative
    assert np.max(np.abs(got - ref)) <= 1e-13 * np.max(np.abs(ref))
    assert np.all(A[other] == 7.0)


@pytest.mark.parametrize("lower", [True, False])
def test_blocked_factor_reports_the_first_minor_that_is_not_positive_definite(lower: bool) -> None:
    A = np.asfortranarray(_spd(40, 0))
    A[25, 25] = -1e6
    ref = np.asfortranarray(A.copy())
    from scipy.linalg.lapack import dpotrf

    _, info = dpotrf(ref, lower=int(lower))
    assert info == 26
    assert cholesky_blocked(np.asfortranarray(A), 8, lower) == 26


def test_blocked_factor_rejects_a_matrix_that_is_not_square() -> None:
    with pytest.raises(ValueError, match="square"):
        cholesky_blocked(np.zeros((3, 4), order="F"), 2, True)


@pytest.mark.parametrize("direct_max", [0, 10_000])
def test_cho_factor_and_cholesky_on_either_route(monkeypatch: pytest.MonkeyPatch, direct_max: int) -> None:
    monkeypatch.setattr(dense_cholesky, "DIRECT_MAX", direct_max)
    monkeypatch.setattr(dense_cholesky, "BLOCK", 48)
    A = _spd(200, 3)
    b = np.random.default_rng(4).normal(size=(200, 2))
    for lower in (True, False):
        x = cho_solve(dense_cholesky.cho_factor(A, lower=lower), b)
        assert np.linalg.norm(A @ x - b) <= 1e-10 * np.linalg.norm(b)
        R = dense_cholesky.cholesky(A, lower=lower)
        np.testing.assert_allclose(R, scipy_cholesky(A, lower=lower), rtol=0, atol=1e-12 * np.abs(R).max())
    A_in = np.asfortranarray(A)
    c, low = dense_cholesky.cho_factor(A_in, lower=True, overwrite_a=True)
    assert low and np.shares_memory(c, A_in)  # factorised in place, as SciPy's with overwrite_a
    bad = A.copy()
    bad[150, 150] = -1.0
    with pytest.raises(LinAlgError, match="151-th leading minor"):
        dense_cholesky.cho_factor(bad)


@pytest.mark.parametrize("n", [600, 1001])
@pytest.mark.parametrize("lower", [True, False])
def test_split_factor_is_the_same_bits_on_one_and_two_threads(n: int, lower: bool) -> None:
    # from SPLIT_ORDER rows on, cholesky(threads=...) makes each dgemm and dtrsm in two fixed parts
    # (a second thread runs one of them with threads=2): the same calls, so the same bits
    A = _spd(n, n + 1)
    one, two = (dense_cholesky.cholesky(A, lower=lower, threads=t) for t in (1, 2))
    np.testing.assert_array_equal(one, two)
    ref = scipy_cholesky(A, lower=lower)
    assert np.max(np.abs(one - ref)) <= 1e-13 * np.max(np.abs(ref))
    assert not np.any(np.triu(one, 1) if lower else np.tril(one, -1))  # the other triangle zero
    c, low = dense_cholesky.cho_factor(A, lower=lower, threads=2)
    x = cho_solve((c, low), A[:, :3])
    assert np.max(np.abs(x - np.eye(n)[:, :3])) <= 1e-9


@pytest.mark.parametrize("k", [1, 5, 62])
@pytest.mark.parametrize("trans", [True, False])
def test_split_triangular_solve_is_the_same_bits_on_one_and_two_threads(k: int, trans: bool) -> None:
    from scipy.linalg import solve_triangular

    n = 700
    R = scipy_cholesky(_spd(n, 9))
    B = np.random.default_rng(2).normal(size=(n, k))
    one, two = (dense_cholesky.solve_triangular(R, B, trans=trans, threads=t) for t in (1, 2))
    np.testing.assert_array_equal(one, two)
    ref = solve_triangular(R, B, trans="T" if trans else "N")
    assert np.max(np.abs(one - ref)) <= 1e-12 * np.max(np.abs(ref))
    vec = dense_cholesky.solve_triangular(R, B[:, 0], trans=trans, threads=2)
    assert vec.shape == (n,) and np.max(np.abs(vec - ref[:, 0])) <= 1e-12 * np.max(np.abs(ref))


def test_a_factor_kept_with_room_solves_as_the_exact_one() -> None:
    # the closing Newton systems keep R in a larger buffer (its leading block) so that appended
    # points write in place: the factor and the solves on the block are those of the exact array
    n = 650
    A = _spd(n, 4)
    buf = np.full((n + 40, n + 40), np.nan, order="F")  # (the rest of the buffer is never read)
    dense_cholesky.upper_factor_into(buf, A, 2)
    exact = dense_cholesky.cholesky(A, threads=2)
    np.testing.assert_array_equal(np.triu(buf[:n, :n]), exact)
    B = np.random.default_rng(3).normal(size=(n, 20))
    for trans in (True, False):
        got = dense_cholesky.solve_triangular(buf, B, trans=trans, threads=2, order=n)
        np.testing.assert_array_equal(got, dense_cholesky.solve_triangular(exact, B, trans=trans, threads=2))
    bad = A.copy()
    bad[300, 300] = -1.0
    with pytest.raises(LinAlgError, match="301-th leading minor"):
        dense_cholesky.upper_factor_into(np.empty((n, n), order="F"), bad, 1)


@pytest.mark.slow
def test_factor_of_twenty_thousand_rows_on_two_threads() -> None:
    """OpenBLAS's threaded dpotrf kills the process from about 16,000 rows (SciPy 1.17's 0.3.31):
    the factorisation above DIRECT_MAX must not reach it. The matrix is 3.2 GB."""
    from threadpoolctl import threadpool_limits

    n = 20_000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 5))
    sq = np.einsum("ij,ij->i", X, X)
    A = X @ X.T
    A *= 2.0
    A -= sq[:, None]
    A -= sq[None, :]
    np.exp(0.1 * A, out=A)  # a Gaussian kernel
    A[np.diag_indices(n)] += 1e-2
    b = rng.normal(size=n)
    Ab = A @ b
    with threadpool_limits(limits=2, user_api="blas"):
        c = dense_cholesky.cho_factor(A, lower=True, overwrite_a=True)
        x = cho_solve(c, Ab, check_finite=False)
    # K + 0.01 I has condition number ≤ 2·10⁶: b back to 1e-7
    assert np.linalg.norm(x - b) <= 1e-7 * np.linalg.norm(b)


@pytest.mark.parametrize("border", [0, 1, 7])
def test_bordered_cholesky_solves_the_whole_matrix(border: int) -> None:
    # P⁻¹R from the factor of P_FF and the border's Schur complement, F and the border interleaved
    # in R's rows, with one and several right-hand sides, scaled and not. Second route: NumPy's
    # solve of the whole matrix, 1e-10 relative (a condition number near 1e4)
    rng = np.random.default_rng(border)
    n = 60
    B = rng.normal(size=(n, n))
    P = B @ B.T + 1e-2 * n * np.eye(n)
    A = np.sort(rng.choice(n, border, replace=False))
    F = np.setdiff1d(np.arange(n), A)
    solve = dense_cholesky.BorderedCholesky.plain(dense_cholesky.cho_factor(P[np.ix_(F, F)], lower=True))
    if border:
        solve = solve.bordered(F, A, P[np.ix_(F, A)], P[np.ix_(A, A)])
    R = rng.normal(size=(n, 3))
    want = np.linalg.solve(P, R)
    np.testing.assert_allclose(solve(R), want, rtol=0, atol=1e-10 * np.abs(want).max())
    np.testing.assert_allclose(solve(R[:, 0]), want[:, 0], rtol=0, atol=1e-10 * np.abs(want).max())
    np.testing.assert_allclose(solve.with_scale(4.0)(R), want / 4.0, rtol=0, atol=1e-10 * np.abs(want).max())


def test_bordered_cholesky_refuses_a_border_that_is_not_definite() -> None:
    rng = np.random.default_rng(3)
    B = rng.normal(size=(20, 20))
    P = B @ B.T + np.eye(20)
    F, A = np.arange(19), np.array([19])
    solve = dense_cholesky.BorderedCholesky.plain(dense_cholesky.cho_factor(P[:19, :19], lower=True))
    with pytest.raises(LinAlgError):
        solve.bordered(F, A, P[:19, 19:], P[19:, 19:] - 1e3)

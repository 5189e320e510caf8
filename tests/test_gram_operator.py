"""GramOperator (sdpkern.kernels.gram): every implementation against the dense kernel matrix,
the capped column cache (eviction, counters), and the solvers that accept it."""

from __future__ import annotations

import numpy as np
import pytest

from sdpkern.errors import DataError, ParameterError
from sdpkern.kernels import Gaussian, Laplacian, Linear, Polynomial, Sigmoid
from sdpkern.kernels.cpd import PowerDistance, ThinPlate, polynomial_factor
from sdpkern.kernels.gram import (
    CallableGram,
    GramOperator,
    KernelGram,
    PrecomputedGram,
    SumGram,
    as_gram,
    reduced_gram,
)
from sdpkern.native.krylov import cg
from sdpkern.native.primal_svm import primal_svm_kernel

KERNELS = [
    Gaussian(0.3),
    Linear(),
    Polynomial(3, 0.5, 1.0),
    Laplacian(0.7),
    Sigmoid(0.2, 0.1),
    ThinPlate(2, formula_dimension=2),
    ThinPlate(3),
    PowerDistance(1.3),
]


def _points(n: int = 120, d: int = 3, seed: int = 0) -> np.ndarray:
    X = np.random.default_rng(seed).normal(size=(n, d))
    X[5] = X[7]  # a duplicate: exact zero distances must give the kernel's own diagonal
    return X


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("d", [2, 5])
def test_kernel_gram_equals_the_dense_kernel(kernel, d):
    X = _points(d=d)
    try:
        K = kernel(X)
    except ParameterError:  # e.g. ThinPlate(3) needs 2m > d
        pytest.skip("kernel not defined in this dimension")
    G = KernelGram(kernel, X)
    scale = max(1.0, np.abs(K).max())
    cols = np.array([3, 5, 100, 7, 3])
    np.testing.assert_allclose(G.columns(cols), K[:, cols], atol=1e-13 * scale)
    np.testing.assert_allclose(G.diagonal(), np.diag(K), atol=1e-13 * scale)
    v = np.random.default_rng(1).normal(size=X.shape[0]) * (np.arange(X.shape[0]) % 3 == 0)
    np.testing.assert_allclose(G.matvec(v), K @ v, atol=1e-12 * scale * np.abs(v).sum())
    np.testing.assert_allclose(G.matvec(v, rows=[4, 0, 9]), (K @ v)[[4, 0, 9]], atol=1e-12 * scale * np.abs(v).sum())
    rows = np.array([1, 5, 9, 7])
    np.testing.assert_allclose(G.block(rows, [7, 5, 3]), K[np.ix_(rows, [7, 5, 3])], atol=1e-13 * scale)
    np.testing.assert_allclose(G.entries(rows, [60, 61]), K[np.ix_(rows, [60, 61])], atol=1e-13 * scale)
    assert (G.spec is not None) == (type(kernel) is not Sigmoid)  # the compiled core knows all but sigmoid


@pytest.mark.parametrize("kernel", [ThinPlate(2), ThinPlate(3), PowerDistance(1.0)], ids=repr)
def test_reduced_gram_compiled_columns_equal_its_numpy_blocks(kernel):
    X = _points(90, 2, 4)
    fac = polynomial_factor(X, kernel)
    R = reduced_gram(kernel, X, fac.Q)
    assert R.spec is not None and R.spec.left is not None
    dense = R._block(None, np.arange(90))  # the NumPy route
    np.testing.assert_allclose(R.columns(np.arange(90)), dense, atol=1e-12 * np.abs(dense).max())
    np.testing.assert_allclose(R.diagonal(), np.diag(dense), atol=1e-12 * np.abs(dense).max())


@pytest.mark.parametrize("kernel", [ThinPlate(2), ThinPlate(3), PowerDistance(1.0), Sigmoid(0.2, 0.1)], ids=repr)
def test_reduced_gram_columns_at_xi_are_the_cores_and_the_kernels(kernel):
    # Φ(X, Ξ), the correction of K_Ξ, comes from the compiled loop every cached column comes from
    # (bit for bit) and agrees with kernel(X, X[Ξ]) to round-off (exactly 0 distance for a duplicate
    # point, where kernel()'s GEMM distances are not); a kernel without a spec (sigmoid:
    # not c.p.d., but a Gram operator all the same) goes through kernel(X, X[Ξ]) itself
    X = _points(70, 3, 5)
    fac = polynomial_factor(X, ThinPlate(2))
    R = reduced_gram(kernel, X, fac.Q)
    xi = R.unisolvent
    dense = R.base._block(None, xi)  # kernel(X, X[Ξ]), the kernel's own diagonal where a row is a column
    rows = np.setdiff1d(np.arange(70), [5, 7])  # kernel()'s GEMM distances of the duplicate are not 0
    np.testing.assert_allclose(R.Phi_XXi[rows], dense[rows], rtol=0, atol=1e-12 * max(1.0, np.abs(dense).max()))
    np.testing.assert_array_equal(R.Phi_XXi[xi, np.arange(xi.size)], kernel.diag(X[xi]))
    if R.base.spec is not None:
        full = KernelGram(kernel, X).columns(xi)
        off = np.ones(full.shape, dtype=bool)
        off[xi, np.arange(xi.size)] = False
        np.testing.assert_array_equal(R.Phi_XXi[off], full[off])


@pytest.mark.parametrize(
    "kernel", [ThinPlate(2, formula_dimension=2), Gaussian(0.3), Laplacian(0.7), PowerDistance(1.3)], ids=repr
)
def test_column_loops_same_bits_alone_batched_and_with_or_without_avx2(kernel):
    # the compiled column loops: one column at a time (the SMO's), batches of 8 (ensure,
    # eval_columns), the AVX2 and the baseline build: the same operations on every entry, so the
    # same bits (the solvers mix columns from all of these); and K_Ξ's against its NumPy blocks
    from sdpkern import _svmcore

    # n not a multiple of the 1024-row blocks nor of the register blocks' 4 and 8 rows, d and t
    # not of 4
    X = _points(1101, 7, 6)
    fac = polynomial_factor(X, ThinPlate(2, formula_dimension=2))
    G = reduced_gram(kernel, X, fac.Q) if isinstance(kernel, ThinPlate) else KernelGram(kernel, X)
    cols = np.array([0, 5, 7, 1100, 300, 301, 302, 303, 304, 305, 306, 1024, 17], dtype=np.intp)
    had = _svmcore.simd()
    try:
        results = []
        for avx2 in (False, True):
            _svmcore.simd(avx2)
            batched = np.asarray(_svmcore.eval_columns(G.spec, G.n, cols))
            alone = np.column_stack([np.asarray(_svmcore.eval_columns(G.spec, G.n, cols[[b]]))[:, 0]
                                     for b in range(cols.size)])  # fmt: skip
            np.testing.assert_array_equal(batched, alone)
            for size in (2, 3, 4, 6):  # every group size: streamed (1, 2), register-blocked (3-8)
                part = np.asarray(_svmcore.eval_columns(G.spec, G.n, cols[:size]))
                np.testing.assert_array_equal(part, alone[:, :size])
            results.append(batched)
    finally:
        _svmcore.simd(had)
    np.testing.assert_array_equal(results[0], results[1])
    dense = G._block(None, cols)
    off = np.ones(dense.shape, dtype=bool)
    off[[5, 7]] = False  # the duplicate point: kernel()'s GEMM distances are not exactly 0
    np.testing.assert_allclose(results[0][off], dense[off], rtol=0, atol=1e-12 * max(1.0, np.abs(dense).max()))


def test_products_over_the_cache_do_not_depend_on_where_the_columns_sit():
    # a matvec sums the columns in index order, whatever their slots: an operator whose cache was
    # filled in another order (by earlier fits) gives the bits of a fresh one
    X = _points(400, 2, 7)
    fac = polynomial_factor(X, ThinPlate(2))
    v = np.zeros(400)
    v[[1, 3, 5, 399, 200, 17]] = [1.0, -2.0, 0.5, 3.0, 1e-3, -7.0]
    fresh = reduced_gram(ThinPlate(2), X, fac.Q)
    filled = reduced_gram(ThinPlate(2), X, fac.Q)
    filled.columns(np.arange(399, -1, -3))  # other columns, in another order, first
    filled.columns(np.array([399, 200, 17, 5, 3, 1]))
    assert not np.array_equal(fresh.slot_of if fresh._cache_obj is not None else [], filled.slot_of)
    np.testing.assert_array_equal(fresh.matvec(v), filled.matvec(v))
    dense = fresh._block(None, np.arange(400))
    np.testing.assert_allclose(filled.matvec(v), dense @ v, atol=1e-12 * np.abs(dense).max() * 6.5)


@pytest.mark.parametrize("m", [5, 603])
def test_products_over_the_cache_are_the_same_bits_on_two_threads(m):
    # 603 columns of 2000 rows (1.2e6 numbers): above the 2^20 from which a second thread sums the
    # lower half of the rows; 5 columns: one thread, and a remainder past the groups of four. Each
    # entry is summed over the columns in the same order: the bits of the column-by-column sum
    X = _points(2000, 3, 11)
    K = KernelGram(ThinPlate(2, formula_dimension=2), X)
    rng = np.random.default_rng(5)
    v = np.zeros(2000)
    cols = np.sort(rng.choice(2000, m, replace=False))
    v[cols] = rng.normal(size=m)
    one, two = K.matvec(v, threads=1), K.matvec(v, threads=2)
    np.testing.assert_array_equal(one, two)
    by_column = np.zeros(2000)
    for j in cols:
        by_column += v[j] * K.column(j)
    np.testing.assert_array_equal(one, by_column)
    dense = K._block(None, cols)
    np.testing.assert_allclose(two, dense @ v[cols], rtol=0, atol=1e-12 * np.abs(dense).max() * np.abs(v).sum())


@pytest.mark.parametrize("cache_bytes", [None, 8 * 300 * 3])
def test_a_block_gathered_into_a_larger_buffer_is_the_block(cache_bytes):
    # block(..., out=buf) writes K[rows, cols] into buf's leading block (a factor kept with room to
    # grow gathers its matrix there), through the cache or, when the columns do not fit it (3
    # columns of cache), computed; the same bits as the block alone, the rest of buf untouched
    X = _points(300, 3, 2)
    fac = polynomial_factor(X, ThinPlate(2))
    kw = {} if cache_bytes is None else {"cache_bytes": cache_bytes}
    K = reduced_gram(ThinPlate(2), X, fac.Q, **kw)
    rows = np.array([4, 17, 250, 3, 99], dtype=np.intp)
    cols = np.array([1, 17, 40, 41, 200, 299], dtype=np.intp)
    buf = np.full((9, 8), -5.0, order="F")
    got = K.block(rows, cols, out=buf)
    assert got.shape == (5, 6) and np.shares_memory(got, buf)
    np.testing.assert_array_equal(got, K.block(rows, cols))
    dense = K._block(rows, cols)  # NumPy's products (the compiled columns round otherwise)
    np.testing.assert_allclose(got, dense, rtol=0, atol=1e-13 * np.abs(dense).max())
    assert np.all(buf[5:, :] == -5.0) and np.all(buf[:, 6:] == -5.0)


def test_cache_of_a_gone_operator_says_so():
    from sdpkern.kernels.base import Kernel

    class Odd(Kernel):  # no compiled spec: columns come from the operator
        def _gram(self, X, Y):  # type: ignore[no-untyped-def]
            return (X @ (X if Y is None else Y).T) ** 2

    G = KernelGram(Odd(), _points(30, 2, 8))
    cache = G.cache
    del G
    with pytest.raises(ParameterError, match="no longer exists"):
        cache.ensure(np.array([1, 2], dtype=np.intp))


def test_cache_cap_evicts_least_recently_used_and_stays_exact():
    X = _points(300, 2, 2)
    K = Gaussian(1.0)(X)
    G = KernelGram(Gaussian(1.0), X, cache_bytes=8 * 300 * 40)
    assert G.capacity == 40
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = rng.choice(300, size=int(rng.integers(1, 41)), replace=False)
        np.testing.assert_allclose(G.columns(c), K[:, c], atol=1e-14)
    assert G.evictions > 0 and int((G.slot_of >= 0).sum()) <= 40
    G.columns([0])
    recent = np.flatnonzero(G.slot_of >= 0)
    G.columns(np.setdiff1d(np.arange(35, 75), recent)[:5])
    assert G.cached([0]).all()  # the most recently used column survives the next eviction
    # a request larger than the cache is computed without caching
    before = G.columns_computed
    np.testing.assert_allclose(G.columns(np.arange(100)), K[:, :100], atol=1e-14)
    assert G.columns_computed == before  # not cached: not counted
    np.testing.assert_allclose(G.matvec(np.ones(300)), K.sum(axis=1), atol=1e-12)
    assert G.seconds >= 0.0


def test_counters_count_each_column_once():
    X = _points(80, 2, 3)
    G = KernelGram(ThinPlate(2), X)
    G.columns([1, 2, 3])
    G.columns([3, 2, 1, 4])
    G.block([0, 1], [4, 1])
    assert G.columns_computed == 4 and G.evictions == 0
    G.clear_cache()
    G.column(1)
    assert G.columns_computed == 5


def test_release_cache_frees_the_columns_and_a_new_cache_gives_the_same_bits():
    # the ν-regression's face step releases K(β)'s cache before its f × f matrix (memory), and the
    # SMO after it computes the columns again: the same bits as before
    X = _points(60, 3, 7)
    G = KernelGram(Gaussian(0.5), X)
    before = G.columns([5, 9, 2]).copy()
    old = G.cache
    G.release_cache()
    assert G.columns_computed == 0 and G.cached([5, 9, 2]).sum() == 0
    np.testing.assert_array_equal(G.columns([5, 9, 2]), before)
    assert G.cache is not old and G.columns_computed == 3


def test_precomputed_gram_computes_nothing_and_checks_its_matrix():
    X = _points(50, 2, 5)
    K = Gaussian(0.5)(X)
    P = PrecomputedGram(K)
    np.testing.assert_allclose(P.columns([3, 1]), K[:, [3, 1]])
    np.testing.assert_allclose(P.matvec(np.arange(50.0)), K @ np.arange(50.0), atol=1e-12)
    assert P.columns_computed == 0
    with pytest.raises(DataError, match="symmetric"):
        PrecomputedGram(K + np.triu(np.ones((50, 50)), 1))
    with pytest.raises(DataError, match="square"):
        PrecomputedGram(K[:, :40])
    with pytest.raises(DataError, match="NaN"):
        PrecomputedGram(np.full((3, 3), np.nan))


def test_callable_grams_and_as_gram():
    X = _points(60, 2, 6)
    kern = Gaussian(0.2)
    K = kern(X)
    pairs = CallableGram(lambda A, B: np.exp(-0.2 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)), X)
    asked: list[np.ndarray] = []

    def entries(rows, cols):
        asked.append(np.asarray(cols).copy())
        return K[np.ix_(rows, cols)]

    ent = CallableGram(entries, n=60, kind="entries", diagonal=np.ones(60))
    for G in (pairs, ent, as_gram(K)):
        np.testing.assert_allclose(G.columns([5, 9]), K[:, [5, 9]], atol=1e-14)
        np.testing.assert_allclose(G.diagonal(), np.ones(60), atol=1e-14)
    ent.columns([9, 5, 10])
    assert sorted(np.concatenate(asked).tolist()) == [5, 9, 10]  # each column asked for once
    assert as_gram(pairs) is pairs
    with pytest.raises(ParameterError, match="needs the number of points"):
        as_gram(lambda r, c: K[np.ix_(r, c)])


def test_sum_gram_reweights_without_recomputing_its_terms():
    X = _points(70, 2, 7)
    terms = [KernelGram(Gaussian(g), X) for g in (0.1, 1.0, 10.0)]
    dense = [t.kernel(X) for t in terms]
    S = SumGram(terms, [1.0, 0.5, 0.0])
    np.testing.assert_allclose(S.columns([2, 3]), (dense[0] + 0.5 * dense[1])[:, [2, 3]], atol=1e-13)
    computed = [t.columns_computed for t in terms]
    S2 = S.reweighted([0.2, 0.3, 0.0])
    np.testing.assert_allclose(S2.columns([3, 2]), (0.2 * dense[0] + 0.3 * dense[1])[:, [3, 2]], atol=1e-13)
    assert [t.columns_computed for t in terms] == computed  # the terms' caches served the new sum
    np.testing.assert_allclose(S2.diagonal(), 0.5 * np.ones(70), atol=1e-13)


def test_bad_requests_are_typed_errors():
    X = _points(30, 2, 8)
    G = KernelGram(Gaussian(1.0), X)
    with pytest.raises(DataError, match="outside"):
        G.columns([30])
    with pytest.raises(DataError, match="outside"):
        G.entries([-1], [0])
    with pytest.raises(DataError, match="1-D array of point indices"):
        G.columns([0.5])
    with pytest.raises(DataError, match="shape"):
        G.matvec(np.ones(29))
    with pytest.raises(ParameterError, match="cache_bytes"):
        KernelGram(Gaussian(1.0), X, cache_bytes=8)
    with pytest.raises(ParameterError, match="kernel must be an sdpkern Kernel"):
        KernelGram("rbf", X)  # type: ignore[arg-type]

    class Broken(GramOperator):
        def _block(self, rows, cols):
            return np.full((self.n if rows is None else len(rows), len(cols)), np.nan)

    with pytest.raises(DataError, match="NaN"):
        Broken(5).columns([1])
    with pytest.raises(DataError, match="NaN"):
        Broken(5).diagonal()


def test_solvers_accept_gram_operators_and_a_capped_cache():
    X = _points(200, 2, 9)
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    K = Gaussian(0.5)(X)
    dense = primal_svm_kernel(PrecomputedGram(K), y, 2.0)
    capped = KernelGram(Gaussian(0.5), X, cache_bytes=8 * 200 * 64)
    lazy = primal_svm_kernel(capped, y, 2.0)
    assert lazy.objective == pytest.approx(dense.objective, rel=1e-10)
    b = np.random.default_rng(0).normal(size=200)
    A = KernelGram(Gaussian(0.5), X)
    ref = cg(K + np.eye(200), b, rtol=1e-10)
    shifted = SumGram([A, PrecomputedGram(np.eye(200))], [1.0, 1.0])
    res = cg(shifted, b, rtol=1e-10)
    np.testing.assert_allclose(res.x, ref.x, atol=1e-8)

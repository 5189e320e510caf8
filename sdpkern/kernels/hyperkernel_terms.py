"""Hyperkernel basis terms at scale: kernel columns on demand and a basis chosen over pair features.

Two pieces the native hyperkernel solver (:mod:`sdpkern.native.hyperkernel_master`) needs at
10⁴-10⁵ training points, where neither the (p, m, m) stack of base kernels
(:meth:`~sdpkern.kernels.lowrank.HyperkernelBasis.kernels`) nor the m² pair candidates of
:func:`~sdpkern.kernels.lowrank.hyperkernel_basis` fit in memory:

* :class:`TermGram`: one base kernel K_l[a, b] = k̲(φ_l, (x_a, x_b)) (002 eq. 2.15) as a
  :class:`~sdpkern.kernels.gram.GramOperator`, its columns computed on demand into a capped
  cache; :func:`learned_gram` sums them into K(β) = Σ_l β_l K_l (a
  :class:`~sdpkern.kernels.gram.SumGram`, so a new β costs additions, not kernel evaluations);
  :func:`term_grams` makes the operators of several terms, those of an
  :class:`~sdpkern.kernels.hyperkernels.ARDDictionary`'s relevance vector sharing one compiled
  pass per column (:class:`TermGroup`); :func:`term_quadratics` gives ½ uᵀK_l u for every basis
  term from the non-zeros of u only.
* :func:`sampled_basis`: the pivoted incomplete Cholesky rule of 002 §3.2.1 run on the
  hyperkernel Gram matrix of a random sample of training pairs instead of all m² pairs.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix, check_integer, check_positive
from ..errors import DataError, ParameterError
from .gram import DEFAULT_CACHE_BYTES, GramOperator, SumGram
from .hyperkernels import ARDDictionary, HarmonicARD, Hyperkernel
from .lowrank import HyperkernelBasis, hyperkernel_basis, incomplete_cholesky

__all__ = [
    "TermGram",
    "TermGroup",
    "term_grams",
    "learned_gram",
    "term_quadratics",
    "quadratic_bounds",
    "term_block",
    "learned_block",
    "dictionary_gram",
    "dictionary_products",
    "dictionary_matvec",
    "sampled_basis",
]

Array = NDArray[np.float64]
Index = NDArray[np.intp]
_T = TypeVar("_T")

#: Elements of one (rows, cols, features) temporary: bounds the memory of a block evaluation.
_CHUNK_ELEMENTS = 1 << 22

#: Entries of one chunk of :meth:`TermGroup.add_columns` (columns of m entries each).
_FILL_ENTRIES = 1 << 20


def term_block(hyperkernel: Hyperkernel, features: Array, Xr: Array, Xc: Array) -> Array:
    """K_l[Xr, Xc] for every term feature φ_l in ``features`` (p, f): shape (p, len(Xr), len(Xc)).

    The harmonic ARD hyperkernel (002 eq. 2.22) factors per width scale c_s as
    Π_d (1 − λ)/(1 − λ e^{−φ_ld/c_s} e^{−ψ_d/c_s}) with ψ the pair feature of (x_a, x_b):
    e^{−ψ_d/c_s} is computed once for all terms (by repeated squaring when c_s/c_{s+1} is a
    power of 2, as for :data:`~sdpkern.kernels.hyperkernels.LADDER_SCALES`), and each term costs
    multiplications only. The terms of an :class:`~sdpkern.kernels.hyperkernels.ARDDictionary`
    (one width each) run through the same compiled loops; other hyperkernels go through their
    own ``combine``.
    """
    if isinstance(hyperkernel, HarmonicARD):
        return _ard_block(hyperkernel, features, Xr, Xc)
    if isinstance(hyperkernel, ARDDictionary):
        from .. import _hkcore

        Xr, Xc = np.ascontiguousarray(Xr), np.ascontiguousarray(Xc)
        return np.concatenate([_hkcore.ard_block(Xr, Xc, *_dictionary_term(hyperkernel, g)) for g in features])
    G = hyperkernel.gram_features(Xr, Xc)
    return np.stack([hyperkernel.combine(phi, G) for phi in features])


def learned_block(hyperkernel: Hyperkernel, features: Array, beta: ArrayLike, Xr: Array, Xc: Array) -> Array:
    """Σ_l β_l K_l[Xr, Xc], the learned kernel between two point sets (002 eq. 2.15).

    For an :class:`~sdpkern.kernels.hyperkernels.ARDDictionary` the terms of one relevance
    vector share their exponentials across the widths (:func:`_dictionary_groups`): one compiled
    pass per relevance vector, the widths weighted by β.
    """
    b = np.asarray(beta, dtype=np.float64)
    if isinstance(hyperkernel, ARDDictionary):
        from .. import _hkcore

        Xr, Xc = np.ascontiguousarray(Xr), np.ascontiguousarray(Xc)
        out = np.zeros((Xr.shape[0], Xc.shape[0]))
        weights = np.asarray(features, dtype=np.float64)[:, -1]
        for rows, args in _dictionary_groups(hyperkernel, features):
            if np.any(b[rows] != 0.0):
                out += _hkcore.ard_block(Xr, Xc, *args, np.ascontiguousarray(b[rows] * weights[rows]))[0]
        return out
    return np.asarray(np.tensordot(b, term_block(hyperkernel, features, Xr, Xc), axes=1), dtype=np.float64)


def _squarings(inv_c: Array) -> NDArray[np.int64]:
    """``squarings[s]`` = k when inv_c[s]/inv_c[s−1] = 2^k (then e^{−ψ·inv_c[s]} is e^{−ψ·inv_c[s−1]}
    squared k times, no exponential), else 0; inv_c ascending."""
    sq = np.zeros(inv_c.size, dtype=np.int64)
    for s in range(1, inv_c.size):
        ratio = inv_c[s] / inv_c[s - 1]
        k = int(round(np.log2(ratio))) if ratio >= 2 else 0
        if k > 0 and abs(ratio - 2.0**k) <= 1e-12 * ratio:
            sq[s] = k
    return sq


def _ard_args(
    hyperkernel: HarmonicARD, features: Array
) -> tuple[Array, Array, float, Array, NDArray[np.int64], Array]:
    """(1/σ, A, λ, 1/c, squarings, scale weights) of the compiled loops (:mod:`sdpkern._hkcore`):
    A[s, d, l] = λ e^{−φ_ld/c_s}, the scales averaged (weights 1/S); see :func:`_squarings`."""
    lam = float(hyperkernel.lambda_h)
    inv_w = np.ascontiguousarray(1.0 / np.asarray(hyperkernel.widths, dtype=np.float64))
    c = hyperkernel.scale_array()
    A = np.ascontiguousarray(lam * np.exp(-features.T[None, :, :] / c[:, None, None]))  # (S, d, p)
    inv_c = np.ascontiguousarray(1.0 / c)
    sq = _squarings(inv_c) if np.all(np.diff(inv_c) > 0) else np.zeros(c.size, dtype=np.int64)
    return inv_w, A, lam, inv_c, sq, np.full(c.size, 1.0 / c.size)


def _dictionary_term(
    hyperkernel: ARDDictionary, f: Array
) -> tuple[Array, Array, float, Array, NDArray[np.int64], Array]:
    """The compiled loops' arguments for one dictionary term (feature row f: inverse widths g, then
    the weight w): one width, φ = 0, the weight as the scale's weight."""
    lam = float(hyperkernel.lambda_h)
    g = np.ascontiguousarray(f[:-1], dtype=np.float64)
    A = np.full((1, g.shape[0], 1), lam)
    return g, A, lam, np.ones(1), np.zeros(1, dtype=np.int64), np.array([float(f[-1])])


def _dictionary_groups(
    hyperkernel: ARDDictionary, features: Array
) -> list[tuple[NDArray[np.intp], tuple[Array, Array, float, Array, NDArray[np.int64]]]]:
    """The dictionary terms in ``features`` grouped by relevance vector (direction of g).

    Terms g = r/(c_s σ) of one relevance vector r differ by a factor: with g_0 the widest and
    m_s = max(g)/max(g_0), e^{−ψ·g} = e^{−ψ·g_0·m_s}, so one pass of the compiled loops with
    inverse widths g_0 and multipliers m_s computes them all, each width's exponentials squared
    from the previous one where m_s/m_{s−1} is a power of 2 (the ladder). Returns, per group,
    the rows of ``features`` in ascending m and the loops' (inv_w, A, λ, inv_c, squarings); the
    terms' weights (the last column) are the callers' to apply.
    """
    F = np.asarray(features, dtype=np.float64)[:, :-1]
    top = F.max(axis=1)
    keys = np.round(F / top[:, None], 10)
    _, label = np.unique(keys, axis=0, return_inverse=True)
    lam = float(hyperkernel.lambda_h)
    out = []
    for k in range(int(label.max(initial=-1)) + 1):
        rows = np.flatnonzero(label.ravel() == k)
        rows = rows[np.argsort(top[rows], kind="stable")]
        g0 = np.ascontiguousarray(F[rows[0]])
        inv_c = np.ascontiguousarray(top[rows] / top[rows[0]])
        sq = _squarings(inv_c) if np.all(np.diff(inv_c) > 0) else np.zeros(rows.size, dtype=np.int64)
        A = np.full((rows.size, F.shape[1], 1), lam)
        out.append((rows.astype(np.intp), (g0, A, lam, inv_c, sq)))
    return out


#: From this many terms the compiled per-pair loop (vectorised over the terms) is faster than
#: NumPy's whole-block passes (per entry: 7.5 µs compiled, 4.4 µs in NumPy for one term; the
#: figures are in docs/hyperkernel.md).
_COMPILED_FROM_TERMS = 8


def _ard_block(hyperkernel: HarmonicARD, features: Array, Xr: Array, Xc: Array) -> Array:
    """:func:`term_block` of the harmonic ARD hyperkernel (one or several width scales)."""
    inv_w, A, lam, inv_c, sq, scale_w = _ard_args(hyperkernel, features)
    if features.shape[0] >= _COMPILED_FROM_TERMS:
        from .. import _hkcore

        return _hkcore.ard_block(np.ascontiguousarray(Xr), np.ascontiguousarray(Xc), inv_w, A, lam, inv_c, sq, scale_w)
    p, n_dim = features.shape[0], Xr.shape[1]
    shape = (Xr.shape[0], Xc.shape[0])
    total = np.zeros((p,) + shape)
    den = np.empty((p,) + shape)
    prod = np.empty((p,) + shape)
    F = np.empty(shape)
    # e^{−ψ_d/c_s} per dimension, kept from one scale to the next (squared when sq[s] > 0): the
    # callers' row blocks are sized for (rows, cols, d) temporaries
    Es = [np.empty(shape) for _ in range(n_dim)]
    c64, tail = (1.0 - lam) ** 64, (1.0 - lam) ** (n_dim % 64)
    for s in range(inv_c.size):
        prod.fill(1.0)
        den.fill(1.0)
        for d in range(n_dim):
            E = Es[d]
            if s > 0 and sq[s] > 0:
                for _ in range(int(sq[s])):
                    np.multiply(E, E, out=E)
            else:
                np.subtract(Xr[:, d, None], Xc[None, :, d], out=E)
                np.multiply(E, E, out=E)
                E *= -inv_w[d] * inv_c[s]
                np.exp(E, out=E)
            for l in range(p):
                np.multiply(E, -A[s, d, l], out=F)
                F += 1.0
                den[l] *= F
            # one division per 64 factors, as the compiled loops (neither (1 − λ)^d nor the
            # product of the denominators under- or overflows)
            if (d + 1) % 64 == 0:
                prod *= c64 / den
                den.fill(1.0)
        np.divide(tail, den, out=den)
        prod *= den
        total += scale_w[s] * prod
    return total


def _row_chunk(n_cols: int, n_feat: int) -> int:
    return max(1, _CHUNK_ELEMENTS // max(1, n_cols * n_feat))


class TermGram(GramOperator):
    """One base kernel K_l = k̲(φ_l, (·, ·)) on training points X (002 eq. 2.15), by columns.

    Parameters
    ----------
    hyperkernel : Hyperkernel
    feature : array (f,)
        The term's pair feature φ_l (:mod:`sdpkern.kernels.hyperkernels`).
    X : array (m, d)
    cache_bytes : int
        Cap of the column cache.
    """

    def __init__(
        self, hyperkernel: Hyperkernel, feature: ArrayLike, X: Array, *, cache_bytes: int = DEFAULT_CACHE_BYTES
    ) -> None:
        super().__init__(X.shape[0], cache_bytes=cache_bytes)
        self.hyperkernel = hyperkernel
        self.feature = np.asarray(feature, dtype=np.float64).reshape(1, -1)
        self.X = X
        self._XT: Array | None = None
        self._args: tuple[Array, Array, float, Array, NDArray[np.int64], Array] | None = None
        #: the group whose one pass computes this term's columns (:func:`term_grams`), and the
        #: term's place in it
        self.group: TermGroup | None = None
        self.group_index = 0

    def _block(self, rows: Index | None, cols: Index) -> Array:
        if self.group is not None:
            return self.group.term_block(self, rows, cols)
        if isinstance(self.hyperkernel, (HarmonicARD, ARDDictionary)):
            return self._ard_columns(rows, cols)
        Xr = self.X if rows is None else self.X[rows]
        Xc = self.X[cols]
        out = np.empty((Xr.shape[0], Xc.shape[0]))
        step = _row_chunk(Xc.shape[0], self.X.shape[1])
        for lo in range(0, Xr.shape[0], step):
            out[lo : lo + step] = term_block(self.hyperkernel, self.feature, Xr[lo : lo + step], Xc)[0]
        return out

    def _ard_columns(self, rows: Index | None, cols: Index) -> Array:
        """K_l[rows, cols] of a harmonic ARD term (of the hyperkernel's pair basis or a dictionary
        term) by the compiled loop over points
        (:func:`sdpkern._hkcore.ard_columns`); by symmetry over the shorter index list."""
        from .. import _hkcore

        if self._args is None:
            hk = self.hyperkernel
            if isinstance(hk, ARDDictionary):
                self._args = _dictionary_term(hk, self.feature[0])
            else:
                assert isinstance(hk, HarmonicARD)
                self._args = _ard_args(hk, self.feature)
        if rows is not None and rows.size < cols.size:
            return self._ard_columns(cols, rows).T
        if rows is None:
            if self._XT is None:
                self._XT = np.ascontiguousarray(self.X.T)
            XT = self._XT
        else:
            XT = np.ascontiguousarray(self.X[rows].T)
        return np.ascontiguousarray(_hkcore.ard_columns(XT, np.ascontiguousarray(self.X[cols]), *self._args)[0].T)

    def _diagonal(self) -> Array:
        psi = self.hyperkernel.pair_features(self.X, self.X)
        return np.asarray(self.hyperkernel.combine(self.feature[0], psi), dtype=np.float64)


class TermGroup:
    """The terms of one relevance vector of an :class:`~sdpkern.kernels.hyperkernels.ARDDictionary`,
    whose columns one compiled pass computes together.

    The terms k_{r,s} of a relevance vector r differ only in their width multiplier c_s
    (:func:`_dictionary_groups`): their exponentials are shared, each width's squared from the
    previous one on the ladder, so a column of all S terms costs about twice one term's, not S
    times (:func:`sdpkern._hkcore.ard_scale_columns`). A column one member computes is offered
    to the others' caches (:meth:`sdpkern._svmcore.ColumnCache.offer`), and
    :class:`~sdpkern.kernels.gram.SumGram` asks the group for the weighted sum of its members'
    columns (:meth:`accumulate`) when the members' caches do not hold them.

    Made by :func:`term_grams`; members are kept by weak reference (the group belongs to them).

    Parameters
    ----------
    args : tuple
        The compiled loops' (inverse widths of the widest term, A, λ_h, width multipliers,
        squarings) of :func:`_dictionary_groups`.
    weights : array (S,)
        The members' term weights w_s (each column of member s is w_s k_{r,s}).
    X : array (m, d)
        The training points.
    n_jobs : int, default=1
        Threads for the columns of one request of many (the compiled loop releases the GIL);
        every column is computed alike whatever ``n_jobs``, so the result does not depend on it.
    """

    def __init__(
        self, args: tuple[Array, Array, float, Array, NDArray[np.int64]], weights: Array, X: Array, *, n_jobs: int = 1
    ) -> None:
        self.args, self.weights, self.X = args, np.ascontiguousarray(weights, dtype=np.float64), X
        self.n_jobs = check_integer(n_jobs, "n_jobs", 1)
        self._members: list[weakref.ref[TermGram]] = []
        self._XT: Array | None = None

    @property
    def XT(self) -> Array:
        """The points as a (d, m) contiguous array (the compiled loops run over points innermost)."""
        if self._XT is None:
            self._XT = np.ascontiguousarray(self.X.T)
        return self._XT

    def add(self, op: TermGram) -> None:
        """Make ``op`` the group's next member (in the order of ``weights``)."""
        op.group, op.group_index = self, len(self._members)
        self._members.append(weakref.ref(op))

    def scale_columns(self, rows: Index | None, cols: Index) -> Array:
        """Every member's K[rows, cols] (all rows for ``rows=None``) as an array (S, len(cols), rows)."""
        from .. import _hkcore

        XT = self.XT if rows is None else np.ascontiguousarray(self.X[rows].T)
        g, A, lam, inv_c, sq = self.args
        Xc = np.ascontiguousarray(self.X[cols])
        return np.asarray(_hkcore.ard_scale_columns(XT, Xc, g, A, lam, inv_c, sq, self.weights)[:, 0])

    def _chunks(self, cols: Index, n_rows: int) -> list[slice]:
        """Slices of ``cols`` whose (S, k, rows) blocks stay within the block budget."""
        step = max(1, _CHUNK_ELEMENTS // max(1, self.weights.size * n_rows))
        return [slice(lo, lo + step) for lo in range(0, cols.size, step)]

    def _offer(self, cols: Index, block: Array) -> None:
        for ref in self._members:
            op = ref()
            if op is not None:
                op.cache.offer(np.ascontiguousarray(cols, dtype=np.intp), block[op.group_index])

    def term_block(self, op: TermGram, rows: Index | None, cols: Index) -> Array:
        """``op``'s K[rows, cols]; whole columns are offered to every member's cache."""
        if rows is not None and rows.size < cols.size:
            return self.term_block(op, cols, rows).T
        n_rows = self.X.shape[0] if rows is None else rows.size
        out = np.empty((n_rows, cols.size))
        for part in self._chunks(cols, n_rows):
            blk = self.scale_columns(rows, cols[part])
            if rows is None:
                self._offer(cols[part], blk)
            out[:, part] = blk[op.group_index].T
        return out

    def accumulate(self, out_t: Array, cols: Index, members: Sequence[tuple[GramOperator, float]]) -> None:
        """out_t[a] += Σ w K[:, cols[a]] over ``members`` (this group's operators and their weights),
        columns as rows (``out_t`` is (len(cols), m)): from their caches when every member holds
        the column, else from one pass per chunk of columns, whose columns are offered to every
        member's cache."""
        members_at, weights = self._members_of(members)
        have = np.logical_and.reduce([op.cached(cols) for op, _ in members])
        kept, missing = np.flatnonzero(have), np.flatnonzero(~have)
        if kept.size:
            idx = np.ascontiguousarray(cols[kept], dtype=np.intp)
            acc = out_t if kept.size == cols.size else np.zeros((kept.size, out_t.shape[1]))
            for op, w in members:
                op.cache.add_to(acc, idx, w)
            if acc is not out_t:
                out_t[kept] += acc
        parts = [missing[part] for part in self._chunks(missing, self.X.shape[0])]
        for pos, blk in zip(parts, self._map(lambda pos: self.scale_columns(None, cols[pos]), parts)):
            self._offer(cols[pos], blk)
            # Σ_s w_s blk[s] in one pass, in this thread (a BLAS product here spins a second core's
            # threads on every column request)
            mine = blk if members_at == list(range(blk.shape[0])) else blk[members_at]
            out_t[pos] += np.einsum("s,skr->kr", weights, mine)

    def _members_of(self, members: Sequence[tuple[GramOperator, float]]) -> tuple[list[int], Array]:
        """The group places of ``members`` (this group's operators and their weights) and the weights."""
        ops = [(op, w) for op, w in members if isinstance(op, TermGram) and op.group is self]
        if len(ops) != len(members):
            raise ParameterError("a group takes its own term operators")
        return [op.group_index for op, _ in ops], np.array([w for _, w in ops])

    def sums_columns(self, members: Sequence[tuple[GramOperator, float]]) -> bool:
        """Whether a cache of Σ w K over ``members`` gets its columns from :meth:`add_columns`:
        where some member's cache cannot keep every column. Where they all can, :meth:`accumulate`
        computes each member's columns and keeps them, and a sum of other weights (the next β)
        then costs additions; where they cannot, the kept columns would mostly be evicted before
        that sum asks for them."""
        return any(op.capacity < op.n for op, _ in members)

    def add_columns(
        self, store: Array, slots: Index, cols: Index, members: Sequence[tuple[GramOperator, float]]
    ) -> None:
        """store[slots[a]] += Σ w K[:, cols[a]] over ``members`` for every a (``cols`` distinct),
        each pair of ``cols`` computed once, by one compiled pass per chunk of columns that sums
        the members itself (:func:`sdpkern._hkcore.ard_columns`); nothing cached.

        K is symmetric and its compiled entries are too, bit for bit (each is computed from the
        squared differences of its two points), so the chunk of cols[lo:hi] computes only the rows
        not among cols[:lo] (the earlier chunks computed those entries), and writes its rows
        cols[lo:hi] of the later columns cols[hi:]: of a request for every column, half the
        entries. The chunks run in ``n_jobs`` threads; each writes entries no other chunk writes."""
        from .. import _hkcore

        at, w = self._members_of(members)
        g, A, lam, inv_c, sq = self.args
        scale = np.zeros(self.weights.size)
        np.add.at(scale, at, w)
        scale = np.ascontiguousarray(scale * self.weights)
        m, k = self.X.shape[0], cols.shape[0]
        order = np.argsort(cols, kind="stable")
        cols, slots = cols[order], slots[order]
        step, XT_all = max(1, _FILL_ENTRIES // m), self.XT

        def chunk(lo: int) -> None:
            hi = min(lo + step, k)
            rest = np.ones(m, dtype=bool)
            rest[cols[:lo]] = False
            R = np.flatnonzero(rest)
            XT = XT_all if lo == 0 else np.ascontiguousarray(self.X[R].T)
            blk = _hkcore.ard_columns(XT, np.ascontiguousarray(self.X[cols[lo:hi]]), g, A, lam, inv_c, sq, scale)[0]
            if not np.all(np.isfinite(blk)):
                raise DataError("the hyperkernel's terms have NaN or infinite entries")
            store[np.ix_(slots[lo:hi], R)] += blk
            if hi < k:
                store[np.ix_(slots[hi:], cols[lo:hi])] += blk[:, np.searchsorted(R, cols[hi:])].T

        for _ in self._map(chunk, list(range(0, k, step))):
            pass

    def each_row_block(self, rows: Index, cols: Index, f: Callable[[slice, Array], None]) -> None:
        """f(part, blk) for every member's K[rows, cols] by chunks of rows (``part`` a slice of
        ``rows``, ``blk`` an array (S, rows in the slice, len(cols))) within the block budget,
        nothing cached. f runs in the thread that computed its chunk (``n_jobs`` threads), so it
        must write only its own rows: a consumer as costly as the chunk then shares the threads
        instead of waiting for one, and no chunk waits in memory for it."""
        parts = self._chunks(rows, cols.size)
        for _ in self._map(lambda part: f(part, self.scale_columns(cols, rows[part])), parts):
            pass

    def _map(self, f: Callable[[Any], _T], parts: list[Any]) -> Iterator[_T]:
        """f over ``parts``, in ``n_jobs`` threads when there are several (the compiled loops
        release the GIL), in order."""
        if self.n_jobs == 1 or len(parts) < 2:
            yield from map(f, parts)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(self.n_jobs, len(parts))) as pool:
            yield from pool.map(f, parts)


def term_grams(
    hyperkernel: Hyperkernel, features: Array, X: Array, *, cache_bytes: int = DEFAULT_CACHE_BYTES, n_jobs: int = 1
) -> list[TermGram]:
    """One :class:`TermGram` per row of ``features``; the terms of an
    :class:`~sdpkern.kernels.hyperkernels.ARDDictionary` that share a relevance vector share their
    column passes (:class:`TermGroup`).

    Parameters
    ----------
    hyperkernel : Hyperkernel
    features : array (p, f)
        The terms' pair features (a basis' ``features``).
    X : array (m, d)
    cache_bytes : int
        Cap of each term's column cache.
    n_jobs : int, default=1
        Threads for a group's columns when many are asked at once.

    Returns
    -------
    list of TermGram
        In the order of ``features``; their ``group`` is set where one pass computes several.
    """
    F = np.asarray(features, dtype=np.float64)
    ops = [TermGram(hyperkernel, F[l], X, cache_bytes=cache_bytes) for l in range(F.shape[0])]
    if isinstance(hyperkernel, ARDDictionary):
        for rows, args in _dictionary_groups(hyperkernel, F):
            if rows.size > 1:
                group = TermGroup(args, F[rows, -1], X, n_jobs=n_jobs)
                for l in rows:
                    group.add(ops[int(l)])
    return ops


def learned_gram(terms: Sequence[TermGram], weights: ArrayLike, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> SumGram:
    """K(β) = Σ_l β_l K_l over term operators (002 eq. 2.15), each term keeping its own columns."""
    return SumGram(list(terms), weights, cache_bytes=cache_bytes)


def term_quadratics(
    hyperkernel: Hyperkernel, features: Array, X: Array, u: ArrayLike, *, tol: float = 0.0, n_jobs: int = 1
) -> Array:
    """½ uᵀ K_l u for every term feature φ_l in ``features`` (p, f), from the non-zeros of u.

    Costs p·s²·d operations for s non-zeros of u (the support vectors), times the number of
    width scales for :class:`~sdpkern.kernels.hyperkernels.HarmonicARD` (compiled, no
    temporaries); other hyperkernels in row blocks of bounded memory. Entries of abs(u) at or
    below ``tol``·max(abs(u)) are treated as zero. ``n_jobs`` threads share the rows of the
    ARD sum (the compiled loop releases the GIL); the result is the same up to the order of
    the floating-point additions.
    """
    ua = np.asarray(u, dtype=np.float64)
    big = np.abs(ua) > tol * float(np.abs(ua).max(initial=0.0))
    nz = np.flatnonzero(big & (ua != 0.0))
    p = features.shape[0]
    if nz.size == 0:
        return np.zeros(p)
    Xs, us = np.ascontiguousarray(X[nz]), np.ascontiguousarray(ua[nz])
    jobs = check_integer(n_jobs, "n_jobs", 1)
    if isinstance(hyperkernel, HarmonicARD):
        inv_w, A, lam, inv_c, sq, scale_w = _ard_args(hyperkernel, features)
        return 0.5 * scale_w @ _compiled_quadratics(Xs, us, (inv_w, A, lam, inv_c, sq), jobs)
    if isinstance(hyperkernel, ARDDictionary):
        out = np.zeros(p)
        weights = np.asarray(features, dtype=np.float64)[:, -1]
        for rows, args in _dictionary_groups(hyperkernel, features):
            out[rows] = 0.5 * weights[rows] * _compiled_quadratics(Xs, us, args, jobs)[:, 0]
        return out
    out = np.zeros(p)
    step = max(1, _CHUNK_ELEMENTS // max(1, nz.size * max(p, X.shape[1])))
    # K_l is symmetric: the blocks right of the diagonal count twice, the diagonal ones once
    for lo in range(0, nz.size, step):
        hi = min(lo + step, nz.size)
        blk = term_block(hyperkernel, features, Xs[lo:hi], Xs[lo:])  # (p, hi − lo, s − lo)
        ur = us[lo:hi]
        out += np.einsum("lij,i,j->l", blk[:, :, : hi - lo], ur, ur, optimize=True)
        if hi < nz.size:
            out += 2.0 * np.einsum("lij,i,j->l", blk[:, :, hi - lo :], ur, us[hi:], optimize=True)
    return 0.5 * out


#: Scales × terms of one pass up to which uᵀK u is summed by the column loop, above which by the
#: pair loop (:func:`_compiled_quadratics`).
_COLUMN_QUADRATICS = 64


def _compiled_quadratics(
    Xs: Array, us: Array, args: tuple[Array, Array, float, Array, NDArray[np.int64]], n_jobs: int
) -> Array:
    """uᵀK_{s,l} u per scale s and term l (S, p) by a compiled loop (``args``: inverse widths, A, λ,
    1/c, squarings): the column loop, vectorised over the points, for the few scales × terms of a
    dictionary's relevance vector; the pair loop, vectorised over the terms, for many (a pair
    hyperkernel's basis), where the column loop's (S·p, s) products leave the cache.
    Measurements: docs/hyperkernel.md."""
    if args[3].shape[0] * args[1].shape[2] <= _COLUMN_QUADRATICS:
        return _column_quadratics(Xs, us, args, n_jobs)
    return _pair_quadratics(Xs, us, args, n_jobs)


def _pair_quadratics(
    Xs: Array, us: Array, args: tuple[Array, Array, float, Array, NDArray[np.int64]], n_jobs: int
) -> Array:
    """uᵀK_{s,l} u per scale s and term l (S, p) by the compiled pair loop (``_hkcore.ard_quadratics``,
    vectorised over the terms), its upper triangle's rows split over threads."""
    from .. import _hkcore

    inv_w, A, lam, inv_c, sq = args
    s = Xs.shape[0]
    n_jobs = min(n_jobs, max(1, s // 64))
    if n_jobs == 1:
        return np.asarray(_hkcore.ard_quadratics(Xs, us, inv_w, A, lam, inv_c, sq, 0, s))
    from concurrent.futures import ThreadPoolExecutor

    # row i of the upper triangle has s − i entries: equal shares of the cumulative count
    done = np.cumsum(np.arange(s, 0, -1, dtype=np.float64))
    cuts = np.searchsorted(done, done[-1] * np.arange(1, n_jobs) / n_jobs) + 1
    bounds = [0, *[int(c) for c in cuts], s]
    with ThreadPoolExecutor(n_jobs) as pool:
        parts = pool.map(
            lambda lh: _hkcore.ard_quadratics(Xs, us, inv_w, A, lam, inv_c, sq, lh[0], lh[1]),
            zip(bounds[:-1], bounds[1:]),
        )
        return np.asarray(np.sum(list(parts), axis=0))


def _lower_blocks(
    Xs: Array,
    args: tuple[Array, Array, float, Array, NDArray[np.int64]],
    scale_w: Array,
    f: Callable[[int, int, int, Array], _T],
    n_jobs: int,
    summed: bool = False,
    into: Callable[[_T], None] | None = None,
) -> list[_T]:
    """f(t, lo, hi, blk) over the lower block triangle of every K_{s,l} on the points Xs, in a fixed order.

    blk = scale_w[s] K_{s,l}[lo:, lo:hi] for the terms l = t … t + pt of ``args`` (inverse widths,
    A, λ, 1/c, squarings): an array (S, pt, hi − lo, s − lo), columns as rows, from the compiled
    column loop (``_hkcore.ard_scale_columns``), the points innermost so that the products over
    dimensions and the exponentials vectorise. ``summed``: Σ_s scale_w[s] K_{s,l}, an array
    (1, pt, hi − lo, s − lo), summed by the loop itself (``_hkcore.ard_columns``). Over the
    chunks, the pairs i ≥ j once each and the pairs of a chunk's diagonal block both ways: s²/2
    pairs in all. Chunks of terms and of columns keep each block within ``_CHUNK_ELEMENTS``;
    they run in ``n_jobs`` threads (the loop releases the GIL) and f's results come back in the
    chunks' order, so a caller that sums them in that order gets bits that do not depend on
    ``n_jobs``. With ``into``, each result goes to it in that order as soon as it is ready, and
    none is kept (a chunk's products with several vectors are m·S·r doubles).
    """
    from .. import _hkcore

    inv_w, A, lam, inv_c, sq = args
    s, n_sc, p = Xs.shape[0], inv_c.shape[0], A.shape[2]
    t_step = max(1, _CHUNK_ELEMENTS // (n_sc * s))
    c_step = max(1, _CHUNK_ELEMENTS // (n_sc * min(p, t_step) * s))
    tasks = [(t, lo) for t in range(0, p, t_step) for lo in range(0, s, c_step)]
    w = np.ascontiguousarray(scale_w, dtype=np.float64)

    def part(task: tuple[int, int]) -> _T:
        t, lo = task
        hi = min(lo + c_step, s)
        At = np.ascontiguousarray(A[:, :, t : t + t_step])
        XT = np.ascontiguousarray(Xs[lo:].T)
        Xc = np.ascontiguousarray(Xs[lo:hi])
        if summed:
            return f(t, lo, hi, _hkcore.ard_columns(XT, Xc, inv_w, At, lam, inv_c, sq, w)[None])
        return f(t, lo, hi, _hkcore.ard_scale_columns(XT, Xc, inv_w, At, lam, inv_c, sq, w))

    return _in_order(part, tasks, n_jobs, into)


def _in_order(
    f: Callable[[Any], _T], tasks: Sequence[Any], n_jobs: int, into: Callable[[_T], None] | None = None
) -> list[_T]:
    """[f(t) for t in tasks], in ``n_jobs`` threads when there are several tasks (the compiled
    loops release the GIL); with ``into``, each f(t) passed to it in the tasks' order as it is
    ready instead (the list is then empty)."""
    jobs = min(n_jobs, len(tasks))

    def drain(results: Iterator[_T]) -> list[_T]:
        if into is None:
            return list(results)
        for r in results:
            into(r)
        return []

    if jobs <= 1:
        return drain(map(f, tasks))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(jobs) as pool:
        return drain(pool.map(f, tasks))


def _column_quadratics(
    Xs: Array, us: Array, args: tuple[Array, Array, float, Array, NDArray[np.int64]], n_jobs: int
) -> Array:
    """uᵀK_{s,l} u per scale s and term l (S, p) over the lower block triangle (:func:`_lower_blocks`):
    a chunk's diagonal block counted once (it holds both halves), the rows past it twice. As a
    loop over pairs, but vectorised over the points (the pair loop cannot)."""

    def part(t: int, lo: int, hi: int, blk: Array) -> tuple[int, Array]:
        k, uk = hi - lo, us[lo:hi]
        q = np.einsum("spkj,k,j->sp", blk[..., :k], uk, uk)
        if hi < Xs.shape[0]:
            q += 2.0 * np.einsum("spkj,k,j->sp", blk[..., k:], uk, us[hi:])
        return t, q

    out = np.zeros((args[3].shape[0], args[1].shape[2]))
    for t, q in _lower_blocks(Xs, args, np.ones(args[3].shape[0]), part, n_jobs):
        out[:, t : t + q.shape[1]] += q
    return out


def dictionary_gram(
    hyperkernel: ARDDictionary, features: Array, beta: ArrayLike, X: Array, out: Array, *, n_jobs: int = 1
) -> Array:
    """K(β) = Σ_l β_l K_l over the points X (002 eq. 2.15) added to ``out`` on and below the diagonal.

    ``out`` is an (m, m) array in Fortran order, for LAPACK's Cholesky factorisation with
    ``lower=True``, which reads only the lower triangle (the diagonal blocks of the pass add to a
    few entries above it too; the rest of the strict upper triangle is left as it was). One
    compiled pass per relevance vector over m²/2 pairs (:func:`_lower_blocks`), its widths weighted
    by β and summed in the loop: half the pairs of :func:`learned_block`, and the exponentials
    vectorised.
    """
    b = np.asarray(beta, dtype=np.float64)
    weights = np.asarray(features, dtype=np.float64)[:, -1]
    Xc = np.ascontiguousarray(X, dtype=np.float64)

    def write(t: int, lo: int, hi: int, blk: Array) -> None:  # chunks are disjoint: safe in threads
        out[lo:, lo:hi] += blk[0, 0].T

    for rows, args in _dictionary_groups(hyperkernel, features):
        bw = b[rows] * weights[rows]  # β in the scales' weights, as dictionary_matvec's
        if np.any(bw != 0.0):
            _lower_blocks(Xc, args, bw, write, n_jobs, summed=True)
    return out


def dictionary_products(
    hyperkernel: ARDDictionary,
    features: Array,
    X: Array,
    u: ArrayLike,
    *,
    gram: tuple[Array, Array] | None = None,
    n_jobs: int = 1,
) -> Array:
    """K_l u at every point of X for every term l of ``features``: an array (m, p) (the Newton
    step's v_l and the cut's ½uᵀK_l u, docs/hyperkernel_derivations.md §1.7; K_l of 002 eq. 2.22);
    for several vectors u (an array (m, r)) an array (m, p, r), from the same pass.

    One compiled pass per relevance vector over m²/2 pairs (:func:`_lower_blocks`): each chunk of
    columns gives its own rows' products and, by symmetry, its share of the rows past it. The
    chunks' parts are added in a fixed order, so the result does not depend on ``n_jobs``.

    With ``gram = (w, out)`` the same pass also adds Σ_l w_l K_l to ``out`` (m × m, Fortran
    order) on and below the diagonal, as :func:`dictionary_gram` (the Newton step's bordered
    matrix and its right-hand sides from one pass).
    """
    ua = np.ascontiguousarray(u, dtype=np.float64)
    single = ua.ndim == 1
    U = ua[:, None] if single else ua
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    m = Xc.shape[0]
    weights = np.asarray(features, dtype=np.float64)[:, -1]
    out = np.zeros((m, features.shape[0], U.shape[1]))
    K = None if gram is None else gram[1]

    def part(t: int, lo: int, hi: int, blk: Array, w: Array | None) -> tuple[int, Array]:
        k = hi - lo
        Ku = np.zeros((m - lo, blk.shape[0], U.shape[1]))
        if single:  # the Newton step's v_l: one vector, NumPy's own loop
            Ku[:k, :, 0] = np.einsum("skj,j->ks", blk[:, 0], U[lo:, 0])
            Ku[k:, :, 0] = np.einsum("skj,k->js", blk[:, 0, :, k:], U[lo:hi, 0])
        else:  # a matrix product per term: BLAS reads the block's columns in place
            for i in range(blk.shape[0]):
                Ku[:k, i] = blk[i, 0] @ U[lo:]
                Ku[k:, i] = blk[i, 0, :, k:].T @ U[lo:hi]
        if K is not None and w is not None:  # chunks are disjoint columns of K: safe in threads
            K[lo:, lo:hi] += np.einsum("s,skj->jk", w, blk[:, 0])
        return lo, Ku

    def add(rows: NDArray[np.intp], got: tuple[int, Array]) -> None:
        out[got[0] :, rows] += got[1]

    for rows, args in _dictionary_groups(hyperkernel, features):
        w = None if gram is None else np.ascontiguousarray(gram[0][rows], dtype=np.float64)
        _lower_blocks(Xc, args, weights[rows], partial(part, w=w), n_jobs, into=partial(add, rows))
    return out[:, :, 0] if single else out


def dictionary_matvec(
    hyperkernel: ARDDictionary, features: Array, beta: ArrayLike, Xr: Array, Xc: Array, v: ArrayLike, *, n_jobs: int = 1
) -> Array:
    """K(β)[Xr, Xc] v with K(β) = Σ_l β_l K_l (002 eq. 2.15): one compiled column pass per
    relevance vector over the len(Xr)·len(Xc) pairs, its widths weighted by β, nothing kept.
    Chunks of columns are summed in a fixed order, so the result does not depend on ``n_jobs``."""
    from .. import _hkcore

    b = np.asarray(beta, dtype=np.float64)
    va = np.ascontiguousarray(v, dtype=np.float64)
    weights = np.asarray(features, dtype=np.float64)[:, -1]
    XT, Xc = np.ascontiguousarray(np.asarray(Xr, dtype=np.float64).T), np.ascontiguousarray(Xc, dtype=np.float64)
    tasks = []
    for rows, args in _dictionary_groups(hyperkernel, features):
        bw = np.ascontiguousarray(b[rows] * weights[rows])
        step = max(1, _CHUNK_ELEMENTS // (rows.size * max(1, XT.shape[1])))
        if np.any(bw != 0.0):
            tasks += [(args, bw, lo, lo + step) for lo in range(0, Xc.shape[0], step)]

    def part(task: tuple[tuple[Array, Array, float, Array, NDArray[np.int64]], Array, int, int]) -> Array:
        args, bw, lo, hi = task
        blk = _hkcore.ard_columns(XT, Xc[lo:hi], *args, bw)[0]  # (columns, rows)
        return np.asarray(va[lo:hi] @ blk)

    out = np.zeros(XT.shape[1])
    for r in _in_order(part, tasks, n_jobs):
        out += r
    return out


def quadratic_bounds(
    hyperkernel: Hyperkernel, features: Array, X: Array, u: ArrayLike, *, n_jobs: int = 1
) -> Array | None:
    """Upper bounds q̄_l ≥ ½ uᵀK_l u for every term feature φ_l from d + 1 anchor quadratics.

    For the harmonic ARD hyperkernel (002 eq. 2.22, over width scales c_s), expanding each
    factor (1 − λ)/(1 − λe^{−φ_d/c_s}e^{−ψ_d/c_s}) as a geometric series gives
    K(φ) = Σ_{s,n} w_{s,n} e^{−⟨n, φ⟩/c_s} M_{s,n} over multi-indices n ∈ ℕ^d, with w ≥ 0 and
    M_{s,n} = ∘_d [e^{−n_dψ_d/c_s}] positive semidefinite (Hadamard products of Gaussian Gram
    matrices, Schur's theorem). So q(φ) = ½ uᵀK(φ)u is a non-negative sum of exponentials of
    linear functions of φ ∈ ℝ^d_+: log q is convex and q non-increasing in every φ_d. With the
    anchors 0 and t_d e_d (t_d = d·mean_l φ_ld) and ρ_l = Σ_d φ_ld/t_d, the point φ_l/max(1, ρ_l)
    ≤ φ_l is the convex combination of the anchors with weights θ_d = φ_ld/(t_d max(1, ρ_l)), so

        log q(φ_l) ≤ (1 − Σθ) log q(0) + Σ_d θ_d log q(t_d e_d).

    The bound is rigorous up to the floating-point error of the quadratics, for which it is
    raised by a relative 1e-9 and an absolute 1e-15·s·‖u‖₁² (every entry of K_l is ≤ 1). Returns
    None where it does not apply or would not save work: another hyperkernel, d + 1 ≥ p/2
    anchors, or a non-positive anchor quadratic (u = 0).
    """
    p, d = features.shape
    if type(hyperkernel) is not HarmonicARD or 2 * (d + 1) >= p:
        return None
    F = np.asarray(features, dtype=np.float64)
    t = d * F.mean(axis=0)
    used = t > 0
    anchors = np.vstack([np.zeros(d), np.diag(t)[used]])
    qa = term_quadratics(hyperkernel, anchors, X, u, n_jobs=n_jobs)
    if not np.all(qa > 0):
        return None
    la = np.log(qa)
    theta = F[:, used] / t[used]
    theta /= np.maximum(theta.sum(axis=1), 1.0)[:, None]
    ua = np.asarray(u, dtype=np.float64)
    slack = 1e-15 * np.count_nonzero(ua) * float(np.abs(ua).sum()) ** 2
    return np.asarray(np.exp(la[0] + theta @ (la[1:] - la[0])) * (1.0 + 1e-9) + slack, dtype=np.float64)


def _ard_column(hyperkernel: HarmonicARD, cand: Array) -> Callable[[int], Array]:
    """Columns of the ARD hyperkernel Gram matrix (002 eq. 2.22, per width scale) in product form (no logs)."""
    lam = float(hyperkernel.lambda_h)
    c = hyperkernel.scale_array()
    Es = [np.exp(-cand / cs) for cs in c]

    def column(j: int) -> Array:
        out = np.zeros(cand.shape[0])
        for E in Es:
            F = 1.0 - lam * (E * E[j])
            out += np.prod((1.0 - lam) / F, axis=1)
        return np.asarray(out / c.size, dtype=np.float64)

    return column


def sampled_basis(
    hyperkernel: Hyperkernel,
    X: ArrayLike,
    *,
    eta: float = 1e-4,
    max_terms: int | None = 150,
    max_pairs: int = 20000,
    random_state: int | None = 0,
) -> HyperkernelBasis:
    """Basis terms chosen over the pair-feature space from a sample of pairs (002 §3.2.1 at scale).

    Every hyperkernel of :mod:`sdpkern.kernels.hyperkernels` depends on a pair (x_i, x_j) only
    through its pair feature φ(x_i, x_j): the scalar k(x_i, x_j) for the harmonic hyperkernel
    (002 eqs. 2.20-2.21), the d scaled squared differences for the ARD form (2.22). The
    pivoted incomplete Cholesky rule of :func:`~sdpkern.kernels.lowrank.hyperkernel_basis` is
    run here on the hyperkernel Gram matrix of the features of the diagonal pair (0, 0) and of
    ``max_pairs`` pairs i < j drawn uniformly without replacement, instead of all m(m+1)/2.
    Memory O(max_pairs·(f + max_terms)) instead of O(m²·(f + max_terms)).

    An :class:`~sdpkern.kernels.hyperkernels.ARDDictionary` is its own basis (no pairs are
    sampled).

    What is exact and what is approximated: when m(m+1)/2 ≤ ``max_pairs`` every pair is a
    candidate and the result is :func:`~sdpkern.kernels.lowrank.hyperkernel_basis`'s, term for
    term. Otherwise the chosen terms are exact training pairs and the problem solved over them
    (the SOCP of 002 eq. 3.8 with ‖L_Sᵀβ‖ from the exact K̲_SS) is the same as with any other
    basis; what is approximated is which pairs span the expansion: the residual reported
    (``residual_trace``) is that of the sampled pairs only, and an unsampled pair's feature may
    be less well explained. Measured (``docs/hyperkernel.md``, 5000 pairs, m = 200 and 300 on
    pima, twonorm, banana): the optimum moved by 0 to 1.7e-6 relative against the m² basis.

    Parameters
    ----------
    hyperkernel : Hyperkernel
        With resolved parameters (e.g. :meth:`HarmonicARD.fitted`).
    X : array (m, d)
    eta, max_terms
        The pivoted Cholesky's tolerance and term cap (002 §3.2.1).
    max_pairs : int
        Candidate pairs sampled.
    random_state : int or None
        Seeds the sample.
    """
    hyperkernel.check()
    Xa = as_matrix(X, "X")
    if isinstance(hyperkernel, ARDDictionary):
        return hyperkernel.basis(Xa)
    check_positive(eta, "eta", allow_zero=True)
    n_pairs = check_integer(max_pairs, "max_pairs", 1)
    m = Xa.shape[0]
    if m * (m + 1) // 2 <= n_pairs:
        return hyperkernel_basis(hyperkernel, Xa, eta=eta, max_terms=max_terms)
    rng = np.random.default_rng(random_state)
    # pairs i < j drawn by rejection of i == j (at least m(m+1)/2 > max_pairs candidates exist)
    code = np.unique(rng.integers(0, m, size=(2 * n_pairs + 16, 2)) @ np.array([m, 1]))
    I, J = np.divmod(code, m)
    keep = I < J
    I, J = I[keep], J[keep]
    pick = rng.permutation(I.size)[:n_pairs]
    pairs = np.vstack([[0, 0], np.column_stack([I[pick], J[pick]])]).astype(np.intp)
    if pairs.shape[0] < 2:
        raise ParameterError(f"could not sample candidate pairs from m = {m} points")
    cand = hyperkernel.pair_features(Xa[pairs[:, 0]], Xa[pairs[:, 1]])
    column = _ard_column(hyperkernel, cand) if isinstance(hyperkernel, HarmonicARD) else None
    chol = incomplete_cholesky(
        hyperkernel.hyper_diagonal(cand),
        column if column is not None else (lambda j: hyperkernel.hyper_column(cand, j)),
        eta=eta,
        max_rank=max_terms,
    )
    piv = chol.pivots
    return HyperkernelBasis(hyperkernel, Xa, pairs[piv], cand[piv], chol.G[piv], chol.residual_trace)


"""One kernel interface for the native solvers: :class:`GramOperator`.

A native solver never needs the whole ``n × n`` Gram matrix at once: the primal Newton methods
(004; 000 Algorithm 1) touch ``K[:, I]`` for the support vectors they visit, SMO-type dual
solvers two columns per step, a pivoted Cholesky one column per pivot, Krylov methods ``K v``.
:class:`GramOperator` offers exactly these — :meth:`~GramOperator.entries`,
:meth:`~GramOperator.columns`, :meth:`~GramOperator.diagonal`, :meth:`~GramOperator.matvec` —
over a column cache of capped size that every solver (and every one-vs-rest model on the same
points) shares.

Implementations
---------------
:class:`KernelGram`       an sdpkern :class:`~sdpkern.kernels.base.Kernel` on training points X;
:class:`PrecomputedGram`  a matrix given by the user (its rows are the cache: nothing computed);
:class:`ReducedGram`      the reduced c.p.d. kernel K_Ξ of :mod:`sdpkern.native.cpd.workspace`;
:class:`CallableGram`     a user callable, ``k(X, Y)`` or ``entries(rows, cols)``;
:class:`SumGram`          Σ_l w_l K_l over other operators, each term caching its own columns
                          (a learned kernel K(β) = Σ β_l K_l re-weighted without recomputing).

A new kind of kernel subclasses :class:`GramOperator` and implements :meth:`~GramOperator._block`
(``K[rows, cols]``; ``rows=None`` means all rows) and, if cheaper than through ``_block``,
:meth:`~GramOperator._diagonal`.

The column cache
----------------
Columns are kept as the rows of one array ``store`` of shape ``(capacity, n)`` (K is symmetric,
so column j is row j), allocated on first use with ``capacity = min(n, cache_bytes // (8 n))``
slots; ``slot_of[j]`` is column j's slot or −1. When a request needs more slots than are free,
the least recently used columns not in the request are evicted (a batch of at least an eighth of
the capacity at a time, so eviction is rare). A request larger than the whole capacity is
computed and returned without being cached. ``columns_computed`` and ``seconds`` count the
columns computed (recomputations after eviction included) and the time spent computing them.

For speed an operator may expose :attr:`~GramOperator.spec`, a :class:`GramSpec` (kernel kind,
parameters, data arrays) that sdpkern's compiled core evaluates itself, columns straight into the
cache, without calling back into Python; operators without one are evaluated in batches through
:meth:`~GramOperator._block`.

Examples
--------
>>> import numpy as np
>>> from sdpkern.kernels import Gaussian
>>> X = np.array([[0.0], [1.0], [3.0]])
>>> G = KernelGram(Gaussian(gamma=0.5), X)
>>> G.columns([2]).ravel().round(4).tolist()
[0.0111, 0.1353, 1.0]
>>> G.matvec(np.array([1.0, 0.0, 1.0])).round(4).tolist()
[1.0111, 0.7419, 1.0111]
>>> G.columns_computed
2
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix
from ..errors import DataError, ParameterError
from .base import Gaussian, Kernel, Laplacian, Linear, Polynomial
from .cpd import PowerDistance, ThinPlate, checked_matrix

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "GramSpec",
    "GramOperator",
    "KernelGram",
    "PrecomputedGram",
    "ReducedGram",
    "reduced_gram",
    "kernel_spec",
    "CallableGram",
    "SumGram",
    "as_gram",
    "grouped",
]

Array = NDArray[np.float64]
Index = NDArray[np.intp]

#: Default cap of a column cache: 1 GiB (every column of n = 11 585 points).
DEFAULT_CACHE_BYTES = 1 << 30


@dataclass(frozen=True, eq=False)
class GramSpec:
    """What the compiled core needs to evaluate kernel columns itself.

    ``K[r, c] = base(x_r, x_c) − left[r] · right[c]`` where ``base`` is

    ========== ====================================================================
    kind       base(x, y), with s = ‖x − y‖²
    ========== ====================================================================
    "matrix"   ``matrix[x, y]`` (``X`` unused)
    "linear"   ⟨x, y⟩
    "poly"     (``gamma``⟨x, y⟩ + ``coef0``)^``degree``
    "rbf"      exp(−``gamma`` s)
    "laplace"  exp(−``gamma`` √s)
    "power"    ``scale`` · s^(``half_power``) · (½ log s if ``log`` else 1), 0 at s = 0
    ========== ====================================================================

    ("power" covers the thin-plate kernels of 000 eq. (11), r^p log r and r^p, and the power
    distance −r^β.) ``left``/``right`` are ``(n, t)`` or ``None`` (no correction).
    """

    kind: str
    X: Array
    gamma: float = 1.0
    coef0: float = 0.0
    degree: int = 1
    scale: float = 1.0
    half_power: float = 1.0
    log: bool = False
    matrix: Array | None = None
    left: Array | None = None
    right: Array | None = None


def kernel_spec(kernel: Any, X: Array) -> GramSpec | None:
    """The :class:`GramSpec` of ``kernel`` on ``X``, or ``None`` for a kernel the core does not know."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    t = type(kernel)
    if t is Linear:
        return GramSpec("linear", X)
    if t is Polynomial:
        return GramSpec("poly", X, gamma=float(kernel.gamma), coef0=float(kernel.coef0), degree=int(kernel.degree))
    if t is Gaussian:
        return GramSpec("rbf", X, gamma=float(kernel.gamma))
    if t is Laplacian:
        return GramSpec("laplace", X, gamma=float(kernel.gamma))
    if t is ThinPlate:
        sign, p, log = kernel.radial_form(X.shape[1])
        return GramSpec("power", X, scale=sign, half_power=0.5 * p, log=log)
    if t is PowerDistance:
        return GramSpec("power", X, scale=-1.0, half_power=0.5 * float(kernel.beta))
    return None


def _core() -> Any:
    """The compiled core (``sdpkern._svmcore``), built by ``pip install``."""
    try:
        from .. import _svmcore
    except ImportError as exc:  # pragma: no cover - every install builds it
        raise ImportError(
            "sdpkern's compiled core (sdpkern._svmcore) is not built; install sdpkern with pip "
            "(`pip install .` or `pip install -e .`), which compiles it"
        ) from exc
    return _svmcore


def _index(idx: ArrayLike, n: int, name: str) -> Index:
    a = np.asarray(idx)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise DataError(f"{name} must be a 1-D array of point indices, got {a.dtype} of shape {a.shape}")
    a = a.astype(np.intp, copy=False)
    if a.size and (a.min() < 0 or a.max() >= n):
        raise DataError(f"{name} has indices outside [0, {n}): min {a.min()}, max {a.max()}")
    return a


class _Owner:
    """What a column cache calls back for the columns its spec cannot compute: the operator's
    ``_fill``, through a weak reference."""

    __slots__ = ("_ref",)

    def __init__(self, op: GramOperator) -> None:
        self._ref = weakref.ref(op)

    def _fill(self, cols: Index, slots: Index, store: Array) -> None:
        op = self._ref()
        if op is None:
            raise ParameterError(
                "the GramOperator of this column cache no longer exists; keep it while using its cache"
            )
        op._fill(cols, slots, store)


class GramOperator:
    """A symmetric ``n × n`` Gram matrix by entries, columns, diagonal and mat-vec (module docstring).

    Parameters
    ----------
    n : int
        Number of points.
    cache_bytes : int, default=DEFAULT_CACHE_BYTES
        Cap of the column cache in bytes (module docstring, "The column cache").

    Attributes
    ----------
    columns_computed : int
        Columns computed so far (a batch of m columns counts m).
    seconds : float
        Time spent computing them.
    evictions : int
        Columns evicted from the cache.
    """

    def __init__(self, n: int, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"n must be a positive integer, got {n!r}")
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, (int, np.integer)) or cache_bytes < 8 * n:
            raise ParameterError(f"cache_bytes must be an integer >= 8 n = {8 * n} (one column), got {cache_bytes!r}")
        self.n = int(n)
        self.cache_bytes = int(cache_bytes)
        self._diag: Array | None = None
        self._cache_obj: Any = None

    # ------------------------------------------------------------------ subclass hooks
    def _block(self, rows: Index | None, cols: Index) -> Array:
        """``K[rows, cols]`` (``rows=None``: all rows), shape ``(len(rows), len(cols))``."""
        raise NotImplementedError

    def _diagonal(self) -> Array:
        """``K[i, i]`` for every point; by default one 1 × 1 block per point."""
        return np.array([self._block(np.array([i]), np.array([i]))[0, 0] for i in range(self.n)])

    @property
    def spec(self) -> GramSpec | None:
        """A :class:`GramSpec` the compiled core can evaluate, or ``None``."""
        return None

    def _new_cache(self) -> Any:
        # the cache refers back to this operator weakly (no reference cycle): when the operator
        # goes, its cache (and the memory of its columns) goes at once
        return _core().ColumnCache(_Owner(self), self.n, self.capacity, self.spec)

    # ------------------------------------------------------------------ public interface
    @property
    def shape(self) -> tuple[int, int]:
        """``(n, n)``, as a SciPy ``LinearOperator``."""
        return (self.n, self.n)

    dtype = np.dtype(np.float64)

    @property
    def capacity(self) -> int:
        """Columns the cache can hold."""
        return max(1, min(self.n, self.cache_bytes // (8 * self.n)))

    @property
    def cache(self) -> Any:
        """The compiled column cache (``sdpkern._svmcore.ColumnCache``), made on first use."""
        if self._cache_obj is None:
            self._cache_obj = self._new_cache()
        return self._cache_obj

    @property
    def columns_computed(self) -> int:
        """Columns computed so far (recomputations after eviction included)."""
        return 0 if self._cache_obj is None else int(self._cache_obj.computed)

    @property
    def seconds(self) -> float:
        """Seconds spent computing columns."""
        return 0.0 if self._cache_obj is None else float(self._cache_obj.seconds)

    @property
    def evictions(self) -> int:
        """Columns evicted from the cache so far."""
        return 0 if self._cache_obj is None else int(self._cache_obj.evictions)

    @property
    def slot_of(self) -> NDArray[np.intp]:
        """Cache slot of each column, −1 when not cached (read only)."""
        return self.cache.slot_array  # type: ignore[no-any-return]

    def diagonal(self) -> Array:
        """``K[i, i]`` for every point (computed once)."""
        if self._diag is None:
            d = np.ascontiguousarray(self._diagonal(), dtype=np.float64)
            if d.shape != (self.n,):
                raise DataError(f"the diagonal has shape {d.shape}, expected ({self.n},)")
            if not np.all(np.isfinite(d)):
                raise DataError(f"{type(self).__name__}: the kernel has NaN or infinite entries on its diagonal")
            self._diag = d
        return self._diag

    def entries(self, rows: ArrayLike, cols: ArrayLike) -> Array:
        """``K[np.ix_(rows, cols)]`` as a fresh array; from the cache when every column is cached."""
        r, c = _index(rows, self.n, "rows"), _index(cols, self.n, "cols")
        if c.size and np.all(self.slot_of[c] >= 0):
            return np.asarray(self.cache.gather(r, c))
        return self._checked_block(r, c)

    def columns(self, cols: ArrayLike) -> Array:
        """``K[:, cols]`` (shape ``(n, len(cols))``), computing and caching the missing ones."""
        c = _index(cols, self.n, "cols")
        if not self.ensure(c):
            return self._checked_block(None, c)
        return np.ascontiguousarray(self.cache.store_array[self.slot_of[c]].T)

    def column(self, j: int) -> Array:
        """Column ``j`` of ``K`` (cached)."""
        return self.columns(np.array([j], dtype=np.intp))[:, 0]

    def block(self, rows: ArrayLike, cols: ArrayLike, *, out: Array | None = None) -> Array:
        """``K[np.ix_(rows, cols)]`` through the cache (the columns are computed and kept); with
        ``out`` (Fortran-ordered, at least that shape) written into its leading block, which is
        returned (a factor kept with room to grow gathers its matrix in place)."""
        r, c = _index(rows, self.n, "rows"), _index(cols, self.n, "cols")
        if not self.ensure(c):
            block = self._checked_block(r, c)
            if out is None:
                return block
            out[: r.shape[0], : c.shape[0]] = block
            return out[: r.shape[0], : c.shape[0]]
        return np.asarray(self.cache.gather(r, c, out))

    def matvec(self, v: ArrayLike, rows: ArrayLike | None = None, *, threads: int = 1) -> Array:
        """``(K v)[rows]`` (all rows by default), from the cached columns of v's non-zeros; their
        sum by ``threads`` threads where it is large (the same bits for any number)."""
        va = np.asarray(v, dtype=np.float64)
        if va.shape != (self.n,):
            raise DataError(f"v must have shape ({self.n},), got {va.shape}")
        r = None if rows is None else _index(rows, self.n, "rows")
        nz = np.flatnonzero(va)
        if nz.size == 0:
            return np.zeros(self.n if r is None else r.shape[0])
        if self.ensure(nz):
            full = self._cached_matvec(nz, va[nz], threads)
            return full if r is None else full[r]
        out = np.zeros(self.n if r is None else r.shape[0])
        step = self.capacity
        for lo in range(0, nz.size, step):
            part = nz[lo : lo + step]
            out += self._checked_block(r, part) @ va[part]
        return out

    def _cached_matvec(self, cols: Index, w: Array, threads: int = 1) -> Array:
        """Σ_b w_b K[:, cols_b] over cached columns, summed in the order of ``cols`` (sorted): the
        same bits whatever the columns' places in the cache (a cache filled by earlier fits gives
        the products of a fresh one) and the threads."""
        cols, w = np.ascontiguousarray(cols, dtype=np.intp), np.ascontiguousarray(w)
        return np.asarray(self.cache.weighted_sum(cols, w, threads))

    def __matmul__(self, v: ArrayLike) -> Array:
        return self.matvec(v)

    def to_dense(self) -> Array:
        """The whole matrix (``n × n``; only for small ``n`` or checks)."""
        return self._checked_block(None, np.arange(self.n))

    def cached(self, cols: ArrayLike) -> NDArray[np.bool_]:
        """Which of ``cols`` are in the cache now."""
        return np.asarray(self.slot_of[_index(cols, self.n, "cols")] >= 0)

    def clear_cache(self) -> None:
        """Drop every cached column (counters are kept)."""
        if self._cache_obj is not None:
            self._cache_obj.clear()

    def release_cache(self) -> None:
        """Drop the column cache with its memory (counters too); the next use makes a new one."""
        self._cache_obj = None

    def ensure(self, cols: ArrayLike) -> bool:
        """Cache the columns ``cols``; False (nothing cached) when they exceed the capacity."""
        c = _index(cols, self.n, "cols")
        if c.size > 1 and not bool(np.all(c[1:] > c[:-1])):  # (sorted and distinct already: the usual call)
            c = np.unique(c)
        return bool(self.cache.ensure(np.ascontiguousarray(c, dtype=np.intp)))

    def subset(self, points: ArrayLike, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> GramOperator:
        """K on the points ``points`` (sorted, distinct) as an operator with a column cache of its
        own: columns of their length, for a solver working on a subset (the working sets of
        :func:`sdpkern.native.svm_core.solve_qp`). Through the compiled core when K has a spec."""
        W = _index(points, self.n, "points")
        if W.size == 0 or np.any(np.diff(W) <= 0):
            raise DataError("points must be sorted, distinct and not empty")
        return _SubsetGram(self, W, cache_bytes=max(int(cache_bytes), 8 * W.size))

    def block_product(self, rows: ArrayLike, cols: ArrayLike, w: ArrayLike, *, n_jobs: int = 1) -> Array:
        """``K[rows, cols] @ w`` without caching (each column is used once), in blocks of at most
        2²⁴ entries shared by ``n_jobs`` threads (the compiled columns release the GIL)."""
        r, c = _index(rows, self.n, "rows"), _index(cols, self.n, "cols")
        wa = np.asarray(w, dtype=np.float64)
        if wa.shape != c.shape:
            raise DataError(f"w must have one entry per column ({c.shape[0]}), got shape {wa.shape}")
        if c.size == 0 or r.size == 0:
            return np.zeros(r.shape[0])
        step = max(1, (1 << 24) // r.size)
        starts = range(0, c.size, step)

        def part(lo: int) -> Array:
            return self._block_times(r, c[lo : lo + step], wa[lo : lo + step])

        if n_jobs <= 1 or len(starts) == 1:
            return np.asarray(sum(part(lo) for lo in starts), dtype=np.float64)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(n_jobs, len(starts))) as pool:
            return np.asarray(sum(pool.map(part, starts)), dtype=np.float64)

    def _block_times(self, rows: Index, cols: Index, w: Array) -> Array:
        """``K[rows, cols] @ w`` of one block, uncached."""
        return np.asarray(self._checked_block(rows, cols) @ w, dtype=np.float64)

    def _fill(self, cols: Index, slots: Index, store: Array) -> None:
        """``store[slots[a]] = K[:, cols[a]]`` for every a: the columns a cache asks for (distinct,
        sorted), in chunks of 2²⁰ entries, so that a request of many columns needs no n × k
        temporary. An operator that computes many columns more cheaply together overrides it."""
        step = max(1, (1 << 20) // self.n)
        for a in range(0, cols.shape[0], step):
            store[slots[a : a + step]] = self._checked_block(None, cols[a : a + step]).T

    def _checked_block(self, rows: Index | None, cols: Index) -> Array:
        out = np.asarray(self._block(rows, cols), dtype=np.float64)
        want = (self.n if rows is None else rows.shape[0], cols.shape[0])
        if out.shape != want:
            raise DataError(f"{type(self).__name__}._block returned shape {out.shape}, expected {want}")
        if not np.all(np.isfinite(out)):
            raise DataError(f"{type(self).__name__}: the kernel has NaN or infinite entries")
        return out


class KernelGram(GramOperator):
    """The Gram matrix of an sdpkern :class:`~sdpkern.kernels.base.Kernel` on points ``X``.

    Linear, polynomial, Gaussian, Laplacian, thin-plate and power-distance kernels are
    evaluated by the compiled core (:attr:`spec`); others through ``kernel(X[rows], X[cols])``.
    Where a row and a column are the same point the entry is the kernel's own diagonal, so
    ``K[i, i]`` is exact whatever the round-off in the distances.
    """

    def __init__(self, kernel: Kernel, X: ArrayLike, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if not isinstance(kernel, Kernel):
            raise ParameterError(f"kernel must be an sdpkern Kernel, got {type(kernel).__name__}")
        Xa = np.ascontiguousarray(checked_matrix(X, "X"))
        super().__init__(Xa.shape[0], cache_bytes=cache_bytes)
        self.kernel, self.X = kernel, Xa
        self._spec = kernel_spec(kernel, Xa)
        self._sq = np.einsum("ij,ij->i", Xa, Xa) if type(kernel) is Gaussian else None

    @property
    def spec(self) -> GramSpec | None:
        """The compiled core's description of this kernel, or ``None`` (evaluated in Python)."""
        return self._spec

    def _block(self, rows: Index | None, cols: Index) -> Array:
        Xr = self.X if rows is None else self.X[rows]
        if self._sq is not None:  # Gaussian: squared norms once, no input checks per call
            sq_r = self._sq if rows is None else self._sq[rows]
            D = Xr @ self.X[cols].T
            D *= -2.0
            D += sq_r[:, None]
            D += self._sq[cols][None, :]
            np.maximum(D, 0.0, out=D)
            D *= -float(self.kernel.gamma)  # type: ignore[attr-defined]
            block = np.exp(D, out=D)
        else:
            block = np.array(self.kernel._gram(Xr, self.X[cols]), dtype=np.float64)
        pos = np.arange(self.n) if rows is None else _positions(rows, self.n)
        r = pos[cols]
        hit = np.flatnonzero(r >= 0)
        if hit.size:
            block[r[hit], hit] = self.diagonal()[cols[hit]]
        return block

    def _diagonal(self) -> Array:
        return np.asarray(self.kernel.diag(self.X), dtype=np.float64)


def _positions(rows: Index, n: int) -> Index:
    pos = np.full(n, -1, dtype=np.intp)
    pos[rows] = np.arange(rows.shape[0])
    return pos


class PrecomputedGram(GramOperator):
    """A Gram matrix given in full (symmetric, checked); its rows are the cache, nothing is computed."""

    def __init__(self, K: ArrayLike, *, name: str = "K") -> None:
        Ka = np.ascontiguousarray(as_matrix(K, name))
        n = Ka.shape[0]
        if Ka.shape != (n, n):
            raise DataError(f"{name} must be a square matrix, got shape {Ka.shape}")
        if not np.allclose(Ka, Ka.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(Ka).max()))):
            raise DataError(f"{name} must be symmetric")
        super().__init__(n, cache_bytes=8 * n * n)
        self.K = Ka

    @classmethod
    def _trusted(cls, K: Array) -> PrecomputedGram:
        """Over a C-ordered float64 matrix the caller made symmetric and finite (a kernel's own
        Gram matrix), unchecked and not copied."""
        op = cls.__new__(cls)
        GramOperator.__init__(op, K.shape[0], cache_bytes=8 * K.shape[0] * K.shape[0])
        op.K = K
        return op

    @property
    def spec(self) -> GramSpec | None:
        """The matrix itself, read by the compiled core."""
        return GramSpec("matrix", np.zeros((self.n, 0)), matrix=self.K)

    def _new_cache(self) -> Any:
        return _core().ColumnCache(self, self.n, self.n, self.spec, self.K)

    def _block(self, rows: Index | None, cols: Index) -> Array:
        return self.K[:, cols] if rows is None else self.K[np.ix_(rows, cols)]

    def _diagonal(self) -> Array:
        return np.array(np.diag(self.K))

    def to_dense(self) -> Array:
        """A copy of the whole matrix."""
        return np.array(self.K)


class ReducedGram(GramOperator):
    """K_Ξ(x, y) = φ(x, y) − ℓ(x)ᵀφ(Ξ, y) − φ(x, Ξ)ℓ(y) + ℓ(x)ᵀφ(Ξ, Ξ)ℓ(y) on the training points.

    The reduced kernel of a c.p.d. kernel φ on k unisolvent points Ξ (:mod:`sdpkern.native.
    cpd.workspace`; Wendland 2005, Thm. 10.20), positive semidefinite. Entries are φ's minus one
    product of inner size 2k: ``K_Ξ[R, C] = Φ[R, C] − [ℓ, φ(·, Ξ)]_R [φ(·, Ξ) − ℓ φ(Ξ, Ξ), ℓ]_Cᵀ``.
    Made by :func:`reduced_gram`.

    Attributes
    ----------
    base : KernelGram
        φ on the training points.
    unisolvent : (k,) int array
        Ξ.
    ell : (n, k) array
        ℓ(x_i), the Lagrange basis of 𝒫 on Ξ.
    Phi_XXi : (n, k) array
        φ(x_i, ξ_j).
    Q_Xi : (k, k) array
        Q_Ξ.
    """

    def __init__(
        self,
        base: KernelGram,
        unisolvent: Index,
        ell: Array,
        Phi_XXi: Array,
        Q_Xi: Array,
        *,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        super().__init__(base.n, cache_bytes=cache_bytes)
        self.base, self.unisolvent, self.ell, self.Phi_XXi, self.Q_Xi = base, unisolvent, ell, Phi_XXi, Q_Xi
        k = unisolvent.shape[0]
        Phi_XiXi = Phi_XXi[unisolvent] if k else np.zeros((0, 0))
        self._left = np.ascontiguousarray(np.hstack([ell, Phi_XXi]))
        self._right = np.ascontiguousarray(np.hstack([Phi_XXi - ell @ Phi_XiXi, ell]))
        bs = base.spec
        self._spec = None if bs is None else _with_correction(bs, self._left, self._right) if k else bs

    @property
    def kernel(self) -> Kernel:
        """The c.p.d. kernel Φ is built from."""
        return self.base.kernel

    @property
    def X(self) -> Array:
        """The training points."""
        return self.base.X

    @property
    def spec(self) -> GramSpec | None:
        """The compiled core's description: Φ's kind with the rank-k correction of K_Ξ."""
        return self._spec

    def _block(self, rows: Index | None, cols: Index) -> Array:
        block = self.base._block(rows, cols)
        if self.unisolvent.size:
            left = self._left if rows is None else self._left[rows]
            block -= left @ self._right[cols].T
        return block

    def _diagonal(self) -> Array:
        d = self.base.diagonal()
        if self.unisolvent.size == 0:
            return np.array(d)
        return np.asarray(d - np.einsum("ij,ij->i", self._left, self._right), dtype=np.float64)

    def to_cpd(self, gamma: Array, c: Array) -> tuple[Array, Array]:
        """(α, β̄) of 000 eq. (14) from (γ, c): α = Tγ, β̄ = c − Q_Ξ⁻¹(Φα)_Ξ (so Pᵀα = 0)."""
        from scipy.linalg import solve

        alpha = np.array(gamma, dtype=np.float64)
        if self.unisolvent.size == 0:
            return alpha, np.zeros(0)
        alpha[self.unisolvent] -= self.ell.T @ gamma
        beta_bar = c - solve(self.Q_Xi, self.Phi_XXi.T @ alpha)
        return alpha, np.asarray(beta_bar, dtype=np.float64)


def _with_correction(spec: GramSpec, left: Array, right: Array) -> GramSpec:
    return GramSpec(
        spec.kind, spec.X, spec.gamma, spec.coef0, spec.degree, spec.scale, spec.half_power, spec.log, spec.matrix,
        left, right,
    )


def reduced_gram(
    kernel: Kernel | KernelGram, X: ArrayLike, Q: ArrayLike, *, cache_bytes: int = DEFAULT_CACHE_BYTES
) -> ReducedGram:
    """Choose Ξ by a column-pivoted QR of Qᵀ and set up K_Ξ (:class:`ReducedGram`).

    ``Q`` is the orthonormal basis of range P (``polynomial_factor(X, kernel).Q``, k = rank P
    columns, so k unisolvent points exist even when P is rank deficient); ``(n, 0)`` for a p.d.
    kernel, when K_Ξ = Φ. ``kernel`` may be a :class:`KernelGram` on ``X`` already.
    """
    from scipy.linalg import qr, solve

    if isinstance(kernel, KernelGram):
        base = kernel
    else:  # the base's own cache is never used: K_Ξ's columns are cached by the ReducedGram
        base = KernelGram(kernel, X, cache_bytes=8 * checked_matrix(X, "X").shape[0])
    Xa = base.X
    Qa = np.asarray(Q, dtype=np.float64)
    n, k = Qa.shape if Qa.ndim == 2 else (-1, -1)
    if n != Xa.shape[0]:
        raise DataError(f"Q must have one row per point of X ({Xa.shape[0]}), got shape {Qa.shape}")
    if not np.all(np.isfinite(Qa)):
        raise DataError("Q contains NaN or infinity")
    if k == 0:
        empty = np.zeros((n, 0))
        return ReducedGram(base, np.zeros(0, dtype=np.intp), empty, empty, np.zeros((0, 0)), cache_bytes=cache_bytes)
    piv = qr(Qa.T, mode="economic", pivoting=True)[2]
    xi = np.sort(piv[:k]).astype(np.intp)
    Q_Xi = Qa[xi]
    ell = np.asarray(solve(Q_Xi.T, Qa.T).T)  # ℓ(X) = Q Q_Ξ⁻¹
    Phi_XXi = _base_columns(base, xi)
    return ReducedGram(base, xi, ell, Phi_XXi, Q_Xi, cache_bytes=cache_bytes)


def _base_columns(base: KernelGram, cols: Index) -> Array:
    """``Φ[:, cols]`` by the compiled core when Φ has a spec (the loop every cached column comes
    from, so K_Ξ's correction and Φ agree to the last bit, with no input checks per call), else
    through :meth:`KernelGram._block`; the kernel's own diagonal where a row is a column."""
    spec = base.spec
    if spec is None:
        return base._block(None, cols)
    out = np.array(_core().eval_columns(spec, base.n, np.ascontiguousarray(cols, dtype=np.intp)))
    if not np.all(np.isfinite(out)):
        raise DataError(f"{type(base).__name__}: the kernel has NaN or infinite entries")
    out[cols, np.arange(cols.shape[0])] = base.diagonal()[cols]
    return out


class _SubsetGram(GramOperator):
    """K on a subset W of its points (:meth:`GramOperator.subset`): the parent's spec restricted to
    W when it has one (the compiled core then computes the columns), else its blocks."""

    def __init__(self, parent: GramOperator, W: Index, *, cache_bytes: int) -> None:
        super().__init__(W.shape[0], cache_bytes=max(cache_bytes, 8 * W.shape[0]))
        self.parent, self.W = parent, W
        spec = parent.spec
        self._spec = None if spec is None else _spec_subset(spec, W)
        self._diag = np.ascontiguousarray(parent.diagonal()[W])

    @property
    def spec(self) -> GramSpec | None:
        """The parent's spec on the subset."""
        return self._spec

    def _block(self, rows: Index | None, cols: Index) -> Array:
        return self.parent._checked_block(self.W if rows is None else self.W[rows], self.W[cols])


def _spec_subset(spec: GramSpec, W: Index) -> GramSpec:
    def rows(a: Array | None) -> Array | None:
        return None if a is None else np.ascontiguousarray(a[W])

    matrix = None if spec.matrix is None else np.ascontiguousarray(spec.matrix[np.ix_(W, W)])
    X = spec.X if spec.kind == "matrix" else np.ascontiguousarray(spec.X[W])
    return GramSpec(
        spec.kind, X, spec.gamma, spec.coef0, spec.degree, spec.scale, spec.half_power, spec.log, matrix,
        rows(spec.left), rows(spec.right),
    )


class CallableGram(GramOperator):
    """A Gram matrix from a user callable.

    ``kind="pairs"``: ``func(A, B)`` returns the Gram matrix of the rows of ``A`` and ``B``
    (scikit-learn's callable kernels), evaluated on ``X``. ``kind="entries"``:
    ``func(rows, cols)`` returns ``K[np.ix_(rows, cols)]`` directly (``X`` unused, ``n`` given).
    ``diagonal`` may be passed when the callable cannot give it cheaply.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        X: ArrayLike | None = None,
        *,
        n: int | None = None,
        kind: str = "pairs",
        diagonal: ArrayLike | None = None,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        if not callable(func):
            raise ParameterError(f"func must be callable, got {type(func).__name__}")
        if kind not in ("pairs", "entries"):
            raise ParameterError(f"kind must be 'pairs' or 'entries', got {kind!r}")
        if kind == "pairs":
            if X is None:
                raise ParameterError("CallableGram(kind='pairs') needs the points X")
            self.X: Array | None = as_matrix(X, "X")
            n_pts = self.X.shape[0]
        else:
            if n is None:
                raise ParameterError("CallableGram(kind='entries') needs n, the number of points")
            self.X, n_pts = None, int(n)
        super().__init__(n_pts, cache_bytes=cache_bytes)
        self.func, self.kind = func, kind
        if diagonal is not None:
            d = np.asarray(diagonal, dtype=np.float64)
            if d.shape != (n_pts,):
                raise DataError(f"diagonal must have shape ({n_pts},), got {d.shape}")
            self._diag = d

    def _block(self, rows: Index | None, cols: Index) -> Array:
        if self.kind == "entries":
            r = np.arange(self.n) if rows is None else rows
            return np.asarray(self.func(r, cols), dtype=np.float64)
        assert self.X is not None
        Xr = self.X if rows is None else self.X[rows]
        return np.asarray(self.func(Xr, self.X[cols]), dtype=np.float64)


@dataclass(eq=False)
class _Term:
    op: GramOperator
    weight: float


def grouped(ops: Sequence[Any]) -> tuple[list[int], list[tuple[Any, list[int]]]]:
    """The positions of ``ops`` computed on their own, and by group (in order of first
    appearance) those whose ``group`` computes their columns together: the widths of a
    hyperkernel dictionary's relevance vector,
    :class:`~sdpkern.kernels.hyperkernel_terms.TermGroup`."""
    alone: list[int] = []
    shared: dict[int, tuple[Any, list[int]]] = {}
    for k, op in enumerate(ops):
        group = getattr(op, "group", None)
        if group is None:
            alone.append(k)
        else:
            shared.setdefault(id(group), (group, []))[1].append(k)
    return alone, list(shared.values())


class SumGram(GramOperator):
    """K = Σ_l w_l K_l over operators on the same points, each term caching its own columns.

    A column of the sum is the weighted sum of the terms' columns, which each term keeps in its
    own cache, so :meth:`reweighted` (a new learned kernel K(β) = Σ β_l K_l, 002 §3) costs
    additions, not kernel evaluations. Terms with weight 0 are skipped.

    Parameters
    ----------
    terms : sequence of GramOperator
    weights : sequence of float
    cache_bytes : int
        Cap of the sum's own column cache (each term has its own cap).
    """

    def __init__(
        self, terms: Sequence[GramOperator], weights: ArrayLike, *, cache_bytes: int = DEFAULT_CACHE_BYTES
    ) -> None:
        ops = list(terms)
        w = np.asarray(weights, dtype=np.float64)
        if not ops or w.shape != (len(ops),):
            raise DataError(f"weights must have one entry per term ({len(ops)}), got shape {w.shape}")
        if not np.all(np.isfinite(w)):
            raise DataError("weights contain NaN or infinity")
        n = ops[0].n
        if any(not isinstance(o, GramOperator) or o.n != n for o in ops):
            raise DataError("every term must be a GramOperator on the same n points")
        super().__init__(n, cache_bytes=cache_bytes)
        self.terms = [_Term(o, float(wi)) for o, wi in zip(ops, w)]

    @property
    def weights(self) -> Array:
        """The weights w_l of the terms."""
        return np.array([t.weight for t in self.terms])

    def reweighted(self, weights: ArrayLike) -> SumGram:
        """The same terms (and their caches) with new weights; the sum's own cache starts empty."""
        return SumGram([t.op for t in self.terms], weights, cache_bytes=self.cache_bytes)

    def _shared(self) -> tuple[list[_Term], list[tuple[Any, list[tuple[GramOperator, float]]]]]:
        """The terms of nonzero weight: those on their own, and by group those a group computes
        together (:func:`grouped`)."""
        live = [t for t in self.terms if t.weight != 0.0]
        alone, shared = grouped([t.op for t in live])
        return [live[k] for k in alone], [(g, [(live[k].op, live[k].weight) for k in ks]) for g, ks in shared]

    def _block(self, rows: Index | None, cols: Index) -> Array:
        alone, shared = self._shared()
        if rows is None:
            # whole columns are summed as rows (the caches' layout: no transposes), the result
            # returned as the (n, k) view the column cache stores back as rows
            out_t = np.zeros((cols.shape[0], self.n))
            for t in alone:
                out_t += t.weight * t.op.columns(cols).T
            for group, members in shared:  # one pass for the group's columns
                group.accumulate(out_t, cols, members)
            return out_t.T
        out = np.zeros((rows.shape[0], cols.shape[0]))
        for t in self.terms:
            if t.weight != 0.0:
                out += t.weight * t.op.block(rows, cols)
        return out

    def _fill(self, cols: Index, slots: Index, store: Array) -> None:
        """The columns into the cache's store as :meth:`GramOperator._fill`, except where a group
        of terms sums its members' columns itself (:meth:`~sdpkern.kernels.hyperkernel_terms.TermGroup.add_columns`,
        when the members' caches could not keep every column): the other terms' columns are then
        added to the group's, chunk by chunk."""
        alone, shared = self._shared()
        if not shared or not all(group.sums_columns(members) for group, members in shared):
            super()._fill(cols, slots, store)
            return
        store[slots] = 0.0
        for group, members in shared:
            group.add_columns(store, slots, cols, members)
        step = max(1, (1 << 20) // self.n)
        for t in alone:
            for a in range(0, cols.shape[0], step):
                store[slots[a : a + step]] += t.weight * t.op.columns(cols[a : a + step]).T

    def _diagonal(self) -> Array:
        return np.asarray(sum(t.weight * t.op.diagonal() for t in self.terms), dtype=np.float64)

    def subset(self, points: ArrayLike, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> GramOperator:
        """The sum of the terms' subsets: one term of weight 1 gets the whole budget, else each
        term half the budget over the terms and the sum's own cache the other half."""
        live = [t for t in self.terms if t.weight != 0.0]
        if len(live) == 1 and live[0].weight == 1.0:
            return live[0].op.subset(points, cache_bytes=cache_bytes)
        share = max(1, cache_bytes // (2 * max(1, len(self.terms))))
        ops = [t.op.subset(points, cache_bytes=share) for t in self.terms]
        return SumGram(ops, self.weights, cache_bytes=max(1, cache_bytes // 2))

    def _block_times(self, rows: Index, cols: Index, w: Array) -> Array:
        out = np.zeros(rows.shape[0])
        for t in self.terms:
            if t.weight != 0.0:
                out += t.weight * t.op._block_times(rows, cols, w)
        return out


def as_gram(K: Any, *, name: str = "K") -> GramOperator:
    """A :class:`GramOperator` from what a native solver was given: an operator (returned as is),
    a matrix (:class:`PrecomputedGram`) or an ``entries(rows, cols)`` callable (with ``n`` from
    its ``n`` attribute, else an error)."""
    if isinstance(K, GramOperator):
        return K
    if callable(K):
        n = getattr(K, "n", None)
        if n is None:
            raise ParameterError(f"{name}: a callable kernel needs the number of points; wrap it in CallableGram")
        return CallableGram(K, n=int(n), kind="entries")
    return PrecomputedGram(K, name=name)


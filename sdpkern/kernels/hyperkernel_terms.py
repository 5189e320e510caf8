"""Hyperkernel basis terms at scale: kernel columns on demand and a basis chosen over pair features.

Two pieces the native hyperkernel solver (:mod:`sdpkern.native.hyperkernel_master`) needs at
10⁴-10⁵ training points, where neither the (p, m, m) stack of base kernels
(:meth:`~sdpkern.kernels.lowrank.HyperkernelBasis.kernels`) nor the m² pair candidates of
:func:`~sdpkern.kernels.lowrank.hyperkernel_basis` fit in memory:

* :class:`TermGram`: one base kernel K_l[a, b] = k̲(φ_l, (x_a, x_b)) (002 eq. 2.15) as a
  :class:`~sdpkern.kernels.gram.GramOperator`, its columns computed on demand into a capped
  cache; :func:`learned_gram` sums them into K(β) = Σ_l β_l K_l (a
  :class:`~sdpkern.kernels.gram.SumGram`, so a new β costs additions, not kernel evaluations);
  :func:`term_quadratics` gives ½ uᵀK_l u for every basis term from the non-zeros of u only.
* :func:`sampled_basis`: the pivoted incomplete Cholesky rule of 002 §3.2.1 run on the
  hyperkernel Gram matrix of a random sample of training pairs instead of all m² pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix, check_integer, check_positive
from ..errors import ParameterError
from .gram import DEFAULT_CACHE_BYTES, GramOperator, SumGram
from .hyperkernels import ARDDictionary, HarmonicARD, Hyperkernel
from .lowrank import HyperkernelBasis, hyperkernel_basis, incomplete_cholesky

__all__ = [
    "TermGram",
    "learned_gram",
    "term_quadratics",
    "quadratic_bounds",
    "term_block",
    "learned_block",
    "sampled_basis",
]

Array = NDArray[np.float64]
Index = NDArray[np.intp]

#: Elements of one (rows, cols, features) temporary: bounds the memory of a block evaluation.
_CHUNK_ELEMENTS = 1 << 22


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
        for rows, args in _dictionary_groups(hyperkernel, features):
            if np.any(b[rows] != 0.0):
                out += _hkcore.ard_block(Xr, Xc, *args, np.ascontiguousarray(b[rows]))[0]
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
    hyperkernel: ARDDictionary, g: Array
) -> tuple[Array, Array, float, Array, NDArray[np.int64], Array]:
    """The compiled loops' arguments for one dictionary term of inverse widths g (one width, φ = 0)."""
    lam = float(hyperkernel.lambda_h)
    A = np.full((1, g.shape[0], 1), lam)
    return np.ascontiguousarray(g, dtype=np.float64), A, lam, np.ones(1), np.zeros(1, dtype=np.int64), np.ones(1)


def _dictionary_groups(
    hyperkernel: ARDDictionary, features: Array
) -> list[tuple[NDArray[np.intp], tuple[Array, Array, float, Array, NDArray[np.int64]]]]:
    """The dictionary terms in ``features`` grouped by relevance vector (direction of g).

    Terms g = r/(c_s σ) of one relevance vector r differ by a factor: with g_0 the widest and
    m_s = max(g)/max(g_0), e^{−ψ·g} = e^{−ψ·g_0·m_s}, so one pass of the compiled loops with
    inverse widths g_0 and multipliers m_s computes them all, each width's exponentials squared
    from the previous one where m_s/m_{s−1} is a power of 2 (the ladder). Returns, per group,
    the rows of ``features`` in ascending m and the loops' (inv_w, A, λ, inv_c, squarings).
    """
    F = np.asarray(features, dtype=np.float64)
    top = F.max(axis=1)
    direction = F / top[:, None]
    keys = np.round(direction, 10)
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

    def _block(self, rows: Index | None, cols: Index) -> Array:
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
        term), one column at a time by the compiled loop over points
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
        out = np.empty((XT.shape[1], cols.size))
        for k, c in enumerate(cols):
            out[:, k] = _hkcore.ard_columns(XT, np.ascontiguousarray(self.X[c]), *self._args)[0]
        return out

    def _diagonal(self) -> Array:
        psi = self.hyperkernel.pair_features(self.X, self.X)
        return np.asarray(self.hyperkernel.combine(self.feature[0], psi), dtype=np.float64)


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
        for rows, args in _dictionary_groups(hyperkernel, features):
            out[rows] = 0.5 * _compiled_quadratics(Xs, us, args, jobs)[:, 0]
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


def _compiled_quadratics(
    Xs: Array, us: Array, args: tuple[Array, Array, float, Array, NDArray[np.int64]], n_jobs: int
) -> Array:
    """uᵀK_{s,l} u per scale s and term l (S, p) by the compiled loop (arguments ``args``: inverse
    widths, A, λ, 1/c, squarings), its upper triangle's rows split over threads."""
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


def relevance_search(
    hyperkernel: ARDDictionary,
    X: Array,
    u: ArrayLike,
    start: ArrayLike,
    *,
    max_points: int = 300,
    max_iter: int = 50,
    floor: float = 1e-4,
    random_state: int | None = 0,
) -> tuple[Array, float]:
    """The relevance vector ρ ∈ [``floor``, 1]^d of largest ½ uᵀK_{ρ∘g₀} u, by L-BFGS-B from ρ = 1.

    K_g is the dictionary's harmonic ARD kernel of inverse widths g
    (:class:`~sdpkern.kernels.hyperkernels.ARDDictionary`), g₀ = ``start`` an active term's; ρ_d < 1
    widens dimension d (ρ_d → 0 ignores it). ½ uᵀK_l u is what a term adds to the hyperkernel
    problems' cones (for the C-SVM q_l(α) = ½ αᵀYK_lYα, u = y∘α): the term of largest q is the
    one whose cone is most violated (:func:`sdpkern.native.hyperkernel_master.hyperkernel_csvm_native`),
    so the search extends the dictionary where the optimality conditions over it fail. The search
    is local (q is not concave in ρ) and runs on at most ``max_points`` of the non-zeros of u (a
    seeded sample; it proposes a term, whose q is then computed exactly): what it returns is a
    candidate, not an optimum.

    Returns ρ scaled to max 1 (the widths of the ladder cover the overall scale) and q at the
    returned point on the sample.
    """
    from scipy.optimize import minimize

    ua = np.asarray(u, dtype=np.float64)
    g0 = np.asarray(start, dtype=np.float64)
    nz = np.flatnonzero(ua)
    d = X.shape[1]
    # O(s²) memory and O(s² d) time per evaluation: cap s²·d
    cap = int(min(max_points, max(50, np.sqrt(4e7 / max(d, 1)))))
    if nz.size > cap:
        nz = np.sort(np.random.default_rng(random_state).choice(nz, cap, replace=False))
    Xs, us = X[nz], ua[nz]
    W0 = np.outer(us, us)
    lam = float(hyperkernel.lambda_h)
    sq = [(Xs[:, k, None] - Xs[None, :, k]) ** 2 for k in range(d)]

    def objective(rho: Array) -> tuple[float, Array]:
        logK = np.zeros_like(W0)
        parts = []
        for k in range(d):
            E = np.exp(-(rho[k] * g0[k]) * sq[k])
            F = 1.0 - lam * E
            logK += np.log1p(-lam) - np.log(F)
            parts.append((E, F))
        W = W0 * np.exp(logK)
        grad = np.empty(d)
        for k, (E, F) in enumerate(parts):
            # ∂ log f_k/∂ρ_k = −λ E g₀ ψ / F
            grad[k] = -lam * g0[k] * float(np.sum(W * E * sq[k] / F))
        return -0.5 * float(W.sum()), -0.5 * grad

    res = minimize(objective, np.ones(d), jac=True, method="L-BFGS-B", bounds=[(floor, 1.0)] * d,
                   options={"maxiter": int(max_iter)})  # fmt: skip
    rho = np.clip(np.asarray(res.x, dtype=np.float64), floor, 1.0)
    return rho / rho.max(), float(-res.fun)

# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled loops of the harmonic ARD hyperkernel's base kernels (002 eq. 2.22, over width scales).

K_l(x, x') = Σ_s w_s Π_d (1 − λ) / (1 − A[s, d, l] e^{−ψ_d/c_s}),  ψ_d = (x_d − x'_d)²/σ_d,
A[s, d, l] = λ e^{−φ_ld/c_s} (φ_l the term's pair feature) and scale weights w_s: 1/S for the
mean over a ladder of widths (:class:`~sdpkern.kernels.hyperkernels.HarmonicARD`), or one weight
per width for the terms of :class:`~sdpkern.kernels.hyperkernels.ARDDictionary`. Each entry is computed in one pass
over (s, d) with the e^{−ψ_d/c_s} shared by all terms, without the (terms, rows, cols)
temporaries of the NumPy version (:mod:`sdpkern.kernels.hyperkernel_terms` calls these).
The products over d are taken in chunks of 64 factors so that neither (1 − λ)^d nor the
denominators under- or overflow for any d. Loops release the GIL: callers may run row ranges
in threads.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport exp, log1p, pow

from sdpkern._vecmath cimport apply_loop, find_loop, ufunc_loop

cnp.import_array()

#: Doubles of one tile of :func:`_columns`'s work rows: 32 KiB, within a core's L1 data cache.
cdef Py_ssize_t TILE_DOUBLES = 4096

cdef ufunc_loop EXP_LOOP = NULL
cdef void *EXP_DATA = NULL

if not find_loop(np.exp, &EXP_LOOP, &EXP_DATA):
    EXP_LOOP = NULL


# The products over the dimensions and the output of one tile of points (:func:`_column_products`),
# in C compiled twice: for the baseline instruction set and (x86-64 with GCC or Clang) for AVX2,
# chosen once at run time by the CPU's own report. Without -mfma neither build contracts a·b + c
# and both take the same operations in the same order, so they give the same bits (as the SVM
# core's column loops, :mod:`sdpkern._svmcore`). Four-wide vectors of the tile's points, so that
# they run at the width the build allows (docs/hyperkernel.md, stop 41).
cdef extern from *:
    """
    #include <stddef.h>
    /* Sixteen points at a time, their e^{-psi/c_s} kept in registers through the scales (the
       squarings from one scale to the next never touch memory), each den row read and written
       once per dimension and scale; the tile's last points one at a time, the same operations. */
    typedef double sdpk_ard_v4 __attribute__((vector_size(32)));
    #define SDPK_ARD_LD(v, q) __builtin_memcpy(&(v), (q), sizeof(sdpk_ard_v4))
    #define SDPK_ARD_ST(q, v) __builtin_memcpy((q), &(v), sizeof(sdpk_ard_v4))
    #define SDPK_ARD_RV 4
    #define SDPK_ARD_PRODUCTS_BODY { \
        const ptrdiff_t sp = n_sc * p; ptrdiff_t ne = 0, n_own = 0; int cnt = 0; \
        const sdpk_ard_v4 one = {1.0, 1.0, 1.0, 1.0}; \
        for (ptrdiff_t s = 0; s < n_sc; s++) n_own += (s == 0 || squarings[s] == 0); \
        for (ptrdiff_t r = 0; r < sp * nt; r++) { den[r] = 1.0; prod[r] = 1.0; } \
        for (ptrdiff_t d = 0; d < n_dim; d++) { \
            if (inv_w[d] == 0.0) continue; \
            const double *restrict Ad = A + d * p; \
            ptrdiff_t j = 0; \
            for (; j + 4 * SDPK_ARD_RV <= nt; j += 4 * SDPK_ARD_RV) { \
                sdpk_ard_v4 e[SDPK_ARD_RV]; ptrdiff_t ke = ne; \
                for (ptrdiff_t s = 0; s < n_sc; s++) { \
                    if (s > 0 && squarings[s] > 0) { \
                        for (long k = 0; k < squarings[s]; k++) \
                            for (int v = 0; v < SDPK_ARD_RV; v++) e[v] = e[v] * e[v]; \
                    } else { \
                        for (int v = 0; v < SDPK_ARD_RV; v++) SDPK_ARD_LD(e[v], G + ke * nt + j + 4 * v); \
                        ke++; \
                    } \
                    for (ptrdiff_t l = 0; l < p; l++) { \
                        const double a = Ad[s * n_dim * p + l]; const sdpk_ard_v4 av = {a, a, a, a}; \
                        double *q = den + (s * p + l) * nt + j; \
                        for (int v = 0; v < SDPK_ARD_RV; v++) { \
                            sdpk_ard_v4 dv; SDPK_ARD_LD(dv, q + 4 * v); \
                            dv = dv * (one - av * e[v]); SDPK_ARD_ST(q + 4 * v, dv); \
                        } \
                    } \
                } \
            } \
            for (; j < nt; j++) { \
                double e = 0.0; ptrdiff_t ke = ne; \
                for (ptrdiff_t s = 0; s < n_sc; s++) { \
                    if (s > 0 && squarings[s] > 0) { for (long k = 0; k < squarings[s]; k++) e = e * e; } \
                    else { e = G[ke * nt + j]; ke++; } \
                    for (ptrdiff_t l = 0; l < p; l++) { \
                        double *q = den + (s * p + l) * nt + j; \
                        *q = *q * (1.0 - Ad[s * n_dim * p + l] * e); \
                    } \
                } \
            } \
            ne += n_own; \
            if (++cnt == 64) { \
                for (ptrdiff_t r = 0; r < sp; r++) { \
                    double *restrict dr = den + r * nt; double *restrict pr = prod + r * nt; \
                    for (ptrdiff_t jj = 0; jj < nt; jj++) { pr[jj] = pr[jj] * (c64 / dr[jj]); dr[jj] = 1.0; } \
                } \
                cnt = 0; \
            } \
        } \
    }
    #define SDPK_ARD_OUT_BODY { \
        for (ptrdiff_t j = 0; j < nt; j++) out[j] = out[j] + pr[j] * (w / dr[j]); \
    }
    #define SDPK_ARD_PRODUCTS_ARGS (const double *restrict G, double *restrict den, double *restrict prod, ptrdiff_t nt, const double *restrict A, const double *restrict inv_w, \
        const long *restrict squarings, ptrdiff_t n_dim, ptrdiff_t n_sc, ptrdiff_t p, double c64)
    #define SDPK_ARD_OUT_ARGS (double *restrict out, const double *restrict pr, const double *restrict dr, \
        double w, ptrdiff_t nt)
    static void sdpk_ard_products_base SDPK_ARD_PRODUCTS_ARGS SDPK_ARD_PRODUCTS_BODY
    static void sdpk_ard_out_base SDPK_ARD_OUT_ARGS SDPK_ARD_OUT_BODY
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __attribute__((target("avx2")))
    static void sdpk_ard_products_avx2 SDPK_ARD_PRODUCTS_ARGS SDPK_ARD_PRODUCTS_BODY
    __attribute__((target("avx2")))
    static void sdpk_ard_out_avx2 SDPK_ARD_OUT_ARGS SDPK_ARD_OUT_BODY
    static int sdpk_ard_has_avx2(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx2") ? 1 : 0; }
    #else
    #define sdpk_ard_products_avx2 sdpk_ard_products_base
    #define sdpk_ard_out_avx2 sdpk_ard_out_base
    static int sdpk_ard_has_avx2(void) { return 0; }
    #endif
    static int sdpk_ard_use_avx2 = 0;
    static void sdpk_ard_init_simd(void) { sdpk_ard_use_avx2 = sdpk_ard_has_avx2(); }
    static void sdpk_ard_set_avx2(int on) { sdpk_ard_use_avx2 = on && sdpk_ard_has_avx2(); }
    static void sdpk_ard_products(const double *G, double *den, double *prod, ptrdiff_t nt,
        const double *A, const double *inv_w, const long *squarings, ptrdiff_t n_dim, ptrdiff_t n_sc, ptrdiff_t p,
        double c64)
    {
        if (sdpk_ard_use_avx2) sdpk_ard_products_avx2(G, den, prod, nt, A, inv_w, squarings, n_dim, n_sc, p, c64);
        else sdpk_ard_products_base(G, den, prod, nt, A, inv_w, squarings, n_dim, n_sc, p, c64);
    }
    static void sdpk_ard_out(double *out, const double *pr, const double *dr, double w, ptrdiff_t nt)
    { if (sdpk_ard_use_avx2) sdpk_ard_out_avx2(out, pr, dr, w, nt); else sdpk_ard_out_base(out, pr, dr, w, nt); }
    """
    void sdpk_ard_init_simd() noexcept nogil
    int sdpk_ard_has_avx2() noexcept nogil
    void sdpk_ard_set_avx2(int on) noexcept nogil
    int sdpk_ard_use_avx2
    void _ard_products "sdpk_ard_products"(
        const double *G, double *den, double *prod, Py_ssize_t nt, const double *A, const double *inv_w,
        const long *squarings, Py_ssize_t n_dim, Py_ssize_t n_sc, Py_ssize_t p, double c64,
    ) noexcept nogil
    void _ard_out "sdpk_ard_out"(double *out, const double *pr, const double *dr, double w, Py_ssize_t nt) noexcept nogil

sdpk_ard_init_simd()


def simd(on=None):
    """Whether the column loops' products run the AVX2 build; ``simd(False)`` / ``simd(True)``
    switch it (the latter only where the CPU has AVX2). Both builds give the same bits (tests
    compare them)."""
    if on is not None:
        sdpk_ard_set_avx2(1 if on else 0)
    return bool(sdpk_ard_use_avx2)


cdef inline void _vexp(double *x, Py_ssize_t n) noexcept nogil:
    """x[:n] = exp(x[:n]) by NumPy's SIMD loop (:mod:`sdpkern._vecmath`), libm's where it has none."""
    apply_loop(EXP_LOOP, EXP_DATA, exp, x, n)


cdef inline void _pair_exps(
    const double[:, ::1] Xr, const double[:, ::1] Xc, Py_ssize_t i, Py_ssize_t j,
    const double[::1] inv_w, const double[::1] inv_c, const long[::1] squarings, double[:, ::1] e,
) noexcept nogil:
    """e[s, d] = exp(−(Xr[i, d] − Xc[j, d])² inv_w[d] inv_c[s]), by squaring the previous scale's
    value ``squarings[s]`` times where that is exact."""
    cdef Py_ssize_t n_dim = Xr.shape[1], n_sc = inv_c.shape[0], s, d, k
    cdef double psi, v
    for d in range(n_dim):
        v = Xr[i, d] - Xc[j, d]
        psi = v * v * inv_w[d]
        for s in range(n_sc):
            if s > 0 and squarings[s] > 0:
                v = e[s - 1, d]
                for k in range(squarings[s]):
                    v = v * v
                e[s, d] = v
            else:
                e[s, d] = exp(-psi * inv_c[s])


cdef inline void _entries(
    const double* A, const double[:, ::1] e, double lam, double c64, Py_ssize_t n_dim, Py_ssize_t p,
    double* den, double* prod, double* acc,
) noexcept nogil:
    """acc[s·p + l] = scale s's product for term l at one pair, from its e[s, d] (module
    docstring). A is laid out (s, d, l) so that the innermost loop runs over the terms,
    independent and contiguous (vectorised by the compiler)."""
    cdef Py_ssize_t n_sc = e.shape[0], s, d, l, cnt
    cdef double ed, tail
    cdef const double* a
    for s in range(n_sc):
        for l in range(p):
            den[l] = 1.0
            prod[l] = 1.0
        cnt = 0
        for d in range(n_dim):
            ed = e[s, d]
            a = A + (s * n_dim + d) * p
            for l in range(p):
                den[l] = den[l] * (1.0 - a[l] * ed)
            cnt += 1
            if cnt == 64:
                for l in range(p):
                    prod[l] = prod[l] * (c64 / den[l])
                    den[l] = 1.0
                cnt = 0
        tail = pow(1.0 - lam, <double>cnt)
        for l in range(p):
            acc[s * p + l] = prod[l] * (tail / den[l])


def ard_block(
    const double[:, ::1] Xr, const double[:, ::1] Xc, const double[::1] inv_w, const double[:, :, ::1] A,
    double lam, const double[::1] inv_c, const long[::1] squarings, const double[::1] scale_w,
):
    """Σ_s scale_w[s] K_{s,l}[Xr, Xc] for every term l: an array (p, len(Xr), len(Xc)); A is (S, d, p)."""
    cdef Py_ssize_t p = A.shape[2], nr = Xr.shape[0], nc = Xc.shape[0], n_dim = Xr.shape[1]
    cdef Py_ssize_t n_sc = inv_c.shape[0], i, j, l, s
    cdef double v
    out_arr = np.empty((p, nr, nc))
    cdef double[:, :, ::1] out = out_arr
    cdef double[:, ::1] e = np.empty((n_sc, n_dim))
    cdef double[:, ::1] work = np.empty((2, max(p, 1)))
    cdef double[::1] acc = np.empty(max(n_sc * p, 1))
    cdef double c64 = pow(1.0 - lam, 64.0)
    with nogil:
        for i in range(nr):
            for j in range(nc):
                _pair_exps(Xr, Xc, i, j, inv_w, inv_c, squarings, e)
                _entries(&A[0, 0, 0], e, lam, c64, n_dim, p, &work[0, 0], &work[1, 0], &acc[0])
                for l in range(p):
                    v = 0.0
                    for s in range(n_sc):
                        v += scale_w[s] * acc[s * p + l]
                    out[l, i, j] = v
    return out_arr


def ard_quadratics(
    const double[:, ::1] Xs, const double[::1] us, const double[::1] inv_w, const double[:, :, ::1] A,
    double lam, const double[::1] inv_c, const long[::1] squarings, Py_ssize_t row_lo, Py_ssize_t row_hi,
):
    """Σ_{i ∈ [row_lo, row_hi), j ≥ i} w_ij u_i u_j K_{s,l}(x_i, x_j) for every scale s and term l
    (w = 1 on the diagonal, 2 off it), an array (S, p): summed over all row ranges it is
    uᵀK_{s,l} u. A is (S, d, p)."""
    cdef Py_ssize_t p = A.shape[2], ns = Xs.shape[0], n_dim = Xs.shape[1], n_sc = inv_c.shape[0]
    cdef Py_ssize_t i, j, k
    cdef double w
    q_arr = np.zeros((n_sc, p))
    cdef double[:, ::1] q = q_arr
    cdef double* qp = &q[0, 0]
    cdef double[:, ::1] e = np.empty((n_sc, n_dim))
    cdef double[:, ::1] work = np.empty((2, max(p, 1)))
    cdef double[::1] acc = np.empty(max(n_sc * p, 1))
    cdef double c64 = pow(1.0 - lam, 64.0)
    with nogil:
        for i in range(row_lo, row_hi):
            for j in range(i, ns):
                w = us[i] * us[j] * (1.0 if j == i else 2.0)
                _pair_exps(Xs, Xs, i, j, inv_w, inv_c, squarings, e)
                _entries(&A[0, 0, 0], e, lam, c64, n_dim, p, &work[0, 0], &work[1, 0], &acc[0])
                for k in range(n_sc * p):
                    qp[k] += w * acc[k]
    return q_arr


cdef void _column_products(
    const double[:, ::1] XT, const double* xc, const double[::1] inv_w, const double[:, :, ::1] A,
    double lam, const double[::1] inv_c, const long[::1] squarings, double* den, double* prod,
    double* G, Py_ssize_t j0, Py_ssize_t nt,
) noexcept nogil:
    """K_{s,l}(x_j, xc) = prod[(s·p + l)·nt + j − j0] · (1 − λ)^(d' mod 64) / den[same] for the
    points j0 ≤ j < j0 + nt of XT (d, n), times :func:`_ignored`'s constant, d' the dimensions
    with inv_w > 0. A tile of points at a time, so that den, prod and G stay in L1 through the
    passes over the dimensions: first every exponential the tile needs, in one call of the
    vectorised loop (G, one row of nt per dimension and scale that takes its own), then the
    products over the dimensions, the squarings from one scale to the next and the divisions,
    by the C loops above (``sdpk_ard_products``). A dimension with inv_w = 0 (one a dictionary's
    relevance vector ignores) has ψ = 0 at every pair: it is skipped here. Each entry's
    arithmetic does not depend on the tile it is computed in."""
    cdef Py_ssize_t p = A.shape[2], n_dim = XT.shape[0], n_sc = inv_c.shape[0], j, d, s, ne = 0
    cdef double v, coef, xd
    cdef double *g
    for d in range(n_dim):
        if inv_w[d] == 0.0:
            continue
        xd = xc[d]
        for s in range(n_sc):
            if s == 0 or squarings[s] == 0:
                coef = inv_w[d] * inv_c[s]
                g = G + ne * nt
                for j in range(nt):
                    v = XT[d, j0 + j] - xd
                    g[j] = -v * v * coef
                ne += 1
    _vexp(G, ne * nt)
    _ard_products(G, den, prod, nt, &A[0, 0, 0], &inv_w[0], &squarings[0], n_dim, n_sc, p,
                  pow(1.0 - lam, 64.0))


cdef object _ignored(const double[::1] inv_w, const double[:, :, ::1] A, double lam):
    """(the number of dimensions with inv_w > 0, per scale s and term l the product over the
    others of their constant factor (1 − λ)/(1 − A[s, d, l]), an array (S·p,)): ψ_d = 0 there at
    every pair, so :func:`_column_products` skips them (a relevance vector of a dictionary that
    keeps 2 of 20 features: a tenth of the work). The product is taken as the exponential of a
    sum of logarithms, which neither under- nor overflows for any number of dimensions."""
    cdef Py_ssize_t n_sc = A.shape[0], n_dim = A.shape[1], p = A.shape[2], d, s, l, kept = 0
    logs = np.zeros(n_sc * p)
    cdef double[::1] lg = logs
    cdef double head = log1p(-lam)
    for d in range(n_dim):
        if inv_w[d] != 0.0:
            kept += 1
            continue
        for s in range(n_sc):
            for l in range(p):
                lg[s * p + l] += head - log1p(-A[s, d, l])
    return kept, np.exp(logs)


cdef object _columns(
    const double[:, ::1] XT, const double[:, ::1] Xc, const double[::1] inv_w, const double[:, :, ::1] A,
    double lam, const double[::1] inv_c, const long[::1] squarings, const double[::1] scale_w, bint summed,
):
    """The columns of :func:`ard_columns` (``summed``: an array (1, p, k, n)) or of
    :func:`ard_scale_columns` (an array (S, p, k, n)), one pass of :func:`_column_products` per
    column point. Each entry is added to 0 in the order of the scales, so a single scale gives the
    same bits either way."""
    cdef Py_ssize_t p = A.shape[2], n = XT.shape[1], n_sc = inv_c.shape[0], nk = Xc.shape[0]
    cdef Py_ssize_t j, s, l, r, c, so
    if Xc.shape[1] != XT.shape[0]:
        raise ValueError("Xc and XT have different numbers of features")
    kept, const_arr = _ignored(inv_w, A, lam)
    cdef double tail = pow(1.0 - lam, <double>(kept % 64))
    cdef double[::1] const = const_arr
    cdef double w
    out_arr = np.zeros((1 if summed else n_sc, p, nk, n))
    cdef double[:, :, :, ::1] out = out_arr
    # the points in tiles whose work rows (den, prod and the exponentials G) fit in L1: whole
    # columns' rows fall out of it from a few thousand points on, and every pass over the
    # dimensions then streams them from L2
    cdef Py_ssize_t n_exp = 0
    for s in range(n_sc):
        n_exp += s == 0 or squarings[s] == 0
    cdef Py_ssize_t rows = 2 * n_sc * p + <Py_ssize_t>kept * n_exp
    cdef Py_ssize_t tile = max(16, (TILE_DOUBLES // rows) // 16 * 16)
    cdef double[::1] work = np.empty(rows * tile)
    cdef double *den = &work[0]
    cdef double *prod = den + n_sc * p * tile
    cdef double *G = prod + n_sc * p * tile
    cdef Py_ssize_t n_tiles = (n + tile - 1) // tile, t, j0, nt
    with nogil:
        for c in range(nk):
            for t in range(n_tiles):
                j0 = t * tile
                nt = min(tile, n - j0)
                _column_products(XT, &Xc[c, 0], inv_w, A, lam, inv_c, squarings, den, prod, G, j0, nt)
                for s in range(n_sc):
                    so = 0 if summed else s
                    for l in range(p):
                        r = (s * p + l) * nt
                        w = scale_w[s] * tail * const[s * p + l]
                        _ard_out(&out[so, l, c, j0], prod + r, den + r, w, nt)
    return out_arr


def ard_columns(
    const double[:, ::1] XT, const double[:, ::1] Xc, const double[::1] inv_w, const double[:, :, ::1] A,
    double lam, const double[::1] inv_c, const long[::1] squarings, const double[::1] scale_w,
):
    """Σ_s scale_w[s] K_{s,l}[:, c] for a few terms l and the columns of the points Xc (k, d), against
    every point of XT (d, n): an array (p, k, n), one contiguous column per (term, point).

    The column caches ask for a few columns at a time; :func:`ard_block` runs one point pair at
    a time (a serial chain of d multiplications per scale), here the points run innermost
    (:func:`_column_products`). The same sums and 64-factor chunks as :func:`ard_block`.
    """
    return _columns(XT, Xc, inv_w, A, lam, inv_c, squarings, scale_w, True)[0]


def ard_scale_columns(
    const double[:, ::1] XT, const double[:, ::1] Xc, const double[::1] inv_w, const double[:, :, ::1] A,
    double lam, const double[::1] inv_c, const long[::1] squarings, const double[::1] scale_w,
):
    """scale_w[s] K_{s,l}[:, c] for every scale s, term l and column point of Xc (k, d), against every
    point of XT (d, n), unsummed: an array (S, p, k, n). The widths of a dictionary's relevance
    vector are its scales (one pass of :func:`_column_products` computes them all); with a single
    scale the entries are those of :func:`ard_columns`, bit for bit."""
    return _columns(XT, Xc, inv_w, A, lam, inv_c, squarings, scale_w, False)

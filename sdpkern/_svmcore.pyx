# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""sdpkern's compiled core: kernel columns, the column cache, and the SMO solver.

Python-facing entry points validate nothing themselves: their callers in
:mod:`sdpkern.kernels.gram` and :mod:`sdpkern.native.svm_core` check shapes, dtypes, index ranges
and finiteness before calling, so that no out-of-range index ever reaches these loops.

Kernel evaluation (a :class:`~sdpkern.kernels.gram.GramSpec`): distances or inner products by
plain loops; ``exp`` and ``log`` through NumPy's own SIMD ufunc loops, called directly by their
function pointers (no Python call per column); the reduced-kernel correction
``K[r, c] = base(x_r, x_c) − left[r]·right[c]`` fused into the same pass.

The SMO solver (:func:`smo`) is libsvm's (Chang & Lin 2011; Fan, Chen & Lin 2005, working-set
selection by second order information) for min ½αᵀQα + pᵀα over a box with one equality
constraint (Solver), two (Solver_NU) or none, every problem type of
:mod:`sdpkern.native.svm_core` on it.
"""

cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport exp, floor, log, pow, sqrt, fabs, INFINITY
from libc.stdlib cimport qsort
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

import numpy as np

from sdpkern.errors import ParameterError

cnp.import_array()

from sdpkern._vecmath cimport apply_loop, find_loop, ufunc_loop

cdef ufunc_loop EXP_LOOP = NULL
cdef void *EXP_DATA = NULL
cdef ufunc_loop LOG_LOOP = NULL
cdef void *LOG_DATA = NULL

if not find_loop(np.exp, &EXP_LOOP, &EXP_DATA):
    EXP_LOOP = NULL
if not find_loop(np.log, &LOG_LOOP, &LOG_DATA):
    LOG_LOOP = NULL


cdef inline void _vexp(double *x, Py_ssize_t n) noexcept nogil:
    apply_loop(EXP_LOOP, EXP_DATA, exp, x, n)


cdef inline void _vlog(double *x, Py_ssize_t n) noexcept nogil:
    apply_loop(LOG_LOOP, LOG_DATA, log, x, n)


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


# ----------------------------------------------------------------------------- kernel specs
cdef enum:
    K_MATRIX = 0
    K_LINEAR = 1
    K_POLY = 2
    K_RBF = 3
    K_LAPLACE = 4
    K_POWER = 5

_KINDS = {"matrix": K_MATRIX, "linear": K_LINEAR, "poly": K_POLY, "rbf": K_RBF, "laplace": K_LAPLACE, "power": K_POWER}


cdef struct Spec:
    int kind
    Py_ssize_t n         # the rows evaluated (all n points, or a range of them: _eval_split)
    Py_ssize_t ld        # the row stride of XT and leftT (the number of points)
    Py_ssize_t d
    const double *X
    const double *M
    double gamma
    double coef0
    int degree
    double scale
    double half_power
    int int_power       # half_power as an integer, or -1
    int half_int_power  # half_power - 1/2 as an integer, or -1
    int uselog
    Py_ssize_t t
    const double *left
    const double *right
    const double *XT     # X transposed (d × n): the distance loops run over i, vectorised
    const double *leftT  # left transposed (t × n), for the same reason


cdef object _spec_arrays(object spec):
    """The arrays a Spec points into, C-contiguous float64 (kept alive by the caller), and the
    transposes of X and left the column loops read."""
    X = np.ascontiguousarray(spec.X, dtype=np.float64)
    M = None if spec.matrix is None else np.ascontiguousarray(spec.matrix, dtype=np.float64)
    L = None if spec.left is None else np.ascontiguousarray(spec.left, dtype=np.float64)
    R = None if spec.right is None else np.ascontiguousarray(spec.right, dtype=np.float64)
    XT = np.ascontiguousarray(X.T) if X.ndim == 2 else None
    LT = None if L is None else np.ascontiguousarray(L.T)
    return (X, M, L, R, XT, LT)


cdef void _fill_spec(Spec *s, object spec, tuple arrays, Py_ssize_t n) except *:
    cdef cnp.ndarray X = arrays[0]
    cdef cnp.ndarray M = arrays[1]
    cdef cnp.ndarray L = arrays[2]
    cdef cnp.ndarray R = arrays[3]
    cdef cnp.ndarray XT = arrays[4]
    cdef cnp.ndarray LT = arrays[5]
    s.kind = _KINDS[spec.kind]
    s.n = n
    s.ld = n
    s.d = X.shape[1] if X.ndim == 2 else 0
    s.X = <const double *>X.data
    s.XT = <const double *>XT.data if XT is not None else NULL
    s.M = <const double *>M.data if M is not None else NULL
    s.gamma = spec.gamma
    s.coef0 = spec.coef0
    s.degree = spec.degree
    s.scale = spec.scale
    s.half_power = spec.half_power
    s.int_power = <int>spec.half_power if spec.half_power == floor(spec.half_power) else -1
    s.half_int_power = <int>(spec.half_power - 0.5) if spec.half_power - 0.5 == floor(spec.half_power - 0.5) else -1
    s.uselog = 1 if spec.log else 0
    if L is not None and R is not None:
        s.t = L.shape[1]
        s.left = <const double *>L.data
        s.right = <const double *>R.data
        s.leftT = <const double *>LT.data
    else:
        s.t = 0
        s.left = NULL
        s.right = NULL
        s.leftT = NULL


cdef inline double _ipow(double x, int p) noexcept nogil:
    cdef double r = 1.0
    while p > 0:
        if p & 1:
            r *= x
        x *= x
        p >>= 1
    return r


# The two loops of a column whose cost grows with d and with the correction's width t, in C
# compiled twice: for the baseline instruction set and (x86-64 with GCC or Clang) for AVX2, chosen
# once at run time by the CPU's own report. Without -mfma neither build contracts a·b + c, and
# every path sums in the same order (k ascending), so the builds, the streamed and the register-
# blocked paths give the same bits. A lone column streams Xᵀ (or leftᵀ) once, bound by memory;
# a batch of three or more reads each of their entries once for the whole group, kept in
# registers (docs/cpd.md, "Measurements").
cdef extern from *:
    """
    #include <stddef.h>
    /* Register-blocked: G columns × RV four-wide row vectors kept in registers across the whole
       k loop, each entry getting the same operations in the same order (k ascending, no
       contraction) as a plain loop, so alone, in a batch and in either build it has the same bits. */
    typedef double sdpk_v4 __attribute__((vector_size(32)));
    #define SDPK_LD(v, p) __builtin_memcpy(&(v), (p), sizeof(sdpk_v4))
    #define SDPK_ST(p, v) __builtin_memcpy((p), &(v), sizeof(sdpk_v4))
    #define SDPK_SQDIST_G(G, RV, XJ, OUT) { \
        ptrdiff_t i = 0; \
        for (; i + 4 * (RV) <= n; i += 4 * (RV)) { \
            sdpk_v4 acc[G][RV]; \
            for (int g = 0; g < (G); g++) for (int r = 0; r < (RV); r++) acc[g][r] = (sdpk_v4){0.0, 0.0, 0.0, 0.0}; \
            for (ptrdiff_t k = 0; k < d; k++) { \
                sdpk_v4 x[RV]; \
                for (int r = 0; r < (RV); r++) SDPK_LD(x[r], XT + k * ld + i + 4 * r); \
                for (int g = 0; g < (G); g++) { \
                    const double p = XJ[g][k]; const sdpk_v4 pv = {p, p, p, p}; \
                    for (int r = 0; r < (RV); r++) { const sdpk_v4 e = x[r] - pv; acc[g][r] = acc[g][r] + e * e; } \
                } \
            } \
            for (int g = 0; g < (G); g++) for (int r = 0; r < (RV); r++) SDPK_ST(OUT[g] + i + 4 * r, acc[g][r]); \
        } \
        for (; i < n; i++) for (int g = 0; g < (G); g++) { \
            double a = 0.0; \
            for (ptrdiff_t k = 0; k < d; k++) { const double e = XT[k * ld + i] - XJ[g][k]; a = a + e * e; } \
            OUT[g][i] = a; \
        } \
    }
    #define SDPK_CORRECT_G(G, RV, RJ, OUT) { \
        ptrdiff_t i = 0; \
        for (; i + 4 * (RV) <= n; i += 4 * (RV)) { \
            sdpk_v4 acc[G][RV]; \
            for (int g = 0; g < (G); g++) for (int r = 0; r < (RV); r++) SDPK_LD(acc[g][r], OUT[g] + i + 4 * r); \
            for (ptrdiff_t k = 0; k < t; k++) { \
                sdpk_v4 l[RV]; \
                for (int r = 0; r < (RV); r++) SDPK_LD(l[r], LT + k * ld + i + 4 * r); \
                for (int g = 0; g < (G); g++) { \
                    const double p = RJ[g][k]; const sdpk_v4 pv = {p, p, p, p}; \
                    for (int r = 0; r < (RV); r++) acc[g][r] = acc[g][r] - l[r] * pv; \
                } \
            } \
            for (int g = 0; g < (G); g++) for (int r = 0; r < (RV); r++) SDPK_ST(OUT[g] + i + 4 * r, acc[g][r]); \
        } \
        for (; i < n; i++) for (int g = 0; g < (G); g++) { \
            double a = OUT[g][i]; \
            for (ptrdiff_t k = 0; k < t; k++) a = a - LT[k * ld + i] * RJ[g][k]; \
            OUT[g][i] = a; \
        } \
    }
    /* One or two columns: streamed over blocks of rows, k outer (each row of Xᵀ or leftᵀ read in
       order: the register blocks above would read d or t rows at once for too little reuse). */
    #define SDPK_SQDIST_STREAM(G, XJ, OUT) \
        for (ptrdiff_t lo = 0; lo < n; lo += 1024) { \
            const ptrdiff_t hi = lo + 1024 < n ? lo + 1024 : n; \
            for (int g = 0; g < (G); g++) for (ptrdiff_t i = lo; i < hi; i++) OUT[g][i] = 0.0; \
            for (ptrdiff_t k = 0; k < d; k++) { \
                const double *xk = XT + k * ld; \
                for (int g = 0; g < (G); g++) { \
                    const double p = XJ[g][k]; double *o = OUT[g]; \
                    for (ptrdiff_t i = lo; i < hi; i++) { const double e = xk[i] - p; o[i] = o[i] + e * e; } \
                } \
            } \
        }
    #define SDPK_CORRECT_STREAM(G, RJ, OUT) \
        for (ptrdiff_t lo = 0; lo < n; lo += 1024) { \
            const ptrdiff_t hi = lo + 1024 < n ? lo + 1024 : n; \
            for (ptrdiff_t k = 0; k < t; k++) { \
                const double *lk = LT + k * ld; \
                for (int g = 0; g < (G); g++) { \
                    const double p = RJ[g][k]; double *o = OUT[g]; \
                    for (ptrdiff_t i = lo; i < hi; i++) o[i] = o[i] - lk[i] * p; \
                } \
            } \
        }
    /* nb columns as groups: one or two streamed, three or four over 2 row vectors, five to eight
       over 1 (six to eight independent sums: the addition's latency hidden) */
    #define SDPK_GROUPS(KERNEL, STREAM, SRC) \
        for (int b = 0; b < nb;) { \
            const double *const *s_ = SRC + b; double *const *o_ = out + b; \
            switch (nb - b >= 8 ? 8 : nb - b) { \
                case 1: STREAM(1, s_, o_) b += 1; break; \
                case 2: STREAM(2, s_, o_) b += 2; break; \
                case 3: KERNEL(3, 2, s_, o_) b += 3; break; \
                case 4: KERNEL(4, 2, s_, o_) b += 4; break; \
                case 5: KERNEL(5, 1, s_, o_) b += 5; break; \
                case 6: KERNEL(6, 1, s_, o_) b += 6; break; \
                case 7: KERNEL(7, 1, s_, o_) b += 7; break; \
                default: KERNEL(8, 1, s_, o_) b += 8; break; \
            } \
        }
    #define SDPK_BODY_SQDIST SDPK_GROUPS(SDPK_SQDIST_G, SDPK_SQDIST_STREAM, xj)
    #define SDPK_BODY_CORRECT SDPK_GROUPS(SDPK_CORRECT_G, SDPK_CORRECT_STREAM, rj)
    static void sdpk_sqdist_base(const double *XT, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t d, const double *const *xj,
                               double *const *out, int nb)
    { SDPK_BODY_SQDIST }
    static void sdpk_correct_base(const double *LT, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t t, const double *const *rj,
                                  double *const *out, int nb)
    { SDPK_BODY_CORRECT }
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __attribute__((target("avx2")))
    static void sdpk_sqdist_avx2(const double *XT, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t d, const double *const *xj,
                               double *const *out, int nb)
    { SDPK_BODY_SQDIST }
    __attribute__((target("avx2")))
    static void sdpk_correct_avx2(const double *LT, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t t, const double *const *rj,
                                  double *const *out, int nb)
    { SDPK_BODY_CORRECT }
    static int sdpk_has_avx2(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx2") ? 1 : 0; }
    #else
    #define sdpk_sqdist_avx2 sdpk_sqdist_base
    #define sdpk_correct_avx2 sdpk_correct_base
    static int sdpk_has_avx2(void) { return 0; }
    #endif
    static int sdpk_use_avx2 = 0;
    static void sdpk_init_simd(void) { sdpk_use_avx2 = sdpk_has_avx2(); }
    static void sdpk_sqdist(const double *XT, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t d, const double *const *xj,
                            double *const *out, int nb)
    { if (sdpk_use_avx2) sdpk_sqdist_avx2(XT, ld, n, d, xj, out, nb); else sdpk_sqdist_base(XT, ld, n, d, xj, out, nb); }
    static void sdpk_correct(const double *LT, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t t, const double *const *rj,
                             double *const *out, int nb)
    { if (sdpk_use_avx2) sdpk_correct_avx2(LT, ld, n, t, rj, out, nb); else sdpk_correct_base(LT, ld, n, t, rj, out, nb); }
    static void sdpk_set_avx2(int on) { sdpk_use_avx2 = on && sdpk_has_avx2(); }
    """
    void sdpk_init_simd() noexcept nogil
    int sdpk_has_avx2() noexcept nogil
    void sdpk_set_avx2(int on) noexcept nogil
    int sdpk_use_avx2
    void _sqdist "sdpk_sqdist"(const double *XT, Py_ssize_t ld, Py_ssize_t n, Py_ssize_t d, const double **xj,
                               double **out, int nb) noexcept nogil
    void _correct "sdpk_correct"(const double *LT, Py_ssize_t ld, Py_ssize_t n, Py_ssize_t t, const double **rj,
                                 double **out, int nb) noexcept nogil

sdpk_init_simd()


cdef bint _AHEAD = True


def ahead(on=None):
    """Whether SMO computes columns ahead (:meth:`ColumnCache.col_ahead`); ``ahead(False)`` /
    ``ahead(True)`` switch it. Only which columns are cached, and when, depend on it: every column
    has the same bits alone or in a batch, so the solves give the same bits (tests compare them)."""
    global _AHEAD
    if on is not None:
        _AHEAD = bool(on)
    return bool(_AHEAD)


def simd(on=None):
    """Whether the column loops run the AVX2 build; ``simd(False)`` / ``simd(True)`` switch it (the
    latter only where the CPU has AVX2). Both builds give the same bits (tests compare them)."""
    if on is not None:
        sdpk_set_avx2(1 if on else 0)
    return bool(sdpk_use_avx2)


cdef inline bint _by_distance(const Spec *s) noexcept nogil:
    return s.kind == K_RBF or s.kind == K_LAPLACE or s.kind == K_POWER


cdef void _eval_column(const Spec *s, Py_ssize_t j, double *out, double *buf, bint dist_done=False) noexcept nogil:
    """out[i] = K(x_i, x_j) for every i (K symmetric: column j = row j). Every column is computed
    by this one loop, alone or in a batch (:func:`_eval_batch`: the same operations on each entry):
    a batch through BLAS rounds differently, and a solver mixing both kinds of columns sees a
    kernel that is not symmetric to the last bit (the primal Newton method then need not settle).
    ``dist_done``: out holds the squared distances already."""
    cdef Py_ssize_t n = s.n, d = s.d, i, k
    cdef const double *xj
    cdef const double *xi
    cdef const double *rj
    cdef const double *li
    cdef const double *xk
    cdef double acc, diff, sq, p
    if s.kind == K_MATRIX:
        for i in range(n):
            out[i] = s.M[j * n + i]
    else:
        xj = s.X + j * d
        if s.kind == K_LINEAR or s.kind == K_POLY:
            for i in range(n):
                xi = s.X + i * d
                acc = 0.0
                for k in range(d):
                    acc += xi[k] * xj[k]
                if s.kind == K_POLY:
                    acc = _ipow(s.gamma * acc + s.coef0, s.degree)
                out[i] = acc
        else:
            if not dist_done:
                _sqdist(s.XT, s.ld, n, d, &xj, &out, 1)
            if s.kind == K_RBF:
                for i in range(n):
                    out[i] = -s.gamma * out[i]
                _vexp(out, n)
            elif s.kind == K_LAPLACE:
                for i in range(n):
                    out[i] = -s.gamma * sqrt(out[i])
                _vexp(out, n)
            elif s.uselog and s.int_power == 1:  # the thin-plate r² log r = scale · s · ½ log s
                for i in range(n):
                    buf[i] = out[i] if out[i] > 0.0 else 1.0  # s = 0: s · log 1 = 0
                _vlog(buf, n)
                p = 0.5 * s.scale
                for i in range(n):
                    out[i] = p * out[i] * buf[i]
            else:  # K_POWER: scale * s^h * (½ log s)
                if s.uselog:
                    for i in range(n):
                        buf[i] = out[i] if out[i] > 0.0 else 1.0
                    _vlog(buf, n)
                for i in range(n):
                    sq = out[i]
                    if sq <= 0.0:
                        out[i] = 0.0
                        continue
                    if s.int_power >= 0:
                        p = _ipow(sq, s.int_power)
                    elif s.half_int_power >= 0:
                        p = sqrt(sq) * _ipow(sq, s.half_int_power)
                    else:
                        p = pow(sq, s.half_power)
                    if s.uselog:
                        p *= 0.5 * buf[i]
                    out[i] = s.scale * p
    if s.t > 0:
        _eval_correction(s, &j, &out, 1)


cdef enum:
    BATCH = 8
    AHEAD_WIDTH = 16


cdef void _eval_correction(const Spec *s, const Py_ssize_t *cols, double **outs, int nb) noexcept nogil:
    """The correction −left·right[j] of the columns ``cols[:nb]`` (nb ≤ BATCH) in one pass over leftᵀ
    (2.5 MB at n = 7400, t = 42: read once for the batch instead of once per column; each entry
    gets the same subtractions in the same order as alone)."""
    cdef const double *rj[BATCH]
    cdef int b
    for b in range(nb):
        rj[b] = s.right + cols[b] * s.t
    _correct(s.leftT, s.ld, s.n, s.t, rj, outs, nb)


cdef void _eval_batch(const Spec *s, const Py_ssize_t *cols, double **outs, Py_ssize_t m, double *buf) noexcept nogil:
    """Columns ``cols[:m]`` into ``outs[:m]``: each as :func:`_eval_column`, the corrections BATCH at a time."""
    cdef Py_ssize_t a, b, nb
    cdef Spec base = s[0]
    cdef const double *xj[BATCH]
    cdef bint dist = _by_distance(s)
    base.t = 0
    a = 0
    while a < m:
        nb = min(<Py_ssize_t>BATCH, m - a)
        if dist:  # the squared distances of the batch in one pass over Xᵀ
            for b in range(nb):
                xj[b] = s.X + cols[a + b] * s.d
            _sqdist(s.XT, s.ld, s.n, s.d, xj, outs + a, <int>nb)
        for b in range(nb):
            _eval_column(&base, cols[a + b], outs[a + b], buf, dist)
        if s.t > 0:
            _eval_correction(s, cols + a, outs + a, <int>nb)
        a += nb


# ----------------------------------------------------------------------------- column cache
# ---- Σ_b w_b K[:, cols_b] over row ranges (ColumnCache.weighted_sum), one range per thread
cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t *th, const void *attr, void *(*fn)(void *) noexcept nogil, void *arg)
    int pthread_join(pthread_t th, void **ret)

#: numbers (columns × rows) from which weighted_sum takes a second thread: about 8 MB read, some
#: 0.5 ms, against the tens of microseconds of starting and joining a thread
cdef Py_ssize_t SUM_SPLIT_NUMBERS = 1 << 20

ctypedef struct _RowSum:
    double *out
    const size_t *ptrs
    const double *w
    Py_ssize_t m, lo, hi


cdef void _row_sum(_RowSum *s) noexcept nogil:
    """out[lo:hi] += Σ_b w_b col_b[lo:hi], over row blocks of 2048 (in L1), b in order: four
    columns a pass, each entry added to in turn (the order of one column a pass, so the same
    bits), which reads and writes out a quarter as often."""
    cdef Py_ssize_t a, b, k, lo = s.lo, hi
    cdef double w0, w1, w2, w3, t
    cdef const double *p0
    cdef const double *p1
    cdef const double *p2
    cdef const double *p3
    cdef double *o = s.out
    while lo < s.hi:
        hi = min(lo + 2048, s.hi)
        b = 0
        while b + 4 <= s.m:
            w0, w1, w2, w3 = s.w[b], s.w[b + 1], s.w[b + 2], s.w[b + 3]
            p0, p1 = <const double *>s.ptrs[b], <const double *>s.ptrs[b + 1]
            p2, p3 = <const double *>s.ptrs[b + 2], <const double *>s.ptrs[b + 3]
            for a in range(lo, hi):
                t = o[a] + w0 * p0[a]
                t = t + w1 * p1[a]
                t = t + w2 * p2[a]
                o[a] = t + w3 * p3[a]
            b += 4
        for k in range(b, s.m):
            w0, p0 = s.w[k], <const double *>s.ptrs[k]
            for a in range(lo, hi):
                o[a] += w0 * p0[a]
        lo = hi


cdef void *_row_sum_main(void *arg) noexcept nogil:
    _row_sum(<_RowSum *>arg)
    return NULL


cdef class ColumnCache:
    """Kernel columns in the rows of one array, ``slot_of[j]`` their slot, LRU eviction.

    See :mod:`sdpkern.kernels.gram` ("The column cache") for the policy. ``owner`` computes
    columns the spec cannot, into the store's slots (``owner._fill(cols, slots, store)``).
    """

    cdef public object owner
    cdef public object store_array
    cdef public object slot_array
    cdef public object point_array
    cdef public object stamp_array
    cdef double[:, ::1] store
    cdef Py_ssize_t[::1] slot_of
    cdef Py_ssize_t[::1] point_of
    cdef long long[::1] stamp
    cdef Py_ssize_t[::1] free
    cdef Py_ssize_t nfree
    cdef public Py_ssize_t n
    cdef public Py_ssize_t capacity
    cdef public long long tick
    cdef public long long computed
    cdef public long long evictions
    cdef public double seconds
    cdef public bint fixed
    cdef Spec spec
    cdef bint has_spec
    cdef object spec_refs
    cdef double[::1] buf
    cdef unsigned char[::1] guessed   # per slot: computed ahead (col_ahead) and not asked for yet
    cdef public long long ahead_fetched
    cdef public long long ahead_used
    cdef void *team   # the SMO's second thread while :func:`smo` runs on this cache (a Team), else NULL
    cdef public long long split_columns  # columns whose rows the two threads computed (_eval_split)
    cdef object __weakref__

    def __init__(self, owner, Py_ssize_t n, Py_ssize_t capacity, spec=None, matrix=None):
        self.owner = owner
        self.n = n
        self.tick = 0
        self.computed = 0
        self.evictions = 0
        self.seconds = 0.0
        self.buf = np.empty(n)
        self.guessed = np.zeros(max(capacity, n), dtype=np.uint8)
        self.ahead_fetched = 0
        self.ahead_used = 0
        self.team = NULL
        self.split_columns = 0
        self.slot_array = np.full(n, -1, dtype=np.intp)
        self.slot_of = self.slot_array
        self.has_spec = spec is not None
        if self.has_spec:
            self.spec_refs = _spec_arrays(spec)
            _fill_spec(&self.spec, spec, self.spec_refs, n)
        if matrix is not None:  # a precomputed matrix is its own cache: every column present
            self.fixed = True
            self.capacity = n
            self.store_array = matrix
            self.store = matrix
            self.slot_array[:] = np.arange(n)
            self.point_array = np.arange(n, dtype=np.intp)
            self.point_of = self.point_array
            self.stamp_array = np.zeros(n, dtype=np.int64)
            self.stamp = self.stamp_array
            self.free = np.empty(0, dtype=np.intp)
            self.nfree = 0
        else:
            self.fixed = False
            self.capacity = capacity
            self.store_array = None
            self.point_array = np.full(capacity, -1, dtype=np.intp)
            self.point_of = self.point_array
            self.stamp_array = np.zeros(capacity, dtype=np.int64)
            self.stamp = self.stamp_array
            self.free = np.arange(capacity - 1, -1, -1, dtype=np.intp)
            self.nfree = capacity

    cdef void _allocate(self) except *:
        if self.store_array is None:
            # np.empty: a slot's memory is written before it is read (products over the store
            # read only the slots of the columns asked for, :meth:`weighted_sum`)
            self.store_array = np.empty((self.capacity, self.n))
            self.store = self.store_array

    cdef void _evict(self, Py_ssize_t m) except *:
        """Free at least m slots: least recently used first, never one stamped this tick."""
        stamps = self.stamp_array
        points = self.point_array
        occupied = np.flatnonzero((points >= 0) & (stamps < self.tick))
        want = min(occupied.size, max(m, self.capacity // 8))
        if want < m:
            raise ParameterError(
                f"the kernel column cache that cache_bytes gives holds {self.capacity} columns of {self.n} entries "
                f"({8 * self.n} bytes each), fewer than one request of the solver needs at once; raise cache_bytes"
            )
        if want < occupied.size:
            victims = occupied[np.argpartition(stamps[occupied], want - 1)[:want]]
        else:
            victims = occupied
        cdef Py_ssize_t[::1] v = np.ascontiguousarray(victims, dtype=np.intp)
        cdef Py_ssize_t a, slot
        for a in range(v.shape[0]):
            slot = v[a]
            self.slot_of[self.point_of[slot]] = -1
            self.point_of[slot] = -1
            self.guessed[slot] = 0
            self.free[self.nfree] = slot
            self.nfree += 1
        self.evictions += v.shape[0]

    cdef Py_ssize_t _take(self) except -1:
        if self.nfree == 0:
            self._evict(1)
        self.nfree -= 1
        return self.free[self.nfree]

    cdef double *col(self, Py_ssize_t j) except NULL:
        """Pointer to column j (computed if missing), stamped with the current tick."""
        cdef Py_ssize_t slot = self.slot_of[j]
        cdef double t0
        if slot >= 0:
            self.stamp[slot] = self.tick
            if self.guessed[slot]:
                self.guessed[slot] = 0
                self.ahead_used += 1
            return &self.store[slot, 0]
        self._allocate()
        slot = self._take()
        t0 = _now()
        cdef double *out = &self.store[slot, 0]
        if self.has_spec and _splits(self.team, &self.spec):
            _eval_split(self.team, &self.spec, &j, &out, 1, &self.buf[0])
            self.split_columns += 1
        elif self.has_spec:
            _eval_column(&self.spec, j, out, &self.buf[0])
        else:
            self.owner._fill(np.array([j], dtype=np.intp), np.array([slot], dtype=np.intp), self.store_array)
        self.seconds += _now() - t0
        self.computed += 1
        self.slot_of[j] = slot
        self.point_of[slot] = j
        self.stamp[slot] = self.tick
        return &self.store[slot, 0]

    cdef double *col_ahead(self, Py_ssize_t j, const Py_ssize_t *extra, Py_ssize_t m) except NULL:
        """:meth:`col`, and when column j is missing, the missing columns among ``extra[:m]``
        computed in the same batch (one pass over the spec's arrays for up to BATCH columns
        instead of one per column; each column the same bits as alone) into free slots only: a
        guess at the columns the next steps ask for never evicts a column."""
        cdef Py_ssize_t cols[BATCH]
        cdef double *outs[BATCH]
        cdef Py_ssize_t a, b, nb = 1, slot
        cdef double t0
        cdef bint dup
        if self.slot_of[j] >= 0 or not self.has_spec or m == 0:
            return self.col(j)
        self._allocate()
        if self.nfree < 2:
            return self.col(j)
        cols[0] = j
        for a in range(m):
            if nb >= BATCH or nb >= self.nfree:
                break
            if self.slot_of[extra[a]] >= 0:
                continue
            dup = False
            for b in range(nb):
                if cols[b] == extra[a]:
                    dup = True
            if not dup:
                cols[nb] = extra[a]
                nb += 1
        for a in range(nb):
            self.nfree -= 1
            slot = self.free[self.nfree]
            outs[a] = &self.store[slot, 0]
            self.slot_of[cols[a]] = slot
            self.point_of[slot] = cols[a]
            self.stamp[slot] = self.tick
            self.guessed[slot] = a > 0
        self.ahead_fetched += nb - 1
        t0 = _now()
        if _splits(self.team, &self.spec):
            _eval_split(self.team, &self.spec, cols, outs, nb, &self.buf[0])
            self.split_columns += nb
        else:
            _eval_batch(&self.spec, cols, outs, nb, &self.buf[0])
        self.seconds += _now() - t0
        self.computed += nb
        return outs[0]

    def ensure(self, Py_ssize_t[::1] cols):
        """Cache the (distinct) columns ``cols``; False, caching nothing, when they exceed the capacity."""
        cdef Py_ssize_t a, j, slot, m = cols.shape[0], nnew = 0
        cdef double t0
        if self.fixed:
            return True
        if m > self.capacity:
            return False
        self.tick += 1
        for a in range(m):
            slot = self.slot_of[cols[a]]
            if slot >= 0:
                self.stamp[slot] = self.tick
            else:
                nnew += 1
        if nnew == 0:
            return True
        self._allocate()
        if self.nfree < nnew:
            self._evict(nnew - self.nfree)
        new = np.empty(nnew, dtype=np.intp)
        slots = np.empty(nnew, dtype=np.intp)
        cdef Py_ssize_t[::1] nv = new
        cdef Py_ssize_t[::1] sv = slots
        cdef size_t[::1] pv
        nnew = 0
        for a in range(m):
            j = cols[a]
            if self.slot_of[j] < 0:
                nv[nnew] = j
                self.nfree -= 1
                sv[nnew] = self.free[self.nfree]
                nnew += 1
        t0 = _now()
        if self.has_spec:
            ptrs = np.empty(nnew, dtype=np.uintp)
            pv = ptrs
            for a in range(nnew):
                pv[a] = <size_t>&self.store[sv[a], 0]
            _eval_batch(&self.spec, &nv[0], <double **>&pv[0], nnew, &self.buf[0])
        else:
            self.owner._fill(new, slots, self.store_array)
        self.seconds += _now() - t0
        self.computed += nnew
        for a in range(nnew):
            self.slot_of[nv[a]] = sv[a]
            self.point_of[sv[a]] = nv[a]
            self.stamp[sv[a]] = self.tick
        return True

    def offer(self, Py_ssize_t[::1] cols, const double[:, ::1] values):
        """Keep columns computed elsewhere (``values[a]`` is column ``cols[a]``; the terms of a
        dictionary's relevance vector come from one pass) where there is room: in free slots, or
        in place of the least recently used columns not used at this tick. Columns already
        cached are left as they are. Returns how many were stored; none is computed here."""
        cdef Py_ssize_t a, j, slot, stored = 0
        if self.fixed:
            return 0
        if values.shape[0] != cols.shape[0] or values.shape[1] != self.n:
            raise ValueError("values must have one row of n entries per column")
        self._allocate()
        for a in range(cols.shape[0]):
            j = cols[a]
            if self.slot_of[j] >= 0:
                continue
            if self.nfree == 0:
                if not np.any((self.point_array >= 0) & (self.stamp_array < self.tick)):
                    break
                self._evict(1)
            self.nfree -= 1
            slot = self.free[self.nfree]
            self.store[slot, :] = values[a, :]
            self.slot_of[j] = slot
            self.point_of[slot] = j
            self.stamp[slot] = self.tick
            stored += 1
        return stored

    def add_to(self, double[:, ::1] out, Py_ssize_t[::1] cols, double w):
        """out[a] += w · K[:, cols[a]] for every a (each column cached): a weighted sum of
        several operators' columns (:class:`~sdpkern.kernels.gram.SumGram`) without temporaries."""
        cdef Py_ssize_t a, i, n = self.n
        cdef double *p
        if out.shape[0] != cols.shape[0] or out.shape[1] != n:
            raise ValueError("out must have one row of n entries per column")
        for a in range(cols.shape[0]):
            if self.slot_of[cols[a]] < 0:
                raise ValueError(f"column {cols[a]} is not cached")
        with nogil:
            for a in range(cols.shape[0]):
                p = &self.store[self.slot_of[cols[a]], 0]
                for i in range(n):
                    out[a, i] += w * p[i]

    def gather(self, Py_ssize_t[::1] rows, Py_ssize_t[::1] cols, out=None):
        """K[rows, cols] (every column cached) as a Fortran-ordered array: a new one, or the
        leading block of ``out`` (Fortran-ordered, at least that large), written in place."""
        cdef Py_ssize_t a, b, nr = rows.shape[0], nc = cols.shape[0]
        if out is None:
            full = np.empty((nc, nr))
        else:
            if out.ndim != 2 or out.shape[0] < nr or out.shape[1] < nc or not out.flags.f_contiguous:
                raise ValueError("gather: out must be a Fortran-ordered array of at least the block's shape")
            full = out.T
        cdef double[:, ::1] o = full
        cdef double *p
        for b in range(nc):
            p = &self.store[self.slot_of[cols[b]], 0]
            for a in range(nr):
                o[b, a] = p[rows[a]]
        return full[:nc, :nr].T

    def weighted_sum(self, Py_ssize_t[::1] cols, double[::1] w, int threads=1):
        """Σ_b w_b K[:, cols_b] over cached columns, each entry summed over b in the order given
        (the same bits wherever the columns sit in the store, and whatever ``threads``), in row
        blocks that stay in L1. With ``threads`` ≥ 2 and at least ``SUM_SPLIT_NUMBERS`` numbers to
        read, a second thread sums the lower half of the rows: the sum reads every cached column
        once, bound by memory traffic, which one core does not saturate."""
        cdef Py_ssize_t b, n = self.n, m = cols.shape[0]
        out = np.zeros(n)
        ptrs = np.empty(max(m, 1), dtype=np.uintp)
        cdef size_t[::1] pv = ptrs
        cdef double[::1] o = out
        for b in range(m):
            pv[b] = <size_t>&self.store[self.slot_of[cols[b]], 0]
        if m == 0 or n == 0:
            return out
        cdef _RowSum top, bottom
        top.out, top.ptrs, top.w, top.m, top.lo, top.hi = &o[0], &pv[0], &w[0], m, 0, n
        bottom = top
        cdef pthread_t th
        cdef bint split = threads > 1 and m * n >= SUM_SPLIT_NUMBERS
        with nogil:
            if split:
                top.hi = (n // 2) & ~(<Py_ssize_t>7)
                bottom.lo = top.hi
                split = pthread_create(&th, NULL, _row_sum_main, &bottom) == 0
                if not split:
                    top.hi = n
            _row_sum(&top)
            if split:
                pthread_join(th, NULL)
        return out

    def clear(self):
        if self.fixed:
            return
        self.slot_array[:] = -1
        self.point_array[:] = -1
        self.guessed[:] = 0
        self.free = np.arange(self.capacity - 1, -1, -1, dtype=np.intp)
        self.nfree = self.capacity


def eval_columns(spec, Py_ssize_t n, Py_ssize_t[::1] cols):
    """K[:, cols] (shape (n, len(cols))) evaluated from ``spec`` without a cache."""
    cdef Spec s
    refs = _spec_arrays(spec)
    _fill_spec(&s, spec, refs, n)
    out = np.empty((cols.shape[0], n))
    cdef double[:, ::1] o = out
    cdef double[::1] buf = np.empty(n)
    cdef Py_ssize_t b
    ptrs = np.empty(cols.shape[0], dtype=np.uintp)
    cdef size_t[::1] pv = ptrs
    for b in range(cols.shape[0]):
        pv[b] = <size_t>&o[b, 0]
    if cols.shape[0]:
        _eval_batch(&s, &cols[0], <double **>&pv[0], cols.shape[0], &buf[0])
    return out.T



def radial_gram_inplace(double[:, ::1] G, const double[::1] sq, double sign, int p, bint use_log):
    """Turn G = X Xᵀ into the symmetric radial Gram Φ in place (the thin-plate φ of 000 eq. 11).

    For i < j: d² = ½(D_ij + D_ji) with D_ij = (−2 G_ij + ‖x_i‖²) + ‖x_j‖² clipped at 0 (the
    order of :func:`sdpkern.kernels.base.squared_distances`, which is not symmetric in rounding;
    averaged as the NumPy route did, so the bits are its bits), then φ = (½·sign·log d²)·(d²)^{p/2}
    (0 at d² = 0) if ``use_log`` (p even) else sign·(d²)^{p/2}, written to (i, j) and (j, i)
    (G_ji is read before it is overwritten); the diagonal is exactly 0. One pass instead of
    NumPy's six over n² (the logs of a row at a time through NumPy's SIMD loop, :func:`_vlog`).
    """
    cdef Py_ssize_t n = G.shape[0], i, j, m
    cdef double d2, dt, v, half = 0.5 * sign, expo = 0.5 * p, si
    cdef int k = p // 2, t
    cdef double[::1] lg = np.empty(max(n, 1))
    with nogil:
        for i in range(n):
            si = sq[i]
            m = n - i - 1
            for j in range(i + 1, n):
                d2 = (-2.0 * G[i, j] + si) + sq[j]
                if d2 < 0.0:
                    d2 = 0.0
                dt = (-2.0 * G[j, i] + sq[j]) + si
                if dt < 0.0:
                    dt = 0.0
                d2 = 0.5 * (d2 + dt)
                G[i, j] = d2
                lg[j - i - 1] = d2 if d2 > 0.0 else 1.0
            if use_log and m > 0:
                _vlog(&lg[0], m)
            for j in range(i + 1, n):
                d2 = G[i, j]
                if d2 > 0.0:
                    if use_log:
                        v = lg[j - i - 1] * half
                        if k == 1:
                            v = v * d2
                        else:
                            v = v * pow(d2, <double>k)
                    elif p == 1:
                        v = sign * sqrt(d2)
                    else:
                        v = sign * pow(d2, expo)
                else:
                    v = 0.0
                G[i, j] = v
                G[j, i] = v
            G[i, i] = 0.0


# ----------------------------------------------------------------------------- SMO
# One solver for  min ½αᵀQα + pᵀα  subject to  0 ≤ α_t ≤ upper_t  and, by ``mode``,
#   0: nothing else (single-coordinate steps),
#   1: yᵀα = Δ (libsvm's Solver: pairs by second-order working-set selection),
#   2: yᵀα = Δ₁ and eᵀα = Δ₂ (libsvm's Solver_NU: pairs within one class),
# with Q_st = y_s y_t K(x_{s mod n}, x_{t mod n}) + D_t [s = t], K the kernel of a column cache on n
# points and l = n or 2n variables (ε/ν-regression: α and α* over one kernel), y ∈ {−1, +1}.
# The state kept is v = −y∘∇ (∇ = Qα + p): libsvm's selection reads −y_t∇_t, and a pair step
# (δ = y_iΔα_i = −y_jΔα_j) changes it by −δ(K_{·i} − K_{·j}), the same for every problem type.
cdef double TAU = 1e-12


# The two passes of a pair step (modes 1-2) over every variable in memory order, four at a time (GCC/
# Clang vector extensions, built for AVX2 and used where the CPU has it, :func:`simd`): shrunk
# variables are marked by a status bit (S_OUT) instead of being skipped through the index list,
# so the loads are contiguous and no branch depends on a variable; the update of v also runs over
# shrunk variables, harmlessly (their v is recomputed before it is read again). Each lane keeps
# its own best and the lanes are merged in index order: the choice is the index-list loop's but
# between candidates whose WSS2 scores b²/c agree to round-off, where the merged cross-multiplied
# comparisons may pick the other one. Why: the index-list loops are bound by their loop-carried
# compare chains (docs/native.md, "One SMO core for every SVM").
cdef extern from *:
    """
    #include <stddef.h>
    #include <math.h>
    #include <string.h>
    typedef double sdpk_v4d __attribute__((vector_size(32)));
    typedef long long sdpk_v4l __attribute__((vector_size(32)));
    #define SDPK_BLEND(m, a, b) ((sdpk_v4d)(((m) & (sdpk_v4l)(a)) | (~(m) & (sdpk_v4l)(b))))
    #define SDPK_BLENDL(m, a, b) (((m) & (a)) | (~(m) & (b)))
    static inline sdpk_v4l sdpk_status4(const unsigned char *st)
    { sdpk_v4l r = {st[0], st[1], st[2], st[3]}; return r; }
    static inline sdpk_v4d sdpk_load4(const double *x) { sdpk_v4d r; memcpy(&r, x, sizeof r); return r; }
    static inline void sdpk_store4(double *x, sdpk_v4d v) { memcpy(x, &v, sizeof v); }
    /* WSS2 in each lane: the candidates (in I_low with b = gmax − v > 0) and the best b²/c so far */
    #define SDPK_WSS2_LANES(t, low, b, c0) do { \
            sdpk_v4d c_l = (c0); \
            const sdpk_v4l cand_ = (low) & ((b) > 0.0); \
            mc = SDPK_BLEND(cand_ & (c_l < mc), c_l, mc); \
            c_l = SDPK_BLEND(c_l <= 0.0, tauv, c_l); \
            const sdpk_v4d b2_ = (b) * (b); \
            const sdpk_v4l better_ = cand_ & (b2_ * bc > bb2 * c_l); \
            bb2 = SDPK_BLEND(better_, b2_, bb2); bc = SDPK_BLEND(better_, c_l, bc); \
            bb = SDPK_BLEND(better_, (b), bb); \
            bj = SDPK_BLENDL(better_, idx + (t), bj); \
        } while (0)
    /* the lanes in index order (the earlier index wins unless strictly better), into l */
    #define SDPK_LANES_IN_ORDER(l, body) do { \
            int order[4] = {0, 1, 2, 3}; \
            for (int a = 1; a < 4; a++) for (int c = a; c > 0 && bj[order[c]] < bj[order[c - 1]]; c--) \
                { int tmp = order[c]; order[c] = order[c - 1]; order[c - 1] = tmp; } \
            for (int a = 0; a < 4; a++) { const int l = order[a]; body } \
        } while (0)
    #define SDPK_WSS2_MERGE(l) \
        if (bj[l] >= 0 && bb2[l] * best_c > best_b2 * bc[l]) \
            { best_b2 = bb2[l]; best_c = bc[l]; j = bj[l]; *bij = bb[l]; *aij = bc[l]; }
    /* one block of 4 of the WSS2 second-index pass (lanes beyond ``valid`` masked off) */
    #define SDPK_SELJ_BLOCK(t, S, V, QDv, KIv, valid) do { \
            const sdpk_v4l s_ = (S); \
            const sdpk_v4d v_ = (V); \
            const sdpk_v4l low_ = ((s_ & 10) == 2) & (valid); \
            g = SDPK_BLEND(low_ & (v_ < g), v_, g); \
            const sdpk_v4d b_ = gmaxv - v_; \
            const sdpk_v4d c_ = div + (QDv) - 2.0 * (KIv); \
            SDPK_WSS2_LANES(t, low_, b_, c_); \
        } while (0)
    #define SDPK_BODY_SELJ \
        const sdpk_v4d one = {1.0, 1.0, 1.0, 1.0}, inf = one * INFINITY; \
        const sdpk_v4d gmaxv = one * gmax, div = one * di, tauv = one * tau; \
        const sdpk_v4l idx = {0, 1, 2, 3}, all = idx == idx; \
        sdpk_v4d g = inf, mc = one * *min_curv, bb2 = 0.0 * one, bc = one, bb = 0.0 * one; \
        sdpk_v4l bj = all; /* -1: none */ \
        ptrdiff_t t = 0; \
        for (; t + 4 <= n; t += 4) \
            SDPK_SELJ_BLOCK(t, sdpk_status4(st + t), sdpk_load4(v + t), sdpk_load4(QD + t), \
                            sdpk_load4(Ki + t), all); \
        if (t < n) { \
            unsigned char sb[4] = {0, 0, 0, 0}; double vb[4] = {0}, qb[4] = {0}, kb[4] = {0}; \
            for (ptrdiff_t r = t; r < n; r++) { sb[r - t] = st[r]; vb[r - t] = v[r]; qb[r - t] = QD[r]; kb[r - t] = Ki[r]; } \
            const sdpk_v4l valid = idx < (long long)(n - t); \
            SDPK_SELJ_BLOCK(t, sdpk_status4(sb), sdpk_load4(vb), sdpk_load4(qb), sdpk_load4(kb), valid); \
        } \
        /* merge the lanes in index order: the earlier index wins unless strictly better */ \
        ptrdiff_t j = -1; double best_b2 = 0.0, best_c = 1.0, gm = INFINITY, m = *min_curv; \
        SDPK_LANES_IN_ORDER(l, if (g[l] < gm) gm = g[l]; if (mc[l] < m) m = mc[l]; SDPK_WSS2_MERGE(l)); \
        *gmin = gm; *min_curv = m; \
        return j;
    #define SDPK_BODY_UPD \
        const sdpk_v4d one = {1.0, 1.0, 1.0, 1.0}, dv = one * delta; \
        const sdpk_v4l idx = {0, 1, 2, 3}, all = idx == idx; \
        sdpk_v4d g = -one * INFINITY; sdpk_v4l bi = all; \
        ptrdiff_t t = 0; \
        for (; t + 4 <= n; t += 4) { \
            const sdpk_v4d vt = sdpk_load4(v + t) - dv * (sdpk_load4(Ki + t) - sdpk_load4(Kj + t)); \
            sdpk_store4(v + t, vt); \
            const sdpk_v4l s_ = sdpk_status4(st + t); \
            const sdpk_v4l better_ = ((s_ & 9) == 1) & (vt > g); \
            g = SDPK_BLEND(better_, vt, g); bi = SDPK_BLENDL(better_, idx + t, bi); \
        } \
        ptrdiff_t nxt = -1; double gm = -INFINITY; \
        for (int l = 0; l < 4; l++) /* lanes hold disjoint indices: the earliest index of the max */ \
            if (bi[l] >= 0 && (g[l] > gm || (g[l] == gm && bi[l] < nxt))) { gm = g[l]; nxt = bi[l]; } \
        for (; t < n; t++) { \
            const double vt = v[t] - delta * (Ki[t] - Kj[t]); \
            v[t] = vt; \
            if ((st[t] & 9) == 1 && vt > gm) { gm = vt; nxt = t; } \
        } \
        *gmax = gm; \
        return nxt;
    /* mode 2 (Solver_NU): a lane pairs with its own class's first index, chosen by the class bit
       (S_POS: group 1); each class keeps its own least I_low value */
    #define SDPK_SELJ2_BLOCK(t, S, V, QDv, K0v, K1v, valid) do { \
            const sdpk_v4l s_ = (S); \
            const sdpk_v4d v_ = (V); \
            const sdpk_v4l low_ = ((s_ & 10) == 2) & (valid); \
            const sdpk_v4l pos_ = (s_ & 4) == 4; \
            g0 = SDPK_BLEND(low_ & ~pos_ & (v_ < g0), v_, g0); \
            g1 = SDPK_BLEND(low_ & pos_ & (v_ < g1), v_, g1); \
            const sdpk_v4d b_ = SDPK_BLEND(pos_, gmax1v, gmax0v) - v_; \
            const sdpk_v4d c_ = SDPK_BLEND(pos_, div1, div0) + (QDv) - 2.0 * SDPK_BLEND(pos_, (K1v), (K0v)); \
            SDPK_WSS2_LANES(t, low_, b_, c_); \
        } while (0)
    #define SDPK_BODY_SELJ2 \
        const sdpk_v4d one = {1.0, 1.0, 1.0, 1.0}, inf = one * INFINITY; \
        const sdpk_v4d gmax0v = one * gmax0, gmax1v = one * gmax1, div0 = one * di0, div1 = one * di1; \
        const sdpk_v4d tauv = one * tau; \
        const sdpk_v4l idx = {0, 1, 2, 3}, all = idx == idx; \
        sdpk_v4d g0 = inf, g1 = inf, mc = one * *min_curv, bb2 = 0.0 * one, bc = one, bb = 0.0 * one; \
        sdpk_v4l bj = all; /* -1: none */ \
        ptrdiff_t t = 0; \
        for (; t + 4 <= n; t += 4) \
            SDPK_SELJ2_BLOCK(t, sdpk_status4(st + t), sdpk_load4(v + t), sdpk_load4(QD + t), \
                             sdpk_load4(K0 + t), sdpk_load4(K1 + t), all); \
        if (t < n) { \
            unsigned char sb[4] = {0, 0, 0, 0}; double vb[4] = {0}, qb[4] = {0}, k0[4] = {0}, k1[4] = {0}; \
            for (ptrdiff_t r = t; r < n; r++) \
                { sb[r - t] = st[r]; vb[r - t] = v[r]; qb[r - t] = QD[r]; k0[r - t] = K0[r]; k1[r - t] = K1[r]; } \
            const sdpk_v4l valid = idx < (long long)(n - t); \
            SDPK_SELJ2_BLOCK(t, sdpk_status4(sb), sdpk_load4(vb), sdpk_load4(qb), sdpk_load4(k0), \
                             sdpk_load4(k1), valid); \
        } \
        ptrdiff_t j = -1; double best_b2 = 0.0, best_c = 1.0, gm0 = INFINITY, gm1 = INFINITY, m = *min_curv; \
        SDPK_LANES_IN_ORDER(l, if (g0[l] < gm0) gm0 = g0[l]; if (g1[l] < gm1) gm1 = g1[l]; \
                               if (mc[l] < m) m = mc[l]; SDPK_WSS2_MERGE(l)); \
        gmin[0] = gm0; gmin[1] = gm1; *min_curv = m; \
        return j;
    /* mode 2's update, with each class's next first index (argmax over its I_up of the new v) */
    #define SDPK_BODY_UPD2 \
        const sdpk_v4d one = {1.0, 1.0, 1.0, 1.0}, dv = one * delta; \
        const sdpk_v4l idx = {0, 1, 2, 3}, all = idx == idx; \
        sdpk_v4d g0 = -one * INFINITY, g1 = g0; sdpk_v4l b0 = all, b1 = all; \
        ptrdiff_t t = 0; \
        for (; t + 4 <= n; t += 4) { \
            const sdpk_v4d vt = sdpk_load4(v + t) - dv * (sdpk_load4(Ki + t) - sdpk_load4(Kj + t)); \
            sdpk_store4(v + t, vt); \
            const sdpk_v4l s_ = sdpk_status4(st + t); \
            const sdpk_v4l up_ = (s_ & 9) == 1, pos_ = (s_ & 4) == 4; \
            const sdpk_v4l better0_ = up_ & ~pos_ & (vt > g0), better1_ = up_ & pos_ & (vt > g1); \
            g0 = SDPK_BLEND(better0_, vt, g0); b0 = SDPK_BLENDL(better0_, idx + t, b0); \
            g1 = SDPK_BLEND(better1_, vt, g1); b1 = SDPK_BLENDL(better1_, idx + t, b1); \
        } \
        ptrdiff_t n0 = -1, n1 = -1; double gm0 = -INFINITY, gm1 = -INFINITY; \
        for (int l = 0; l < 4; l++) { \
            if (b0[l] >= 0 && (g0[l] > gm0 || (g0[l] == gm0 && b0[l] < n0))) { gm0 = g0[l]; n0 = b0[l]; } \
            if (b1[l] >= 0 && (g1[l] > gm1 || (g1[l] == gm1 && b1[l] < n1))) { gm1 = g1[l]; n1 = b1[l]; } \
        } \
        for (; t < n; t++) { \
            const double vt = v[t] - delta * (Ki[t] - Kj[t]); \
            v[t] = vt; \
            if ((st[t] & 9) == 1) { \
                if (st[t] & 4) { if (vt > gm1) { gm1 = vt; n1 = t; } } \
                else if (vt > gm0) { gm0 = vt; n0 = t; } \
            } \
        } \
        gmax[0] = gm0; gmax[1] = gm1; nxt[0] = n0; nxt[1] = n1;
    /* mode 0 (single-coordinate steps): the last step's update v −= δK (none where K is NULL)
       fused with the next step's greedy choice, in the index-list loop's arithmetic, order and
       ties (the largest gain > best, the earliest index); the variable ``skip`` (the last step's,
       whose v also takes a diagonal term) is updated but left out of the choice */
    #define SDPK_COORD_BLOCK(t, valid) do { \
            sdpk_v4d vt = sdpk_load4(v + (t)); \
            if (K) { vt = vt - dv * sdpk_load4(K + (t)); sdpk_store4(v + (t), vt); } \
            const sdpk_v4d g_ = -sdpk_load4(y + (t)) * vt; \
            const sdpk_v4d a_ = sdpk_load4(alpha + (t)), u_ = sdpk_load4(upper + (t)); \
            const sdpk_v4l up_ = (g_ < 0.0) & (a_ < u_); \
            const sdpk_v4l act_ = (up_ | ((g_ > 0.0) & (a_ > 0.0))) & (valid) & ((idx + (t)) != skipv); \
            const sdpk_v4d val_ = SDPK_BLEND(up_, -g_, g_); \
            vio = SDPK_BLEND(act_ & (val_ > vio), val_, vio); \
            sdpk_v4d h_ = sdpk_load4(QD + (t)); \
            const sdpk_v4l neg_ = h_ <= 0.0; \
            mc = SDPK_BLEND(act_ & neg_ & (h_ < mc), h_, mc); \
            h_ = SDPK_BLEND(neg_, tauv, h_); \
            sdpk_v4d d_ = -g_ / h_; \
            const sdpk_v4d lo_ = -a_, hi_ = u_ - a_; \
            d_ = SDPK_BLEND(d_ < lo_, lo_, d_); \
            d_ = SDPK_BLEND(d_ > hi_, hi_, d_); \
            const sdpk_v4d gain_ = -(g_ * d_ + half * h_ * d_ * d_); \
            const sdpk_v4l better_ = act_ & (gain_ > bg); \
            bg = SDPK_BLEND(better_, gain_, bg); bs = SDPK_BLEND(better_, d_, bs); \
            bi = SDPK_BLENDL(better_, idx + (t), bi); \
        } while (0)
    #define SDPK_COORD_ARGS ptrdiff_t n, const double *y, double *v, const double *alpha, const double *upper, \
        const double *QD, const double *K, double delta, ptrdiff_t skip, double tau, double *viol, \
        double *best, double *step, double *min_curv
    #define SDPK_BODY_COORD \
        const sdpk_v4d one = {1.0, 1.0, 1.0, 1.0}, dv = one * delta, tauv = one * tau, half = 0.5 * one; \
        const sdpk_v4l idx = {0, 1, 2, 3}, all = idx == idx, skipv = all * 0 + (long long)skip; \
        sdpk_v4d vio = 0.0 * one, mc = one * *min_curv, bg = 0.0 * one, bs = 0.0 * one; \
        sdpk_v4l bi = all; /* -1: none */ \
        ptrdiff_t t = 0; \
        for (; t + 4 <= n; t += 4) SDPK_COORD_BLOCK(t, all); \
        ptrdiff_t i = -1; double b = 0.0, st = 0.0, vi = 0.0, m = *min_curv; \
        for (int l = 0; l < 4; l++) { \
            if (vio[l] > vi) vi = vio[l]; \
            if (mc[l] < m) m = mc[l]; \
            if (bi[l] >= 0 && (bg[l] > b || (bg[l] == b && bi[l] < i))) { b = bg[l]; i = bi[l]; st = bs[l]; } \
        } \
        for (; t < n; t++) { /* the tail, as the index-list loop */ \
            double vt = v[t]; \
            if (K) { vt -= delta * K[t]; v[t] = vt; } \
            if (t == skip) continue; \
            const double g = -y[t] * vt; \
            double val; \
            if (g < 0.0 && alpha[t] < upper[t]) val = -g; \
            else if (g > 0.0 && alpha[t] > 0.0) val = g; \
            else continue; \
            if (val > vi) vi = val; \
            double h = QD[t]; \
            if (h <= 0.0) { if (h < m) m = h; h = tau; } \
            double d = -g / h; \
            if (d < -alpha[t]) d = -alpha[t]; \
            if (d > upper[t] - alpha[t]) d = upper[t] - alpha[t]; \
            const double gain = -(g * d + 0.5 * h * d * d); \
            if (gain > b) { b = gain; i = t; st = d; } \
        } \
        if (vi > *viol) *viol = vi; \
        *min_curv = m; *best = b; *step = st; \
        return i;
    #define SDPK_SELJ2_ARGS ptrdiff_t n, const unsigned char *st, const double *v, const double *QD, \
        const double *K0, const double *K1, double gmax0, double gmax1, double di0, double di1, double tau, \
        double *gmin, double *bij, double *aij, double *min_curv
    #define SDPK_UPD2_ARGS ptrdiff_t n, const unsigned char *st, double *v, const double *Ki, const double *Kj, \
        double delta, double *gmax, ptrdiff_t *nxt
    #define SDPK_SELJ_ARGS ptrdiff_t n, const unsigned char *st, const double *v, const double *QD, \
        const double *Ki, double gmax, double di, double tau, double *gmin, double *bij, double *aij, double *min_curv
    #define SDPK_UPD_ARGS ptrdiff_t n, const unsigned char *st, double *v, const double *Ki, const double *Kj, \
        double delta, double *gmax
    /* AVX2 only: compiled for the baseline (SSE2: no 64-bit integer compare, 256-bit vectors split)
       the passes are slower than the index-list loops, which the baseline keeps (sdpk_use_avx2 = 0) */
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #define SDPK_TARGET __attribute__((target("avx2")))
    #else
    #define SDPK_TARGET
    #endif
    SDPK_TARGET static ptrdiff_t sdpk_select_j(SDPK_SELJ_ARGS) { SDPK_BODY_SELJ }
    SDPK_TARGET static ptrdiff_t sdpk_update_v(SDPK_UPD_ARGS) { SDPK_BODY_UPD }
    SDPK_TARGET static ptrdiff_t sdpk_select_j2(SDPK_SELJ2_ARGS) { SDPK_BODY_SELJ2 }
    SDPK_TARGET static void sdpk_update_v2(SDPK_UPD2_ARGS) { SDPK_BODY_UPD2 }
    SDPK_TARGET static ptrdiff_t sdpk_coord(SDPK_COORD_ARGS) { SDPK_BODY_COORD }
    """
    Py_ssize_t sdpk_select_j(Py_ssize_t n, const unsigned char *st, const double *v, const double *QD,
                             const double *Ki, double gmax, double di, double tau, double *gmin, double *bij,
                             double *aij, double *min_curv) noexcept nogil
    Py_ssize_t sdpk_update_v(Py_ssize_t n, const unsigned char *st, double *v, const double *Ki, const double *Kj,
                             double delta, double *gmax) noexcept nogil
    Py_ssize_t sdpk_select_j2(Py_ssize_t n, const unsigned char *st, const double *v, const double *QD,
                              const double *K0, const double *K1, double gmax0, double gmax1, double di0,
                              double di1, double tau, double *gmin, double *bij, double *aij,
                              double *min_curv) noexcept nogil
    Py_ssize_t sdpk_coord(Py_ssize_t n, const double *y, double *v, const double *alpha, const double *upper,
                          const double *QD, const double *K, double delta, Py_ssize_t skip, double tau,
                          double *viol, double *best, double *step, double *min_curv) noexcept nogil
    void sdpk_update_v2(Py_ssize_t n, const unsigned char *st, double *v, const double *Ki, const double *Kj,
                        double delta, double *gmax, Py_ssize_t *nxt) noexcept nogil


# A second thread for the passes (``smo(..., threads=2)``): it runs the variables [h, l) of each
# pass while the calling thread runs [0, h). It waits for a pass by spinning a short while (the
# passes follow each other within microseconds), then on a condition variable (while the caller
# computes columns, for instance), so that it does not hold the core the column threads need.
cdef extern from *:
    """
    #include <pthread.h>
    #include <sched.h>
    #if defined(__x86_64__) || defined(__i386__)
    #define SDPK_PAUSE() __builtin_ia32_pause()
    #else
    #define SDPK_PAUSE() do { } while (0)
    #endif
    #define SDPK_SPINS 4000
    typedef void (*sdpk_job_fn)(void *);
    typedef struct {
        pthread_t th;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        sdpk_job_fn fn;
        void *arg;
        long posted;    /* the last job posted (> 0, increasing), −1: stop */
        long finished;  /* the last job done */
        int sleeping;
    } sdpk_team;
    static long sdpk_team_next(sdpk_team *t, long seen) {
        long job;
        for (int k = 0; k < SDPK_SPINS; k++) {
            if ((job = __atomic_load_n(&t->posted, __ATOMIC_ACQUIRE)) != seen) return job;
            SDPK_PAUSE();
        }
        pthread_mutex_lock(&t->mu);
        t->sleeping = 1;
        while ((job = __atomic_load_n(&t->posted, __ATOMIC_ACQUIRE)) == seen) pthread_cond_wait(&t->cv, &t->mu);
        t->sleeping = 0;
        pthread_mutex_unlock(&t->mu);
        return job;
    }
    static void *sdpk_team_main(void *arg) {
        sdpk_team *t = (sdpk_team *)arg;
        long seen = 0, job;
        while ((job = sdpk_team_next(t, seen)) >= 0) {
            seen = job;
            t->fn(t->arg);
            __atomic_store_n(&t->finished, job, __ATOMIC_RELEASE);
        }
        return NULL;
    }
    /* 1 when the thread runs, 0 when it could not be started (the caller then runs every pass) */
    static int sdpk_team_start(sdpk_team *t, sdpk_job_fn fn, void *arg) {
        t->fn = fn; t->arg = arg; t->posted = 0; t->finished = 0; t->sleeping = 0;
        if (pthread_mutex_init(&t->mu, NULL) != 0) return 0;
        if (pthread_cond_init(&t->cv, NULL) != 0) { pthread_mutex_destroy(&t->mu); return 0; }
        if (pthread_create(&t->th, NULL, sdpk_team_main, t) != 0) {
            pthread_cond_destroy(&t->cv); pthread_mutex_destroy(&t->mu); return 0;
        }
        return 1;
    }
    static void sdpk_team_post(sdpk_team *t, long job) {
        pthread_mutex_lock(&t->mu);
        __atomic_store_n(&t->posted, job, __ATOMIC_RELEASE);
        if (t->sleeping) pthread_cond_signal(&t->cv);
        pthread_mutex_unlock(&t->mu);
    }
    static void sdpk_team_wait(sdpk_team *t, long job) {
        for (long k = 0; __atomic_load_n(&t->finished, __ATOMIC_ACQUIRE) != job; k++) {
            if (k < SDPK_SPINS) SDPK_PAUSE(); else sched_yield();
        }
    }
    static void sdpk_team_stop(sdpk_team *t) {
        sdpk_team_post(t, -1);
        pthread_join(t->th, NULL);
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
    }
    """
    ctypedef void (*sdpk_job_fn)(void *) noexcept nogil
    ctypedef struct sdpk_team:
        pass
    int sdpk_team_start(sdpk_team *t, sdpk_job_fn fn, void *arg) noexcept nogil
    void sdpk_team_post(sdpk_team *t, long job) noexcept nogil
    void sdpk_team_wait(sdpk_team *t, long job) noexcept nogil
    void sdpk_team_stop(sdpk_team *t) noexcept nogil


# one status byte per variable, so that the selection passes read 1 byte instead of y, α and the
# upper bound (24): the passes over the active variables are bound by memory traffic
cdef enum:
    S_UP = 1     # in I_up: y_t α_t can grow
    S_LOW = 2    # in I_low: y_t α_t can shrink
    S_POS = 4    # y = +1 (the class of Solver_NU's pairs)
    S_OUT = 8    # shrunk (the contiguous passes skip it)


cdef inline unsigned char _status(double y, double a, double c) noexcept nogil:
    cdef unsigned char st = S_POS if y > 0 else 0
    if (y > 0 and a < c) or (y < 0 and a > 0):
        st |= S_UP
    if (y > 0 and a > 0) or (y < 0 and a < c):
        st |= S_LOW
    return st


cdef struct Problem:
    Py_ssize_t l       # variables
    Py_ssize_t n       # kernel points: variable t reads kernel index t (t < n) or t − n
    int mode
    double *y
    double *alpha
    double *v          # −y∘∇, current on the active variables
    double *upper
    double *D
    double *QD         # K_tt + D_t
    unsigned char *st
    Py_ssize_t *active
    Py_ssize_t n_active
    double min_curv    # most negative curvature met (< 0: Q is not positive semidefinite)
    Py_ssize_t h       # the passes' split: [0, h) and [h, l) (h = l: one part; :func:`_split_point`)
    bint vec           # the pair steps' AVX2 passes (else the index-list loops: :func:`_shrink`)
    bint split         # mode 2 with l = 2n, y = +1 on the first n and −1 on the rest (ν-SVR's α, α*):
                       # each block of n variables is one group
    double omega       # mode 0: each coordinate step is this times the coordinate's Newton step


cdef inline Py_ssize_t _kidx(const Problem *p, Py_ssize_t t) noexcept nogil:
    return t if t < p.n else t - p.n


cdef inline int _group(const Problem *p, unsigned char s) noexcept nogil:
    """Solver_NU pairs variables of one class: group 1 for y = +1 in mode 2, else group 0."""
    return 1 if (p.mode == 2 and (s & S_POS)) else 0


cdef void _select_i(Problem *p, double *gmax, Py_ssize_t *best) noexcept nogil:
    """The first index of each group: argmax over I_up of v (libsvm's −y∇)."""
    cdef Py_ssize_t a, t
    cdef int g
    cdef double val
    cdef unsigned char s
    gmax[0] = -INFINITY
    gmax[1] = -INFINITY
    best[0] = -1
    best[1] = -1
    for a in range(p.n_active):
        t = p.active[a]
        s = p.st[t]
        if s & S_UP:
            g = _group(p, s)
            val = p.v[t]
            if val > gmax[g]:
                gmax[g] = val
                best[g] = t


cdef Py_ssize_t _ahead(const Problem *p, const Py_ssize_t *slot_of, bint up, Py_ssize_t skip, Py_ssize_t *out) noexcept nogil:
    """The kernel indices of the uncached active variables most likely to be a next step's pair,
    for :meth:`ColumnCache.col_ahead`: the BATCH − 1 largest v over I_up (``up``: the next first
    indices, libsvm's argmax) or the smallest v over I_low (the second indices' b = gmax − v is
    largest there), ``skip`` and repeats left out; returns how many (at most BATCH − 1)."""
    cdef Py_ssize_t a, t, k, c, m = 0
    cdef double val
    cdef double best[BATCH]
    cdef unsigned char need = S_UP if up else S_LOW
    cdef bint dup
    for a in range(p.n_active):
        t = p.active[a]
        if not (p.st[t] & need):
            continue
        k = _kidx(p, t)
        if k == skip or slot_of[k] >= 0:
            continue
        val = p.v[t] if up else -p.v[t]
        if m == BATCH - 1 and val <= best[m - 1]:
            continue
        dup = False
        for c in range(m):
            if out[c] == k:
                dup = True
        if dup:
            continue
        c = m if m < BATCH - 1 else m - 1
        while c > 0 and val > best[c - 1]:
            best[c] = best[c - 1]
            out[c] = out[c - 1]
            c -= 1
        best[c] = val
        out[c] = k
        if m < BATCH - 1:
            m += 1
    return m


cdef Py_ssize_t _select_j(Problem *p, const Py_ssize_t *ii, const double *gmax, const double **Kis,
                          double *gmin, double *bij, double *aij) noexcept nogil:
    """WSS2's second index: the largest second-order decrease b²/c over I_low with b = gmax − v > 0,
    the pair's first index ``ii[g]`` of the candidate's group g (column ``Kis[g]``). ``gmin[g]``: the
    least v over I_low of group g."""
    cdef Py_ssize_t a, t, j = -1
    cdef int g
    cdef double val, b, c, b2, best_b2 = 0.0, best_c = 1.0
    cdef unsigned char s
    gmin[0] = INFINITY
    gmin[1] = INFINITY
    for a in range(p.n_active):
        t = p.active[a]
        s = p.st[t]
        if not (s & S_LOW):
            continue
        g = _group(p, s)
        val = p.v[t]
        if val < gmin[g]:
            gmin[g] = val
        if ii[g] < 0:
            continue
        b = gmax[g] - val
        if b > 0.0:
            c = p.QD[ii[g]] + p.QD[t] - 2.0 * Kis[g][_kidx(p, t)]
            if c <= 0.0:
                if c < p.min_curv:
                    p.min_curv = c
                c = TAU
            b2 = b * b
            if b2 * best_c > best_b2 * c:
                best_b2 = b2
                best_c = c
                j = t
                bij[0] = b
                aij[0] = c
    return j


# ---- the AVX2 passes over a range of variables, in two parts that a second thread can share
# Above SPLIT_MIN variables every pass runs as two parts, [0, h) and [h, l), merged in index order
# whether or not a second thread runs one of them: the bits do not depend on the threads.
cdef enum:
    SPLIT_MIN = 4096

# A kernel column's rows go to two threads from SPLIT_WORK numbers read per column on: n (d + t)
# for the distances and the correction, and LOOP_WIDTH per point for the elementwise exp or log
# and the other loops over the column; below that the hand-over to the second thread costs what
# it saves (docs/cpd.md, "Two threads")
cdef enum:
    SPLIT_WORK = 1 << 16
    LOOP_WIDTH = 16

#: The numbers a kernel column's pass reads per point beyond Xᵀ's and leftᵀ's (LOOP_WIDTH), for the
#: solvers that price a column (:func:`sdpkern.native.dual_svm._column_numbers`)
COLUMN_LOOP_NUMBERS = LOOP_WIDTH


cdef enum:
    PASS_SELECT = 1   # WSS2's second index (modes 1-2)
    PASS_UPDATE = 2   # v −= δ(K_i − K_j) with the next first indices (modes 1-2)
    PASS_COORD = 3    # mode 0's update fused with its next choice


cdef struct Part:
    Py_ssize_t j       # select: the best second index; coordinate: the best variable (−1: none)
    double b2, c, b    # select: its b², c and b
    double best, step  # coordinate: its gain and step
    double gmin[2]     # select: each group's least v over I_low
    Py_ssize_t nxt[2]  # update: each group's argmax over I_up of the new v (−1: none)
    double g[2]        # update: its value
    double viol        # coordinate: the largest projected-gradient entry
    double min_curv


cdef struct Team:
    Problem *p
    int kind
    const double *gmax
    const double *K0   # select: each group's first index's column (the other's where it has none)
    const double *K1
    double di0, di1    # select: their diagonal entries
    const double *Ki   # update, coordinate: the step's columns (coordinate: NULL on the first pass)
    const double *Kj
    double delta
    Py_ssize_t last    # coordinate: the last step's variable
    Part out           # the part [h, l)
    sdpk_team c
    long job
    bint on            # the second thread runs
    bint passes        # ... and takes the part [h, l) of the passes (else columns only)
    bint columns       # the job is the rows [h, n) of kernel columns (_eval_split), not a pass
    Spec cspec         # columns: the spec of those rows
    const Py_ssize_t *ccols
    double *couts[BATCH]
    Py_ssize_t cm
    double *cbuf


cdef Py_ssize_t _split_point(Py_ssize_t l, Py_ssize_t n) noexcept nogil:
    """h: the blocks' boundary where l = 2n; half of the n variables (a multiple of the 4 lanes)
    above SPLIT_MIN; else l (one part)."""
    if l == 2 * n:
        return n
    if l >= SPLIT_MIN:
        return (l // 2) & ~3
    return l


cdef void _part_init(Part *o, double min_curv) noexcept nogil:
    o.j = -1
    o.b2, o.c, o.b = 0.0, 1.0, 0.0
    o.best, o.step = 0.0, 0.0
    o.gmin[0], o.gmin[1] = INFINITY, INFINITY
    o.nxt[0], o.nxt[1] = -1, -1
    o.g[0], o.g[1] = -INFINITY, -INFINITY
    o.viol = 0.0
    o.min_curv = min_curv


cdef void _pass(Team *t, Py_ssize_t lo, Py_ssize_t hi, Part *o) noexcept nogil:
    """The pass t.kind over the variables [lo, hi) into ``o``, piece by piece within the blocks of
    n variables (variable s reads kernel index s mod n), the pieces merged in index order. In
    mode 1, and for mode 2's α/α* blocks (``split``), each piece is one group: mode 1's passes,
    which read one column instead of two."""
    cdef Problem *p = t.p
    cdef Py_ssize_t s = lo, end, ko, jb, b
    cdef int g
    cdef double gb[2]
    cdef double bb = 0.0, ab = 1.0, sb = 0.0
    cdef Py_ssize_t nb[2]
    _part_init(o, p.min_curv)
    while s < hi:
        b = s // p.n
        end = min(hi, (b + 1) * p.n)
        ko = s - b * p.n
        if t.kind == PASS_SELECT:
            if p.mode == 1 or p.split:
                g = 0 if p.mode == 1 else 1 - <int>b
                jb = sdpk_select_j(end - s, p.st + s, p.v + s, p.QD + s, (t.K1 if g else t.K0) + ko, t.gmax[g],
                                   t.di1 if g else t.di0, TAU, &gb[g], &bb, &ab, &o.min_curv)
                gb[1 - g] = INFINITY
            else:
                jb = sdpk_select_j2(end - s, p.st + s, p.v + s, p.QD + s, t.K0 + ko, t.K1 + ko, t.gmax[0], t.gmax[1],
                                    t.di0, t.di1, TAU, gb, &bb, &ab, &o.min_curv)
            for g in range(2):
                if gb[g] < o.gmin[g]:
                    o.gmin[g] = gb[g]
            if jb >= 0 and bb * bb * o.c > o.b2 * ab:
                o.b2, o.c, o.b, o.j = bb * bb, ab, bb, jb + s
        elif t.kind == PASS_UPDATE:
            if p.mode == 1 or p.split:
                g = 0 if p.mode == 1 else 1 - <int>b
                nb[g] = sdpk_update_v(end - s, p.st + s, p.v + s, t.Ki + ko, t.Kj + ko, t.delta, &gb[g])
                nb[1 - g] = -1
            else:
                sdpk_update_v2(end - s, p.st + s, p.v + s, t.Ki + ko, t.Kj + ko, t.delta, gb, nb)
            for g in range(2):
                if nb[g] >= 0 and gb[g] > o.g[g]:
                    o.g[g], o.nxt[g] = gb[g], nb[g] + s
        else:
            jb = sdpk_coord(end - s, p.y + s, p.v + s, p.alpha + s, p.upper + s, p.QD + s,
                            NULL if t.Ki == NULL else t.Ki + ko, t.delta, t.last - s if s <= t.last < end else -1,
                            TAU, &o.viol, &bb, &sb, &o.min_curv)
            if jb >= 0 and bb > o.best:
                o.best, o.j, o.step = bb, jb + s, sb
        s = end


cdef void _merge(int kind, Part *o, const Part *w) noexcept nogil:
    """``o`` (the lower indices) and ``w`` merged, as one pass over both would (ties: the earlier)."""
    cdef int g
    if w.min_curv < o.min_curv:
        o.min_curv = w.min_curv
    if kind == PASS_SELECT:
        for g in range(2):
            if w.gmin[g] < o.gmin[g]:
                o.gmin[g] = w.gmin[g]
        if w.j >= 0 and w.b2 * o.c > o.b2 * w.c:
            o.b2, o.c, o.b, o.j = w.b2, w.c, w.b, w.j
    elif kind == PASS_UPDATE:
        for g in range(2):
            if w.nxt[g] >= 0 and w.g[g] > o.g[g]:
                o.g[g], o.nxt[g] = w.g[g], w.nxt[g]
    else:
        if w.viol > o.viol:
            o.viol = w.viol
        if w.j >= 0 and w.best > o.best:
            o.best, o.j, o.step = w.best, w.j, w.step


cdef void _team_job(void *arg) noexcept nogil:
    cdef Team *t = <Team *>arg
    if t.columns:
        _eval_batch(&t.cspec, t.ccols, t.couts, t.cm, t.cbuf)
    else:
        _pass(t, t.p.h, t.p.l, &t.out)


cdef inline bint _split_pays(const Spec *s) noexcept nogil:
    """Whether a column of ``s`` is worth two threads: one of distances (the rows are then
    independent loops over Xᵀ and leftᵀ; the others read X by rows) of SPLIT_WORK numbers or more."""
    return _by_distance(s) and s.n * (s.d + s.t + LOOP_WIDTH) >= SPLIT_WORK


cdef inline bint _splits(void *team, const Spec *s) noexcept nogil:
    """Whether a column of ``s`` is computed by two threads: the SMO's second thread runs
    (:func:`smo` with ``threads`` ≥ 2) and the column is worth it."""
    return team != NULL and _split_pays(s)


cdef void _eval_split(void *team, const Spec *s, const Py_ssize_t *cols, double **outs, Py_ssize_t m,
                      double *buf) noexcept nogil:
    """:func:`_eval_batch` of ``cols[:m]`` (m ≤ BATCH) with the rows [h, n) on the SMO's second
    thread: every entry gets the same operations as in one pass over all rows (the loops are over
    rows, each row's sums in the same order), so the columns have the same bits."""
    cdef Team *t = <Team *>team
    cdef Py_ssize_t h = (s.n // 2) & ~7, b
    cdef Spec low = s[0]
    low.n = h
    t.cspec = s[0]
    t.cspec.n = s.n - h
    t.cspec.XT = s.XT + h
    if s.t > 0:
        t.cspec.leftT = s.leftT + h
    t.ccols = cols
    for b in range(m):
        t.couts[b] = outs[b] + h
    t.cm = m
    t.cbuf = buf + h
    t.columns = True
    t.job += 1
    sdpk_team_post(&t.c, t.job)
    _eval_batch(&low, cols, outs, m, buf)
    sdpk_team_wait(&t.c, t.job)
    t.columns = False


cdef void _run_pass(Team *t, int kind, Part *o) noexcept nogil:
    """The pass ``kind`` over every variable into ``o``: [0, h) here and [h, l) by the second
    thread where it runs, else after it."""
    cdef Problem *p = t.p
    t.kind = kind
    if t.on and t.passes:
        t.job += 1
        sdpk_team_post(&t.c, t.job)
        _pass(t, 0, p.h, o)
        sdpk_team_wait(&t.c, t.job)
    else:
        _pass(t, 0, p.h, o)
        if p.h < p.l:
            _pass(t, p.h, p.l, &t.out)
    if p.h < p.l:
        _merge(kind, o, &t.out)
    p.min_curv = o.min_curv


cdef Py_ssize_t _select_j_avx2(Team *t, const Py_ssize_t *ii, const double *gmax, const double **Kis, double *gmin,
                               double *bij, double *aij) noexcept nogil:
    """:func:`_select_j` by the AVX2 passes. A group without a first index has gmax −inf, so none
    of its variables is a candidate; its column pointer is the other group's, read and masked off."""
    cdef Part o
    cdef Problem *p = t.p
    t.gmax = gmax
    t.K0 = Kis[0] if ii[0] >= 0 else Kis[1]
    t.K1 = Kis[1] if ii[1] >= 0 else Kis[0]
    t.di0 = p.QD[ii[0]] if ii[0] >= 0 else 0.0
    t.di1 = p.QD[ii[1]] if ii[1] >= 0 else 0.0
    _run_pass(t, PASS_SELECT, &o)
    gmin[0], gmin[1] = o.gmin[0], o.gmin[1]
    if o.j >= 0:
        bij[0], aij[0] = o.b, o.c
    return o.j


cdef bint _update_pair(Team *team, Py_ssize_t i, Py_ssize_t j, const double *Ki, const double *Kj,
                       double bij, double aij, double *gmax, Py_ssize_t *ii) noexcept nogil:
    """Move y_iα_i up and y_jα_j down by the clipped Newton step b/c; keep v current on the active
    variables. In mode 1, and in mode 2 by the AVX2 passes (``vec``), finds the next step's first indices in
    the same pass as the update (``ii``, ``gmax``: each group's argmax over I_up of the updated v,
    and its value; −1, −inf for none) and returns True; False otherwise (select afresh)."""
    cdef Problem *p = team.p
    cdef Py_ssize_t a, t
    cdef double delta = bij / aij, hi_i, hi_j, val
    cdef int clip = 0
    cdef Part o
    hi_i = p.upper[i] - p.alpha[i] if p.y[i] > 0 else p.alpha[i]
    hi_j = p.alpha[j] if p.y[j] > 0 else p.upper[j] - p.alpha[j]
    if delta >= hi_i and hi_i <= hi_j:
        delta = hi_i
        clip = 1
    elif delta >= hi_j:
        delta = hi_j
        clip = 2
    p.alpha[i] += p.y[i] * delta
    p.alpha[j] -= p.y[j] * delta
    # a clipped step lands exactly on the bound (libsvm's is_upper_bound), not an ulp inside it
    if clip == 1:
        p.alpha[i] = p.upper[i] if p.y[i] > 0 else 0.0
    elif clip == 2:
        p.alpha[j] = 0.0 if p.y[j] > 0 else p.upper[j]
    if p.alpha[i] < 0.0:
        p.alpha[i] = 0.0
    if p.alpha[j] < 0.0:
        p.alpha[j] = 0.0
    p.st[i] = _status(p.y[i], p.alpha[i], p.upper[i]) | (p.st[i] & S_OUT)
    p.st[j] = _status(p.y[j], p.alpha[j], p.upper[j]) | (p.st[j] & S_OUT)
    # the diagonal terms first, so that each v[t] is final when the pass below reads it
    p.v[i] -= p.D[i] * delta
    p.v[j] += p.D[j] * delta
    if p.vec:
        team.Ki, team.Kj, team.delta = Ki, Kj, delta
        _run_pass(team, PASS_UPDATE, &o)
        gmax[0], gmax[1], ii[0], ii[1] = o.g[0], o.g[1], o.nxt[0], o.nxt[1]
        return True
    gmax[0], gmax[1], ii[0], ii[1] = -INFINITY, -INFINITY, -1, -1
    for a in range(p.n_active):
        t = p.active[a]
        val = p.v[t] - delta * (Ki[_kidx(p, t)] - Kj[_kidx(p, t)])
        p.v[t] = val
        if (p.st[t] & S_UP) and val > gmax[0]:
            gmax[0] = val
            ii[0] = t
    return p.mode == 1


cdef int _cmp_index(const void *a, const void *b) noexcept nogil:
    cdef Py_ssize_t x = (<const Py_ssize_t *>a)[0], y = (<const Py_ssize_t *>b)[0]
    return (x > y) - (x < y)


cdef void _shrink(Problem *p) noexcept nogil:
    """libsvm's shrinking: set aside bound variables that cannot enter a violating pair of their
    group any more (in I_up only with v below every I_low v, or in I_low only with v above every
    I_up v). Active indices are left ascending: the passes then read memory in order.

    The AVX2 passes read every variable, set aside or not, at about half an index-list loop's
    cost per variable: once half the variables or more are set aside, the steps of this call go
    on with the index-list loops (:func:`_smo_steps`; the regressions at a tight tolerance, where
    most of the 2n variables are set aside)."""
    cdef double gmax[2]
    cdef double gmin[2]
    cdef Py_ssize_t a, t
    cdef int g
    cdef double val
    cdef bint up, low
    gmax[0] = -INFINITY
    gmax[1] = -INFINITY
    gmin[0] = INFINITY
    gmin[1] = INFINITY
    for a in range(p.n_active):
        t = p.active[a]
        g = _group(p, p.st[t])
        val = p.v[t]
        if (p.st[t] & S_UP) and val > gmax[g]:
            gmax[g] = val
        if (p.st[t] & S_LOW) and val < gmin[g]:
            gmin[g] = val
    a = 0
    while a < p.n_active:
        t = p.active[a]
        up = (p.st[t] & S_UP) != 0
        low = (p.st[t] & S_LOW) != 0
        g = _group(p, p.st[t])
        val = p.v[t]
        if (up and not low and val < gmin[g]) or (low and not up and val > gmax[g]) or not (up or low):
            p.st[t] |= S_OUT
            p.n_active -= 1
            p.active[a] = p.active[p.n_active]
            p.active[p.n_active] = t
        else:
            a += 1
    qsort(p.active, p.n_active, sizeof(Py_ssize_t), _cmp_index)


cdef inline void _coord_one(Problem *p, Py_ssize_t t, double *viol, double *best, Py_ssize_t *bi,
                            double *step) noexcept nogil:
    """Mode 0's choice at one variable t, as :func:`_coordinate_steps`'s loop, merged into the
    best so far (``bi`` its index; a tie goes to the earlier index)."""
    cdef double g = -p.y[t] * p.v[t], val, h, d, gain
    if g < 0.0 and p.alpha[t] < p.upper[t]:
        val = -g
    elif g > 0.0 and p.alpha[t] > 0.0:
        val = g
    else:
        return
    if val > viol[0]:
        viol[0] = val
    h = p.QD[t]
    if h <= 0.0:
        if h < p.min_curv:
            p.min_curv = h
        h = TAU
    d = -g / h
    if d < -p.alpha[t]:
        d = -p.alpha[t]
    if d > p.upper[t] - p.alpha[t]:
        d = p.upper[t] - p.alpha[t]
    gain = -(g * d + 0.5 * h * d * d)
    if gain > best[0] or (gain == best[0] and bi[0] >= 0 and t < bi[0]):
        best[0] = gain
        bi[0] = t
        step[0] = d


cdef Py_ssize_t _coord_pass(Team *t, const double *K, double delta, Py_ssize_t last, double *viol,
                            double *step) noexcept nogil:
    """Mode 0's fused AVX2 pass (``sdpk_coord``): the last step's update of v (variable ``last``
    moved by ``delta`` along the kernel column K; none where K is NULL, the first pass) and the
    next step's choice, returned (−1: none) with its ``step``. ``viol``: the largest
    projected-gradient entry."""
    cdef Problem *p = t.p
    cdef Part o
    cdef Py_ssize_t i
    cdef double best
    t.Ki, t.delta, t.last = K, delta, last
    _run_pass(t, PASS_COORD, &o)
    viol[0], step[0], i, best = o.viol, o.step, o.j, o.best
    if last >= 0:  # its diagonal term after the column's, as the two-pass loop; then its own choice
        p.v[last] -= p.D[last] * delta
        _coord_one(p, last, viol, &best, &i, step)
    return i


cdef long long _coordinate_steps(Team *team, ColumnCache cache, double tol, long long max_iter, double *viol) except -1:
    """Mode 0: single-coordinate Newton steps, greedy by gain, over every variable (no equality
    constraint). ``viol``: the largest projected-gradient entry. With AVX2 a step's update of v
    and the next step's choice are one pass (:func:`_coord_pass`), with the same bits as the two
    index-list loops (:func:`_coord_one` over the variables, then :func:`_coord_update`).

    Each step moves its coordinate by ``p.omega`` times the Newton step, clipped to the box:
    successive over-relaxation (Mangasarian & Musicant, "Successive overrelaxation for support
    vector machines", IEEE TNN 10(5), 1999, for this very problem: the SVM whose offset is
    penalised, so that no equality constraint remains). Along the coordinate the objective is a
    parabola, so for ω in [1, 2) a step still gains at least ω(2 − ω) times the greedy Newton
    step's gain (a step the box clips is the plain one), and the stopping rule (the projected
    gradient) is unchanged."""
    cdef Problem *p = team.p
    cdef bint fused = sdpk_use_avx2
    cdef long long it = 0
    cdef Py_ssize_t t, i, last = -1
    cdef double best, step = 0.0, delta = 0.0
    cdef double *Ki = NULL
    viol[0] = INFINITY
    while it < max_iter:
        if (it & 1023) == 0:
            PyErr_CheckSignals()
        cache.tick += 1
        if fused:
            with nogil:  # Ki is still cached: no column was asked for since
                i = _coord_pass(team, Ki, delta, last, viol, &step)
            last = -1
        else:
            best, viol[0], i, step = 0.0, 0.0, -1, 0.0
            for t in range(p.l):
                _coord_one(p, t, viol, &best, &i, &step)
        if viol[0] <= tol or i < 0:
            break
        Ki = cache.col(_kidx(p, i))
        if p.omega != 1.0:  # over-relaxed, clipped to the box as the plain step was
            step = p.omega * step
            if step < -p.alpha[i]:
                step = -p.alpha[i]
            if step > p.upper[i] - p.alpha[i]:
                step = p.upper[i] - p.alpha[i]
        p.alpha[i] += step
        if p.alpha[i] < 0.0:
            p.alpha[i] = 0.0
        delta = p.y[i] * step
        if fused:
            last = i  # the next pass updates v
        else:
            _coord_update(p, Ki, delta, i)
        it += 1
    if last >= 0:  # max_iter reached: the last step's update, without a choice after it
        _coord_update(p, Ki, delta, last)
    return it


cdef inline void _coord_update(Problem *p, const double *K, double delta, Py_ssize_t i) noexcept nogil:
    """Mode 0's update of v after variable i moved by ``delta`` along the kernel column K."""
    cdef Py_ssize_t t
    for t in range(p.l):
        p.v[t] -= delta * K[_kidx(p, t)]
    p.v[i] -= p.D[i] * delta


def smo(
    ColumnCache cache,
    Py_ssize_t n_kernel,
    double[::1] y,
    double[::1] alpha,
    double[::1] v,
    double[::1] upper,
    double[::1] D,
    double[::1] QD,
    int mode,
    double tol,
    long long max_iter,
    Py_ssize_t[::1] active,
    Py_ssize_t n_active,
    bint shrinking,
    double target=-INFINITY,
    int threads=1,
    double relaxation=1.0,
):
    """SMO on  min ½αᵀQα + pᵀα,  0 ≤ α ≤ upper,  with the equality constraints of ``mode`` (0: none,
    1: yᵀα fixed, 2: yᵀα and eᵀα fixed), Q_st = y_s y_t K(s mod n, t mod n) + D_t[s = t] (module
    comment), updating ``alpha``, ``v``, ``active`` in place.

    ``v`` holds −y∘(Qα + p) on entry and is kept current on the active variables
    ``active[:n_active]`` (modes 1-2; mode 0 keeps every variable current). ``QD`` is the
    diagonal of Q. Pair steps (modes 1-2) shrink every min(l, 1000) steps when ``shrinking``; the
    caller reconstructs ``v`` on the set-aside variables and calls again. Stops when the maximal
    KKT violation on the active variables is ≤ ``tol`` (mode 1: max over I_up of v minus min over
    I_low; mode 2: the larger of the two classes' such gaps; mode 0: the largest projected
    gradient) or after ``max_iter`` steps, or (modes 1-2) once the objective has decreased by
    ``target`` or more (a negative number; −inf: never). The passes run without the GIL; with
    ``threads`` ≥ 2 and at least SPLIT_MIN variables, a second thread runs half of each AVX2 pass,
    and (at least SPLIT_WORK numbers read per column) half of the rows of each kernel column of
    distances the steps compute (the same bits as one thread). ``relaxation`` (mode 0, in [1, 2)):
    each coordinate step is this times the coordinate's Newton step, clipped to the box
    (successive over-relaxation, :func:`_coordinate_steps`); 1 is the plain step.

    Returns ``(iterations, violation, n_active, min_curvature, decrease)``; ``min_curvature`` < 0
    is the most negative second-order curvature met (Q is then not positive semidefinite);
    ``decrease`` the objective's change over the steps (0 unless ``target`` is finite): a pair
    step changes it by ½(∇_i + ∇'_i)Δα_i + ½(∇_j + ∇'_j)Δα_j exactly (a quadratic), ∇ = −y∘v
    before and after the step.
    """
    cdef Problem p
    cdef Py_ssize_t l = y.shape[0]
    cdef Py_ssize_t t
    # columns computed ahead, in batches (col_ahead), for a kernel the core evaluates itself from at
    # least AHEAD_WIDTH numbers per point: below that a column costs about what the look-ahead's scan
    # over the variables does
    cdef bint ahead = (cache.has_spec and not cache.fixed and cache.spec.kind != K_MATRIX
                       and cache.spec.d + cache.spec.t >= AHEAD_WIDTH and _AHEAD)
    p.l = l
    p.n = n_kernel
    p.mode = mode
    p.y = &y[0]
    p.alpha = &alpha[0]
    p.v = &v[0]
    p.upper = &upper[0]
    p.D = &D[0]
    p.QD = &QD[0]
    st_array = np.empty(l, dtype=np.uint8)
    cdef unsigned char[::1] stv = st_array
    for t in range(l):
        stv[t] = _status(y[t], alpha[t], upper[t])
    p.st = &stv[0]
    p.active = &active[0]
    p.min_curv = 0.0
    p.split = mode == 2 and l == 2 * n_kernel
    for t in range(l if p.split else 0):
        if (y[t] > 0) != (t < n_kernel):
            p.split = False
            break
    p.h = _split_point(l, n_kernel)
    p.omega = relaxation
    p.vec = sdpk_use_avx2  # (modes 1-2: and while shrinking leaves half the variables, _smo_steps)
    cdef Team team
    team.p = &p
    team.job = 0
    team.Ki = NULL
    team.last = -1
    team.on = False
    team.columns = False
    cdef bint columns = cache.has_spec and not cache.fixed and _split_pays(&cache.spec)
    team.passes = threads > 1 and p.h < l and l >= SPLIT_MIN and sdpk_use_avx2
    if team.passes or (threads > 1 and sdpk_use_avx2 and columns):
        team.on = sdpk_team_start(&team.c, _team_job, &team) == 1
    team.passes = team.passes and team.on
    if team.on and columns:
        cache.team = &team  # the columns the steps ask for: their rows over the two threads
    try:
        return _smo_steps(&team, cache, tol, max_iter, n_active, shrinking, target, ahead, stv, active,
                          y, alpha, v)
    finally:
        cache.team = NULL
        if team.on:
            sdpk_team_stop(&team.c)


cdef tuple _smo_steps(Team *team, ColumnCache cache, double tol, long long max_iter, Py_ssize_t n_active,
                      bint shrinking, double target, bint ahead, unsigned char[::1] stv, Py_ssize_t[::1] active,
                      double[::1] y, double[::1] alpha, double[::1] v):
    """:func:`smo`'s steps on the problem set up there."""
    cdef Problem *pp = team.p
    cdef Py_ssize_t l = pp.l
    cdef int mode = pp.mode
    cdef Py_ssize_t t, j, i
    cdef Py_ssize_t ii[2]
    cdef double gmax[2]
    cdef double gmin[2]
    cdef const double *Kis[2]
    cdef long long it = 0, counter
    cdef bint fresh
    cdef double bij = 0.0, aij = 1.0, viol
    cdef bint track = target > -INFINITY
    cdef double df = 0.0, ai0 = 0.0, aj0 = 0.0, gi0 = 0.0, gj0 = 0.0
    cdef Py_ssize_t i0 = 0, j0 = 0
    cdef double *Ki
    cdef double *Kj
    cdef Py_ssize_t extra[BATCH]
    cdef Py_ssize_t k, m_ahead
    cdef int g
    cdef Py_ssize_t[::1] slot_of = cache.slot_array
    if mode == 0:
        pp.n_active = l
        it = _coordinate_steps(team, cache, tol, max_iter, &viol)
        return it, viol, l, pp.min_curv, 0.0
    for t in range(n_active, l):  # set aside by an earlier call
        stv[active[t]] |= S_OUT
    pp.n_active = n_active
    pp.vec = sdpk_use_avx2 and 2 * n_active > l
    counter = min(l, 1000)
    viol = INFINITY
    fresh = False  # ii and gmax already found by the last _update_pair
    i = -1
    while it < max_iter:
        if (it & 1023) == 0:
            PyErr_CheckSignals()
        cache.tick += 1
        counter -= 1
        if shrinking and counter == 0:
            counter = min(l, 1000)
            with nogil:
                _shrink(pp)
            pp.vec = pp.vec and 2 * pp.n_active > l
            fresh = False
        if not fresh:
            with nogil:
                _select_i(pp, gmax, ii)
        if ii[0] < 0 and ii[1] < 0:
            viol = 0.0
            break
        for g in range(2):
            Kis[g] = NULL
            if ii[g] >= 0:
                k = _kidx(pp, ii[g])
                m_ahead = 0
                if ahead and slot_of[k] < 0:
                    m_ahead = _ahead(pp, &slot_of[0], True, k, extra)
                Kis[g] = cache.col_ahead(k, extra, m_ahead)
        with nogil:
            if pp.vec:
                j = _select_j_avx2(team, ii, gmax, Kis, gmin, &bij, &aij)
            else:
                j = _select_j(pp, ii, gmax, Kis, gmin, &bij, &aij)
        viol = gmax[0] - gmin[0]
        if mode == 2 and gmax[1] - gmin[1] > viol:
            viol = gmax[1] - gmin[1]
        if viol <= tol or j < 0:
            break
        i = ii[_group(pp, pp.st[j])]
        k = _kidx(pp, j)
        m_ahead = 0
        if ahead and slot_of[k] < 0:
            m_ahead = _ahead(pp, &slot_of[0], False, k, extra)
        Kj = cache.col_ahead(k, extra, m_ahead)
        Ki = cache.col(_kidx(pp, i))  # still cached: stamped this tick
        if track:
            i0, j0 = i, j
            ai0, aj0 = alpha[i], alpha[j]
            gi0, gj0 = -y[i] * v[i], -y[j] * v[j]
        with nogil:
            fresh = _update_pair(team, i, j, Ki, Kj, bij, aij, gmax, ii)
        if track:
            df += 0.5 * ((gi0 - y[i0] * v[i0]) * (alpha[i0] - ai0) + (gj0 - y[j0] * v[j0]) * (alpha[j0] - aj0))
        if fresh and ii[0] < 0 and ii[1] < 0:  # nothing left in I_up: optimal
            it += 1
            viol = 0.0
            break
        it += 1
        if track and df <= target:
            break
    return it, viol, pp.n_active, pp.min_curv, df

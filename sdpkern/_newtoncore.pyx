# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled fresh-factor Newton loop of the β = 0 thin-plate SVM and the exact line search.

:func:`newton_on_points` is Chapelle's finite Newton method (004: no offset, a Cholesky factor of
λI + K̃_ss made afresh at every step, then the exact line search) on K̃ = Φ + MQᵀ restricted to a
set of points; :func:`sdpkern.native.cpd.newton._beta_zero_newton` runs it over its warm-start
levels. On small sets the step's flops are a fraction of a NumPy loop's gathers, temporaries and
SciPy call overhead, hence the loop here: BLAS/LAPACK from SciPy's Cython bindings (``dgemm``,
``dpotrf``, ``dpotrs``), the rest plain loops over preallocated buffers.

:func:`exact_line_search` is the one implementation of 004's exact line search (the Python
:func:`sdpkern.native.primal_svm.exact_line_search` calls it).

:func:`cholesky_blocked` is the large-order factorisation of
:mod:`sdpkern.native.dense_cholesky` (which says why LAPACK's own is not called above a size).

Layout: Φ, Q and M are C-ordered (row i of Φ is contiguous; Φ symmetric, so it is also column i).
LAPACK reads column-major: the matrix λI + K̃_ss is written in column-major order, upper triangle
(what ``dpotrf('U')`` reads), entry (i, j), i ≤ j, from row s_j of Φ.
"""

import numpy as np

from libc.math cimport INFINITY, fabs
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memset
from scipy.linalg.cython_blas cimport dgemm, dtrsm
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs


cdef double SETTLE_TOL = 1e-8  # primal_svm._settled_masks' tolerance on a changed point's slack
cdef Py_ssize_t UPPER_BLOCK = 32  # columns per dgemm call forming the upper triangle of M_s Q_sᵀ


ctypedef struct _Break:
    double t
    Py_ssize_t i


cdef int _cmp_break(const void* a, const void* b) noexcept nogil:
    """Ascending t, ties by index: the order of NumPy's stable argsort of the breakpoints."""
    cdef const _Break* x = <const _Break*> a
    cdef const _Break* y = <const _Break*> b
    if x.t < y.t:
        return -1
    if x.t > y.t:
        return 1
    return (x.i > y.i) - (x.i < y.i)


cdef inline bint _active(double e, double g) noexcept nogil:
    return e > 0.0 or (e == 0.0 and g < 0.0)


cdef double _line_search(
    double q1, double q2, const double* e, const double* g, Py_ssize_t n, double C, _Break* br
) noexcept nogil:
    """Exact minimiser t ≥ 0 of q1 t + ½ q2 t² + C Σ max(0, e_i − t g_i)² (see
    :func:`exact_line_search`). ``br`` holds n breakpoints (scratch)."""
    cdef double A0 = 0.0, B0 = 0.0, cA = 0.0, cB = 0.0, C2 = 2.0 * C, t, low = 0.0, denom, sgn
    cdef Py_ssize_t i, j, nb = 0
    for i in range(n):
        if _active(e[i], g[i]):
            A0 += g[i] * e[i]
            B0 += g[i] * g[i]
        if g[i] != 0.0:
            t = e[i] / g[i]
            if t > 0.0 and t < INFINITY:  # (NaN fails both)
                br[nb].t = t
                br[nb].i = i
                nb += 1
    if nb > 1:
        qsort(br, nb, sizeof(_Break), _cmp_break)
    # interval j is (t_{j-1}, t_j); the derivative q1 − 2C A + t (q2 + 2C B) is linear on it, with A
    # and B (Σ g e, Σ g² over the active terms) changed at each breakpoint passed: an active term
    # with g > 0 switches off there, an inactive one with g < 0 on
    j = 0
    while j < nb:
        if q1 - C2 * (A0 + cA) + br[j].t * (q2 + C2 * (B0 + cB)) >= 0.0:
            break
        i = br[j].i
        sgn = -1.0 if _active(e[i], g[i]) else 1.0
        cA += sgn * g[i] * e[i]
        cB += sgn * g[i] * g[i]
        low = br[j].t
        j += 1
    denom = q2 + C2 * (B0 + cB)
    if denom <= 0.0:
        return low  # t_{j-1}, or 0 when j = 0
    t = (C2 * (A0 + cA) - q1) / denom
    if low > t:
        t = low
    if 0.0 > t:
        t = 0.0
    return t


def exact_line_search(double q1, double q2, const double[::1] e, const double[::1] g, double C):
    """Exact minimiser ``t ≥ 0`` of ``q1 t + ½ q2 t² + C Σ max(0, e_i − t g_i)²`` (the step length of
    004's "Finite Newton Method", exact as in Keerthi and DeCoste's modified Newton method).

    Convex and piecewise quadratic with breakpoints t_i = e_i/g_i; its derivative is linear between
    them: the breakpoints are sorted once and the interval where it crosses zero found in one pass.
    ``e`` and ``g`` of equal length (``ValueError`` otherwise).
    """
    cdef Py_ssize_t n = e.shape[0]
    if g.shape[0] != n:
        raise ValueError(f"e and g differ in length ({n} and {g.shape[0]})")
    cdef _Break* br = <_Break*> malloc(max(n, 1) * sizeof(_Break))
    if br == NULL:
        raise MemoryError()
    cdef double t
    with nogil:
        t = _line_search(q1, q2, &e[0] if n else NULL, &g[0] if n else NULL, n, C, br)
    free(br)
    return t


cdef void _product(
    const double* Phi, const double* Q, const double* M, Py_ssize_t n, Py_ssize_t k,
    const Py_ssize_t* P, Py_ssize_t p, const Py_ssize_t* nz, const double* v, Py_ssize_t nnz,
    double* full, double* w, double* out,
) noexcept nogil:
    """out = (K̃ v)_P = (Φv + M(Qᵀv))_P for v with values ``v[j]`` at the points ``nz[j]`` (zero
    elsewhere): rows nz of Φ (its columns: Φ symmetric) summed over all n points, then read at P."""
    cdef Py_ssize_t i, j, l
    cdef const double* row
    cdef double vj, acc
    memset(full, 0, n * sizeof(double))
    memset(w, 0, k * sizeof(double))
    for j in range(nnz):
        vj = v[j]
        row = Phi + nz[j] * n
        for i in range(n):
            full[i] += vj * row[i]
        row = Q + nz[j] * k
        for l in range(k):
            w[l] += vj * row[l]
    for i in range(p):
        row = M + P[i] * k
        acc = 0.0
        for l in range(k):
            acc += row[l] * w[l]
        out[i] = full[P[i]] + acc


cdef inline void _scatter(double* cf, Py_ssize_t n, const Py_ssize_t* P, Py_ssize_t p, const double* v) noexcept nogil:
    """cf = v at the points P, zero elsewhere."""
    cdef Py_ssize_t i
    memset(cf, 0, n * sizeof(double))
    for i in range(p):
        cf[P[i]] = v[i]


cdef struct _Work:
    double* yP
    double* o
    double* on
    double* cP
    double* d
    double* do_
    double* e
    double* g
    double* cs
    double* full
    double* w
    double* Ms
    double* Qs
    double* A
    Py_ssize_t cap  # the sets Ms, Qs and A have room for
    Py_ssize_t* s
    char* mask
    _Break* br


cdef bint _reserve(_Work* wk, Py_ssize_t m, Py_ssize_t k) noexcept nogil:
    """Room in ``wk.Ms``, ``wk.Qs`` (m × k) and ``wk.A`` (m × m) for a set of m points, grown as
    the sets grow: a buffer for the largest set allowed (refactor_max² doubles) would extend the
    heap by that much at every fit although the steps touch |s|² of it, and glibc hands such an
    extension back to the system at the fit's end (page faults at the next fit). Returns False
    when memory runs out."""
    cdef double* buf
    if m <= wk.cap:
        return True
    buf = <double*> realloc(wk.Ms, (2 * m * k + m * m) * sizeof(double))
    if buf == NULL:
        return False
    wk.Ms, wk.Qs, wk.A, wk.cap = buf, buf + m * k, buf + 2 * m * k, m
    return True


cdef int _newton_loop(
    const double* Phi, const double* Q, const double* M, const double* y, Py_ssize_t n, Py_ssize_t k,
    double C, const Py_ssize_t* P, Py_ssize_t p, const double* c, int max_iter, Py_ssize_t refactor_max,
    _Work* wk, double* cf, int* steps,
) noexcept nogil:
    """The loop of :func:`newton_on_points`. Returns 1 settled (``cf`` the Newton point over all n
    points), 0 unsettled and −1 handed over (``cf`` the iterate, zero off P); ``steps`` the steps
    taken; −2 when memory for a step's set ran out."""
    cdef double lam = 0.5 / C, q1, q2, t, sl, one = 1.0
    cdef Py_ssize_t i, j, l, m, nnz = 0
    cdef int it = 0, info = 0, nrhs = 1, mi, ki, lda, jb, ldc
    cdef Py_ssize_t j0
    cdef bint any_mask, settled
    cdef char up = b'U', tr = b'T', nt = b'N'
    for i in range(p):
        wk.yP[i] = y[P[i]]
        wk.cP[i] = c[P[i]]
    for j in range(n):  # the nonzeros of c (over all n points, as Φc reads them)
        if c[j] != 0.0:
            wk.s[nnz] = j
            wk.cs[nnz] = c[j]
            nnz += 1
    if nnz:
        _product(Phi, Q, M, n, k, P, p, wk.s, wk.cs, nnz, wk.full, wk.w, wk.o)
    else:
        memset(wk.o, 0, p * sizeof(double))
    any_mask = False
    for i in range(p):
        wk.mask[i] = wk.yP[i] * wk.o[i] < 1.0
        any_mask = any_mask or wk.mask[i]
    if not any_mask:
        memset(wk.mask, 1, p)
    it = 0
    while it < max_iter:
        it += 1
        m = 0
        for i in range(p):
            if wk.mask[i]:
                wk.s[m] = P[i]
                m += 1
        if m > refactor_max:  # the caller hands the iterate over
            _scatter(cf, n, P, p, wk.cP)
            steps[0] = it - 1
            return -1
        if not _reserve(wk, m, k):
            steps[0] = it - 1
            return -2
        # λI + K̃_ss, column-major, upper triangle: Φ_ss, then + M_s Q_sᵀ by one dgemm, then + λ
        for j in range(m):
            for i in range(j + 1):
                wk.A[i + j * m] = Phi[wk.s[j] * n + wk.s[i]]
        if k:
            for i in range(m):
                for l in range(k):
                    wk.Ms[i * k + l] = M[wk.s[i] * k + l]
                    wk.Qs[i * k + l] = Q[wk.s[i] * k + l]
            # column-major, Ms is Msᵀ (k × m): A += (Msᵀ)ᵀ Qsᵀ = M_s Q_sᵀ, by column blocks of
            # UPPER_BLOCK down to their diagonal block (the upper triangle and a little more, in
            # about half the flops of the full product: as many as the factorisation's at k ≈ |s|/6)
            ki, ldc = <int> k, <int> m
            j0 = 0
            while j0 < m:
                jb = <int> min(UPPER_BLOCK, m - j0)
                mi = <int> (j0 + jb)
                dgemm(&tr, &nt, &mi, &jb, &ki, &one, wk.Ms, &ki, wk.Qs + j0 * k, &ki, &one, wk.A + j0 * m, &ldc)
                j0 += jb
        for i in range(m):
            wk.A[i + i * m] += lam
            wk.cs[i] = y[wk.s[i]]
        mi = <int> m
        lda = mi if mi > 0 else 1
        dpotrf(&up, &mi, wk.A, &lda, &info)
        if info != 0:  # not numerically positive definite: the caller hands the iterate over
            _scatter(cf, n, P, p, wk.cP)
            steps[0] = it - 1
            return -1
        dpotrs(&up, &mi, &nrhs, wk.A, &lda, wk.cs, &lda, &info)
        _product(Phi, Q, M, n, k, P, p, wk.s, wk.cs, m, wk.full, wk.w, wk.on)
        memset(cf, 0, n * sizeof(double))
        for i in range(m):
            cf[wk.s[i]] = wk.cs[i]
        # settled (primal_svm._settled_masks): no point changed sides, or those that did sit on the margin
        settled = True
        for i in range(p):
            sl = 1.0 - wk.yP[i] * wk.on[i]
            if wk.mask[i] != (sl > 0.0) and not fabs(sl) <= SETTLE_TOL:  # (NaN: unsettled, as NumPy's)
                settled = False
                break
        if settled:
            steps[0] = it
            return 1
        q1 = 0.0
        q2 = 0.0
        for i in range(p):
            wk.d[i] = cf[P[i]] - wk.cP[i]
            wk.do_[i] = wk.on[i] - wk.o[i]
            q1 += wk.d[i] * wk.o[i]
            q2 += wk.d[i] * wk.do_[i]
            wk.e[i] = 1.0 - wk.yP[i] * wk.o[i]
            wk.g[i] = wk.yP[i] * wk.do_[i]
        t = _line_search(q1, q2, wk.e, wk.g, p, C, wk.br)
        if t == 0.0:  # no descent from a fresh factor: unsettled (the caller re-solves)
            break
        any_mask = False
        for i in range(p):
            wk.cP[i] = wk.cP[i] + t * wk.d[i]
            wk.o[i] = wk.o[i] + t * wk.do_[i]
            any_mask = any_mask or (wk.yP[i] * wk.o[i] < 1.0)
        if any_mask:
            for i in range(p):
                wk.mask[i] = wk.yP[i] * wk.o[i] < 1.0
    _scatter(cf, n, P, p, wk.cP)
    steps[0] = it
    return 0


def newton_on_points(
    const double[:, ::1] Phi, const double[:, ::1] Q, const double[:, ::1] M, const double[::1] y, double C,
    const Py_ssize_t[::1] P, const double[::1] c, int max_iter, Py_ssize_t refactor_max,
):
    """Chapelle's finite Newton method (004) on K̃ = Φ + MQᵀ restricted to the points ``P``, no
    offset, from ``c``: each step solves (λI + K̃_ss)c_s = y_s (λ = 1/(2C), s the violators among
    P) by a fresh Cholesky factor, then the exact line search; it stops when the Newton point's
    violators are the set it was solved on (a point that changed sides within 1e-8 of the margin
    does not count).

    Φ (n × n, symmetric), Q and M (n × k), y (±1) and c (n; zero off P) as
    :func:`sdpkern.native.cpd_newton._beta_zero_newton` passes them: P sorted, distinct, in
    [0, n); C > 0; max_iter ≥ 1 (the caller validates; only the shapes and P's range are checked
    here, so that no input can make the loop read out of bounds).

    Returns (c, steps, settled): c over all n points; settled True, False (max_iter reached, or no
    descent), or None when a violator set exceeds ``refactor_max`` points or λI + K̃_ss is not
    numerically positive definite (c then the iterate reached: the caller hands over).
    """
    cdef Py_ssize_t n = Phi.shape[0], k = Q.shape[1], p = P.shape[0], i, cap
    if Phi.shape[1] != n or Q.shape[0] != n or M.shape[0] != n or M.shape[1] != k or y.shape[0] != n or c.shape[0] != n:
        raise ValueError("newton_on_points: Phi (n, n), Q and M (n, k), y and c (n,) expected")
    if n == 0 or p == 0 or max_iter < 1:
        raise ValueError("newton_on_points: needs n ≥ 1 points, P non-empty and max_iter ≥ 1")
    for i in range(p):
        if P[i] < 0 or P[i] >= n:
            raise ValueError(f"newton_on_points: P holds {P[i]}, outside [0, {n})")
    cap = min(p, max(refactor_max, 0))
    cdef _Work wk
    cdef double* dbuf = <double*> malloc((10 * p + 2 * n + k + 1) * sizeof(double))
    cdef Py_ssize_t* s = <Py_ssize_t*> malloc(max(p, n) * sizeof(Py_ssize_t))
    cdef char* mask = <char*> malloc(p)
    cdef _Break* br = <_Break*> malloc(p * sizeof(_Break))
    cf_arr = np.empty(n)
    cdef double[::1] cf = cf_arr
    cdef int steps = 0, status = 0
    if dbuf == NULL or s == NULL or mask == NULL or br == NULL:
        free(dbuf)
        free(s)
        free(mask)
        free(br)
        raise MemoryError()
    wk.yP, wk.o, wk.on, wk.cP, wk.d = dbuf, dbuf + p, dbuf + 2 * p, dbuf + 3 * p, dbuf + 4 * p
    wk.do_, wk.e, wk.g, wk.cs = dbuf + 5 * p, dbuf + 6 * p, dbuf + 7 * p, dbuf + 8 * p
    # wk.cs holds up to max(p, n) values (c's nonzeros at the start): 8p + [p + n]
    wk.full = dbuf + 9 * p + n
    wk.w = wk.full + n
    wk.Ms, wk.Qs, wk.A, wk.cap = NULL, NULL, NULL, 0  # (_reserve: grown with the sets)
    wk.s, wk.mask, wk.br = s, mask, br
    with nogil:
        status = _newton_loop(
            &Phi[0, 0], &Q[0, 0] if k else NULL, &M[0, 0] if k else NULL, &y[0], n, k, C, &P[0], p, &c[0],
            max_iter, cap, &wk, &cf[0], &steps,
        )
    free(dbuf)
    free(s)
    free(mask)
    free(br)
    free(wk.Ms)
    if status == -2:
        raise MemoryError()
    return cf_arr, steps, (None if status < 0 else status == 1)


def restore_symmetric(double[:, ::1] A, const double[::1] diag):
    """A's lower triangle from its upper one and its diagonal from ``diag``, in place: undoes a
    factorisation written over the lower triangle and diagonal of a symmetric C-ordered matrix
    (the shifted β = 0 factor, :func:`sdpkern.native.cpd_newton._shifted_kernel`, made in Φ's own
    storage). Rows in blocks of 64, so that the columns read stay in cache."""
    cdef Py_ssize_t n = A.shape[0], i, j, i0, i1
    if A.shape[1] != n or diag.shape[0] != n:
        raise ValueError("restore_symmetric: A (n, n) and diag (n,) expected")
    with nogil:
        for i0 in range(0, n, 64):
            i1 = min(i0 + 64, n)
            for j in range(i1):
                for i in range(max(i0, j + 1), i1):
                    A[i, j] = A[j, i]
        for i in range(n):
            A[i, i] = diag[i]


# ---- level-3 calls in two fixed parts, the second by another thread where one is asked for: the
# parts are the same calls whatever the threads (so are the bits), one part a range of B's or C's
# columns (or rows), each of which a call computes alone
cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t *th, const void *attr, void *(*fn)(void *) noexcept nogil, void *arg)
    int pthread_join(pthread_t th, void **ret)

#: columns (or rows) from which a level-3 call is made in two parts (:func:`_halves`)
cdef int SPLIT_MIN = 16
#: multiply-adds of a part from which a second thread runs it: about 0.1 ms of one core's BLAS,
#: against the tens of microseconds of starting and joining a thread
cdef double THREAD_MIN_FLOPS = 2e6


ctypedef struct _Blas3:
    bint trsm
    char ta, tb, side, uplo
    int m, n, k, lda, ldb, ldc
    double alpha, beta
    double *a
    double *b
    double *c


cdef void _blas3(_Blas3 *p) noexcept nogil:
    cdef char nd = b'N'
    if p.m <= 0 or p.n <= 0:
        return
    if p.trsm:
        dtrsm(&p.side, &p.uplo, &p.ta, &nd, &p.m, &p.n, &p.alpha, p.a, &p.lda, p.b, &p.ldb)
    else:
        dgemm(&p.ta, &p.tb, &p.m, &p.n, &p.k, &p.alpha, p.a, &p.lda, p.b, &p.ldb, &p.beta, p.c, &p.ldc)


cdef void *_blas3_main(void *arg) noexcept nogil:
    _blas3(<_Blas3 *>arg)
    return NULL


cdef int _halves(int count) noexcept nogil:
    """Where a call over ``count`` columns (rows) is cut: about half, a multiple of 8; ``count``
    (no cut) below ``SPLIT_MIN``."""
    if count < SPLIT_MIN:
        return count
    return (count // 2) & ~7


cdef double _flops(const _Blas3 *p) noexcept nogil:
    """The call's multiply-adds: m n k (gemm), m² n or n² m (trsm from the left or the right)."""
    if not p.trsm:
        return <double> p.m * p.n * p.k
    if p.side == b'L':
        return <double> p.m * p.m * p.n
    return <double> p.n * p.n * p.m


cdef void _both(_Blas3 *first, _Blas3 *second, bint threads) noexcept nogil:
    """Both calls, the second by a second thread when ``threads`` and it is worth one
    (``THREAD_MIN_FLOPS``; the bits are the same either way)."""
    cdef pthread_t th
    if (threads and second.m > 0 and second.n > 0 and _flops(second) >= THREAD_MIN_FLOPS
            and pthread_create(&th, NULL, _blas3_main, second) == 0):
        _blas3(first)
        pthread_join(th, NULL)
    else:
        _blas3(first)
        _blas3(second)


cdef void _gemm_split(char ta, char tb, int m, int n, int k, double alpha, double *a, int lda, double *b, int ldb,
                      double beta, double *c, int ldc, bint by_rows, bint threads) noexcept nogil:
    """C ← αop(A)op(B) + βC in two parts: C's rows (``by_rows``; ``ta`` = 'N': A's rows) or its
    columns (``tb`` = 'N': B's columns)."""
    cdef _Blas3 p, q
    cdef int h = _halves(m if by_rows else n)
    p.trsm, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc = (
        False, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    q = p
    if by_rows:
        p.m = h
        q.m, q.a, q.c = m - h, a + h, c + h
    else:
        p.n = h
        q.n, q.b, q.c = n - h, b + <Py_ssize_t> h * ldb, c + <Py_ssize_t> h * ldc
    _both(&p, &q, threads)


cdef void _trsm_split(char side, char uplo, char ta, int m, int n, double *a, int lda, double *b, int ldb,
                      bint threads) noexcept nogil:
    """B ← op(A)⁻¹B (``side`` 'L': by B's columns) or Bop(A)⁻¹ ('R': by B's rows), in two parts."""
    cdef _Blas3 p, q
    cdef int h
    p.trsm, p.side, p.uplo, p.ta, p.m, p.n, p.alpha, p.a, p.lda, p.b, p.ldb = (
        True, side, uplo, ta, m, n, 1.0, a, lda, b, ldb)
    q = p
    if side == b'L':
        h = _halves(n)
        p.n, q.n, q.b = h, n - h, b + <Py_ssize_t> h * ldb
    else:
        h = _halves(m)
        p.m, q.m, q.b = h, m - h, b + h
    _both(&p, &q, threads)


def solve_triangular_split(double[::1, :] R, double[::1, :] B, bint lower, bint trans, int threads,
                           Py_ssize_t order=-1):
    """B ← op(R)⁻¹B in place (R triangular, column-major; op(R) = Rᵀ when ``trans``), B's columns in
    two parts from ``SPLIT_MIN`` columns on, the second by another thread when ``threads`` ≥ 2:
    the same calls, so the same bits, for any ``threads``. ``order`` ≥ 0: R is the leading
    ``order`` × ``order`` block of the array given (a factor kept with room to grow)."""
    cdef int lda = <int> R.shape[0], n = <int> (R.shape[0] if order < 0 else order), k = <int> B.shape[1]
    if R.shape[1] != R.shape[0] or n > R.shape[0] or B.shape[0] != n:
        raise ValueError("solve_triangular_split: a square R and B with as many rows as its order expected")
    if n == 0 or k == 0:
        return
    with nogil:
        _trsm_split(b'L', b'L' if lower else b'U', b'T' if trans else b'N', n, k, &R[0, 0], lda, &B[0, 0], n,
                    threads > 1)


def cholesky_blocked(double[::1, :] A, Py_ssize_t block, bint lower, int threads=0, Py_ssize_t order=-1):
    """A's Cholesky factor over its lower (``lower``) or upper triangle, in place (A column-major),
    left-looking by blocks of ``block`` columns (rows for the upper factor): for each block,
    ``dgemm`` subtracts the finished blocks' products from the block, ``dpotrf`` factorises its
    diagonal block and ``dtrsm`` solves the rest of the block against it, all on A's own storage
    (no copies but each diagonal block's other triangle, kept aside while the block's update
    writes over it: as LAPACK's, the factorisation leaves the other triangle as it was). Returns
    0, or the order of the first leading minor that is not positive definite (LAPACK's
    ``info``).

    ``threads`` ≥ 1: each ``dgemm`` and ``dtrsm`` in two parts (its rows or columns,
    :func:`_halves`), the second by another thread when ``threads`` ≥ 2: the same calls and bits
    for any ``threads`` ≥ 1. 0: one call each (the calls the large factorisation of
    :mod:`sdpkern.native.dense_cholesky` makes, where BLAS's own threads may run them).
    ``order`` ≥ 0: the factor of the leading ``order`` × ``order`` block, in place."""
    cdef int n = <int> (A.shape[0] if order < 0 else order), lda, j0, jb, m, info = 0
    cdef Py_ssize_t i, j
    cdef char nt = b'N', tr = b'T', lo = b'L', up = b'U', ri = b'R', le = b'L'
    cdef double one = 1.0, minus = -1.0
    cdef double* a
    cdef double* d
    cdef double* keep
    cdef bint split = threads >= 1, two = threads >= 2
    if A.shape[1] != A.shape[0] or A.shape[0] > 2147483647 or block < 1 or order > A.shape[0]:
        raise ValueError("cholesky_blocked: a square matrix, an order within it and block >= 1 expected")
    if n == 0:
        return 0
    block = min(block, n)
    keep = <double*> malloc(block * block * sizeof(double))
    if keep == NULL:
        raise MemoryError()
    lda = <int> A.shape[0]
    a = &A[0, 0]
    with nogil:
        j0 = 0
        while j0 < n:
            jb = <int> min(block, n - j0)
            m = n - j0
            d = a + j0 + <Py_ssize_t> j0 * lda  # the diagonal block
            for j in range(jb):
                for i in range(jb):
                    keep[i + j * jb] = d[i + j * lda]
            if lower:
                if j0 > 0 and split:  # A[j0:, j0:j0+jb] -= A[j0:, :j0] A[j0:j0+jb, :j0]^T
                    _gemm_split(nt, tr, m, jb, j0, minus, a + j0, lda, a + j0, lda, one, d, lda, True, two)
                elif j0 > 0:
                    dgemm(&nt, &tr, &m, &jb, &j0, &minus, a + j0, &lda, a + j0, &lda, &one, d, &lda)
                dpotrf(&lo, &jb, d, &lda, &info)
            else:
                if j0 > 0 and split:  # A[j0:j0+jb, j0:] -= A[:j0, j0:j0+jb]^T A[:j0, j0:]
                    _gemm_split(tr, nt, jb, m, j0, minus, a + <Py_ssize_t> j0 * lda, lda, a + <Py_ssize_t> j0 * lda,
                                lda, one, d, lda, False, two)
                elif j0 > 0:
                    dgemm(&tr, &nt, &jb, &m, &j0, &minus, a + <Py_ssize_t> j0 * lda, &lda, a + <Py_ssize_t> j0 * lda, &lda, &one, d, &lda)
                dpotrf(&up, &jb, d, &lda, &info)
            for j in range(jb):  # the other triangle as it was
                for i in range(jb):
                    if i != j and (i < j) == lower:
                        d[i + j * lda] = keep[i + j * jb]
            if info != 0:
                info = info + j0 if info > 0 else info
                break
            m = n - j0 - jb
            if m > 0 and lower:  # A[j0+jb:, j0:j0+jb] := A[j0+jb:, j0:j0+jb] D^-T
                if split:
                    _trsm_split(ri, lo, tr, m, jb, d, lda, d + jb, lda, two)
                else:
                    dtrsm(&ri, &lo, &tr, &nt, &m, &jb, &one, d, &lda, d + jb, &lda)
            elif m > 0:  # A[j0:j0+jb, j0+jb:] := D^-T A[j0:j0+jb, j0+jb:]
                if split:
                    _trsm_split(le, up, tr, jb, m, d, lda, d + <Py_ssize_t> jb * lda, lda, two)
                else:
                    dtrsm(&le, &up, &tr, &nt, &jb, &m, &one, d, &lda, d + <Py_ssize_t> jb * lda, &lda)
            j0 += jb
    free(keep)
    if info < 0:
        raise RuntimeError(f"cholesky_blocked: LAPACK argument {-info} invalid")
    return info

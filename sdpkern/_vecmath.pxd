# cython: language_level=3
"""NumPy's own SIMD inner loops of its float64 ufuncs (exp, log), called on a buffer from
nogil code: the compiled cores' loops over points vectorise except libm's scalar exp and log,
and NumPy dispatches these loops to the widest instruction set the machine has. Each core looks
its loops up once at import (:func:`find_loop`) and falls back to libm where a ufunc has none."""

cimport numpy as cnp

ctypedef void (*ufunc_loop)(char **args, cnp.npy_intp *dims, cnp.npy_intp *steps, void *data) noexcept nogil


cdef inline int find_loop(object uf, ufunc_loop *loop, void **data):
    """The first 'd->d' inner loop of a NumPy ufunc (the one NumPy itself dispatches to); 0 if none."""
    cdef cnp.ufunc u = uf
    cdef int i
    if u.nin != 1 or u.nout != 1:
        return 0
    for i in range(u.ntypes):
        if u.types[2 * i] == cnp.NPY_DOUBLE and u.types[2 * i + 1] == cnp.NPY_DOUBLE:
            loop[0] = <ufunc_loop>u.functions[i]
            data[0] = u.data[i]
            return 1
    return 0


ctypedef double (*scalar_fn)(double) noexcept nogil


cdef inline void apply_loop(ufunc_loop loop, void *data, scalar_fn fallback, double *x, Py_ssize_t n) noexcept nogil:
    """x[:n] = f(x[:n]) in place by the inner loop ``loop`` of :func:`find_loop`, or by the scalar
    ``fallback`` (libm's f) where ``loop`` is NULL."""
    cdef char *args[2]
    cdef cnp.npy_intp dims[1]
    cdef cnp.npy_intp steps[2]
    cdef Py_ssize_t i
    if loop == NULL:
        for i in range(n):
            x[i] = fallback(x[i])
        return
    args[0] = <char *>x
    args[1] = <char *>x
    dims[0] = n
    steps[0] = 8
    steps[1] = 8
    loop(args, dims, steps, data)

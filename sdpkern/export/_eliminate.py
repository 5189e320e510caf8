"""Eliminate the equality rows of a conic program: x = x₀ + T z.

SDPA files have no equality constraints in their inequality (primal) form. Writing each
equality as a pair of opposite inequalities is valid but leaves the feasible set without an
interior, and DSDP then reports convergence to a wrong answer (measured, SPEC "Solving and
exporting"). Substituting x = x₀ + T z, where T spans the null space of the equality rows,
removes them without changing the optimum.

T is built sparse. Most equality rows CVXPY emits have a *singleton* column (a variable that
appears in no other equality row, e.g. ``1ᵀβ = 1`` or an auxiliary ``t = expr``); such a
variable is solved for directly, with no fill-in. The rows left over go through a dense QR
with column pivoting restricted to the columns they touch (few in practice), which also
detects redundant rows and inconsistent ones.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from numpy.typing import NDArray

from ..errors import ExportError
from ._conic import Cones, ConicData, Elimination

__all__ = ["Elimination", "eliminate_equalities"]

#: Dense QR is used on the non-singleton rows only; refuse when it would not fit in memory.
_MAX_DENSE_ENTRIES = 5e7


def _singleton_pivots(Aeq: sp.csr_matrix) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Rows, columns and values of the singleton pivots of the equality rows ``Aeq``.

    A singleton is a column that appears in exactly one equality row: that row can be solved for
    it. Each row keeps its singleton of largest magnitude (a stable pivot), and only one that is
    not negligible against the row (else the solve would amplify rounding).
    """
    p, n = Aeq.shape
    colcount = np.bincount(Aeq.indices, minlength=n)
    rows_of = np.repeat(np.arange(p), np.diff(Aeq.indptr))
    single = colcount[Aeq.indices] == 1
    # Pick, for each row, the singleton entry of largest magnitude (stable pivot).
    cand_rows = rows_of[single]
    cand_cols = Aeq.indices[single]
    cand_vals = Aeq.data[single]
    order = np.lexsort((-np.abs(cand_vals), cand_rows))
    first = np.ones(order.size, dtype=bool)
    first[1:] = cand_rows[order][1:] != cand_rows[order][:-1]
    piv_rows = cand_rows[order][first]
    piv_cols = cand_cols[order][first]
    piv_vals = cand_vals[order][first]
    # A pivot must not be negligible relative to its row, or the solve amplifies rounding.
    rowmax = np.zeros(p)
    np.maximum.at(rowmax, rows_of, np.abs(Aeq.data))
    ok = np.abs(piv_vals) > 1e-8 * rowmax[piv_rows]
    return piv_rows[ok], piv_cols[ok], piv_vals[ok]


def eliminate_equalities(data: ConicData, rtol: float = 1e-12) -> tuple[ConicData, Elimination]:
    """Remove the zero-cone rows of ``data`` by substitution.

    Returns
    -------
    reduced : ConicData
        The same problem in z, with ``cones.zero == 0`` and the same optimal value.
    elimination : Elimination
        x = x0 + T z.

    Raises
    ------
    ExportError
        If the equality rows are inconsistent (the problem is infeasible).
    """
    n = data.n
    p = data.cones.zero
    if p == 0:
        return _drop_unused(data, Elimination(np.zeros(n), sp.identity(n, format="csr")))
    Aeq = sp.csr_matrix(data.A[:p])
    beq = data.b[:p]
    Aeq.eliminate_zeros()

    piv_rows, piv_cols, piv_vals = _singleton_pivots(Aeq)
    rest_rows = np.setdiff1d(np.arange(p), piv_rows)
    is_single_piv = np.zeros(n, dtype=bool)
    is_single_piv[piv_cols] = True

    # --- dense part: the remaining rows, on the columns they touch (none is a singleton pivot).
    dense_piv = np.zeros(0, dtype=np.int64)
    x0 = np.zeros(n)
    Tcols_dense: sp.csr_matrix | None = None  # rows: dense pivots, cols: all columns (to be restricted)
    if rest_rows.size:
        R = Aeq[rest_rows]
        cols = np.unique(R.indices)
        if rest_rows.size * cols.size > _MAX_DENSE_ENTRIES:
            raise ExportError(
                f"{rest_rows.size} coupled equality rows over {cols.size} variables are too many to eliminate "
                "densely; export with equalities='pairs' (CSDP copes, DSDP does not)"
            )
        M = R[:, cols].toarray()
        rhs = beq[rest_rows]
        Q, Rf, perm = la.qr(M, mode="economic", pivoting=True)
        diag = np.abs(np.diag(Rf))
        rank = int(np.sum(diag > rtol * max(diag[0], 1.0) * max(M.shape))) if diag.size else 0
        qtb = Q[:, :rank].T @ rhs
        resid = rhs - Q[:, :rank] @ qtb
        if np.linalg.norm(resid) > 1e-9 * max(1.0, float(np.linalg.norm(rhs))):
            raise ExportError(
                f"the equality constraints are inconsistent (residual {np.linalg.norm(resid):.3g}): "
                "the problem is infeasible"
            )
        piv_local = perm[:rank]
        free_local = perm[rank:]
        dense_piv = cols[piv_local]
        R11 = Rf[:rank, :rank]
        R12 = Rf[:rank, rank:]
        # x_D = R11⁻¹ (Qᵀb − R12 x_F')
        x0[dense_piv] = la.solve_triangular(R11, qtb) if rank else np.zeros(0)
        coef = -la.solve_triangular(R11, R12) if rank else np.zeros((0, free_local.size))
        coef[np.abs(coef) <= 1e-15 * max(1.0, float(np.abs(coef).max(initial=0.0)))] = 0.0
        Tcols_dense = sp.csr_matrix(sp.coo_matrix(coef).tocsr(), shape=(rank, free_local.size))
        dense_free_cols = cols[free_local]
    else:
        dense_free_cols = np.zeros(0, dtype=np.int64)

    is_dense_piv = np.zeros(n, dtype=bool)
    is_dense_piv[dense_piv] = True
    free = np.flatnonzero(~is_single_piv & ~is_dense_piv)
    z_of = -np.ones(n, dtype=np.int64)
    z_of[free] = np.arange(free.size)
    nz = free.size

    # T restricted to free and dense-pivot rows first (x_F = z; x_D = x0_D + C z_F').
    rows_list = [free]
    cols_list = [np.arange(nz)]
    vals_list = [np.ones(nz)]
    if Tcols_dense is not None and Tcols_dense.nnz:
        C = Tcols_dense.tocoo()
        rows_list.append(dense_piv[C.row])
        cols_list.append(z_of[dense_free_cols[C.col]])
        vals_list.append(C.data)
    T = sp.csr_matrix(
        (np.concatenate(vals_list), (np.concatenate(rows_list), np.concatenate(cols_list))), shape=(n, nz)
    )

    # --- singleton pivots: x_s = (b_i − Σ_{j≠s} a_ij x_j) / a_is, where x_j are free or dense pivots.
    if piv_rows.size:
        S = sp.csr_matrix(Aeq[piv_rows])
        S = S - sp.csr_matrix((piv_vals, (np.arange(piv_rows.size), piv_cols)), shape=S.shape)
        S.eliminate_zeros()
        inv = 1.0 / piv_vals
        x0[piv_cols] = inv * (beq[piv_rows] - S @ x0)
        Ts = -sp.diags(inv) @ (S @ T)
        Ts = sp.csr_matrix(Ts)
        Ts.eliminate_zeros()
        Ts_coo = Ts.tocoo()
        T = T + sp.csr_matrix((Ts_coo.data, (piv_cols[Ts_coo.row], Ts_coo.col)), shape=(n, nz))

    T = sp.csr_matrix(T)
    T.eliminate_zeros()
    Ak = sp.csr_matrix(data.A[p:])
    A_red = sp.csr_matrix(Ak @ T)
    A_red.eliminate_zeros()
    b_red = data.b[p:] - Ak @ x0
    c_red = T.T @ data.c
    offset = data.offset + float(data.c @ x0)
    cones = data.cones
    reduced = ConicData(
        c=c_red,
        A=A_red,
        b=b_red,
        cones=Cones(0, cones.nonneg, cones.soc, cones.psd, cones.exp, cones.pow),
        offset=offset,
        sign=data.sign,
        meta=dict(data.meta),
    )
    return _drop_unused(reduced, Elimination(x0, T))


def _drop_unused(data: ConicData, elim: Elimination) -> tuple[ConicData, Elimination]:
    """Remove variables that appear in no constraint and not in the objective.

    SDPA solvers reject an all-zero constraint matrix; such a variable can be fixed at 0.
    """
    used = (np.diff(data.A.tocsc().indptr) > 0) | (data.c != 0)
    if used.all() or data.n == 0:
        return data, elim
    keep = np.flatnonzero(used)
    reduced = ConicData(
        c=data.c[keep],
        A=data.A[:, keep],
        b=data.b,
        cones=data.cones,
        offset=data.offset,
        sign=data.sign,
        meta=dict(data.meta),
    )
    return reduced, Elimination(elim.x0, sp.csr_matrix(elim.T[:, keep]))

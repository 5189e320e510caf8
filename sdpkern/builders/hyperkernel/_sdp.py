"""The SDP forms' pieces (002 Corollary 15): Σ_l β_l S_l, the LMI and the inner maximiser.

The SOCP forms' pieces are in :mod:`.cones`.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from ._common import Array


def _combination(stack: Array, beta: cp.Variable) -> cp.Expression:
    """Σ_l β_l S_l for a (p, n, n) stack, as an (n, n) affine expression."""
    p, n, _ = stack.shape
    return cp.reshape(stack.reshape(p, n * n).T @ beta, (n, n), order="C")


def _lmi_of(M: cp.Expression, z: cp.Expression, t1: cp.Variable) -> cp.Constraint:
    """[[M, z], [zᵀ, t₁]] ⪰ 0 (Corollary 15's LMI; ½zᵀM†z ≤ ½t₁ by the Schur complement)."""
    n = z.shape[0]
    zc = cp.reshape(z, (n, 1), order="C")
    return cp.bmat([[M, zc], [zc.T, cp.reshape(t1, (1, 1), order="C")]]) >> 0


def _inner_argmax(lmi: cp.Constraint, M: Array, z: Array) -> Array:
    """The inner problem's maximiser x = M†z (002 Examples 10-15) after an SDP solve.

    From the primal values when M = M(β) is well conditioned (measured: 10× closer to the
    fixed-kernel QP's α than the dual route on a cond ≈ 3e3 kernel); otherwise from the LMI's
    dual Λ = ½[x; −1][x; −1]ᵀ (complementary slackness), which does not amplify the primal
    error through a near-singular M.
    """
    lam = np.linalg.eigvalsh((M + M.T) / 2)
    if lam[0] > 1e-8 * max(lam[-1], 1e-300):
        return np.asarray(np.linalg.solve(M, z), dtype=float)
    n = z.shape[0]
    Lam = np.asarray(lmi.dual_value, dtype=float)
    return -Lam[:n, n] / Lam[n, n]

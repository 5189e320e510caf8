"""The SDP forms' pieces (002 Corollary 15): Σ_l β_l S_l, the LMI and the inner maximiser.

The SOCP forms' pieces are in :mod:`.cones`.

The SDP forms (not the C-SVM's: see its ``_lmi``) write their LMI [[M(β), z], [zᵀ, t₁]] ⪰ 0
after the congruence diag(T, 1) with
T = M̄^{-1/2} (:func:`whitening`), M̄ the form's M at β uniform: [[T M(β) T, T z], [zᵀT, t₁]] ⪰ 0.
T is invertible, so the program is the same (its optimum, β, t₁ unchanged; the inner maximiser
is x = T x̂), but its block is about I where the kernels' eigenvalues spanned 1e-6..1e1: SCS
ended its 200 000 iterations at primal residuals 1e-6..0.8 on such status-sweep instances (m =
17-30; alignment, L2-SVM, one-class, ν-regression) and certifies them in 100-1 000 after it.
Their regulariser is written by :func:`hyper_norm` (the weight inside the cone): with the weight
on t₂ in the objective, whitening had made the L2-SVM's single-kernel limit at λ_Q = 1e-6 fail
on both backends at tol 1e-10.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from ._common import Array

#: Eigenvalues of M̄ below this fraction of its largest are raised to it in :func:`whitening`
#: (a singular M̄, e.g. a rank-deficient basis: T stays invertible and its norm bounded).
_WHITENING_FLOOR = 1e-8


def whitening(M_ref: Array) -> Array:
    """T = M̄^{-1/2} (symmetric; eigenvalues floored at ``_WHITENING_FLOOR``·λ_max), the LMI's congruence."""
    lam, V = np.linalg.eigh((M_ref + M_ref.T) / 2)
    lam = np.maximum(lam, _WHITENING_FLOOR * max(float(lam[-1]), 1e-300))
    return np.asarray((V / np.sqrt(lam)) @ V.T, dtype=np.float64)


def hyper_norm(L: Array, beta: cp.Variable, weight: cp.Expression, t2: cp.Variable) -> cp.Constraint:
    """weight·‖Lᵀβ‖ ≤ t₂: the hyperkernel regulariser (λ_Q/2)‖Lᵀβ‖ of 002 eqs. 3.8-3.12 with its weight inside the cone.

    The objective then holds t₂ itself, with coefficient 1. Written as ‖Lᵀβ‖ ≤ t₂ with the weight
    on t₂ in the objective, t₂ was all but free at small λ_Q (weight 5e-7 on the status sweep's
    L2-SVM sonar m = 24, λ_Q = 1.6e-5) and SCS ended 200 000 iterations at primal residual 6e-3;
    with the weight inside it certifies that instance in 650 (the same program: t₂ is the
    regulariser's value at the optimum either way).

    The L2-SVM SDP passes √weight here and puts the other √weight on t₂ in its objective (the
    alignment SDP does the same with its squared norm, :func:`.alignment.alignment`) (cone
    coefficients and objective coefficient both √weight): all inside, the cone's coefficients were
    3e-5 against t₂'s 1 on the default sweep's sonar m = 24, λ_Q = 9.6e-4, and SCS ended 200 000
    (and needed 330 000) iterations with the cone violated by its whole value (t₂ at 4.7e-6 for
    3.2e-5); split, SCS certifies it in 275 and the λ_Q = 1.6e-5 case above in 300, where all
    outside failed again.
    """
    return cp.norm(weight * (L.T @ beta), 2) <= t2


def _combination(stack: Array, beta: cp.Variable, T: Array | None = None) -> cp.Expression:
    """Σ_l β_l S_l for a (p, n, n) stack, as an (n, n) affine expression; with ``T``, Σ_l β_l T S_l T."""
    if T is not None:
        stack = T @ stack @ T
    p, n, _ = stack.shape
    return cp.reshape(stack.reshape(p, n * n).T @ beta, (n, n), order="C")


def _lmi_of(M: cp.Expression, z: cp.Expression, t1: cp.Variable, T: Array | None = None) -> cp.Constraint:
    """[[M, z], [zᵀ, t₁]] ⪰ 0 (Corollary 15's LMI; ½zᵀM†z ≤ ½t₁ by the Schur complement).

    With ``T``, M must already be T M(β) T (:func:`_combination`) and z is the untransformed
    vector: the LMI is written after the congruence diag(T, 1) (module docstring).
    """
    n = z.shape[0]
    zc = cp.reshape(z if T is None else T @ z, (n, 1), order="C")
    return cp.bmat([[M, zc], [zc.T, cp.reshape(t1, (1, 1), order="C")]]) >> 0


def _inner_argmax(lmi: cp.Constraint, M: Array, z: Array, T: Array | None = None) -> Array:
    """The inner problem's maximiser x = M†z (002 Examples 10-15) after an SDP solve.

    From the primal values when M = M(β) is well conditioned (measured: 10× closer to the
    fixed-kernel QP's α than the dual route on a cond ≈ 3e3 kernel); otherwise from the LMI's
    dual Λ = ½[x; −1][x; −1]ᵀ (complementary slackness), which does not amplify the primal
    error through a near-singular M. With the congruence ``T`` the LMI's dual is that of
    [[TMT, Tz], [zᵀT, t₁]], whose maximiser is x̂ = T⁻¹x: x = T x̂.
    """
    lam = np.linalg.eigvalsh((M + M.T) / 2)
    if lam[0] > 1e-8 * max(lam[-1], 1e-300):
        return np.asarray(np.linalg.solve(M, z), dtype=float)
    n = z.shape[0]
    Lam = np.asarray(lmi.dual_value, dtype=float)
    x_hat = -Lam[:n, n] / Lam[n, n]
    return x_hat if T is None else np.asarray(T @ x_hat, dtype=float)

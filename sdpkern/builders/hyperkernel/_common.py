"""Pieces every hyperkernel formulation shares: argument checks, the basis, LMIs, the model.

Nothing here builds a problem; the formulation modules (:mod:`.csvm`, :mod:`.nusvm`, ...) do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import as_matrix, binary_labels, check_open_interval, check_positive
from ...errors import DataError, ParameterError
from ...kernels.hyperkernels import HarmonicARD, Hyperkernel
from ...kernels.lowrank import HyperkernelBasis, hyperkernel_basis
from ...problem import KernelProblem, Model

__all__ = ["Form", "make_basis", "ExpansionDecision"]

Array = NDArray[np.float64]
Form = Literal["sdp", "socp"]


# ----------------------------------------------------------------------------- shared pieces
def make_basis(
    X: Array, hyperkernel: Hyperkernel, basis: HyperkernelBasis | str | None, eta: float, max_terms: int | None
) -> HyperkernelBasis:
    """Resolve the ``basis`` argument of a builder: an existing basis, ``"full"``, or low rank."""
    if isinstance(hyperkernel, HarmonicARD) and isinstance(hyperkernel.widths, str):
        hyperkernel = hyperkernel.fitted(X)
    if basis is None or basis == "lowrank":
        return hyperkernel_basis(hyperkernel, X, eta=eta, max_terms=max_terms)
    if isinstance(basis, str):
        if basis != "full":
            raise ParameterError(f"basis must be None, 'lowrank', 'full' or a HyperkernelBasis, got {basis!r}")
        return hyperkernel_basis(hyperkernel, X, full=True)
    if not isinstance(basis, HyperkernelBasis):
        raise ParameterError(f"basis must be None, 'lowrank', 'full' or a HyperkernelBasis, got {type(basis).__name__}")
    if basis.X.shape != X.shape or not np.array_equal(basis.X, X):
        raise DataError("basis was built on other training inputs than X")
    return basis


def _check_C(value: Any) -> float:
    return check_positive(value, "C")


def _check_lambda_Q(value: Any) -> float:
    return check_positive(value, "lambda_Q", allow_zero=True)


def _validate_xy(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    Xa = as_matrix(X, "X", min_samples=2)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != Xa.shape[0]:
        raise DataError(f"y must be 1-D with one label per row of X ({Xa.shape[0]}), got shape {y_arr.shape}")
    y_pm, _ = binary_labels(y_arr)
    return Xa, y_pm


def _check_form(form: Any) -> None:
    if form not in ("sdp", "socp"):
        raise ParameterError(f"form must be 'sdp' or 'socp', got {form!r}")


def _check_nu(value: Any) -> float:
    return check_open_interval(value, "nu", 0.0, 1.0, closed_high=True)


def _check_ridge(value: Any) -> float:
    return check_positive(value, "ridge")


def _basis(
    Xa: Array, hyperkernel: Hyperkernel | None, basis: HyperkernelBasis | str | None, eta: float, max_terms: int | None
) -> HyperkernelBasis:
    hk = hyperkernel if hyperkernel is not None else HarmonicARD(lambda_h=0.6, widths="auto")
    return make_basis(Xa, hk, basis, eta, max_terms)


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


def _num(value: Any) -> float:
    """A solved scalar variable's or multiplier's value as a float."""
    return float(np.asarray(value, dtype=float).ravel()[0])


def _arr(value: Any) -> Array:
    return np.asarray(value, dtype=float)


def _problem(
    prob: cp.Problem,
    name: str,
    source: str,
    form: str,
    variables: dict[str, Any],
    parameters: dict[str, cp.Parameter],
    constraints: dict[str, Any],
    recover: Callable[[KernelProblem], Model],
    data: dict[str, Any],
) -> KernelProblem:
    return KernelProblem(
        cvxpy=prob,
        formulation=name,
        source=source,
        form=form,
        variables=variables,
        parameters=parameters,
        constraints=constraints,
        recover=recover,
        data=data,
    )


def _model(B: HyperkernelBasis, beta: Array, alpha: Array, coef: Array, offset: float, **extras: Any) -> Model:
    return Model(
        alpha=alpha,
        offset=offset,
        beta=beta,
        kernel_matrix=B.learned_kernel(beta),
        decision=ExpansionDecision(B, beta, coef, offset),
        extras=dict(extras),
    )


@dataclass(frozen=True)
class ExpansionDecision:
    """f(x) = Σ_j c_j k(x, x_j) − b with the learned kernel k = Σ_l β_l k̲(pair_l, ·) (002 eq. 2.15).

    A small picklable object (not a closure) so fitted estimators pickle.
    """

    basis: HyperkernelBasis
    beta: Array
    coef: Array
    offset: float

    def __call__(self, X_new: ArrayLike) -> Array:
        Xn = as_matrix(X_new, "X")
        if Xn.shape[1] != self.basis.X.shape[1]:
            raise DataError(f"X has {Xn.shape[1]} features but the model was trained on {self.basis.X.shape[1]}")
        return self.basis.learned_kernel(self.beta, Xn, self.basis.X) @ self.coef - self.offset


def _check_count(value: Any, name: str) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"{name} must be a positive integer, got {value!r}")
    return int(value)

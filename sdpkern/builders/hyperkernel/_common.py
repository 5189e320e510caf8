"""Pieces every hyperkernel formulation shares: argument checks, the basis and set-up, parameter docs, the model.

Nothing here builds a problem; the formulation modules (:mod:`.csvm`, :mod:`.nusvm`, ...) do. The SDP
forms' LMI pieces are in ``_sdp``, the SOCP forms' cones in :mod:`.cones`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._docstrings import fill_doc
from ..._validation import as_matrix, binary_labels, check_open_interval, check_positive
from ...errors import DataError, ParameterError
from ...kernels.hyperkernels import HarmonicARD, Hyperkernel
from ...kernels.lowrank import HyperkernelBasis, hyperkernel_basis
from ...problem import Generate, KernelProblem, Model, ProblemData

__all__ = ["Form", "make_basis", "ExpansionDecision", "HyperkernelData"]

Array = NDArray[np.float64]
Form = Literal["sdp", "socp"]


# ----------------------------------------------------------------------------- shared pieces
@dataclass
class HyperkernelData(ProblemData):
    """The hyperkernel builders' inverse data (``KernelProblem.data``), typed; dict-style
    access stays for one release (:class:`~sdpkern.problem.ProblemData`). ``None`` is unset.

    Attributes
    ----------
    X : array (m, d)
        The training inputs.
    y : array (m,) or None
        Labels ±1 (classifiers) or targets (ν-regression); None for the one-class SVM.
    basis : HyperkernelBasis
        The expansion terms.
    scale : float
        1ᵀβ (1, or stddev(y) for the ν-regression).
    terms, factor_rank, cone_check
        SOCP forms, once written: the basis terms whose cones the problem holds, the rank of
        their shared factor, and what :func:`~sdpkern.builders.hyperkernel.cone_violations` reads.
    alpha_scale, sigma
        The scaled SOCPs' s (α = s·a) and the ν-regression's objective scale σ (:mod:`.scaling`).
    ridge_weights : array (m,) or None
        The weighted L2-SVM's 1/w_i (0 at zero weight).
    target : array (m,) or None
        The alignment's target yyᵀ's vector.
    """

    X: Array | None = None
    y: Array | None = None
    basis: HyperkernelBasis | None = None
    scale: float = 1.0
    terms: NDArray[np.intp] | None = None
    factor_rank: int | None = None
    cone_check: Any = None
    alpha_scale: float | None = None
    sigma: float | None = None
    ridge_weights: Array | None = None
    target: Array | None = None


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


#: Where a builder's parameters mean the same in every formulation, they are described once here
#: and put into each builder's docstring by ``_shared_doc`` (a ``{name}`` line is replaced by
#: ``_PARAMETER_DOCS[name]``, indented alike; :func:`sdpkern._docstrings.fill_doc`).
_PARAMETER_DOCS = {
    "hyperkernel": """\
hyperkernel : Hyperkernel, default HarmonicARD(lambda_h=0.6, widths="auto") (002 §3.2)
    The hyperkernel whose expansion terms make the kernels the problem learns from.""",
    "lambda_Q": """\
lambda_Q : float ≥ 0, default 1
    Hyperkernel regularisation. A ``cvxpy.Parameter`` (``problem.set(lambda_Q=...)``).""",
    "form_basis": """\
form : "socp" or "sdp", default "socp"
    ``"sdp"`` is the thesis' SDP as written; ``"socp"`` the equivalent cone program derived from
    it (same optimum, far faster; see :mod:`sdpkern.builders.hyperkernel.csvm`).
basis : HyperkernelBasis, "full", "lowrank" or None
    The expansion terms; by default pivoted incomplete Cholesky with tolerance ``eta`` and at
    most ``max_terms`` terms (002 §3.2.1). The defaults (1e-4, 150 terms) are the estimators'.
eta : float, default 1e-4
max_terms : int or None, default 150
factor_tol : float, default 1e-10
    Relative eigenvalue cut-off of the SOCP's shared factor (see
    :func:`~sdpkern.builders.hyperkernel.shared_factor`): 1e-10 is exact to rounding; larger
    values shrink the cones at the price of a documented, measured error in the optimum (3e-7
    relative at 1e-6 for m = 100 pima).""",
    "terms": """\
terms : array of int, optional
    SOCP only: write the cones of these basis terms only (the others get β_l = 0). This is a
    relaxation of the full SOCP; :func:`~sdpkern.builders.hyperkernel.cone_generation` grows
    ``terms`` until no omitted cone is violated, which makes its optimum the full problem's.""",
}


# what the five SVM-type builders take after their own constants, in their signatures' order
_PARAMETER_DOCS["options"] = "\n".join(_PARAMETER_DOCS[name] for name in ("lambda_Q", "form_basis", "terms"))

#: Decorator filling a builder's ``{name}`` docstring lines from :data:`_PARAMETER_DOCS`.
_shared_doc = fill_doc(_PARAMETER_DOCS)


def _setup(
    Xa: Array, y: Array | None, hyperkernel: Hyperkernel | None, form: Any, lambda_Q: Any,
    basis: HyperkernelBasis | str | None, eta: float, max_terms: int | None,
    checks: Mapping[str, Callable[[Any], float]], scale: float = 1.0,
) -> tuple[HyperkernelBasis, Array, cp.Parameter, HyperkernelData]:
    """The steps every builder starts with, after checking its own parameters.

    Checks ``form`` and ``lambda_Q``, makes the basis (the expensive step, so after every check)
    and returns ``(basis, its kernels, the lambda_Q parameter, problem data)``; the data hold
    ``X``, ``y`` (when given), the basis, ``scale`` and the checks ``problem.set`` applies
    (``checks`` and lambda_Q's).
    """
    _check_form(form)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=_check_lambda_Q(lambda_Q))
    B = _basis(Xa, hyperkernel, basis, eta, max_terms)
    data = HyperkernelData(X=Xa, y=y, basis=B, scale=scale, parameter_checks={**checks, "lambda_Q": _check_lambda_Q})
    return B, B.kernels(), lq_par, data


def _num(value: Any) -> float:
    """A solved scalar variable's or multiplier's value as a float."""
    return float(np.asarray(value, dtype=float).ravel()[0])


def _arr(value: Any) -> Array:
    return np.asarray(value, dtype=float)


def _problem(
    prob: cp.Problem, name: str, source: str, form: str, variables: dict[str, Any], parameters: dict[str, cp.Parameter],
    constraints: dict[str, Any], recover: Callable[[KernelProblem], Model], data: MutableMapping[str, Any],
) -> KernelProblem:
    """The builders' :class:`KernelProblem`, its fields in order (``name`` is the formulation)."""
    return KernelProblem(prob, name, source, form, variables, parameters, constraints, recover, data)


def _socp_problem(
    write: Callable[[], tuple[cp.Problem, dict[str, Any], dict[str, Any]]], name: str, source: str,
    parameters: dict[str, cp.Parameter], recover: Callable[[KernelProblem], Model], data: MutableMapping[str, Any],
    terms: ArrayLike | None, route: Generate,
) -> KernelProblem:
    """An SOCP form's :class:`KernelProblem`, its parameters in step with the scaled ones.

    Restricted to ``terms`` (a problem of cone generation), the model is written now. The full
    SOCP is written on first use (:meth:`KernelProblem.deferred`) and solved by default through
    ``route``, its cone generation (:class:`~sdpkern.builders.hyperkernel.GenerationRoute`):
    writing and compiling all p cones costs far more than the few restricted problems do.
    """
    if terms is not None:
        prob, variables, constraints = write()
        problem = KernelProblem(prob, name, source, "socp", variables, parameters, constraints, recover, data)
    else:
        problem = KernelProblem.deferred(write, name, source, "socp", parameters, recover, data, route)
    problem._rescale()
    return problem


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

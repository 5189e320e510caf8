"""Hyperkernel kernel-target alignment (002 eq. 3.13), SDP and SOCP forms."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..._validation import as_matrix, as_vector, check_positive
from ...errors import DataError, LabelError, SingularKernelError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model
from ._common import Array, Form, _arr, _check_ridge, _num, _problem, _setup, _shared_doc, _validate_xy
from ._sdp import _combination, _inner_argmax, _lmi_of, whitening
from .cones import SharedFactor, _socp_kernel_cones, cone_beta, shared_factor
from .scaling import Rescale, alignment_optimum, scale_of, trial_points

__all__ = ["alignment"]


@_shared_doc
def alignment(
    X: ArrayLike, y: ArrayLike, hyperkernel: Hyperkernel | None = None, *, lambda_Q: float = 1.0, ridge: float = 0.0,
    form: Form = "socp", basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, range_tol: float = 1e-6,
) -> KernelProblem:
    """Hyperkernel kernel-target alignment: learn a kernel matrix only (002 eq. 3.13).

    The SDP printed as (3.13) is min ½t₁ + (λ_Q/2)t₂ over β ≥ 0, ‖Lᵀβ‖² ≤ t₂ (squared, as
    printed), [[K(β), y], [yᵀ, t₁]] ⪰ 0, i.e. min ½ yᵀK(β)†y + (λ_Q/2)‖Lᵀβ‖²; the sentence
    before it states −½yᵀKy, which is linear in β and would not need an SDP. We implement the
    SDP as printed, plus the scale-breaking 1ᵀβ = 1 of §3.1 and an optional ``ridge`` ε ≥ 0
    (K(β) + εI in the LMI; 0 = as printed).

    SOCP (derived): ½yᵀ(K + εI)†y = max_α yᵀα − ½αᵀKα − (ε/2)‖α‖², and the squared regulariser's
    conjugate gives max yᵀα − (ε/2)‖α‖² − (λ_Q/2)‖u‖² + τ over ½‖R_lᵀZᵀα‖² ≤ λ_Q(Lu)_l − τ (u free),
    solved scaled (:mod:`.scaling`): in a = α/s and t = τ/s², divided by s², max (1/s)yᵀa −
    (ε/2)‖a‖² − (λ_Q/(2s²))‖u‖² + t over ½‖R_lᵀZᵀa‖² ≤ (λ_Q/s²)(Lu)_l − t, with s² the smaller
    bound ½yᵀ(K + εI)†y + (λ_Q/2)‖Lᵀβ‖² at the trial points (:func:`.scaling.trial_points`); every
    term is the SOCP's divided by s², so the cones' multipliers are β unchanged and α = s·a.
    With ε = 0, α is restricted to the range of Σ_l K_l (the
    Moore-Penrose reading the thesis gives in A.2), and y is first projected there in both forms.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Two classes (mapped to ±1), or real targets (more than two distinct numbers), which
        are centred and scaled to unit standard deviation.
    {hyperkernel}
    {lambda_Q}
    ridge : float ≥ 0, default 0
        A ``cvxpy.Parameter`` when positive. At 0 every learned kernel must reach y:
    {form_basis}
    range_tol : float
        With ``ridge=0``, the largest ‖y − Py‖/‖y‖ accepted (P projects on the range of the
        basis kernels); beyond it :class:`SingularKernelError` is raised.

    Returns
    -------
    KernelProblem
        Its solution has β, the learned kernel matrix K(β) and α = (K + εI)†y (with ε = 0, α =
        K†(Py), P the projector on the range of Σ_l K_l, see ``range_tol``); no decision
        function (hand the kernel to an SVM, e.g. ``HyperkernelAlignment``).

    Raises
    ------
    SingularKernelError
        ``ridge=0`` and y is not in the range of the basis kernels: every K(β) is singular on y.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = alignment(X[:30], y[:30], ridge=1e-3).solve()
    >>> sol.status, sol.kernel_matrix.shape
    ('optimal', (30, 30))
    """
    Xa, y_pm = _alignment_target(X, y)
    ridge_val = check_positive(ridge, "ridge", allow_zero=True)
    checks = {"ridge": _check_ridge} if ridge_val > 0 else {}
    B, kernels, lq_par, data = _setup(Xa, y_pm, hyperkernel, form, lambda_Q, basis, eta, max_terms, checks)
    factor = shared_factor(kernels, factor_tol)
    params: dict[str, cp.Parameter] = {"lambda_Q": lq_par}
    Q = factor.Z / np.linalg.norm(factor.Z, axis=0)  # orthonormal basis of range(Σ_l K_l)
    target = y_pm
    ridge_par: cp.Parameter | None = None
    if ridge_val > 0:
        ridge_par = cp.Parameter(nonneg=True, name="ridge", value=ridge_val)
        params["ridge"] = ridge_par
    else:
        target = _target_in_range(Q, y_pm, range_tol)
    data.update(target=target, factor_rank=Q.shape[1])
    build = _alignment_sdp if form == "sdp" else _alignment_socp
    prob, variables, cons, recover = build(B, kernels, factor, Q, target, ridge_par, data)
    problem = _problem(prob, "hyperkernel alignment", "002 eq. (3.13)", form, variables, params, cons, recover, data)
    problem._rescale()
    return problem


def _alignment_sdp(
    B: HyperkernelBasis, kernels: Array, factor: SharedFactor, Q: Array, target: Array,
    ridge_par: cp.Parameter | None, data: MutableMapping[str, Any],
) -> tuple[cp.Problem, dict[str, Any], dict[str, Any], Callable[[KernelProblem], Model]]:
    """The SDP form of :func:`alignment`, scaled as its SOCP (records its ``Rescale`` in ``data``)."""
    m = kernels.shape[1]
    beta = cp.Variable(B.size, nonneg=True, name="beta")
    t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
    # after the congruence diag(T, 1) (see ._sdp), T from K(β) + εI at β uniform and the build's ε
    ridge0 = 0.0 if ridge_par is None else _num(ridge_par.value)
    T = data["lmi_congruence"] = whitening(kernels.mean(axis=0) + ridge0 * np.eye(m))
    K = _combination(kernels, beta, T)
    if ridge_par is not None:
        K = K + ridge_par * (T @ T)
    # scaled as the SOCP: the LMI on target/s and t₁/s² (congruence diag(I, 1/s)), objective / s²
    target_s = cp.Parameter(m, name="target_s")
    # the weight w = λ_Q/(2s²) split between the cone and the objective (see _sdp.hyper_norm):
    # √w·‖Lᵀβ‖² ≤ t2 (its factor w^¼ inside the square) and √w·t2 in the objective. All inside,
    # t2 = w‖Lᵀβ‖² was 0.014 on the default sweep's sonar m = 12, λ_Q = 0.24, where CVXPY's cone
    # ‖(1 − t2, 2x)‖ ≤ 1 + t2 for ‖x‖² ≤ t2 compares two sides that agree to t2 (see .scaling), and
    # Clarabel ended at AlmostSolved after 22 iterations (primal residual 2e-3 at a 1e-15 gap); split,
    # optimal in 10, as with the whole weight on t2 in the objective.
    lq_root = cp.Parameter(nonneg=True, name="lq_root")  # √w
    lq_quarter = cp.Parameter(nonneg=True, name="lq_quarter")  # w^¼
    cons: dict[str, Any] = {
        "lmi": _lmi_of(K, target_s, t1, T),
        "hyper_norm": cp.sum_squares(lq_quarter * (B.L.T @ beta)) <= t2,  # t2 = √w‖Lᵀβ‖²
        "scale": cp.sum(beta) == 1,
    }
    prob = cp.Problem(cp.Minimize(0.5 * t1 + lq_root * t2), list(cons.values()))
    variables: dict[str, Any] = {"beta": beta, "t1": t1, "t2": lq_root * t2}  # "t2": the regulariser's value
    recover = _recover_alignment_sdp
    trials = trial_points(kernels, B.L)

    def compute_sdp(values: dict[str, float]) -> tuple[dict[str, Any], float]:
        s = scale_of(_estimate(trials, target, values))
        data["alpha_scale"] = s
        root = float(np.sqrt(values["lambda_Q"] / 2)) / s
        return {"target_s": target / s, "lq_root": root, "lq_quarter": float(np.sqrt(root))}, s**2

    data["rescale"] = Rescale({"target_s": target_s, "lq_root": lq_root, "lq_quarter": lq_quarter}, compute_sdp)
    return prob, variables, cons, recover


def _alignment_socp(
    B: HyperkernelBasis, kernels: Array, factor: SharedFactor, Q: Array, target: Array,
    ridge_par: cp.Parameter | None, data: MutableMapping[str, Any],
) -> tuple[cp.Problem, dict[str, Any], dict[str, Any], Callable[[KernelProblem], Model]]:
    """The scaled SOCP form of :func:`alignment` (records its ``Rescale`` in ``data``)."""
    m = kernels.shape[1]
    # scaled (see the docstring): a = α/s, t = τ/s², objective and cones divided by s²
    u = cp.Variable(B.L.shape[1], name="u")
    tau = cp.Variable(name="tau")
    scaled = {"inv_s": cp.Parameter(nonneg=True, name="inv_s"), "lq": cp.Parameter(nonneg=True, name="lq")}
    if ridge_par is not None:
        alpha: cp.Expression = cp.Variable(m, name="alpha")
        extra = -ridge_par / 2 * cp.sum_squares(alpha)
        variables = {"alpha": alpha, "u": u, "tau": tau}
    else:
        g = cp.Variable(Q.shape[1], name="g")
        alpha = Q @ g
        extra = cp.Constant(0.0)
        variables = {"g": g, "u": u, "tau": tau}
    cones = _socp_kernel_cones(alpha, factor, B.L, scaled["lq"], tau, u)
    cons = {"kernel_cones": cones}
    obj = scaled["inv_s"] * (target @ alpha) + extra - scaled["lq"] / 2 * cp.sum_squares(u) + tau
    prob = cp.Problem(cp.Maximize(obj), cones)
    data["range_basis"] = Q
    recover = _recover_alignment_socp
    trials = trial_points(kernels, B.L)

    def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
        s = scale_of(_estimate(trials, target, values))
        data["alpha_scale"] = s
        return {"inv_s": 1.0 / s, "lq": values["lambda_Q"] / s**2}, s**2

    data["rescale"] = Rescale(scaled, compute)
    return prob, variables, cons, recover


def _estimate(trials: list[tuple[Array, float]], target: Array, values: dict[str, float]) -> float:
    """The optimum's bound at the trial points (:func:`.scaling.trial_points`): ½targetᵀ(K + εI)†target
    plus the squared regulariser (λ_Q/2)‖Lᵀβ‖² there, the smaller."""
    ridge, lq = values.get("ridge", 0.0), values["lambda_Q"]
    return min(alignment_optimum(K, target, ridge) + lq / 2 * r**2 for K, r in trials)


def _target_in_range(Q: Array, y: Array, range_tol: float) -> Array:
    """Py, y projected on range(Σ_l K_l) (orthonormal basis Q); without a ridge ½yᵀK(β)†y is
    finite only when y lies in that range (to ``range_tol``), else :class:`SingularKernelError`."""
    target = Q @ (Q.T @ y)
    miss = float(np.linalg.norm(y - target) / np.linalg.norm(y))
    if miss > range_tol:
        raise SingularKernelError(
            f"every kernel of this basis is singular on y (rank {Q.shape[1]} of {y.shape[0]}; "
            f"‖y − Py‖/‖y‖ = {miss:.2g} > range_tol = {range_tol:g}), so ½yᵀK(β)†y is infinite: "
            "pass ridge > 0, add basis terms (lower eta, raise max_terms) or use narrower hyperkernel widths"
        )
    return np.asarray(target, dtype=np.float64)


def _alignment_target(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    Xa = as_matrix(X, "X", min_samples=2)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != Xa.shape[0]:
        raise DataError(f"y must be 1-D with one target per row of X ({Xa.shape[0]}), got shape {y_arr.shape}")
    if np.unique(y_arr).shape[0] <= 2:
        return _validate_xy(Xa, y_arr)
    if not np.issubdtype(y_arr.dtype, np.number):
        raise LabelError(
            f"Unknown label type for y (dtype {y_arr.dtype}, more than two classes): alignment needs "
            "two classes or real-valued targets"
        )
    t = as_vector(y_arr, "y")
    return Xa, (t - t.mean()) / t.std()


def _recover_alignment_sdp(problem: KernelProblem) -> Model:
    B = problem.data["basis"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    K = B.learned_kernel(beta)
    ridge = problem.parameters.get("ridge")
    M = K if ridge is None else K + _num(ridge.value) * np.eye(K.shape[0])
    s = float(problem.data["alpha_scale"])  # the LMI holds target/s (see alignment)
    alpha = s * _inner_argmax(problem.constraints["lmi"], M, problem.data["target"] / s, problem.data["lmi_congruence"])
    return Model(alpha=alpha, beta=beta, kernel_matrix=K)


def _recover_alignment_socp(problem: KernelProblem) -> Model:
    B = problem.data["basis"]
    if "alpha" in problem.variables:
        alpha = _arr(problem.variables["alpha"].value)
    else:
        alpha = problem.data["range_basis"] @ _arr(problem.variables["g"].value)
    alpha = float(problem.data["alpha_scale"]) * alpha  # α = s·a
    beta = cone_beta(problem)  # unchanged by the scaling
    return Model(alpha=alpha, beta=beta, kernel_matrix=B.learned_kernel(beta))

"""Hyperkernel Lagrangian (L2 soft margin) SVM (002 eq. 3.10), SDP and SOCP forms."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..._validation import as_sample_weight
from ...errors import ParameterError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model
from ._common import (
    Form,
    _arr,
    _check_C,
    _check_ridge,
    _model,
    _num,
    _problem,
    _setup,
    _shared_doc,
    _socp_problem,
    _validate_xy,
)
from ._sdp import _combination, _inner_argmax, _lmi_of, hyper_norm, whitening
from .cones import cone_beta, hyper_u, socp_cones
from .generation import GenerationRoute
from .scaling import Rescale, l2svm_optimum, scale_of, trial_points

__all__ = ["l2svm"]


@_shared_doc
def l2svm(
    X: ArrayLike, y: ArrayLike, hyperkernel: Hyperkernel | None = None, *, C: float = 100.0, lambda_Q: float = 1.0,
    form: Form = "socp", basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, terms: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel Lagrangian (L2 soft margin) SVM of Mangasarian-Musicant (002 eq. 3.10; A.18).

    SDP (as written): min ½t₁ + (λ_Q/2)t₂ over η ≥ 0, β ≥ 0, ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1,
    [[H(β), η + 1], [(η + 1)ᵀ, t₁]] ⪰ 0 with H(β) = Y(K(β) + 1 1ᵀ + λm I)Y.
    SOCP (derived): max 1ᵀα − ½(yᵀα)² − (λm/2)‖α‖² + τ over α ≥ 0, ‖u‖ ≤ 1 and
    ½‖R_lᵀZᵀ(y∘α)‖² ≤ (λ_Q/2)(Lu)_l − τ.

    The SOCP is solved scaled (:mod:`.scaling`): in a = α/s and t = τ/s², divided by s², max (1/s)1ᵀa −
    ½(yᵀa)² − (λm/2)‖a‖² + t s.t. a ≥ 0, ‖u‖ ≤ 1, ½‖R_lᵀZᵀ(y∘a)‖² ≤ (λ_Q/(2s²))(Lu)_l − t, with s²
    the optimum's bound at a fixed β (:func:`.scaling.trial_points`: an NNLS plus (λ_Q/2)‖Lᵀβ‖). Every term of the
    objective and every cone is the SOCP's divided by s², so the Lagrangian is too: the cones'
    multipliers are β unchanged, and α = s·a.

    The dual A.18 belongs to min ½(‖w‖² + b²) + (C'/2) Σ ξ_i² s.t. y_i f(x_i) ≥ 1 − ξ_i with
    C' = 1/(λm), so w = Σ α_i y_i φ(x_i), b = yᵀα, α = C'ξ and f(x) = Σ_j α_j y_j k(x, x_j) + yᵀα
    (002 Example 12; the stray "z = γ1 + η − ξ" printed under (3.10) belongs to Example 13 and is
    not used). The thesis sets C' = 1/(λm) = 100 (§3.2).

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Two classes (the larger label is +1).
    {hyperkernel}
    C : float > 0, default 100
        scikit-learn's C of the squared hinge (``LinearSVC(loss="squared_hinge")``): the loss is
        C Σ ξ_i², i.e. eq. (3.10)'s (C'/2) Σ ξ_i² with C' = 1/(λm) = 2C (converted inside; the
        thesis' C' = 100 is C = 50). The ``cvxpy.Parameter`` is ``ridge`` = λm = 1/(2C) (CVXPY
        cannot divide by a parameter); ``problem.set(C=...)`` sets it.
    {options}
    sample_weight : array (m,) of floats ≥ 0, optional
        Per-point loss weights w (docs/conventions.md): the loss C Σ w_i ξ_i². In the dual,
        α_i = C'w_i ξ_i and the ridge λm‖α‖² becomes λm Σ α_i²/w_i; a zero weight leaves ξ_i
        free, hence α_i = 0 (SOCP form only: the SDP's H(β) would need an infinite diagonal
        entry, and ``form="sdp"`` refuses zero weights with a ParameterError).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = l2svm(X[:40], y[:40]).solve()
    >>> sol.status
    'optimal'
    """
    Xa, y_pm = _validate_xy(X, y)
    w, inv_w, pos = _weights(sample_weight, Xa.shape[0], form)
    ridge = cp.Parameter(nonneg=True, name="ridge", value=1.0 / (2.0 * _check_C(C)))  # λm = 1/C' = 1/(2C)
    m = Xa.shape[0]
    checks = {"ridge": _check_ridge}
    B, kernels, lq_par, data = _setup(Xa, y_pm, hyperkernel, form, lambda_Q, basis, eta, max_terms, checks)
    data["feasible_bounded"] = True  # a soft margin with squared slacks: always feasible, objective ≥ 0
    data["derived_parameters"] = {"C": _ridge_of_C}
    data["ridge_weights"] = inv_w
    # both forms are solved scaled (module docstring): s² the optimum at the trial kernels
    trials = [(K * np.outer(y_pm, y_pm), r) for K, r in trial_points(kernels, B.L)]

    def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
        # the optimum at fixed kernels over the points of positive weight (the others have α_i = 0),
        # plus the regulariser's bound at the trial point: its fit + μ‖Lᵀβ‖
        mu = values["lambda_Q"] / 2
        ridges = values["ridge"] * (1.0 if inv_w is None else inv_w[pos])
        s = scale_of(min(l2svm_optimum(G[np.ix_(pos, pos)], y_pm[pos], ridges) + mu * r for G, r in trials))
        data["alpha_scale"] = s
        return {"inv_s": 1.0 / s, "mu": values["lambda_Q"] / 2 / s**2}, s**2

    if form == "sdp":
        beta = cp.Variable(B.size, nonneg=True, name="beta")
        eta_v = cp.Variable(m, nonneg=True, name="eta")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        # H(β) = Σβ_l Y K_l Y + y yᵀ + λm I: the 1 1ᵀ term of (3.10) is outside the sum because 1ᵀβ = 1
        # after the congruence diag(T, 1) (see ._sdp), T from H at β uniform and the build's ridge
        yy = np.outer(y_pm, y_pm)
        R = _ridge_matrix(inv_w, m)
        T = data["lmi_congruence"] = whitening((kernels * yy).mean(axis=0) + yy + _num(ridge.value) * R)
        H = _combination(kernels * yy, beta, T) + T @ yy @ T + ridge * (T @ R @ T)
        # scaled as the SOCP: η/s, t₁/s² (the LMI by the congruence diag(I, 1/s)), objective / s²;
        # unscaled, SCS took 167 300 iterations on a status-sweep instance (m = 23), scaled 7 000
        scaled_sdp = {name: cp.Parameter(nonneg=True, name=name) for name in ("inv_s", "mu_root")}
        root = scaled_sdp["mu_root"]  # √(λ_Q/(2s²)): the regulariser's weight split (see _sdp.hyper_norm)
        cons: dict[str, Any] = {
            "lmi": _lmi_of(H, eta_v + scaled_sdp["inv_s"], t1, T),
            "hyper_norm": hyper_norm(B.L, beta, root, t2),  # t2 = √(λ_Q/(2s²))‖Lᵀβ‖
            "scale": cp.sum(beta) == 1,
        }
        prob = cp.Problem(cp.Minimize(0.5 * t1 + root * t2), list(cons.values()))
        variables = {"beta": beta, "eta": eta_v, "t1": t1, "t2": root * t2}  # "t2": the regulariser's value

        def compute_sdp(values: dict[str, float]) -> tuple[dict[str, float], float]:
            scaled, objective_scale = compute(values)
            return {"inv_s": scaled["inv_s"], "mu_root": float(np.sqrt(scaled["mu"]))}, objective_scale

        recover = _recover_l2svm_sdp
        data["rescale"] = Rescale(scaled_sdp, compute_sdp)
    else:
        # scaled (see the docstring): a = α/s, t = τ/s², objective and cones divided by s²
        scaled = {"inv_s": cp.Parameter(nonneg=True, name="inv_s"), "mu": cp.Parameter(nonneg=True, name="mu")}

        write = _socp_writer(B, kernels, y_pm, (ridge, scaled["inv_s"], scaled["mu"]), inv_w, terms, factor_tol, data)
        data["rescale"] = Rescale(scaled, compute)
        route = GenerationRoute(l2svm, (Xa, y_pm), {"factor_tol": factor_tol, "sample_weight": w})
        params = {"ridge": ridge, "lambda_Q": lq_par}
        name, recover = "hyperkernel L2-SVM", _recover_l2svm_socp
        return _socp_problem(write, name, "002 eq. (3.10)", params, recover, data, terms, route)
    problem = _problem(
        prob,
        "hyperkernel L2-SVM",
        "002 eq. (3.10)",
        form,
        variables,
        {"ridge": ridge, "lambda_Q": lq_par},
        cons,
        recover,
        data,
    )
    problem._rescale()
    return problem


def _weights(sample_weight: Any, m: int, form: Any) -> tuple[Any, Any, Any]:
    """``(w, 1/w, w > 0)`` of :func:`l2svm`'s ``sample_weight`` (``(None, None, all True)``
    without): the ridge λm Σ α_i²/w_i has per-point factors 1/w_i, 0 where w_i = 0 (α_i = 0)."""
    w = as_sample_weight(sample_weight, m)
    if w is None:
        return None, None, np.ones(m, dtype=bool)
    if form == "sdp" and np.any(w == 0):
        raise ParameterError(
            "l2svm(form='sdp') needs positive sample_weight (a zero weight is α_i = 0); use form='socp'"
        )
    return w, np.divide(1.0, w, out=np.zeros_like(w), where=w > 0), w > 0


def _socp_writer(
    B: HyperkernelBasis, kernels: Any, y_pm: Any, params: tuple[cp.Parameter, ...], inv_w: Any, terms: Any,
    factor_tol: float, data: MutableMapping[str, Any],
) -> Callable[[], tuple[cp.Problem, dict[str, Any], dict[str, Any]]]:
    """The function writing :func:`l2svm`'s scaled SOCP (its docstring) on the parameters
    ``(ridge, 1/s, μ/s²)``; with weights the ridge is λm Σ α_i²/w_i, α_i = 0 at w_i = 0."""
    ridge, inv_s, mu = params
    m = y_pm.shape[0]

    def write() -> tuple[cp.Problem, dict[str, Any], dict[str, Any]]:
        alpha = cp.Variable(m, nonneg=True, name="alpha")
        u_kept, u = hyper_u(B.L, terms)
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            cp.multiply(y_pm, alpha), kernels, B.L, mu, tau, u, terms=terms, factor_tol=factor_tol, data=data
        )
        cons: dict[str, Any] = {"ball": cp.norm(u_kept, 2) <= 1, "kernel_cones": cones}
        weighted = alpha if inv_w is None else cp.multiply(np.sqrt(inv_w), alpha)
        obj = inv_s * cp.sum(alpha) - 0.5 * cp.square(y_pm @ alpha) - ridge / 2 * cp.sum_squares(weighted) + tau
        fixed = [] if inv_w is None or np.all(inv_w > 0) else [alpha[np.flatnonzero(inv_w == 0)] == 0]
        if fixed:  # zero weights: α_i = 0
            cons["zero_weight"] = fixed[0]
        prob = cp.Problem(cp.Maximize(obj), [cons["ball"], *cones, *fixed])
        return prob, {"alpha": alpha, "u": u, "tau": tau}, cons

    return write


def _ridge_of_C(C: Any) -> dict[str, float]:
    """``problem.set(C=...)``: the ``ridge`` parameter λm = 1/C' = 1/(2C) (002 eq. 3.10)."""
    return {"ridge": 1.0 / (2.0 * _check_C(C))}


def _ridge_matrix(inv_w: Any, m: int) -> Any:
    """I, or diag(1/w_i) for weighted points (the ridge of the weighted loss, see :func:`l2svm`)."""
    return np.eye(m) if inv_w is None else np.diag(inv_w)


def _recover_l2svm_sdp(problem: KernelProblem) -> Model:
    B, y = problem.data["basis"], problem.data["y"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    m = y.shape[0]
    ridge = _num(problem.parameters["ridge"].value) * _ridge_matrix(problem.data.get("ridge_weights"), m)
    H = (B.learned_kernel(beta) + 1.0) * np.outer(y, y) + ridge
    s = float(problem.data["alpha_scale"])  # solved in η/s (see l2svm): α = H†(η + 1) = s·H†(η/s + 1/s)
    z = _arr(problem.variables["eta"].value) + 1.0 / s
    alpha = s * _inner_argmax(problem.constraints["lmi"], H, z, problem.data["lmi_congruence"])
    return _model(B, beta, alpha, alpha * y, -float(y @ alpha))  # f = K(α∘y) + yᵀα


def _recover_l2svm_socp(problem: KernelProblem) -> Model:
    B, y = problem.data["basis"], problem.data["y"]
    alpha = float(problem.data["alpha_scale"]) * _arr(problem.variables["alpha"].value)  # α = s·a
    beta = cone_beta(problem)  # unchanged by the scaling
    return _model(B, beta, alpha, alpha * y, -float(y @ alpha))

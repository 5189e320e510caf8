"""Hyperkernel ν-SVM (002 eq. 3.9), SDP and SOCP forms."""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ...errors import ParameterError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model
from ._common import (
    Array,
    Form,
    _arr,
    _check_nu,
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
from .scaling import Rescale, nusvc_fit, scale_of, trial_points

__all__ = ["nusvm"]


@_shared_doc
def nusvm(
    X: ArrayLike, y: ArrayLike, hyperkernel: Hyperkernel | None = None, *, nu: float = 0.3, lambda_Q: float = 1.0,
    form: Form = "socp", basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, terms: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel ν-SVM (002 eq. 3.9; saddle problem A.13).

    SDP (as written): min ½t₁ − χν + (1/m)1ᵀξ + (λ_Q/2)t₂ over χ, η, ξ, β ≥ 0, γ free,
    ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1, [[G(β), z], [zᵀ, t₁]] ⪰ 0 with z = γy + χ1 + η − ξ; handed to the solver
    in per-class margin levels, so that ν at its bound 2·min(m₊, m₋)/m, where (γ, χ) range over a
    ray, stays well posed; (b, ρ) are then the ray's end, the limit from below, in both forms.
    SOCP (derived, see the module docstring): max τ over yᵀα = 0, 1ᵀα ≥ ν, 0 ≤ α ≤ 1/m,
    ‖u‖ ≤ 1 and ½‖R_lᵀZᵀ(y∘α)‖² ≤ (λ_Q/2)(Lu)_l − τ. Both have the same optimum.

    The SOCP is solved scaled (:mod:`.scaling`): in a = α/s and t = τ/s², divided by σ = s²,
    max t over yᵀa = 0, 1ᵀa ≥ ν/s, 0 ≤ a ≤ 1/(ms), ‖u‖ ≤ 1, ½‖R_lᵀZᵀ(y∘a)‖² ≤ (λ_Q/(2σ))(Lu)_l − t,
    with σ the smaller bound (the fixed-kernel ν-SVM fit, libsvm's ``NuSVC``, plus (λ_Q/2)‖Lᵀβ‖)
    at the trial points (:func:`.scaling.trial_points`). The cones' multipliers are β unchanged;
    the balance and margin multipliers are 1/s times the unscaled ones, and α = s·a.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Two classes (the larger label is +1).
    {hyperkernel}
    nu : float in (0, 1], default 0.3
        A ``cvxpy.Parameter``. Feasible only for ν ≤ 2·min(m₊, m₋)/m.
    {options}

    Returns
    -------
    KernelProblem
        Its solution carries α, the offset b = γ, β, the learned kernel and the decision
        function f(x) = Σ_j α_j y_j k(x, x_j) − b (002 Example 11).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = nusvm(X[40:80], y[40:80]).solve()
    >>> sol.status, round(float(sol.alpha.sum()), 4) >= 0.3
    ('optimal', True)
    """
    Xa, y_pm = _validate_xy(X, y)
    m = Xa.shape[0]
    nu_max = 2.0 * min(int((y_pm > 0).sum()), int((y_pm < 0).sum())) / m

    def check_nu(value: Any) -> float:
        v = _check_nu(value)
        if v > nu_max + 1e-12:
            raise ParameterError(
                f"nu = {v!r} is infeasible for these labels: the ν-SVM needs ν ≤ 2·min(m₊, m₋)/m = {nu_max:.4g}; "
                "lower nu or balance the classes"
            )
        return v

    nu_par = cp.Parameter(nonneg=True, name="nu", value=check_nu(nu))
    B, kernels, lq_par, data = _setup(Xa, y_pm, hyperkernel, form, lambda_Q, basis, eta, max_terms, {"nu": check_nu})
    if form == "sdp":
        prob, variables, cons = _sdp(y_pm, B, kernels, data)
    else:
        return _socp(Xa, y_pm, B, kernels, nu_par, lq_par, data, terms, factor_tol)
    problem = _problem(
        prob,
        "hyperkernel nu-SVM",
        "002 eq. (3.9)",
        form,
        variables,
        {"nu": nu_par, "lambda_Q": lq_par},
        cons,
        _recover_nusvm_sdp,
        data,
    )
    problem._rescale()
    return problem


def _sdp(y_pm: Any, B: Any, kernels: Any, data: Any) -> tuple[cp.Problem, dict[str, Any], dict[str, Any]]:
    """The SDP form of :func:`nusvm` (002 eq. 3.9), solved scaled as the SOCP (:mod:`.scaling`) and
    written so that ν at its bound leaves it well posed.

    Eq. (3.9) is min ½t₁ − νχ + (1/m)1ᵀξ + (λ_Q/2)t₂ over [[G(β), z], [zᵀ, t₁]] ⪰ 0,
    z = γy + χ1 + η − ξ, ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1, χ, η, ξ ≥ 0. Solved in γ, χ, η, ξ, z divided by s
    and t₁ by s² (the LMI's congruence diag(I, 1/s)), with the objective divided by σ = s², the
    SOCP's estimate of the optimum (the same program; its optimum divided by σ, its inner
    maximiser α/s). Unscaled, the optimum is 5.8e-7 on the status sweep's heart m = 17,
    ν = 0.02, λ_Q = 6.75e-6, the solvers' gap test max(1, abs(objective)) was an absolute 1e-8,
    and Clarabel's and SCS's "optimal" answers were 5e-4 and 4 % from the SOCP's optimum
    (``tests/test_scaling.py``).

    ν at its bound. Per class c (m_c points), a_c = γy_c + χ is the class's margin level:
    z_i = a_c + η_i − ξ_i, and −νχ + (1/m)1ᵀξ = Σ_c k_c a_c + (1/m)1ᵀ(η − z) with
    k_c = m_c/m − ν/2 ≥ 0, zero at the class's bound ν = 2m_c/m (ν_max for the smaller class, and
    for both when m₊ = m₋ and ν = 1). There a_c costs nothing and only ξ_c = a_c + η_c − z_c ≥ 0
    bounds it below: the optimal set is a ray (the dual's α_c are all held at 1/m, its feasible
    set has no interior), and SCS ended 200 000 iterations on the status sweep's sonar m = 21,
    ν = ν_max (b and ρ 82 along the ray). So the program is written in z (free), η and
    q_c = κ_c a_c with κ_c = 1 − νm/(2m_c) = k_c·m/m_c ∈ [0, 1]:

        cost Σ_c (m_c/m) q_c + (1/m)1ᵀ(η − z),   q_c ≥ κ_c (z_i − η_i) for i in c  (κ_c·ξ_i ≥ 0),
        κ₋q₊ + κ₊q₋ ≥ 0  (2κ₊κ₋·χ ≥ 0),

    which is eq. (3.9) where κ_c > 0 and, where κ_c = 0, leaves q_c = 0 and a_c out of the
    program: the ray collapses to a point. a_c is read back as its cost's minimiser over what z
    and η allow (for κ_c > 0 the optimum's own): a_c = L_c = maxᵢ(z_i − η_i) over c, and when
    L₊ + L₋ < 0 (χ ≥ 0 binding) the class of the smaller k_c is raised by the deficit (both by
    half of it on a tie). At κ_c = 0 this is the end of the ray and the limit ν → 2m_c/m from below.
    Then γ = (a₊ − a₋)/2, χ = (a₊ + a₋)/2, ξ_i = a_c + η_i − z_i. ``variables`` hold eq.
    (3.9)'s own γ, χ, η, ξ, t₁, t₂ (in its units).
    """
    m = y_pm.shape[0]
    classes = [np.flatnonzero(y_pm > 0), np.flatnonzero(y_pm < 0)]  # +1, −1
    sizes = [c.size for c in classes]
    beta = cp.Variable(B.size, nonneg=True, name="beta")
    z = cp.Variable(m, name="z")
    eta_v = cp.Variable(m, nonneg=True, name="eta")
    q = cp.Variable(2, name="q")  # q_c = κ_c a_c
    t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
    G_stack = kernels * np.outer(y_pm, y_pm)
    T = data["lmi_congruence"] = whitening(G_stack.mean(axis=0))  # see ._sdp
    # κ₊, κ₋ and 1/(ms) (the ξ and η weight), m_c/(ms), μ/σ, s
    scaled = {name: cp.Parameter(nonneg=True, name=name) for name in ("kappa_pos", "kappa_neg", "box", "mu", "s")}
    kappa = [scaled["kappa_pos"], scaled["kappa_neg"]]
    gap = z - eta_v
    cons: dict[str, Any] = {
        "lmi": _lmi_of(_combination(G_stack, beta, T), z, t1, T),
        "hyper_norm": hyper_norm(B.L, beta, scaled["mu"], t2),  # t2 = ((λ_Q/2)/σ)‖Lᵀβ‖
        "scale": cp.sum(beta) == 1,
        "slack_pos": q[0] >= kappa[0] * gap[classes[0]],  # κ₊·ξ₊ ≥ 0
        "slack_neg": q[1] >= kappa[1] * gap[classes[1]],  # κ₋·ξ₋ ≥ 0
        "margin": kappa[1] * q[0] + kappa[0] * q[1] >= 0,  # 2κ₊κ₋·χ ≥ 0
    }
    obj = 0.5 * t1 + scaled["box"] * (sizes[0] * q[0] + sizes[1] * q[1] + cp.sum(eta_v) - cp.sum(z)) + t2
    prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
    a = _class_levels([cp.max(gap[c]) for c in classes], sizes)  # L_c = maxᵢ(z_i − η_i) over c
    xi = a[0] * (y_pm > 0).astype(float) + a[1] * (y_pm < 0).astype(float) - gap  # ξ_i = a_c + η_i − z_i
    s_par = scaled["s"]  # the variables in eq. (3.9)'s units, for the user's reading
    variables = {"beta": beta, "gamma": s_par * (a[0] - a[1]) / 2, "chi": s_par * (a[0] + a[1]) / 2,
                 "eta": s_par * eta_v, "xi": s_par * xi, "t1": s_par**2 * t1, "t2": s_par**2 * t2}  # fmt: skip
    trials = trial_points(kernels, B.L)

    def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
        sigma = _estimate(trials, y_pm, values)
        s = float(np.sqrt(sigma))
        data["alpha_scale"] = s
        kap = [max(0.0, 1.0 - values["nu"] * m / (2.0 * mc)) for mc in sizes]
        return {"kappa_pos": kap[0], "kappa_neg": kap[1], "box": 1.0 / (m * s), "mu": values["lambda_Q"] / 2 / sigma,
                "s": s}, sigma  # fmt: skip

    data["rescale"] = Rescale(scaled, compute)
    return prob, variables, cons


def _class_levels(low: list[cp.Expression], sizes: list[int]) -> list[cp.Expression]:
    """The classes' margin levels a₊, a₋ (see :func:`_sdp`) from their lower bounds L₊, L₋ (the
    levels ξ ≥ 0 allows): the smaller class raised by the deficit −(L₊ + L₋) when that is positive
    (χ ≥ 0), both by half on a tie: the minimiser of Σ_c k_c a_c over a_c ≥ L_c, a₊ + a₋ ≥ 0, as
    k_c = m_c/m − ν/2 grows with m_c."""
    deficit = cp.maximum(0, -(low[0] + low[1]))
    share = [0.5, 0.5] if sizes[0] == sizes[1] else ([1.0, 0.0] if sizes[0] < sizes[1] else [0.0, 1.0])
    return [low[k] + share[k] * deficit for k in range(2)]


def _estimate(trials: list[Any], y_pm: Any, values: dict[str, float]) -> float:
    """σ: the optimum's bound at the trial points (:func:`.scaling.trial_points`), the fixed-kernel
    ν-SVM fit plus the regulariser there, the smaller (floored, :func:`.scaling.scale_of`)."""
    mu = values["lambda_Q"] / 2
    return scale_of(min(nusvc_fit(K, y_pm, values["nu"]) + mu * r for K, r in trials)) ** 2


def _socp(
    Xa: Any, y_pm: Any, B: Any, kernels: Any, nu_par: cp.Parameter, lq_par: cp.Parameter, data: Any, terms: Any,
    factor_tol: float,
) -> KernelProblem:
    """The SOCP form of :func:`nusvm` (002 eq. 3.9's dual with one cone per basis term), scaled."""
    m = Xa.shape[0]
    # scaled (:mod:`.scaling`): a = α/s, t = τ/s², cones and objective divided by σ = s², with σ the
    # bound (the fixed-kernel ν-SVM fit plus the regulariser) at the trial points; at ν = 0.02,
    # λ_Q = 5e-6 (status sweep, heart m = 34) the optimum is 3e-7 and Clarabel's absolute gap test
    # let two "optimal" answers differ by 12 %
    scaled = {name: cp.Parameter(nonneg=True, name=name) for name in ("box", "margin", "mu")}  # 1/(ms), ν/s, μ/σ

    def write() -> tuple[cp.Problem, dict[str, Any], dict[str, Any]]:
        alpha = cp.Variable(m, nonneg=True, name="alpha")
        u_kept, u = hyper_u(B.L, terms)
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            cp.multiply(y_pm, alpha), kernels, B.L, scaled["mu"], tau, u, terms=terms, factor_tol=factor_tol,
            data=data,
        )  # fmt: skip
        cons = {
            "box": alpha <= scaled["box"],
            "balance": y_pm @ alpha == 0,
            "margin": cp.sum(alpha) >= scaled["margin"],
            "ball": cp.norm(u_kept, 2) <= 1,
            "kernel_cones": cones,
        }
        prob = cp.Problem(cp.Maximize(tau), [cons["box"], cons["balance"], cons["margin"], cons["ball"], *cones])
        return prob, {"alpha": alpha, "u": u, "tau": tau}, cons

    trials = trial_points(kernels, B.L)

    def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
        mu = values["lambda_Q"] / 2
        sigma = _estimate(trials, y_pm, values)
        s = float(np.sqrt(sigma))
        data["alpha_scale"] = s
        return {"box": 1.0 / (m * s), "margin": values["nu"] / s, "mu": mu / sigma}, sigma

    data["rescale"] = Rescale(scaled, compute)
    route = GenerationRoute(nusvm, (Xa, y_pm), {"factor_tol": factor_tol})
    params = {"nu": nu_par, "lambda_Q": lq_par}
    name, recover = "hyperkernel nu-SVM", _recover_nusvm_socp
    return _socp_problem(write, name, "002 eq. (3.9)", params, recover, data, terms, route)


def _recover_nusvm_sdp(problem: KernelProblem) -> Model:
    B, y = problem.data["basis"], problem.data["y"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    v = problem.variables
    gamma, chi = _num(v["gamma"].value), _num(v["chi"].value)  # in eq. (3.9)'s units (see _sdp)
    z = gamma * y + chi + _arr(v["eta"].value) - _arr(v["xi"].value)
    G = B.learned_kernel(beta) * np.outer(y, y)
    s = float(problem.data["alpha_scale"])  # the LMI holds z/s; its maximiser is α/s
    alpha = s * _inner_argmax(problem.constraints["lmi"], G, z / s, problem.data["lmi_congruence"])
    return _model(B, beta, alpha, alpha * y, gamma, rho=chi)


def _recover_nusvm_socp(problem: KernelProblem) -> Model:
    """β from the cones; b = −(multiplier of yᵀα = 0), as for the C-SVM; ρ = multiplier of 1ᵀα ≥ ν.

    Solved scaled (a = α/s, divided by s²): the cones' multipliers are β unchanged, and the balance
    and margin constraints, written in a, have multipliers 1/s times the unscaled ones. At ν's
    bound for a class these multipliers are not unique (:func:`_ray_end`)."""
    B, y = problem.data["basis"], problem.data["y"]
    s = float(problem.data["alpha_scale"])
    alpha = s * _arr(problem.variables["alpha"].value)
    beta = cone_beta(problem)
    offset = -s * _num(problem.constraints["balance"].dual_value)
    rho = s * _num(problem.constraints["margin"].dual_value)
    offset, rho = _ray_end(B, y, alpha, beta, offset, rho, _num(problem.parameters["nu"].value))
    return _model(B, beta, alpha, alpha * y, offset, rho=rho)


def _ray_end(B: Any, y: Array, alpha: Array, beta: Array, offset: float, rho: float, nu: float) -> tuple[float, float]:
    """(b, ρ) at the end of eq. (3.9)'s ray of optimal multipliers when ν is at a class's bound
    2m_c/m (:func:`_sdp`: the class's level a_c = γy_c + χ then costs nothing), as the SDP form
    returns them: the limit ν → 2m_c/m from below. Such a class has every α_i = 1/m > 0, so η_i = 0
    and its level's lower bound is L_c = maxᵢ z_i over c with z = G(β)α; the other class keeps the
    level of the multipliers (unique). Measured on the status sweep's sonar m = 21 at ν_max:
    Clarabel's and SCS's multipliers were ρ = 0.0648 and 0.0566 (b −0.016, −0.0079), both now
    the SDP's 0.0566. Below the bounds (b, ρ) are returned as they are."""
    m = y.shape[0]
    classes = [np.flatnonzero(y > 0), np.flatnonzero(y < 0)]
    held = [1.0 - nu * m / (2.0 * c.size) <= 1e-12 for c in classes]  # κ_c = 0 (see _sdp)
    if not any(held):
        return offset, rho
    z = y * (B.learned_kernel(beta) @ (y * alpha))
    levels = [offset + rho, -offset + rho]  # a_c = γy_c + χ with γ = b, χ = ρ
    low = [float(z[c].max()) if h else levels[k] for k, (c, h) in enumerate(zip(classes, held))]
    a = [_num(v.value) for v in _class_levels([cp.Constant(v) for v in low], [c.size for c in classes])]
    return (a[0] - a[1]) / 2, (a[0] + a[1]) / 2

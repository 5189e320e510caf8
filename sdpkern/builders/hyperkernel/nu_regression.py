"""Hyperkernel ν-support-vector regression (002 eq. 3.12), SDP and SOCP forms."""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..._validation import as_matrix, as_vector
from ...errors import LabelError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model
from ._common import Form, _arr, _check_C, _check_nu, _model, _num, _problem, _setup, _shared_doc
from ._sdp import _combination, _inner_argmax, _lmi_of
from .cones import cone_beta, socp_cones

__all__ = ["nu_regression"]


@_shared_doc
def nu_regression(
    X: ArrayLike, y: ArrayLike, hyperkernel: Hyperkernel | None = None, *, C: float = 100.0, nu: float = 0.3,
    lambda_Q: float = 1.0,
    form: Form = "socp", basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, terms: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel ν-support-vector regression (002 eq. 3.12; A.28-A.32).

    Re-derived from A.28 (the printed (3.12) has a constant "λ_Q/λ" where the term χν/λ
    belongs, and A.30/A.31 disagree on its sign; the Lagrangian A.29 gives +χν/λ). With
    α̂ = [α; α*], F(β) = [[K, −K], [−K, K]] and 1/(λm) = C (the thesis' C = 100, §3.2;
    scikit-learn's ``NuSVR(C)``): the box is 0 ≤ α̂ ≤ C, 1ᵀα̂ ≤ Cνm, and the hyperkernel
    term is (λ_Q/(2λ))‖Lᵀβ‖. Substituting α̂ = Cm·a and dividing by Cm (CVXPY cannot divide
    by a parameter) gives both forms, whose optimum is **(3.12)'s divided by Cm = 1/λ**:

    SDP: min ½t₁ + νχ + (1/m)1ᵀξ + (λ_Q/2)t₂ over χ, η, ξ, β ≥ 0, γ free, ‖Lᵀβ‖ ≤ t₂,
    1ᵀβ = stddev(y), [[Cm·F(β), z], [zᵀ, t₁]] ⪰ 0, z = [−y; y] − γ[1; −1] + η − ξ − χ1;
    since F(β) = [[1, −1], [−1, 1]] ⊗ K(β) is singular, the LMI is written in the equivalent
    strictly feasible way z_top + z_bot = 0, [[Cm·K(β), z_bot], [z_botᵀ, t₁]] ⪰ 0.
    SOCP: max yᵀ(a* − a) + c·τ (solved as c·max((y/c)ᵀ(a* − a) + τ): standardised targets)
    over 0 ≤ a, a* ≤ 1/m, 1ᵀ(a + a*) ≤ ν, 1ᵀa = 1ᵀa*, ‖u‖ ≤ 1,
    (Cm/2)‖R_lᵀZᵀ(a* − a)‖² ≤ (λ_Q/2)(Lu)_l − τ, with c = stddev(y) (sample, ddof = 1).

    The regression function is f(x) = Σ_j (α*_j − α_j) k(x, x_j) − γ, and χ is the tube width ε.
    ``Solution.alpha`` is the m-vector α* − α for ``form="sdp"`` (the SDP does not separate them)
    and the 2m-vector Cm·[a; a*] = [α; α*] for ``form="socp"``; the regression function uses
    α* − α in both.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Real targets, not all equal.
    {hyperkernel}
    C : float > 0, default 100
        1/(λm); a ``cvxpy.Parameter``.
    nu : float in (0, 1], default 0.3
        A ``cvxpy.Parameter``.
    {options}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, (40, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    >>> sol = nu_regression(X, y).solve()
    >>> sol.status, bool(np.mean((sol.decision_function(X) - y) ** 2) < 0.5 * np.var(y))
    ('optimal', True)
    """
    Xa = as_matrix(X, "X", min_samples=2)
    y_arr = as_vector(y, "y", length=Xa.shape[0])
    c = float(np.std(y_arr, ddof=1))
    if not c > 1e-12 * max(1.0, float(np.abs(y_arr).max())):
        raise LabelError(
            "y is constant: regression has nothing to learn and the scale 1ᵀβ = stddev(y) would be 0; "
            "predict the constant (sklearn.dummy.DummyRegressor) or check the targets"
        )
    C_par = cp.Parameter(nonneg=True, name="C", value=_check_C(C))
    nu_par = cp.Parameter(nonneg=True, name="nu", value=_check_nu(nu))
    checks = {"C": _check_C, "nu": _check_nu}
    B, kernels, lq_par, data = _setup(Xa, y_arr, hyperkernel, form, lambda_Q, basis, eta, max_terms, checks, scale=c)
    params = (C_par, nu_par, lq_par)
    if form == "sdp":
        prob, variables, cons = _sdp(B, kernels, y_arr, c, params)
        recover = _recover_regression_sdp
    else:
        prob, variables, cons = _socp(B, kernels, y_arr, c, params, data, terms, factor_tol)
        recover = _recover_regression_socp
    return _problem(
        prob,
        "hyperkernel nu-regression",
        "002 eq. (3.12)",
        form,
        variables,
        {"C": C_par, "nu": nu_par, "lambda_Q": lq_par},
        cons,
        recover,
        data,
    )


_Params = tuple[cp.Parameter, cp.Parameter, cp.Parameter]  # C, ν, λ_Q


_Form = tuple[cp.Problem, dict[str, Any], dict[str, Any]]  # the problem, its variables, its constraints


def _sdp(B: HyperkernelBasis, kernels: Any, y_arr: Any, c: float, params: _Params) -> _Form:
    """The SDP form of the docstring of :func:`nu_regression` (the (m+1)-LMI on z_bot)."""
    C_par, nu_par, lq_par = params
    m = y_arr.shape[0]
    beta = cp.Variable(B.size, nonneg=True, name="beta")
    gamma = cp.Variable(name="gamma")
    chi = cp.Variable(nonneg=True, name="chi")
    eta_v = cp.Variable(2 * m, nonneg=True, name="eta")
    xi = cp.Variable(2 * m, nonneg=True, name="xi")
    t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
    # F(β) = [[1, −1], [−1, 1]] ⊗ K(β) is singular, so the printed (2m+1)-LMI holds only for z
    # in its range, z_top = −z_bot; then zᵀF†z = z_botᵀK†z_bot. Writing that equality out
    # and keeping the (m+1)-LMI on z_bot is the same program, and strictly feasible (the
    # printed form stalled Clarabel at "optimal_inaccurate" on m = 30 instances).
    K = _combination(kernels, beta)
    z_top = -y_arr - gamma + eta_v[:m] - xi[:m] - chi
    z_bot = y_arr + gamma + eta_v[m:] - xi[m:] - chi
    cons: dict[str, Any] = {
        "lmi": _lmi_of((C_par * m) * K, z_bot, t1),
        "range": z_top + z_bot == 0,
        "hyper_norm": cp.norm(B.L.T @ beta, 2) <= t2,
        "scale": cp.sum(beta) == c,
    }
    obj = 0.5 * t1 + nu_par * chi + cp.sum(xi) / m + lq_par / 2 * t2
    prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
    variables = {"beta": beta, "gamma": gamma, "chi": chi, "eta": eta_v, "xi": xi, "t1": t1, "t2": t2}
    return prob, variables, cons


def _socp(
    B: HyperkernelBasis, kernels: Any, y_arr: Any, c: float, params: _Params, data: dict[str, Any],
    terms: Any, factor_tol: float,
) -> _Form:  # fmt: skip
    """The SOCP form of the docstring of :func:`nu_regression` (standardised targets y/c)."""
    C_par, nu_par, lq_par = params
    m = y_arr.shape[0]
    a = cp.Variable(m, nonneg=True, name="a")
    a_star = cp.Variable(m, nonneg=True, name="a_star")
    u = cp.Variable(B.L.shape[1], name="u")
    tau = cp.Variable(name="tau")
    cones = socp_cones(
        a_star - a, kernels, B.L, lq_par / 2, tau, u, terms=terms, factor_tol=factor_tol, data=data, scale=C_par * m
    )
    cons = {
        "box": [a <= 1.0 / m, a_star <= 1.0 / m],
        "tube": cp.sum(a) + cp.sum(a_star) <= nu_par,
        "balance": cp.sum(a) - cp.sum(a_star) == 0,
        "ball": cp.norm(u, 2) <= 1,
        "kernel_cones": cones,
    }
    # The objective is written for the standardised targets y/c (divided by c): the same
    # maximiser, but scaled to the data's own units; unscaled targets (e.g. ×1e10) made the
    # solvers report "unbounded". The multipliers (β, b, ε) and the objective come back ×c.
    data["objective_scale"] = c
    prob = cp.Problem(
        cp.Maximize((y_arr / c) @ (a_star - a) + tau),
        [*cons["box"], cons["tube"], cons["balance"], cons["ball"], *cones],
    )
    variables = {"a": a, "a_star": a_star, "u": u, "tau": tau}
    return prob, variables, cons


def _recover_regression_sdp(problem: KernelProblem) -> Model:
    """α* − α = Cm(a* − a) with CmK(a* − a) = z_bot from the LMI's dual; b = γ; ε = χ.

    (The SDP does not separate α from α*; ``alpha`` is their difference α* − α here.)"""
    B = problem.data["basis"]
    m = B.X.shape[0]
    s = _num(problem.parameters["C"].value) * m
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    v = problem.variables
    gamma, chi = _num(v["gamma"].value), _num(v["chi"].value)
    z_bot = problem.data["y"] + gamma + _arr(v["eta"].value)[m:] - _arr(v["xi"].value)[m:] - chi
    coef = s * _inner_argmax(problem.constraints["lmi"], s * B.learned_kernel(beta), z_bot)  # CmK(a* − a) = z_bot
    return _model(B, beta, coef, coef, gamma, epsilon=chi)


def _recover_regression_socp(problem: KernelProblem) -> Model:
    """b = +(multiplier of 1ᵀa − 1ᵀa* = 0): stationarity in a* gives CmK(a* − a) = y + ν_eq − χ + …"""
    B = problem.data["basis"]
    m = B.X.shape[0]
    s = _num(problem.parameters["C"].value) * m
    a_hat = s * np.concatenate([problem.variables["a"].value, problem.variables["a_star"].value])
    c = float(problem.data.get("objective_scale", 1.0))  # the objective was divided by c
    beta = c * cone_beta(problem)
    coef = a_hat[m:] - a_hat[:m]
    offset = c * _num(problem.constraints["balance"].dual_value)
    return _model(B, beta, a_hat, coef, offset, epsilon=c * _num(problem.constraints["tube"].dual_value))

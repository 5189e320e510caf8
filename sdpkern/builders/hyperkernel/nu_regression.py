"""Hyperkernel ν-support-vector regression (002 eq. 3.12), SDP and SOCP forms."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..._validation import as_matrix, as_vector
from ...errors import LabelError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model
from ._common import Form, _arr, _check_C, _check_nu, _model, _num, _problem, _setup, _shared_doc, _socp_problem
from ._sdp import _combination, _inner_argmax, _lmi_of, hyper_norm, whitening
from .cones import cone_beta, hyper_u, socp_cones
from .generation import GenerationRoute
from .scaling import Rescale, nusvr_optimum, scale_of, trial_points

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
    strictly feasible way z_top + z_bot = 0, [[Cm·K(β), z_bot], [z_botᵀ, t₁]] ⪰ 0, and solved as
    [[K(β), z_bot], [z_botᵀ, t₁']] ⪰ 0 with t₁' = Cm·t₁ (a congruence; the objective's ½t₁ is
    (1/(2Cm))·t₁'), so that the LMI does not carry the factor Cm; its objective is divided by
    the same estimate σ of the optimum as the SOCP's (below; ``Solution.objective`` is unscaled),
    and it is solved in γ, χ, η, ξ and y divided by s and t₁' by s² (the congruence diag(I, 1/s)),
    s² = Cm·(the fit part of that estimate), so that t₁'/s² ≈ 2; the recovery multiplies back.
    χ/s and ξ/s are further multiplied by their objective weights ν·s/σ and s/(mσ) where these
    exceed 1 (the dual's tube and box bounds, 2e3-4e4 at C ≥ 2e4 where every other cost is
    O(1)), η/s by ξ's factor, so that no cost exceeds 1; ``variables`` hold χ/s, η/s and ξ/s as
    before (see _sdp).
    SOCP: max yᵀ(a* − a) + c·τ (solved as c·max((y/c)ᵀ(a* − a) + τ): standardised targets)
    over 0 ≤ a, a* ≤ 1/m, 1ᵀ(a + a*) ≤ ν, 1ᵀa = 1ᵀa*, ‖u‖ ≤ 1,
    (Cm/2)‖R_lᵀZᵀ(a* − a)‖² ≤ (λ_Q/2)(Lu)_l − τ, with c = stddev(y) (sample, ddof = 1).

    Scaling (:mod:`.scaling`). The SOCP is solved in d = a* − a alone (a and a* enter only through d,
    and the smallest a + a* with a* − a = d is abs(d), so the box, tube and balance become abs(d) ≤
    1/m, ‖d‖₁ ≤ ν, 1ᵀd = 0; the pair (a, a*) could grow together along a direction that changes
    nothing, and Clarabel stalled on it), with d = s·d̂ and τ = σ·t, divided by σ: max (s/σ)(y/c)ᵀd̂
    + t over ms·abs(d̂) ≤ 1, (s/ν)‖d̂‖₁ ≤ 1 (each row divided by its bound), 1ᵀd̂ = 0, ‖u‖ ≤ 1, (Cm·s²/σ)·½‖R_lᵀZᵀd̂‖² ≤
    (λ_Q/(2σ))(Lu)_l − t, where σ bounds the optimum at a fixed β (:func:`.scaling.trial_points`,
    libsvm's ``NuSVR`` plus the regulariser there) and s² = σ/(Cm), so that t, the cones and the
    objective are O(1). The cones are the SOCP's divided by σ, so their multipliers are unchanged
    (β = c·β̂); the balance and tube
    constraints are divided by s in d̂ and the objective by σ, so their multipliers are (σ/s)·ν̂ (×c
    for the targets' scale): b = −c(σ/s)ν̂_balance (1ᵀd = 0 is −(1ᵀa − 1ᵀa*) = 0), ε =
    c(σ/s)(s/ν)ν̂_tube (the tube row's multiplier × s/ν), α* − α = Cm·s·d̂, and α, α* its negative and
    positive parts. Checked against the SDP form and against the upper bound max_d(...) +
    (λ_Q/2)‖Lᵀβ‖ at the returned β (tests).

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
        prob, variables, cons = _sdp(B, kernels, y_arr, c, params, data)
        recover = _recover_regression_sdp
    else:
        write = _socp(B, kernels, y_arr, c, params, data, terms, factor_tol)
        route = GenerationRoute(nu_regression, (Xa, y_arr), {"factor_tol": factor_tol})
        names = {"C": C_par, "nu": nu_par, "lambda_Q": lq_par}
        name, recover = "hyperkernel nu-regression", _recover_regression_socp
        return _socp_problem(write, name, "002 eq. (3.12)", names, recover, data, terms, route)
    problem = _problem(
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
    problem._rescale()
    return problem


_Params = tuple[cp.Parameter, cp.Parameter, cp.Parameter]  # C, ν, λ_Q


_Form = tuple[cp.Problem, dict[str, Any], dict[str, Any]]  # the problem, its variables, its constraints


def _sdp(
    B: HyperkernelBasis, kernels: Any, y_arr: Any, c: float, params: _Params, data: MutableMapping[str, Any]
) -> _Form:
    """The SDP form of the docstring of :func:`nu_regression` (the (m+1)-LMI on z_bot)."""
    C_par, nu_par, lq_par = params
    m = y_arr.shape[0]
    beta = cp.Variable(B.size, nonneg=True, name="beta")
    gamma = cp.Variable(name="gamma")
    chi_u = cp.Variable(nonneg=True, name="chi")  # χ in cost units (below)
    eta_u = cp.Variable(2 * m, nonneg=True, name="eta")  # η in ξ's cost units (below)
    xi_u = cp.Variable(2 * m, nonneg=True, name="xi")  # ξ in cost units (below)
    t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
    # F(β) = [[1, −1], [−1, 1]] ⊗ K(β) is singular, so the printed (2m+1)-LMI holds only for z
    # in its range, z_top = −z_bot; then zᵀF†z = z_botᵀK†z_bot. Writing that equality out
    # and keeping the (m+1)-LMI on z_bot is the same program, and strictly feasible (the
    # printed form stalled Clarabel at "optimal_inaccurate" on m = 30 instances).
    # after the congruence diag(T, 1) (see ._sdp), T from K(β) at β uniform on 1ᵀβ = c
    T = data["lmi_congruence"] = whitening(c * kernels.mean(axis=0))
    K = _combination(kernels, beta, T)
    # Solved in γ, χ, η, ξ divided by s and t1 by s² (the congruence diag(I, 1/s) of the LMI), with
    # y/s a parameter: z/s = y/s + γ/s + ..., so the LMI is [[K(β), z_bot/s], [z_botᵀ/s, t1/s²]] ⪰ 0.
    # s² = Cm·F (F the fit part of the estimate below) makes t1/s² ≈ 2: unscaled t1 was ~130 on a
    # C = 10, m = 20 instance and Clarabel's "optimal" answer was 7e-7 off the optimum, its β 3e-3.
    y_s = cp.Parameter(m, name="y_s")
    # χ and ξ are solved in cost units where their costs w (ν·s/σ, s/(mσ)) exceed 1: χ = u_χ·χ_u,
    # ξ = u_ξ·ξ_u with u = 1/max(1, w), their costs c = w·u ≤ 1, and η = u_ξ·η_u in ξ's units (η − ξ
    # is one residual split into its two signs). Those costs are the dual's tube and box bounds,
    # which at large C lie far beyond the dual's α (by C/|α|): with χ, η, ξ solved divided by s
    # alone, the cost vector spanned w_t1 ≈ 0.03 to 4e4 and SCS ended 200 000 iterations at worst
    # relative residual 4e-3..0.36 on the status sweep's C ≥ 2e4 instances (ionosphere m = 11, wdbc
    # m = 16, sonar m = 27): its dual residual stalled at 2e-3 while its adaptive scale ran to its
    # 1e6 cap. So scaled, SCS certifies them in under 300 iterations. (With η left divided by s,
    # SCS ended its iterations on thyroid m = 30, C = 9.09e4, ν = 0.05, where the tube is active;
    # with costs below 1 raised to 1 too (u > 1), pima m = 28, C = 5.94e5, ν = 0.02, λ_Q = 1.58
    # took SCS 16 675 iterations against 2 900, or ended at its cap.)
    u = {name: cp.Parameter(nonneg=True, name=name) for name in ("u_chi", "u_xi", "c_chi", "c_xi")}
    chi, xi, eta_v = u["u_chi"] * chi_u, u["u_xi"] * xi_u, u["u_xi"] * eta_u  # χ/s, ξ/s, η/s
    z_top = -y_s - gamma + eta_v[:m] - xi[:m] - chi
    z_bot = y_s + gamma + eta_v[m:] - xi[m:] - chi
    # The LMI on Cm·K(β) is written by the congruence diag(I/√(Cm), √(Cm)) as
    # [[K(β), z_bot], [z_botᵀ, Cm·t₁]] ⪰ 0 with t1 standing for Cm·t₁ and ½t₁ = (1/(2Cm))·t1: the same
    # program, but its LMI does not carry the factor Cm (up to 1e8), at which Clarabel stopped at
    # "optimal_inaccurate" or failed on m = 12-30 instances (status sweep).
    # The objective is divided by σ, the optimum's estimate of :func:`_socp` (here ×c: this form's
    # objective is the SOCP's times c), so that Clarabel's gap test max(1, abs(objective)) is
    # relative: unscaled, the objective is ~1e-4 at large C and an answer 1 % off passed as optimal.
    w = {name: cp.Parameter(nonneg=True, name=name) for name in ("w_t1", "w_t2")} | u
    cons: dict[str, Any] = {
        "lmi": _lmi_of(K, z_bot, t1, T),
        "range": z_top + z_bot == 0,
        "hyper_norm": hyper_norm(B.L, beta, w["w_t2"], t2),  # t2 = (λ_Q/(2σ))‖Lᵀβ‖
        "scale": cp.sum(beta) == c,
    }
    obj = w["w_t1"] * t1 + u["c_chi"] * chi_u + u["c_xi"] * cp.sum(xi_u) + t2  # ν·χ/σ + 1ᵀξ/(mσ)
    prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
    variables = {"beta": beta, "gamma": gamma, "chi": chi, "eta": eta_v, "xi": xi, "t1": t1, "t2": t2}
    trials = trial_points(kernels, B.L, c)

    def compute(values: dict[str, Any]) -> tuple[dict[str, Any], float]:
        Cm = values["C"] * m
        fit, total = _estimate(trials, y_arr, values, c, parts=True)
        sigma = scale_of(total) ** 2  # ½t₁ + ... ≈ σ
        s = scale_of(Cm * fit)  # t1/s² ≈ 2 (t1 ≈ 2Cm·fit)
        data["alpha_scale"] = s
        w_chi, w_xi = values["nu"] * s / sigma, s / (m * sigma)  # the costs of χ/s and ξ/s
        k_chi, k_xi = max(1.0, w_chi), max(1.0, w_xi)
        weights = {"w_t1": 0.5 * s**2 / (Cm * sigma), "u_chi": 1 / k_chi, "u_xi": 1 / k_xi,
                   "c_chi": w_chi / k_chi, "c_xi": w_xi / k_xi,
                   "w_t2": values["lambda_Q"] / 2 / sigma, "y_s": y_arr / s}  # fmt: skip
        return weights, sigma

    w["y_s"] = y_s
    data["rescale"] = Rescale(w, compute)
    return prob, variables, cons


def _estimate(trials: list[Any], y_arr: Any, values: dict[str, float], c: float, parts: bool = False) -> Any:
    """The optimum of the SDP form's objective (eq. 3.12 / Cm) bounded at the trial points
    (:func:`.scaling.trial_points`, β = c·β̂): the ν-SVR dual optimum / Cm plus c·(λ_Q/2)‖Lᵀβ̂‖, the
    smaller; with ``parts``, (its fit term, the bound)."""
    Cm, mu = values["C"] * y_arr.shape[0], values["lambda_Q"] / 2
    fits = [(nusvr_optimum(K, y_arr, values["C"], values["nu"]) / Cm, c * mu * r) for K, r in trials]
    fit, reg = min(fits, key=sum)
    return (fit, fit + reg) if parts else fit + reg


def _socp(
    B: HyperkernelBasis, kernels: Any, y_arr: Any, c: float, params: _Params, data: MutableMapping[str, Any],
    terms: Any, factor_tol: float,
) -> Callable[[], _Form]:  # fmt: skip
    """The scaled SOCP form of the docstring of :func:`nu_regression` (targets y/c, d = s·d̂): its
    scaled parameters now, the function writing the problem (its cones are the costly part)."""
    m = y_arr.shape[0]
    scaled = {
        name: cp.Parameter(nonneg=True, name=name) for name in ("lin", "inv_box", "inv_tube", "mu", "quad")
    }  # s/σ, ms, s/ν, (λ_Q/2)/σ, Cm·s²/σ

    def write() -> _Form:
        d = cp.Variable(m, name="d")  # (a* − a)/s
        u_kept, u = hyper_u(B.L, terms)
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            d, kernels, B.L, scaled["mu"], tau, u, terms=terms, factor_tol=factor_tol, data=data, scale=scaled["quad"]
        )
        # The box and tube rows are divided by their bounds 1/(ms) and ν/s: at large C those are
        # 1e2-4e4 where the rest of the data is O(1) (status sweep, seed 2: ionosphere m = 12,
        # C = 3.1e3, 650 and 7 000 against an optimal d̂ of at most 4.8; thyroid m = 30, C = 5.5e5,
        # 1.3e4 and 3.9e4, where d̂ itself reaches 8e3 along a direction the kernel nearly
        # annihilates), and SCS ended its 200 000 iterations on the thyroid one at relative gap 4e-2
        # and took 7 375 on the ionosphere one; divided, 1 625 and 375. Same program; the tube's
        # multiplier is read back multiplied by s/ν (the recovery below).
        cons = {
            "box": cp.abs(d) * scaled["inv_box"] <= 1,
            "tube": cp.norm1(d) * scaled["inv_tube"] <= 1,
            "balance": cp.sum(d) == 0,
            "ball": cp.norm(u_kept, 2) <= 1,
            "kernel_cones": cones,
        }
        prob = cp.Problem(
            cp.Maximize(scaled["lin"] * ((y_arr / c) @ d) + tau),
            [cons["box"], cons["tube"], cons["balance"], cons["ball"], *cones],
        )
        return prob, {"d": d, "u": u, "tau": tau}, cons

    trials = trial_points(kernels, B.L, c)  # K(β) at fixed β on 1ᵀβ = c

    def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
        Cm, mu = values["C"] * m, values["lambda_Q"] / 2
        sigma = scale_of(_estimate(trials, y_arr, values, c) / c) ** 2
        s_ = float(np.sqrt(sigma / Cm))  # Cm·s²·‖R_lᵀZᵀd̂‖² ≈ σ with d̂ O(1)
        data["alpha_scale"], data["sigma"] = s_, sigma
        scaled_values = {"lin": s_ / sigma, "inv_box": m * s_, "inv_tube": s_ / values["nu"],
                         "mu": mu / sigma, "quad": Cm * s_**2 / sigma}  # fmt: skip
        return scaled_values, c * sigma  # the objective was divided by c and by σ

    data["rescale"] = Rescale(scaled, compute)
    return write


def _recover_regression_sdp(problem: KernelProblem) -> Model:
    """α* − α = Cm(a* − a) with CmK(a* − a) = z_bot from the LMI's dual; b = γ; ε = χ.

    (The SDP does not separate α from α*; ``alpha`` is their difference α* − α here.)"""
    B = problem.data["basis"]
    m = B.X.shape[0]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    v = problem.variables
    s = float(problem.data["alpha_scale"])  # γ, χ, η, ξ solved divided by s (see _sdp)
    gamma, chi = _num(v["gamma"].value), _num(v["chi"].value)
    z_bot = problem.data["y"] / s + gamma + _arr(v["eta"].value)[m:] - _arr(v["xi"].value)[m:] - chi
    # the LMI is on K(β) (see _sdp): K(β)·(α* − α) = z_bot, i.e. CmK(a* − a) = z_bot (here z_bot/s)
    coef = s * _inner_argmax(problem.constraints["lmi"], B.learned_kernel(beta), z_bot, problem.data["lmi_congruence"])
    return _model(B, beta, coef, coef, s * gamma, epsilon=s * chi)


def _recover_regression_socp(problem: KernelProblem) -> Model:
    """b = −(multiplier of 1ᵀd = 0): stationarity in d gives CmK d = y − ν_eq·1 − χ·sign(d) + …

    In the scaled problem (d = s·d̂, divided by c·σ): α* − α = Cm·s·d̂, β = c·β̂, and the
    multipliers of the balance and tube constraints (written in d̂, i.e. divided by s) are
    c·(σ/s) times the scaled ones. α and α* are the positive and negative parts of α* − α."""
    B = problem.data["basis"]
    m = B.X.shape[0]
    Cm = _num(problem.parameters["C"].value) * m
    s, sigma, c = (float(problem.data[k]) for k in ("alpha_scale", "sigma", "scale"))
    coef = Cm * s * _arr(problem.variables["d"].value)  # α* − α
    a_hat = np.concatenate([np.clip(-coef, 0.0, None), np.clip(coef, 0.0, None)])  # [α; α*]
    beta = c * cone_beta(problem)
    unit = c * sigma / s
    offset = -unit * _num(problem.constraints["balance"].dual_value)
    # the tube row is ‖d̂‖₁·(s/ν) ≤ 1 (see _socp): its multiplier in ‖d̂‖₁ ≤ ν/s is the row's × s/ν
    per_unit = _num(problem.constraints["tube"].dual_value) * _num(problem.data["rescale"].parameters["inv_tube"].value)
    return _model(B, beta, a_hat, coef, offset, epsilon=unit * per_unit)

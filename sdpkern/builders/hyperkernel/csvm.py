"""Hyperkernel learning problems (002 §3.1.2) as SDPs and as equivalent SOCPs.

C-SVM (002 eq. 3.8)
-------------------
With base kernels K_l (PSD, from :class:`~sdpkern.kernels.lowrank.HyperkernelBasis`),
K(β) = Σ_l β_l K_l, G(β) = Y K(β) Y and K̲_SS = L Lᵀ the hyperkernel Gram matrix of the basis,
002 eq. (3.8) reads

    min  ½ t₁ + (C'/m) 1ᵀξ + (λ_Q/2) t₂
    s.t. η ≥ 0, ξ ≥ 0, β ≥ 0, ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1,
         [[G(β), z], [zᵀ, t₁]] ⪰ 0,   z = γy + 1 + η − ξ.

By the Schur complement and Lagrange duality in (γ, η, ξ), this is
min_β max_α 1ᵀα − ½ αᵀG(β)α + (λ_Q/2)‖Lᵀβ‖ over 0 ≤ α ≤ C'/m, yᵀα = 0, with α = G(β)†z and
the offset b = γ: the decision function is f(x) = Σ_j α_j y_j k(x, x_j) − b.

C: eq. (3.8)'s constant C' = 1/λ weighs the *mean* hinge loss; the builders take
scikit-learn's C (docs/conventions.md), C' = C·m, so the box is 0 ≤ α ≤ C'/m = C as in ``SVC``.

SOCP form (see SPEC "Hyperkernel builders"; Tsang & Kwok 2006 made the same move). The
objective is convex in β (on the compact simplex) and concave in α, so min and max exchange
(Sion). Writing μ = λ_Q/2 and μ‖Lᵀβ‖ = max_{‖u‖≤1} μ uᵀLᵀβ, the inner problem over the simplex
is min_{β∈Δ} Σ_l β_l (μ(Lu)_l − ½ αᵀYK_lYα) = min_l (μ(Lu)_l − ½ αᵀYK_lYα), hence

    max_{α, u, τ}  1ᵀα + τ
    s.t. 0 ≤ α ≤ C'/m, yᵀα = 0, ‖u‖ ≤ 1,
         ½ ‖R_lᵀ Zᵀ(y∘α)‖² ≤ μ (L u)_l − τ      for every basis term l,

where K_l = Z R_l R_lᵀ Zᵀ. β comes back as the multipliers of the p cone constraints: the
stationarity condition in τ makes them sum to 1, and they are non-negative.

Scaling (:mod:`.scaling`). The problem solved is the SOCP above in a = α/s and t = τ/s²,
with objective and cones divided by s²:

    max_{a, u, t}  (1/s) 1ᵀa + t
    s.t. 0 ≤ a ≤ C/s, yᵀa = 0, ‖u‖ ≤ 1,
         ½ ‖R_lᵀ Zᵀ(y∘a)‖² ≤ (μ/s²) (L u)_l − t      for every basis term l,

with s² the C-SVM dual optimum plus (λ_Q/2)‖Lᵀβ‖ at a fixed β (:func:`.scaling.trial_points`;
an estimate of the optimum, so that t and the objective are O(1)). Its optimum is the SOCP's
divided by s². Its Lagrangian is the
SOCP's divided by s²: with the cone constraints c_l(α, u, τ) = s²·ĉ_l(a, u, t) and the balance
yᵀα = s·yᵀa, the multipliers are β̂_l = β_l (unchanged) and ν̂ = ν/s, so β is read off the
scaled cones as it is, b = −ν = −s·ν̂ and α = s·a. The user's C and λ_Q stay the problem's
``parameters``; the CVXPY problem holds 1/s, C/s and μ/s² (DPP cannot divide by a parameter),
recomputed by ``problem.set``.

Shared factor: every K_l is PSD, so its range lies in the range of K_Σ = Σ_l K_l. One factor
K_Σ ≈ Z Zᵀ (r columns, eigenvalues below ``factor_tol``·λ_max dropped) serves all terms:
v = Zᵀ(y∘α) ∈ R^r is computed once, and term l needs only the r×r_l factor R_l of
M_l = Z⁺K_lZ⁺ᵀ. Each cone then acts on an r-vector instead of an m-vector.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..._validation import as_sample_weight
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model, Solution
from ._common import Array, ExpansionDecision, Form, _check_C, _setup, _shared_doc, _socp_problem, _validate_xy
from ._sdp import _combination, _lmi_of, hyper_norm
from .cones import cone_beta, hyper_u, socp_cones
from .generation import ActiveSetTrace, GenerationRoute, cone_generation
from .scaling import Rescale, scale_of, svc_optimum, trial_points

__all__ = ["csvm", "csvm_active_set"]


def _lmi(G_stack: Array, z: cp.Expression, t1: cp.Variable, beta: cp.Variable) -> cp.Constraint:
    """[[Σ_l β_l G_l, z], [zᵀ, t₁]] ⪰ 0 with the G_l given as an (p, m, m) stack.

    Not whitened (see ``_sdp``): with T = Ḡ^{-1/2}, SCS failed on 7 of 36 status-sweep C-SVM SDPs
    (mostly C ≥ 1e4, where T spreads the C-weighted ξ over every entry of z), against 1 without."""
    return _lmi_of(_combination(G_stack, beta), z, t1)


@_shared_doc
def csvm(
    X: ArrayLike, y: ArrayLike, hyperkernel: Hyperkernel | None = None, *, C: float = 100.0, lambda_Q: float = 1.0,
    form: Form = "socp", basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, terms: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel C-SVM: learn the kernel and the classifier together (002 eq. 3.8).

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Two classes, any labels (the larger is +1).
    {hyperkernel}
    C : float > 0, default 100
        scikit-learn's C: the dual box is 0 ≤ α ≤ C, as in ``SVC``. Eq. (3.8) writes the loss
        as (C'/m)·1ᵀξ with C' = 1/λ; here C' = C·m (converted inside). The thesis' experiments
        fix 1/(λm) = 100 (§3.2), i.e. C = 100. A ``cvxpy.Parameter`` (``problem.set(C=...)``).
    {options}
    sample_weight : array (m,) of floats ≥ 0, optional
        Per-point loss weights w (docs/conventions.md): point i's C is C·w_i, i.e. the loss
        C Σ w_i ξ_i and the box 0 ≤ α_i ≤ C·w_i, as scikit-learn's ``SVC``. A weight k is the
        point repeated k times (with the same basis); a zero weight fixes α_i = 0.

    Returns
    -------
    KernelProblem
        ``solve()`` gives a Solution with α, offset b, β, the learned kernel matrix and the
        decision function f(x) = Σ_j α_j y_j k(x, x_j) − b through the expansion (002 eq. 2.15).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = csvm(X[:40], y[:40]).solve()
    >>> sol.status, round(float(sol.beta.sum()), 6)
    ('optimal', 1.0)
    """
    Xa, y_pm = _validate_xy(X, y)
    w = as_sample_weight(sample_weight, Xa.shape[0])
    C_par = cp.Parameter(nonneg=True, name="C", value=_check_C(C))
    B, kernels, lq_par, data = _setup(Xa, y_pm, hyperkernel, form, lambda_Q, basis, eta, max_terms, {"C": _check_C})
    data["feasible_bounded"] = True  # the slacks ξ absorb any margin violation; the objective is ≥ 0
    m = Xa.shape[0]
    trials = trial_points(kernels, B.L)

    def estimate(values: dict[str, float]) -> float:
        """s: the square root of the optimum's bound at the trial points (its fit + μ‖Lᵀβ‖)."""
        mu = values["lambda_Q"] / 2
        s = scale_of(min(svc_optimum(K, y_pm, values["C"], w) + mu * r for K, r in trials))
        data["alpha_scale"] = s
        return s

    if form == "sdp":
        prob, variables, cons = _sdp(kernels * np.outer(y_pm, y_pm), y_pm, B.L, w, estimate, data)
        recover = _recover_csvm_sdp
    else:
        # the scaled SOCP of the module docstring: a = α/s, t = τ/s², objective and cones / s²
        scaled = {
            "inv_s": cp.Parameter(nonneg=True, name="inv_s"),  # 1/s
            "box": cp.Parameter(nonneg=True, name="box"),  # C/s
            "mu": cp.Parameter(nonneg=True, name="mu"),  # (λ_Q/2)/s²
        }

        def write() -> tuple[cp.Problem, dict[str, Any], dict[str, Any]]:
            alpha = cp.Variable(m, nonneg=True, name="alpha")
            u_kept, u = hyper_u(B.L, terms)
            tau = cp.Variable(name="tau")
            cones = socp_cones(
                cp.multiply(y_pm, alpha), kernels, B.L, scaled["mu"], tau, u, terms=terms, factor_tol=factor_tol,
                data=data,
            )  # fmt: skip
            cons = {
                "box": alpha <= (scaled["box"] if w is None else scaled["box"] * w),  # α ≤ C'/m = C (C·w)
                "balance": y_pm @ alpha == 0,
                "ball": cp.norm(u_kept, 2) <= 1,
                "kernel_cones": cones,
            }
            prob = cp.Problem(
                cp.Maximize(scaled["inv_s"] * cp.sum(alpha) + tau),
                [cons["box"], cons["balance"], cons["ball"], *cones],
            )
            return prob, {"alpha": alpha, "u": u, "tau": tau}, cons

        recover = _recover_csvm_socp

        def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
            s = estimate(values)
            return {"inv_s": 1.0 / s, "box": values["C"] / s, "mu": values["lambda_Q"] / 2 / s**2}, s**2

        data["rescale"] = Rescale(scaled, compute)
        route = GenerationRoute(csvm, (Xa, y_pm), {"factor_tol": factor_tol, "sample_weight": w})
        return _socp_problem(
            write, "hyperkernel C-SVM", "002 eq. (3.8)", {"C": C_par, "lambda_Q": lq_par}, recover, data, terms, route
        )
    problem = KernelProblem(
        cvxpy=prob,
        formulation="hyperkernel C-SVM",
        source="002 eq. (3.8)",
        form=form,
        variables=variables,
        parameters={"C": C_par, "lambda_Q": lq_par},
        constraints=cons,
        recover=recover,
        data=data,
    )
    problem._rescale()
    return problem


def _sdp(
    G_stack: Array, y: Array, L: Array, w: Array | None, estimate: Callable[[dict[str, float]], float],
    data: MutableMapping[str, Any],
) -> tuple[cp.Problem, dict[str, Any], dict[str, Any]]:
    """Eq. (3.8)'s SDP, solved scaled as the SOCP (module docstring, "Scaling"): γ, η, ξ divided
    by s and t₁, t₂ by s² (the LMI's congruence diag(I, 1/s)), the objective divided by s²:

        min ½t₁ + (C/s)1ᵀξ + t₂ over ‖((λ_Q/2)/s²)Lᵀβ‖ ≤ t₂, 1ᵀβ = 1,
        [[G(β), z], [zᵀ, t₁]] ⪰ 0, z = γy + 1/s + η − ξ

    (C·w ∘ ξ with weights). Its optimum is eq. (3.8)'s divided by s², and its inner maximiser
    is α/s. ``variables`` hold eq. (3.8)'s own γ, η, ξ, t₁, t₂ (the solved ones times s or s²).
    Unscaled, the objective held C up to 1e6 next to t₁ ≈ 1ᵀα: SCS ended 200 000 iterations at
    relative gap 4e-2 (objective 0.4 % high) on the status sweep's (seed 29) thyroid m = 11,
    C = 6.98e5 and at primal and dual residuals 1e-6 (10× its tolerance) on m = 12, C = 124;
    scaled it certifies both (in 5.7e4 and 2.3e3 iterations).
    """
    m, p = G_stack.shape[1], G_stack.shape[0]
    beta = cp.Variable(p, nonneg=True, name="beta")
    gamma = cp.Variable(name="gamma")
    eta_v = cp.Variable(m, nonneg=True, name="eta")
    xi = cp.Variable(m, nonneg=True, name="xi")
    t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
    scaled = {name: cp.Parameter(nonneg=True, name=name) for name in ("inv_s", "box", "mu")}  # 1/s, C/s, (λ_Q/2)/s²
    z = gamma * y + scaled["inv_s"] + eta_v - xi
    # t2 stands for ((λ_Q/2)/s²)‖Lᵀβ‖ (the weight inside the cone, see _sdp.hyper_norm)
    cons = {"lmi": _lmi(G_stack, z, t1, beta), "hyper_norm": hyper_norm(L, beta, scaled["mu"], t2),
            "scale": cp.sum(beta) == 1}  # fmt: skip
    loss = cp.sum(xi) if w is None else w @ xi
    prob = cp.Problem(cp.Minimize(0.5 * t1 + scaled["box"] * loss + t2), list(cons.values()))
    # the problem's variables in eq. (3.8)'s units (γ = s·γ̂, ..., t₁ = s²·t̂₁), for the user's reading
    s_par = scaled["s"] = cp.Parameter(nonneg=True, name="s")
    variables = {"beta": beta, "gamma": s_par * gamma, "eta": s_par * eta_v, "xi": s_par * xi,
                 "t1": s_par**2 * t1, "t2": s_par**2 * t2}  # fmt: skip

    def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
        s = estimate(values)
        return {"inv_s": 1.0 / s, "box": values["C"] / s, "mu": values["lambda_Q"] / 2 / s**2, "s": s}, s**2

    data["rescale"] = Rescale(scaled, compute)
    return prob, variables, cons


def _recover_csvm_sdp(problem: KernelProblem) -> Model:
    """α from the LMI's dual Λ = ½[α̂; −1][α̂; −1]ᵀ (complementary slackness), α̂ = α/s in the
    scaled SDP (:func:`_sdp`); b = γ."""
    B: HyperkernelBasis = problem.data["basis"]
    y = problem.data["y"]
    m = y.shape[0]
    s = float(problem.data["alpha_scale"])
    beta = np.clip(np.asarray(problem.variables["beta"].value, dtype=float), 0.0, None)
    Lam = problem.constraints["lmi"].dual_value
    alpha = -s * Lam[:m, m] / Lam[m, m]
    offset = float(np.asarray(problem.variables["gamma"].value, dtype=float).ravel()[0])  # in eq. (3.8)'s units
    K = B.learned_kernel(beta)
    coef = alpha * y
    decision = ExpansionDecision(B, beta, coef, offset)
    return Model(alpha=alpha, offset=offset, beta=beta, kernel_matrix=K, decision=decision)


def _recover_csvm_socp(problem: KernelProblem) -> Model:
    """β from the cone constraints' multipliers; b from the balance constraint's multiplier."""
    B: HyperkernelBasis = problem.data["basis"]
    y = problem.data["y"]
    s = float(problem.data["alpha_scale"])
    alpha = s * np.asarray(problem.variables["alpha"].value, dtype=float)  # α = s·a
    beta = cone_beta(problem)  # the scaled cones' multipliers are β itself
    # CVXPY's multiplier ν of yᵀα = 0 enters the Lagrangian of max 1ᵀα + τ as −ν·yᵀα; the SDP's
    # γ satisfies Gα = 1 + γy + η − ξ; matching the two stationarity conditions gives b = γ = −ν
    # (checked against the SDP form in the tests). The scaled problem's multiplier is ν/s.
    offset = -s * float(problem.constraints["balance"].dual_value)
    K = B.learned_kernel(beta)
    coef = alpha * y
    decision = ExpansionDecision(B, beta, coef, offset)
    return Model(alpha=alpha, offset=offset, beta=beta, kernel_matrix=K, decision=decision)


def csvm_active_set(
    X: ArrayLike, y: ArrayLike, hyperkernel: Hyperkernel | None = None, *, C: float = 100.0, lambda_Q: float = 1.0,
    basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, initial_terms: int = 3, add_per_round: int = 3, max_rounds: int = 50, tol: float = 1e-6,
    backend: str = "clarabel", allow_inaccurate: bool = False, sample_weight: ArrayLike | None = None, **options: Any,
) -> tuple[KernelProblem, Solution, ActiveSetTrace]:
    """The hyperkernel C-SVM's SOCP (002 eq. 3.8) solved by :func:`cone_generation`.

    Parameters are those of :func:`csvm` and :func:`cone_generation`; ``**options`` go to the
    solver. Returns ``(problem, solution, trace)`` as :func:`cone_generation` does.
    """
    return cone_generation(
        csvm, X, y, hyperkernel,
        initial_terms=initial_terms, add_per_round=add_per_round, max_rounds=max_rounds, tol=tol,
        backend=backend, allow_inaccurate=allow_inaccurate, solve_options=options,
        C=C, lambda_Q=lambda_Q, basis=basis, eta=eta, max_terms=max_terms, factor_tol=factor_tol,
        sample_weight=sample_weight,
    )  # fmt: skip

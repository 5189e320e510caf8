"""Hyperkernel single-class SVM (002 eq. 3.11), SDP and SOCP forms."""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..._validation import as_matrix
from ...errors import DataError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Model
from ._common import Form, _arr, _check_nu, _model, _num, _problem, _setup, _shared_doc, _socp_problem
from ._sdp import _combination, _inner_argmax, _lmi_of, hyper_norm, whitening
from .cones import cone_beta, hyper_u, socp_cones
from .generation import GenerationRoute
from .scaling import Rescale, one_class_fit, scale_of, trial_points

__all__ = ["one_class"]


@_shared_doc
def one_class(
    X: ArrayLike, hyperkernel: Hyperkernel | None = None, *, nu: float = 0.1, lambda_Q: float = 1.0,
    form: Form = "socp", basis: HyperkernelBasis | str | None = None, eta: float = 1e-4, max_terms: int | None = 150,
    factor_tol: float = 1e-10, terms: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel single-class SVM / novelty detection (002 eq. 3.11; A.23).

    Saddle problem: min_β max_α −½αᵀK(β)α + (λ_Q/(2ν))‖Lᵀβ‖ over 1ᵀα = 1, 0 ≤ α ≤ 1/(νm).
    CVXPY cannot divide by the parameter ν, so both forms are the thesis' problem multiplied
    by ν (same minimisers; **the objective reported is ν times that of (3.11)**):

    SDP: min ν(½t₁ − γ) + (1/m)1ᵀξ + (λ_Q/2)t₂ over η, ξ, β ≥ 0, γ free, ‖Lᵀβ‖ ≤ t₂,
    1ᵀβ = 1, [[K(β), z], [zᵀ, t₁]] ⪰ 0, z = γ1 + η − ξ.
    SOCP: max τ over 1ᵀα = 1, 0 ≤ να ≤ 1/m, ‖u‖ ≤ 1, (ν/2)‖R_lᵀZᵀα‖² ≤ (λ_Q/2)(Lu)_l − τ,
    solved scaled (:mod:`.scaling`): in t = τ/σ with the cones divided by σ, the smaller bound
    (the fixed-kernel fit, libsvm's ``OneClassSVM``, plus (λ_Q/2)‖Lᵀβ‖) at the trial points; the
    cones' multipliers are β unchanged and the multiplier of 1ᵀα = 1 is 1/σ times the unscaled one.

    The novelty score is g(x) = Σ_j α_j k(x, x_j) − ρ with ρ = γ; on the training points it is
    η − ξ (002 Example 13): positive inside the support, negative for the outliers.

    Parameters
    ----------
    X : array (m, d), m ≥ 2
    {hyperkernel}
    nu : float in (0, 1], default 0.1 (the thesis' novelty-detection setting, §3.2.5)
        A ``cvxpy.Parameter``: an upper bound on the fraction of outliers.
    {options}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, _ = load_breast_cancer(return_X_y=True)
    >>> sol = one_class(X[:40]).solve()
    >>> sol.status, round(float(sol.alpha.sum()), 6)
    ('optimal', 1.0)
    """
    Xa = as_matrix(X, "X")
    if Xa.shape[0] < 2:
        raise DataError(
            f"one-class data needs at least 2 samples to describe a support, got {Xa.shape[0]} sample; "
            "collect more points"
        )
    nu_par = cp.Parameter(nonneg=True, name="nu", value=_check_nu(nu))
    m = Xa.shape[0]
    B, kernels, lq_par, data = _setup(Xa, None, hyperkernel, form, lambda_Q, basis, eta, max_terms, {"nu": _check_nu})
    if form == "sdp":
        T = data["lmi_congruence"] = whitening(kernels.mean(axis=0))  # see ._sdp
        beta = cp.Variable(B.size, nonneg=True, name="beta")
        gamma = cp.Variable(name="gamma")
        eta_v = cp.Variable(m, nonneg=True, name="eta")
        xi = cp.Variable(m, nonneg=True, name="xi")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        cons: dict[str, Any] = {
            "lmi": _lmi_of(_combination(kernels, beta, T), gamma + eta_v - xi, t1, T),
            "hyper_norm": hyper_norm(B.L, beta, lq_par / 2, t2),  # t2 = (λ_Q/2)‖Lᵀβ‖
            "scale": cp.sum(beta) == 1,
        }
        obj = nu_par * (0.5 * t1 - gamma) + cp.sum(xi) / m + t2
        prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
        variables = {"beta": beta, "gamma": gamma, "eta": eta_v, "xi": xi, "t1": t1, "t2": t2}
    else:
        # scaled (:mod:`.scaling`): t = τ/σ, cones and objective divided by σ, the bound (the
        # fixed-kernel fit plus the regulariser) at the trial points; α keeps its units (1ᵀα = 1)
        scaled = {name: cp.Parameter(nonneg=True, name=name) for name in ("quad", "mu")}  # ν/σ, μ/σ

        def write() -> tuple[cp.Problem, dict[str, Any], dict[str, Any]]:
            alpha = cp.Variable(m, nonneg=True, name="alpha")
            u_kept, u = hyper_u(B.L, terms)
            tau = cp.Variable(name="tau")
            cones = socp_cones(
                alpha, kernels, B.L, scaled["mu"], tau, u, terms=terms, factor_tol=factor_tol, data=data,
                scale=scaled["quad"],
            )  # fmt: skip
            cons = {
                "box": nu_par * alpha <= 1.0 / m,
                "normalise": cp.sum(alpha) == 1,
                "ball": cp.norm(u_kept, 2) <= 1,
                "kernel_cones": cones,
            }
            prob = cp.Problem(cp.Maximize(tau), [cons["box"], cons["normalise"], cons["ball"], *cones])
            return prob, {"alpha": alpha, "u": u, "tau": tau}, cons

        trials = trial_points(kernels, B.L)

        def compute(values: dict[str, float]) -> tuple[dict[str, float], float]:
            mu = values["lambda_Q"] / 2
            sigma = scale_of(min(one_class_fit(K, values["nu"]) + mu * r for K, r in trials)) ** 2
            data["sigma"] = sigma
            return {"quad": values["nu"] / sigma, "mu": mu / sigma}, sigma

        data["rescale"] = Rescale(scaled, compute)
        route = GenerationRoute(one_class, (Xa,), {"factor_tol": factor_tol})
        params = {"nu": nu_par, "lambda_Q": lq_par}
        name = "hyperkernel one-class SVM"
        return _socp_problem(write, name, "002 eq. (3.11)", params, _recover_one_class_socp, data, terms, route)
    problem = _problem(
        prob,
        "hyperkernel one-class SVM",
        "002 eq. (3.11)",
        form,
        variables,
        {"nu": nu_par, "lambda_Q": lq_par},
        cons,
        _recover_one_class_sdp,
        data,
    )
    problem._rescale()
    return problem


def _recover_one_class_sdp(problem: KernelProblem) -> Model:
    B = problem.data["basis"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    v = problem.variables
    gamma = _num(v["gamma"].value)
    z = gamma + _arr(v["eta"].value) - _arr(v["xi"].value)
    alpha = _inner_argmax(problem.constraints["lmi"], B.learned_kernel(beta), z, problem.data["lmi_congruence"])
    return _model(B, beta, alpha, alpha, gamma)


def _recover_one_class_socp(problem: KernelProblem) -> Model:
    """ρ = −(multiplier of 1ᵀα = 1)/ν: stationarity in α gives νK(β)α = −ν_eq 1 + η' − νξ'."""
    B = problem.data["basis"]
    alpha = _arr(problem.variables["alpha"].value)
    beta = cone_beta(problem)
    nu = _num(problem.parameters["nu"].value)
    # solved divided by σ (see one_class): the multiplier of 1ᵀα = 1 is 1/σ times the unscaled one
    rho = -float(problem.data["sigma"]) * _num(problem.constraints["normalise"].dual_value) / nu
    return _model(B, beta, alpha, alpha, rho)

"""The other five hyperkernel formulations of 002 §3.1.2 (eqs. 3.9-3.13), SDP and SOCP forms.

Re-exported by :mod:`sdpkern.builders.hyperkernel`, whose module docstring derives the C-SVM's
SOCP; the five derivations here follow the same three steps (written out in full, with the
places where the thesis' text is garbled, in ``docs/hyperkernel_derivations.md``):

1. Write the formulation as the saddle problem of 002 Appendix A.2,
   min_{β ≥ 0, 1ᵀβ = c} max_{α ∈ A}  q(α) − ½ αᵀ M(β) α + (reg. in β),
   with M(β) = Σ_l β_l M_l (+ a constant), A a polyhedron and the regulariser μ‖Lᵀβ‖
   (the thesis' replacement of the squared norm) or (λ_Q/2)‖Lᵀβ‖² for the alignment (3.13).
2. The SDP (form="sdp") is Corollary 15 applied to it: the Wolfe dual of the inner max,
   with ½ zᵀM(β)†z ≤ ½ t₁ as the LMI [[M(β), z], [zᵀ, t₁]] ⪰ 0.
3. The SOCP (form="socp"): the objective is convex in β on the compact simplex and concave
   in α, so min and max exchange (Sion). With μ‖Lᵀβ‖ = max_{‖u‖≤1} μ uᵀLᵀβ the inner
   problem min_{β ∈ cΔ} Σ_l β_l (μ(Lu)_l − ½ αᵀM_lα) equals c·min_l(·) = c·τ, giving one
   cone ½ αᵀM_lα ≤ μ(Lu)_l − τ per basis term; β comes back as the cones' multipliers (the
   stationarity condition in τ makes them sum to c). For the squared regulariser of (3.13)
   the conjugate (λ_Q/2)‖Lᵀβ‖² = max_u λ_Q uᵀLᵀβ − (λ_Q/2)‖u‖² replaces the ball.

DPP: CVXPY cannot divide by a parameter, so wherever the thesis divides by ν or λ the whole
objective is multiplied by that parameter (same minimisers; the objective reported is scaled,
as each docstring says) or the dual variables are rescaled. Every builder here is DPP.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix, as_vector, check_open_interval, check_positive
from ..errors import DataError, LabelError, ParameterError, SingularKernelError
from ..kernels.hyperkernels import HarmonicARD, Hyperkernel
from ..kernels.lowrank import HyperkernelBasis
from ..problem import KernelProblem, Model
from .hyperkernel import (
    ExpansionDecision,
    Form,
    _check_C,
    _check_lambda_Q,
    _socp_kernel_cones,
    _validate_xy,
    cone_beta,
    make_basis,
    shared_factor,
    socp_cones,
)

__all__ = ["nusvm", "l2svm", "one_class", "nu_regression", "alignment", "SingularKernelError"]

Array = NDArray[np.float64]


# ----------------------------------------------------------------------------- helpers
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


# ----------------------------------------------------------------------------- ν-SVM (3.9)
def nusvm(
    X: ArrayLike,
    y: ArrayLike,
    hyperkernel: Hyperkernel | None = None,
    *,
    nu: float = 0.3,
    lambda_Q: float = 1.0,
    form: Form = "socp",
    basis: HyperkernelBasis | str | None = None,
    eta: float = 1e-6,
    max_terms: int | None = None,
    factor_tol: float = 1e-10,
    terms: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel ν-SVM (002 eq. 3.9; saddle problem A.13).

    SDP (as written): min ½t₁ − χν + (1/m)1ᵀξ + (λ_Q/2)t₂ over χ, η, ξ, β ≥ 0, γ free,
    ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1, [[G(β), z], [zᵀ, t₁]] ⪰ 0 with z = γy + χ1 + η − ξ.
    SOCP (derived, see the module docstring): max τ over yᵀα = 0, 1ᵀα ≥ ν, 0 ≤ α ≤ 1/m,
    ‖u‖ ≤ 1 and ½‖R_lᵀZᵀ(y∘α)‖² ≤ (λ_Q/2)(Lu)_l − τ. Both have the same optimum.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Two classes (the larger label is +1).
    hyperkernel : Hyperkernel, default HarmonicARD(0.6, widths="auto") (002 §3.2)
    nu : float in (0, 1], default 0.3
        A ``cvxpy.Parameter``. Feasible only for ν ≤ 2·min(m₊, m₋)/m.
    lambda_Q : float ≥ 0, default 1
        A ``cvxpy.Parameter``.
    form, basis, eta, max_terms, factor_tol, terms
        As for :func:`~sdpkern.builders.hyperkernel.csvm` (``terms``: SOCP only, the cones of
        these basis terms only, as :func:`~sdpkern.builders.hyperkernel.cone_generation` uses).

    Returns
    -------
    KernelProblem
        Its solution carries α, the offset b = γ, β, the learned kernel and the decision
        function f(x) = Σ_j α_j y_j k(x, x_j) − b (002 Example 11).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = nusvm(X[40:80], y[40:80], eta=1e-4).solve()
    >>> sol.status, round(float(sol.alpha.sum()), 4) >= 0.3
    ('optimal', True)
    """
    Xa, y_pm = _validate_xy(X, y)
    _check_form(form)
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

    nu_val, lq_val = check_nu(nu), _check_lambda_Q(lambda_Q)
    B = _basis(Xa, hyperkernel, basis, eta, max_terms)
    kernels = B.kernels()
    nu_par = cp.Parameter(nonneg=True, name="nu", value=nu_val)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=lq_val)
    data: dict[str, Any] = {
        "X": Xa,
        "y": y_pm,
        "basis": B,
        "scale": 1.0,
        "parameter_checks": {"nu": check_nu, "lambda_Q": _check_lambda_Q},
    }
    if form == "sdp":
        beta = cp.Variable(B.size, nonneg=True, name="beta")
        gamma = cp.Variable(name="gamma")
        chi = cp.Variable(nonneg=True, name="chi")
        eta_v = cp.Variable(m, nonneg=True, name="eta")
        xi = cp.Variable(m, nonneg=True, name="xi")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        z = gamma * y_pm + chi + eta_v - xi
        cons: dict[str, Any] = {
            "lmi": _lmi_of(_combination(kernels * np.outer(y_pm, y_pm), beta), z, t1),
            "hyper_norm": cp.norm(B.L.T @ beta, 2) <= t2,
            "scale": cp.sum(beta) == 1,
        }
        obj = 0.5 * t1 - nu_par * chi + cp.sum(xi) / m + lq_par / 2 * t2
        prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
        variables = {"beta": beta, "gamma": gamma, "chi": chi, "eta": eta_v, "xi": xi, "t1": t1, "t2": t2}
        recover = _recover_nusvm_sdp
    else:
        alpha = cp.Variable(m, nonneg=True, name="alpha")
        u = cp.Variable(B.L.shape[1], name="u")
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            cp.multiply(y_pm, alpha), kernels, B.L, lq_par / 2, tau, u, terms=terms, factor_tol=factor_tol, data=data
        )
        cons = {
            "box": alpha <= 1.0 / m,
            "balance": y_pm @ alpha == 0,
            "margin": cp.sum(alpha) >= nu_par,
            "ball": cp.norm(u, 2) <= 1,
            "kernel_cones": cones,
        }
        prob = cp.Problem(cp.Maximize(tau), [cons["box"], cons["balance"], cons["margin"], cons["ball"], *cones])
        variables = {"alpha": alpha, "u": u, "tau": tau}
        recover = _recover_nusvm_socp
    return _problem(
        prob,
        "hyperkernel nu-SVM",
        "002 eq. (3.9)",
        form,
        variables,
        {"nu": nu_par, "lambda_Q": lq_par},
        cons,
        recover,
        data,
    )


def _recover_nusvm_sdp(problem: KernelProblem) -> Model:
    B, y = problem.data["basis"], problem.data["y"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    v = problem.variables
    gamma, chi = _num(v["gamma"].value), _num(v["chi"].value)
    z = gamma * y + chi + _arr(v["eta"].value) - _arr(v["xi"].value)
    alpha = _inner_argmax(problem.constraints["lmi"], B.learned_kernel(beta) * np.outer(y, y), z)
    return _model(B, beta, alpha, alpha * y, gamma, rho=chi)


def _recover_nusvm_socp(problem: KernelProblem) -> Model:
    """β from the cones; b = −(multiplier of yᵀα = 0), as for the C-SVM; ρ = multiplier of 1ᵀα ≥ ν."""
    B, y = problem.data["basis"], problem.data["y"]
    alpha = _arr(problem.variables["alpha"].value)
    beta = cone_beta(problem)
    offset = -_num(problem.constraints["balance"].dual_value)
    return _model(B, beta, alpha, alpha * y, offset, rho=_num(problem.constraints["margin"].dual_value))


# ----------------------------------------------------------------------------- L2 SVM (3.10)
def l2svm(
    X: ArrayLike,
    y: ArrayLike,
    hyperkernel: Hyperkernel | None = None,
    *,
    C: float = 100.0,
    lambda_Q: float = 1.0,
    form: Form = "socp",
    basis: HyperkernelBasis | str | None = None,
    eta: float = 1e-6,
    max_terms: int | None = None,
    factor_tol: float = 1e-10,
    terms: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel Lagrangian (L2 soft margin) SVM of Mangasarian-Musicant (002 eq. 3.10; A.18).

    SDP (as written): min ½t₁ + (λ_Q/2)t₂ over η ≥ 0, β ≥ 0, ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1,
    [[H(β), η + 1], [(η + 1)ᵀ, t₁]] ⪰ 0 with H(β) = Y(K(β) + 1 1ᵀ + λm I)Y.
    SOCP (derived): max 1ᵀα − ½(yᵀα)² − (λm/2)‖α‖² + τ over α ≥ 0, ‖u‖ ≤ 1 and
    ½‖R_lᵀZᵀ(y∘α)‖² ≤ (λ_Q/2)(Lu)_l − τ.

    The dual A.18 belongs to min ½(‖w‖² + b²) + (1/(2λm)) Σ ξ_i² s.t. y_i f(x_i) ≥ 1 − ξ_i, so
    w = Σ α_i y_i φ(x_i), b = yᵀα and f(x) = Σ_j α_j y_j k(x, x_j) + yᵀα (002 Example 12; the
    stray "z = γ1 + η − ξ" printed under (3.10) belongs to Example 13 and is not used). The
    thesis sets 1/(λm) = C = 100 (§3.2).

    Parameters
    ----------
    C : float > 0, default 100
        1/(λm). The ``cvxpy.Parameter`` is ``ridge`` = λm = 1/C (CVXPY cannot divide by a
        parameter), so sweep with ``problem.set(ridge=1/C)``.
    lambda_Q : float ≥ 0, default 1
    Others as for :func:`nusvm`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = l2svm(X[:40], y[:40], eta=1e-4).solve()
    >>> sol.status
    'optimal'
    """
    Xa, y_pm = _validate_xy(X, y)
    _check_form(form)
    ridge_val, lq_val = 1.0 / _check_C(C), _check_lambda_Q(lambda_Q)
    m = Xa.shape[0]
    B = _basis(Xa, hyperkernel, basis, eta, max_terms)
    kernels = B.kernels()
    ridge = cp.Parameter(nonneg=True, name="ridge", value=ridge_val)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=lq_val)
    data: dict[str, Any] = {
        "X": Xa,
        "y": y_pm,
        "basis": B,
        "scale": 1.0,
        "parameter_checks": {"ridge": _check_ridge, "lambda_Q": _check_lambda_Q},
    }
    if form == "sdp":
        beta = cp.Variable(B.size, nonneg=True, name="beta")
        eta_v = cp.Variable(m, nonneg=True, name="eta")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        # H(β) = Σβ_l Y K_l Y + y yᵀ + λm I: the 1 1ᵀ term of (3.10) is outside the sum because 1ᵀβ = 1
        H = _combination(kernels * np.outer(y_pm, y_pm), beta) + np.outer(y_pm, y_pm) + ridge * np.eye(m)
        cons: dict[str, Any] = {
            "lmi": _lmi_of(H, eta_v + 1.0, t1),
            "hyper_norm": cp.norm(B.L.T @ beta, 2) <= t2,
            "scale": cp.sum(beta) == 1,
        }
        prob = cp.Problem(cp.Minimize(0.5 * t1 + lq_par / 2 * t2), list(cons.values()))
        variables = {"beta": beta, "eta": eta_v, "t1": t1, "t2": t2}
        recover = _recover_l2svm_sdp
    else:
        alpha = cp.Variable(m, nonneg=True, name="alpha")
        u = cp.Variable(B.L.shape[1], name="u")
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            cp.multiply(y_pm, alpha), kernels, B.L, lq_par / 2, tau, u, terms=terms, factor_tol=factor_tol, data=data
        )
        cons = {"ball": cp.norm(u, 2) <= 1, "kernel_cones": cones}
        obj = cp.sum(alpha) - 0.5 * cp.square(y_pm @ alpha) - ridge / 2 * cp.sum_squares(alpha) + tau
        prob = cp.Problem(cp.Maximize(obj), [cons["ball"], *cones])
        variables = {"alpha": alpha, "u": u, "tau": tau}
        recover = _recover_l2svm_socp
    return _problem(
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


def _recover_l2svm_sdp(problem: KernelProblem) -> Model:
    B, y = problem.data["basis"], problem.data["y"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    m = y.shape[0]
    H = (B.learned_kernel(beta) + 1.0) * np.outer(y, y) + _num(problem.parameters["ridge"].value) * np.eye(m)
    alpha = _inner_argmax(problem.constraints["lmi"], H, _arr(problem.variables["eta"].value) + 1.0)
    return _model(B, beta, alpha, alpha * y, -float(y @ alpha))  # f = K(α∘y) + yᵀα


def _recover_l2svm_socp(problem: KernelProblem) -> Model:
    B, y = problem.data["basis"], problem.data["y"]
    alpha = _arr(problem.variables["alpha"].value)
    beta = cone_beta(problem)
    return _model(B, beta, alpha, alpha * y, -float(y @ alpha))


# ----------------------------------------------------------------------------- one-class (3.11)
def one_class(
    X: ArrayLike,
    hyperkernel: Hyperkernel | None = None,
    *,
    nu: float = 0.1,
    lambda_Q: float = 1.0,
    form: Form = "socp",
    basis: HyperkernelBasis | str | None = None,
    eta: float = 1e-6,
    max_terms: int | None = None,
    factor_tol: float = 1e-10,
    terms: ArrayLike | None = None,
) -> KernelProblem:
    """Hyperkernel single-class SVM / novelty detection (002 eq. 3.11; A.23).

    Saddle problem: min_β max_α −½αᵀK(β)α + (λ_Q/(2ν))‖Lᵀβ‖ over 1ᵀα = 1, 0 ≤ α ≤ 1/(νm).
    CVXPY cannot divide by the parameter ν, so both forms are the thesis' problem multiplied
    by ν (same minimisers; **the objective reported is ν times that of (3.11)**):

    SDP: min ν(½t₁ − γ) + (1/m)1ᵀξ + (λ_Q/2)t₂ over η, ξ, β ≥ 0, γ free, ‖Lᵀβ‖ ≤ t₂,
    1ᵀβ = 1, [[K(β), z], [zᵀ, t₁]] ⪰ 0, z = γ1 + η − ξ.
    SOCP: max τ over 1ᵀα = 1, 0 ≤ να ≤ 1/m, ‖u‖ ≤ 1, (ν/2)‖R_lᵀZᵀα‖² ≤ (λ_Q/2)(Lu)_l − τ.

    The novelty score is g(x) = Σ_j α_j k(x, x_j) − ρ with ρ = γ; on the training points it is
    η − ξ (002 Example 13): positive inside the support, negative for the outliers.

    Parameters
    ----------
    X : array (m, d), m ≥ 2
    nu : float in (0, 1], default 0.1 (the thesis' novelty-detection setting, §3.2.5)
        A ``cvxpy.Parameter``: an upper bound on the fraction of outliers.
    lambda_Q : float ≥ 0, default 1
    Others as for :func:`nusvm`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, _ = load_breast_cancer(return_X_y=True)
    >>> sol = one_class(X[:40], eta=1e-4).solve()
    >>> sol.status, round(float(sol.alpha.sum()), 6)
    ('optimal', 1.0)
    """
    Xa = as_matrix(X, "X")
    if Xa.shape[0] < 2:
        raise DataError(
            f"one-class data needs at least 2 samples to describe a support, got {Xa.shape[0]} sample; "
            "collect more points"
        )
    _check_form(form)
    nu_val, lq_val = _check_nu(nu), _check_lambda_Q(lambda_Q)
    m = Xa.shape[0]
    B = _basis(Xa, hyperkernel, basis, eta, max_terms)
    kernels = B.kernels()
    nu_par = cp.Parameter(nonneg=True, name="nu", value=nu_val)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=lq_val)
    data: dict[str, Any] = {
        "X": Xa,
        "basis": B,
        "scale": 1.0,
        "parameter_checks": {"nu": _check_nu, "lambda_Q": _check_lambda_Q},
    }
    if form == "sdp":
        beta = cp.Variable(B.size, nonneg=True, name="beta")
        gamma = cp.Variable(name="gamma")
        eta_v = cp.Variable(m, nonneg=True, name="eta")
        xi = cp.Variable(m, nonneg=True, name="xi")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        cons: dict[str, Any] = {
            "lmi": _lmi_of(_combination(kernels, beta), gamma + eta_v - xi, t1),
            "hyper_norm": cp.norm(B.L.T @ beta, 2) <= t2,
            "scale": cp.sum(beta) == 1,
        }
        obj = nu_par * (0.5 * t1 - gamma) + cp.sum(xi) / m + lq_par / 2 * t2
        prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
        variables = {"beta": beta, "gamma": gamma, "eta": eta_v, "xi": xi, "t1": t1, "t2": t2}
        recover = _recover_one_class_sdp
    else:
        alpha = cp.Variable(m, nonneg=True, name="alpha")
        u = cp.Variable(B.L.shape[1], name="u")
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            alpha, kernels, B.L, lq_par / 2, tau, u, terms=terms, factor_tol=factor_tol, data=data, scale=nu_par
        )
        cons = {
            "box": nu_par * alpha <= 1.0 / m,
            "normalise": cp.sum(alpha) == 1,
            "ball": cp.norm(u, 2) <= 1,
            "kernel_cones": cones,
        }
        prob = cp.Problem(cp.Maximize(tau), [cons["box"], cons["normalise"], cons["ball"], *cones])
        variables = {"alpha": alpha, "u": u, "tau": tau}
        recover = _recover_one_class_socp
    return _problem(
        prob,
        "hyperkernel one-class SVM",
        "002 eq. (3.11)",
        form,
        variables,
        {"nu": nu_par, "lambda_Q": lq_par},
        cons,
        recover,
        data,
    )


def _recover_one_class_sdp(problem: KernelProblem) -> Model:
    B = problem.data["basis"]
    beta = np.clip(_arr(problem.variables["beta"].value), 0.0, None)
    v = problem.variables
    gamma = _num(v["gamma"].value)
    z = gamma + _arr(v["eta"].value) - _arr(v["xi"].value)
    alpha = _inner_argmax(problem.constraints["lmi"], B.learned_kernel(beta), z)
    return _model(B, beta, alpha, alpha, gamma)


def _recover_one_class_socp(problem: KernelProblem) -> Model:
    """ρ = −(multiplier of 1ᵀα = 1)/ν: stationarity in α gives νK(β)α = −ν_eq 1 + η' − νξ'."""
    B = problem.data["basis"]
    alpha = _arr(problem.variables["alpha"].value)
    beta = cone_beta(problem)
    nu = _num(problem.parameters["nu"].value)
    rho = -_num(problem.constraints["normalise"].dual_value) / nu
    return _model(B, beta, alpha, alpha, rho)


# ----------------------------------------------------------------------------- ν-regression (3.12)
def nu_regression(
    X: ArrayLike,
    y: ArrayLike,
    hyperkernel: Hyperkernel | None = None,
    *,
    C: float = 100.0,
    nu: float = 0.3,
    lambda_Q: float = 1.0,
    form: Form = "socp",
    basis: HyperkernelBasis | str | None = None,
    eta: float = 1e-6,
    max_terms: int | None = None,
    factor_tol: float = 1e-10,
    terms: ArrayLike | None = None,
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
    SOCP: max yᵀ(a* − a) + c·τ over 0 ≤ a, a* ≤ 1/m, 1ᵀ(a + a*) ≤ ν, 1ᵀa = 1ᵀa*, ‖u‖ ≤ 1,
    (Cm/2)‖R_lᵀZᵀ(a* − a)‖² ≤ (λ_Q/2)(Lu)_l − τ, with c = stddev(y) (sample, ddof = 1).

    The regression function is f(x) = Σ_j (α*_j − α_j) k(x, x_j) − γ, and χ is the tube width ε.
    ``Solution.alpha`` is the m-vector α* − α for ``form="sdp"`` (the SDP does not separate them)
    and the 2m-vector Cm·[a; a*] = [α; α*] for ``form="socp"``; the regression function uses
    α* − α in both.

    Parameters
    ----------
    y : array (m,)
        Real targets, not all equal.
    C : float > 0, default 100
        1/(λm); a ``cvxpy.Parameter``.
    nu : float in (0, 1], default 0.3
        A ``cvxpy.Parameter``.
    lambda_Q : float ≥ 0, default 1
    Others as for :func:`nusvm`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, (40, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    >>> sol = nu_regression(X, y, eta=1e-4).solve()
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
    _check_form(form)
    C_val, nu_val, lq_val = _check_C(C), _check_nu(nu), _check_lambda_Q(lambda_Q)
    m = Xa.shape[0]
    B = _basis(Xa, hyperkernel, basis, eta, max_terms)
    kernels = B.kernels()
    C_par = cp.Parameter(nonneg=True, name="C", value=C_val)
    nu_par = cp.Parameter(nonneg=True, name="nu", value=nu_val)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=lq_val)
    data: dict[str, Any] = {
        "X": Xa,
        "y": y_arr,
        "basis": B,
        "scale": c,
        "parameter_checks": {"C": _check_C, "nu": _check_nu, "lambda_Q": _check_lambda_Q},
    }
    if form == "sdp":
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
        recover = _recover_regression_sdp
    else:
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
        prob = cp.Problem(
            cp.Maximize(y_arr @ (a_star - a) + c * tau),
            [*cons["box"], cons["tube"], cons["balance"], cons["ball"], *cones],
        )
        variables = {"a": a, "a_star": a_star, "u": u, "tau": tau}
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
    beta = cone_beta(problem)
    coef = a_hat[m:] - a_hat[:m]
    offset = _num(problem.constraints["balance"].dual_value)
    return _model(B, beta, a_hat, coef, offset, epsilon=_num(problem.constraints["tube"].dual_value))


# ----------------------------------------------------------------------------- alignment (3.13)
def alignment(
    X: ArrayLike,
    y: ArrayLike,
    hyperkernel: Hyperkernel | None = None,
    *,
    lambda_Q: float = 1.0,
    ridge: float = 0.0,
    form: Form = "socp",
    basis: HyperkernelBasis | str | None = None,
    eta: float = 1e-6,
    max_terms: int | None = None,
    factor_tol: float = 1e-10,
    range_tol: float = 1e-6,
) -> KernelProblem:
    """Hyperkernel kernel-target alignment: learn a kernel matrix only (002 eq. 3.13).

    The SDP printed as (3.13) is min ½t₁ + (λ_Q/2)t₂ over β ≥ 0, ‖Lᵀβ‖² ≤ t₂ (squared, as
    printed), [[K(β), y], [yᵀ, t₁]] ⪰ 0, i.e. min ½ yᵀK(β)†y + (λ_Q/2)‖Lᵀβ‖²; the sentence
    before it states −½yᵀKy, which is linear in β and would not need an SDP. We implement the
    SDP as printed, plus the scale-breaking 1ᵀβ = 1 of §3.1 and an optional ``ridge`` ε ≥ 0
    (K(β) + εI in the LMI; 0 = as printed).

    SOCP (derived): ½yᵀ(K + εI)†y = max_α yᵀα − ½αᵀKα − (ε/2)‖α‖², and the squared regulariser's
    conjugate gives max yᵀα − (ε/2)‖α‖² − (λ_Q/2)‖u‖² + τ over ½‖R_lᵀZᵀα‖² ≤ λ_Q(Lu)_l − τ
    (u free). With ε = 0, α is restricted to the range of Σ_l K_l (the Moore-Penrose reading
    the thesis gives in A.2), and y is first projected there in both forms.

    Parameters
    ----------
    y : array (m,)
        Two classes (mapped to ±1), or real targets (more than two distinct numbers), which
        are centred and scaled to unit standard deviation.
    lambda_Q : float ≥ 0, default 1
        A ``cvxpy.Parameter``.
    ridge : float ≥ 0, default 0
        A ``cvxpy.Parameter`` when positive. At 0 every learned kernel must reach y:
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
    >>> sol = alignment(X[:30], y[:30], ridge=1e-3, eta=1e-4).solve()
    >>> sol.status, sol.kernel_matrix.shape
    ('optimal', (30, 30))
    """
    Xa, y_pm = _alignment_target(X, y)
    _check_form(form)
    lq_val = _check_lambda_Q(lambda_Q)
    ridge_val = check_positive(ridge, "ridge", allow_zero=True)
    m = Xa.shape[0]
    B = _basis(Xa, hyperkernel, basis, eta, max_terms)
    kernels = B.kernels()
    factor = shared_factor(kernels, factor_tol)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=lq_val)
    params: dict[str, cp.Parameter] = {"lambda_Q": lq_par}
    checks: dict[str, Callable[[Any], float]] = {"lambda_Q": _check_lambda_Q}
    Q = factor.Z / np.linalg.norm(factor.Z, axis=0)  # orthonormal basis of range(Σ_l K_l)
    target = y_pm
    ridge_par: cp.Parameter | None = None
    if ridge_val > 0:
        ridge_par = cp.Parameter(nonneg=True, name="ridge", value=ridge_val)
        params["ridge"] = ridge_par
        checks["ridge"] = _check_ridge
    else:
        target = Q @ (Q.T @ y_pm)
        miss = float(np.linalg.norm(y_pm - target) / np.linalg.norm(y_pm))
        if miss > range_tol:
            raise SingularKernelError(
                f"every kernel of this basis is singular on y (rank {Q.shape[1]} of {m}; "
                f"‖y − Py‖/‖y‖ = {miss:.2g} > range_tol = {range_tol:g}), so ½yᵀK(β)†y is infinite: "
                "pass ridge > 0, add basis terms (lower eta, raise max_terms) or use narrower hyperkernel widths"
            )
    data: dict[str, Any] = {
        "X": Xa,
        "y": y_pm,
        "basis": B,
        "scale": 1.0,
        "parameter_checks": checks,
        "target": target,
        "factor_rank": Q.shape[1],
    }
    if form == "sdp":
        beta = cp.Variable(B.size, nonneg=True, name="beta")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        K = _combination(kernels, beta)
        if ridge_par is not None:
            K = K + ridge_par * np.eye(m)
        cons: dict[str, Any] = {
            "lmi": _lmi_of(K, cp.Constant(target), t1),
            "hyper_norm": cp.sum_squares(B.L.T @ beta) <= t2,
            "scale": cp.sum(beta) == 1,
        }
        prob = cp.Problem(cp.Minimize(0.5 * t1 + lq_par / 2 * t2), list(cons.values()))
        variables: dict[str, Any] = {"beta": beta, "t1": t1, "t2": t2}
        recover = _recover_alignment_sdp
    else:
        u = cp.Variable(B.L.shape[1], name="u")
        tau = cp.Variable(name="tau")
        if ridge_par is not None:
            alpha: cp.Expression = cp.Variable(m, name="alpha")
            extra = -ridge_par / 2 * cp.sum_squares(alpha)
            variables = {"alpha": alpha, "u": u, "tau": tau}
        else:
            g = cp.Variable(Q.shape[1], name="g")
            alpha = Q @ g
            extra = cp.Constant(0.0)
            variables = {"g": g, "u": u, "tau": tau}
        cones = _socp_kernel_cones(alpha, factor, B.L, lq_par, tau, u)
        cons = {"kernel_cones": cones}
        obj = target @ alpha + extra - lq_par / 2 * cp.sum_squares(u) + tau
        prob = cp.Problem(cp.Maximize(obj), cones)
        data["range_basis"] = Q
        recover = _recover_alignment_socp
    return _problem(prob, "hyperkernel alignment", "002 eq. (3.13)", form, variables, params, cons, recover, data)


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
    alpha = _inner_argmax(problem.constraints["lmi"], M, problem.data["target"])
    return Model(alpha=alpha, beta=beta, kernel_matrix=K)


def _recover_alignment_socp(problem: KernelProblem) -> Model:
    B = problem.data["basis"]
    if "alpha" in problem.variables:
        alpha = _arr(problem.variables["alpha"].value)
    else:
        alpha = problem.data["range_basis"] @ _arr(problem.variables["g"].value)
    beta = cone_beta(problem)
    return Model(alpha=alpha, beta=beta, kernel_matrix=B.learned_kernel(beta))

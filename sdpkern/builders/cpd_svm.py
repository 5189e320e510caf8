"""SVMs with conditionally positive definite kernels (000 §6) as CVXPY problems.

Notation: Φ = [φ(x_i, x_j)] (n×n, *not* PSD), P = [p_k(x_j)] the polynomial basis of the
kernel's space 𝒫 (000 Definition 4.1), P ≈ Q R with Q (n×k) orthonormal (k = numerical rank
of P, the QR change of variable of 000 §6.1), and P⊥ (n×(n−k)) an orthonormal basis of the
null space of Pᵀ.

Why a factor of P⊥ᵀΦP⊥
-----------------------
αᵀΦα is not convex in α (Φ has negative eigenvalues; a thin-plate Φ has zero trace), so
``quad_form(α, Φ)`` is not DCP. But every feasible α satisfies Pᵀα = 0, i.e. α = P⊥γ, and
A = P⊥ᵀΦP⊥ is PSD because φ is c.p.d. (000 Definition 4.1). With A = FFᵀ (eigenvalue
factor), αᵀΦα = ‖Fᵀγ‖², a sum of squares. The builders therefore optimise over γ (or, in the
dual, write the quadratic through Wᵀ(y∘μ) with W = P⊥F, valid on the constraint set).

Formulations
------------
:func:`squared_hinge`            000 eq. (14): min λ αᵀΦα + Σ max(0, 1 − y_i f_i)²,
                                 f = Φα + Qβ̄, α = P⊥γ; β = R⁺β̄ (minimum norm).
:func:`squared_hinge_beta_zero`  000 §6.2: the same over α ∈ 𝒫⊥ with β = 0.
:func:`hinge_dual`               L1 (hinge) SVM min λ αᵀΦα + Σ max(0, 1 − y_i f_i), dual
                                 max Σμ − (1/4λ)(y∘μ)ᵀΦ(y∘μ), 0 ≤ μ ≤ 1, Pᵀ(y∘μ) = 0,
                                 α = y∘μ/(2λ); the objective is multiplied by λ to stay DPP.
:func:`hinge_primal`             the same hinge problem in the primal (a cross-check).

C is scikit-learn's (docs/conventions.md): 000 eq. (14) weighs λ αᵀΦα against the summed loss,
and dividing ½‖f‖² + C Σ loss by 2C gives λ = 1/(2C) (for the hinge and the squared hinge
alike). The problems hold λ as a ``cvxpy.Parameter`` named ``"lam"``; ``problem.set(C=...)``
(or ``lam=...``) re-solves without recompiling. ``lam=`` as a builder argument is deprecated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import qr
from scipy.optimize import linprog

from .._validation import DEPRECATED, as_matrix, as_sample_weight, binary_labels, check_positive, take_deprecated
from ..errors import NotPSDError, ParameterError
from ..kernels.base import Kernel
from ..kernels.cpd import PolynomialFactor, ThinPlate, cpd_decision, polynomial_factor, squared_hinge_objective
from ..problem import KernelProblem, Model, ProblemData

__all__ = [
    "CPDData", "CPDProblemData", "cpd_data", "squared_hinge", "squared_hinge_beta_zero", "hinge_dual", "hinge_primal",
]

Array = NDArray[np.float64]
_OWNER = "sdpkern.builders.cpd_svm"


@dataclass
class CPDData:
    """Everything the c.p.d. builders share: inputs, ±1 labels, Φ, the QR of P, P⊥ and F."""

    X: Array
    y: Array
    classes: NDArray[Any]
    kernel: Kernel
    Phi: Array
    factor: PolynomialFactor
    Pperp: Array
    F: Array

    @property
    def Q(self) -> Array:
        return self.factor.Q


def _check_kernel(kernel: Any) -> Kernel:
    if not isinstance(kernel, Kernel):
        raise ParameterError(f"kernel must be an sdpkern Kernel (e.g. ThinPlate(2)), got {type(kernel).__name__}")
    return kernel


def cpd_data(X: ArrayLike, y: ArrayLike, kernel: Kernel | None = None) -> CPDData:
    """Validate inputs and build Φ, P = QR, P⊥ and the factor F with P⊥ᵀΦP⊥ = FFᵀ.

    Raises
    ------
    DataError
        NaN/inf or wrong shapes in X or y.
    LabelError
        y does not have exactly two classes.
    ParameterError
        The kernel is not c.p.d. in this dimension (e.g. ThinPlate with 2m ≤ d).
    NotPSDError
        P⊥ᵀΦP⊥ has a clearly negative eigenvalue (the kernel is not c.p.d. w.r.t. its space).
    """
    Xa = as_matrix(X, "X")
    kern = _check_kernel(ThinPlate(2) if kernel is None else kernel)
    ypm, classes = binary_labels(y, "y")
    if ypm.shape[0] != Xa.shape[0]:
        from ..errors import DataError

        raise DataError(f"y has {ypm.shape[0]} entries but X has {Xa.shape[0]} rows")
    factor = polynomial_factor(Xa, kern)
    Phi = kern(Xa)
    n, k = factor.Q.shape
    if k:
        Qfull = qr(factor.Q, mode="full")[0]
        Pperp = np.ascontiguousarray(Qfull[:, k:])
    else:
        Pperp = np.eye(n)
    A = Pperp.T @ Phi @ Pperp
    A = 0.5 * (A + A.T)
    w, V = np.linalg.eigh(A) if A.size else (np.zeros(0), np.zeros((0, 0)))
    top = float(np.abs(w).max(initial=0.0))
    if w.size and w[0] < -1e-8 * max(top, 1.0):
        raise NotPSDError(
            f"P_perp^T Phi P_perp has eigenvalue {w[0]:.3g} < 0: the kernel is not conditionally positive definite "
            "with respect to its polynomial space on these points",
            min_eigenvalue=float(w[0]),
        )
    keep = w > 1e-12 * max(top, 1e-300)
    F = V[:, keep] * np.sqrt(w[keep])
    return CPDData(Xa, ypm, classes, kern, Phi, factor, Pperp, F)


def _value(p: cp.Parameter) -> float:
    v = p.value
    if v is None:
        raise ParameterError(f"parameter {p.name()!r} has no value")
    return float(np.asarray(v))


def _lam_parameter(owner: str, lam: Any, C: float) -> cp.Parameter:
    """The λ parameter of 000 eq. (14): λ = 1/(2C), or the deprecated ``lam`` as given."""
    C_val = check_positive(C, "C")
    value = take_deprecated(owner, "lam", lam, "C", 1.0 / (2.0 * C_val), stacklevel=5)
    return cp.Parameter(nonneg=True, name="lam", value=check_positive(value, "lam"))


def _lam_of_C(C: Any) -> dict[str, float]:
    """``problem.set(C=...)``: λ = 1/(2C) (000 eq. 14 against scikit-learn's C)."""
    return {"lam": 1.0 / (2.0 * check_positive(C, "C"))}


@dataclass
class CPDProblemData(ProblemData):
    """The c.p.d. builders' inverse data (``KernelProblem.data``), typed; dict-style access stays
    for one release (:class:`~sdpkern.problem.ProblemData`; ``None`` reads as absent).

    Attributes
    ----------
    cpd : CPDData
        The inputs, ±1 labels, Φ and the factors of P the recovery step reads (:func:`cpd_data`).
    """

    cpd: CPDData | None = None
    parameter_checks: dict[str, Any] = field(default_factory=lambda: {"lam": lambda v: check_positive(v, "lam")})
    derived_parameters: dict[str, Any] = field(default_factory=lambda: {"C": _lam_of_C})


def _data(D: CPDData) -> CPDProblemData:
    data = CPDProblemData(cpd=D)
    data["feasible_bounded"] = True  # every c.p.d. builder is a soft-margin SVM (000 eqs. 14-16)
    return data


def _model(
    data: CPDData, alpha: Array, beta_bar: Array, beta_zero: bool, lam: float, sample_weight: Array | None = None,
    **extras: Any,
) -> Model:
    beta = np.zeros(data.factor.space.dim) if beta_zero else data.factor.beta_from_bar(beta_bar)
    kernel, X, factor = data.kernel, data.X, data.factor

    def decision(Xnew: ArrayLike) -> Array:
        return cpd_decision(kernel, X, alpha, factor, beta, Xnew)

    f = data.Phi @ alpha + (data.Q @ beta_bar if beta_bar.size else 0.0)
    extras.setdefault("objective_eq14", squared_hinge_objective(data.Phi, alpha, f, data.y, lam, sample_weight))
    return Model(
        alpha=alpha,
        offset=None,
        beta=beta,
        kernel_matrix=data.Phi,
        decision=decision,
        extras={"beta_bar": beta_bar, "factor": factor, "train_decision": f, "classes": data.classes, **extras},
    )


def _setup(
    X: ArrayLike, y: ArrayLike, kernel: Kernel | None, lam: Any, C: float, data: CPDData | None
) -> tuple[CPDData, cp.Parameter]:
    """What every builder starts with: the shared data (built unless given) and λ from C or ``lam``."""
    D = cpd_data(X, y, kernel) if data is None else data
    # the deprecation warning points five frames up (take_deprecated, _lam_parameter, _setup,
    # the builder): at the user's call
    return D, _lam_parameter(_OWNER, lam, C)


def _problem(
    D: CPDData, prob: cp.Problem, lam_p: cp.Parameter, variables: dict[str, cp.Variable],
    constraints: dict[str, Any], recover: Any, formulation: str, source: str,
) -> KernelProblem:
    """The :class:`KernelProblem` of every c.p.d. builder (λ its one parameter, ``form="qp"``)."""
    return KernelProblem(
        cvxpy=prob,
        formulation=formulation,
        source=source,
        form="qp",
        variables=variables,
        parameters={"lam": lam_p},
        constraints=constraints,
        recover=recover,
        data=_data(D),
    )


def _primal(
    D: CPDData, lam_p: cp.Parameter, *, squared: bool, beta_zero: bool, formulation: str, source: str,
    sample_weight: Array | None = None,
) -> KernelProblem:
    """min λ‖Fᵀγ‖² + Σ w_i loss(1 − y∘(ΦP⊥γ + Qβ̄))_i over γ (and β̄ unless ``beta_zero``), α = P⊥γ.

    The loss is the squared hinge (000 eq. 14) when ``squared`` and the hinge otherwise; with
    ``beta_zero`` the polynomial part is fixed at β = 0 (000 §6.2); w = ``sample_weight`` (all
    ones by default).

    Solved in the coordinates v = Fᵀγ (γ = F(FᵀF)⁻¹v, :func:`_whitened_coordinates`): the same
    program, with regulariser ‖v‖² and margins ΦP⊥F(FᵀF)⁻¹v + Qβ̄. In γ the margins' matrix ΦP⊥
    carries the kernel's spectrum once more than its factor F, squaring the condition number a
    first-order solver (SCS) works against; in v it carries it once (docs/cpd.md, "Measurements").
    """
    k = D.Q.shape[1]
    v = cp.Variable(D.F.shape[1], name="v")
    G = _whitened_coordinates(D.F)
    gamma = G @ v
    f = (D.Phi @ D.Pperp @ G) @ v
    beta_bar = cp.Variable(k, name="beta_bar") if k and not beta_zero else None
    if beta_bar is not None:
        f = f + D.Q @ beta_bar
    margin = cp.pos(1 - cp.multiply(D.y, f))
    if sample_weight is None:
        loss = cp.sum_squares(margin) if squared else cp.sum(margin)
    elif squared:  # Σ w ξ² = ‖√w ∘ ξ‖²
        loss = cp.sum_squares(cp.multiply(np.sqrt(sample_weight), margin))
    else:
        loss = sample_weight @ margin
    reg = cp.sum_squares(v) if D.F.shape[1] else cp.Constant(0.0)  # ‖Fᵀγ‖² = ‖v‖²
    cons: dict[str, Any] = {}
    radius = None if beta_bar is None else _separating_radius(D, sample_weight)
    if radius is not None:
        cons["separating_ball"] = cp.norm(beta_bar, 2) <= radius
    prob = cp.Problem(cp.Minimize(lam_p * reg + loss), list(cons.values()))

    def recover(kp: KernelProblem) -> Model:
        g = np.asarray(gamma.value, dtype=np.float64)
        bb = np.asarray(beta_bar.value, dtype=np.float64) if beta_bar is not None else np.zeros(k)
        # the hinge primal reports its optimum under the name the dual's recovery uses
        extras = {} if squared else {"primal_objective": float(kp.cvxpy.value)}
        return _model(D, D.Pperp @ g, bb, beta_zero, _value(lam_p), sample_weight, gamma=g, **extras)

    variables = {"gamma": gamma} | ({"beta_bar": beta_bar} if beta_bar is not None else {})
    return _problem(D, prob, lam_p, variables, cons, recover, formulation, source)


def _whitened_coordinates(F: Array) -> Array:
    """G = F(FᵀF)⁻¹, so that γ = Gv has Fᵀγ = v (F = V√Λ from :func:`cpd_data` has orthogonal
    columns: FᵀF = Λ is diagonal).

    γ is confined to F's range. The directions :func:`cpd_data` drops (eigenvalues of P⊥ᵀΦP⊥
    below 1e-12 of the largest) are not regularised by ‖Fᵀγ‖², but ΦP⊥ does not annihilate them
    exactly: a free γ there moves the margins by (rounding-size) × ‖γ‖ at no cost. Kept as a free
    variable, that direction let Clarabel reach ‖γ‖ = 1.2e12 and an objective 0.9 % below the
    problem's (status sweep, β = 0 squared hinge, ionosphere m = 253, C = 0.0175, whose one
    dropped eigenvalue is 2.7e-13 of 720), a polynomial added to f with β fixed at 0. In exact
    arithmetic such a direction has Φ(P⊥γ) ∈ range(P), which is 0 for distinct points and
    duplicates alike with the thin-plate kernel.
    """
    return F / np.sum(F * F, axis=0) if F.shape[1] else np.zeros((F.shape[0], 0))


def _separating_radius(D: CPDData, sample_weight: Array | None) -> float | None:
    """A radius R for β̄ that leaves the optimum of :func:`_primal` unchanged when the polynomial
    part alone separates the (positively weighted) points; None when it does not.

    Why: if some β̄₀ has y∘Qβ̄₀ ≥ 1, then γ = 0, β̄ = β̄₀ has loss 0 and regulariser 0, so the
    optimum is 0 (for every λ) and its set {γ: Fᵀγ = 0} × {β̄: y∘Qβ̄ ≥ 1} is unbounded. An
    interior-point method then follows the central path off to infinity (its gap falls slowly
    while ‖β̄‖ grows, and it stops short of certifying). Bounding ‖β̄‖ ≤ R = 2‖β̄₀‖ keeps 2β̄₀ (margins
    ≥ 2(1 − the LP's tolerance) > 1, loss 0) feasible, so the optimum stays 0 and its set
    becomes bounded. β̄₀ comes from an LP (HiGHS) minimising max abs(β̄) subject to y∘Qβ̄ ≥ 1.
    """
    keep = np.ones(D.y.shape[0], dtype=bool) if sample_weight is None else sample_weight > 0
    A = D.y[keep, None] * D.Q[keep]
    k = D.Q.shape[1]
    if k == 0 or not keep.any():
        return None
    # variables (β̄, t): min t  s.t.  −Aβ̄ ≤ −1,  ±β̄ − t ≤ 0
    c = np.r_[np.zeros(k), 1.0]
    eye = np.eye(k)
    A_ub = np.block([[-A, np.zeros((A.shape[0], 1))], [eye, -np.ones((k, 1))], [-eye, -np.ones((k, 1))]])
    b_ub = np.r_[-np.ones(A.shape[0]), np.zeros(2 * k)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * k + [(0, None)], method="highs")
    if res.status != 0:  # infeasible (not separable) or a failed LP: the problem as written
        return None
    return 2.0 * max(float(np.linalg.norm(res.x[:k])), 1.0)


# ----------------------------------------------------------------------------- squared hinge
def squared_hinge(
    X: ArrayLike, y: ArrayLike, kernel: Kernel | None = None, lam: Any = DEPRECATED, *, C: float = 0.5,
    data: CPDData | None = None, sample_weight: ArrayLike | None = None,
) -> KernelProblem:
    """The squared-hinge c.p.d. SVM over F_φ ⊕ 𝒫 (000 eq. 14) as a CVXPY problem.

    minimise  λ ‖Fᵀγ‖² + ‖max(0, 1 − y∘(ΦP⊥γ + Qβ̄))‖²   over γ, β̄

    where α = P⊥γ (so Pᵀα = 0 holds by construction and αᵀΦα = ‖Fᵀγ‖², F a factor of the PSD
    matrix P⊥ᵀΦP⊥: Φ itself is not PSD) and Qβ̄ = Pβ (000 §6.1's QR change of variable; the
    recovered β = R⁺β̄ is the minimum-norm one). The optimum equals that of
    :func:`sdpkern.native.cpd.cpd_primal_svm`.

    Parameters
    ----------
    X : (n, d) array
    y : (n,) array with two classes
    kernel : Kernel, default ThinPlate(2)
        A c.p.d. kernel (or a p.d. one: empty polynomial space).
    C : float > 0, default 0.5
        scikit-learn's C (the loss C Σ max(0, 1 − y_i f_i)²); eq. (14)'s λ = 1/(2C), held as a
        ``cvxpy.Parameter`` named ``"lam"`` (``problem.set(C=...)`` works). The default is λ = 1.
    lam : float, deprecated
        λ itself (FutureWarning; use ``C = 1/(2λ)``).
    sample_weight : (n,) array, optional
        Per-point weights w_i ≥ 0 of the loss, Σ w_i max(0, 1 − y_i f_i)² (point i's C is C·w_i,
        docs/conventions.md; a weight-2 point is a repeated point).

    Returns
    -------
    KernelProblem
        Variables ``gamma`` and ``beta_bar``; the recovery gives α, β and a decision function
        (its ``objective_eq14`` includes the weights).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2)); y = np.sign(X[:, 0] * X[:, 1] + 0.1)
    >>> sol = squared_hinge(X, y, C=5.0).solve()
    >>> bool(sol.objective > 0)
    True
    """
    D, lam_p = _setup(X, y, kernel, lam, C, data)
    return _primal(
        D, lam_p, squared=True, beta_zero=False, formulation="c.p.d. squared-hinge SVM over F_phi + P",
        source="000 eq. (14), (15); §6.1", sample_weight=_weights(sample_weight, D),
    )



def squared_hinge_beta_zero(
    X: ArrayLike, y: ArrayLike, kernel: Kernel | None = None, lam: Any = DEPRECATED, *, C: float = 0.5,
    data: CPDData | None = None, sample_weight: ArrayLike | None = None,
) -> KernelProblem:
    """The β = 0 variant (000 §6.2): eq. (14) over {Σ_j α_j φ(·, x_j): α ∈ 𝒫⊥(x_1..x_n)}.

    minimise  λ ‖Fᵀγ‖² + ‖max(0, 1 − y∘(ΦP⊥γ))‖²   over γ, with α = P⊥γ

    (with ``sample_weight``, as in :func:`squared_hinge`, the loss Σ w_i max(0, 1 − y_i f_i)²).
    Its optimum equals the native solver's with ``beta_zero=True`` (step 000 eq. 18).
    """
    D, lam_p = _setup(X, y, kernel, lam, C, data)
    return _primal(
        D, lam_p, squared=True, beta_zero=True, formulation="c.p.d. squared-hinge SVM with beta = 0",
        source="000 §6.2 (eq. 14 over P-perp)", sample_weight=_weights(sample_weight, D),
    )


def _weights(sample_weight: ArrayLike | None, D: CPDData) -> Array | None:
    """The checked per-point weights (``None``: all ones)."""
    w = as_sample_weight(sample_weight, D.y.shape[0])
    return None if w is None else np.asarray(w, dtype=np.float64)



# ----------------------------------------------------------------------------- hinge (L1)
def _beta_bar_for_hinge(D: CPDData, alpha: Array) -> Array:
    """β̄ minimising Σ max(0, 1 − y_i(Φα + Qβ̄)_i) for fixed α (a small LP in k variables).

    Reading β̄ off the "free" support vectors (y_i f_i = 1 where 0 < μ_i < 1) is fragile with an
    interior-point μ; the LP gives the exact minimiser for the recovered α.
    """
    k = D.Q.shape[1]
    if k == 0:
        return np.zeros(0)
    g = D.Phi @ alpha
    b = cp.Variable(k)
    cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - cp.multiply(D.y, g + D.Q @ b))))).solve(solver=cp.CLARABEL)
    return np.asarray(b.value, dtype=np.float64)


def hinge_dual(
    X: ArrayLike, y: ArrayLike, kernel: Kernel | None = None, lam: Any = DEPRECATED, *, C: float = 0.5,
    data: CPDData | None = None,
) -> KernelProblem:
    """The hinge-loss (L1) c.p.d. SVM dual with the extra equality constraints Pᵀ(y∘μ) = 0.

    Primal: min λ αᵀΦα + Σ max(0, 1 − y_i f_i), f = Φα + Pβ, Pᵀα = 0. Its Lagrange dual is

        max  Σ μ_i − (1/(4λ)) (y∘μ)ᵀΦ(y∘μ)   s.t.  0 ≤ μ ≤ 1,  Pᵀ(y∘μ) = 0,

    with α = y∘μ/(2λ) (stationarity in α; the β-stationarity gives Pᵀ(y∘μ) = 0, the c.p.d.
    analogue of yᵀμ = 0). On the feasible set y∘μ = P⊥P⊥ᵀ(y∘μ), so the quadratic is
    ‖Wᵀ(y∘μ)‖² with W = P⊥F, a sum of squares although Φ is not PSD. The objective is multiplied
    by λ (``λ·Σμ − ¼‖Wᵀ(y∘μ)‖²``) so that λ enters as a DPP parameter: ``solution.objective``
    is λ times the hinge primal optimum, which the recovery reports as
    ``model.extras["primal_objective"]``.
    """
    D, lam_p = _setup(X, y, kernel, lam, C, data)
    n, k = D.Q.shape
    mu = cp.Variable(n, name="mu")
    ymu = cp.multiply(D.y, mu)
    W = D.Pperp @ D.F
    quad = cp.sum_squares(W.T @ ymu) if W.shape[1] else cp.Constant(0.0)
    cons = {"box_low": mu >= 0, "box_high": mu <= 1}
    if k:
        cons["polynomial"] = D.Q.T @ ymu == 0
    prob = cp.Problem(cp.Maximize(lam_p * cp.sum(mu) - 0.25 * quad), list(cons.values()))

    def recover(kp: KernelProblem) -> Model:
        lam_v = _value(lam_p)
        m = np.clip(np.asarray(mu.value, dtype=np.float64), 0.0, 1.0)
        alpha = D.y * m / (2.0 * lam_v)
        alpha = D.Pperp @ (D.Pperp.T @ alpha)  # remove solver round-off outside P-perp
        bb = _beta_bar_for_hinge(D, alpha)
        f = D.Phi @ alpha + (D.Q @ bb if k else 0.0)
        primal = lam_v * float(alpha @ D.Phi @ alpha) + float(np.maximum(0.0, 1.0 - D.y * f).sum())
        return _model(
            D, alpha, bb, False, lam_v, mu=m, primal_objective=primal, dual_objective=float(kp.cvxpy.value) / lam_v
        )

    return _problem(
        D, prob, lam_p, {"mu": mu}, cons, recover, "c.p.d. hinge-loss SVM dual",
        "000 §6 (hinge loss of Corollary 2.3) with Theorem 4.6; dual of min λ||P_phi f||^2 + sum hinge",
    )


def hinge_primal(
    X: ArrayLike, y: ArrayLike, kernel: Kernel | None = None, lam: Any = DEPRECATED, *, C: float = 0.5,
    data: CPDData | None = None,
) -> KernelProblem:
    """The hinge-loss c.p.d. SVM in the primal: min λ‖Fᵀγ‖² + Σ max(0, 1 − y∘(ΦP⊥γ + Qβ̄)).

    Its optimum equals :func:`hinge_dual`'s objective divided by λ (strong duality).
    """
    D, lam_p = _setup(X, y, kernel, lam, C, data)
    return _primal(
        D, lam_p, squared=False, beta_zero=False, formulation="c.p.d. hinge-loss SVM (primal)",
        source="000 §6, Theorem 4.6",
    )

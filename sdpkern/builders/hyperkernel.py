"""Hyperkernel learning problems (002 §3.1.2) as SDPs and as equivalent SOCPs.

C-SVM (002 eq. 3.8)
-------------------
With base kernels K_l (PSD, from :class:`~sdpkern.kernels.lowrank.HyperkernelBasis`),
K(β) = Σ_l β_l K_l, G(β) = Y K(β) Y and K̲_SS = L Lᵀ the hyperkernel Gram matrix of the basis,
002 eq. (3.8) reads

    min  ½ t₁ + (C/m) 1ᵀξ + (λ_Q/2) t₂
    s.t. η ≥ 0, ξ ≥ 0, β ≥ 0, ‖Lᵀβ‖ ≤ t₂, 1ᵀβ = 1,
         [[G(β), z], [zᵀ, t₁]] ⪰ 0,   z = γy + 1 + η − ξ.

By the Schur complement and Lagrange duality in (γ, η, ξ), this is
min_β max_α 1ᵀα − ½ αᵀG(β)α + (λ_Q/2)‖Lᵀβ‖ over 0 ≤ α ≤ C/m, yᵀα = 0, with α = G(β)†z and
the offset b = γ: the decision function is f(x) = Σ_j α_j y_j k(x, x_j) − b.

SOCP form (see SPEC "Hyperkernel builders"; Tsang & Kwok 2006 made the same move). The
objective is convex in β (on the compact simplex) and concave in α, so min and max exchange
(Sion). Writing μ = λ_Q/2 and μ‖Lᵀβ‖ = max_{‖u‖≤1} μ uᵀLᵀβ, the inner problem over the simplex
is min_{β∈Δ} Σ_l β_l (μ(Lu)_l − ½ αᵀYK_lYα) = min_l (μ(Lu)_l − ½ αᵀYK_lYα), hence

    max_{α, u, τ}  1ᵀα + τ
    s.t. 0 ≤ α ≤ C/m, yᵀα = 0, ‖u‖ ≤ 1,
         ½ ‖R_lᵀ Zᵀ(y∘α)‖² ≤ μ (L u)_l − τ      for every basis term l,

where K_l = Z R_l R_lᵀ Zᵀ. β comes back as the multipliers of the p cone constraints: the
stationarity condition in τ makes them sum to 1, and they are non-negative.

Shared factor: every K_l is PSD, so its range lies in the range of K_Σ = Σ_l K_l. One factor
K_Σ ≈ Z Zᵀ (r columns, eigenvalues below ``factor_tol``·λ_max dropped) serves all terms:
v = Zᵀ(y∘α) ∈ R^r is computed once, and term l needs only the r×r_l factor R_l of
M_l = Z⁺K_lZ⁺ᵀ. Each cone then acts on an r-vector instead of an m-vector.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

from .._validation import as_matrix, binary_labels, check_positive
from ..errors import DataError, ParameterError, SolverError
from ..kernels.hyperkernels import HarmonicARD, Hyperkernel
from ..kernels.lowrank import HyperkernelBasis, hyperkernel_basis
from ..problem import KernelProblem, Model, Solution

__all__ = [
    "csvm",
    "csvm_active_set",
    "cone_generation",
    "cone_violations",
    "cone_beta",
    "ConeCheck",
    "ActiveSetTrace",
    "make_basis",
    "SharedFactor",
    "shared_factor",
    "ExpansionDecision",
]

Array = NDArray[np.float64]
Form = Literal["sdp", "socp"]


# ----------------------------------------------------------------------------- shared pieces
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


@dataclass(frozen=True)
class SharedFactor:
    """K_Σ ≈ Z Zᵀ and, per basis term, R_l with K_l ≈ Z R_l R_lᵀ Zᵀ (see module docstring)."""

    Z: Array
    R: list[Array]


def shared_factor(kernels: Array, factor_tol: float = 1e-10) -> SharedFactor:
    """Factor a stack of PSD matrices (p, m, m) through one common basis of their ranges.

    Directions of K_Σ = Σ_l K_l with eigenvalue at or below ``factor_tol``·λ_max(K_Σ) are
    dropped from Z, and, per term, eigenvalues of M_l at or below ``factor_tol``·λ_max(M_l) from
    R_l. With the default 1e-10 this is exact to rounding (002 eqs. 3.8-3.13 and their SOCP duals,
    Appendix A.2). A larger ``factor_tol`` is an approximation of the SOCP only: each cone uses
    P K_l P (P the projector on the kept eigenvectors of K_Σ) in place of K_l, so the optimum moves
    by about ``factor_tol``·λ_max(K_Σ)·‖y∘α‖² per cone; the SDP form never uses this factor.

    Measured (the C-SVM, pima, η = 1e-4, HarmonicARD(0.6)): the rank r of Z is m at 1e-10, but
    0.84 m / 0.6 m / 0.45 m at 1e-6 for m = 100 / 200 / 300 and about 40 at 1e-4; the factored
    basis kernels themselves are full rank (k_l = r), so only the cut of Z matters. At m = 100 the
    full SOCP's A has 442k / 371k / 156k nonzeros at 1e-10 / 1e-6 / 1e-4, the solve 1.4× / 4.5×
    faster than at 1e-10, and the optimum moved by 3e-7 / 9e-4 relative. The error depends on the
    formulation: on an m = 40 instance (rank 39 at 1e-6) the C-SVM moved by 9e-6 and the L2-SVM
    by 2e-4 at 1e-6, the L2-SVM by 2e-2 at 1e-4 (tests: ``test_truncated_shared_factor_*``).
    Below m ≈ 60 nothing is cut at 1e-6 or 1e-7, and the defaults keep 1e-10.
    """
    K_sum = kernels.sum(axis=0)
    lam, V = np.linalg.eigh((K_sum + K_sum.T) / 2)
    keep = lam > factor_tol * lam[-1]
    Z = V[:, keep] * np.sqrt(lam[keep])
    Zpinv = V[:, keep].T / np.sqrt(lam[keep])[:, None]  # Z⁺ (rows orthonormal directions, rescaled)
    R: list[Array] = []
    # hundreds of small eigendecompositions: threaded BLAS only adds contention here (measured
    # 60× slower on a loaded 2-core machine)
    with threadpool_limits(limits=1, user_api="blas"):
        for K in kernels:
            M = Zpinv @ K @ Zpinv.T
            mu, W = np.linalg.eigh((M + M.T) / 2)
            k = mu > factor_tol * max(mu[-1], 1e-300)
            R.append(W[:, k] * np.sqrt(mu[k]))
    return SharedFactor(Z=Z, R=R)


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


def _socp_kernel_cones(
    v: cp.Expression,
    factor: SharedFactor,
    L: Array,
    mu: cp.Expression,
    tau: cp.Variable,
    u: cp.Variable,
    terms: NDArray[np.intp] | None = None,
    scale: cp.Expression | None = None,
) -> list[cp.Constraint]:
    """The cones (s/2)‖R_lᵀ Zᵀv‖² ≤ μ(Lu)_l − τ (s = ``scale``, 1 if None), shared by every SOCP form.

    With ``terms``, ``factor.R[i]`` belongs to basis term ``terms[i]`` and only those cones are
    written (the restricted problems of :func:`cone_generation`). A parameter ``scale`` keeps
    the cones DPP where the thesis divides by a parameter.

    Zᵀv stays an expression: introducing it as a variable with a linking equality was measured
    to make Clarabel stall at a 1e-7 gap (status AlmostSolved) on m = 30-40 instances that
    it solves to optimality without the extra variable.
    """
    w = factor.Z.T @ v
    Lu = L @ u
    index = range(len(factor.R)) if terms is None else terms
    out: list[cp.Constraint] = []
    for l, R_l in zip(index, factor.R):
        q = 0.5 * cp.sum_squares(R_l.T @ w)
        out.append((q if scale is None else scale * q) <= mu * Lu[int(l)] - tau)
    return out


@dataclass(frozen=True)
class ConeCheck:
    """How to evaluate an SOCP form's omitted cones at a solved point (:func:`cone_generation`).

    ``v``, ``mu`` and ``scale`` are the expressions the cones were written with (``v.value`` is
    the cone vector after a solve), ``terms`` the basis terms whose cones the problem holds.
    """

    v: cp.Expression
    mu: cp.Expression
    scale: cp.Expression | None
    terms: NDArray[np.intp]


def term_index(terms: ArrayLike | None, p: int) -> NDArray[np.intp]:
    """The sorted basis terms a restricted SOCP keeps (all p when ``terms`` is None)."""
    if terms is None:
        return np.arange(p)
    idx = np.unique(np.asarray(terms, dtype=np.intp).ravel())
    if idx.size == 0 or idx[0] < 0 or idx[-1] >= p:
        raise ParameterError(f"terms must be indices of basis terms in [0, {p}), got {terms!r}")
    return idx


def socp_cones(
    v: cp.Expression,
    kernels: Array,
    L: Array,
    mu: cp.Expression,
    tau: cp.Variable,
    u: cp.Variable,
    *,
    terms: ArrayLike | None,
    factor_tol: float,
    data: dict[str, Any],
    scale: cp.Expression | None = None,
) -> list[cp.Constraint]:
    """The kernel cones of an SOCP form over the basis terms ``terms`` (all if None).

    Factors the kept kernels through one shared basis (:func:`shared_factor`) and records in
    ``data`` what :func:`cone_beta` and :func:`cone_generation` need (``terms``,
    ``factor_rank``, ``cone_check``).
    """
    idx = term_index(terms, kernels.shape[0])
    factor = shared_factor(kernels[idx], factor_tol)
    data["terms"] = idx
    data["factor_rank"] = factor.Z.shape[1]
    data["cone_check"] = ConeCheck(v, mu, scale, idx)
    return _socp_kernel_cones(v, factor, L, mu, tau, u, idx, scale)


def cone_beta(problem: KernelProblem) -> Array:
    """β from a solved SOCP form: the multipliers of its cones, zero for omitted terms."""
    B: HyperkernelBasis = problem.data["basis"]
    beta = np.zeros(B.size)
    duals = [float(np.ravel(c.dual_value)[0]) for c in problem.constraints["kernel_cones"]]
    beta[problem.data.get("terms", np.arange(B.size))] = np.clip(np.asarray(duals, dtype=float), 0.0, None)
    return beta


def _lmi(G_stack: Array, z: cp.Expression, t1: cp.Variable, beta: cp.Variable) -> cp.Constraint:
    """[[Σ_l β_l G_l, z], [zᵀ, t₁]] ⪰ 0 with the G_l given as an (p, m, m) stack."""
    p, m, _ = G_stack.shape
    G = cp.reshape(G_stack.reshape(p, m * m).T @ beta, (m, m), order="C")
    z_col = cp.reshape(z, (m, 1), order="C")
    return cp.bmat([[G, z_col], [z_col.T, cp.reshape(t1, (1, 1), order="C")]]) >> 0


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


# ----------------------------------------------------------------------------- C-SVM
def csvm(
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
    """Hyperkernel C-SVM: learn the kernel and the classifier together (002 eq. 3.8).

    Parameters
    ----------
    X : array (m, d)
    y : array (m,)
        Two classes, any labels (the larger is +1).
    hyperkernel : Hyperkernel, default HarmonicARD(lambda_h=0.6, widths="auto") (002 §3.2)
    C : float > 0
        The C of eq. (3.8): the loss term is (C/m)·1ᵀξ and the dual box 0 ≤ α ≤ C/m, so C = 1/λ
        of eq. (3.1). The thesis' experiments fix the Vapnik-style 1/(λm) = 100 (§3.2), which is
        C = 100·m here; :class:`~sdpkern.estimators.HyperkernelSVC` takes the Vapnik-style C and
        converts. A ``cvxpy.Parameter``.
    lambda_Q : float ≥ 0
        Hyperkernel regularisation. A ``cvxpy.Parameter``.
    form : "socp" or "sdp"
        ``"sdp"`` is (3.8) as written; ``"socp"`` the equivalent cone program of the module
        docstring (same optimum, far faster).
    basis : HyperkernelBasis, "full", "lowrank" or None
        The expansion terms; by default pivoted incomplete Cholesky with tolerance ``eta``
        and at most ``max_terms`` terms (002 §3.2.1).
    factor_tol : float
        Relative eigenvalue cut-off of the SOCP's shared factor (see :func:`shared_factor`):
        1e-10 is exact to rounding; larger values shrink the cones at the price of a documented,
        measured error in the optimum (3e-7 relative at 1e-6 for m = 100 pima).
    terms : array of int, optional
        SOCP only: write the cones of these basis terms only (the others get β_l = 0). This is a
        relaxation of the full SOCP; :func:`cone_generation` grows ``terms`` until no omitted
        cone is violated, which makes its optimum the full problem's.

    Returns
    -------
    KernelProblem
        ``solve()`` gives a Solution with α, offset b, β, the learned kernel matrix and the
        decision function f(x) = Σ_j α_j y_j k(x, x_j) − b through the expansion (002 eq. 2.15).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sol = csvm(X[:40], y[:40], eta=1e-4).solve()
    >>> sol.status, round(float(sol.beta.sum()), 6)
    ('optimal', 1.0)
    """
    Xa, y_pm = _validate_xy(X, y)
    if form not in ("sdp", "socp"):
        raise ParameterError(f"form must be 'sdp' or 'socp', got {form!r}")
    C_val, lq_val = _check_C(C), _check_lambda_Q(lambda_Q)
    hk = hyperkernel if hyperkernel is not None else HarmonicARD(lambda_h=0.6, widths="auto")
    B = make_basis(Xa, hk, basis, eta, max_terms)
    m, p = Xa.shape[0], B.size
    C_par = cp.Parameter(nonneg=True, name="C", value=C_val)
    lq_par = cp.Parameter(nonneg=True, name="lambda_Q", value=lq_val)
    kernels = B.kernels()
    data: dict[str, Any] = {
        "X": Xa,
        "y": y_pm,
        "basis": B,
        "parameter_checks": {"C": _check_C, "lambda_Q": _check_lambda_Q},
    }
    if form == "sdp":
        beta = cp.Variable(p, nonneg=True, name="beta")
        gamma = cp.Variable(name="gamma")
        eta_v = cp.Variable(m, nonneg=True, name="eta")
        xi = cp.Variable(m, nonneg=True, name="xi")
        t1, t2 = cp.Variable(name="t1"), cp.Variable(name="t2")
        z = gamma * y_pm + 1.0 + eta_v - xi
        G_stack = kernels * np.outer(y_pm, y_pm)
        lmi = _lmi(G_stack, z, t1, beta)
        cons = {"lmi": lmi, "hyper_norm": cp.norm(B.L.T @ beta, 2) <= t2, "scale": cp.sum(beta) == 1}
        obj = 0.5 * t1 + C_par * cp.sum(xi) / m + lq_par / 2 * t2
        prob = cp.Problem(cp.Minimize(obj), list(cons.values()))
        variables = {"beta": beta, "gamma": gamma, "eta": eta_v, "xi": xi, "t1": t1, "t2": t2}
        recover = _recover_csvm_sdp
    else:
        alpha = cp.Variable(m, nonneg=True, name="alpha")
        u = cp.Variable(B.L.shape[1], name="u")
        tau = cp.Variable(name="tau")
        cones = socp_cones(
            cp.multiply(y_pm, alpha), kernels, B.L, lq_par / 2, tau, u, terms=terms, factor_tol=factor_tol, data=data
        )
        cons = {
            "box": alpha <= C_par / m,
            "balance": y_pm @ alpha == 0,
            "ball": cp.norm(u, 2) <= 1,
            "kernel_cones": cones,
        }
        prob = cp.Problem(
            cp.Maximize(cp.sum(alpha) + tau),
            [cons["box"], cons["balance"], cons["ball"], *cones],
        )
        variables = {"alpha": alpha, "u": u, "tau": tau}
        recover = _recover_csvm_socp
    return KernelProblem(
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


def _recover_csvm_sdp(problem: KernelProblem) -> Model:
    """α from the LMI's dual Λ = ½[α; −1][α; −1]ᵀ (complementary slackness), b = γ."""
    B: HyperkernelBasis = problem.data["basis"]
    y = problem.data["y"]
    m = y.shape[0]
    beta = np.clip(np.asarray(problem.variables["beta"].value, dtype=float), 0.0, None)
    Lam = problem.constraints["lmi"].dual_value
    alpha = -Lam[:m, m] / Lam[m, m]
    offset = float(np.asarray(problem.variables["gamma"].value, dtype=float).ravel()[0])
    K = B.learned_kernel(beta)
    coef = alpha * y
    decision = ExpansionDecision(B, beta, coef, offset)
    return Model(alpha=alpha, offset=offset, beta=beta, kernel_matrix=K, decision=decision)


def _recover_csvm_socp(problem: KernelProblem) -> Model:
    """β from the cone constraints' multipliers; b from the balance constraint's multiplier."""
    B: HyperkernelBasis = problem.data["basis"]
    y = problem.data["y"]
    alpha = np.asarray(problem.variables["alpha"].value, dtype=float)
    beta = cone_beta(problem)
    # CVXPY's multiplier ν of yᵀα = 0 enters the Lagrangian of max 1ᵀα + τ as −ν·yᵀα; the SDP's
    # γ satisfies Gα = 1 + γy + η − ξ; matching the two stationarity conditions gives b = γ = −ν
    # (checked against the SDP form in the tests).
    offset = -float(problem.constraints["balance"].dual_value)
    K = B.learned_kernel(beta)
    coef = alpha * y
    decision = ExpansionDecision(B, beta, coef, offset)
    return Model(alpha=alpha, offset=offset, beta=beta, kernel_matrix=K, decision=decision)


@dataclass(frozen=True)
class ActiveSetTrace:
    """What :func:`cone_generation` did: the terms it kept, rounds, the final check, the time.

    ``max_violation`` is max_l ((s/2) vᵀK_l v − μ(Lu)_l + τ) over the omitted basis terms at the
    final iterate (v the cone vector, e.g. y∘α), clipped at 0; ≤ ``tol``·max(1, |objective|)
    certifies the restricted optimum as the full SOCP's (the kept cones hold to the solver's
    tolerance).
    """

    terms: NDArray[np.intp]
    rounds: int
    max_violation: float
    total_time: float


def _check_count(value: Any, name: str) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def cone_violations(problem: KernelProblem, kernels: Array) -> Array:
    """(s/2) vᵀK_l v − (μ(Lu)_l − τ) for every basis term l at a solved SOCP form's point.

    Positive entries are cones the point violates; a restricted problem's own cones are ≤ 0 up
    to the solver's tolerance. Costs p·m² flops and no factorisation.
    """
    check: ConeCheck = problem.data["cone_check"]
    B: HyperkernelBasis = problem.data["basis"]
    v = np.asarray(check.v.value, dtype=float).ravel()
    u = np.asarray(problem.variables["u"].value, dtype=float)
    tau = float(np.asarray(problem.variables["tau"].value, dtype=float).ravel()[0])
    mu = float(np.asarray(check.mu.value, dtype=float))
    s = 1.0 if check.scale is None else float(np.asarray(check.scale.value, dtype=float))
    quad = 0.5 * s * np.einsum("lij,i,j->l", kernels, v, v, optimize=True)  # (p, m, m) · v · v
    return np.asarray(quad - (mu * (B.L @ u) - tau), dtype=float)


def cone_generation(
    build: Callable[..., KernelProblem],
    X: ArrayLike,
    y: ArrayLike | None,
    hyperkernel: Hyperkernel | None = None,
    *,
    initial_terms: int = 3,
    add_per_round: int = 3,
    max_rounds: int = 50,
    tol: float = 1e-6,
    backend: str = "clarabel",
    allow_inaccurate: bool = False,
    solve_options: dict[str, Any] | None = None,
    **build_options: Any,
) -> tuple[KernelProblem, Solution, ActiveSetTrace]:
    """Solve a hyperkernel SOCP form (002 eqs. 3.8-3.12) by generating its cones: the same
    optimum as ``build(X, y, hyperkernel, form="socp", **build_options).solve()``, far faster
    when few basis terms carry weight.

    Every SOCP form maximises over (α, u, τ) subject to one cone (s/2)vᵀK_l v ≤ μ(Lu)_l − τ
    per basis term (the module docstrings derive them); at the optimum β_l, the cone's
    multiplier, is non-zero only for the few active terms. Solving with the cones of a subset S
    of terms is a relaxation (fewer constraints on a maximisation); if its optimum also
    satisfies every omitted cone it is feasible and therefore optimal for the full problem,
    with β_l = 0 off S. Otherwise the ``add_per_round`` most violated terms join S and the
    restricted problem is solved again. This is constraint generation (Kelley's cutting
    planes, as used for multiple kernel learning by Sonnenburg et al., JMLR 2006); each
    round's check costs p·m² flops (:func:`cone_violations`), and each restricted problem
    only factors the kernels in S.

    Parameters
    ----------
    build : callable
        A builder taking ``(X, y, hyperkernel, form=, basis=, terms=, **build_options)``:
        :func:`csvm`, :func:`nusvm`, :func:`l2svm`, :func:`one_class` (``y=None``) or
        :func:`nu_regression`.
    X, y, hyperkernel, **build_options
        Passed to ``build`` (parameters such as ``C``, ``nu``, ``lambda_Q``, and ``basis``,
        ``eta``, ``max_terms``, ``factor_tol``). The basis is built once and reused.
    initial_terms : int
        Terms of the first restricted problem: the first pivots of the incomplete Cholesky
        basis (largest residual first, 002 §3.2.1).
    add_per_round : int
        How many of the most violated omitted terms join per round.
    max_rounds : int
        Give up (SolverError) after this many restricted solves.
    tol : float
        Violation accepted as zero, relative to max(1, |objective|).
    backend, allow_inaccurate, solve_options
        Passed to :meth:`KernelProblem.solve` for every restricted problem.

    Returns
    -------
    problem : KernelProblem
        The final restricted problem (``problem.data["terms"]`` lists its terms).
    solution : Solution
        Its solution; ``solution.beta`` has one entry per basis term (zeros off S).
    trace : ActiveSetTrace
    """
    n_initial = _check_count(initial_terms, "initial_terms")
    n_add = _check_count(add_per_round, "add_per_round")
    n_rounds = _check_count(max_rounds, "max_rounds")
    tol_val = check_positive(tol, "tol")
    if "form" in build_options or "terms" in build_options:
        raise ParameterError("cone_generation chooses form='socp' and the terms itself; do not pass form or terms")
    t0 = time.perf_counter()
    args = (X,) if y is None else (X, y)
    # The first build validates the data and fixes the basis; later rounds reuse it.
    problem = build(*args, hyperkernel, form="socp", terms=[0], **build_options)
    B: HyperkernelBasis = problem.data["basis"]
    build_options = {**build_options, "basis": B}
    kernels = B.kernels()
    terms = np.arange(min(n_initial, B.size))
    for rounds in range(1, n_rounds + 1):
        if rounds > 1 or terms.size > 1:
            problem = build(*args, B.hyperkernel, form="socp", terms=terms, **build_options)
        solution = problem.solve(backend=backend, allow_inaccurate=allow_inaccurate, **(solve_options or {}))
        violation = cone_violations(problem, kernels)
        violation[terms] = -np.inf  # included cones are the solver's business
        worst = float(violation.max()) if violation.size else -np.inf
        threshold = tol_val * max(1.0, abs(solution.objective))
        if worst <= threshold:
            return problem, solution, ActiveSetTrace(terms, rounds, max(worst, 0.0), time.perf_counter() - t0)
        candidates = np.argsort(violation)[::-1][:n_add]
        terms = np.union1d(terms, candidates[violation[candidates] > threshold])
    raise SolverError(
        f"{problem.formulation} constraint generation did not settle in max_rounds={max_rounds} rounds "
        f"({terms.size} of {B.size} terms); raise max_rounds or solve the full SOCP (form='socp') directly",
        status="iteration_limit",
    )


def csvm_active_set(
    X: ArrayLike,
    y: ArrayLike,
    hyperkernel: Hyperkernel | None = None,
    *,
    C: float = 100.0,
    lambda_Q: float = 1.0,
    basis: HyperkernelBasis | str | None = None,
    eta: float = 1e-6,
    max_terms: int | None = None,
    factor_tol: float = 1e-10,
    initial_terms: int = 3,
    add_per_round: int = 3,
    max_rounds: int = 50,
    tol: float = 1e-6,
    backend: str = "clarabel",
    allow_inaccurate: bool = False,
    **options: Any,
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
    )  # fmt: skip


# ----------------------------------------------------------------------------- the other five (3.9-3.13)
# Defined in a sibling module that imports the helpers above; resolved lazily (PEP 562) so
# that importing either module first works.
_FORMULATIONS = ("nusvm", "l2svm", "one_class", "nu_regression", "alignment", "SingularKernelError")
__all__ += list(_FORMULATIONS)

if TYPE_CHECKING:
    from ._hyperkernel_formulations import (  # noqa: F401
        SingularKernelError,
        alignment,
        l2svm,
        nu_regression,
        nusvm,
        one_class,
    )


def __getattr__(name: str) -> Any:
    if name in _FORMULATIONS:
        from . import _hyperkernel_formulations

        return getattr(_hyperkernel_formulations, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Semidefinite programming machines (003, Graepel & Herbrich, NIPS 2003).

Primal SDPM (003 eq. 6)
-----------------------
Each training example is a polynomial trajectory x̃_i(θ) = Σ_{j=0}^{r} θ^j (X_i)_j (003 eq. 2).
The SDPM asks for the maximum-margin w with y_i (wᵀx̃_i(θ) + b) ≥ 1 − ξ_i for **every** θ:

    min  ½‖w‖² + C Σ_i ξ_i
    s.t. p_i(θ) := y_i (wᵀx̃_i(θ) + b) − 1 + ξ_i ≥ 0   for all θ ∈ R (or θ ∈ [−τ, τ]),  ξ ≥ 0.

(003 eq. 6 minimises ½t with t ≥ ‖w‖² written as a Schur complement; we state ½‖w‖² directly
and let CVXPY choose the cone. Without ``C`` there are no slacks (the hard margin of the paper);
without ``offset`` b = 0 as in 003 footnote 1.)

The coefficients of p_i are c_{i0} = y_i(wᵀX_{i0} + b) − 1 + ξ_i and c_{ij} = y_i wᵀX_{ij}. By
Proposition 1 (Nesterov) p_i ≥ 0 on R with degree r = 2l iff p_i(θ) = θ̄ᵀ G_i θ̄ for some
G_i ⪰ 0 of order l + 1, θ̄ = (1, θ, ..., θ^l). Writing G_i in terms of the coefficients leaves
(l − 1)l/2 free entries per example (the auxiliaries u_i of 003 §2; the l = 2 matrix of the
paper is the template: on each anti-diagonal a + b = j the inner entries are auxiliaries and the
outer pair takes what is left of c_j). Hence

* l = 0: c_{i0} ≥ 0, the hard-margin SVM (a QP);
* l = 1: G_i = [[c_0, c_1/2], [c_1/2, c_2]] ⪰ 0 (003 eq. 7) ⇔ ‖(c_1, c_0 − c_2)‖ ≤ c_0 + c_2,
  emitted as a second-order cone (``form="auto"``) or as the 2×2 LMI (``form="sdp"``);
* l ≥ 2: (l+1)×(l+1) LMIs with (l−1)l/2 auxiliaries per example.

Segment (003 Corollary 1). θ = τ(x² − 1)/(x² + 1) maps R onto [−τ, τ), and
q(x) = (1 + x²)^r p(τ(x² − 1)/(x² + 1)) = Σ_j c_j τ^j (x² − 1)^j (x² + 1)^{r−j} is a
polynomial of degree 2r in x, non-negative on R iff p is non-negative on [−τ, τ]. The builder
imposes the (r+1)×(r+1) representation of q, so any r ≥ 1 works on a segment (odd too).

Several parameters (003 §3). With the quadratic form x̃_i(ρ) = θ_ρᵀ Q_i θ_ρ, θ_ρ = (1, ρ), the
sufficient condition y_i Σ_k w_k Q_i[:, :, k] + (y_i b − 1 + ξ_i) E_00 ⪰ 0 is a (D+1)×(D+1)
LMI per example.

Dual and recovery (003 eqs. 8-11, Propositions 2-3). With dual matrices M_i ⪰ 0 for the blocks,
stationarity in the auxiliaries makes each M_i a Hankel matrix, (M_i)_{ab} = h_{i,a+b}, so
tr(G_i M_i) = Σ_j c_{ij} h_{ij} and

    w = Σ_i y_i Σ_j μ_{ij} (X_i)_j,   μ_i = h_i (line) or μ_i = Q_τᵀ h_i (segment),

the extrapolated examples of 003 eq. (9). When M_i has rank one, μ_{ij} = α_i θ_i*^j and
w = Σ_i α_i y_i x̃_i(θ_i*) (Proposition 3): the "truly virtual support vectors". The recovery
reads the M_i from CVXPY's duals (for the SOCP form from the cone duals (s, z):
M_i = [[s + z_2, z_1], [z_1, s − z_2]]), reports α_i = μ_{i0}, θ_i* = μ_{i1}/μ_{i0} and the
support trajectories α_i > ``support_tol``·max α.

Kernel SDPM (003 eq. 8 and the end of §3). With φ a feature map, the Taylor coefficients of
φ(x̃_i(θ)) have inner products k^{(u,v)}(x_i, x_j) = (1/(u!v!)) ∂_θ^u ∂_θ'^v k(x̃_i(θ), x̃_j(θ'))
at 0, and the dual

    max  Σ_i μ_{i0} − ½ Σ_{i,j,u,v} y_i y_j μ_{iu} μ_{jv} k^{(u,v)}(x_i, x_j)
    s.t. Hankel(h_i) ⪰ 0,  0 ≤ μ_{i0} ≤ C,  Σ_i y_i μ_{i0} = 0 (with an offset)

needs only those Gram blocks. The decision function is f(x) = Σ_i y_i Σ_u μ_{iu} k^{(u,0)}(x_i, x) + b.
The blocks are computed exactly (truncated power series of k in θ, θ') for the linear,
polynomial and Gaussian kernels.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_sample_weight, binary_labels, check_positive
from ..errors import DataError, InfeasibleError, ParameterError, SolverError, UnboundedError
from ..kernels.base import Kernel, Linear
from ..native.sdpm import least_hinge, margin_floor, moment_cone, quadratic_moment_cone, sdpm_features
from ..problem import KernelProblem, Model, ProblemData
from ..trajectories import check_trajectories, evaluate_trajectories, kernel_taylor_gram

__all__ = [
    "SDPMData", "SDPMProblem", "sdpm", "kernel_sdpm", "kernel_taylor_gram", "segment_map", "hankel_parametrisation",
    "trajectory_margins",
]  # fmt: skip

Array = NDArray[np.float64]
Form = Literal["auto", "sdp"]


# ----------------------------------------------------------------------------- algebra
def hankel_parametrisation(l: int) -> tuple[Array, list[tuple[int, int]]]:
    """Linear map from (c_0..c_{2l}, u_1..u_k) to vec(G), G (l+1)×(l+1) with θ̄ᵀGθ̄ = Σ_j c_j θ^j.

    Returns ``B`` of shape ((l+1)², 2l+1+k) (column-major vec) and the list of auxiliary entries
    (a, b), k = (l−1)l/2. On anti-diagonal j the entries (a, b), a ≤ b, other than the outermost
    are auxiliaries u; the outermost takes (c_j − Σ weight·u)/weight (003 §2, the l = 2 matrix).
    """
    size = l + 1
    aux: list[tuple[int, int]] = []
    for j in range(2 * l + 1):
        entries = [(a, j - a) for a in range(max(0, j - l), j // 2 + 1)]
        aux.extend(entries[1:])
    ncoef = 2 * l + 1
    B = np.zeros((size * size, ncoef + len(aux)))
    aux_index = {e: ncoef + k for k, e in enumerate(aux)}

    def put(a: int, b: int, col: int, val: float) -> None:
        B[a + b * size, col] += val
        if a != b:
            B[b + a * size, col] += val

    for j in range(2 * l + 1):
        entries = [(a, j - a) for a in range(max(0, j - l), j // 2 + 1)]
        a0, b0 = entries[0]
        w0 = 1.0 if a0 == b0 else 2.0
        put(a0, b0, j, 1.0 / w0)
        for a, b in entries[1:]:
            wk = 1.0 if a == b else 2.0
            put(a, b, aux_index[(a, b)], 1.0)
            put(a0, b0, aux_index[(a, b)], -wk / w0)
    return B, aux


def segment_map(r: int) -> Array:
    """Q with q_k = Σ_j Q[k, j] τ^j c_j: the coefficients of (1+x²)^r p(τ(x²−1)/(x²+1)) (003 Cor. 1).

    Shape (2r+1, r+1); Q[:, j] holds the coefficients of (x² − 1)^j (x² + 1)^{r−j}.
    """
    Q = np.zeros((2 * r + 1, r + 1))
    for j in range(r + 1):
        poly = np.array([1.0])
        for _ in range(j):
            poly = np.convolve(poly, [-1.0, 0.0, 1.0])
        for _ in range(r - j):
            poly = np.convolve(poly, [1.0, 0.0, 1.0])
        Q[: poly.size, j] = poly
    return Q


def _hankel_average(M: Array) -> Array:
    """h_j = mean of the anti-diagonal a + b = j of M (the dual is Hankel at the optimum)."""
    size = M.shape[0]
    h = np.zeros(2 * size - 1)
    for j in range(2 * size - 1):
        idx = [(a, j - a) for a in range(max(0, j - size + 1), min(j, size - 1) + 1)]
        h[j] = np.mean([M[a, b] for a, b in idx])
    return h


def _tau_powers(value: Any, r: int) -> Array:
    tau = check_positive(value, "segment")
    return tau ** np.arange(r + 1, dtype=np.float64)


class _TauCheck:
    """``problem.set(tau=τ)`` stores the powers (1, τ, ..., τ^r) in the ``tau`` parameter."""

    def __init__(self, r: int) -> None:
        self.r = r

    def __call__(self, value: Any) -> Array:
        return _tau_powers(value, self.r)


def _check_C(value: Any) -> float:
    return check_positive(value, "C")


#: libsvm's iteration cap in the scale estimate (an estimate, not a result: a capped run still
#: gives the order of magnitude; as :data:`sdpkern.builders.hyperkernel.scaling._ESTIMATE_MAX_ITER`).
_ESTIMATE_MAX_ITER = 20_000

#: The largest box the scale estimate's libsvm runs use (theirs is C·w_i/k scaled down to it): at
#: C = 1e5 one run took 0.8 s of the estimate's 3.8 s on the sweep's pima m = 188, r = 2.
_ESTIMATE_C = 10.0

#: Rounds of virtual examples in the scale estimate and the initial θ on the whole line.
_ESTIMATE_ROUNDS = 3
_LINE_GRID = (0.0, -1.0, 1.0, -2.0, 2.0)

#: The smallest scale σ (a zero optimum has no scale).
_SIGMA_FLOOR = 1e-12


def _polynomial_floor(c: Array, tau: float | None) -> tuple[Array, Array]:
    """min over θ of Σ_j c[i, j] θ^j on [−τ, τ] (or ℝ: −∞ when unbounded below) and a minimiser
    per row (θ = ±2 where the minimum is −∞), by :func:`sdpkern.native.sdpm.margin_floor`."""
    r = c.shape[1] - 1
    if tau is None:
        floor, arg = margin_floor(moment_cone(r + r % 2, segment=False), c)
        return floor, np.where(np.isfinite(arg), arg, 2.0 * np.sign(arg))
    floor, u = margin_floor(moment_cone(r, segment=True), c * tau ** np.arange(r + 1))
    return floor, tau * u


def _schur_floor(Xt: Array, y: Array, d: Array) -> Array:
    """min over ρ of y_i θ_ρᵀ(Σ_k d_k Q_i^k)θ_ρ (003 §3's quadratic form at w = d; −∞ unless its
    lower block is positive semidefinite), by :func:`sdpkern.native.sdpm.margin_floor`."""
    D = Xt.shape[1] - 1
    F = sdpm_features(Xt).F  # the doubled upper triangles, as the moment cone pairs them
    return margin_floor(quadratic_moment_cone(D), y[:, None] * (F @ d))[0]


def _least_hinge(need: Array, y: Array, cost: Array, offset: bool) -> float:
    """min over b of Σ_i cost_i (need_i − y_i b)₊ (:func:`sdpkern.native.sdpm.least_hinge`)."""
    return least_hinge(need, y, cost, offset)[0]


def _upper_bound(d: Array, floor: Array, y: Array, cost: Array, offset: bool) -> float:
    """min over t ≥ 0 and b of ½t²‖d‖² + Σ_i cost_i (1 − y_i b − t·floor_i)₊: the primal objective
    at w = t·d with the least slacks (``floor`` the margin polynomials' minima at w = d), an upper
    bound on the optimum (t = 0 is w = 0)."""
    best = _least_hinge(np.ones_like(floor), y, cost, offset)
    if not np.all(np.isfinite(floor)):
        return best
    for t in np.geomspace(1e-4, 1e2, 85):
        best = min(best, 0.5 * t * t * float(d @ d) + _least_hinge(1.0 - t * floor, y, cost, offset))
    return best


def _virtual_svm(P: Array, labels: Array, cost: Array) -> tuple[Array, float]:
    """libsvm's linear C-SVM on the virtual examples ``P`` (per-example box ``cost``, scaled down to
    at most :data:`_ESTIMATE_C` for speed): its w and a dual value. When every trajectory's
    boxes sum to its C·w_i, γ·α is feasible for the SDPM's dual for 0 ≤ γ ≤ cost/fitted box (003
    eq. 8 with moment blocks Σ_k α_k (1, θ_k, θ_k², ...), a sum of rank-one Hankel matrices; with
    or without an offset, as libsvm keeps Σ y α = 0), so the best such γ's value is a lower
    bound on the optimum."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    shrink = min(1.0, _ESTIMATE_C / float(cost.max()))
    svc = SVC(kernel="linear", C=1.0, max_iter=_ESTIMATE_MAX_ITER)
    with warnings.catch_warnings():
        # a capped libsvm run is a scale estimate, not an answer reported to the user
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc.fit(P, labels, sample_weight=cost * shrink)
    alpha = np.zeros(P.shape[0])
    alpha[svc.support_] = np.abs(svc.dual_coef_.ravel())
    v = (alpha * labels) @ P
    linear, quadratic = float(alpha.sum()), float(v @ v)
    gamma = 1.0 / shrink if quadratic <= 0 else min(1.0 / shrink, linear / quadratic)
    return svc.coef_.ravel(), gamma * linear - 0.5 * gamma * gamma * quadratic


def _objective_estimate(data: SDPMData, C: float, taus: Array | None) -> float:
    """The scale σ of :class:`_ObjectiveScale`: an estimate of the soft-margin optimum at ``C``.

    Virtual examples (003 Proposition 3) make the SDPM an SVM: libsvm on points of every
    trajectory (θ = 0, the segment's ends, or 0, ±1, ±2 on the line), then, for a few rounds, also
    at each trajectory's worst θ for the last w. Each round gives an upper bound (w = t·w_svm
    with the least slacks and the best t, b; t = 0 is w = 0, C·2·min(m₊, m₋) with an offset) and
    a lower bound (the SVM's rescaled dual value, :func:`_virtual_svm`). On a segment and at
    degree 0 σ is the upper bound; on the whole line the geometric mean of the two, as there
    either can be far off: w_svm must also keep every leading coefficient y_i wᵀX_ir ≥ 0 or its
    slack is unbounded, and finitely many points do not see that constraint.

    Measured on the first 100 SDPM instances of the status sweep's default draw (estimate /
    optimum): degree 0 in [1, 34], r = 1 in [1, 1.4], r = 3 in [1, 8.5] (segments), r = 2 in
    [0.093, 1.6e3] and r = 4 in [0.19, 6.4e2] (line). The largest are small sets a w separates
    for every θ (sonar m = 45, r = 2, C = 2.8e5: the upper bound is 3.6e6× the optimum); there
    σ ≈ 1.2e3·opt and Clarabel's ``optimal`` objective is 5e-5 from the optimum (1e-9 at σ ≈ opt).
    """
    Xt, y = data["trajectories"], data["y"]
    m, n = Xt.shape[0], Xt.shape[-1]
    weights = data.get("loss_weights")
    offset = bool(data.get("offset", True))
    cost = C * (np.ones(m) if weights is None else weights)
    upper = _upper_bound(np.zeros(n), np.zeros(m), y, cost, offset)
    if Xt.ndim == 4:  # several parameters: the virtual examples at ρ = 0 only
        d, lower = _virtual_svm(Xt[:, 0, 0, :], y, cost)
        upper = min(upper, _upper_bound(d, _schur_floor(Xt, y, d), y, cost, offset))
        return _geometric(lower, upper)
    r1 = Xt.shape[1]
    tau = None if taus is None else float(taus[1])
    grid = (0.0,) if r1 == 1 else (_LINE_GRID if tau is None else (-tau, 0.0, tau))
    thetas = [np.full(m, g) for g in grid]
    lower = 0.0
    for _ in range(1 if r1 == 1 else _ESTIMATE_ROUNDS):
        T = np.stack(thetas, axis=1)
        k = T.shape[1]
        P = np.einsum("ikj,ijn->ikn", T[:, :, None] ** np.arange(r1), Xt).reshape(m * k, n)
        d, dual = _virtual_svm(P, np.repeat(y, k), np.repeat(cost / k, k))
        lower = max(lower, dual)
        floor, worst = _polynomial_floor(y[:, None] * (Xt @ d), tau)
        upper = min(upper, _upper_bound(d, floor, y, cost, offset))
        thetas.append(worst)
    if tau is None and r1 > 1:
        return _geometric(lower, upper)
    return max(upper, _SIGMA_FLOOR)


def _geometric(lower: float, upper: float) -> float:
    """√(lower·upper), or ``upper`` when the lower bound is not positive."""
    if lower <= 0:
        return max(upper, _SIGMA_FLOOR)
    return max(math.sqrt(min(lower, upper) * upper), _SIGMA_FLOOR)


@dataclass
class _ObjectiveScale:
    """Keeps the scaled soft margin of :func:`sdpm` in step with its ``C`` (and ``tau``) parameters.

    The solved problem is the user's divided by σ, an estimate of its optimum
    (:func:`_objective_estimate`), with the slacks ξ = κ·ζ, κ = σ/C:

        min  ½‖w‖²/σ + Σ_i w_i ζ_i   s.t.  p_i(θ) = y_i(wᵀx̃_i(θ) + b) − 1 + κ ζ_i ≥ 0,  ζ ≥ 0,

    so σ × its optimum is the user's (``data["objective_scale"]``) and σ × its duals are the
    user's α, μ, M (:func:`_coefficient_duals`). Why: at large C the optimum is mostly C Σ ξ_i
    (the trajectories of the status sweep are rarely separable for every θ), e.g. 5.2e7 on
    sonar m = 159, r = 1, C = 9.46e5. Solved as ½‖w‖² + Σ ζ with ζ = C·ξ (the previous form,
    which fixed Clarabel's AlmostSolved at large C when every ξ is 0) the ζ_i are ~1e6 and SCS
    ended that instance ``infeasible`` and thyroid m = 170, r = 4, C = 7.1e5
    ``infeasible_inaccurate``, and 34 others of the issue-17 sweep at its 200 000 iterations
    ``optimal_inaccurate`` (issue 17). Divided by σ the objective, ζ (Σ ζ ≈ 1 where the slacks
    dominate) and the multipliers (ζ's is 1 − α_i/C, as before) are O(1) whichever term
    dominates. σ is only a scale: the scaled problem's optimum is the user's whatever σ is;
    measured on the five instances of ``tests/test_sdpm_scaling.py``, both backends certify
    within σ ∈ [10⁻²·opt, 10²·opt] (DPP cannot divide by a parameter: 1/σ and κ are parameters
    set here from C).
    """

    inv_sigma: cp.Parameter
    kappa: cp.Parameter
    sigma: float = 1.0
    _last: tuple[Any, ...] | None = None

    def __call__(self, problem: Any) -> None:
        """Set 1/σ and κ = σ/C from the problem's ``C`` (and ``tau``) parameters."""
        value = problem.parameters["C"].value
        if value is None:
            return
        C = _check_C(value)
        tau = problem.parameters.get("tau")
        taus = None if tau is None or tau.value is None else np.asarray(tau.value, dtype=np.float64)
        key = (C, None if taus is None else tuple(taus))
        if key != self._last:
            # a power of 16 (within 4× of the estimate; the solvers certify within 100×): dividing
            # by σ is exact in floating point, problems whose estimates differ by a few per cent
            # (e.g. sample weights vs repeated examples) are solved in the same units, and an
            # optimum of order 1 keeps σ = 1, the problem as the user wrote it (with ζ = C·ξ)
            self._last = key
            self.set_sigma(float(16.0 ** round(math.log(_objective_estimate(problem.data, C, taus), 16))))
        problem.data["objective_scale"] = self.sigma

    def settle(self, optimum: float) -> bool:
        """Set σ to the power of 16 nearest a solved ``optimum`` when σ is more than 16× above it
        (then :meth:`SDPMProblem.solve` solves once more); False when σ stays.

        Why only from above: the solvers' gap tests divide by max(1, abs(objective)), so a scaled
        optimum far below 1 is certified to an absolute, not a relative, tolerance. On the whole
        line the estimate can be ~10³× the optimum (sets some w separates for every θ): on the
        status sweep's sonar m = 45, r = 2, C = 2.8e5 (σ = 4096, optimum 3.29) Clarabel's
        ``optimal`` answer was 4.8e-5 and SCS's 2.4e-4 from the optimum (Clarabel at tol 1e-10);
        re-solved at σ = 1 both are within 1e-9 of it. A σ below the optimum leaves the scaled
        optimum above 1, where the tests are relative.
        """
        if self._last is None or not np.isfinite(optimum) or self.sigma <= 16.0 * max(optimum, _SIGMA_FLOOR):
            return False
        self.set_sigma(float(16.0 ** round(math.log(max(optimum, _SIGMA_FLOOR), 16))))
        return True

    def set_sigma(self, sigma: float) -> None:
        """σ, 1/σ and κ = σ/C at the C of the last :meth:`__call__`."""
        assert self._last is not None
        self.sigma = sigma
        self.inv_sigma.value = 1.0 / sigma
        self.kappa.value = sigma / float(self._last[0])


# ----------------------------------------------------------------------------- problem
class SDPMProblem(KernelProblem):
    """A :class:`~sdpkern.problem.KernelProblem` whose infeasibility report suggests a soft margin.

    A hard-margin SDPM on trajectories that cannot be separated is infeasible (its dual, the
    kernel form, is unbounded); both raise :class:`~sdpkern.errors.InfeasibleError` naming C.
    """

    def solve(self, backend: str = "clarabel", **kwargs: Any) -> Any:  # noqa: D102
        try:
            solution = super().solve(backend, **kwargs)
        except (InfeasibleError, UnboundedError) as exc:
            if not self.data.get("hard_margin", False):
                raise
            seg = self.data.get("segment")
            extra = "" if seg is not None else " or restrict theta to a segment (segment=tau)"
            raise InfeasibleError(
                f"{exc}. The hard-margin SDPM is infeasible: no w separates the training trajectories for every "
                f"theta. Pass a soft margin C (e.g. C=10.0 to sdpm()/kernel_sdpm() or SDPMClassifier(C=10.0)){extra}",
                status="infeasible",
                solver_status=getattr(exc, "solver_status", None),
            ) from None
        return self._at_the_optimum_scale(solution, backend, kwargs)

    def _at_the_optimum_scale(self, first: Any, backend: str, kwargs: dict[str, Any]) -> Any:
        """Solve once more at σ ≈ the optimum when the estimate was far above it
        (:meth:`_ObjectiveScale.settle`); both calls are in ``attempts``, and the first answer
        stands if the second is not ``optimal``."""
        scale = self.data.get("rescale")
        if not isinstance(scale, _ObjectiveScale) or first.status != "optimal":
            return first
        sigma = scale.sigma
        if not scale.settle(float(first.objective)):
            return first
        try:
            second = super().solve(backend, **kwargs)
        except SolverError:
            second = None
        if second is None or second.status != "optimal":
            scale.set_sigma(sigma)
            self.data["objective_scale"] = sigma
            return first
        note = f"re-solved at objective scale {scale.sigma:g} (the estimate {sigma:g} was over 16x the optimum)"
        attempts = [*first.attempts, *(dataclasses.replace(a, reason="rescaled: " + a.reason) for a in second.attempts)]
        return dataclasses.replace(second, attempts=attempts, recovery=note)


# ----------------------------------------------------------------------------- validation
def _validate(
    trajectories: ArrayLike, y: ArrayLike, segment: float | None, C: float | None, form: str
) -> tuple[Array, Array, Array, float | None]:
    Xt = check_trajectories(trajectories)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != Xt.shape[0]:
        raise DataError(f"y must be 1-D with one label per trajectory ({Xt.shape[0]}), got shape {y_arr.shape}")
    y_pm, classes = binary_labels(y_arr, "y")
    if segment is not None:
        tau = check_positive(segment, "segment")
        if Xt.ndim == 4:
            raise ParameterError(
                "segment is only available for one transformation parameter (trajectories of shape (m, r+1, n)); "
                "the several-parameter form of 003 §3 holds on the whole of R^D"
            )
        if Xt.shape[1] < 2:
            raise ParameterError("segment needs trajectories of degree r >= 1 (at least two rows per example)")
    else:
        tau = None
        if Xt.ndim == 3 and (Xt.shape[1] - 1) % 2 == 1:
            r = Xt.shape[1] - 1
            raise DataError(
                f"trajectories have odd degree r={r} ({Xt.shape[1]} rows); a polynomial of odd degree cannot be "
                "non-negative on the whole line unless its leading coefficient vanishes, so the full-line SDPM "
                "needs r = 2l (003 Proposition 1). Pass segment=tau to restrict theta to [-tau, tau] "
                "(003 Corollary 1) or use an even degree"
            )
    if C is not None:
        _check_C(C)
    if form not in ("auto", "sdp"):
        raise ParameterError(f"form must be 'auto' or 'sdp', got {form!r}")
    return Xt, y_pm, classes, tau


def _loss_weights(sample_weight: ArrayLike | None, m: int, C: float | None) -> Array | None:
    w = as_sample_weight(sample_weight, m)
    if w is not None and C is None:
        raise ParameterError("sample_weight weighs the soft-margin slacks: pass C as well (the hard margin has none)")
    return w


# ----------------------------------------------------------------------------- cones
def _polynomial_cone(coef: cp.Expression, m: int, degree: int, form: str) -> tuple[list[Any], str, Any]:
    """Constraints making every row of ``coef`` (m × (degree+1)) a polynomial non-negative on R."""
    l = degree // 2
    if l == 0:
        con = coef[:, 0] >= 0
        return [con], "qp", ("linear", con)
    if l == 1 and form == "auto":
        t = coef[:, 0] + coef[:, 2]
        Xs = cp.vstack([coef[:, 1], coef[:, 0] - coef[:, 2]])
        con = cp.SOC(t, Xs, axis=0)
        return [con], "socp", ("soc", con)
    B, aux = hankel_parametrisation(l)
    size = l + 1
    U: cp.Variable | None = None
    Z: cp.Expression = coef
    if aux:
        U = cp.Variable((m, len(aux)), name="u")
        Z = cp.hstack([coef, U])
    Gvec = Z @ B.T  # (m, size²)
    cons = [cp.reshape(Gvec[i, :], (size, size), order="F") >> 0 for i in range(m)]
    return cons, "sdp", ("psd", cons, U)


def _block_duals(kind: tuple[Any, ...], degree: int) -> tuple[Array, list[Array]]:
    """Hankel dual values h (m × (degree+1)) and the dual matrices M_i from a solved cone."""
    if kind[0] == "linear":
        a = np.asarray(kind[1].dual_value, dtype=np.float64).reshape(-1)
        return a[:, None], [np.array([[v]]) for v in a]
    if kind[0] == "soc":
        s, z = kind[1].dual_value
        s = np.asarray(s, dtype=np.float64).reshape(-1)
        z = np.asarray(z, dtype=np.float64).reshape(2, -1)
        Ms = [np.array([[s[i] + z[1, i], z[0, i]], [z[0, i], s[i] - z[1, i]]]) for i in range(s.size)]
        return np.stack([_hankel_average(M) for M in Ms]), Ms
    Ms = [np.asarray(c.dual_value, dtype=np.float64) for c in kind[1]]  # M_i of 003 eq. (8)
    Ms = [(M + M.T) / 2 for M in Ms]
    return np.stack([_hankel_average(M) for M in Ms]), Ms


# ----------------------------------------------------------------------------- primal builder
def _parameter_blocks(Xt: Array, y_pm: Array, c0: cp.Expression | Array, w: cp.Variable) -> list[Any]:
    """One (D+1)×(D+1) PSD block per example, y_i·Σ_k w_k T_i^k + c0_i e₀e₀ᵀ ⪰ 0 (003 §3: the
    sufficient condition for several transformation parameters)."""
    m, D1, n = Xt.shape[0], Xt.shape[1], Xt.shape[-1]
    Tf = Xt.reshape(m * D1 * D1, n)
    G = cp.multiply(np.repeat(y_pm, D1 * D1).reshape(m, D1 * D1), cp.reshape(Tf @ w, (m, D1 * D1), order="C"))
    e00 = np.zeros((1, D1 * D1))
    e00[0, 0] = 1.0
    G = G + cp.reshape(c0, (m, 1), order="C") @ e00
    return [cp.reshape(G[i, :], (D1, D1), order="C") >> 0 for i in range(m)]


def _taylor_cones(
    Xt: Array, y_pm: Array, c0: cp.Expression | Array, w: cp.Variable, tau: float | None, form: str,
    parameters: dict[str, cp.Parameter], checks: dict[str, Callable[[Any], Any]],
) -> tuple[list[Any], str, tuple[Any, ...], int, int, str, str]:  # fmt: skip
    """The non-negativity of every example's margin polynomial y_i wᵀX_i(θ) + c0_i (003 eq. 6), on R
    or, with a segment [−τ, τ] (adding its parameter to ``parameters``), by 003 Corollary 1.

    Returns the constraints, the cone form, the constraint kind, the polynomial degree, r, the
    formulation's name and its source.
    """
    m, n = Xt.shape[0], Xt.shape[-1]
    r = Xt.shape[1] - 1
    Xf = Xt.reshape(m * (r + 1), n)
    coef = cp.multiply(np.repeat(y_pm, r + 1).reshape(m, r + 1), cp.reshape(Xf @ w, (m, r + 1), order="C"))
    e0 = np.zeros((1, r + 1))
    e0[0, 0] = 1.0
    c0_column = cp.reshape(c0, (m, 1), order="C") @ e0
    if tau is not None:
        tau_par = cp.Parameter(r + 1, name="tau", value=_tau_powers(tau, r))
        parameters["tau"] = tau_par
        checks["tau"] = _TauCheck(r)
        Qs = segment_map(r)
        # c_{i0} is added after the τ^j factors (τ⁰ = 1): it holds the soft margin's ζ/C
        # (sdpm), and a parameter times ζ/C would not be DPP
        coef = (cp.multiply(coef, np.ones((m, 1)) @ cp.reshape(tau_par, (1, r + 1), order="C")) + c0_column) @ Qs.T
        degree = 2 * r
        source = "003 eq. (6) with Corollary 1"
    else:
        coef = coef + c0_column
        degree = r
        source = "003 eq. (6)" + (", eq. (7)" if r == 2 else "")
    cons, cone_form, kind = _polynomial_cone(coef, m, degree, form)
    seg = " on [-tau, tau]" if tau is not None else ""
    formulation = f"SDPM, degree r={r}{seg}"
    return cons, cone_form, kind, degree, r, formulation, source


def sdpm(
    trajectories: ArrayLike, y: ArrayLike, *, C: float | None = None, offset: bool = True, segment: float | None = None,
    form: Form = "auto", support_tol: float = 1e-6, sample_weight: ArrayLike | None = None,
) -> KernelProblem:
    """The linear semidefinite programming machine (003 eq. 6) as a :class:`~sdpkern.problem.KernelProblem`.

    Parameters
    ----------
    trajectories : array of shape (m, r + 1, n) or (m, D + 1, D + 1, n)
        Taylor rows of every training example (003 eq. 2), or the quadratic forms of several
        transformation parameters (003 §3); see :mod:`sdpkern.trajectories`.
    y : array of shape (m,)
        Two class labels (any values; the larger maps to +1).
    C : float, optional
        Soft margin: slacks ξ_i ≥ 0 with penalty C Σ ξ_i. ``None`` is the hard margin of 003
        eq. (6) (infeasible when the trajectories cannot be separated). A ``cvxpy.Parameter``
        (sweep it with ``problem.set(C=...)``). The soft margin is solved divided by an
        estimate of its optimum (:class:`_ObjectiveScale`); the objective, ξ and the duals
        come back in the units of 003 eq. (6).
    offset : bool
        Learn an offset b (003 omits it, footnote 1).
    segment : float, optional
        τ > 0: require the margin only for θ ∈ [−τ, τ] (003 Corollary 1). A parameter (``tau``)
        holding the powers (1, τ, ..., τ^r); ``problem.set(tau=...)`` takes τ itself.
    form : {"auto", "sdp"}
        ``"auto"``: l = 0 as a QP, l = 1 as an SOCP, l ≥ 2 as an SDP; ``"sdp"``: LMI blocks for
        every l ≥ 1 (the 2×2 blocks of 003 eq. 7).
    support_tol : float
        α_i > support_tol · max α marks a support trajectory.
    sample_weight : array of shape (m,), optional
        Per-example loss weights: the penalty becomes C Σ_i w_i ξ_i (example i's C is C·w_i, as
        scikit-learn's ``sample_weight``). Needs ``C``.

    Returns
    -------
    KernelProblem
        ``variables``: ``w``, ``b`` (if ``offset``), ``xi`` (if ``C``), ``u`` (auxiliaries);
        the recovered model has ``alpha`` = α_i, ``offset`` = b and ``extras`` with ``w``,
        ``M`` (dual blocks), ``mu`` (coefficients of the extrapolated examples, 003 eq. 9),
        ``support`` (indices), ``theta_star`` (Proposition 3), ``w_virtual`` (w rebuilt from the
        truly virtual support vectors), ``w_dual`` (w from all μ), ``xi`` and ``rank_one``
        (whether each M_i has rank one, as Proposition 3 assumes).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[[2.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [[-2.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])
    >>> sol = sdpm(X, [1, -1], segment=1.0).solve()
    >>> bool(np.all(sol.predict(np.array([[2.0, 0.5], [-2.0, -0.5]])) == [1, -1]))
    True
    """
    Xt, y_pm, classes, tau = _validate(trajectories, y, segment, C, form)
    m, n = Xt.shape[0], Xt.shape[-1]
    weights = _loss_weights(sample_weight, m, C)
    w = cp.Variable(n, name="w")
    variables: dict[str, cp.Variable] = {"w": w}
    parameters: dict[str, cp.Parameter] = {}
    checks: dict[str, Callable[[Any], Any]] = {}
    const = -np.ones(m)
    shift: cp.Expression | float = 0.0
    if offset:
        b = cp.Variable(name="b")
        variables["b"] = b
        shift = y_pm * b
    objective: cp.Expression = 0.5 * cp.sum_squares(w)
    constraints: list[Any] = []
    if C is not None:
        zeta = cp.Variable(m, name="zeta")
        C_par = cp.Parameter(nonneg=True, name="C", value=float(C))
        scale = _ObjectiveScale(cp.Parameter(nonneg=True, name="inv_sigma"), cp.Parameter(nonneg=True, name="kappa"))
        xi = scale.kappa * zeta
        variables["xi"] = xi
        parameters["C"] = C_par
        checks["C"] = _check_C
        objective = scale.inv_sigma * objective + (cp.sum(zeta) if weights is None else weights @ zeta)
        constraints.append(zeta >= 0)
        shift = shift + xi
    c0 = const + shift

    if Xt.ndim == 4:  # several parameters, 003 §3
        block_cons = _parameter_blocks(Xt, y_pm, c0, w)
        constraints += block_cons
        kind: tuple[Any, ...] = ("psd", block_cons, None)
        cone_form, degree, r = "sdp", 2, 2
        formulation = f"SDPM, {Xt.shape[1] - 1} transformation parameters (sufficient PSD condition)"
        source = "003 eq. (6), §3"
    else:
        taylor = _taylor_cones(Xt, y_pm, c0, w, tau, form, parameters, checks)
        cons, cone_form, kind, degree, r, formulation, source = taylor
        constraints += cons
        if kind[0] == "psd" and kind[2] is not None:
            variables["u"] = kind[2]
    formulation += ", soft margin" if C is not None else ", hard margin"
    problem = cp.Problem(cp.Minimize(objective), constraints)
    data = _data(Xt, y_pm, classes, degree, r, tau, support_tol, checks, C, kind=kind)
    data.loss_weights, data.offset = weights, offset
    out = SDPMProblem(
        problem, formulation, source, cone_form, variables, parameters, {"blocks": kind[1]}, _recover_sdpm, data
    )
    if C is not None:
        data.rescale = scale
        out._rescale()
    return out


@dataclass
class SDPMData(ProblemData):
    """The SDPM builders' inverse data (``KernelProblem.data``), typed; dict-style access stays for
    one release (:class:`~sdpkern.problem.ProblemData`; ``None`` reads as absent).

    Attributes
    ----------
    trajectories : array
        The training trajectories' coefficients (003 eq. 4).
    y, classes
        Labels ±1 and the original class labels.
    degree, r : int
        The polynomial degree of the trajectories in θ and the dual blocks' size parameter.
    segment : float or None
        τ of θ ∈ [−τ, τ] (003 Corollary 1), None for θ ∈ ℝ.
    support_tol : float
        Relative threshold of α for the support.
    hard_margin : bool
        No C given.
    kind : tuple or None
        The primal form's dual-block description (:func:`sdpm`).
    kernel, gram, gram_blocks, equality, mu
        :func:`kernel_sdpm`: the kernel, its Gram matrices, the offset's constraint and the variable μ.
    """

    trajectories: Array | None = None
    y: Array | None = None
    classes: NDArray[Any] | None = None
    degree: int = 0
    r: int = 0
    segment: float | None = None
    support_tol: float = 0.0
    hard_margin: bool = False
    kind: tuple[Any, ...] | None = None
    kernel: Kernel | None = None
    gram: Array | None = None
    gram_blocks: Array | None = None
    equality: Any = None
    mu: Any = None
    loss_weights: Array | None = None
    offset: bool = True


def _data(
    Xt: Array, y_pm: Array, classes: NDArray[Any], degree: int, r: int, tau: float | None, support_tol: float,
    checks: dict[str, Callable[[Any], Any]], C: float | None, **extra: Any,
) -> SDPMData:
    """What both builders' recoveries read (and ``SDPMProblem``'s hard-margin report), plus ``extra``."""
    return SDPMData(trajectories=Xt, y=y_pm, classes=classes, degree=degree, r=r, segment=tau,
                    support_tol=support_tol, parameter_checks=checks, hard_margin=C is None, **extra)  # fmt: skip


def _coefficient_duals(problem: KernelProblem) -> tuple[Array, list[Array]]:
    """μ (m × (r+1)) on the trajectory coefficients and the dual blocks M_i."""
    d = problem.data
    h, Ms = _block_duals(d["kind"], d["degree"])
    # the solved objective is the user's divided by σ (``_ObjectiveScale``): so are its duals
    unit = float(d.get("objective_scale", 1.0))
    h, Ms = h * unit, [M * unit for M in Ms]
    if d.get("segment") is not None:
        r = d["r"]
        taus = np.asarray(problem.parameters["tau"].value, dtype=np.float64)
        mu = (h @ segment_map(r)) * taus[None, :]
    else:
        mu = h
    return mu, Ms


def _virtual(mu: Array, support: NDArray[np.intp]) -> tuple[Array, Array]:
    """α_i = μ_i0 and θ_i* = μ_i1/μ_i0 (Proposition 3); NaN θ* off the support."""
    alpha = mu[:, 0].copy()
    theta = np.full(mu.shape[0], np.nan)
    if mu.shape[1] > 1:
        theta[support] = mu[support, 1] / mu[support, 0]
    else:
        theta[support] = 0.0
    return alpha, theta


def _rank_one(Ms: list[Array], support: NDArray[np.intp], tol: float = 1e-4) -> NDArray[np.bool_]:
    """Whether each dual block is numerically rank one (λ₂ ≤ tol·λ₁), as Proposition 3 assumes.

    A support trajectory touching the margin at two values of θ has a rank-two M_i; its
    contribution is then not a single virtual example and ``w_virtual`` is not exact.
    """
    out = np.ones(len(Ms), dtype=bool)
    for i in support:
        if Ms[i].shape[0] > 1:
            ev = np.linalg.eigvalsh(Ms[i])
            out[i] = bool(ev[-2] <= tol * max(ev[-1], 1e-300))
    return out


def _recover_sdpm(problem: KernelProblem) -> Model:
    d = problem.data
    Xt, y = d["trajectories"], d["y"]
    w = np.asarray(problem.variables["w"].value, dtype=np.float64)
    b = float(np.asarray(problem.variables["b"].value)) if "b" in problem.variables else 0.0
    xi = np.asarray(problem.variables["xi"].value, dtype=np.float64) if "xi" in problem.variables else np.zeros(len(y))
    mu, Ms = _coefficient_duals(problem)
    extras: dict[str, Any] = {"w": w, "M": Ms, "xi": xi, "mu": mu}
    if Xt.ndim == 4:
        h = np.stack([(M + M.T) / 2 for M in Ms])
        w_dual = np.einsum("i,iab,iabn->n", y, h, Xt)
        alpha = h[:, 0, 0]
        support = np.flatnonzero(alpha > d["support_tol"] * max(float(alpha.max(initial=0.0)), 1e-300))
        rho = np.full((len(y), Xt.shape[1] - 1), np.nan)
        rho[support] = h[support, 0, 1:] / alpha[support, None]
        t = np.concatenate([np.ones((len(support), 1)), rho[support]], axis=1)
        x_virtual = np.einsum("sa,sabn,sb->sn", t, Xt[support], t)
        extras.update(theta_star=rho, w_virtual=(alpha[support] * y[support]) @ x_virtual)
    else:
        w_dual = np.einsum("i,ij,ijn->n", y, mu, Xt)
        alpha = mu[:, 0]
        support = np.flatnonzero(alpha > d["support_tol"] * max(float(alpha.max(initial=0.0)), 1e-300))
        alpha, theta = _virtual(mu, support)
        x_virtual = (
            np.stack([evaluate_trajectories(Xt[i : i + 1], theta[i])[0] for i in support])
            if support.size
            else np.zeros((0, Xt.shape[-1]))
        )
        extras.update(theta_star=theta, w_virtual=(alpha[support] * y[support]) @ x_virtual)
    extras.update(
        w_dual=w_dual,
        support=support,
        virtual_examples=x_virtual,
        classes=d["classes"],
        rank_one=_rank_one(Ms, support),
    )

    def decision(X_new: ArrayLike) -> Array:
        Xa = np.asarray(X_new, dtype=np.float64)
        if Xa.ndim != 2 or Xa.shape[1] != w.size:
            raise DataError(f"X must have shape (n_samples, {w.size}), got {Xa.shape}")
        return Xa @ w + b

    return Model(alpha=alpha, offset=b, decision=decision, extras=extras)


# ----------------------------------------------------------------------------- margins
def trajectory_margins(
    trajectories: ArrayLike, y: ArrayLike, w: ArrayLike, b: float = 0.0, theta: ArrayLike | None = None
) -> Array:
    """y_i (wᵀx̃_i(θ) + b) on a grid of θ, shape (m, g).

    The default grid covers the whole line: θ = tan(φ) for 10⁴ φ equally spaced in (−π/2, π/2).
    """
    Xt = np.asarray(trajectories, dtype=np.float64)
    yv = np.asarray(y, dtype=np.float64)
    if theta is None:
        phi = np.linspace(-np.pi / 2, np.pi / 2, 10_002)[1:-1]
        theta = np.tan(phi)
    proj = Xt @ np.asarray(w, dtype=np.float64)  # (m, r+1)
    powers = np.asarray(theta, dtype=np.float64)[None, :] ** np.arange(Xt.shape[1])[:, None]
    return yv[:, None] * (proj @ powers + b)


# ----------------------------------------------------------------------------- kernels
def _psd_factor(K: Array) -> Array:
    """F with F Fᵀ = K (eigenvalues clipped at 0; K is a Gram matrix, so PSD up to round-off)."""
    K = (K + K.T) / 2
    lam, V = np.linalg.eigh(K)
    keep = lam > 1e-12 * max(float(lam.max(initial=0.0)), 1e-300)
    return V[:, keep] * np.sqrt(lam[keep])


def kernel_sdpm(
    trajectories: ArrayLike, y: ArrayLike, kernel: Kernel | None = None, *, C: float | None = None, offset: bool = True,
    segment: float | None = None, form: Form = "auto", support_tol: float = 1e-6,
    sample_weight: ArrayLike | None = None,
) -> KernelProblem:
    """The kernel SDPM through the dual (003 eq. 8) with Gram blocks of kernel derivatives.

    Parameters
    ----------
    trajectories : array of shape (m, r + 1, n)
        Taylor rows in input space (003 eq. 2); the feature-space trajectory is the Taylor
        polynomial of φ(x̃_i(θ)) of the same degree.
    y : array of shape (m,)
    kernel : Linear, Polynomial or Gaussian (default Linear)
    C, offset, segment, form, support_tol, sample_weight
        As in :func:`sdpm` (in the dual, example i's box is 0 ≤ μ_i0 ≤ C·w_i).

    Returns
    -------
    KernelProblem
        The recovered model's ``alpha`` holds α_i = μ_i0, ``kernel_matrix`` the m(r+1)-square
        Gram of Taylor coefficients, and ``extras`` ``mu``, ``M``, ``support``, ``theta_star``
        and ``train_coefficients`` (wᵀ of the feature-space Taylor coefficients, m × (r+1)).
    """
    kernel = Linear() if kernel is None else kernel
    Xt, y_pm, classes, tau = _validate(trajectories, y, segment, C, form)
    if Xt.ndim != 3:
        raise DataError("kernel_sdpm supports one transformation parameter: trajectories of shape (m, r+1, n)")
    m, r = Xt.shape[0], Xt.shape[1] - 1
    weights = _loss_weights(sample_weight, m, C)
    Kb = kernel_taylor_gram(kernel, Xt)  # (m, r+1, m, r+1)
    Kmat = Kb.reshape(m * (r + 1), m * (r + 1))
    Yw = np.repeat(y_pm, r + 1)
    F = _psd_factor(Kmat * np.outer(Yw, Yw))
    degree = 2 * r if tau is not None else r
    h = cp.Variable((m, degree + 1), name="h")
    parameters: dict[str, cp.Parameter] = {}
    checks: dict[str, Callable[[Any], Any]] = {}
    if tau is not None:
        tau_par = cp.Parameter(r + 1, name="tau", value=_tau_powers(tau, r))
        parameters["tau"] = tau_par
        checks["tau"] = _TauCheck(r)
        tau_rows = np.ones((m, 1)) @ cp.reshape(tau_par, (1, r + 1), order="C")
        mu: cp.Expression = cp.multiply(h @ segment_map(r), tau_rows)
    else:
        mu = h
    cons = _hankel_psd(h, m, degree, form)
    constraints: list[Any] = list(cons[0])
    mu_vec = cp.reshape(mu, (m * (r + 1),), order="C")
    objective = cp.sum(mu[:, 0]) - 0.5 * cp.sum_squares(F.T @ mu_vec)
    if C is not None:
        C_par = cp.Parameter(nonneg=True, name="C", value=float(C))
        parameters["C"] = C_par
        checks["C"] = _check_C
        constraints.append(mu[:, 0] <= (C_par if weights is None else C_par * weights))
    eq = None
    if offset:
        eq = y_pm @ mu[:, 0] == 0
        constraints.append(eq)
    problem = cp.Problem(cp.Maximize(objective), constraints)
    data = _data(
        Xt, y_pm, classes, degree, r, tau, support_tol, checks, C, kernel=kernel, gram=Kmat, gram_blocks=Kb,
        equality=eq, mu=mu,
    )
    seg = " on [-tau, tau]" if tau is not None else ""
    formulation = f"kernel SDPM (dual), degree r={r}{seg}, {type(kernel).__name__} kernel"
    source = "003 eq. (8), §3 (kernels)" + (", Corollary 1" if tau is not None else "")
    constraints_by_name = {"blocks": cons[0], "offset": eq}
    return SDPMProblem(
        problem, formulation, source, cons[1], {"h": h}, parameters, constraints_by_name, _recover_kernel_sdpm, data
    )


def _hankel_psd(h: cp.Variable, m: int, degree: int, form: str) -> tuple[list[Any], str]:
    """Hankel(h_i) ⪰ 0 for every row of h (the dual cone of the non-negative polynomials)."""
    l = degree // 2
    if l == 0:
        return [h[:, 0] >= 0], "qp"
    if l == 1 and form == "auto":
        return [cp.SOC(h[:, 0] + h[:, 2], cp.vstack([2 * h[:, 1], h[:, 0] - h[:, 2]]), axis=0)], "socp"
    size = l + 1
    Hm = np.zeros((size * size, degree + 1))
    for a in range(size):
        for b_ in range(size):
            Hm[a + b_ * size, a + b_] = 1.0
    Hv = h @ Hm.T
    return [cp.reshape(Hv[i, :], (size, size), order="F") >> 0 for i in range(m)], "sdp"


def _recover_kernel_sdpm(problem: KernelProblem) -> Model:
    d = problem.data
    Xt, y, kernel, Kb = d["trajectories"], d["y"], d["kernel"], d["gram_blocks"]
    mu = np.asarray(d["mu"].value, dtype=np.float64)
    h = np.asarray(problem.variables["h"].value, dtype=np.float64)
    size = d["degree"] // 2 + 1
    Ms = [np.array([[hi[a + b_] for b_ in range(size)] for a in range(size)]) for hi in h]
    eq = d.get("equality")
    b = float(np.asarray(eq.dual_value)) if eq is not None else 0.0
    coef = y[:, None] * mu  # (m, r+1): expansion coefficients of the Taylor features
    train = np.einsum("iujv,iu->jv", Kb, coef)  # wᵀΦ_jv
    alpha = mu[:, 0]
    support = np.flatnonzero(alpha > d["support_tol"] * max(float(alpha.max(initial=0.0)), 1e-300))
    _, theta = _virtual(mu, support)

    def decision(X_new: ArrayLike) -> Array:
        Xa = np.asarray(X_new, dtype=np.float64)
        if Xa.ndim != 2 or Xa.shape[1] != Xt.shape[2]:
            raise DataError(f"X must have shape (n_samples, {Xt.shape[2]}), got {Xa.shape}")
        Kx = kernel_taylor_gram(kernel, Xt, Xa[:, None, :])[:, :, :, 0]  # (m, r+1, p)
        return np.einsum("iup,iu->p", Kx, coef) + b

    extras = {
        "mu": mu,
        "M": Ms,
        "support": support,
        "theta_star": theta,
        "train_coefficients": train,
        "classes": d["classes"],
    }
    return Model(alpha=alpha, offset=b, kernel_matrix=d["gram"], decision=decision, extras=extras)

"""Native SDPM solver: a primal-dual interior-point method on the moment form of 003 eq. (8).

The problem
-----------
The soft-margin SDPM (003 eq. 6 with slacks) asks, for trajectories x̃_i(θ) (003 eq. 2),

    min  ½‖w‖² + Σ_i C_i ξ_i   s.t.  y_i (wᵀx̃_i(θ) + b) ≥ 1 − ξ_i  for every θ ∈ Θ,  ξ ≥ 0,

Θ the real line or a segment [−τ, τ] (003 Corollary 1); C_i = C·sample_weight_i. Its Lagrange
dual puts a measure of mass α_i ≤ C_i on each trajectory's Θ, and only the measure's moments
ν_i = (∫ 1, ∫ θ, …, ∫ θ^r) enter (003 eq. 8, written for moments instead of the matrices M_i):

    max  Σ_i ν_i0 − ½‖Σ_i y_i F_iᵀ ν_i‖²
    s.t. ν_i ∈ 𝓜(Θ),  ν_i0 ≤ C_i,  Σ_i y_i ν_i0 = 0 (with an offset b),

with F_i the trajectory's Taylor rows (θ^j ↔ row j) and 𝓜(Θ) the closed cone of moment vectors
of measures on Θ, which is SD-representable (dual to 003 Proposition 1 and Corollary 1):

* Θ = ℝ, r = 2l: the Hankel matrix (ν_{a+b})_{a,b ≤ l} ⪰ 0 (the dual of "p = θ̄ᵀGθ̄, G ⪰ 0";
  moments "at infinity", the limits that keep the leading coefficient y_i wᵀ(X_i)_r ≥ 0, are in
  the closure);
* Θ = [−τ, τ]: with θ = τu the moments of a measure on [−1, 1], characterised by the localising
  matrices of Markov–Lukács: r = 2l: (ν_{a+b})_{a,b ≤ l} ⪰ 0 and (ν_{a+b} − ν_{a+b+2})_{a,b < l}
  ⪰ 0; r = 2l + 1: (ν_{a+b} ± ν_{a+b+1})_{a,b ≤ l} ⪰ 0. Exact for univariate polynomials, as 003
  Corollary 1 is, with blocks of order ≈ r/2 + 1 instead of r + 1;
* D transformation parameters (003 §3, the quadratic form x̃_i(ρ) = θ_ρᵀQ_iθ_ρ): the
  (D+1)×(D+1) moment matrix M_i ⪰ 0, the dual of the sufficient condition of §3 (exact for a
  quadratic form: θ_ρᵀAθ_ρ ≥ 0 for all ρ iff A ⪰ 0).

The multipliers are the primal: w = Σ_i y_i F_iᵀν_i (003 eq. 9), b of the equality, ξ_i of the
mass bound, and the SOS Gram matrices G of 003 eq. (6) of the cone constraints. With a kernel
(the end of 003 §3) F_i are the rows of a factor of the Gram matrix of the Taylor coefficients
in feature space (:class:`TaylorGram`), so the same code solves 003 eq. (8) with kernels.

Algorithm
---------
Mehrotra's predictor-corrector with Nesterov–Todd scaling (as CVXOPT's ``coneqp``,
Vandenberghe 2010), started inside the moment cones (each ν_i a multiple of the moments of a
uniform or Gaussian measure, the masses balanced so that Σ y_i ν_i0 = 0) and kept there; the
multipliers start at G = I, ξ = 1, b = 0 and reach dual feasibility with the steps. The
Newton system couples the trajectories only through w:

    (AᵀA + B) Δν + a Δb = g,   aᵀΔν = −r_p,   A: ν ↦ Σ_i y_i F_iᵀν_i,

with B block diagonal: B_i = Σ_k L_k*(W_k⁻¹ L_k(·) W_k⁻¹) + (ξ_i/s_i) e₀e₀ᵀ (q × q, q = r + 1),
kept as its QR factor R_i (B_i = R_iᵀR_i) computed from the scaled cone maps. Most B_i are
inverted and the rank-n term AᵀA taken by Woodbury (an n × n system); the blocks whose B_i is
nearly singular against ‖F_i‖² — support trajectories late in the solve, whose moment vectors
become rank one (a single virtual support vector, 003 Proposition 3) — are not inverted but
kept, with Δw, in a dense reduced system (size q·#hard + n + 1), because inverting them would
lose about log₁₀ cond(B_i) digits in the Woodbury sum. One step of iterative refinement on the
full system follows. Cost per iteration O(m q n² + n³) time and O(m q n) memory.

Certificate
-----------
Every iterate is certified exactly, independently of the solver's own residuals:

* the dual value D = Σ ν_i0 − ½‖w‖² at the iterate (ν is inside the moment cones, below the
  mass bounds and balanced, so D is a lower bound on the optimum);
* the primal value P = ½‖w‖² + Σ C_i ξ_i at the same w and b with the least slacks
  ξ_i = max(0, 1 − y_i b − min_θ y_i wᵀx̃_i(θ)), the minimum over Θ computed exactly (the real
  roots of the derivative, as eigenvalues of its companion matrix, and the ends of a segment;
  for several parameters the Schur complement), so P is the objective of a feasible point and
  an upper bound on the optimum.

The solver stops when (P − D)/P ≤ ``tol`` and returns that point, which holds for every θ with
its slacks (``max_violation``, the largest violation over θ of the returned point, is 0 but for
the round-off of a repair; ``solver_violation`` is the same measure for the solver's own slack
estimates). D needs Σ y_i ν_i0 = 0: the heavier class's measures are scaled down to it (they
stay inside the cones). On the whole line two cases need more than the iterate (:class:`_Check`):
trajectories that force w = 0 (then w = 0 with the best b is certified), and optima that hold
leading coefficients y_i wᵀ(X_i)_r at zero, where round-off leaves them slightly negative and no
slack makes the iterate feasible (then w is projected onto that face, :func:`_repair_line`).
A kernel's final certificate uses its exact Gram matrix, not the factor the iterations used.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.linalg as sla
from numpy.typing import ArrayLike, NDArray

from .._validation import as_sample_weight, binary_labels, check_integer, check_positive
from ..errors import DataError, InfeasibleError, ParameterError
from ..kernels.base import Kernel, Linear
from ..kernels.gram import DEFAULT_CACHE_BYTES, GramOperator
from ..kernels.lowrank import incomplete_cholesky
from ..trajectories import check_trajectories, kernel_quadratic_gram, kernel_taylor_gram
from .dual_svm import _one_blas_thread

__all__ = [
    "MomentCone",
    "moment_cone",
    "quadratic_moment_cone",
    "margin_floor",
    "TaylorGram",
    "SDPMFeatures",
    "sdpm_features",
    "SDPMResult",
    "sdpm_native",
    "least_hinge",
]

Array = NDArray[np.float64]

#: A block of B_i is "hard" (kept out of the Woodbury sum) when its smallest eigenvalue is below
#: this fraction of ‖F_i‖²: Woodbury would then lose ~log₁₀(1/fraction) digits to cancellation.
_HARD_FRACTION = 1e-6
#: At most this many hard trajectories in the dense reduced system (the worst ones); the rest go
#: through Woodbury and the refinement step.
_MAX_HARD = 600
#: Steps stop at this fraction of the way to the boundary of the cones.
_STEP_FRACTION = 0.99
#: When μ falls below the dual residual (times the mean mass) the step keeps at least this much
#: centring: driving μ further only makes the blocks worse conditioned before the residual,
#: which bounds the certified gap, has gone (measured: a sonar r = 4 instance stalled at gap
#: 1e-8 with μ at 1e-14 relative; balanced it reached 4e-12).
_BALANCED_SIGMA = 0.2
#: ... once the certified gap is below this (earlier, on faces without interior, the residual
#: does not fall and the balance would only hold μ up).
_END_GAME = 1e-3
#: Iterations without halving the best certified gap, nor μ + residual falling tenfold, after
#: which the method stops and returns its best point.
_STALL = 10


# ----------------------------------------------------------------------------- moment cones
@dataclass(frozen=True, eq=False)
class MomentCone:
    """The cone 𝓜(Θ) of moment vectors ν ∈ ℝ^q as linear matrix inequalities L_k(ν) ⪰ 0.

    Attributes
    ----------
    kind : {"line", "segment", "quadratic"}
        Θ = ℝ, Θ = [−1, 1] (a segment after θ = τu), or D parameters (003 §3).
    q : int
        Moments per trajectory: r + 1, or (D + 1)(D + 2)/2 (the upper triangle of M, row by row).
    blocks : tuple of arrays (q, s, s)
        L_k(ν) = Σ_j ν_j blocks[k][j].
    degree : int
        r (2 for the quadratic form).
    n_parameters : int
        D (1 for one parameter).
    """

    kind: Literal["line", "segment", "quadratic"]
    q: int
    blocks: tuple[Array, ...]
    degree: int
    n_parameters: int = 1

    @property
    def barrier_degree(self) -> int:
        """Σ_k s_k: the order of the cone per trajectory (its barrier parameter)."""
        return sum(A.shape[1] for A in self.blocks)

    def interior(self) -> Array:
        """A point inside the cone with ν₀ = 1: the moments of the uniform measure on [−1, 1]
        (segment), of N(0, 1) (line), or M = I (quadratic)."""
        if self.kind == "quadratic":
            return _upper(np.eye(self.n_parameters + 1))
        j = np.arange(self.q)
        if self.kind == "segment":
            return np.where(j % 2 == 0, 1.0 / (j + 1), 0.0)
        return np.array([float(_double_factorial(k - 1)) if k % 2 == 0 else 0.0 for k in j])

    def apply(self, nu: Array) -> list[Array]:
        """L_k(ν) for every trajectory: arrays (m, s_k, s_k)."""
        return [np.tensordot(nu, A, axes=(1, 0)) for A in self.blocks]

    def adjoint(self, Z: list[Array]) -> Array:
        """Σ_k L_k*(Z_k) (m, q)."""
        out = np.tensordot(Z[0], self.blocks[0], axes=([1, 2], [1, 2]))
        for Zk, A in zip(Z[1:], self.blocks[1:]):
            out += np.tensordot(Zk, A, axes=([1, 2], [1, 2]))
        return out


def _double_factorial(k: int) -> int:
    return 1 if k <= 0 else k * _double_factorial(k - 2)


def _hankel(q: int, size: int, shift: int = 0, sign: float = 1.0) -> Array:
    """(q, size, size): entry (a, b) of L(ν) picks ν_{a+b+shift} with ``sign``."""
    A = np.zeros((q, size, size))
    for a in range(size):
        for b in range(size):
            A[a + b + shift, a, b] += sign
    return A


def moment_cone(degree: int, segment: bool) -> MomentCone:
    """𝓜(ℝ) (degree r even) or 𝓜([−1, 1]) (any r ≥ 0) for one transformation parameter.

    The line: the Hankel matrix of order r/2 + 1 (dual to 003 Proposition 1). The segment: the
    Markov–Lukács localising matrices (dual to 003 Corollary 1's representation, which is
    exact too): r = 2l: H_l(ν) ⪰ 0 and H_{l−1}(ν) − H_{l−1}(shift² ν) ⪰ 0; r = 2l + 1:
    H_l(ν) ± H_l(shift ν) ⪰ 0.
    """
    r = check_integer(degree, "degree", 0)
    q = r + 1
    if not segment:
        if r % 2:
            raise ParameterError(
                f"taylor_degree r={r} is odd: a polynomial of odd degree has no finite minimum on the whole line, so "
                "the full-line SDPM needs an even degree (003 Proposition 1); pass a segment (003 Corollary 1)"
            )
        return MomentCone("line", q, (_hankel(q, r // 2 + 1),), r)
    if r % 2 == 0:
        l = r // 2
        blocks = [_hankel(q, l + 1)]
        if l >= 1:
            blocks.append(_hankel(q, l) + _hankel(q, l, shift=2, sign=-1.0))
        return MomentCone("segment", q, tuple(blocks), r)
    l = (r - 1) // 2
    plus = _hankel(q, l + 1) + _hankel(q, l + 1, shift=1)
    minus = _hankel(q, l + 1) + _hankel(q, l + 1, shift=1, sign=-1.0)
    return MomentCone("segment", q, (plus, minus), r)


def _pairs(D: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(D + 1) for b in range(a, D + 1)]


def _upper(M: Array) -> Array:
    """The upper triangle of the last two axes, row by row."""
    D1 = M.shape[-1]
    return np.stack([M[..., a, b] for a, b in _pairs(D1 - 1)], axis=-1)


def _symmetric(v: Array, D: int, off_scale: float = 1.0) -> Array:
    """The symmetric (…, D+1, D+1) matrices whose upper triangles are ``v`` (off-diagonal × ``off_scale``)."""
    out = np.zeros((*v.shape[:-1], D + 1, D + 1))
    for k, (a, b) in enumerate(_pairs(D)):
        val = v[..., k] if a == b else off_scale * v[..., k]
        out[..., a, b] = val
        out[..., b, a] = val
    return out


def quadratic_moment_cone(n_parameters: int) -> MomentCone:
    """The (D+1)×(D+1) moment matrix M ⪰ 0 of D transformation parameters (003 §3)."""
    D = check_integer(n_parameters, "n_parameters", 1)
    q = (D + 1) * (D + 2) // 2
    A = np.zeros((q, D + 1, D + 1))
    for k, (a, b) in enumerate(_pairs(D)):
        A[k, a, b] = A[k, b, a] = 1.0
    return MomentCone("quadratic", q, (A,), 2, D)


# ----------------------------------------------------------------------------- exact floors
def _polynomial_values(c: Array, u: Array) -> Array:
    """Σ_j c[i, j] u[i, k]^j (Horner, every row and candidate)."""
    out = np.zeros_like(u)
    for j in range(c.shape[1] - 1, -1, -1):
        out = out * u + c[:, j : j + 1]
    return out


def _critical_points(c: Array) -> Array:
    """Real roots of d/du Σ_j c[i, j] u^j per row (m × (r − 1), NaN where none): eigenvalues of
    the companion matrices, polished by one Newton step."""
    m, q = c.shape
    r = q - 1
    if r < 2:
        return np.full((m, 0), np.nan)
    d = c[:, 1:] * np.arange(1, q)  # p'(u), degree r − 1
    lead = d[:, -1]
    out = np.full((m, r - 1), np.nan)
    ok = lead != 0.0
    if r == 2:
        out[ok, 0] = -d[ok, 0] / lead[ok]
    elif ok.any():
        k = r - 1
        comp = np.zeros((int(ok.sum()), k, k))
        comp[:, 0, :] = -d[ok, -2::-1] / lead[ok, None]
        comp[:, np.arange(1, k), np.arange(k - 1)] = 1.0
        roots = np.linalg.eigvals(comp)
        real = np.abs(roots.imag) <= 1e-7 * (1.0 + np.abs(roots.real))
        out[ok] = np.where(real, roots.real, np.nan)
    for i in np.flatnonzero(~ok):  # a vanishing leading coefficient: the lower-degree derivative
        nz = np.flatnonzero(d[i])
        if nz.size and nz[-1] >= 1:
            lower_roots = np.roots(d[i, : nz[-1] + 1][::-1])
            real_roots = lower_roots[np.abs(lower_roots.imag) <= 1e-7 * (1.0 + np.abs(lower_roots.real))].real
            out[i, : real_roots.size] = real_roots
    # one Newton step on p' (the companion eigenvalues are accurate to ~1e-8 for close roots)
    dd = d[:, 1:] * np.arange(1, r) if r >= 2 else np.zeros((m, 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = _polynomial_values(d, np.nan_to_num(out))
        f2 = _polynomial_values(dd, np.nan_to_num(out)) if dd.shape[1] else np.ones_like(out)
        step = np.where(np.abs(f2) > 0, f1 / f2, 0.0)
    return np.where(np.isfinite(out), out - np.where(np.abs(step) < 1e-3 * (1 + np.abs(out)), step, 0.0), np.nan)


def _line_floor(c: Array) -> tuple[Array, Array]:
    m, q = c.shape
    r = q - 1
    crit = _critical_points(c)
    cand = np.concatenate([np.zeros((m, 1)), np.nan_to_num(crit)], axis=1)
    ok = np.concatenate([np.ones((m, 1), bool), np.isfinite(crit)], axis=1)
    vals = np.where(ok, _polynomial_values(c, cand), np.inf)
    k = np.argmin(vals, axis=1)
    floor, arg = vals[np.arange(m), k], cand[np.arange(m), k]
    # unbounded below: a negative leading coefficient, or an odd leading degree
    nz = np.where(c != 0.0, np.arange(q)[None, :], -1).max(axis=1)
    lead = c[np.arange(m), np.maximum(nz, 0)]
    unbounded = (nz > 0) & ((nz % 2 == 1) | (lead < 0))
    if r == 0:
        unbounded[:] = False
    return np.where(unbounded, -np.inf, floor), np.where(unbounded, np.where(lead < 0, -np.inf, np.inf), arg)


def _segment_floor(c: Array) -> tuple[Array, Array]:
    m = c.shape[0]
    crit = _critical_points(c)
    inside = np.isfinite(crit) & (np.abs(crit) <= 1.0)
    cand = np.concatenate([np.tile([-1.0, 1.0], (m, 1)), np.where(inside, crit, 0.0)], axis=1)
    ok = np.concatenate([np.ones((m, 2), bool), inside], axis=1)
    vals = np.where(ok, _polynomial_values(c, cand), np.inf)
    k = np.argmin(vals, axis=1)
    return vals[np.arange(m), k], cand[np.arange(m), k]


def _quadratic_floor(c: Array, D: int) -> tuple[Array, Array]:
    """min over ρ of θ_ρᵀAθ_ρ, A the symmetric matrix with ⟨A, M(ν)⟩ = cᵀν (Schur complement)."""
    A = _symmetric(c, D, off_scale=0.5)
    lower = A[:, 1:, 1:]
    a0 = A[:, 1:, 0]
    lam, V = np.linalg.eigh(lower)
    scale = np.maximum(np.abs(lam).max(axis=1), np.abs(a0).max(axis=1))
    tiny = 1e-12 * np.maximum(scale, 1e-300)
    proj = np.einsum("mab,ma->mb", V, a0)
    pos = lam > tiny[:, None]
    bounded = np.all(lam >= -tiny[:, None], axis=1) & np.all(pos | (np.abs(proj) <= tiny[:, None]), axis=1)
    coef = np.where(pos, proj / np.where(pos, lam, 1.0), 0.0)
    rho = -np.einsum("mab,mb->ma", V, coef)
    floor = A[:, 0, 0] - np.einsum("ma,ma->m", coef, proj)
    return np.where(bounded, floor, -np.inf), np.where(bounded[:, None], rho, np.nan)


def margin_floor(cone: MomentCone, c: ArrayLike) -> tuple[Array, Array]:
    """Exact minimum over Θ of each trajectory's margin function and a minimiser.

    Parameters
    ----------
    cone : MomentCone
    c : array (m, q)
        The function in the moments' basis: Σ_j c_j u^j (one parameter; u ∈ [−1, 1] on a
        segment, θ on the line) or θ_ρᵀAθ_ρ with ⟨A, M(ν)⟩ = cᵀν (several parameters).

    Returns
    -------
    floor : array (m,)
        The minimum (−inf when unbounded below: on the line a negative leading coefficient or
        an odd leading degree; for several parameters an indefinite quadratic part).
    argmin : array (m,) or (m, D)
        Where it is attained (u, θ or ρ; ±inf on the line when unbounded).
    """
    ca = np.asarray(c, dtype=np.float64)
    if cone.kind == "quadratic":
        return _quadratic_floor(ca, cone.n_parameters)
    if ca.shape[1] == 1:
        return ca[:, 0].copy(), np.zeros(ca.shape[0])
    return _segment_floor(ca) if cone.kind == "segment" else _line_floor(ca)


def _normalized_floor(cone: MomentCone, c: Array) -> Array:
    """min over Θ of the margin function divided by (1 + θ²)^{r/2} (the line; θ = ∞ included,
    where it is the leading coefficient) or by ‖θ_ρ‖² (several parameters: the least eigenvalue);
    on a segment the plain minimum. Finite even where the plain minimum is −∞."""
    if cone.kind == "segment" or c.shape[1] == 1:
        return margin_floor(cone, c)[0]
    if cone.kind == "quadratic":
        return np.asarray(np.linalg.eigvalsh(_symmetric(c, cone.n_parameters, off_scale=0.5))[:, 0], dtype=np.float64)
    r = c.shape[1] - 1
    out = np.empty(c.shape[0])
    for i, ci in enumerate(c):
        # d/dθ [p(θ)(1+θ²)^{-r/2}] ∝ p'(θ)(1 + θ²) − rθ p(θ), of degree ≤ r
        dp = np.polynomial.polynomial.polyder(ci)
        num = np.polynomial.polynomial.polysub(
            np.polynomial.polynomial.polymul(dp, [1.0, 0.0, 1.0]), r * np.polynomial.polynomial.polymulx(ci)
        )
        roots = np.polynomial.polynomial.polyroots(np.trim_zeros(num, "b")) if np.any(num) else np.zeros(0)
        th = roots[np.abs(roots.imag) <= 1e-7 * (1 + np.abs(roots.real))].real
        vals = np.polynomial.polynomial.polyval(th, ci) / (1.0 + th * th) ** (r / 2) if th.size else np.zeros(0)
        out[i] = min([float(ci[-1]), float(ci[0])] + vals.tolist())
    return out


# ----------------------------------------------------------------------------- features
class TaylorGram(GramOperator):
    """The Gram matrix of the feature-space Taylor coefficients of m trajectories (end of 003 §3).

    One parameter: index p = i·(r + 1) + u stands for the u-th Taylor coefficient of
    φ(x̃_i(θ)), entry (p, p') is k^{(u,v)}(x_i, x_j) (:func:`~sdpkern.trajectories.kernel_taylor_gram`),
    times τ^{u+v} on a segment (the moments' basis u = θ/τ). D parameters (quadratic forms,
    003 §3): index p = i·q + k for the k-th monomial of ρ of degree ≤ 2
    (:func:`~sdpkern.trajectories.kernel_quadratic_gram`). Columns are computed per trajectory
    and kept in the capped column cache of :class:`~sdpkern.kernels.gram.GramOperator`.

    Parameters
    ----------
    kernel : Kernel
        Linear, Polynomial or Gaussian.
    trajectories : array (m, r + 1, n) or (m, D + 1, D + 1, n)
    scale : array (q,), optional
        Per-coefficient factors (τ^u on a segment).
    """

    def __init__(
        self, kernel: Kernel, trajectories: ArrayLike, scale: ArrayLike | None = None, *,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:  # fmt: skip
        Xt = check_trajectories(trajectories)
        self.kernel, self.trajectories = kernel, Xt
        self.q = Xt.shape[1] if Xt.ndim == 3 else (Xt.shape[1]) * (Xt.shape[1] + 1) // 2
        self.scale = np.ones(self.q) if scale is None else np.asarray(scale, dtype=np.float64)
        super().__init__(Xt.shape[0] * self.q, cache_bytes=max(int(cache_bytes), 8 * Xt.shape[0] * self.q))
        self._pair(Xt[:1], Xt[:1])  # a kernel it cannot differentiate fails here, typed

    def _pair(self, A: Array, B: Array) -> Array:
        """The blocks (mA, q, mB, q) between two sets of trajectories."""
        if A.ndim == 4:
            return kernel_quadratic_gram(self.kernel, A, B)
        return kernel_taylor_gram(self.kernel, A, B)

    def _block(self, rows: NDArray[np.intp] | None, cols: NDArray[np.intp]) -> Array:
        q, Xt = self.q, self.trajectories
        ct, cu = np.divmod(cols, q)
        uniq, inv = np.unique(ct, return_inverse=True)
        if rows is None:
            blocks = self._pair(Xt, Xt[uniq])  # (m, q, k, q)
            out = blocks[:, :, inv, cu].reshape(-1, cols.size)
            return out * np.tile(self.scale, Xt.shape[0])[:, None] * self.scale[cu][None, :]
        rt, ru = np.divmod(rows, q)
        ruq, rinv = np.unique(rt, return_inverse=True)
        blocks = self._pair(Xt[ruq], Xt[uniq])
        out = blocks[rinv[:, None], ru[:, None], inv[None, :], cu[None, :]]
        return out * self.scale[ru][:, None] * self.scale[cu][None, :]

    def _diagonal(self) -> Array:
        Xt = self.trajectories
        if Xt.ndim == 4:
            blocks = kernel_quadratic_gram(self.kernel, Xt, Xt, paired=True)
        else:
            blocks = kernel_taylor_gram(self.kernel, Xt, paired=True)
        d = np.einsum("iuu->iu", blocks)
        return (d * self.scale**2).ravel()


@dataclass(eq=False)
class SDPMFeatures:
    """What the interior-point method needs of a training set, shared by one-vs-rest models.

    Attributes
    ----------
    cone : MomentCone
    F : array (m, q, p)
        Per trajectory, the rows paired with its moments: Taylor rows (times τ^j on a segment),
        the doubled upper triangle of the quadratic form (several parameters), or the rows of a
        factor GGᵀ of the :class:`TaylorGram` (kernels).
    tau : float or None
        The segment.
    gram : TaylorGram or None
        Kernels: the exact Gram matrix, for the certificate.
    factor_residual : float
        trace(K − GGᵀ) of the kernel factor (0 for linear features).
    """

    cone: MomentCone
    F: Array
    tau: float | None
    gram: TaylorGram | None = None
    factor_residual: float = 0.0
    seconds: float = 0.0

    @property
    def m(self) -> int:
        """Trajectories."""
        return int(self.F.shape[0])

    def basis_scale(self) -> Array:
        """Factors from the moments' basis to θ's: ν_j·τ^j is ∫θ^j (1 without a segment)."""
        if self.tau is None or self.cone.kind == "quadratic":
            return np.ones(self.cone.q)
        return self.tau ** np.arange(self.cone.q, dtype=np.float64)


def _effective_degree(Xt: Array, segment: bool) -> int:
    """r without trailing Taylor rows that vanish for every trajectory (e.g. no transformation),
    kept even on the line."""
    r = Xt.shape[1] - 1
    while r > 0 and not np.any(Xt[:, r]):
        r -= 1
    if not segment and r % 2:
        r += 1
    return r


def sdpm_features(
    trajectories: ArrayLike, *, segment: float | None = None, kernel: Kernel | None = None, eta: float = 1e-10,
) -> SDPMFeatures:  # fmt: skip
    """The moment cone and the feature rows of a set of trajectories (one computation per data set).

    Parameters
    ----------
    trajectories : array (m, r + 1, n) or (m, D + 1, D + 1, n)
        Taylor rows (003 eq. 2) or quadratic forms of D parameters (003 §3).
    segment : float, optional
        τ > 0: Θ = [−τ, τ] (003 Corollary 1; one parameter).
    kernel : Kernel, optional
        Linear (default: the rows themselves), Polynomial or Gaussian: rows of a pivoted
        incomplete Cholesky factor of the :class:`TaylorGram`, down to residual diagonal
        ``eta``·max diag.
    eta : float
        Relative tolerance of that factor.
    """
    t0 = time.perf_counter()
    Xt = check_trajectories(trajectories)
    tau = None if segment is None else check_positive(segment, "segment")
    if Xt.ndim == 4:
        if tau is not None:
            raise ParameterError(
                "segment is only available for one transformation parameter (trajectories of shape (m, r+1, n)); "
                "the several-parameter form of 003 §3 holds on the whole of R^D"
            )
        D = Xt.shape[1] - 1
        cone = quadratic_moment_cone(D)
        if kernel is None or isinstance(kernel, Linear):
            F = np.stack([Xt[:, a, b] * (1.0 if a == b else 2.0) for a, b in _pairs(D)], axis=1)
            return SDPMFeatures(cone, np.ascontiguousarray(F), None, seconds=time.perf_counter() - t0)
        return _kernel_features(cone, TaylorGram(kernel, Xt), None, eta, t0)
    if tau is None and (Xt.shape[1] - 1) % 2:
        moment_cone(Xt.shape[1] - 1, segment=False)  # raises: an odd degree on the whole line
    r = _effective_degree(Xt, tau is not None)
    if r + 1 > Xt.shape[1]:
        Xt = np.concatenate([Xt, np.zeros((Xt.shape[0], r + 1 - Xt.shape[1], Xt.shape[2]))], axis=1)
    Xt = Xt[:, : r + 1]
    cone = moment_cone(r, tau is not None)
    scale = np.ones(r + 1) if tau is None else tau ** np.arange(r + 1, dtype=np.float64)
    if kernel is None or isinstance(kernel, Linear):
        F = np.ascontiguousarray(Xt * scale[None, :, None])
        return SDPMFeatures(cone, F, tau, seconds=time.perf_counter() - t0)
    return _kernel_features(cone, TaylorGram(kernel, Xt, scale), tau, eta, t0)


def _kernel_features(cone: MomentCone, gram: TaylorGram, tau: float | None, eta: float, t0: float) -> SDPMFeatures:
    """Rows of a pivoted incomplete Cholesky factor of ``gram`` (residual diagonal ≤ eta·max)."""
    diag = gram.diagonal()
    fac = incomplete_cholesky(diag, gram.column, eta=check_positive(eta, "eta") * float(diag.max(initial=0.0)))
    G = fac.G.reshape(gram.trajectories.shape[0], cone.q, -1)
    return SDPMFeatures(cone, np.ascontiguousarray(G), tau, gram, fac.residual_trace, time.perf_counter() - t0)


# ----------------------------------------------------------------------------- certificate
def least_hinge(need: ArrayLike, y: ArrayLike, cost: ArrayLike, offset: bool = True) -> tuple[float, float]:
    """min over b of Σ_i cost_i (need_i − y_i b)₊ and a minimiser (b = 0 without an offset).

    Convex and piecewise linear in b, least at a kink b = y_i need_i: every kink's value by
    prefix sums, O(m log m).
    """
    nd, ya, ca = (np.asarray(v, dtype=np.float64) for v in (need, y, cost))
    if not offset:
        return float(ca @ np.maximum(nd, 0.0)), 0.0
    kinks = ya * nd
    order = np.argsort(kinks)
    k, c, plus = kinks[order], ca[order], ya[order] > 0
    cp_, cm_ = c * plus, c * ~plus
    # Σ over y = +1 after the kink of c (k − b), and over y = −1 before it of c (b − k)
    after0 = np.cumsum(cp_[::-1])[::-1] - cp_
    after1 = np.cumsum((cp_ * k)[::-1])[::-1] - cp_ * k
    before0 = np.cumsum(cm_) - cm_
    before1 = np.cumsum(cm_ * k) - cm_ * k
    values = after1 - k * after0 + k * before0 - before1
    best = int(np.argmin(values))
    return float(values[best]), float(k[best])


class _Gram:
    """The Gram matrix K of the trajectories' Taylor features (rows p = i·q + j), as the
    certificate reads it: K = F Fᵀ of the feature rows, or a kernel's exact :class:`TaylorGram`."""

    def __init__(self, features: SDPMFeatures, exact: bool) -> None:
        self.m, self.q = features.m, features.cone.q
        self.op = features.gram if exact else None
        self.linear = features.gram is None  # F are the trajectories' own rows: w is the model's
        self.F2 = features.F.reshape(self.m * self.q, -1)

    def matvec(self, beta: Array) -> Array:
        """K β, shape (m, q)."""
        if self.op is not None:
            return self.op.matvec(beta.ravel()).reshape(self.m, self.q)
        return (self.F2 @ (self.F2.T @ beta.ravel())).reshape(self.m, self.q)

    def norms(self) -> Array:
        """‖φ_p‖ = √K_pp, shape (m, q)."""
        d = self.op.diagonal() if self.op is not None else np.einsum("pn,pn->p", self.F2, self.F2)
        return np.sqrt(np.maximum(d, 0.0)).reshape(self.m, self.q)


@dataclass
class _Check:
    """A certified point: its primal value P, the dual value D at the iterate, and how P was had.

    The point is f = Σ_p β_p φ_p + b over the Taylor features φ_p (p = i·q + j, moments' basis):
    β = y∘ν at the iterate (003 eq. 9); the final certificate drops the trajectories below
    ``support_tol`` when the sparse expansion certifies within ``tol`` too.
    ``mode``: "exact" (that f with the least slacks: feasible for every θ), "zero" (f = 0 with
    the best b: feasible; the answer when the trajectories force w = 0 on the whole line), or
    "repaired" (the whole line, where round-off leaves leading coefficients y_i wᵀ(X_i)_r that
    the optimum holds at zero slightly negative, so no slack makes the iterate feasible: f
    projected onto that face by :func:`_repair_line`).
    """

    primal: float
    dual: float
    gap: float
    xi: Array
    b: float
    mode: str
    beta: Array  # the certified point's expansion coefficients (m, q), moments' basis
    coef: Array  # its margin functions' coefficients y_i ⟨f, φ_ij⟩ (m, q)
    floor: Array  # their minima over Θ
    wnorm2: float
    violation: float  # the round-off a repair holds at zero
    iterate_coef: Array  # the iterate's coefficients (the interior-point method's residuals)
    w: Array | None = None  # linear features: the certified w itself


#: On the whole line, a leading coefficient below this fraction of its bound ‖(X_i)_j‖‖w‖ is taken
#: as one the optimum forces to zero (:func:`_repair_line`): the interior-point iterates reach
#: such faces to about √tol relative.
_FACE_FRACTION = 1e-6


def _face(coef: Array, bound: Array) -> NDArray[np.intp]:
    """The flat indices i·q + j of the coefficients a face holds at zero (:func:`_repair_line`)."""
    m, q = coef.shape
    rows: list[Array] = []
    going = np.ones(m, dtype=bool)
    for j in range(q - 1, 0, -2):
        going &= coef[:, j] <= _FACE_FRACTION * bound[:, j]
        if not going.any():
            break
        rows += [np.flatnonzero(going) * q + j, np.flatnonzero(going) * q + j - 1]
    return np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)


def _repair_line(
    gram: _Gram, y: Array, beta: Array, coef: Array
) -> tuple[Array | None, Array, Array, float] | None:
    """Move f = Σ β_p φ_p onto the face where the small leading coefficients vanish (the line).

    On ℝ a polynomial of degree 2l is bounded below iff its leading coefficient is positive, or
    zero with the next (odd) one zero and the rest bounded below. For every trajectory whose
    leading coefficient is below :data:`_FACE_FRACTION` of its bound ‖φ_ij‖‖f‖ (negative ones
    included) the features 2k and 2k − 1 join A, descending while the next even coefficient is
    small too, and f' = f − P_A f (P_A the projection onto the span of the features in A: a
    correction of β on A). With explicit features (w = Fᵀβ) the projection is taken in w; with a
    kernel's Gram matrix, from K_AA and K β. The coefficients on A are then zero to the
    round-off of the correction and their evaluation and are stored as exact zeros. Returns
    (w' or None, β', the coefficients, the largest round-off so dropped), or None.
    """
    m, q = coef.shape
    eps = np.finfo(float).eps
    if gram.op is None:  # explicit features: project w itself (its entries are O(‖w‖))
        w = gram.F2.T @ beta.ravel()
        bound = gram.norms() * float(np.linalg.norm(w))
        idx = _face(coef, bound)
        if idx.size == 0:
            return None
        FA = y.repeat(q)[idx, None] * gram.F2[idx]
        U, sv, Vt = np.linalg.svd(FA, full_matrices=False)  # often rank deficient (parallel rows)
        k = sv > 1e-12 * max(float(sv.max(initial=0.0)), 1e-300)
        proj = Vt[k] @ w
        w2 = w - Vt[k].T @ proj
        v = np.zeros(q * m)
        v[idx] = y.repeat(q)[idx] * (U[:, k] @ (proj / sv[k]))
        c2 = y.repeat(q) * (gram.F2 @ w2)
        roundoff = 1e3 * eps * bound.ravel()[idx]
        out_w: Array | None = w2
    else:  # a kernel: the correction δβ_A = K_AA⁺ (Kβ)_A, then Kβ' afresh
        norms = gram.norms()
        Kb = y[:, None] * coef
        bound = norms * np.sqrt(max(float(np.sum(beta * Kb)), 0.0))
        idx = _face(coef, bound)
        if idx.size == 0:
            return None
        lam, V = np.linalg.eigh(gram.op.entries(idx, idx))
        keep = lam > 1e-12 * max(float(lam.max(initial=0.0)), 1e-300)
        v = np.zeros(q * m)
        v[idx] = V[:, keep] @ ((V[:, keep].T @ Kb.ravel()[idx]) / lam[keep])
        c2 = y.repeat(q) * gram.matvec((beta.ravel() - v).reshape(m, q)).ravel()
        # the round-off of Σ_k K_pk β'_k (|K_pk| ≤ ‖φ_p‖‖φ_k‖)
        roundoff = 1e3 * eps * norms.ravel()[idx] * float(norms.ravel() @ np.abs(beta.ravel() - v))
        out_w = None
    if np.any(np.abs(c2[idx]) > roundoff):
        return None  # the face is not reached by moving along these features: no repair
    dropped = float(np.abs(c2[idx]).max(initial=0.0))
    c2[idx] = 0.0
    return out_w, beta - v.reshape(m, q), c2.reshape(m, q), dropped


def _certify(
    features: SDPMFeatures, y: Array, cost: Array, offset: bool, nu: Array, b: float, exact: bool,
    sparse: tuple[float, float] | None = None,
) -> _Check:  # fmt: skip
    """P and D at ν and b (module docstring, "Certificate"). ``exact``: with a kernel, the Gram
    matrix itself instead of its factor; ``sparse = (support_tol, tol)``: certify the expansion
    without the trajectories whose moments are below support_tol (relative) when its gap is
    within tol, else the whole one."""
    gram = _Gram(features, exact)
    m, q = nu.shape
    if offset:  # D is a bound only where Σ y_i ν_i0 = 0: scale the heavier class's measures down to it
        plus, minus = float(nu[y > 0, 0].sum()), float(nu[y < 0, 0].sum())
        nu = nu * np.where(y > 0, min(1.0, minus / plus), min(1.0, plus / minus))[:, None]
    beta = y[:, None] * nu
    Kb = gram.matvec(beta)
    iterate_coef, iterate_norm2 = y[:, None] * Kb, float(np.sum(beta * Kb))
    dual = float(nu[:, 0].sum()) - 0.5 * iterate_norm2

    def gap(primal: float) -> float:
        return (primal - dual) / max(abs(primal), 1e-300)

    P0, b0 = least_hinge(np.ones(m), y, cost, offset)
    xi0 = np.maximum(0.0, 1.0 - y * b0)
    zero = np.zeros((m, q))
    w0 = np.zeros(features.F.shape[2]) if gram.linear else None
    best = _Check(P0, dual, gap(P0), xi0, b0, "zero", zero, zero, np.zeros(m), 0.0, 0.0, iterate_coef, w0)
    if sparse is not None:  # the sparse expansion (003 Proposition 2), when it certifies too
        support_tol, tol = sparse
        size = np.abs(nu).max(axis=1)
        small = size <= support_tol * max(float(size.max(initial=0.0)), 1e-300)
        if small.any():
            thin = np.where(small[:, None], 0.0, beta)
            check = _least_slacks(features.cone, gram, y, cost, b, thin, gram.matvec(thin), dual, iterate_coef)
            if check is not None and check.gap <= tol and check.primal <= best.primal:
                return check
    check = _least_slacks(features.cone, gram, y, cost, b, beta, Kb, dual, iterate_coef)
    return check if check is not None and check.primal <= best.primal else best


def _least_slacks(
    cone: MomentCone, gram: _Gram, y: Array, cost: Array, b: float, beta: Array, Kb: Array, dual: float,
    iterate_coef: Array,
) -> _Check | None:  # fmt: skip
    """The point f = Σ β_p φ_p + b with the least slacks (with linear features repaired onto a
    face on the whole line when it has to be), or None when no slack makes it feasible."""
    wnorm2 = float(np.sum(beta * Kb))
    coef = y[:, None] * Kb
    floor, _ = margin_floor(cone, coef)
    mode, dropped = "exact", 0.0
    w = gram.F2.T @ beta.ravel() if gram.linear else None
    if not np.all(np.isfinite(floor)) and cone.kind == "line":
        repaired = _repair_line(gram, y, beta, coef)
        if repaired is not None:
            w2, beta, coef, dropped = repaired
            w = w2 if gram.linear else None
            wnorm2 = float(np.sum(beta * (y[:, None] * coef)))
            mode = "repaired"
            floor, _ = margin_floor(cone, coef)
    if not np.all(np.isfinite(floor)):
        return None
    xi = np.maximum(0.0, 1.0 - y * b - floor)
    P = 0.5 * wnorm2 + float(cost @ xi)
    gap = (P - dual) / max(abs(P), 1e-300)
    return _Check(P, dual, gap, xi, b, mode, beta, coef, floor, wnorm2, dropped, iterate_coef, w)


def _violation(cone: MomentCone, y: Array, coef: Array, floor: Array, b: float, xi: Array) -> float:
    """The largest violation over θ of y_i(wᵀx̃_i(θ) + b) ≥ 1 − ξ_i, divided by (1 + θ²)^{r/2}
    where the plain minimum is −∞ (the whole line), exact."""
    need = 1.0 - y * b - xi - floor
    bad = ~np.isfinite(need)
    if bad.any():
        c = coef[bad].copy()
        c[:, 0] += y[bad] * b - 1.0 + xi[bad]
        need[bad] = -_normalized_floor(cone, c)
    return float(max(0.0, need.max(initial=0.0)))


# ----------------------------------------------------------------------------- interior point
@dataclass
class _State:
    nu: Array
    b: float
    Z: list[Array]
    xi: Array


def _start(cone: MomentCone, y: Array, cost: Array, offset: bool) -> _State:
    """Balanced masses (Σ y_i ν_i0 = 0) at most half of each C_i, inside the moment cones."""
    m = y.size
    plus, minus = cost[y > 0].sum(), cost[y < 0].sum()
    mass = cost * 0.5 * min(plus, minus) / np.where(y > 0, plus, minus) if offset else 0.5 * cost
    nu = mass[:, None] * cone.interior()[None, :]
    Z = [np.broadcast_to(np.eye(A.shape[1]), (m, A.shape[1], A.shape[1])).copy() for A in cone.blocks]
    return _State(nu, 0.0, Z, np.ones(m))


def _nt_scaling(S: Array, Z: Array) -> tuple[Array, Array]:
    """Nesterov–Todd scaling of PSD blocks: r with r⁻¹ S r⁻ᵀ = rᵀ Z r = diag(λ); returns (r⁻¹, λ)."""
    Ls = np.linalg.cholesky(S)
    Lz = np.linalg.cholesky(Z)
    _, lam, Vt = np.linalg.svd(np.swapaxes(Lz, 1, 2) @ Ls)
    # r = Ls V Λ^{-1/2}, so r⁻¹ = Λ^{1/2} Vᵀ Ls⁻¹
    rinv = np.sqrt(lam)[:, :, None] * (Vt @ np.linalg.inv(Ls))
    return rinv, lam


def _max_step(lam: Array, D: Array) -> float:
    """The largest α ≤ 1 with diag(λ) + α D ⪰ 0 (blocks)."""
    isq = 1.0 / np.sqrt(lam)
    M = D * isq[:, :, None] * isq[:, None, :]
    low = float(np.linalg.eigvalsh(M)[:, 0].min()) if M.shape[1] > 1 else float(M[:, 0, 0].min())
    return 1.0 if low >= 0 else min(1.0, -1.0 / low)


class _Newton:
    """One iteration's Newton system (module docstring, "Algorithm"), factored once, solved for
    the predictor and the corrector."""

    def __init__(self, F: Array, y: Array, P: list[Array], box: Array, offset: bool) -> None:
        m, q, n = F.shape
        self.F, self.y, self.P, self.box, self.offset = F, y, P, box, offset
        J = [Pk.reshape(m, q, -1).transpose(0, 2, 1) for Pk in P]
        jb = np.zeros((m, 1, q))
        jb[:, 0, 0] = np.sqrt(box)
        J.append(jb)
        self.R = np.linalg.qr(np.concatenate(J, axis=1), mode="r")  # B_i = R_iᵀR_i
        smin = np.linalg.svd(self.R, compute_uv=False)[:, -1]
        weight = np.einsum("iqn,iqn->i", F, F)
        ratio = smin**2 / np.maximum(weight, 1e-300)
        hard = np.flatnonzero(ratio < _HARD_FRACTION)
        if hard.size > _MAX_HARD:
            hard = hard[np.argsort(ratio[hard])[:_MAX_HARD]]
        easy = np.ones(m, dtype=bool)
        easy[hard] = False
        self.hard, self.easy = hard, easy
        Ri = np.linalg.inv(self.R[easy])
        self.Binv = Ri @ np.swapaxes(Ri, 1, 2)
        Fe, ye = F[easy], y[easy]
        self.Fe, self.ye = Fe, ye
        Ge = np.einsum("mjk,mkn->mjn", self.Binv, Fe)
        Ke = np.eye(n) + Fe.reshape(-1, n).T @ Ge.reshape(-1, n)
        mh = hard.size
        N = mh * q + n + (1 if offset else 0)
        M = np.zeros((N, N))
        Bh = np.swapaxes(self.R[hard], 1, 2) @ self.R[hard]
        for t in range(mh):
            M[t * q : (t + 1) * q, t * q : (t + 1) * q] = Bh[t]
        Ah = (y[hard, None, None] * F[hard]).reshape(mh * q, n)
        M[: mh * q, mh * q : mh * q + n] = Ah
        M[mh * q : mh * q + n, : mh * q] = Ah.T
        M[mh * q : mh * q + n, mh * q : mh * q + n] = -Ke
        if offset:
            self.Binv_a = self.Binv[:, :, 0] * ye[:, None]  # B_e⁻¹ a_e
            AeBa = Fe.reshape(-1, n).T @ (ye[:, None] * self.Binv_a).ravel()
            ah = np.zeros((mh, q))
            ah[:, 0] = y[hard]
            M[: mh * q, -1] = M[-1, : mh * q] = ah.ravel()
            M[mh * q : mh * q + n, -1] = M[-1, mh * q : mh * q + n] = -AeBa
            M[-1, -1] = -float(ye @ self.Binv_a[:, 0])
        self.mh, self.n, self.q = mh, n, q
        # the hard blocks' entries span many orders: equilibrate symmetrically before LU
        self.scale = 1.0 / np.sqrt(np.maximum(np.abs(M).max(axis=1), 1e-300))
        Ms = M * self.scale[:, None] * self.scale[None, :]
        with warnings.catch_warnings():
            warnings.simplefilter("error", sla.LinAlgWarning)
            try:
                self.lu = sla.lu_factor(Ms, check_finite=False)
            except sla.LinAlgWarning:
                # exactly singular: identical trajectories trade their measures freely, a
                # direction only their (tiny) B_i see; a static regularisation of the hard
                # blocks (as Clarabel's) decides it, and the refinement step repairs the rest
                d = np.zeros(Ms.shape[0])
                d[: mh * q] = 1e-13
                self.lu = sla.lu_factor(Ms + np.diag(d), check_finite=False)

    def matvec(self, v: Array) -> Array:
        """(AᵀA + B) v."""
        m, q, n = self.F.shape
        Av = self.F.reshape(m * q, n).T @ (self.y[:, None] * v).ravel()
        out = self.y[:, None] * (self.F.reshape(m * q, n) @ Av).reshape(m, q)
        return out + np.einsum("mkj,mk->mj", self.R, np.einsum("mkj,mj->mk", self.R, v))

    def _solve_once(self, g: Array, rhs_eq: float) -> tuple[Array, float]:
        m, q, n, mh = self.F.shape[0], self.q, self.n, self.mh
        Bg = np.einsum("mjk,mk->mj", self.Binv, g[self.easy])
        rhs = np.zeros(self.lu[0].shape[0])
        rhs[: mh * q] = g[self.hard].ravel()
        rhs[mh * q : mh * q + n] = -(self.Fe.reshape(-1, n).T @ (self.ye[:, None] * Bg).ravel())
        if self.offset:
            rhs[-1] = rhs_eq - float(self.ye @ Bg[:, 0])
        sol = self.scale * sla.lu_solve(self.lu, rhs * self.scale, check_finite=False)
        dnu = np.zeros((m, q))
        dnu[self.hard] = sol[: mh * q].reshape(mh, q)
        dw = sol[mh * q : mh * q + n]
        db = float(sol[-1]) if self.offset else 0.0
        Fdw = self.ye[:, None] * (self.Fe.reshape(-1, n) @ dw).reshape(-1, q)
        dnu[self.easy] = Bg - np.einsum("mjk,mk->mj", self.Binv, Fdw)
        if self.offset:
            dnu[self.easy] -= db * self.Binv_a
        return dnu, db

    def solve(self, g: Array, rhs_eq: float) -> tuple[Array, float]:
        """(Δν, Δb) with (AᵀA + B)Δν + aΔb = g, aᵀΔν = rhs_eq; one step of iterative refinement."""
        dnu, db = self._solve_once(g, rhs_eq)
        res = g - self.matvec(dnu)
        if self.offset:
            res[:, 0] -= self.y * db
        res_eq = rhs_eq - float(self.y @ dnu[:, 0]) if self.offset else 0.0
        cnu, cb = self._solve_once(res, res_eq)
        return dnu + cnu, db + cb


@dataclass
class _Outcome:
    state: _State
    check: _Check
    status: str
    iterations: int
    cost: Array
    history: list[tuple[float, float]] = field(default_factory=list)


def _gap(primal: float, dual: float) -> float:
    return (primal - dual) / max(abs(primal), 1e-300)


def _interior_point(
    features: SDPMFeatures, y: Array, cost: Array, offset: bool, tol: float, max_iter: int, deadline: float | None,
) -> _Outcome:
    cone, F = features.cone, features.F
    m, q, _ = F.shape
    st = _start(cone, y, cost, offset)
    total = m * (cone.barrier_degree + 1)
    best: tuple[_State, _Check] | None = None
    history: list[tuple[float, float]] = []
    merits: list[float] = []  # μ + ‖r_d‖·mean mass: the method's own progress
    status = "iteration_limit"
    while len(history) < max_iter:
        check = _certify(features, y, cost, offset, st.nu, st.b, exact=False)
        history.append((check.primal, check.dual))
        if best is None or check.gap < best[1].gap:
            best = (_State(st.nu.copy(), st.b, [Zk.copy() for Zk in st.Z], st.xi.copy()), check)
        if check.gap <= tol:
            status = "optimal"
            break
        if len(merits) > _STALL and best[1].gap > 0.5 * min(_gap(p, d) for p, d in history[:-_STALL]) and min(
            merits[-_STALL:]
        ) > 0.1 * min(merits[:-_STALL]):
            status = "numerical"  # no progress in either: the best point is returned
            break
        if deadline is not None and time.perf_counter() > deadline:
            status = "time_limit"
            break
        try:
            direction, merit = _mehrotra_step(cone, F, y, cost, offset, st, check, total)
        except np.linalg.LinAlgError:
            status = "numerical"
            break
        merits.append(merit)
        if direction is None:
            status = "numerical"
            break
        st = direction
    assert best is not None
    return _Outcome(best[0], best[1], status, len(history), cost, history)


def _mehrotra_step(
    cone: MomentCone, F: Array, y: Array, cost: Array, offset: bool, st: _State, check: _Check, total: int
) -> tuple[_State | None, float]:
    """One predictor-corrector step from ``st`` (None when no step keeps the iterate inside) and
    the merit μ + ‖r_d‖·mean mass at ``st``."""
    S = cone.apply(st.nu)
    s = cost - st.nu[:, 0]
    rd = check.iterate_coef - cone.adjoint(st.Z)
    rd[:, 0] += y * st.b - 1.0 + st.xi
    box = st.xi / s
    rp = float(y @ st.nu[:, 0]) if offset else 0.0
    scal = [_nt_scaling(Sk, Zk) for Sk, Zk in zip(S, st.Z)]
    P = [np.einsum("mab,jbc,mdc->mjad", rinv, A, rinv, optimize=True) for (rinv, _), A in zip(scal, cone.blocks)]
    lams = [lam for _, lam in scal]
    mu = (sum(float((lam * lam).sum()) for lam in lams) + float(s @ st.xi)) / total
    newton = _Newton(F, y, P, box, offset)

    def direction(T: list[Array], tbox: Array) -> tuple[Array, float, list[Array], list[Array], Array, Array]:
        g = -rd.copy()
        g[:, 0] -= tbox
        for Pk, Tk in zip(P, T):
            g += np.einsum("mjab,mab->mj", Pk, Tk)
        dnu, db = newton.solve(g, -rp)
        dS = [np.einsum("mj,mjab->mab", dnu, Pk) for Pk in P]
        dZ = [Tk - dSk for Tk, dSk in zip(T, dS)]
        return dnu, db, dS, dZ, -dnu[:, 0], tbox + box * dnu[:, 0]

    def max_step(dS: list[Array], dZ: list[Array], ds: Array, dxi: Array) -> float:
        alpha = 1.0
        for lam, a, c in zip(lams, dS, dZ):
            alpha = min(alpha, _max_step(lam, a), _max_step(lam, c))
        for v, dv in ((s, ds), (st.xi, dxi)):
            neg = dv < 0
            if neg.any():
                alpha = min(alpha, float((-v[neg] / dv[neg]).min()))
        return alpha

    diag = [lam[:, :, None] * np.eye(lam.shape[1])[None] for lam in lams]
    # predictor (affine scaling: σ = 0)
    aff = direction([-D for D in diag], -st.xi)
    a_aff = max_step(aff[2], aff[3], aff[4], aff[5])
    mu_aff = sum(float(np.einsum("mab,mab->", D + a_aff * a, D + a_aff * c)) for D, a, c in zip(diag, aff[2], aff[3]))
    mu_aff += float((s + a_aff * aff[4]) @ (st.xi + a_aff * aff[5]))
    sigma = min(1.0, max(0.0, mu_aff / total / mu)) ** 3
    # keep μ from running ahead of the dual residual: below it the systems only lose digits
    residual = float(np.abs(rd).max()) * float(st.nu[:, 0].mean())
    if check.gap < _END_GAME and mu < residual:
        sigma = max(sigma, _BALANCED_SIGMA)
    # corrector (centring and Mehrotra's second-order term)
    T = []
    for lam, a, c in zip(lams, aff[2], aff[3]):
        k = lam.shape[1]
        rhs = sigma * mu * np.eye(k)[None] - lam[:, :, None] ** 2 * np.eye(k)[None] - 0.5 * (a @ c + c @ a)
        T.append(2.0 * rhs / (lam[:, :, None] + lam[:, None, :]))
    tbox = (sigma * mu - s * st.xi - aff[4] * aff[5]) / s
    dnu, db, dS, dZ, ds, dxi = direction(T, tbox)
    alpha = min(1.0, _STEP_FRACTION * max_step(dS, dZ, ds, dxi))
    for _ in range(6):  # round-off can leave a block just outside: shorten the step
        nu = st.nu + alpha * dnu
        Z = []
        for (rinv, _), Zk, dZk in zip(scal, st.Z, dZ):
            Zn = Zk + alpha * (np.swapaxes(rinv, 1, 2) @ dZk @ rinv)
            Z.append(0.5 * (Zn + np.swapaxes(Zn, 1, 2)))
        xi = st.xi + alpha * dxi
        if _inside(cone.apply(nu), Z) and np.all(cost - nu[:, 0] > 0) and np.all(xi > 0):
            return _State(nu, st.b + alpha * db, Z, xi), mu + residual
        alpha *= 0.5
    return None, mu + residual


def _inside(S: list[Array], Z: list[Array]) -> bool:
    try:
        for M in (*S, *Z):
            np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        return False
    return True


# ----------------------------------------------------------------------------- result
@dataclass(eq=False)
class SDPMResult:
    """The answer of :func:`sdpm_native`.

    Attributes
    ----------
    moments : array (m, q)
        μ_i: the moments ∫θ^j of each trajectory's dual measure (θ's own units; for several
        parameters the upper triangle of M_i, 003 §3). μ_i0 = α_i.
    alpha : array (m,)
        α_i = μ_i0, the mass of the dual measure (0 ≤ α_i ≤ C_i).
    expansion : array (m, q)
        The certified model's coefficients on the Taylor features (θ's units): f(x) =
        Σ_i Σ_j expansion_ij k^{(j,0)}(x_i, x) + b, w = Σ_ij expansion_ij (X_i)_j (003 eq. 9):
        y_i μ_ij (moved onto the face by a repair), with the rows off ``support`` set to 0 when
        that sparse model is certified within ``tol`` too (an interior point leaves them small
        but not zero, and their sum can matter at a tight ``tol``).
    coef : array (n,) or None
        w (linear features; ``None`` with a kernel).
    intercept : float
        b.
    xi : array (m,)
        The least slacks of (w, b): max(0, 1 − min_θ y_i f(x̃_i(θ))).
    margin_minimum : array (m,)
        min over Θ of y_i wᵀx̃_i(θ) (without b).
    objective : float
        ½‖w‖² + Σ C_i ξ_i at (w, b, ξ): the objective of a feasible point, an upper bound on the
        optimum (the soft margin at the C that the hard margin was solved at).
    dual_objective : float
        Σ α_i − ½‖w‖²: a lower bound on the optimum.
    gap : float
        (objective − dual_objective)/objective.
    max_violation : float
        The largest violation over θ of y_i(wᵀx̃_i(θ) + b) ≥ 1 − ξ_i by the returned (w, b, ξ):
        0 (the slacks are the least ones, from exact minima), except the round-off of the
        coefficients a "repaired" point holds at zero.
    solver_violation : float
        The same for the solver's own slacks (its multipliers of the mass bounds), before they
        are replaced by the least slacks: how far its primal estimate was from feasible.
    certified_point : {"exact", "zero", "repaired"}
        "exact": the solver's w and b with the least slacks (feasible for every θ); "zero":
        w = 0 with the best b (the trajectories force w = 0 on the whole line, e.g. when no w
        keeps every leading coefficient y_i wᵀ(X_i)_r positive); "repaired": on the whole line,
        the solver's w projected onto the face where the leading coefficients the optimum holds
        at zero vanish (round-off leaves them slightly negative, and no slack then makes w
        feasible), with the least slacks.
    status : str
        "optimal" (gap ≤ tol), "iteration_limit", "time_limit" or "optimal_inaccurate" (the
        steps stopped short of tol: the best point is returned).
    iterations : int
    support : array of int
        The support trajectories (003 Proposition 2): those whose moments exceed ``support_tol``
        times the largest (α_i > 0, or a moment "at infinity" on the whole line).
    theta_star : array (m,) or (m, D)
        θ_i* = μ_i1/μ_i0 (one parameter) or M_i[0, 1:]/M_i[0, 0] (several; 003 Proposition 3),
        NaN off the support.
    rank_one : array of bool (m,)
        Whether μ_i is, to 1e-4 relative, the moment vector of the single point θ_i*; then
        x̃_i(θ_i*) is a truly virtual support vector and w = Σ α_i y_i x̃_i(θ_i*) (Prop. 3).
    seconds : float
    history : list of (P, D)
        The certificate at every iterate.
    """

    moments: Array
    alpha: Array
    expansion: Array
    coef: Array | None
    intercept: float
    xi: Array
    margin_minimum: Array
    objective: float
    dual_objective: float
    gap: float
    max_violation: float
    solver_violation: float
    certified_point: str
    status: str
    iterations: int
    support: NDArray[np.intp]
    theta_star: Array
    rank_one: NDArray[np.bool_]
    seconds: float
    tol: float
    history: list[tuple[float, float]] = field(default_factory=list, repr=False)

    @property
    def certificate(self) -> dict[str, Any]:
        """The certificate as conventions' mapping: measure, value and the quantities it rests on."""
        return {
            "measure": "relative duality gap",
            "value": self.gap,
            "primal_objective": self.objective,
            "dual_objective": self.dual_objective,
            "max_violation": self.max_violation,
            "solver_violation": self.solver_violation,
            "certified_point": self.certified_point,
            "tol": self.tol,
            "iterations": self.iterations,
        }


def _theta_star(features: SDPMFeatures, moments: Array, support: NDArray[np.intp]) -> tuple[Array, NDArray[np.bool_]]:
    cone = features.cone
    m = moments.shape[0]
    rank_one = np.ones(m, dtype=bool)
    if cone.kind == "quadratic":
        D = cone.n_parameters
        M = _symmetric(moments, D)
        theta: Array = np.full((m, D), np.nan)
        theta[support] = M[support, 0, 1:] / M[support, 0, :1]
        mats = M[support]
    else:
        theta = np.full(m, np.nan)
        if cone.q == 1:
            theta[support] = 0.0
            return theta, rank_one
        theta[support] = moments[support, 1] / moments[support, 0]
        l = (cone.q - 1) // 2
        if l == 0:
            return theta, rank_one
        mats = np.stack([[moments[support, a + b] for b in range(l + 1)] for a in range(l + 1)], axis=-1).transpose(
            1, 0, 2
        )
    if support.size:
        ev = np.linalg.eigvalsh(mats)
        rank_one[support] = ev[:, -2] <= 1e-4 * np.maximum(ev[:, -1], 1e-300)
    return theta, rank_one


# ----------------------------------------------------------------------------- public
def _costs(m: int, C: float | None, sample_weight: ArrayLike | None) -> Array | None:
    """C_i = C·w_i (``None`` for the hard margin)."""
    w = as_sample_weight(sample_weight, m)
    if C is None:
        if w is not None:
            raise ParameterError(
                "sample_weight weighs the soft-margin slacks: pass C as well (the hard margin has none)"
            )
        return None
    c = check_positive(C, "C")
    return np.full(m, c) if w is None else c * w


def sdpm_native(
    trajectories: ArrayLike | SDPMFeatures, y: ArrayLike, *, C: float | None = 1.0, offset: bool = True,
    segment: float | None = None, kernel: Kernel | None = None, sample_weight: ArrayLike | None = None,
    tol: float = 1e-8, max_iter: int = 100, time_limit: float | None = None, support_tol: float = 1e-6,
) -> SDPMResult:  # fmt: skip
    """Solve the SDPM (003 eq. 6, its dual 8, kernels, segments, several parameters) natively.

    A primal-dual interior-point method on the moment form (module docstring), certified by the
    exact duality gap: the returned (w, b, ξ) is feasible for every θ and its objective is within
    ``tol`` (relative) of a dual value.

    Parameters
    ----------
    trajectories : array (m, r + 1, n) or (m, D + 1, D + 1, n), or SDPMFeatures
        Taylor rows (003 eq. 2) or the quadratic forms of D parameters (003 §3); or the
        features :func:`sdpm_features` made of them (to share them between fits; then
        ``segment`` and ``kernel`` are the features').
    y : array (m,)
        Two labels (the larger maps to +1).
    C : float or None, default=1.0
        The slacks' weight, as scikit-learn's ``SVC`` (0 ≤ α_i ≤ C·w_i). ``None``: the hard
        margin of 003 eq. (6), solved as the soft margin at a C above every α_i (then ξ = 0
        and the solution is the hard margin's); :class:`~sdpkern.errors.InfeasibleError`
        when no w separates the trajectories.
    offset : bool
        Learn b (003 omits it, footnote 1).
    segment : float, optional
        τ > 0: θ ∈ [−τ, τ] (003 Corollary 1).
    kernel : Kernel, optional
        Polynomial or Gaussian: the kernel SDPM (003 eq. 8 and §3), one parameter.
    sample_weight : array (m,), optional
        Trajectory i's C is C·sample_weight_i; weight-0 trajectories are removed.
    tol : float
        The relative duality gap to reach.
    max_iter : int
        Interior-point iterations.
    time_limit : float, optional
        Seconds.
    support_tol : float
        Trajectories whose moments are all below ``support_tol`` times the largest are left out
        of the returned expansion when that sparse model is certified within ``tol`` too (the
        certificate is always the returned model's).

    Returns
    -------
    SDPMResult

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[[2.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [[-2.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])
    >>> res = sdpm_native(X, [1, -1], C=10.0, segment=1.0)
    >>> res.status, np.round(res.coef, 6).tolist(), round(res.objective, 8)
    ('optimal', [0.5, 0.0], 0.125)
    """
    t0 = time.perf_counter()
    features = trajectories if isinstance(trajectories, SDPMFeatures) else sdpm_features(
        trajectories, segment=segment, kernel=kernel
    )
    m = features.m
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != m:
        raise DataError(f"y must be 1-D with one label per trajectory ({m}), got shape {y_arr.shape}")
    y_pm, _ = binary_labels(y_arr, "y")
    cost = _costs(m, C, sample_weight)
    tol = check_positive(tol, "tol")
    max_iter = check_integer(max_iter, "max_iter", 1)
    deadline = None if time_limit is None else t0 + check_positive(time_limit, "time_limit")
    keep = np.arange(m) if cost is None else np.flatnonzero(cost > 0)
    sub = features if keep.size == m else _subset(features, keep)
    y_sub = y_pm[keep]
    if offset and (np.all(y_sub > 0) or np.all(y_sub < 0)):
        raise DataError("the trajectories of positive weight are all of one class; both classes need weight")
    # the work is many small blocks and products of inner size n: threaded BLAS only contends
    with _one_blas_thread():
        if cost is None:
            outcome = _hard_margin(sub, y_sub, offset, tol, max_iter, deadline)
        else:
            outcome = _interior_point(sub, y_sub, cost[keep], offset, tol, max_iter, deadline)
        return _result(features, sub, keep, y_pm, offset, outcome, support_tol, tol, time.perf_counter() - t0)


def _subset(features: SDPMFeatures, keep: NDArray[np.intp]) -> SDPMFeatures:
    gram = None
    if features.gram is not None:
        g = features.gram
        gram = TaylorGram(g.kernel, g.trajectories[keep], g.scale)
    return SDPMFeatures(features.cone, features.F[keep], features.tau, gram, features.factor_residual)


#: The hard margin is the soft margin at a C above every α_i; C grows through these until then.
_HARD_C = (1e4, 1e7, 1e10)


def _hard_margin(
    features: SDPMFeatures, y: Array, offset: bool, tol: float, max_iter: int, deadline: float | None
) -> _Outcome:
    """The hard margin as the soft margin at a large C: the same problem once every α_i < C (then
    ξ = 0 and the KKT conditions are the hard margin's); infeasible when α_i reaches C."""
    for C in _HARD_C:
        outcome = _interior_point(features, y, np.full(y.size, C), offset, tol, max_iter, deadline)
        if outcome.check.gap > tol or outcome.state.nu[:, 0].max(initial=0.0) < 0.5 * C:
            return outcome  # the hard margin's (or not certified, which the status says)
    raise InfeasibleError(
        "the hard-margin SDPM is infeasible: no w separates the training trajectories for every theta (the dual "
        f"variables reach C = {_HARD_C[-1]:g}). Pass a soft margin C (e.g. C=10.0)",
        status="infeasible",
    )


def _result(
    features: SDPMFeatures, sub: SDPMFeatures, keep: NDArray[np.intp], y: Array, offset: bool, outcome: _Outcome,
    support_tol: float, tol: float, seconds: float,
) -> SDPMResult:  # fmt: skip
    m, q = features.m, features.cone.q
    st = outcome.state
    check = _certify(sub, y[keep], outcome.cost, offset, st.nu, st.b, exact=True, sparse=(support_tol, tol))
    solver_floor, _ = margin_floor(sub.cone, check.iterate_coef)
    solver_violation = _violation(sub.cone, y[keep], check.iterate_coef, solver_floor, st.b, st.xi)
    status = outcome.status
    if check.gap <= tol:
        status = "optimal"
    elif status in ("optimal", "numerical"):
        status = "optimal_inaccurate"
    scale = features.basis_scale()[None, :]
    nu = np.zeros((m, q))
    nu[keep] = st.nu
    moments = nu * scale
    expansion = np.zeros((m, q))
    expansion[keep] = check.beta
    alpha = moments[:, 0].copy()
    size = np.abs(nu).max(axis=1)
    support = np.flatnonzero(size > support_tol * max(float(size.max(initial=0.0)), 1e-300))
    theta, rank_one = _theta_star(features, nu, support)
    if features.tau is not None:
        theta = theta * features.tau
    xi = np.zeros(m)
    xi[keep] = check.xi
    floor = np.full(m, np.nan)
    floor[keep] = check.floor
    return SDPMResult(
        moments=moments, alpha=alpha, expansion=expansion * scale, coef=check.w, intercept=check.b, xi=xi,
        margin_minimum=floor, objective=check.primal, dual_objective=check.dual, gap=check.gap,
        max_violation=check.violation, solver_violation=solver_violation, certified_point=check.mode, status=status,
        iterations=outcome.iterations, support=support, theta_star=theta, rank_one=rank_one, seconds=seconds, tol=tol,
        history=outcome.history,
    )  # fmt: skip

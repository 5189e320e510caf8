"""Scaling of the hyperkernel SOCP forms: the solver sees a problem whose optimum is O(1).

Why
---
Every SOCP form has cones ½‖R_lᵀZᵀv‖² ≤ μ(Lu)_l − τ (:mod:`.cones`). CVXPY writes
½‖x‖² ≤ t as the second-order cone ‖(t − 1, 2x)‖ ≤ t + 1 (its ``quad_over_lin(x, 1)``), which
is well conditioned only for t ≈ 1: at t ≫ 1 the cone's two sides agree to a relative 1/t and
the interior-point method loses that many digits. In the dual variables' own units t is about
the optimum itself, i.e. about 1ᵀα (C-SVM: ½αᵀG(β)α ≤ 1ᵀα at the optimum), which is C·m at
small C and the hard-margin 1ᵀα at large C: measured 10²-10³ on m = 20-50 instances where
Clarabel stopped at ``AlmostSolved`` (status ``optimal_inaccurate``) after reaching a 1e-7 gap.

What
----
Each SOCP is solved in the variables α = s·a, τ = s²·t with its objective and cones divided by
s² (the derivations are in each builder's docstring), with s² an estimate of the optimum from
the same problem at fixed β (:func:`trial_points`: β uniform and the vertex of the basis kernel
of largest trace; the fit there solved by libsvm or in closed form, plus the hyperkernel
regulariser (λ_Q/2)‖Lᵀβ‖ there; the smaller value).
Then t, ‖x‖² and the objective are O(1) (within the factor by which the optimum differs from
the estimate), so Clarabel's absolute and relative tolerances mean the same thing (its
relative gap divides by max(1, abs(objective))): the scaling does not loosen the test the
solver applies, it makes it reachable. (Scaling by C instead, as α = C·a, makes the objective
1/C² too small at large C, where α stays at its hard-margin values: measured on pima m = 24,
C = 3.96e4, Clarabel then said "optimal" 5e-4 away from the optimum.) The estimate
is only a scale: the optimum of the scaled problem is the problem's, whatever s is.

The scaled coefficients are CVXPY parameters derived from the user's ones (1/s, C/s, μ/s², ...;
DPP cannot divide by a parameter); :class:`Rescale` recomputes them whenever
:meth:`KernelProblem.set` or :meth:`KernelProblem.solve` sees new user values, and sets
``data["objective_scale"]`` so that ``Solution.objective`` is the unscaled optimum.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from scipy.optimize import nnls
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, NuSVC, NuSVR, OneClassSVM

from ._common import Array

__all__ = [
    "Rescale",
    "trial_kernels",
    "trial_points",
    "svc_optimum",
    "nusvr_optimum",
    "nusvc_fit",
    "one_class_fit",
    "l2svm_optimum",
    "alignment_optimum",
    "scale_of",
]

#: libsvm's iteration cap for the scale estimates (an estimate, not a result: a capped run still
#: gives the right order of magnitude, and at C = 1e6 an uncapped one can take seconds).
_ESTIMATE_MAX_ITER = 20_000

#: The smallest optimum the scale follows (below it s² = this; a zero optimum has no scale).
_FLOOR = 1e-12


def trial_kernels(kernels: Array, factor: float = 1.0) -> list[Array]:
    """The kernels at which the scale estimates evaluate the optimum: the mean basis kernel
    (β uniform) and the basis kernel of largest trace (a vertex of the simplex), times ``factor``.

    The problem's optimum is a minimum over β, so the value at either point bounds it from
    above (up to the λ_Q term); the smaller of the two is the estimate. The largest-trace vertex
    matters when the optimum puts its weight on one term: measured on the demo's breast-cancer
    C-SVM (m = 120, β = e_0), the mean kernel's value alone was 5× the optimum, the scaled
    objective 0.2, and Clarabel stopped at AlmostSolved at a 1.03e-8 absolute gap.
    """
    traces = np.einsum("lii->l", kernels)
    return [kernels.mean(axis=0) * factor, kernels[int(np.argmax(traces))] * factor]


def trial_points(kernels: Array, L: Array, factor: float = 1.0) -> list[tuple[Array, float]]:
    """The points of :func:`trial_kernels` with the hyperkernel norm ‖Lᵀβ‖ there (β on the unit simplex).

    The optimum is min over β of (the fit at K(β)) + (λ_Q/2)‖Lᵀβ‖ (002 eqs. 3.8-3.12; squared
    for 3.13), so each trial point bounds it by its fit *plus* its regulariser. Leaving the
    regulariser out underestimated the optimum by up to 1e6 where λ_Q·C is large: measured on
    the status sweep's ν-regression pima m = 15, C = 5.29e5, λ_Q = 4.96, where the optimum is
    all regulariser (2.841 of 2.841), the fit estimate was 6e-6, the scaled objective 4.8e5, and
    SCS ended 200 000 iterations at primal residual 29.
    """
    p = kernels.shape[0]
    traces = np.einsum("lii->l", kernels)
    vertex = int(np.argmax(traces))
    norms = (float(np.linalg.norm(L.sum(axis=0))) / p, float(np.linalg.norm(L[vertex])))
    return list(zip(trial_kernels(kernels, factor), norms))


def scale_of(optimum: float) -> float:
    """s = sqrt(estimated optimum), floored (see the module docstring)."""
    value = float(optimum)
    if not np.isfinite(value) or value <= _FLOOR:
        value = _FLOOR
    return float(np.sqrt(value))


def svc_optimum(K: Array, y: Array, C: float, sample_weight: Array | None = None) -> float:
    """max 1ᵀα − ½(y∘α)ᵀK(y∘α) over 0 ≤ α ≤ C (C·``sample_weight``), yᵀα = 0 (the C-SVM dual,
    002 eq. 3.8 at fixed β)."""
    svc = SVC(kernel="precomputed", C=C, tol=1e-3, max_iter=_ESTIMATE_MAX_ITER)
    with warnings.catch_warnings():
        # a capped libsvm run is a scale estimate, not an answer reported to the user
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc.fit(K, y, sample_weight=sample_weight)
    c = np.zeros(y.shape[0])
    c[svc.support_] = svc.dual_coef_.ravel()  # y_i α_i
    return float(np.abs(c).sum() - 0.5 * c @ K @ c)


def nusvr_optimum(K: Array, y: Array, C: float, nu: float) -> float:
    """max yᵀd − ½dᵀKd over the ν-SVR dual (002 eq. 3.12 at fixed β; libsvm's ``NuSVR``)."""
    svr = NuSVR(kernel="precomputed", C=C, nu=nu, tol=1e-3, max_iter=_ESTIMATE_MAX_ITER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # as in svc_optimum
        svr.fit(K, y)
    d = np.zeros(y.shape[0])
    d[svr.support_] = svr.dual_coef_.ravel()
    return float(abs(y @ d) - 0.5 * d @ K @ d)


def nusvc_fit(K: Array, y: Array, nu: float) -> float:
    """min ½αᵀG α over yᵀα = 0, 1ᵀα ≥ ν, 0 ≤ α ≤ 1/m (the ν-SVM dual, 002 eq. 3.9 / A.13 at fixed β).

    libsvm's ``NuSVC`` solves this problem and returns α/r (r the margin ρ) scaled by m; since
    1ᵀα = ν at the optimum, r = ν·m / Σ abs(dual_coef_). Without a positive margin (r not finite)
    the fit is taken as 0: the scale then follows the regulariser alone.
    """
    svc = NuSVC(kernel="precomputed", nu=nu, tol=1e-3, max_iter=_ESTIMATE_MAX_ITER)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a capped or degenerate libsvm run is an estimate only
            svc.fit(K, y)
    except ValueError:
        # libsvm's margin r = 0 (measured at ν ≥ 0.9 on status-sweep instances): scikit-learn
        # refuses the non-finite α/r; bound the fit at the feasible α_i = ν/(2m_±) instead
        counts = np.where(y > 0, np.sum(y > 0), np.sum(y <= 0)).astype(float)
        yc = y * nu / (2.0 * counts)
        return 0.5 * float(yc @ K @ yc)
    c = np.zeros(y.shape[0])
    c[svc.support_] = np.abs(svc.dual_coef_.ravel())
    total = float(c.sum())
    if not np.isfinite(total) or total <= 0:
        return 0.0
    alpha = (nu / total) * c  # r·c/m with r = ν·m/Σc
    yc = y * alpha
    value = 0.5 * float(yc @ K @ yc)
    return value if np.isfinite(value) else 0.0


def one_class_fit(K: Array, nu: float) -> float:
    """(ν/2)·min αᵀKα over 1ᵀα = 1, 0 ≤ να ≤ 1/m (the one-class dual, 002 eq. 3.11 times ν, at fixed β);
    libsvm's ``OneClassSVM`` solves it with α' = νm·α."""
    oc = OneClassSVM(kernel="precomputed", nu=nu, tol=1e-3, max_iter=_ESTIMATE_MAX_ITER)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # as in nusvc_fit
            oc.fit(K)
    except ValueError:
        # degenerate libsvm run (as in nusvc_fit, at ν = 1): bound the fit at the feasible α = 1/m
        return 0.5 * nu * float(K.mean())
    c = np.zeros(K.shape[0])
    c[oc.support_] = oc.dual_coef_.ravel()
    if not c.sum() > 0:
        return 0.0
    alpha = c / c.sum()
    return 0.5 * nu * float(alpha @ K @ alpha)


def l2svm_optimum(G: Array, y: Array, ridge: float | Array) -> float:
    """max 1ᵀα − ½αᵀHα over α ≥ 0, H = G + yyᵀ + diag(ridge) (002 eq. 3.10 at fixed β), by NNLS.

    ``ridge`` is λm, or per point λm/w_i for weighted points.

    With H = UᵀU (Cholesky) the problem is min ½‖Uα − U⁻ᵀ1‖² over α ≥ 0, and the optimum is
    ½‖U⁻ᵀ1‖² − ½‖Uα − U⁻ᵀ1‖².
    """
    m = y.shape[0]
    H = G + np.outer(y, y) + np.diag(np.broadcast_to(np.asarray(ridge, dtype=float), (m,)))
    lam = np.linalg.eigvalsh(H)
    # a relative jitter keeps the factorisation defined when ridge is below rounding of H
    U = np.linalg.cholesky(H + max(0.0, 1e-12 * lam[-1] - lam[0]) * np.eye(m)).T
    rhs = np.linalg.solve(U.T, np.ones(m))
    _, resid = nnls(U, rhs, maxiter=50 * m)
    return float(0.5 * rhs @ rhs - 0.5 * resid**2)


def alignment_optimum(K: Array, target: Array, ridge: float) -> float:
    """½ targetᵀ(K + ridge·I)†target (002 eq. 3.13 at fixed β, without the regulariser)."""
    lam, V = np.linalg.eigh(K + ridge * np.eye(K.shape[0]))
    keep = lam > 1e-10 * max(lam[-1], 1e-300)
    w = V[:, keep].T @ target
    return float(0.5 * np.sum(w**2 / lam[keep]))


@dataclass
class Rescale:
    """Keeps an SOCP form's scaled parameters in step with the user's parameters.

    ``compute(values)`` maps the user parameters' values (``{"C": ..., "lambda_Q": ...}``) to
    ``(scaled, objective_scale)``: the values of the parameters the CVXPY problem is written in,
    and the factor from its optimum to the formulation's. Called by :meth:`KernelProblem.set`
    and :meth:`KernelProblem.solve` (a no-op when the user values did not change).
    """

    parameters: dict[str, cp.Parameter]
    compute: Callable[[dict[str, float]], tuple[dict[str, Any], float]]
    _last: tuple[tuple[str, float], ...] | None = field(default=None, repr=False)

    def __call__(self, problem: Any) -> None:
        """Set the scaled parameters and ``data["objective_scale"]`` from ``problem.parameters``."""
        values = {k: p.value for k, p in problem.parameters.items()}
        if any(v is None for v in values.values()):
            return  # solve() raises the typed error for an unset parameter
        key = tuple(sorted((k, float(np.asarray(v))) for k, v in values.items()))
        if key == self._last:
            return
        scaled, objective_scale = self.compute({k: float(np.asarray(v)) for k, v in values.items()})
        for name, value in scaled.items():
            self.parameters[name].value = value
        problem.data["objective_scale"] = objective_scale
        self._last = key

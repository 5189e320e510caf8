"""The c.p.d. SVM fit (000 §6): one workspace per data set, the routes on it, and the choice among them.

000 eq. (14) minimises λ αᵀΦα + Σ_i w_i max(0, 1 − y_i f_i)² over f = Φα + Pβ, Pᵀα = 0 (here with
scikit-learn's C = 1/(2λ), docs/conventions.md), or its β = 0 variant (000 §6.2). What a fit
computes from (kernel, X) alone — the kernel operator Φ and its column cache, the polynomial
factor (QR of P), the reduced kernel K_Ξ, the dense Φ, the answers of the separability test —
lives in one :class:`CPDWorkspace`; :func:`fit_cpd` chooses the route and fits one binary model
on it. A fit builds its own workspace (nothing is carried from one fit to the next); reuse across
fits on the same points (a grid search over C) is explicit: pass a :class:`CPDMemory`, which
keeps workspaces by (kernel, X) and gives each fit one no other fit is using. Every quantity a
workspace keeps is a deterministic function of (kernel, X) and every product over its column
caches runs in index order, so a fit with a memory gives the same bits as a cold one.

The reduced kernel
------------------
Pick k training points Ξ that are unisolvent for 𝒫 (Q_Ξ invertible, Q the orthonormal basis of
range P; chosen by a column-pivoted QR of Qᵀ) and let ℓ(x) be the Lagrange basis of 𝒫 on Ξ
(ℓ(X) = Q Q_Ξ⁻¹, ℓ_j(ξ_i) = δ_ij). The kernel

    K_Ξ(x, y) = φ(x, y) − ℓ(x)ᵀφ(Ξ, y) − φ(x, Ξ)ℓ(y) + ℓ(x)ᵀφ(Ξ, Ξ)ℓ(y)

is positive semidefinite (Wendland 2005, *Scattered Data Approximation*, Thm. 10.20: it is the
reproducing kernel of the semi-norm part of the native space of φ, the functions vanishing on Ξ).
On the training points K_Ξ = TᵀΦT with T = I − E_Ξ ℓ(X)ᵀ, and T maps every γ into 𝒫⊥ (PᵀT = 0): T is
the echelon null-space basis "P⊥ = [P̃⊥; I]" of 000 Appendix B with the global pivots Ξ. Hence, with
α = Tγ,

    αᵀΦα = γᵀK_Ξγ,     Φα + Pβ = K_Ξγ + Q c     (c = β̄ + Q_Ξ⁻¹(Φα)_Ξ),

and eq. (14) is exactly the p.d. squared-hinge problem min ½γᵀK_Ξγ + C Σ w_i max(0, 1 − y_i(K_Ξγ +
Qc)_i)² with the polynomial coefficients c unpenalised. Two routes solve it:
:func:`cpd_dual_svm` (its dual, on sdpkern's SMO core, :mod:`sdpkern.native.dual_svm`) and
:func:`cpd_primal_svm_reduced` (Chapelle's primal Newton method, 004, with the offset column
generalised to Q). The other routes are 000 Algorithm 1 as printed and the β = 0 Newton method
(:mod:`sdpkern.native.cpd.newton`) and the CVXPY builders (:mod:`sdpkern.builders.cpd_svm`).

Every route has the signature ``(K, Q, y, C, *, sample_weight, tol, max_iter)``: K the kernel as a
:class:`~sdpkern.kernels.gram.GramOperator`, Q the orthonormal polynomial basis, scikit-learn's C.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog

from ..._validation import check_positive
from ...errors import DataError, ParameterError
from ...kernels.base import Kernel
from ...kernels.cpd import PolynomialFactor, checked_matrix, cpd_decision, polynomial_factor
from ...kernels.gram import GramOperator, KernelGram, PrecomputedGram, ReducedGram, reduced_gram
from ..dual_svm import DualSVMResult, Loss, dual_svm, unpenalized_hinge_fit
from ..primal_svm import primal_svm_kernel
from .newton import BetaZeroKernel, NewtonResult, beta_zero_kernel, cpd_beta_zero_svm, cpd_primal_svm

__all__ = [
    "CPDWorkspace",
    "CPDMemory",
    "CPDFit",
    "fit_cpd",
    "cpd_dual_svm",
    "CPDDualResult",
    "cpd_primal_svm_reduced",
    "reduced_operator",
    "polynomially_separable",
    "polynomial_separator",
    "SOLVERS",
]

Array = NDArray[np.float64]

#: The routes of :func:`fit_cpd` (``solver=``): the compiled dual on K_Ξ, the primal Newton method
#: on K_Ξ, 000 Algorithm 1 as printed, the CVXPY builder; "auto" is the dual (the reduced Newton route
#: when the dual is not certified).
SOLVERS = ("auto", "dual", "reduced", "native", "cvxpy")


# ============================================================================ the reduced-kernel routes
def reduced_operator(K: GramOperator, Q: Array) -> ReducedGram:
    """K_Ξ for (K, Q): K itself when it is a :class:`~sdpkern.kernels.gram.ReducedGram` made for
    Q's polynomial space (its column cache then shared, e.g. by one-vs-rest models), else
    :func:`~sdpkern.kernels.gram.reduced_gram` over the c.p.d. kernel's
    :class:`~sdpkern.kernels.gram.KernelGram`.

    Raises
    ------
    ParameterError
        K is neither a KernelGram nor a ReducedGram.
    DataError
        K and Q disagree on the number of points or of polynomials.
    """
    if isinstance(K, ReducedGram):
        if K.n != Q.shape[0] or Q.ndim != 2 or K.unisolvent.size != Q.shape[1]:
            raise DataError(
                f"K is a reduced kernel on {K.n} points and {K.unisolvent.size} polynomials, but Q has shape {Q.shape}"
            )
        return K
    if not isinstance(K, KernelGram):
        raise ParameterError(
            "K must be the c.p.d. kernel's KernelGram on the training points or its ReducedGram, "
            f"got {type(K).__name__}"
        )
    if Q.ndim != 2 or Q.shape[0] != K.n:
        raise DataError(f"Q must have shape ({K.n}, k), got {Q.shape}")
    return reduced_gram(K, K.X, Q)


def cpd_primal_svm_reduced(
    K: GramOperator, Q: ArrayLike, y: ArrayLike, C: float, *, sample_weight: ArrayLike | None = None,
    tol: float = 1e-3, max_iter: int = 50, warm_start_size: int = 1000, random_state: int | None = 0,
) -> NewtonResult:
    """000 eq. (14) solved as the p.d. problem on K_Ξ with the polynomial block unpenalised.

    Same minimiser as :func:`~sdpkern.native.cpd.newton.cpd_primal_svm` (000 Algorithm 1), by
    the exact reduction of the module docstring; the Newton method is 004's (Chapelle 2007):
    exact line search, warm start on a random half, one Cholesky factor kept across steps, and
    only the kernel columns of points that are violators at some stage computed.

    Parameters
    ----------
    K : GramOperator
        The c.p.d. kernel Φ on the training points (a :class:`~sdpkern.kernels.gram.KernelGram`),
        or its reduced kernel K_Ξ made beforehand (``reduced_gram(kernel, X, Q)``): several solves
        on the same points (one-vs-rest) then share its column cache. A p.d. kernel with ``Q`` of
        shape (n, 0) is the SVM without offset.
    Q : (n, k) array
        Orthonormal basis of range P (``polynomial_factor(X, kernel).Q``).
    y : (n,) array of ±1
    C : float
        scikit-learn's C > 0 (000's λ = 1/(2C)).
    sample_weight : (n,) array, optional
        Per-point weights of the loss: Σ w_i max(0, 1 − y_i f_i)² in eq. (14) (a weight-2 point
        is a repeated point).
    tol : float, default=1e-3
        The certificate's threshold: ``status`` is "optimal" when the Newton method's violator
        set settled (the step then solves the KKT system exactly) and the stationarity
        ‖α − 2C w y∘ξ‖∞ / max(1, ‖α‖∞) is at most tol.
    max_iter, warm_start_size, random_state
        As in :func:`~sdpkern.native.primal_svm.primal_svm_kernel` (Newton steps).

    Returns
    -------
    NewtonResult
        ``alpha`` (Pᵀα = 0 to round-off), ``beta_bar``, ``f``, the eq. (14) objective;
        ``n_refactor`` counts Cholesky factorisations from scratch; ``times`` has "kernel"
        (seconds spent computing kernel columns), "columns" (how many this solve computed; with a
        shared K_Ξ those an earlier solve computed are not counted again) and "total".
    """
    t0 = time.perf_counter()
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    lam = 1.0 / (2.0 * C)  # eq. (14) = 2λ (½γᵀK_Ξγ + C Σ ξ²)
    Qa = np.asarray(Q, dtype=np.float64)
    rk = reduced_operator(K, Qa)
    cols0, secs0 = rk.columns_computed, rk.seconds
    res = primal_svm_kernel(
        rk, y, C, unpenalized=Qa, max_iter=max_iter, warm_start_size=warm_start_size, random_state=random_state,
        sample_weight=sample_weight,
    )  # fmt: skip
    assert res.outputs is not None and res.unpenalized_coef is not None
    alpha, beta_bar = rk.to_cpd(res.coef, res.unpenalized_coef)
    ya = np.asarray(y, dtype=np.float64)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    station = _stationarity(res.coef, res.outputs, ya, C, w)
    return NewtonResult(
        alpha=alpha,
        beta_bar=beta_bar,
        f=res.outputs,
        objective=2.0 * lam * res.objective,
        violators=np.flatnonzero(ya * res.outputs < 1.0),
        iterations=res.iterations,
        converged=bool(res.converged and station <= tol),
        n_refactor=res.factorisations,
        times={
            "kernel": rk.seconds - secs0,
            "columns": float(rk.columns_computed - cols0),
            "total": time.perf_counter() - t0,
        },
        certificate={"measure": "stationarity", "value": station, "tol": tol},
    )


def _stationarity(coef: Array, f: Array, y: Array, C: float, w: Array | None) -> float:
    """‖c − 2C w y∘ξ‖∞ / max(1, ‖c‖∞), ξ = max(0, 1 − y∘f): zero exactly at the optimum of the
    squared-hinge problem (its gradient in the expansion coefficients; 004, 000 Theorem 4.6)."""
    xi = np.maximum(0.0, 1.0 - y * f)
    Cw = C if w is None else C * w
    return float(np.abs(coef - 2.0 * Cw * y * xi).max(initial=0.0) / max(1.0, float(np.abs(coef).max(initial=0.0))))


@dataclass
class CPDDualResult:
    """Output of :func:`cpd_dual_svm`: the c.p.d. model and the dual solve behind it.

    Attributes
    ----------
    alpha : (n,) array
        Expansion coefficients of φ (Pᵀα = 0 to round-off).
    beta_bar : (k,) array
        Polynomial coefficients in the orthonormal basis Q.
    f : (n,) array
        Decision values at the training points.
    objective : float
        The c.p.d. objective λ αᵀΦα + Σ ℓ(y f) (000 eq. 14 for the squared hinge), λ = 1/(2C).
    dual : DualSVMResult
        The solve on K_Ξ (its ``certificate``: the KKT violation, the polynomial constraints'
        violation, the duality gap).
    """

    alpha: Array
    beta_bar: Array
    f: Array
    objective: float
    dual: DualSVMResult

    @property
    def status(self) -> str:
        """The dual solve's status."""
        return self.dual.status

    @property
    def n_iter(self) -> int:
        """SMO steps."""
        return self.dual.n_iter

    @property
    def certificate(self) -> dict[str, Any]:
        """The dual solve's KKT violation against ``tol``."""
        return {"measure": "kkt_violation", "value": self.dual.certificate["kkt_violation"],
                "tol": self.dual.certificate.get("tol", float("nan"))}  # fmt: skip


def cpd_dual_svm(
    K: GramOperator, Q: ArrayLike, y: ArrayLike, C: float, *, sample_weight: ArrayLike | None = None,
    tol: float = 1e-3, max_iter: int | None = None, loss: Loss = "squared_hinge", polish: bool | str = False,
    n_jobs: int = 1, unpenalized_fit: ArrayLike | None = None,
) -> CPDDualResult:
    """000 eq. (14) (or its hinge variant) by :func:`~sdpkern.native.dual_svm.dual_svm` on K_Ξ.

    The exact reduction of the module docstring (α = Tγ, the polynomial part unpenalised):
    eq. (14) with λ = 1/(2C) is 2λ (½γᵀK_Ξγ + C Σ ℓ). Same minimiser as
    :func:`cpd_primal_svm_reduced` (squared hinge) and
    :func:`sdpkern.builders.cpd_svm.hinge_dual` (hinge).

    Parameters
    ----------
    K : GramOperator
        The c.p.d. kernel Φ on the training points (a :class:`~sdpkern.kernels.gram.KernelGram`),
        or its reduced kernel K_Ξ (a :class:`~sdpkern.kernels.gram.ReducedGram`, used as it is:
        one-vs-rest models share its column cache). A p.d. kernel with ``Q`` of shape (n, 0) is
        the SVM without offset.
    Q : (n, k) array
        Orthonormal basis of range P (``polynomial_factor(X, kernel).Q``).
    y : (n,) array of ±1
    C : float
        scikit-learn's C > 0 (000's λ = 1/(2C)).
    sample_weight, tol, max_iter, polish, n_jobs, unpenalized_fit
        As in :func:`~sdpkern.native.dual_svm.dual_svm` (``max_iter``: SMO steps; ``n_jobs``: threads of
        its passes; ``unpenalized_fit``: the squared-hinge fit of y by 𝒫 alone, on the points).
    loss : {"squared_hinge", "hinge"}

    Returns
    -------
    CPDDualResult
    """
    C = check_positive(C, "C")
    Qa = np.asarray(Q, dtype=np.float64)
    rk = reduced_operator(K, Qa)
    res = dual_svm(
        rk,
        y,
        C,
        loss=loss,
        sample_weight=sample_weight,
        unpenalized=Qa if Qa.shape[1] else None,
        fit_intercept=False,  # eq. (14) has no offset beyond 𝒫 (which holds the constants)
        tol=tol,
        max_iter=max_iter,
        polish=polish,
        n_jobs=n_jobs,
        unpenalized_fit=unpenalized_fit,
    )
    res.certificate["tol"] = float(tol)
    # f = K_Ξγ + Qc: back to α = Tγ, β̄ of eq. (14)
    alpha, beta_bar = rk.to_cpd(res.dual_coef, res.coef_unpenalized)
    return CPDDualResult(alpha=alpha, beta_bar=beta_bar, f=res.outputs, objective=res.objective / C, dual=res)


# ============================================================================ separability (000 §6.2, §7)
def polynomially_separable(P: Array, y: Array) -> bool:
    """Whether some p ∈ 𝒫 separates the classes: ∃β with y_i (Pβ)_i ≥ 1 for all i (an LP).

    For the thin-plate kernel of order 2 this is linear separability, the test 000 §7 uses to
    choose the β = 0 variant. An empty polynomial space separates nothing.
    """
    return polynomial_separator(P, y) is not None


def polynomial_separator(P: Array, y: Array) -> Array | None:
    """A β with y_i (Pβ)_i ≥ 1 for all i (scaled so that the smallest margin is 1), or None.

    The decision of :func:`polynomially_separable`; the separator serves the β-free fit on
    separable data (000 §6.2: α = 0 and any separating p minimise eq. 14).
    """
    Pa, ya = np.ascontiguousarray(P, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)
    return _find_separator(Pa, ya, None)


def _find_separator(P: Array, y: Array, ls_fit: Array | None = None) -> Array | None:
    """:func:`polynomial_separator`, given (or not) the least-squares fit P P⁺y ``ls_fit`` (the
    workspace has it from the orthonormal Q of its factor, Q Qᵀy)."""
    n, k = P.shape
    if k == 0:
        return None
    # certificates cheaper than the LP on every point first: the least-squares fit p = P P⁺y when
    # it separates (p/min y∘p then satisfies the LP), or the least-distance problem's separator
    # or Farkas certificate; then a subset 𝒫 cannot separate proves the contrary, and its
    # separator, when it separates every point, proves separability. The LP on every point
    # decides the rest.
    margin = None if ls_fit is None else y * ls_fit
    if margin is None or float(margin.min()) > 1e-9 * float(np.abs(margin).max()):
        # (given a separating fit, β is still needed: lstsq computes it, as without the fit)
        beta = np.asarray(np.linalg.lstsq(P, y, rcond=None)[0], dtype=np.float64)
        margin = y * (P @ beta)
        if float(margin.min()) > 1e-9 * float(np.abs(margin).max()):
            return beta / float(margin.min())
    # the least-distance problem (NNLS, cheaper than the LP) proves either answer when it
    # finds a separator or Farkas' certificate; the LP decides what it leaves open
    ldp, inseparable = _least_distance_working_set(P, y, margin)
    if ldp is not None or inseparable:
        return ldp
    m = max(100, 5 * k)
    if n > 2 * m:
        # the points the least-squares fit gets most wrong, where a separating p is hardest to
        # find, and as many at random (a fixed seed: fits repeat)
        S = np.union1d(np.argsort(margin)[:m], np.random.default_rng(0).choice(n, m, replace=False))
        sub = _separating_lp(P[S], y[S])
        if sub is None:
            return None
        margin = y * (P @ sub)  # the subset's separator may separate every point: then proven
        if float(margin.min()) > 1e-9 * float(np.abs(margin).max()):
            return sub / float(margin.min())
    full = _separating_lp(P, y)
    if full is None:
        return None
    low = float((y * (P @ full)).min())
    # HiGHS holds the constraints to its feasibility tolerance: margins 1 − 1e-7 are possible
    return full / low if low > 0.0 else full


def _least_squares_separator(Q: Array, y: Array, w: Array | None = None) -> Array | None:
    """β̄ with y∘(Qβ̄) ≥ 1 (on the points of positive weight) from the least-squares fit of y,
    weighted by w when given, scaled; None when it does not separate.

    ``Q`` is an orthonormal basis of range P (unweighted: the fit is Q Qᵀy). When it separates,
    (α = 0, p = Qβ̄) attains eq. (14)'s minimum 0 (000 §6.2: then every separating p ∈ 𝒫 is a
    minimiser; the weighted fit makes the choice the same for a weight-2 point and a repeated
    one)."""
    if Q.shape[1] == 0:
        return None
    if w is None:
        bbar = Q.T @ y
    else:
        root = np.sqrt(w)
        bbar = np.asarray(np.linalg.lstsq(Q * root[:, None], root * y, rcond=None)[0], dtype=np.float64)
    margin = y * (Q @ bbar)
    if w is not None:
        margin = margin[w > 0]
    low = float(margin.min())
    if not low > 1e-9 * float(np.abs(margin).max()):
        return None
    return np.asarray(bbar / low, dtype=np.float64)


def _zero_loss_separator(factor: PolynomialFactor, y: Array, w: Array | None) -> tuple[Array, Array] | None:
    """(β, f = Pβ) of the minimum-norm polynomial separating the classes with margin ≥ 1 (on
    the points of positive weight ``w``), or None (not separable, or not found: the fit decides).

    When 𝒫 separates, α = 0 with any separating p minimises eq. (14) (000 §6.2); of those this
    takes the one of least Σ w_i p(x_i)² (the hard-margin separator in the coordinates of Q, a
    least-distance problem solved by NNLS: :func:`_min_norm_separator`), which does not depend
    on the basis and is the same for a weight-2 point and a repeated one."""
    if factor.Q.shape[1] == 0:
        return None
    m = None if w is None or np.all(w > 0) else w > 0  # points of weight 0 do not count
    bbar = _min_norm_separator(factor.Q, y, w)
    if bbar is None:
        return None
    # every margin ≥ 1 in floating point, so that the loss at this minimiser is exactly 0 (a
    # separator scaled by 1/min margin can land an ulp short of 1 on a point): scale up by ulps
    # (any separator scaled up is a minimiser too)
    f = factor.Q @ bbar
    m_pos = slice(None) if m is None else m
    for _ in range(4):
        low = float(np.min(y[m_pos] * f[m_pos]))
        if low >= 1.0:
            break
        bbar = bbar * ((1.0 + 4.0 * np.finfo(float).eps) / low)
        f = factor.Q @ bbar
    return factor.beta_from_bar(bbar), f


def _min_norm_separator(Q: Array, y: Array, w: Array | None = None) -> Array | None:
    """argmin Σ w_i (Qb)_i² subject to y_i (Qb)_i ≥ 1 (w_i > 0), or None when none is found
    (:func:`_least_distance`'s separator)."""
    return _least_distance(Q, y, w)[0]


def _least_distance(Q: Array, y: Array, w: Array | None = None) -> tuple[Array | None, bool]:
    """(argmin Σ w_i (Qb)_i² subject to y_i (Qb)_i ≥ 1 (w_i > 0) or None, whether the NNLS
    proved that no b satisfies the constraints).

    Lawson & Hanson's least-distance programming (min ‖x‖ s.t. Gx ≥ h, *Solving Least Squares
    Problems* ch. 23) through one NNLS in n variables: with u ≥ 0 minimising ‖[Gᵀ; hᵀ]u − e‖
    and r its residual, x = −r[:k]/r[k]. The answer is checked (every margin ≥ 1 − 1e-9, then
    rescaled to ≥ 1): a separator found is a proof. When r vanishes, Gᵀu = 0 with Σu = 1 is
    Farkas' certificate that the constraints have no solution (Σ u_i y_i p(x_i) would be both 0
    and ≥ Σ u_i); checked (Gᵀu within 1e-9 of Σu, the columns of G scaled to unit norm), it is
    the proof of inseparability.
    Neither: nothing is proved (the LP decides)."""
    from scipy.optimize import nnls

    n, k = Q.shape
    m = np.ones(n, dtype=bool) if w is None else w > 0
    if w is None:
        Z, T = Q, np.eye(k)  # Q orthonormal: Σ (Qb)_i² = ‖b‖²
    else:  # x = Lᵀb with LLᵀ = Qᵀ diag(w) Q, so that ‖x‖² = Σ w_i (Qb)_i²
        try:
            L = np.linalg.cholesky((Q.T * w) @ Q)
        except np.linalg.LinAlgError:
            return None, False
        T = np.linalg.inv(L.T)
        Z = Q @ T
    G = y[m, None] * Z[m]
    E = np.vstack([G.T, np.ones((1, G.shape[0]))])
    e = np.zeros(k + 1)
    e[k] = 1.0
    try:
        u = nnls(E, e, maxiter=max(100, 10 * (k + 1)))[0]
    except RuntimeError:  # too many iterations
        return None, False
    r = E @ u - e
    if not abs(r[k]) > 1e-12:
        total = float(u.sum())
        norms = np.linalg.norm(G, axis=0)
        scaled = np.abs(G.T @ u) / np.where(norms > 0.0, norms, 1.0)
        return None, bool(total > 0.0 and float(scaled.max(initial=0.0)) <= 1e-9 * total)
    b = T @ (-r[:k] / r[k])
    margin = y[m] * (Q[m] @ b)
    low = float(margin.min())
    if not low >= 1.0 - 1e-9:
        return None, False
    return np.asarray(b / min(low, 1.0), dtype=np.float64), False


def _least_distance_working_set(P: Array, y: Array, margin: Array, rounds: int = 8) -> tuple[Array | None, bool]:
    """:func:`_least_distance` (unweighted) of all points, solved on a working set first: the
    least-distance separator of the points with the smallest least-squares ``margin`` (max(64,
    2 dim 𝒫) of them) is that of all points as soon as it separates them all (a subset's
    minimiser that is feasible for every constraint minimises over the smaller feasible set
    too), and a subset no p separates proves that none separates all; until one or the other the
    most violated points (up to half the start) join, for at most ``rounds`` rounds, after which
    the NNLS on every point decides (the NNLS costs grow with the number of points)."""
    n, k = P.shape
    m0 = max(64, 2 * k)
    if n <= 2 * m0:
        return _least_distance(P, y)
    S = np.argsort(margin)[:m0]
    for _ in range(rounds):
        b, inseparable = _least_distance(P[S], y[S])
        if inseparable:
            return None, True
        if b is None:  # (not a proof of anything: the full problem decides)
            break
        mg = y * (P @ b)
        low = float(mg.min())
        if low >= 1.0 - 1e-9:  # the check _least_distance makes, on every point
            return np.asarray(b / min(low, 1.0), dtype=np.float64), False
        bad = np.flatnonzero(mg < 1.0 - 1e-9)
        S = np.union1d(S, bad[np.argsort(mg[bad])[: m0 // 2]])
    return _least_distance(P, y)


def _hinge_proves_inseparable(Q: Array, y: Array, w: Array | None, fit: Array) -> bool:
    """Whether the squared-hinge fit of y by 𝒫 alone (``fit``, its values; Q an orthonormal basis
    of 𝒫 on the points) proves that no p ∈ 𝒫 separates the classes: its slacks u = w∘ξ,
    ξ = max(0, 1 − y∘fit), are Farkas' certificate when Qᵀ(y∘u) = 0 (Σ u_i y_i p(x_i) would be
    both 0 and ≥ Σ u_i > 0), checked as :func:`_least_distance` checks its own (within 1e-9 of
    Σu, Q's columns of unit norm). The fit is the dual's start, computed anyway: the proof then
    costs one product with Qᵀ where the least-distance problem costs NNLS solves."""
    u = np.maximum(0.0, 1.0 - y * fit)
    if w is not None:
        u = u * w
    total = float(u.sum())
    return total > 0.0 and float(np.max(np.abs(Q.T @ (y * u)), initial=0.0)) <= 1e-9 * total


def _interpolates(factor: PolynomialFactor, X: Array, y: Array, w: Array | None) -> bool:
    """Whether 𝒫 interpolates every distinct point of positive weight (rank P = their number):
    then 𝒫⊥ holds only differences of repeated points, whose Φα is 0, and the β = 0 model would
    be f ≡ 0 (000 §6.2 needs 𝒫⊥ ≠ {0}). The distinct points are counted only when the
    least-squares fit reproduces y (necessary for interpolation)."""
    m = None if w is None or np.all(w > 0) else w > 0
    n = X.shape[0] if m is None else int(np.count_nonzero(m))
    if factor.rank >= n:
        return True
    if m is None:  # Q orthonormal: the least-squares fit is Q Qᵀy (no lstsq)
        fit = factor.Q @ (factor.Q.T @ y)
        ym = y
    else:
        ym = y[m]
        fit = factor.Q[m] @ np.linalg.lstsq(factor.Q[m], ym, rcond=None)[0]
    if float(np.linalg.norm(ym - fit)) > 1e-9 * np.sqrt(n):
        return False
    Xm = X if m is None else X[m]
    return factor.rank >= np.unique(Xm, axis=0).shape[0]


def _separable_lp(P: Array, y: Array) -> bool:
    """Feasibility of y_i (Pβ)_i ≥ 1 for all i (HiGHS)."""
    return _separating_lp(P, y) is not None


def _separating_lp(P: Array, y: Array) -> Array | None:
    """A β with y_i (Pβ)_i ≥ 1 for all i (HiGHS), or None when there is none."""
    res = linprog(
        c=np.zeros(P.shape[1]),
        A_ub=-(y[:, None] * P),
        b_ub=-np.ones(P.shape[0]),
        bounds=[(None, None)] * P.shape[1],
        method="highs",
    )
    return np.asarray(res.x, dtype=np.float64) if res.status == 0 else None




# ============================================================================ the workspace
def _digest(*parts: Array) -> bytes:
    """SHA-256 of the bytes of C-contiguous arrays (the keys of a workspace's and a memory's maps)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(np.ascontiguousarray(part).data)
    return h.digest()


class CPDWorkspace:
    """What a c.p.d. fit computes once from (kernel, X), made on first use (module docstring).

    Parameters
    ----------
    kernel : Kernel
        A :class:`~sdpkern.kernels.cpd.CPDKernel` or a p.d. kernel (empty polynomial space).
    X : (n, d) array
        The training inputs (as the kernel sees them: already scaled).

    Attributes
    ----------
    gram : KernelGram
        Φ on X, with its column cache.
    factor : PolynomialFactor
        The basis P of 𝒫 on X and its QR (``factor.Q`` the orthonormal basis).
    reduced : ReducedGram
        K_Ξ on X, with its column cache (one for every model fitted on this workspace).
    """

    def __init__(self, kernel: Kernel, X: ArrayLike) -> None:
        self.kernel = kernel
        self.X = np.ascontiguousarray(checked_matrix(X, "X"))
        self._gram: KernelGram | None = None
        self._factor: PolynomialFactor | None = None
        self._reduced: ReducedGram | None = None
        self._dense: PrecomputedGram | None = None
        self._beta_zero: BetaZeroKernel | None = None
        self._separators: dict[bytes, Array | None] = {}
        self._hinge_fits: dict[bytes, Array | None] = {}
        self._memory_key: bytes | None = None  # set by CPDMemory.take

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.X.shape[0])

    @property
    def gram(self) -> KernelGram:
        """Φ on X as an operator (made on first use)."""
        if self._gram is None:
            self._gram = KernelGram(self.kernel, self.X)
        return self._gram

    @property
    def factor(self) -> PolynomialFactor:
        """The polynomial factor of X (made on first use)."""
        if self._factor is None:
            self._factor = polynomial_factor(self.X, self.kernel)
        return self._factor

    @property
    def reduced(self) -> ReducedGram:
        """K_Ξ on X (made on first use)."""
        if self._reduced is None:
            self._reduced = reduced_gram(self.gram, self.X, self.factor.Q)
        return self._reduced

    def dense(self) -> PrecomputedGram:
        """Φ as a dense matrix (000 Algorithm 1 and the β = 0 route read all of it; made on first
        use). The β = 0 route uses its storage as work space and restores it bit for bit."""
        if self._dense is None:
            self._dense = PrecomputedGram._trusted(np.ascontiguousarray(self.kernel(self.X), dtype=np.float64))
        return self._dense

    def beta_zero_kernel(self) -> BetaZeroKernel:
        """The kernel of f for the β = 0 problem on X (:func:`~sdpkern.native.cpd.newton.beta_zero_kernel`
        of the dense Φ and Q; made on first use, in Φ's storage, restored bit for bit)."""
        if self._beta_zero is None:
            self._beta_zero = beta_zero_kernel(np.asarray(self.dense().K), self.factor.Q, overwrite_phi=True)
        return self._beta_zero

    def nbytes(self) -> int:
        """A bound on the memory the workspace can hold: Φ dense and the two column caches
        (each at most n columns of n entries)."""
        return 24 * self.n * self.n

    def separator(self, y: Array, w: Array | None = None, ls_fit: Array | None = None) -> Array | None:
        """:func:`polynomial_separator` of the points of positive weight, remembered by (y, w)
        (a deterministic function of them: a grid search over C asks once per fold).

        The test runs in the coordinates of the orthonormal basis Q of range P (the same question,
        and the separator β̄ mapped back to P's): its least-distance problem is then as well
        conditioned as the points allow, where P's columns carry the features' scales (raw wdbc:
        cond P = 7.8e5, and the NNLS took 3.6 times as long)."""
        key = _digest(y, np.zeros(0) if w is None else w)
        if key not in self._separators:
            factor = self.factor
            if w is not None and not np.all(w > 0):
                m = w > 0
                bbar = _find_separator(np.ascontiguousarray(factor.Q[m]), np.ascontiguousarray(y[m]))
            else:
                bbar = _find_separator(factor.Q, y, ls_fit)
            self._separators[key] = None if bbar is None else factor.beta_from_bar(bbar)
        out = self._separators[key]
        return None if out is None else out.copy()

    def hinge_fit(self, y: Array, w: Array | None = None) -> Array | None:
        """:func:`~sdpkern.native.dual_svm.unpenalized_hinge_fit` of y by 𝒫 alone (weights ``w``),
        on the points, remembered by (y, w): the separability test reads its Farkas certificate
        (:func:`_hinge_proves_inseparable`) and the dual starts its multipliers there."""
        key = _digest(y, np.zeros(0) if w is None else w)
        if key not in self._hinge_fits:
            self._hinge_fits[key] = unpenalized_hinge_fit(self.factor.Q, y, np.ones(self.n) if w is None else w)
        out = self._hinge_fits[key]
        return None if out is None else out.copy()


class CPDMemory:
    """Workspaces kept across fits on the same points: the explicit, opt-in reuse of a grid search.

    Pass one to an estimator (``ThinPlateSVC(memory=CPDMemory())``) and every fit on the same
    (kernel, X) — the k folds of a grid search over C, each fitted once per C — takes the
    workspace of the last such fit: Φ's and K_Ξ's kernel columns, the polynomial factor and the
    separability answers are computed once. A fit checks its workspace out and gives it back at
    its end, so fits running at once (a thread pool) never share one: a second fit on the same
    points meanwhile builds its own. The models are the same bits as without a memory (module
    docstring). Copies of an estimator share its memory (``copy.deepcopy`` and
    :func:`sklearn.base.clone` return the same object); a pickled memory comes back empty.

    Parameters
    ----------
    max_sets : int, default=8
        Workspaces kept at most, the least recently used dropped first (a k-fold search comes
        back to a fold after the k − 1 others).
    max_bytes : int, default=256 MiB
        Bound on their memory (:meth:`CPDWorkspace.nbytes`); one workspace is always kept.
    """

    def __init__(self, max_sets: int = 8, max_bytes: int = 256 << 20) -> None:
        if isinstance(max_sets, bool) or not isinstance(max_sets, (int, np.integer)) or max_sets < 1:
            raise ParameterError(f"max_sets must be a positive integer, got {max_sets!r}")
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) or max_bytes < 0:
            raise ParameterError(f"max_bytes must be a non-negative integer, got {max_bytes!r}")
        self.max_sets, self.max_bytes = int(max_sets), int(max_bytes)
        self._kept: OrderedDict[bytes, CPDWorkspace] = OrderedDict()
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, Any]) -> CPDMemory:
        return self  # a cache shared by the copies of an estimator (clone deep-copies parameters)

    def __getstate__(self) -> dict[str, int]:
        return {"max_sets": self.max_sets, "max_bytes": self.max_bytes}

    def __setstate__(self, state: dict[str, int]) -> None:
        self.__init__(state["max_sets"], state["max_bytes"])  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"CPDMemory(max_sets={self.max_sets}, max_bytes={self.max_bytes})"

    def __len__(self) -> int:
        return len(self._kept)

    @staticmethod
    def _key(kernel: Kernel, X: Array) -> bytes:
        return _digest(np.frombuffer(repr(kernel).encode(), dtype=np.uint8), np.asarray(X.shape, dtype=np.int64), X)

    def take(self, kernel: Kernel, X: ArrayLike) -> CPDWorkspace:
        """The workspace for (kernel, X): the kept one, checked out (no other fit can take it
        until :meth:`give_back`), or a new one."""
        Xa = np.ascontiguousarray(checked_matrix(X, "X"))
        key = self._key(kernel, Xa)
        with self._lock:
            ws = self._kept.pop(key, None)
        if ws is None:
            ws = CPDWorkspace(kernel, Xa)
        ws._memory_key = key
        return ws

    def give_back(self, ws: CPDWorkspace) -> None:
        """Keep ``ws`` (taken from this memory) for the next fit on its points; drop the least
        recently used beyond ``max_sets`` and ``max_bytes``."""
        key = ws._memory_key
        if key is None:
            raise ParameterError("give_back takes a workspace that take() gave")
        with self._lock:
            self._kept.pop(key, None)
            self._kept[key] = ws
            while len(self._kept) > 1 and (
                len(self._kept) > self.max_sets or sum(w.nbytes() for w in self._kept.values()) > self.max_bytes
            ):
                self._kept.popitem(last=False)

    @contextmanager
    def checkout(self, kernel: Kernel, X: ArrayLike) -> Iterator[CPDWorkspace]:
        """:meth:`take` for the duration of a ``with`` block, then :meth:`give_back`."""
        ws = self.take(kernel, X)
        try:
            yield ws
        finally:
            self.give_back(ws)


# ============================================================================ one binary fit
@dataclass
class CPDFit:
    """One fitted binary model f(x) = Σ α_j φ(x, x_j) + Σ β_k p_k(x) and how it was reached.

    ``solver`` names the route that ran ("dual", "reduced", "native", "beta_zero", "cvxpy", or
    "separator": the closed-form minimiser when 𝒫 separates the classes); ``certificate`` is its
    optimality measure with the ``tol`` it is held to; ``status`` follows the conventions.
    """

    alpha: Array
    beta: Array
    beta_zero: bool
    objective: float
    n_iter: int
    status: str
    outputs: Array
    solver: str
    certificate: dict[str, Any] = field(default_factory=dict)


def _free_fit(
    ws: CPDWorkspace, y: Array, C: float, w: Array | None, solver: str, tol: float, max_iter: int, backend: str,
    inseparable: bool, n_jobs: int = 1,
) -> CPDFit:  # fmt: skip
    """The β-free problem (000 eq. 14) by ``solver`` (``"auto"``: the dual)."""
    factor = ws.factor
    if not inseparable and solver != "cvxpy":
        # 𝒫 separates by its least-squares fit: α = 0 and that p attain the minimum 0 of eq. (14)
        # exactly (the iterative routes would go on to another separator, slowly: the dual's
        # feasible set is then {0})
        sep = _zero_loss_separator(factor, y, w)
        if sep is not None:
            beta, f = sep
            xi = np.maximum(0.0, 1.0 - y * f)  # 0 but for round-off
            loss = float(xi @ xi) if w is None else float((w * xi) @ xi)
            cert = {"measure": "stationarity", "value": 0.0, "tol": tol}
            return CPDFit(np.zeros(ws.n), beta, False, loss, 0, "optimal", f, "separator", cert)
    # "auto" is the dual: its SMO and Newton finish, chosen between by counts of steps and points
    # (dual_svm._run_squared), stay within twice the better of the two on any data, with no
    # threshold in n, d or k to tune (docs/cpd.md, "Which route"); the reduced Newton route decides
    # when the dual is not certified
    route = "dual" if solver == "auto" else solver
    if route == "dual":
        d = cpd_dual_svm(ws.reduced, factor.Q, y, C, tol=tol, polish="auto", sample_weight=w, n_jobs=n_jobs,
                         unpenalized_fit=ws.hinge_fit(y, w))
        if d.status == "optimal" or solver == "dual":
            cert = {"measure": "stationarity", "value": _stationarity(d.dual.dual_coef, d.f, y, C, w), "tol": tol,
                    "kkt_violation": d.dual.certificate["kkt_violation"]}  # fmt: skip
            return CPDFit(d.alpha, factor.beta_from_bar(d.beta_bar), False, d.objective, d.n_iter, d.status, d.f,
                          "dual", cert)  # fmt: skip
        route = "reduced"  # "auto" and not certified (the SMO step cap): the Newton route decides
    if route == "reduced":
        r = cpd_primal_svm_reduced(ws.reduced, factor.Q, y, C, tol=tol, max_iter=max_iter, sample_weight=w)
        return _newton_fit(r, factor, False, "reduced")
    if route == "native":
        if w is not None:
            raise ParameterError(
                "sample_weight and class_weight need solver='auto', 'dual', 'reduced' or 'cvxpy' (000 Algorithm 1 "
                "as printed, solver='native', has no per-point weights)"
            )
        a1 = cpd_primal_svm(ws.dense(), factor.Q, y, C, tol=tol, max_iter=max_iter)
        return _newton_fit(a1, factor, False, "native")
    return _cvxpy_fit(ws, y, C, w, False, backend)


def _newton_fit(res: NewtonResult, factor: PolynomialFactor, bz: bool, solver: str) -> CPDFit:
    beta = np.zeros(factor.space.dim) if bz else factor.beta_from_bar(res.beta_bar)
    status = "optimal" if res.converged else "iteration_limit"
    return CPDFit(res.alpha, beta, bz, res.objective, res.iterations, status, res.f, solver, dict(res.certificate))


def _cvxpy_fit(ws: CPDWorkspace, y: Array, C: float, w: Array | None, bz: bool, backend: str) -> CPDFit:
    from ...builders.cpd_svm import squared_hinge, squared_hinge_beta_zero

    build = squared_hinge_beta_zero if bz else squared_hinge
    sol = build(ws.X, y, ws.kernel, C=C, sample_weight=w).solve(backend=backend)
    model = sol.model
    assert model.alpha is not None and model.beta is not None
    f = np.asarray(model.extras["train_decision"], dtype=np.float64)
    cert = sol.certificate
    residuals: dict[str, Any] = {"measure": "relative gap", "backend": backend,
                                 "value": None if cert is None else cert.relative_gap,
                                 "tol": None if cert is None else cert.tol}  # fmt: skip
    return CPDFit(model.alpha, model.beta, bz, float(model.extras["objective_eq14"]), 0, sol.status, f, "cvxpy",
                  residuals)  # fmt: skip


def _beta_zero_fit(
    ws: CPDWorkspace, y: Array, C: float, w: Array | None, solver: str, tol: float, max_iter: int, update: str,
    backend: str,
) -> CPDFit:  # fmt: skip
    """The β = 0 problem (000 §6.2) by ``solver``. Its function class {Σ α_j φ(·, x_j): Pᵀα = 0}
    depends on the points, so points of weight 0 are removed points (scikit-learn's convention):
    the problem is solved on the others, α = 0 on them."""
    if w is not None and not np.all(w > 0):
        m = np.flatnonzero(w > 0)
        sub = _beta_zero_fit(CPDWorkspace(ws.kernel, ws.X[m]), y[m], C, w[m], solver, tol, max_iter, update, backend)
        alpha = np.zeros(ws.n)
        alpha[m] = sub.alpha
        f = cpd_decision(ws.kernel, ws.X[m], sub.alpha, ws.factor, np.zeros(ws.factor.space.dim), ws.X)
        return CPDFit(alpha, sub.beta, True, sub.objective, sub.n_iter, sub.status, f, sub.solver, sub.certificate)
    if solver == "cvxpy":
        return _cvxpy_fit(ws, y, C, w, True, backend)
    Q = ws.factor.Q
    if solver == "auto" and w is None:
        # the kernel of f: Newton systems of order |s| instead of n − k (000 eq. 18's)
        r = cpd_beta_zero_svm(ws.dense(), Q, y, C, tol=tol, max_iter=max_iter, kernel=ws.beta_zero_kernel())
        return _newton_fit(r, ws.factor, True, "beta_zero")
    a1 = cpd_primal_svm(ws.dense(), Q, y, C, beta_zero=True, update=update, tol=tol, max_iter=max_iter,  # type: ignore[arg-type]
                        sample_weight=w)  # fmt: skip
    return _newton_fit(a1, ws.factor, True, "native")


def fit_cpd(
    ws: CPDWorkspace,
    y: Array,
    C: float,
    *,
    sample_weight: Array | None = None,
    solver: str = "auto",
    beta_zero: bool | str = "auto",
    tol: float = 1e-3,
    max_iter: int = 100,
    update: str = "rank_one",
    backend: str = "clarabel",
    n_jobs: int = 1,
) -> CPDFit:
    """One binary c.p.d. SVM (000 eq. 14, or its β = 0 variant of §6.2) on the workspace ``ws``.

    ``beta_zero="auto"`` takes the β = 0 variant exactly when 𝒫 separates the points of positive
    weight (000 §7) and does not interpolate them all. Separability is proved by the
    least-squares fit when it separates, else by the least-distance problem's separator or
    Farkas certificate (one NNLS), and decided by an LP only when neither comes out
    (:func:`polynomially_separable`).

    Parameters
    ----------
    ws : CPDWorkspace
    y : (n,) array of ±1
    C : float
        scikit-learn's C (000's λ = 1/(2C)).
    sample_weight : (n,) array, optional
    solver : {"auto", "dual", "reduced", "native", "cvxpy"}
    beta_zero : {"auto", True, False}
    tol : float
        Every route's certificate threshold (the dual's KKT tolerance).
    max_iter : int
        Newton steps of the Newton routes (the dual's SMO cap is its own, max(10⁷, 100 n)).
    update : {"rank_one", "refactor"}
        000 Algorithm 1's Hessian updates (``solver="native"`` and its β = 0 branch).
    backend : str
        The CVXPY backend of ``solver="cvxpy"``.
    n_jobs : int
        Threads of the dual's SMO, its passes and its kernel columns' rows (the same model for any
        number).

    Returns
    -------
    CPDFit
    """
    w = sample_weight
    factor = ws.factor
    inseparable = False  # the separability LP answered no: the β-free fit need not look for a separator
    if beta_zero == "auto":
        # β = 0 when 𝒫 separates the classes (000 §7), unless 𝒫 interpolates every distinct point
        # (then the β = 0 model would be f ≡ 0: _interpolates)
        bz = False
        if _interpolates(factor, ws.X, y, w):
            bz = False
        elif w is not None and not np.all(w > 0):
            bz = ws.separator(y, w) is not None  # separability of the points that count
            inseparable = not bz
        elif _least_squares_separator(factor.Q, y, w) is not None:
            bz = True
        else:
            fit = ws.hinge_fit(y, w)
            if fit is not None and _hinge_proves_inseparable(factor.Q, y, w, fit):
                bz, inseparable = False, True
            else:
                ls = factor.Q @ (factor.Q.T @ y)  # P P⁺y, the separability test's first step
                bz = ws.separator(y, w, ls) is not None
                inseparable = not bz
    else:
        bz = bool(beta_zero)
    if bz:
        return _beta_zero_fit(ws, y, C, w, solver, tol, max_iter, update, backend)
    return _free_fit(ws, y, C, w, solver, tol, max_iter, backend, inseparable, n_jobs)

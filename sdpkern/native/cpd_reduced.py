"""The c.p.d. squared-hinge SVM as a p.d. one: the reduced kernel and an unpenalised polynomial block.

000 eq. (14) minimises λ αᵀΦα + Σ_i max(0, 1 − y_i f_i)² over f = Φα + Pβ with Pᵀα = 0. Pick k
training points Ξ that are unisolvent for 𝒫 (Q_Ξ invertible, Q the orthonormal basis of range P;
chosen by a column-pivoted QR of Qᵀ) and let ℓ(x) be the Lagrange basis of 𝒫 on Ξ (ℓ(X) = Q Q_Ξ⁻¹,
ℓ_j(ξ_i) = δ_ij). The kernel

    K_Ξ(x, y) = φ(x, y) − ℓ(x)ᵀφ(Ξ, y) − φ(x, Ξ)ℓ(y) + ℓ(x)ᵀφ(Ξ, Ξ)ℓ(y)

is positive semidefinite (Wendland 2005, *Scattered Data Approximation*, Thm. 10.20: it is the
reproducing kernel of the semi-norm part of the native space of φ, the functions vanishing on Ξ).
On the training points K_Ξ = TᵀΦT with T = I − E_Ξ ℓ(X)ᵀ, and T maps every γ into 𝒫⊥ (PᵀT = 0): T is
the echelon null-space basis "P⊥ = [P̃⊥; I]" of 000 Appendix B with the global pivots Ξ. Hence, with
α = Tγ,

    αᵀΦα = γᵀK_Ξγ,     Φα + Pβ = K_Ξγ + Q c     (c = β̄ + Q_Ξ⁻¹(Φα)_Ξ),

and eq. (14) is exactly the p.d. squared-hinge problem  min λ γᵀK_Ξγ + Σ max(0, 1 − y_i(K_Ξγ + Qc)_i)²
with the polynomial coefficients c unpenalised: Chapelle's (2007) primal Newton SVM (004) with the
offset column generalised to Q, solved by :func:`~sdpkern.native.primal_svm.primal_svm_kernel`.
Its Newton system on the violators s is 000 eq. (17) with Φ_ss replaced by the positive definite
(K_Ξ)_ss, so one Cholesky factor can be kept over a superset of s, entering points appended as a
block and leaving ones pinned by multipliers, with kernel columns computed only for points that
are violators at some stage; no n × n matrix is formed.
"""

from __future__ import annotations

import hashlib
import threading
import time
import warnings
import weakref

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_positive
from ..errors import DataError, ParameterError
from ..kernels.gram import GramOperator, KernelGram, ReducedGram, reduced_gram
from .cpd_newton import NewtonResult
from .primal_svm import PrimalSVMResult, primal_svm_kernel

__all__ = ["cpd_primal_svm_reduced", "reduced_operator", "warm_start_known", "remember_solution"]

Array = NDArray[np.float64]


def reduced_operator(K: GramOperator, Q: Array) -> ReducedGram:
    """K_Ξ for (K, Q): K itself when it is a :class:`~sdpkern.kernels.gram.ReducedGram` made for
    Q's polynomial space (its column cache then shared, e.g. by one-vs-rest models), else
    :func:`~sdpkern.kernels.gram.reduced_gram` over the c.p.d. kernel's
    :class:`~sdpkern.kernels.gram.KernelGram`.

    The one check of the kernel argument of :func:`cpd_primal_svm_reduced` and
    :func:`sdpkern.native.dual_svm.cpd_dual_svm`.

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


#: The last solutions on each shared reduced kernel (a :class:`ReducedGram` passed as ``reduced``,
#: as the estimators do: a grid search hands a fold's operators from one C to the next), keyed by
#: a hash of (y, sample_weight): the next solve on the same points and labels starts from the
#: nearest C's solution instead of from every point as a violator. Entries go with their
#: ReducedGram (weak keys), at most _WARM_KEPT per operator; a lock guards the table (the
#: arrays stored are never modified). Measured, german folds of 320 points, the 8 C of a grid
#: search (1/(2λ), λ = 1e-4 … 1e3, in that order), columns cached: 31-51 ms cold, 16-27 ms warm
#: for the 8 solves (two runs each, shared machine); fewer factorisations of order |s|, sometimes
#: a Newton step more (at large λ every point is a violator: the cold start's first step is the
#: answer).
_WARM: weakref.WeakKeyDictionary[ReducedGram, dict[bytes, tuple[int, Array, Array]]] = weakref.WeakKeyDictionary()
_WARM_KEPT = 8
_WARM_LOCK = threading.Lock()


def _warm_key(y: Array, w: Array | None) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    h.update(np.ascontiguousarray(y, dtype=np.float64).tobytes())
    if w is not None:
        h.update(np.ascontiguousarray(w, dtype=np.float64).tobytes())
    return h.digest()


def _warm_start(rk: ReducedGram, key: bytes, k: int) -> tuple[Array, Array] | None:
    """The remembered (γ, c) for ``key`` on ``rk``, if its violators were at least 2k: with fewer
    the Newton systems' polynomial block Q_s is (nearly) rank deficient and the iteration from
    such a start was seen to cycle (twonorm, 320 points, 𝒫-separable: 6-14 violators for k = 21,
    50 steps unsettled where the cold start, from every point, settles in 19-30)."""
    with _WARM_LOCK:
        hit = _WARM.get(rk, {}).get(key)
    if hit is None or hit[0] < 2 * k:
        return None
    return hit[1], hit[2]


def _remember(rk: ReducedGram, key: bytes, gamma: Array, c: Array, n_violators: int) -> None:
    with _WARM_LOCK:
        table = _WARM.setdefault(rk, {})
        table.pop(key, None)
        table[key] = (n_violators, gamma.copy(), c.copy())
        while len(table) > _WARM_KEPT:
            del table[next(iter(table))]


def warm_start_known(rk: ReducedGram, y: ArrayLike, sample_weight: ArrayLike | None = None) -> bool:
    """Whether :func:`cpd_primal_svm_reduced` on ``rk`` (passed as ``reduced``) with these labels
    and weights would start from a remembered solution (:data:`_WARM`; another C's, on the
    same points)."""
    ya, wa = np.asarray(y), None if sample_weight is None else np.asarray(sample_weight)
    if ya.ndim != 1 or ya.shape[0] != rk.n or (wa is not None and wa.shape != ya.shape):
        return False
    return _warm_start(rk, _warm_key(ya, wa), rk.unisolvent.size) is not None


def remember_solution(
    rk: ReducedGram, y: ArrayLike, sample_weight: ArrayLike | None, gamma: Array, c: Array, n_violators: int
) -> None:
    """Keep (γ, c), a solution of the p.d. problem on ``rk`` found by another solver (the dual
    SMO, :func:`sdpkern.native.dual_svm.cpd_dual_svm`: γ its ``dual_coef``, c its
    ``coef_unpenalized``), as the start of the next :func:`cpd_primal_svm_reduced` on ``rk``
    with these labels and weights (a grid search's next C on the same fold)."""
    ya, wa = np.asarray(y), None if sample_weight is None else np.asarray(sample_weight)
    if ya.ndim == 1 and ya.shape[0] == rk.n:
        _remember(rk, _warm_key(ya, wa), gamma, c, n_violators)


def cpd_primal_svm_reduced(
    K: GramOperator,
    Q: ArrayLike,
    y: ArrayLike,
    C: float,
    *,
    max_iter: int = 50,
    warm_start_size: int = 1000,
    random_state: int | None = 0,
    sample_weight: ArrayLike | None = None,
    warm: bool = True,
) -> NewtonResult:
    """000 eq. (14) solved as the p.d. problem on K_Ξ with the polynomial block unpenalised.

    Same minimiser as :func:`~sdpkern.native.cpd_newton.cpd_primal_svm` (000 Algorithm 1), by
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
    max_iter, warm_start_size, random_state
        As in :func:`~sdpkern.native.primal_svm.primal_svm_kernel`.
    sample_weight : (n,) array, optional
        Per-point weights of the loss: Σ w_i max(0, 1 − y_i f_i)² in eq. (14) (a weight-2 point
        is a repeated point).
    warm : bool, default=True
        With a shared reduced kernel K, start from the last solution on it for the same y and
        weights (another λ: :data:`_WARM`) when there is one; the optimum does not depend on
        the start, only the Newton steps taken.

    Returns
    -------
    NewtonResult
        ``alpha`` (Pᵀα = 0 to round-off), ``beta_bar``, ``f``, the eq. (14) objective;
        ``n_refactor`` counts Cholesky factorisations from scratch; ``times`` has "kernel"
        (seconds spent computing kernel columns), "columns" (how many this solve computed; with a
        shared ``reduced`` those an earlier solve computed are not counted again) and "total".
    """
    t0 = time.perf_counter()
    C = check_positive(C, "C")
    lam = 1.0 / (2.0 * C)  # eq. (14) = 2λ (½γᵀK_Ξγ + C Σ ξ²)
    Qa = np.asarray(Q, dtype=np.float64)
    rk = reduced_operator(K, Qa)
    cols0, secs0 = rk.columns_computed, rk.seconds
    key = None
    if warm and rk is K:
        ya0 = np.asarray(y)
        wa0 = None if sample_weight is None else np.asarray(sample_weight)
        if ya0.ndim == 1 and ya0.shape[0] == rk.n and (wa0 is None or wa0.shape == ya0.shape):
            key = _warm_key(ya0, wa0)
    init = None if key is None else _warm_start(rk, key, Qa.shape[1])

    def solve(init: tuple[Array, Array] | None) -> PrimalSVMResult:
        return primal_svm_kernel(
            rk, y, C, unpenalized=Qa, max_iter=max_iter, warm_start_size=warm_start_size,
            random_state=random_state, sample_weight=sample_weight, init=init,
        )  # fmt: skip

    if init is None:
        res = solve(None)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = solve(init)
        if not res.converged:  # unsettled from this start: from scratch, so that a start never fails a solve
            res = solve(None)
    assert res.outputs is not None and res.unpenalized_coef is not None
    if key is not None and res.converged:
        _remember(rk, key, res.coef, res.unpenalized_coef, res.support.size)
    alpha, beta_bar = rk.to_cpd(res.coef, res.unpenalized_coef)
    ya = np.asarray(y, dtype=np.float64)
    return NewtonResult(
        alpha=alpha,
        beta_bar=beta_bar,
        f=res.outputs,
        objective=2.0 * lam * res.objective,
        violators=np.flatnonzero(ya * res.outputs < 1.0),
        iterations=res.iterations,
        converged=res.converged,
        n_refactor=res.factorisations,
        times={
            "kernel": rk.seconds - secs0,
            "columns": float(rk.columns_computed - cols0),
            "total": time.perf_counter() - t0,
        },
    )

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

import time

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_positive
from ..errors import DataError
from ..kernels.base import Kernel
from ..kernels.cpd import checked_matrix
from ..kernels.gram import ReducedGram, reduced_gram
from .cpd_newton import NewtonResult
from .primal_svm import primal_svm_kernel

__all__ = ["cpd_primal_svm_reduced", "checked_reduced_gram"]

Array = NDArray[np.float64]


def checked_reduced_gram(kernel: Kernel, X: ArrayLike, Q: Array, reduced: ReducedGram | None) -> ReducedGram:
    """The reduced kernel K_Ξ of (kernel, X, Q): ``reduced`` when given (checked to belong to
    them: the one-vs-rest models share its column cache), else ``reduced_gram(kernel, X, Q)``.

    The one check of the ``reduced`` argument of :func:`cpd_primal_svm_reduced` and
    :func:`sdpkern.native.dual_svm.cpd_dual_svm`.

    Raises
    ------
    DataError
        ``reduced`` was made for another kernel, or for another number of points or of polynomials.
    """
    if reduced is None:
        return reduced_gram(kernel, checked_matrix(X, "X"), Q)
    if reduced.kernel != kernel or reduced.n != Q.shape[0] or reduced.unisolvent.size != Q.shape[1]:
        raise DataError("reduced was made for another kernel or other points than (kernel, X, Q)")
    return reduced


def cpd_primal_svm_reduced(
    kernel: Kernel,
    X: ArrayLike,
    Q: ArrayLike,
    y: ArrayLike,
    lam: float,
    *,
    reduced: ReducedGram | None = None,
    max_iter: int = 50,
    warm_start_size: int = 1000,
    random_state: int | None = 0,
    sample_weight: ArrayLike | None = None,
) -> NewtonResult:
    """000 eq. (14) solved as the p.d. problem on K_Ξ with the polynomial block unpenalised.

    Same minimiser as :func:`~sdpkern.native.cpd_newton.cpd_primal_svm` (000 Algorithm 1), by
    the exact reduction of the module docstring; the Newton method is 004's (Chapelle 2007):
    exact line search, warm start on a random half, one Cholesky factor kept across steps, and
    only the kernel columns of points that are violators at some stage computed.

    Parameters
    ----------
    kernel : Kernel
        A c.p.d. kernel (or a p.d. one with ``Q`` of shape (n, 0)).
    X : (n, d) array
    Q : (n, k) array
        Orthonormal basis of range P (``polynomial_factor(X, kernel).Q``).
    y : (n,) array of ±1
    lam : float
        λ > 0 of 000 eq. (14).
    reduced : ReducedGram, optional
        ``reduced_gram(kernel, X, Q)`` made beforehand: several solves on the same points
        (one-vs-rest) then share its column cache and compute each kernel column once.
    max_iter, warm_start_size, random_state
        As in :func:`~sdpkern.native.primal_svm.primal_svm_kernel`.
    sample_weight : (n,) array, optional
        Per-point weights of the loss: Σ w_i max(0, 1 − y_i f_i)² in eq. (14) (a weight-2 point
        is a repeated point).

    Returns
    -------
    NewtonResult
        ``alpha`` (Pᵀα = 0 to round-off), ``beta_bar``, ``f``, the eq. (14) objective;
        ``n_refactor`` counts Cholesky factorisations from scratch; ``times`` has "kernel"
        (seconds spent computing kernel columns), "columns" (how many this solve computed; with a
        shared ``reduced`` those an earlier solve computed are not counted again) and "total".
    """
    t0 = time.perf_counter()
    lam = check_positive(lam, "lam")
    Qa = np.asarray(Q, dtype=np.float64)
    rk = checked_reduced_gram(kernel, X, Qa, reduced)
    cols0, secs0 = rk.columns_computed, rk.seconds
    # eq. (14) = 2λ (½γᵀK_Ξγ + C Σ ξ²) with C = 1/(2λ)
    res = primal_svm_kernel(
        rk,
        y,
        1.0 / (2.0 * lam),
        unpenalized=Qa,
        max_iter=max_iter,
        warm_start_size=warm_start_size,
        random_state=random_state,
        sample_weight=sample_weight,
    )
    assert res.outputs is not None and res.unpenalized_coef is not None
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

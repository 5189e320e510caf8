"""Filter functions: how a regularisation method acts on the spectrum of ``K`` (002 §5.3).

Every method here returns ``α = Σ_i φ(λ_i) ⟨y, u_i⟩/λ_i · u_i`` for the eigenpairs
``K u_i = λ_i u_i`` (002 §5.3, the regularised form of Proposition 32). The fixed filters of
002 §5.3.1-5.3.3 are closed forms in a parameter γ; the Krylov filters of 002 §5.3.4,
``φ(λ, k) = λ q_{k−1}(λ)``, depend on ``y`` through the coefficients a solver recorded, and
:func:`iteration_polynomials` evaluates ``q_{k−1}`` by replaying those recurrences with ``A``
replaced by the scalar ``λ`` and ``r₀`` by 1.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import DataError, ParameterError
from .krylov import KrylovResult

__all__ = [
    "iteration_polynomials",
    "residual_polynomials",
    "filter_factors",
    "cg_residual_recurrence",
    "tsf_filter",
    "tikhonov_filter",
    "ridge_filter",
    "landweber_filter",
    "filtered_solution",
]


def iteration_polynomials(result: KrylovResult, eigenvalues: ArrayLike) -> NDArray[np.float64]:
    """Values ``q_{k−1}(λ)`` of a run's iteration polynomials (002 eq. (5.2)).

    ``x_k = x_0 + q_{k−1}(A) r_0``; row ``k`` holds ``q_{k−1}`` at every ``λ`` for
    ``k = 0 … result.iterations`` (row 0 is ``q_{−1} = 0``).

    Parameters
    ----------
    result : KrylovResult
        A run of :func:`~sdpkern.native.krylov.cg`, ``mr``, ``cgne`` or ``mr_ii``.
    eigenvalues : array of shape (m,)
        Where to evaluate (eigenvalues of ``A`` or any grid, e.g. for 002 Figures 5.4-5.7).

    Returns
    -------
    ndarray of shape (result.iterations + 1, m)
    """
    lam = np.asarray(eigenvalues, dtype=np.float64).reshape(-1)
    c = result.coefficients
    k_max = result.iterations
    out = np.zeros((k_max + 1, lam.shape[0]))
    x = np.zeros_like(lam)
    r = np.ones_like(lam)
    if result.method in ("cg", "mr"):
        # Both update d_{k+1} = r_{k+1} + β d_k (002 Figure 5.1).
        d = r.copy()
        for k in range(k_max):
            a, b = c["alpha"][k], c["beta"][k]
            x = x + a * d
            r = r - a * lam * d
            d = r + b * d
            out[k + 1] = x
    elif result.method == "cgne":
        d = lam * r
        for k in range(k_max):
            a, b = c["alpha"][k], c["beta"][k]
            x = x + a * d
            r = r - a * lam * d
            d = lam * r + b * d
            out[k + 1] = x
    elif result.method == "mr_ii":
        beta = float(c["beta0"][0])
        v = lam * r / beta
        w = lam * v
        v_old = np.zeros_like(lam)
        w_old = np.zeros_like(lam)
        for k in range(k_max):
            rho, a, b_new = c["rho"][k], c["alpha"][k], c["beta"][k]
            x = x + rho * v
            out[k + 1] = x
            if k == k_max - 1:
                break
            v_new = w - a * v - beta * v_old
            w_new = lam * w - a * w - beta * w_old
            v_old, w_old = v, w
            v, w = v_new / b_new, w_new / b_new
            beta = b_new
    else:
        raise ParameterError(f"result.method must be one of cg, mr, cgne, mr_ii, got {result.method!r}")
    return out


def residual_polynomials(result: KrylovResult, eigenvalues: ArrayLike) -> NDArray[np.float64]:
    """``p_k(λ) = 1 − λ q_{k−1}(λ)`` (002 eq. (5.2)), shape ``(iterations + 1, m)``."""
    lam = np.asarray(eigenvalues, dtype=np.float64).reshape(-1)
    return 1.0 - lam * iteration_polynomials(result, lam)


def filter_factors(result: KrylovResult, eigenvalues: ArrayLike) -> NDArray[np.float64]:
    """Krylov filter factors ``φ(λ, k) = λ q_{k−1}(λ)`` (002 §5.3.4), shape ``(iterations + 1, m)``.

    With ``x_0 = 0`` they rebuild every iterate:
    ``x_k = Σ_i φ(λ_i, k) ⟨b, u_i⟩/λ_i u_i`` (see :func:`filtered_solution`).

    Examples
    --------
    >>> import numpy as np
    >>> from sdpkern.native.krylov import cg
    >>> res = cg(np.diag([1.0, 3.0]), np.ones(2), rtol=1e-14)
    >>> np.round(filter_factors(res, [1.0, 3.0])[-1], 8).tolist()  # converged: φ = 1
    [1.0, 1.0]
    """
    lam = np.asarray(eigenvalues, dtype=np.float64).reshape(-1)
    return lam * iteration_polynomials(result, lam)


def cg_residual_recurrence(result: KrylovResult, eigenvalues: ArrayLike) -> NDArray[np.float64]:
    """CG residual polynomials by the three-term recurrence 002 eq. (5.3).

    ``p_0 = 1``, ``p_1 = 1 − α_0 λ``,
    ``p_{k+1} = −α_k λ p_k + p_k − α_k (β_k/α_{k−1}) (p_{k−1} − p_k)`` where ``β_k`` is the
    coefficient of ``d_k = r_k + β_k d_{k−1}`` (Proposition 35). An independent route to
    :func:`residual_polynomials` for CG (and MR, which has the same two-term form).
    """
    if result.method not in ("cg", "mr"):
        raise ParameterError(f"eq. (5.3) is stated for cg (and mr); got result.method={result.method!r}")
    lam = np.asarray(eigenvalues, dtype=np.float64).reshape(-1)
    alpha, beta = result.coefficients["alpha"], result.coefficients["beta"]
    out = np.ones((result.iterations + 1, lam.shape[0]))
    if result.iterations == 0:
        return out
    out[1] = 1.0 - alpha[0] * lam
    for k in range(1, result.iterations):
        # beta[k-1] is β_k in the thesis' indexing (it multiplies d_{k-1} in d_k).
        ratio = alpha[k] * beta[k - 1] / alpha[k - 1]
        out[k + 1] = -alpha[k] * lam * out[k] + out[k] - ratio * (out[k - 1] - out[k])
    return out


def _lam_gamma(eigenvalues: ArrayLike, gamma: float) -> NDArray[np.float64]:
    lam = np.asarray(eigenvalues, dtype=np.float64)
    if isinstance(gamma, bool) or not np.isfinite(gamma):
        raise ParameterError(f"gamma must be a finite real number, got {gamma!r}")
    return lam


def tsf_filter(eigenvalues: ArrayLike, gamma: float) -> NDArray[np.float64]:
    """Truncated spectral factorisation (002 §5.3.1): ``φ = 1`` if ``|λ| ≥ γ`` else 0."""
    lam = _lam_gamma(eigenvalues, gamma)
    return (np.abs(lam) >= gamma).astype(np.float64)


def tikhonov_filter(eigenvalues: ArrayLike, gamma: float) -> NDArray[np.float64]:
    """Tikhonov (002 §5.3.2): ``φ = λ/(λ + γ)``, i.e. ``(K + γI)α = y``; singular at ``λ = −γ``."""
    lam = _lam_gamma(eigenvalues, gamma)
    with np.errstate(divide="ignore", invalid="ignore"):
        return lam / (lam + gamma)


def ridge_filter(eigenvalues: ArrayLike, gamma: float) -> NDArray[np.float64]:
    """Ridge regression / weight decay (002 §5.3.2): ``φ = λ²/(λ² + γ)``, ``(K²+γI)α = Ky``."""
    lam = _lam_gamma(eigenvalues, gamma)
    if gamma <= 0:
        raise ParameterError(f"gamma must be > 0 for the ridge filter, got {gamma!r}")
    return lam**2 / (lam**2 + gamma)


def landweber_filter(eigenvalues: ArrayLike, gamma: float, k: int) -> NDArray[np.float64]:
    """Landweber-Fridman iteration (002 §5.3.3): ``φ = 1 − (1 − γλ)^k`` after ``k`` steps."""
    lam = _lam_gamma(eigenvalues, gamma)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ParameterError(f"k must be an integer >= 0, got {k!r}")
    return 1.0 - (1.0 - gamma * lam) ** k


def filtered_solution(
    K: ArrayLike, y: ArrayLike, phi: ArrayLike, *, eig: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
) -> NDArray[np.float64]:
    """``α = Σ_i φ_i ⟨y, u_i⟩/λ_i · u_i`` (002 §5.3) for filter values ``phi`` at K's eigenvalues.

    Eigenvalues that are exactly zero contribute nothing (their filter value must vanish with
    them for a regularisation method). ``eig=(λ, U)`` reuses an eigendecomposition in
    :func:`numpy.linalg.eigh` order.
    """
    Ka = np.asarray(K, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64).reshape(-1)
    if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1] or Ka.shape[0] != ya.shape[0]:
        raise DataError(f"K must be square and match y; got K {Ka.shape}, y {ya.shape}")
    lam, U = np.linalg.eigh(Ka) if eig is None else eig
    ph = np.asarray(phi, dtype=np.float64).reshape(-1)
    if ph.shape[0] != lam.shape[0]:
        raise DataError(f"phi must have one value per eigenvalue ({lam.shape[0]}), got {ph.shape[0]}")
    coef = U.T @ ya
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(lam != 0.0, ph / lam, 0.0)
    return U @ (scale * coef)

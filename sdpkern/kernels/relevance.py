"""Feature screening for the hyperkernel dictionary: which features depend on the labels.

:class:`~sdpkern.kernels.hyperkernels.ARDDictionary` holds harmonic ARD kernels for a few
feature-relevance vectors; the estimators start from the vector of ones (every feature) and add
the indicator of the features that a per-feature independence test finds dependent on the
target. The hyperkernel problem then learns β over both groups' widths: it keeps the full
kernel where every feature helps and moves weight to the screened one where the others are noise.

The test is the Hilbert-Schmidt independence criterion (HSIC; Gretton, Fukumizu, Teo, Song,
Schölkopf & Smola, "A Kernel Statistical Test of Independence", NIPS 2007) between one feature
and the target, with Gaussian kernels (median heuristic) on the feature and on a real target,
and the delta kernel [y_i = y_j] on class labels, and its null distribution by the two-moment gamma
approximation of that paper. The feature-wise p-values are compared with ``level``/d
(Bonferroni), so that on data with no dependent feature the screen keeps none with probability
at least 1 − ``level``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix, check_integer, check_open_interval
from ..errors import DataError

__all__ = ["HSICScreen", "hsic_screen"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class HSICScreen:
    """Result of :func:`hsic_screen`.

    Attributes
    ----------
    statistic : ndarray of shape (d,)
        m·HSIC_b of each feature with the target (002-independent; Gretton et al. 2007, eq. 4).
    pvalue : ndarray of shape (d,)
        Its p-value under independence (gamma approximation).
    selected : ndarray of bool, shape (d,)
        ``pvalue ≤ level / d``.
    level : float
    """

    statistic: Array
    pvalue: Array
    selected: NDArray[np.bool_]
    level: float


def _centred(A: Array) -> Array:
    """H A H with H = I − 11ᵀ/m, in O(m²)."""
    r = A.mean(axis=0)
    return A - r[None, :] - r[:, None] + r.mean()


def _gaussian_gram(v: Array) -> Array:
    """exp(−(v_i − v_j)²/median) with the median of the nonzero squared differences (1 if none)."""
    D = (v[:, None] - v[None, :]) ** 2
    nz = D[D > 0]
    med = float(np.median(nz)) if nz.size else 1.0
    return np.asarray(np.exp(-D / med), dtype=np.float64)


def hsic_screen(
    X: ArrayLike,
    y: ArrayLike,
    *,
    level: float = 0.05,
    classification: bool = True,
    max_points: int = 1000,
    random_state: int | None = 0,
) -> HSICScreen:
    """Per-feature HSIC tests of independence between each column of X and y (Gretton et al. 2007).

    Parameters
    ----------
    X : array of shape (m, d)
    y : array of shape (m,)
        Class labels of any type (``classification=True``: the delta kernel [y_i = y_j]) or real
        targets (a Gaussian kernel, median heuristic).
    level : float in (0, 1)
        Family-wise level: a feature is selected when its p-value is ≤ ``level``/d.
    max_points : int
        The tests run on a seeded sample of at most this many points (O(max_points²·d) time).
    random_state : int or None

    Returns
    -------
    HSICScreen

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4))
    >>> y = np.sign(X[:, 0] + 0.3 * rng.normal(size=200))
    >>> hsic_screen(X, y).selected.tolist()
    [True, False, False, False]
    """
    Xa = as_matrix(X, "X", min_samples=6)
    ya = np.asarray(y).ravel()
    if ya.shape[0] != Xa.shape[0]:
        raise DataError(f"y must hold {Xa.shape[0]} values, one per row of X, got {ya.shape[0]}")
    if classification:
        ya = np.unique(ya, return_inverse=True)[1].astype(np.float64)
    else:
        ya = ya.astype(np.float64)
        if not np.all(np.isfinite(ya)):
            raise DataError("y must hold finite values")
    check_open_interval(level, "level", 0.0, 1.0)
    cap = check_integer(max_points, "max_points", 6)
    m, d = Xa.shape
    if m > cap:
        idx = np.sort(np.random.default_rng(random_state).choice(m, cap, replace=False))
        Xa, ya = Xa[idx], ya[idx]
        m = cap
    L = (ya[:, None] == ya[None, :]).astype(np.float64) if classification else _gaussian_gram(ya)
    Lc = _centred(L)
    off = ~np.eye(m, dtype=bool)
    mu_y = float(L[off].mean())
    # the null's variance factor of Gretton et al.'s gamma approximation
    c_var = 2.0 * (m - 4) * (m - 5) / (m * (m - 1) * (m - 2) * (m - 3)) / (m * (m - 1))
    stat = np.zeros(d)
    pval = np.ones(d)
    from scipy.stats import gamma

    for k in range(d):
        K = _gaussian_gram(Xa[:, k])
        Kc = _centred(K)
        KL = Kc * Lc
        stat[k] = float(KL.sum()) / m
        mu_x = float(K[off].mean())
        mean = (1.0 + mu_x * mu_y - mu_x - mu_y) / m
        B = KL * KL
        var = c_var * float(B.sum() - np.trace(B))
        if mean > 0 and var > 0:
            pval[k] = float(gamma.sf(stat[k], mean**2 / var, scale=var * m / mean))
    return HSICScreen(statistic=stat, pvalue=pval, selected=pval <= level / d, level=float(level))

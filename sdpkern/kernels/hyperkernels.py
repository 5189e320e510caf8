"""Hyperkernels: kernels on pairs of inputs, k̲((x, x'), (x'', x''')) (002 §2.5).

Every hyperkernel here factors through a *pair feature*: a vector φ(x, x') computed from one
pair, with k̲ = combine(φ(x, x'), φ(x'', x''')). This makes three things cheap and vectorised:

* the base kernel matrix K_(ij) = k̲((x_i, x_j), (·, ·)) on any point set: one feature vector
  against the feature array of all pairs of that set;
* columns and the diagonal of the m²×m² hyperkernel Gram matrix, without forming it;
* the learned kernel k(x, x') = Σ β_ij k̲((x_i, x_j), (x, x')) on new points (002 eq. 2.15).

Pair features are:

=========================  =====================================  ==============================
hyperkernel                φ(x, x')                               combine(a, b)
=========================  =====================================  ==============================
PowerSeriesHyperkernel     k(x, x') (one number)                  g(scale · a · b)      (2.19)
HarmonicHyperkernel        k(x, x') = exp(−γ‖x − x'‖²)            (1−λ_h)/(1 − λ_h a b)  (2.20-2.21)
HarmonicARD                ((x_d − x'_d)²/w_d)_d                  mean_s Π_d (1−λ_h)/(1−λ_h e^{−(a_d+b_d)/c_s}) (2.22)
ExplicitHyperkernel        (k_1(x, x'), …, k_n(x, x'))            Σ_i c_i a_i b_i        (2.23)
=========================  =====================================  ==============================

:class:`ARDDictionary` is an explicit hyperkernel (2.23) whose terms are not pairs of points but
its own kernels: a finite dictionary of harmonic ARD kernels, one per width of a ladder and per
feature-relevance vector. Its basis is the dictionary itself (:meth:`ARDDictionary.basis`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix, check_open_interval, check_positive
from ..errors import DataError, ParameterError
from .base import Gaussian, Kernel

if TYPE_CHECKING:
    from .lowrank import HyperkernelBasis

__all__ = [
    "Hyperkernel",
    "PowerSeriesHyperkernel",
    "HarmonicHyperkernel",
    "HarmonicARD",
    "ExplicitHyperkernel",
    "POWER_SERIES",
    "auto_widths",
    "LADDER_SCALES",
    "ARDDictionary",
]

Array = NDArray[np.float64]


def _neg_log1m(xi: Array) -> Array:
    return -np.log1p(-xi)


#: Table 2.2 of 002: name -> (g, radius of convergence R). Every g has non-negative Taylor
#: coefficients, the condition of the power-series construction (2.19).
POWER_SERIES: dict[str, tuple[Callable[[Array], Array], float]] = {
    "exp": (np.exp, math.inf),
    "sinh": (np.sinh, math.inf),
    "cosh": (np.cosh, math.inf),
    "arctanh": (np.arctanh, 1.0),
    "neglog": (_neg_log1m, 1.0),  # −ln(1 − ξ)
    "geometric": (lambda xi: 1.0 / (1.0 - xi), 1.0),  # Σ ξ^i, the harmonic series of (2.20)
}


class Hyperkernel:
    """Base class: a kernel on pairs defined through pair features (see module docstring).

    Subclasses implement :meth:`pair_features` and :meth:`combine`, and :meth:`check` for
    their validity conditions, which are checked when the hyperkernel is constructed (as the
    base kernels' are, docs/conventions.md) and again before use.
    """

    def __post_init__(self) -> None:
        try:
            self._check_parameters()
        except ParameterError as exc:
            raise ParameterError(f"{type(self).__name__}: {exc}") from None

    def _check_parameters(self) -> None:
        """The checks made at construction (:meth:`check`, unless a subclass defers part of it)."""
        self.check()

    def check(self) -> None:
        """Raise :class:`~sdpkern.errors.ParameterError` when the hyperkernel's conditions fail."""

    # --- the two primitives -------------------------------------------------------------
    def pair_features(self, X1: Array, X2: Array) -> Array:
        """Features of the pairs (X1[k], X2[k]), shape (n, f)."""
        raise NotImplementedError

    def gram_features(self, X: Array, Y: Array | None = None) -> Array:
        """Features of all pairs (X[a], Y[b]), shape (n_X, n_Y, f)."""
        raise NotImplementedError

    def combine(self, a: Array, b: Array) -> Array:
        """k̲ from two broadcastable feature arrays (..., f) -> (...)."""
        raise NotImplementedError

    # --- what builders and estimators use ----------------------------------------------
    def base_kernel(self, x: ArrayLike, x_prime: ArrayLike, X: ArrayLike, Y: ArrayLike | None = None) -> Array:
        """The base kernel matrix K_(x,x')[a, b] = k̲((x, x'), (X[a], Y[b])) (002 eq. 2.15)."""
        self.check()
        Xa = as_matrix(X, "X")
        Ya = None if Y is None else as_matrix(Y, "Y")
        xv = np.atleast_2d(np.asarray(x, dtype=float))
        xpv = np.atleast_2d(np.asarray(x_prime, dtype=float))
        phi = self.pair_features(xv, xpv)[0]
        return self.combine(phi, self.gram_features(Xa, Ya))

    def base_kernels(self, pairs: Array, X: Array, Y: Array | None = None) -> Array:
        """Stack of base kernel matrices for the given pair features, shape (p, n_X, n_Y)."""
        G = self.gram_features(X, Y)
        return np.stack([self.combine(phi, G) for phi in pairs])

    def learned_kernel(self, pairs: Array, weights: Array, X: Array, Y: Array | None = None) -> Array:
        """k(X, Y) = Σ_l β_l k̲(pair_l, (X, Y)) without stacking the p matrices (002 eq. 2.15)."""
        G = self.gram_features(X, Y)
        K = np.zeros(G.shape[:2])
        for phi, w in zip(pairs, weights):
            if w != 0.0:
                K += w * self.combine(phi, G)
        return K

    def hyper_column(self, pairs: Array, j: int) -> Array:
        """Column j of the hyperkernel Gram matrix over the pair features ``pairs``."""
        return self.combine(pairs, pairs[j])

    def hyper_diagonal(self, pairs: Array) -> Array:
        """Diagonal k̲(p, p) over the pair features ``pairs``."""
        return self.combine(pairs, pairs)

    def hyper_gram(self, pairs: Array) -> Array:
        """The full hyperkernel Gram matrix over ``pairs`` (only for small sets)."""
        return self.combine(pairs[:, None, :], pairs[None, :, :])


@dataclass
class PowerSeriesHyperkernel(Hyperkernel):
    """k̲(x̲, x̲') = g(scale · k(x̲) k(x̲')) for g with non-negative Taylor coefficients (002 eq. 2.19).

    Parameters
    ----------
    g : str or callable
        A name from Table 2.2 of 002 (``"exp"``, ``"sinh"``, ``"cosh"``, ``"arctanh"``,
        ``"neglog"`` for −ln(1 − ξ), ``"geometric"`` for 1/(1 − ξ)) or a callable; a callable
        needs ``radius``.
    base : Kernel
        A pointwise non-negative kernel (default Gaussian).
    scale : float
        Multiplies ξ = k(x̲) k(x̲'); must keep ξ inside the radius of convergence.
    radius : float, optional
        Radius of convergence R for a callable ``g``.
    bound : float
        An upper bound on the base kernel's values (1 for the Gaussian): the validity check is
        ``scale · bound² < R``.
    """

    g: str | Callable[[Array], Array] = "exp"
    base: Kernel = field(default_factory=Gaussian)
    scale: float = 1.0
    radius: float | None = None
    bound: float = 1.0

    def _g(self) -> tuple[Callable[[Array], Array], float]:
        if callable(self.g):
            if self.radius is None:
                raise ParameterError("radius must be given with a callable g (its radius of convergence)")
            return self.g, float(self.radius)
        if self.g not in POWER_SERIES:
            raise ParameterError(
                f"g={self.g!r} is not in Table 2.2; choose one of {sorted(POWER_SERIES)} or a callable"
            )
        return POWER_SERIES[self.g]

    def check(self) -> None:
        """g's radius of convergence R must exceed scale·bound² (002 eq. 2.19)."""
        _, R = self._g()
        check_positive(self.scale, "scale")
        check_positive(self.bound, "bound")
        if not self.scale * self.bound**2 < R:
            raise ParameterError(
                f"scale·bound² = {self.scale * self.bound**2:g} must be below the radius of convergence "
                f"R = {R:g} of g={self.g!r} (002 eq. 2.19); lower scale"
            )

    def pair_features(self, X1: Array, X2: Array) -> Array:
        """ξ-features k(X1[k], X2[k]) of the pairs, shape (n, 1)."""
        vals = np.array([self.base(X1[k : k + 1], X2[k : k + 1])[0, 0] for k in range(X1.shape[0])])
        self._check_range(vals)
        return vals[:, None]  # one base-kernel call per pair: only used for a few given pairs

    def gram_features(self, X: Array, Y: Array | None = None) -> Array:
        """k(X[a], Y[b]) for all pairs, shape (n_X, n_Y, 1)."""
        K = self.base(X, Y)
        self._check_range(K)
        return K[:, :, None]

    def _check_range(self, vals: Array) -> None:
        if vals.size and (vals.min() < -1e-12 or vals.max() > self.bound + 1e-12):
            raise ParameterError(
                f"the base kernel takes values in [{vals.min():.3g}, {vals.max():.3g}], "
                f"outside [0, bound={self.bound}]:"
                " the power-series construction needs a pointwise non-negative, bounded kernel (002 §2.5.1)"
            )

    def combine(self, a: Array, b: Array) -> Array:
        """g(scale · a · b): 002 eq. (2.19) with ξ = k(x̲) k(x̲')."""
        g, _ = self._g()
        return g(self.scale * a[..., 0] * b[..., 0])


@dataclass
class HarmonicHyperkernel(Hyperkernel):
    """Harmonic hyperkernel with a Gaussian base kernel (002 eqs. 2.20-2.21).

    k̲((x, x'), (x'', x''')) = (1 − λ_h) / (1 − λ_h exp(−γ(‖x − x'‖² + ‖x'' − x'''‖²))),
    with γ = σ² in the thesis' notation.
    """

    lambda_h: float = 0.6
    gamma: float = 1.0

    def check(self) -> None:
        """λ_h ∈ (0, 1) and γ > 0 (002 eq. 2.21)."""
        check_open_interval(self.lambda_h, "lambda_h", 0.0, 1.0)
        check_positive(self.gamma, "gamma")

    def pair_features(self, X1: Array, X2: Array) -> Array:
        """exp(−γ‖X1[k] − X2[k]‖²) of the pairs, shape (n, 1)."""
        return np.exp(-self.gamma * np.sum((X1 - X2) ** 2, axis=1))[:, None]

    def gram_features(self, X: Array, Y: Array | None = None) -> Array:
        """The Gaussian k(X[a], Y[b]) for all pairs, shape (n_X, n_Y, 1)."""
        return Gaussian(gamma=self.gamma)(X, Y)[:, :, None]

    def combine(self, a: Array, b: Array) -> Array:
        """(1 − λ_h) / (1 − λ_h a b): 002 eq. (2.21)."""
        lam = self.lambda_h
        return (1.0 - lam) / (1.0 - lam * a[..., 0] * b[..., 0])


def auto_widths(
    X: ArrayLike, *, factor: float = 50.0, quantile: float = 0.9, n_sample: int = 200, random_state: int | None = 0
) -> Array:
    """The thesis' width rule: ``factor`` × the ``quantile`` of ``|x_i − x_j|`` per dimension (002 §3.2).

    The quantile is estimated on a random sample of at most ``n_sample`` points. Dimensions
    where the quantile is 0 (constant or nearly constant features) fall back to the largest
    ``|x_i − x_j|``, then to 1.
    """
    Xa = as_matrix(X, "X", min_samples=2)
    rng = np.random.default_rng(random_state)
    idx = rng.choice(Xa.shape[0], size=min(n_sample, Xa.shape[0]), replace=False)
    S = Xa[idx]
    diffs = np.abs(S[:, None, :] - S[None, :, :])
    iu = np.triu_indices(S.shape[0], k=1)
    D = diffs[iu]  # (pairs, d)
    q = np.quantile(D, quantile, axis=0)
    fallback = D.max(axis=0)
    q = np.where(q > 0, q, np.where(fallback > 0, fallback, 1.0))
    return factor * q


#: The width ladder of the estimators' default hyperkernel (``HarmonicARD(scales="ladder")``): the
#: thesis widths times 4^0 … 4^-5. Powers of 4 so that each scale's factor is the previous one
#: squared twice (no further exponentials). Measured in docs/hyperkernel.md.
LADDER_SCALES: tuple[float, ...] = tuple(4.0**-k for k in range(6))


@dataclass
class HarmonicARD(Hyperkernel):
    """Harmonic hyperkernel for automatic relevance determination (002 eq. 2.22), over one width or a ladder.

    k̲((x, x'), (x'', x''')) = (1/S) Σ_s Π_d (1 − λ_h) / (1 − λ_h exp(−(Δ_d² + Δ'_d²)/(c_s σ_d)))

    with Δ_d = x_d − x'_d, Δ'_d = x''_d − x'''_d and width multipliers c_1 … c_S (``scales``).
    With ``scales=(1.0,)`` this is 002 eq. (2.22) exactly; with several it is the mean of S such
    hyperkernels, one per width c_s σ_d (a sum of hyperkernels is a hyperkernel: its Gram matrix
    on pairs is a sum of PSD ones, 002 §2.5), so every base kernel mixes the widths and the
    learned kernel can use narrow ones where the thesis width is too smooth (low-dimensional
    data such as banana).

    002 writes the exponent as σ_d(…) but calls σ_d a *width* and sets it to 50× the 90%
    quantile of ``|x_i − x_j|`` (002 §3.2); a width divides. We follow the thesis' own convention
    for widths, k(x, x') = exp(−‖x − x'‖²/σ) (002 §6.1), so σ_d divides the squared difference.
    The other readings were measured and rejected: as a length scale (exp(−Δ²/σ_d²)) the rule
    gives kernels within 5% of constant on wdbc, which C = 100 cannot use (37% test error, the
    minority rate); as a multiplier the kernel is the identity on unscaled data.

    Parameters
    ----------
    lambda_h : float in (0, 1)
    widths : "auto" or array of shape (d,)
        Per-dimension widths σ_d > 0. ``"auto"`` must be resolved against data with
        :meth:`fitted` (the estimators do this) using :func:`auto_widths`.
    scales : "ladder" or sequence of float, default (1.0,)
        Width multipliers c_s > 0; ``"ladder"`` is :data:`LADDER_SCALES` (4^0 … 4^-5, the
        estimators' default). ``(1.0,)`` is the thesis' single width.
    """

    lambda_h: float = 0.6
    widths: Any = "auto"
    scales: Any = (1.0,)

    def _check_parameters(self) -> None:
        # widths="auto" is resolved on data later (fitted); everything else is checked now
        if isinstance(self.widths, str) and self.widths == "auto":
            check_open_interval(self.lambda_h, "lambda_h", 0.0, 1.0)
            self.scale_array()
            return
        self.check()

    def check(self) -> None:
        """λ_h ∈ (0, 1), resolved positive widths σ_d and positive scales c_s (002 eq. 2.22)."""
        check_open_interval(self.lambda_h, "lambda_h", 0.0, 1.0)
        self.scale_array()
        if isinstance(self.widths, str):
            if self.widths != "auto":
                raise ParameterError(f"widths must be 'auto' or an array of positive numbers, got {self.widths!r}")
            raise ParameterError("widths='auto' must be resolved on data first: use HarmonicARD.fitted(X)")
        w = np.asarray(self.widths, dtype=float)
        if w.ndim != 1 or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ParameterError(f"widths must be a 1-D array of positive finite numbers, got {self.widths!r}")

    def scale_array(self) -> Array:
        """The width multipliers c_s as a checked array (``"ladder"`` resolved)."""
        if isinstance(self.scales, str):
            if self.scales != "ladder":
                raise ParameterError(f"scales must be 'ladder' or positive numbers, got {self.scales!r}")
            return np.asarray(LADDER_SCALES)
        c = np.atleast_1d(np.asarray(self.scales, dtype=float))
        if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)) or np.any(c <= 0):
            raise ParameterError(
                f"scales must be 'ladder' or a non-empty list of positive numbers, got {self.scales!r}"
            )
        return c

    def fitted(self, X: ArrayLike, *, random_state: int | None = 0) -> HarmonicARD:
        """A copy with ``widths="auto"`` resolved on ``X`` by the thesis' rule; others are checked."""
        Xa = as_matrix(X, "X")
        if isinstance(self.widths, str) and self.widths == "auto":
            w = auto_widths(Xa, random_state=random_state)
        else:
            w = np.asarray(self.widths, dtype=float)
        out = HarmonicARD(lambda_h=self.lambda_h, widths=w, scales=tuple(self.scale_array().tolist()))
        out.check()
        if out.widths.shape[0] != Xa.shape[1]:
            raise DataError(f"widths has {out.widths.shape[0]} entries but X has {Xa.shape[1]} features")
        return out

    def _inv_w(self) -> Array:
        return 1.0 / np.asarray(self.widths, dtype=float)

    def pair_features(self, X1: Array, X2: Array) -> Array:
        """(X1[k, d] − X2[k, d])² / σ_d for the pairs, shape (n, d)."""
        return (X1 - X2) ** 2 * self._inv_w()

    def gram_features(self, X: Array, Y: Array | None = None) -> Array:
        """(X[a, d] − Y[b, d])² / σ_d for all pairs, shape (n_X, n_Y, d)."""
        Y = X if Y is None else Y
        return (X[:, None, :] - Y[None, :, :]) ** 2 * self._inv_w()

    def combine(self, a: Array, b: Array) -> Array:
        """(1/S) Σ_s Π_d (1 − λ_h) / (1 − λ_h exp(−(a_d + b_d)/c_s)): 002 eq. (2.22) per scale."""
        lam = self.lambda_h
        ab = a + b
        c = self.scale_array()
        out: Any = 0.0
        for cs in c:
            # log-sum over dimensions: the product of d factors in [1, 1/(1−λ)]·(1−λ) is stable in logs
            out = out + np.exp(np.sum(np.log1p(-lam) - np.log1p(-lam * np.exp(-ab / cs)), axis=-1))
        return out / c.size


@dataclass
class ExplicitHyperkernel(Hyperkernel):
    """A finite expansion k̲(x̲, x̲') = Σ_i c_i k_i(x̲) k_i(x̲'), c_i ≥ 0 (002 eq. 2.23).

    Example 9 of 002 (eq. 2.24) is ``ExplicitHyperkernel([Polynomial(2, coef0=b), Gaussian(g)], [c1, c2])``.
    """

    kernels: Sequence[Kernel] = ()
    weights: Sequence[float] | None = None

    def _c(self) -> Array:
        c = np.ones(len(self.kernels)) if self.weights is None else np.asarray(self.weights, dtype=float)
        return c

    def check(self) -> None:
        """At least one base kernel and as many non-negative weights c_i (002 eq. 2.23)."""
        if len(self.kernels) == 0:
            raise ParameterError("kernels must hold at least one base kernel")
        c = self._c()
        if c.shape != (len(self.kernels),) or np.any(c < 0) or not np.all(np.isfinite(c)):
            raise ParameterError(f"weights must be {len(self.kernels)} non-negative numbers, got {self.weights!r}")

    def pair_features(self, X1: Array, X2: Array) -> Array:
        """k_i(X1[k], X2[k]) for each base kernel, shape (n, number of kernels)."""
        feats = np.array([[k(X1[i : i + 1], X2[i : i + 1])[0, 0] for k in self.kernels] for i in range(X1.shape[0])])
        self._check_nonneg(feats)
        return feats

    def gram_features(self, X: Array, Y: Array | None = None) -> Array:
        """k_i(X[a], Y[b]) for each base kernel, shape (n_X, n_Y, number of kernels)."""
        feats = np.stack([k(X, Y) for k in self.kernels], axis=-1)
        self._check_nonneg(feats)
        return feats

    def _check_nonneg(self, feats: Array) -> None:
        if feats.size and feats.min() < -1e-12:
            raise ParameterError(
                f"a base kernel takes the negative value {feats.min():.3g}: 002 eq. (2.23) needs k_i(x̲) ≥ 0 "
                "(use an even polynomial degree or a non-negative kernel)"
            )

    def combine(self, a: Array, b: Array) -> Array:
        """Σ_i c_i a_i b_i: 002 eq. (2.23)."""
        return np.sum(self._c() * a * b, axis=-1)


@dataclass
class ARDDictionary(Hyperkernel):
    """An explicit hyperkernel (002 eq. 2.23) over harmonic ARD kernels: widths × feature relevances.

    The dictionary's kernels are

        k_{r,s}(x, x') = Π_d (1 − λ_h) / (1 − λ_h exp(−r_d (x_d − x'_d)² / (c_s σ_d))),

    one per feature-relevance vector r ∈ [0, 1]^d (``relevances``) and width multiplier c_s
    (``scales``), with the per-dimension widths σ_d of the thesis rule (002 §3.2). Each is the
    base kernel of the harmonic ARD hyperkernel (002 eq. 2.22) at a diagonal pair, with widths
    c_s σ_d / r_d: r_d = 1 uses feature d at the ladder's width, r_d → 0 ignores it. Every
    k_{r,s} has unit diagonal, so no term dominates another by its scale.

    As an explicit hyperkernel k̲(x̲, x̲') = Σ_{r,s} k_{r,s}(x̲) k_{r,s}(x̲') (002 eq. 2.23 with
    c_i = 1), its hyper-RKHS is spanned by the dictionary's kernels, orthonormal in it: a learned
    kernel k = Σ_l β_l k_l has ‖k‖² = Σ_l β_l², and with β on the simplex (the scale-breaking
    constraint 1ᵀβ = 1 of 002 §3.1) k has unit diagonal. The basis of an estimator's problem is the
    dictionary itself (:meth:`basis`: one term per kernel, L = I), not a pivoted Cholesky
    selection of pairs (002 §3.2.1). With ``relevances=None`` (one vector of ones) and
    ``scales="ladder"`` the uniform β is the mean of the harmonic ARD kernels over the ladder,
    the base kernel of ``HarmonicARD(scales="ladder")``'s diagonal pair; learning β chooses a
    mixture of widths, and the estimators may add relevance vectors found by a local search
    (:func:`sdpkern.native.hyperkernel_master.relevance_search`) to choose features.

    Parameters
    ----------
    lambda_h : float in (0, 1), default=0.6
        λ_h of the harmonic ARD kernels (002 eq. 2.22).
    widths : "auto" or array of shape (d,)
        Per-dimension widths σ_d > 0; ``"auto"`` is resolved on data by :meth:`fitted` with the
        thesis rule (:func:`auto_widths`).
    scales : "ladder" or sequence of float, default="ladder"
        Width multipliers c_s > 0; ``"ladder"`` is :data:`LADDER_SCALES` (4^0 … 4^-5).
    relevances : array of shape (k, d) or None
        Feature-relevance vectors, entries in [0, 1], each with a positive entry; None is one
        vector of ones (every feature at the ladder's widths).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> hk = ARDDictionary().fitted(X)
    >>> B = hk.basis(X)
    >>> B.size, bool(np.allclose(B.L, np.eye(6)))
    (6, True)
    >>> bool(np.allclose(np.diag(B.kernels()[0]), 1.0))
    True
    """

    lambda_h: float = 0.6
    widths: Any = "auto"
    scales: Any = "ladder"
    relevances: Any = None

    def _check_parameters(self) -> None:
        # widths="auto" is resolved on data later (fitted), and the relevances' length with it
        if isinstance(self.widths, str) and self.widths == "auto":
            check_open_interval(self.lambda_h, "lambda_h", 0.0, 1.0)
            self.scale_array()
            if self.relevances is not None:
                self.relevance_array(np.shape(np.atleast_2d(self.relevances))[1])
            return
        self.check()

    def check(self) -> None:
        """λ_h ∈ (0, 1), resolved positive widths σ_d, positive scales c_s and relevances in [0, 1]."""
        check_open_interval(self.lambda_h, "lambda_h", 0.0, 1.0)
        self.scale_array()
        if isinstance(self.widths, str):
            if self.widths != "auto":
                raise ParameterError(f"widths must be 'auto' or an array of positive numbers, got {self.widths!r}")
            raise ParameterError("widths='auto' must be resolved on data first: use ARDDictionary.fitted(X)")
        w = np.asarray(self.widths, dtype=float)
        if w.ndim != 1 or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ParameterError(f"widths must be a 1-D array of positive finite numbers, got {self.widths!r}")
        self.relevance_array(w.shape[0])

    def scale_array(self) -> Array:
        """The width multipliers c_s as a checked array (``"ladder"`` resolved)."""
        return HarmonicARD(scales=self.scales).scale_array()

    def relevance_array(self, d: int) -> Array:
        """The relevance vectors as a checked (k, d) array (None: one vector of ones)."""
        if self.relevances is None:
            return np.ones((1, d))
        R = np.atleast_2d(np.asarray(self.relevances, dtype=float))
        if R.ndim != 2 or R.shape[1] != d or R.shape[0] == 0:
            raise ParameterError(
                f"relevances must be an array of shape (k, {d}), got shape {np.shape(self.relevances)}"
            )
        if not np.all(np.isfinite(R)) or np.any(R < 0) or np.any(R > 1) or np.any(R.max(axis=1) <= 0):
            raise ParameterError("relevances must lie in [0, 1], each vector with a positive entry")
        return R

    def fitted(self, X: ArrayLike, *, random_state: int | None = 0) -> ARDDictionary:
        """A copy with ``widths="auto"`` resolved on ``X`` by the thesis' rule (002 §3.2); others are checked."""
        Xa = as_matrix(X, "X")
        if isinstance(self.widths, str) and self.widths == "auto":
            w = auto_widths(Xa, random_state=random_state)
        else:
            w = np.asarray(self.widths, dtype=float)
        out = ARDDictionary(
            lambda_h=self.lambda_h, widths=w, scales=tuple(self.scale_array().tolist()), relevances=self.relevances
        )
        out.check()
        if out.widths.shape[0] != Xa.shape[1]:
            raise DataError(f"widths has {out.widths.shape[0]} entries but X has {Xa.shape[1]} features")
        return out

    def with_relevances(self, relevances: ArrayLike) -> ARDDictionary:
        """A copy whose dictionary holds ``relevances`` (k, d) (resolved widths and scales kept)."""
        out = ARDDictionary(
            lambda_h=self.lambda_h, widths=self.widths, scales=self.scales, relevances=np.asarray(relevances, float)
        )
        out.check()
        return out

    def terms(self) -> Array:
        """The dictionary's kernels as inverse widths g = r/(c_s σ), shape (k·S, d), relevance-major."""
        self.check()
        w = np.asarray(self.widths, dtype=float)
        R = self.relevance_array(w.shape[0])
        c = self.scale_array()
        return np.asarray((R[:, None, :] / (c[None, :, None] * w[None, None, :])).reshape(-1, w.shape[0]))

    def basis(self, X: ArrayLike) -> HyperkernelBasis:
        """The problem's basis: one term per dictionary kernel, orthonormal (L = I), on the points ``X``."""
        from .lowrank import HyperkernelBasis

        Xa = as_matrix(X, "X")
        G = self.terms()
        if G.shape[1] != Xa.shape[1]:
            raise DataError(f"the dictionary has {G.shape[1]} features but X has {Xa.shape[1]}")
        p = G.shape[0]
        return HyperkernelBasis(self, Xa, np.full((p, 2), -1, dtype=np.intp), G, np.eye(p), 0.0)

    def pair_features(self, X1: Array, X2: Array) -> Array:
        """(X1[k, d] − X2[k, d])² for the pairs, shape (n, d) (the terms carry the widths)."""
        return (X1 - X2) ** 2

    def gram_features(self, X: Array, Y: Array | None = None) -> Array:
        """(X[a, d] − Y[b, d])² for all pairs, shape (n_X, n_Y, d)."""
        Y = X if Y is None else Y
        return (X[:, None, :] - Y[None, :, :]) ** 2

    def combine(self, a: Array, b: Array) -> Array:
        """The term of inverse widths ``a`` at pairs of squared differences ``b``: Π_d (1 − λ)/(1 − λ e^{−a_d b_d})."""
        lam = self.lambda_h
        return np.exp(np.sum(np.log1p(-lam) - np.log1p(-lam * np.exp(-a * b)), axis=-1))

    def hyper_diagonal(self, pairs: Array) -> Array:
        """k̲ of each dictionary term with itself: 1 (the kernels are orthonormal, 002 eq. 2.23)."""
        return np.ones(pairs.shape[0])

    def hyper_column(self, pairs: Array, j: int) -> Array:
        """Column j of the hyperkernel Gram matrix over dictionary terms: the indicator of term j."""
        return np.all(pairs == pairs[j], axis=1).astype(float)

    def hyper_gram(self, pairs: Array) -> Array:
        """The hyperkernel Gram matrix over dictionary terms: the identity (on distinct terms)."""
        return np.all(pairs[:, None, :] == pairs[None, :, :], axis=-1).astype(float)

"""Base kernels: each a small object whose ``__call__(X, Y=None)`` returns the Gram matrix.

All are vectorised over pairs (no Python loops). Parameters follow the thesis' conventions
where it gives one (002 §6.1, Table 4.1) and scikit-learn's otherwise.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.metrics.pairwise import euclidean_distances

from .._validation import as_matrix, check_integer, check_positive
from ..errors import DataError, ParameterError

__all__ = [
    "Kernel",
    "Linear",
    "Polynomial",
    "Gaussian",
    "Laplacian",
    "Epanechnikov",
    "Sigmoid",
    "SquaredEuclidean",
    "squared_distances",
]


def _check_finite(value: object, name: str) -> float:
    """Check a real, finite scalar (any sign) and return it as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ParameterError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def squared_distances(X: NDArray[np.float64], Y: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """Matrix of squared Euclidean distances ``‖x_i − y_j‖²``, clipped at 0 against round-off.

    For float64 arrays, scikit-learn's ``euclidean_distances(X, Y, squared=True)`` step for step
    (‖x‖² + ‖y‖² − 2⟨x, y⟩, the same operations in the same order, so the same bits; zero
    diagonal when ``Y`` is omitted) without its input checks, which cost about as much as the
    arithmetic at the sizes of a grid search's scoring (80 × 320 points: 0.5 of 0.8 ms); other
    dtypes go through scikit-learn.
    """
    if X.dtype != np.float64 or X.ndim != 2 or (Y is not None and (Y.dtype != np.float64 or Y.ndim != 2)):
        D = euclidean_distances(X, X if Y is None else Y, squared=True)
        np.maximum(D, 0.0, out=D)
        return D
    XX = np.einsum("ij,ij->i", X, X)
    YY = XX if Y is None else np.einsum("ij,ij->i", Y, Y)
    D = X @ (X if Y is None else Y).T
    D *= -2.0
    D += XX[:, None]
    D += YY[None, :]
    np.maximum(D, 0.0, out=D)
    if Y is None:
        np.fill_diagonal(D, 0.0)
    return D


class Kernel:
    """Base class: subclasses implement :meth:`_gram` on validated arrays.

    ``positive_definite`` says whether every Gram matrix is PSD (False for the indefinite
    kernels of 002 Table 4.1 and 002 §6.2).
    """

    positive_definite: bool = True

    def __post_init__(self) -> None:
        # Dataclass subclasses call this from their __init__: a bad parameter is reported where
        # the kernel is built (naming the argument), not later inside a solve.
        try:
            self._check_params()
        except ParameterError as exc:
            raise ParameterError(f"{type(self).__name__}: {exc}") from None

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        """The Gram matrix k(X[a], Y[b]) (Y = X when omitted), shape (n_X, n_Y), after checking the inputs."""
        Xa = as_matrix(X, "X")
        Ya = None if Y is None else as_matrix(Y, "Y")
        if Ya is not None and Ya.shape[1] != Xa.shape[1]:
            raise DataError(f"Y has {Ya.shape[1]} features but X has {Xa.shape[1]}")
        self._check_params()
        return self._gram(Xa, Ya)

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """The diagonal ``k(x_i, x_i)`` without forming the Gram matrix."""
        Xa = as_matrix(X, "X")
        self._check_params()
        return np.array([self._gram(Xa[i : i + 1], None)[0, 0] for i in range(Xa.shape[0])])

    def _check_params(self) -> None:
        """Validate parameters; subclasses raise :class:`ParameterError`."""

    def _gram(self, X: NDArray[np.float64], Y: NDArray[np.float64] | None) -> NDArray[np.float64]:
        raise NotImplementedError


@dataclass(frozen=True)
class Linear(Kernel):
    """``k(x, y) = ⟨x, y⟩``."""

    def _gram(self, X, Y):  # type: ignore[no-untyped-def]
        return X @ (X if Y is None else Y).T

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """k(x_i, x_i) = ‖x_i‖² without the full Gram matrix."""
        Xa = as_matrix(X, "X")
        return np.einsum("ij,ij->i", Xa, Xa)


@dataclass(frozen=True)
class Polynomial(Kernel):
    """``k(x, y) = (γ⟨x, y⟩ + c₀)^degree``. Pointwise positive only for even degree or c₀ ≥ 0 data."""

    degree: int = 2
    gamma: float = 1.0
    coef0: float = 1.0

    def _check_params(self) -> None:
        check_integer(self.degree, "degree", 1)
        check_positive(self.gamma, "gamma")
        _check_finite(self.coef0, "coef0")

    def _gram(self, X, Y):  # type: ignore[no-untyped-def]
        return (self.gamma * (X @ (X if Y is None else Y).T) + self.coef0) ** self.degree


@dataclass(frozen=True)
class _ExponentialDistance(Kernel):
    """``k(x, y) = exp(−γ d(x, y))`` for the distance ``d`` of a subclass (:meth:`_distance`); k(x, x) = 1."""

    gamma: float = 1.0

    def _check_params(self) -> None:
        check_positive(self.gamma, "gamma")

    def _distance(self, X: NDArray[np.float64], Y: NDArray[np.float64] | None) -> NDArray[np.float64]:
        raise NotImplementedError

    def _gram(self, X, Y):  # type: ignore[no-untyped-def]
        return np.exp(-self.gamma * self._distance(X, Y))

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """k(x, x) = 1."""
        return np.ones(as_matrix(X, "X").shape[0])


@dataclass(frozen=True)
class Gaussian(_ExponentialDistance):
    """Gaussian RBF ``k(x, y) = exp(−γ‖x − y‖²)`` (scikit-learn's ``gamma``; 002 eq. 2.21 has γ = σ²)."""

    def _distance(self, X: NDArray[np.float64], Y: NDArray[np.float64] | None) -> NDArray[np.float64]:
        return squared_distances(X, Y)


@dataclass(frozen=True)
class Laplacian(_ExponentialDistance):
    """``k(x, y) = exp(−γ‖x − y‖)`` (Euclidean norm, not squared)."""

    def _distance(self, X: NDArray[np.float64], Y: NDArray[np.float64] | None) -> NDArray[np.float64]:
        return np.sqrt(squared_distances(X, Y))


@dataclass(frozen=True)
class Epanechnikov(Kernel):
    """``k(x, y) = (1 − ‖x − y‖²/σ)^p`` where ``‖x − y‖²/σ ≤ 1``, else 0 (002 Table 4.1, §6.1).

    Indefinite in general (002 Table 4.1), which is why 002 Ch. 6 uses it.
    """

    sigma: float = 1.0
    p: int = 2
    positive_definite = False

    def _check_params(self) -> None:
        check_positive(self.sigma, "sigma")
        check_positive(self.p, "p")

    def _gram(self, X, Y):  # type: ignore[no-untyped-def]
        r = squared_distances(X, Y) / self.sigma
        return np.where(r <= 1.0, np.clip(1.0 - r, 0.0, None) ** self.p, 0.0)

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """k(x, x) = 1."""
        return np.ones(as_matrix(X, "X").shape[0])


@dataclass(frozen=True)
class Sigmoid(Kernel):
    """``k(x, y) = tanh(γ⟨x, y⟩ + c₀)``: indefinite for every parameter choice (002 §4.1)."""

    gamma: float = 1.0
    coef0: float = -1.0
    positive_definite = False

    def _check_params(self) -> None:
        check_positive(self.gamma, "gamma")
        _check_finite(self.coef0, "coef0")

    def _gram(self, X, Y):  # type: ignore[no-untyped-def]
        return np.tanh(self.gamma * (X @ (X if Y is None else Y).T) + self.coef0)


@dataclass(frozen=True)
class SquaredEuclidean(Kernel):
    """``k(x, y) = sign·‖x − y‖²/σ`` (002 §6.2): indefinite, with zero diagonal.

    ``sign=-1`` gives the negative squared distance, which is conditionally positive definite
    of order 1.
    """

    sigma: float = 1.0
    sign: float = 1.0
    positive_definite = False

    def _check_params(self) -> None:
        check_positive(self.sigma, "sigma")
        if self.sign not in (1, -1, 1.0, -1.0):
            raise ParameterError(f"sign must be +1 or -1, got {self.sign!r}")

    def _gram(self, X, Y):  # type: ignore[no-untyped-def]
        return self.sign * squared_distances(X, Y) / self.sigma

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """k(x, x) = 0."""
        return np.zeros(as_matrix(X, "X").shape[0])

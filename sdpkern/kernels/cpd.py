"""Conditionally positive definite (c.p.d.) kernels and the polynomial spaces they need.

A kernel φ is c.p.d. with respect to a space of functions 𝒫 (000 Definition 4.1) when
Σ α_j α_k φ(x_j, x_k) > 0 for every non-zero α with Σ α_j p(x_j) = 0 for all p ∈ 𝒫. Here 𝒫 is
always π_q(R^d), the d-variate polynomials of degree at most q, and a :class:`CPDKernel` is a
kernel *plus* that space: ``kernel(X, Y)`` gives the Gram matrix Φ and
``kernel.polynomial_space(d).basis(X)`` the matrix P with [P]_{j,k} = p_k(x_j).

Kernels
-------
:class:`ThinPlate`
    000 eq. (11): the m-th order thin-plate kernel in R^d (2m > d), c.p.d. w.r.t. π_{m−1}(R^d).
:class:`PowerDistance`
    −‖x − y‖^β, 0 < β < 2, c.p.d. of order 1 (w.r.t. the constants).

Ordinary positive definite kernels have the empty polynomial space (degree −1): the c.p.d.
solvers accept them too.

Model pieces
------------
Shared by the CVXPY builders (:mod:`sdpkern.builders.cpd_svm`) and the native solvers
(:mod:`sdpkern.native.cpd`), which depend only on
this module: :class:`PolynomialFactor` / :func:`polynomial_factor` (P and its rank-revealing QR,
000 §6.1), :func:`cpd_decision` (f(x) = Σ α_j φ(x, x_j) + Σ β_k p_k(x)) and
:func:`squared_hinge_objective` (000 eq. 14).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import lstsq, qr

from .. import _svmcore
from .._validation import as_matrix
from ..errors import DataError, ParameterError
from .base import Kernel, squared_distances

__all__ = [
    "CPDKernel",
    "ThinPlate",
    "PowerDistance",
    "PolynomialSpace",
    "polynomial_space_of",
    "PolynomialFactor",
    "polynomial_factor",
    "cpd_decision",
    "squared_hinge_objective",
]

Array = NDArray[np.float64]

#: Refuse to build a polynomial basis with more columns than this (π_q(R^d) grows like d^q).
MAX_POLYNOMIAL_DIM = 5000


def _graded_monomials(
    degree: int, d: int
) -> tuple[NDArray[np.int64], tuple[tuple[int, int, NDArray[np.intp], NDArray[np.intp]], ...]]:
    """The exponents of π_degree(R^d)'s monomials, graded by total degree, and per degree t ≥ 1
    ``(lo, hi, parent, coordinate)``: monomials ``lo:hi`` are monomial ``parent`` (of degree
    t − 1) times x_``coordinate`` (their first variable). Computed once per
    :class:`PolynomialSpace` (the basis then costs one array product per degree)."""
    rows: list[list[int]] = []
    for total in range(degree + 1):
        for combo in combinations_with_replacement(range(d), total):
            e = [0] * d
            for j in combo:
                e[j] += 1
            rows.append(e)
    ex = np.array(rows, dtype=np.int64).reshape(len(rows), d)
    index = {tuple(e): i for i, e in enumerate(rows)}
    levels = []
    lo = 1
    for t in range(1, degree + 1):
        hi = lo + math.comb(d + t - 1, t)  # the monomials of degree exactly t
        coord = np.array([next(j for j, v in enumerate(e) if v) for e in rows[lo:hi]], dtype=np.intp)
        parent = ex[lo:hi].copy()
        parent[np.arange(hi - lo), coord] -= 1
        levels.append((lo, hi, np.array([index[tuple(e)] for e in parent.tolist()], dtype=np.intp), coord))
        lo = hi
    for a in (ex, *(a for level in levels for a in level[2:])):
        a.setflags(write=False)
    return ex, tuple(levels)


@dataclass(frozen=True)
class PolynomialSpace:
    """π_q(R^d): d-variate polynomials of degree at most ``degree`` and their monomial basis.

    ``degree = -1`` is the empty space (used for positive definite kernels). The basis is
    evaluated on ``(x − center)/scale``; shifting and scaling the inputs does not change the
    space, only the conditioning of P, so builders pass the training data's centre and scale.

    Parameters
    ----------
    degree : int
        Largest total degree q (≥ −1).
    d : int
        Input dimension.

    Examples
    --------
    >>> S = PolynomialSpace(1, 2)
    >>> S.dim
    3
    >>> S.basis([[2.0, 3.0]]).tolist()
    [[1.0, 2.0, 3.0]]
    """

    degree: int
    d: int
    _tables: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.degree, bool) or not isinstance(self.degree, (int, np.integer)) or self.degree < -1:
            raise ParameterError(f"degree must be an integer >= -1, got {self.degree!r}")
        if isinstance(self.d, bool) or not isinstance(self.d, (int, np.integer)) or self.d < 1:
            raise ParameterError(f"d must be a positive integer, got {self.d!r}")
        if self.dim > MAX_POLYNOMIAL_DIM:
            raise ParameterError(
                f"the polynomial space pi_{self.degree}(R^{self.d}) has dimension {self.dim} > {MAX_POLYNOMIAL_DIM}; "
                "use a kernel of lower order (e.g. ThinPlate(order=2, formula_dimension=2), the r^2 log r kernel "
                "of 000 §6.1, which needs only linear polynomials in any dimension)"
            )
        object.__setattr__(self, "_tables", _graded_monomials(max(self.degree, 0), self.d))

    @property
    def dim(self) -> int:
        """dim π_q(R^d) = C(d + q, q) (0 for the empty space)."""
        if self.degree < 0:
            return 0
        return math.comb(self.d + self.degree, self.degree)

    @property
    def exponents(self) -> NDArray[np.int64]:
        """Exponent tuples of the monomials, graded by total degree (shape ``(dim, d)``; read-only)."""
        return self._tables[0] if self.degree >= 0 else np.zeros((0, self.d), dtype=np.int64)

    def basis(self, X: ArrayLike, center: ArrayLike | None = None, scale: float = 1.0) -> Array:
        """The basis matrix P with ``P[j, k] = p_k(x_j)`` (000 §6.1), shape ``(n, dim)``.

        Monomials of ``(x − center)/scale``, built incrementally (each monomial of degree t is a
        monomial of degree t−1 times one coordinate, one array product per degree), so the cost
        is O(n · dim).
        """
        Xa = checked_matrix(X, "X")
        if Xa.shape[1] != self.d:
            raise DataError(f"X has {Xa.shape[1]} features but the polynomial space is over R^{self.d}")
        if center is not None:
            Xa = Xa - np.asarray(center, dtype=np.float64)
        if scale != 1.0:
            Xa = Xa / float(scale)
        n = Xa.shape[0]
        if self.degree < 0:
            return np.zeros((n, 0))
        P = np.empty((n, self.dim))
        P[:, 0] = 1.0
        for lo, hi, parent, coord in self._tables[1]:
            np.multiply(P[:, parent], Xa[:, coord], out=P[:, lo:hi])
        return P


class CPDKernel(Kernel):
    """A kernel that is c.p.d. w.r.t. a polynomial space π_q(R^d) (000 Definition 4.1).

    Subclasses implement :meth:`_gram` and :meth:`polynomial_degree`. Φ = ``kernel(X)`` is not
    PSD; only ``P⊥ᵀ Φ P⊥`` is, where P⊥ spans the null space of Pᵀ (000 §4).
    """

    positive_definite = False

    def polynomial_degree(self, d: int) -> int:
        """Degree q of the space π_q(R^d) the kernel is c.p.d. with respect to (−1: none)."""
        raise NotImplementedError

    def polynomial_space(self, d: int) -> PolynomialSpace:
        """The space 𝒫 = π_q(R^d) (000 Definition 4.1)."""
        self._check_dimension(d)
        return PolynomialSpace(self.polynomial_degree(d), d)

    def scaling_exponent(self, d: int) -> float | None:
        """p such that φ(sx, sy) = s^p φ(x, y) modulo 𝒫 (so ‖f∘W_s‖² = s^p ‖f‖², 000 eq. 13)."""
        return None

    def _check_dimension(self, d: int) -> None:
        """Raise :class:`ParameterError` if the kernel is not c.p.d. in dimension ``d``."""

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> Array:
        """The Gram matrix, after checking that the formula's dimension fits X (000 eq. 11)."""
        Xa = checked_matrix(X, "X")
        self._check_dimension(Xa.shape[1])
        Ya = None if Y is None else checked_matrix(Y, "Y")
        if Ya is not None and Ya.shape[1] != Xa.shape[1]:
            raise DataError(f"Y has {Ya.shape[1]} features but X has {Xa.shape[1]}")
        self._check_params()
        return self._gram(Xa, Ya)


def checked_matrix(X: ArrayLike, name: str = "X") -> Array:
    """:func:`~sdpkern._validation.as_matrix` without its cost for what the estimators pass on
    after validating it — a 2-D float64 ndarray of finite values, returned as is — and through
    ``as_matrix`` (its typed errors) for anything else: scikit-learn's ``check_array`` costs as
    much as a small fit's arithmetic, and a grid-search fit and score call it a score of times."""
    if (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and bool(np.isfinite(X).all())
    ):
        return X
    return as_matrix(X, name)


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class ThinPlate(CPDKernel):
    """The m-th order thin-plate kernel of 000 eq. (11), c.p.d. w.r.t. π_{m−1}(R^d).

    For r = ‖x − y‖ > 0::

        φ_m(r) = (−1)^{m − (d−2)/2} r^{2m−d} log r     d even
        φ_m(r) = (−1)^{m − (d−1)/2} r^{2m−d}           d odd

    and φ_m(0) = 0. It needs 2m > d (otherwise r^{2m−d} is singular at 0 and the kernel is not
    c.p.d.): ``ThinPlate(2)`` is the classical r² log r spline in R², −r in R³.

    ``formula_dimension`` evaluates eq. (11) with that d in place of the data's dimension while
    the polynomial space stays π_{m−1}(R^d) of the data. The result is the polyharmonic kernel
    r^{2m−d_f}(log r), c.p.d. of order ≤ m in every dimension (Wendland 2004, Thm. 8.16/8.17).
    ``ThinPlate(2, formula_dimension=2)`` is r² log r with linear polynomials, the "second order
    thin-plate" with 𝒫 = π_1(R^d), dim 𝒫 = d + 1, that 000 §6.1 and §7 use in any dimension.

    Parameters
    ----------
    order : int
        m ≥ 1.
    formula_dimension : int or None
        d used in eq. (11); ``None`` (default) means the data's dimension.

    Examples
    --------
    >>> k = ThinPlate(2)
    >>> float(k([[0.0, 0.0]], [[0.0, np.e]])[0, 0]) == np.e ** 2
    True
    """

    order: int = 2
    formula_dimension: int | None = None

    def _check_params(self) -> None:
        _check_int(self.order, "order", 1)
        if self.formula_dimension is not None:
            _check_int(self.formula_dimension, "formula_dimension", 1)

    def _effective_d(self, d: int) -> int:
        return d if self.formula_dimension is None else int(self.formula_dimension)

    def _check_dimension(self, d: int) -> None:
        self._check_params()
        de = self._effective_d(d)
        if 2 * self.order <= de:
            where = "the data dimension" if self.formula_dimension is None else "formula_dimension"
            raise ParameterError(
                f"order={self.order}: the thin-plate kernel of 000 eq. (11) needs 2m > d, but m={self.order} and "
                f"d={de} ({where}); use order >= {de // 2 + 1}, or ThinPlate(order=2, formula_dimension=2) "
                "(r^2 log r with linear polynomials, c.p.d. in any dimension, as in 000 §6.1)"
            )

    def polynomial_degree(self, d: int) -> int:
        """m − 1: the thin-plate kernel of order m is c.p.d. w.r.t. π_{m−1} (000 eq. 11)."""
        self._check_dimension(d)
        return self.order - 1

    def scaling_exponent(self, d: int) -> float:
        """2m − d (000 eq. 13: ‖f∘W_s‖² = s^{2m−d}‖f‖²)."""
        return float(2 * self.order - self._effective_d(d))

    def radial_form(self, d: int) -> tuple[float, int, bool]:
        """``(sign, p, log)`` with φ = sign · r^p · (log r if ``log`` else 1) in dimension ``d`` (eq. 11)."""
        self._check_dimension(d)
        de, m = self._effective_d(d), self.order
        if de % 2 == 0:
            return (-1.0) ** (m - (de - 2) // 2), 2 * m - de, True
        return (-1.0) ** (m - (de - 1) // 2), 2 * m - de, False

    def _gram(self, X: Array, Y: Array | None) -> Array:
        if Y is None:
            return self._gram_symmetric(X)
        D2 = squared_distances(X, Y)
        sign, p, use_log = self.radial_form(X.shape[1])  # (sign, 2m − d, d even) of eq. (11)
        if use_log:
            # r^p log r = ½ (r²)^{p/2} log r², with log taken as 0 where r = 0 (φ(x, x) = 0)
            L = np.zeros_like(D2)
            np.log(D2, out=L, where=D2 > 0.0)
            L *= 0.5 * sign
            if p // 2 == 1:
                L *= D2
            else:
                L *= D2 ** (p // 2)
            return L
        out = np.sqrt(D2) if p == 1 else D2 ** (0.5 * p)
        out *= sign
        return out

    def _gram_symmetric(self, X: Array) -> Array:
        """Φ(X, X) by one BLAS product and one compiled pass over its upper triangle
        (:func:`sdpkern._svmcore.radial_gram_inplace`): exactly symmetric, zero diagonal, and the
        same d² = ‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩ as :func:`squared_distances`. The NumPy route
        (distances, symmetrising, a masked log and two more passes) made six passes over n²."""
        Xc = np.ascontiguousarray(X, dtype=np.float64)
        sq = np.einsum("ij,ij->i", Xc, Xc)
        G = np.ascontiguousarray(Xc @ Xc.T)
        sign, p, use_log = self.radial_form(Xc.shape[1])  # (sign, 2m − d, d even) of eq. (11)
        _svmcore.radial_gram_inplace(G, sq, float(sign), int(p), bool(use_log))
        return G

    def diag(self, X: ArrayLike) -> Array:
        """φ(0) = 0 (r^{2m−d} log r vanishes at r = 0)."""
        return np.zeros(checked_matrix(X, "X").shape[0])


@dataclass(frozen=True)
class PowerDistance(CPDKernel):
    """φ(x, y) = −‖x − y‖^β for 0 < β < 2: c.p.d. of order 1, i.e. w.r.t. the constants.

    (Wendland 2004, Thm. 8.16 with ⌈β/2⌉ = 1; β = 1 is −r, the thin-plate kernel of order 2 in R³
    up to the polynomial space.) Scaling: φ(sx, sy) = s^β φ(x, y).

    Examples
    --------
    >>> PowerDistance(1.0)([[0.0], [3.0]]).tolist()
    [[-0.0, -3.0], [-3.0, -0.0]]
    """

    beta: float = 1.0

    def _check_params(self) -> None:
        b = self.beta
        if isinstance(b, bool) or not isinstance(b, (int, float, np.floating, np.integer)) or not 0 < b < 2:
            raise ParameterError(f"beta must lie in (0, 2) for -||x-y||^beta to be c.p.d. of order 1, got {b!r}")

    def _check_dimension(self, d: int) -> None:
        self._check_params()

    def polynomial_degree(self, d: int) -> int:
        """0: −r^β is c.p.d. of order 1, w.r.t. the constants (Wendland 2004, Thm. 8.16)."""
        self._check_params()
        return 0

    def scaling_exponent(self, d: int) -> float:
        """β: scaling the inputs by s scales −r^β by s^β (the exponent of 000 eq. 13)."""
        return float(self.beta)

    def _gram(self, X: Array, Y: Array | None) -> Array:
        D2 = squared_distances(X, Y)
        if Y is None:
            D2 = 0.5 * (D2 + D2.T)
            np.fill_diagonal(D2, 0.0)
        return -(D2 ** (0.5 * float(self.beta)))

    def diag(self, X: ArrayLike) -> Array:
        """φ(0) = 0."""
        return np.zeros(checked_matrix(X, "X").shape[0])


def polynomial_space_of(kernel: Kernel, d: int) -> PolynomialSpace:
    """The polynomial space of a c.p.d. kernel, or the empty space for an ordinary kernel."""
    if isinstance(kernel, CPDKernel):
        return kernel.polynomial_space(d)
    return PolynomialSpace(-1, d)


# ----------------------------------------------------------------------------- c.p.d. model pieces
#: Relative tolerance for the numerical rank of P (and of Q_s).
RANK_TOL = 1e-10


@dataclass
class PolynomialFactor:
    """The polynomial part of a c.p.d. problem on training inputs X (000 §6.1).

    ``P = basis(X)`` (n×r), its column-pivoted QR ``P ≈ Q Rk`` with ``Q`` (n×k) orthonormal and
    ``Rk`` (k×r) of full row rank k = numerical rank of P. β̄ = Rk β and β = Rk⁺ β̄.
    The basis is evaluated on (x − center)/scale for conditioning (it spans the same space).
    """

    space: PolynomialSpace
    center: Array
    scale: float
    P: Array
    Q: Array
    Rk: Array

    @property
    def rank(self) -> int:
        """k, the numerical rank of P (the number of columns of Q)."""
        return int(self.Q.shape[1])

    def basis(self, X: Array) -> Array:
        """P on new inputs, in the same (shifted, scaled) monomial basis."""
        return self.space.basis(X, self.center, self.scale)

    def beta_from_bar(self, beta_bar: Array) -> Array:
        """β = Rk⁺ β̄: the minimum-norm solution of Rk β = β̄ (000 §6.1, Algorithm 1 line 33)."""
        if self.space.dim == 0:
            return np.zeros(0)
        if self.rank == 0:
            return np.zeros(self.space.dim)
        sol = lstsq(self.Rk, beta_bar, lapack_driver="gelsd")[0]
        return np.asarray(sol, dtype=np.float64)


def polynomial_factor(X: Array, kernel: Kernel) -> PolynomialFactor:
    """Build P for ``kernel``'s polynomial space on X, and its rank-revealing QR.

    Works when P is rank deficient (fewer distinct points than dim π, or points on a
    lower-dimensional set): k < r columns are kept, as 000 §6.1 prescribes.
    """
    n, d = X.shape
    space = polynomial_space_of(kernel, d)
    center = X.mean(axis=0)
    scale = float(np.sqrt(np.mean(np.sum((X - center) ** 2, axis=1))))
    if not scale > 0.0:
        scale = 1.0
    P = space.basis(X, center, scale)
    r = P.shape[1]
    if r == 0:
        return PolynomialFactor(space, center, scale, P, np.zeros((n, 0)), np.zeros((0, 0)))
    Qf, Rf, piv = qr(P, mode="economic", pivoting=True)
    diag = np.abs(np.diag(Rf))
    k = int(np.sum(diag > RANK_TOL * max(diag[0], 1e-300)))
    Rk = np.zeros((k, r))
    Rk[:, piv] = Rf[:k, :]
    return PolynomialFactor(space, center, scale, P, np.ascontiguousarray(Qf[:, :k]), Rk)


def squared_hinge_objective(
    Phi: Array, alpha: Array, f: Array, y: Array, lam: float, sample_weight: Array | None = None
) -> float:
    """λ αᵀΦα + Σ w_i max(0, 1 − y_i f_i)² (000 eq. 14 with eq. 15; w_i = 1 unless weighted)."""
    nz = np.flatnonzero(alpha)
    quad = float(alpha[nz] @ (Phi[np.ix_(nz, nz)] @ alpha[nz])) if nz.size else 0.0
    hinge = np.maximum(0.0, 1.0 - y * f)
    return lam * quad + float((hinge if sample_weight is None else sample_weight * hinge) @ hinge)


def cpd_decision(
    kernel: Kernel, X_train: Array, alpha: Array, factor: PolynomialFactor, beta: Array, X: ArrayLike
) -> Array:
    """f(x) = Σ_j α_j φ(x, x_j) + Σ_k β_k p_k(x) (000 §6.1, after Theorem 4.6)."""
    Xa = checked_matrix(X, "X")
    if Xa.shape[1] != X_train.shape[1]:
        raise DataError(f"X has {Xa.shape[1]} features but the model was fitted on {X_train.shape[1]}")
    nz = np.flatnonzero(alpha)
    f = kernel(Xa, X_train[nz]) @ alpha[nz] if nz.size else np.zeros(Xa.shape[0])
    if beta.size:
        f = f + factor.basis(Xa) @ beta
    return np.asarray(f, dtype=np.float64)

"""Polynomial trajectories of transformed examples (003 eq. (2) and §3).

An example x and a transformation T(θ, x) define the trajectory {T(θ, x) : θ ∈ R} (003 eq. 1).
The SDPM works with its Taylor polynomial (003 eq. 2)

    x̃(θ) = Σ_{j=0}^{r} θ^j X_j,      X_j = (1/j!) d^j T(θ, x)/dθ^j |_{θ=0},

stored as a matrix X ∈ R^{(r+1)×n} per example, so a training set is an array of shape
``(m, r + 1, n)``. With D transformation parameters ρ = (ρ_1, ..., ρ_D) the second-order
expansion of 003 §3 is written as a quadratic form in θ_ρ = (1, ρ_1, ..., ρ_D),

    x̃(ρ) = θ_ρᵀ Q θ_ρ,   Q = [[x(0), ½∇ᵀx(0)], [½∇x(0), ½∇∇ᵀx(0)]],

stored per example as a symmetric array of shape ``(D + 1, D + 1, n)`` (so a training set has
shape ``(m, D + 1, D + 1, n)``). The paper's display omits the factors ½; they follow from the
Taylor expansion x(ρ) ≈ x + ρᵀ∇x + ½ ρᵀ(∇∇ᵀx)ρ.

Derivatives come from (a) analytic derivative functions when the caller supplies them,
(b) the closed-form derivatives of the built-in image transformations (orders ≤ 2), or
(c) central finite differences: the polynomial of degree 2s through T(kh, x), k = −s..s,
whose first r + 1 coefficients are the Taylor rows (s = ⌊r/2⌋ + 2, truncation O(h^{2s+1−j})).

Built-in image transformations (003 §4): rotation, translation in x and y, and scaling, each
applied to the Gaussian-smoothed image. The smoothed image is the continuous function
f(p) = Σ_q I_q g_σ(p − q) (a normalised 2-D Gaussian of variance σ² centred on every pixel q),
and T(θ, I) samples f at the pixel centres after moving them by the inverse transformation, so
T and all its θ-derivatives are exact closed forms (linear in I). 003 §4 smooths with variance
0.09 without stating the unit; we read it in coordinates where the image spans [−1, 1]
(``coordinates="unit"``: σ = 0.3 half-widths, 1.2 pixels on an 8×8 digit, 2.4 on a 16×16 USPS
image); ``coordinates="pixel"`` takes the variance in squared pixels instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import check_integer, check_positive
from .errors import DataError, ParameterError
from .kernels.base import Gaussian, Linear, Polynomial

__all__ = [
    "FunctionTransformation",
    "ImageTransformation",
    "IMAGE_TRANSFORMATIONS",
    "taylor_trajectories",
    "finite_difference_taylor",
    "evaluate_trajectories",
    "evaluate_quadratic_trajectories",
    "trajectories_from_derivatives",
    "check_trajectories",
    "kernel_taylor_gram",
    "kernel_quadratic_gram",
]

Array = NDArray[np.float64]
#: A transformation T(θ, X): θ a scalar (or a length-D vector), X of shape (m, n) -> (m, n).
TransformFn = Callable[[Any, Array], ArrayLike]
#: Analytic derivatives: derivatives(X, order) -> d^order T/dθ^order at θ = 0, shape (m, n).
DerivativeFn = Callable[[Array, int], ArrayLike]

IMAGE_TRANSFORMATIONS = ("rotation", "translation_x", "translation_y", "scaling")


# ----------------------------------------------------------------------------- validation
def _as_examples(X: ArrayLike, name: str = "X") -> Array:
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise DataError(f"{name} must be a 2-D array of examples (m, n), got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise DataError(f"{name} must have at least one example and one feature, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{name} contains NaN or infinity; remove or impute those entries (images included)")
    return arr


def check_trajectories(trajectories: ArrayLike, name: str = "trajectories") -> Array:
    """Validate polynomial trajectories and return them as a float array.

    Accepts ``(m, r + 1, n)`` (one parameter, 003 eq. 2) or ``(m, D + 1, D + 1, n)`` (several
    parameters, the quadratic form of 003 §3, symmetric in axes 1 and 2). Raises
    :class:`~sdpkern.errors.DataError` naming ``name`` for any other shape or non-finite entries.
    """
    try:
        arr = np.asarray(trajectories, dtype=np.float64)
    except (TypeError, ValueError) as exc:  # ragged: trajectories of different degrees or lengths
        raise DataError(
            f"{name} must be an array of numbers of shape (m, r+1, n) or (m, D+1, D+1, n): every trajectory of "
            f"the same degree and length ({exc})"
        ) from None
    if arr.ndim not in (3, 4):
        raise DataError(
            f"{name} must have shape (m, r+1, n) for one transformation parameter or (m, D+1, D+1, n) for "
            f"several (003 §3), got an array with shape {arr.shape}"
        )
    if any(s < 1 for s in arr.shape):
        raise DataError(f"{name} has an empty axis: shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{name} contains NaN or infinity; check the examples and the transformation")
    if arr.ndim == 4:
        if arr.shape[1] != arr.shape[2]:
            raise DataError(f"{name} of several parameters must have shape (m, D+1, D+1, n), got {arr.shape}")
        if not np.allclose(arr, arr.transpose(0, 2, 1, 3), rtol=1e-10, atol=1e-12):
            raise DataError(f"{name}: the (D+1)x(D+1) blocks of the quadratic form must be symmetric (003 §3)")
    return arr


# ----------------------------------------------------------------------------- evaluation
def evaluate_trajectories(trajectories: ArrayLike, theta: ArrayLike) -> Array:
    """x̃_i(θ) = Σ_j θ^j (X_i)_j for every example and every θ (003 eq. 2).

    Parameters
    ----------
    trajectories : array of shape (m, r + 1, n)
    theta : float or array of shape (g,)

    Returns
    -------
    array of shape (m, g, n) (or (m, n) for a scalar θ)
    """
    Xt = np.asarray(trajectories, dtype=np.float64)
    th = np.asarray(theta, dtype=np.float64)
    powers = th[..., None] ** np.arange(Xt.shape[1])  # (..., r+1)
    return np.einsum("...j,mjn->m...n", powers, Xt)


def evaluate_quadratic_trajectories(trajectories: ArrayLike, rho: ArrayLike) -> Array:
    """x̃_i(ρ) = θ_ρᵀ Q_i θ_ρ with θ_ρ = (1, ρ) for trajectories of shape (m, D+1, D+1, n) (003 §3).

    ``rho`` has shape (D,) or (g, D); returns (m, n) or (m, g, n).
    """
    Q = np.asarray(trajectories, dtype=np.float64)
    r = np.atleast_2d(np.asarray(rho, dtype=np.float64))
    t = np.concatenate([np.ones((r.shape[0], 1)), r], axis=1)
    out = np.einsum("ga,mabn,gb->mgn", t, Q, t)
    return out[:, 0] if np.ndim(rho) == 1 else out


# ----------------------------------------------------------------------------- Taylor rows
def trajectories_from_derivatives(derivatives: Sequence[ArrayLike]) -> Array:
    """Stack derivatives ``[T(0,X), T'(0,X), T''(0,X), ...]`` (each (m, n)) into Taylor rows (m, r+1, n).

    Row j is the j-th derivative divided by j! (003 eq. 2).
    """
    rows = [np.asarray(d, dtype=np.float64) for d in derivatives]
    if not rows:
        raise DataError("derivatives must hold at least T(0, X)")
    shape = rows[0].shape
    for j, d in enumerate(rows):
        if d.shape != shape or d.ndim != 2:
            raise DataError(f"derivative of order {j} has shape {d.shape}, expected {shape} (m, n)")
        if not np.all(np.isfinite(d)):
            raise DataError(f"derivative of order {j} contains NaN or infinity")
    return np.stack([d / math.factorial(j) for j, d in enumerate(rows)], axis=1)


def finite_difference_taylor(transform: TransformFn, X: ArrayLike, degree: int = 2, *, step: float = 0.05) -> Array:
    """Taylor rows of ``transform`` at θ = 0 by central finite differences.

    The interpolating polynomial of degree 2s through T(kh, X), k = −s..s, s = ⌊r/2⌋ + 2, gives
    all coefficients up to degree r at once (truncation error O(h^{2s+1−j}) on row j).

    Parameters
    ----------
    transform : callable ``T(theta, X) -> (m, n)``
    X : array of shape (m, n)
    degree : int
        r, the degree of the trajectory.
    step : float
        h, in the units of θ.

    Returns
    -------
    array of shape (m, r + 1, n)
    """
    Xa = _as_examples(X)
    r = check_integer(degree, "degree", 0)
    h = check_positive(step, "step")
    s = r // 2 + 2
    ks = np.arange(-s, s + 1, dtype=np.float64)
    V = ks[:, None] ** np.arange(2 * s + 1)[None, :]  # V[k, p] = k^p
    Vinv = np.linalg.inv(V)  # coefficient p of the interpolant in units of (θ/h)^p
    values = np.stack([_call(transform, float(k * h), Xa) for k in ks], axis=0)  # (2s+1, m, n)
    coef = np.einsum("pk,kmn->mpn", Vinv[: r + 1], values)
    return coef / (h ** np.arange(r + 1))[None, :, None]


def _call(transform: TransformFn, theta: Any, X: Array) -> Array:
    out = np.asarray(transform(theta, X), dtype=np.float64)
    if out.shape != X.shape:
        raise DataError(f"transformation returned shape {out.shape} for X of shape {X.shape}; it must keep the shape")
    if not np.all(np.isfinite(out)):
        raise DataError(f"transformation returned NaN or infinity at theta={theta!r}")
    return out


@dataclass(frozen=True)
class FunctionTransformation:
    """A user transformation T(θ, X) with optional analytic derivatives.

    Parameters
    ----------
    function : callable ``T(theta, X) -> array (m, n)``
        Vectorised over the rows of X.
    derivatives : callable ``derivatives(X, order) -> array (m, n)``, optional
        d^order T/dθ^order at θ = 0; used for every order when given, else finite differences.
    step : float
        Finite-difference step h (units of θ).
    """

    function: TransformFn
    derivatives: DerivativeFn | None = None
    step: float = 0.05

    n_parameters = 1

    def __call__(self, theta: Any, X: ArrayLike) -> Array:
        """The transformed examples T(θ, X)."""
        return _call(self.function, theta, _as_examples(X))

    def taylor(self, X: ArrayLike, degree: int = 2) -> Array:
        """Taylor rows (m, degree + 1, n) of 003 eq. (2)."""
        Xa = _as_examples(X)
        r = check_integer(degree, "degree", 0)
        if self.derivatives is not None:
            return trajectories_from_derivatives([self.derivatives(Xa, j) for j in range(r + 1)])
        return finite_difference_taylor(self.function, Xa, r, step=self.step)


def taylor_trajectories(
    X: ArrayLike,
    transformation: Any,
    degree: int = 2,
    *,
    derivatives: DerivativeFn | None = None,
    step: float = 0.05,
) -> Array:
    """Polynomial trajectories X_i ∈ R^{(r+1)×n} of every example (003 eq. 2).

    Parameters
    ----------
    X : array of shape (m, n)
    transformation : callable ``T(theta, X)``, an object with ``taylor(X, degree)`` (such as
        :class:`ImageTransformation` or :class:`FunctionTransformation`), or ``None`` for the
        identity (constant trajectories, which turn the SDPM into the plain SVM).
    degree : int
        r.
    derivatives : callable ``derivatives(X, order)``, optional
        Analytic derivatives of a callable ``transformation``.
    step : float
        Finite-difference step for a callable without derivatives.

    Returns
    -------
    array of shape (m, r + 1, n)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0]])
    >>> rot = lambda t, X: X @ np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
    >>> np.round(taylor_trajectories(X, rot, 2)[0], 6) + 0.0  # rows: x, x', x''/2
    array([[ 1. ,  0. ],
           [ 0. ,  1. ],
           [-0.5,  0. ]])
    """
    Xa = _as_examples(X)
    r = check_integer(degree, "degree", 0)
    if transformation is None:
        out = np.zeros((Xa.shape[0], r + 1, Xa.shape[1]))
        out[:, 0] = Xa
        return out
    if hasattr(transformation, "taylor"):
        if getattr(transformation, "n_parameters", 1) != 1:
            raise ParameterError(
                "transformation has several parameters; use its quadratic_form(X) (003 §3) instead of a "
                "one-parameter Taylor polynomial"
            )
        return _checked_rows(transformation.taylor(Xa, r), Xa.shape, r)
    if callable(transformation):
        return FunctionTransformation(transformation, derivatives, step).taylor(Xa, r)
    raise ParameterError(
        "transformation must be None, a callable T(theta, X), or an object with taylor(X, degree), "
        f"got {type(transformation).__name__}"
    )



# ----------------------------------------------------------------------------- kernels
def _series_mul(A: Array, B: Array, r1: int, r2: int) -> Array:
    """Product of truncated bivariate series (coefficients on axes 0, 1)."""
    out = np.zeros_like(A)
    for u1 in range(r1 + 1):
        for v1 in range(r2 + 1):
            if not np.any(A[u1, v1]):
                continue
            for u2 in range(r1 + 1 - u1):
                for v2 in range(r2 + 1 - v1):
                    out[u1 + u2, v1 + v2] += A[u1, v1] * B[u2, v2]
    return out


def _compose(S: Array, derivs: Callable[[Array, int], Array], r1: int, r2: int) -> Array:
    """Truncated series of f(S(θ, θ')) from the series S and f^{(k)}(s₀)."""
    s0 = S[0, 0]
    delta = S.copy()
    delta[0, 0] = 0.0
    out = np.zeros_like(S)
    power = np.zeros_like(S)
    power[0, 0] = 1.0
    for k in range(r1 + r2 + 1):
        out += derivs(s0, k)[None, None] / math.factorial(k) * power
        power = _series_mul(power, delta, r1, r2)
    return out


def kernel_taylor_gram(kernel: Any, A: ArrayLike, B: ArrayLike | None = None, *, paired: bool = False) -> Array:
    """Gram blocks k^{(u,v)}(x_i, x_j) of Taylor coefficients in feature space (end of 003 §3).

    For trajectories a_i(θ) = Σ_u θ^u A_iu and b_j(θ') = Σ_v θ'^v B_jv,
    K[i, u, j, v] = (1/(u!v!)) ∂^u_θ ∂^v_θ' k(a_i(θ), b_j(θ')) at 0: the inner product of the
    u-th Taylor coefficient of φ(a_i(θ)) and the v-th of φ(b_j(θ')). Exact (truncated power
    series) for :class:`~sdpkern.kernels.Linear`, :class:`~sdpkern.kernels.Polynomial` and
    :class:`~sdpkern.kernels.Gaussian`.

    Parameters
    ----------
    kernel : Linear, Polynomial or Gaussian
    A : array of shape (mA, rA + 1, n)
    B : array of shape (mB, rB + 1, n), optional (default A)
    paired : bool, default=False
        Only the pairs (A_i, B_i) (``mA == mB``): the blocks K[i, :, i, :], e.g. a diagonal.

    Returns
    -------
    array of shape (mA, rA + 1, mB, rB + 1), or (m, rA + 1, rB + 1) when ``paired``
    """
    At = check_trajectories(A, "A")
    Bt = At if B is None else check_trajectories(B, "B")
    if At.ndim != 3 or Bt.ndim != 3:
        raise ParameterError(
            "the kernel SDPM differentiates the kernel along one transformation parameter: trajectories of shape "
            "(m, r+1, n), got several parameters; use a linear kernel for several transformation parameters"
        )
    if At.shape[2] != Bt.shape[2]:
        raise DataError(f"trajectories have {At.shape[2]} and {Bt.shape[2]} features")
    if paired and At.shape[0] != Bt.shape[0]:
        raise DataError(f"paired=True needs as many trajectories in A as in B, got {At.shape[0]} and {Bt.shape[0]}")
    r1, r2 = At.shape[1] - 1, Bt.shape[1] - 1
    # series coefficients on axes (0, 1), the pairs on the trailing axes: (mA, mB), or (m,) paired
    dots = np.einsum("iun,ivn->uvi" if paired else "iun,jvn->uvij", At, Bt)  # A_uᵀ B_v
    if isinstance(kernel, Linear):
        S = dots
    elif isinstance(kernel, Polynomial):
        kernel._check_params()
        S = kernel.gamma * dots
        S[0, 0] = S[0, 0] + kernel.coef0
        deg = int(kernel.degree)

        def dpoly(s0: Array, k: int) -> Array:
            if k > deg:
                return np.zeros_like(s0)
            return math.factorial(deg) / math.factorial(deg - k) * s0 ** (deg - k)

        S = _compose(S, dpoly, r1, r2)
    elif isinstance(kernel, Gaussian):
        kernel._check_params()
        g = kernel.gamma
        aa = np.einsum("iun,iwn->uwi", At, At)  # A_uᵀ A_w per example
        bb = np.einsum("jvn,jwn->vwj", Bt, Bt)
        E = -2.0 * dots
        for u in range(r1 + 1):
            for w_ in range(r1 + 1):
                if u + w_ <= r1:
                    E[u + w_, 0] += aa[u, w_] if paired else aa[u, w_][:, None]
        for v in range(r2 + 1):
            for w_ in range(r2 + 1):
                if v + w_ <= r2:
                    E[0, v + w_] += bb[v, w_] if paired else bb[v, w_][None, :]
        E[0, 0] = np.maximum(E[0, 0], 0.0)

        def dexp(s0: Array, k: int) -> Array:
            return (-g) ** k * np.exp(-g * s0)

        S = _compose(E, dexp, r1, r2)
    else:
        raise ParameterError(
            f"kernel must be a Linear, Polynomial or Gaussian kernel for the kernel SDPM, got {type(kernel).__name__}"
        )
    return np.ascontiguousarray(S.transpose(2, 0, 1) if paired else S.transpose(2, 0, 3, 1))


def _quadratic_directions(D: int) -> tuple[list[Array], Array]:
    """Directions e_a and e_a + e_b (a < b) of ℝ^D and the map E from the univariate Taylor
    coefficients along them, (direction, order ≤ 2), to the monomials of ρ of degree ≤ 2 in the
    order of the upper triangle of θ_ρθ_ρᵀ (1, ρ_1, …, ρ_D, ρ_1², ρ_1ρ_2, …, ρ_D²): polarisation,
    ρ_aρ_b's coefficient = c(e_a + e_b) − c(e_a) − c(e_b) at order 2."""
    eye = np.eye(D)
    dirs = [eye[a] for a in range(D)] + [eye[a] + eye[b] for a in range(D) for b in range(a + 1, D)]
    index = {(a, b): k for k, (a, b) in enumerate((a, b) for a in range(D + 1) for b in range(a, D + 1))}
    pair_dir = {(a, b): D + k for k, (a, b) in enumerate((a, b) for a in range(D) for b in range(a + 1, D))}
    E = np.zeros((len(index), 3 * len(dirs)))
    E[index[0, 0], 0] = 1.0
    for a in range(D):
        E[index[0, a + 1], 3 * a + 1] = 1.0
        E[index[a + 1, a + 1], 3 * a + 2] = 1.0
        for b in range(a + 1, D):
            row = index[a + 1, b + 1]
            E[row, 3 * pair_dir[a, b] + 2] = 1.0
            E[row, 3 * a + 2] = E[row, 3 * b + 2] = -1.0
    return dirs, E


def _along(Q: Array, u: Array) -> Array:
    """The univariate trajectory x̃(tu) = Q00 + 2t uᵀQ0· + t² uᵀQ··u of a quadratic form (m, 3, n)."""
    return np.stack(
        [Q[:, 0, 0], 2.0 * np.einsum("a,man->mn", u, Q[:, 0, 1:]), np.einsum("a,b,mabn->mn", u, u, Q[:, 1:, 1:])],
        axis=1,
    )


def kernel_quadratic_gram(kernel: Any, A: ArrayLike, B: ArrayLike | None = None, *, paired: bool = False) -> Array:
    """Gram matrix of the feature-space Taylor coefficients of second-order forms in D parameters.

    For quadratic forms x̃_i(ρ) = θ_ρᵀQ_iθ_ρ (003 §3) and the kernel k, entry [i, α, j, β] is the
    coefficient of ρ^α ρ'^β in k(x̃_i(ρ), x̃_j(ρ')) at 0, α and β over the monomials of degree
    ≤ 2 in the order of the upper triangle of θ_ρθ_ρᵀ: the inner product of the α-th Taylor
    coefficient of φ(x̃_i(ρ)) with the β-th of φ(x̃_j(ρ')) ("differentiating through the kernel",
    the end of 003 §3, for several parameters). For the linear kernel these are the products of
    (Q_00, 2Q_0a, Q_aa, 2Q_ab). Computed exactly from :func:`kernel_taylor_gram` along the
    directions e_a and e_a + e_b by polarisation.

    Parameters
    ----------
    kernel : Linear, Polynomial or Gaussian
    A : array of shape (mA, D + 1, D + 1, n)
    B : array of shape (mB, D + 1, D + 1, n) or plain points (mB, n), optional (default A)
    paired : bool
        Only the pairs (A_i, B_i).

    Returns
    -------
    array (mA, q, mB, q), (mA, q, mB) for points, or (m, q, q) paired; q = (D + 1)(D + 2)/2
    """
    At = check_trajectories(A, "A")
    if At.ndim != 4:
        raise DataError(f"A must be quadratic forms (m, D+1, D+1, n) of several parameters, got shape {At.shape}")
    D = At.shape[1] - 1
    dirs, E = _quadratic_directions(D)
    left = [_along(At, u) for u in dirs]
    if B is not None and np.ndim(B) == 2:  # plain points: degree 0 on the right
        pts = np.asarray(B, dtype=np.float64)[:, None, :]
        G = np.stack([kernel_taylor_gram(kernel, L, pts)[:, :, :, 0] for L in left], axis=1)  # (mA, nd, 3, mB)
        return np.einsum("ak,mkp->map", E, G.reshape(At.shape[0], -1, pts.shape[0]))
    Bt = At if B is None else check_trajectories(B, "B")
    if Bt.ndim != 4 or Bt.shape[1] != At.shape[1]:
        raise DataError(f"B must be quadratic forms like A's {At.shape[1:3]}, got shape {Bt.shape}")
    right = [_along(Bt, v) for v in dirs]
    if paired:
        G = np.stack([np.stack([kernel_taylor_gram(kernel, L, R, paired=True) for R in right], 2) for L in left], 1)
        G = G.reshape(At.shape[0], 3 * len(dirs), 3 * len(dirs))  # [i, (dl, s), (dr, p)]
        return np.einsum("ak,mkl,bl->mab", E, G, E)
    G = np.stack([np.stack([kernel_taylor_gram(kernel, L, R) for R in right], axis=3) for L in left], axis=1)
    # G[i, dl, s, j, dr, p] → (mA, nd·3, mB, nd·3)
    G = G.reshape(At.shape[0], 3 * len(dirs), Bt.shape[0], 3 * len(dirs))
    return np.einsum("ak,ikjl,bl->iajb", E, G, E)

def _checked_rows(rows: Any, shape: tuple[int, ...], r: int) -> Array:
    """A transformation's Taylor rows, of shape (m, r + 1, n) and finite, or a DataError naming it."""
    try:
        out = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"transformation.taylor returned rows that are not an array of numbers: {exc}") from None
    want = (shape[0], r + 1, shape[1])
    if out.shape != want:
        raise DataError(
            f"transformation.taylor(X, {r}) returned shape {out.shape}; Taylor rows of degree {r} for X of shape "
            f"{shape} have shape {want} (m, r+1, n)"
        )
    if not np.all(np.isfinite(out)):
        raise DataError("transformation.taylor returned NaN or infinity; check the transformation and the images")
    return out


# ----------------------------------------------------------------------------- images
_J = np.array([[0.0, -1.0], [1.0, 0.0]])  # d/dφ R(φ) at φ = 0


@dataclass(frozen=True)
class ImageTransformation:
    """Rotation, translation and scaling of Gaussian-smoothed images (003 §4), with exact derivatives.

    Pixel p (column, row) of the transformed image takes the value of the smoothed image
    f(q) = Σ_k I_k g_σ(q − k) at the source point

        s_ρ(p) = c + e^{−λ} R(φ) (p − c − t),

    with c the image centre, φ the rotation angle (``"rotation"``, radians; positive φ turns the
    image counter-clockwise as displayed with row 0 at the top, like ``scipy.ndimage.rotate``), λ the log scale
    factor (``"scaling"``: the image grows by e^λ) and t = (t_x, t_y) the translation
    (``"translation_x"``, ``"translation_y"``, in the units of ``coordinates``). Parameters not
    in ``kinds`` stay 0. Derivatives in ρ follow by the chain rule from the gradient and Hessian
    of the Gaussian, so they are exact (no finite differences).

    Parameters
    ----------
    kinds : str or tuple of str
        One or several of ``"rotation"``, ``"translation_x"``, ``"translation_y"``, ``"scaling"``.
    shape : (int, int)
        Image shape (rows, columns); examples are the row-major flattened images.
    variance : float
        Variance of the smoothing Gaussian (003 §4: 0.09).
    coordinates : {"unit", "pixel"}
        ``"unit"``: lengths (variance, translation) in units where the image spans [−1, 1] along
        its longer side; ``"pixel"``: in pixels.
    origin : {"raw", "smoothed"}
        Whether the trajectory passes through the raw image (T(0, x) = x, derivatives from the
        smoothed image, as 003 §4 describes) or through the smoothed image f.
    """

    kinds: str | tuple[str, ...]
    shape: tuple[int, int]
    variance: float = 0.09
    coordinates: Literal["unit", "pixel"] = "unit"
    origin: Literal["raw", "smoothed"] = "raw"

    def __post_init__(self) -> None:
        kinds = (self.kinds,) if isinstance(self.kinds, str) else tuple(self.kinds)
        if not kinds or any(k not in IMAGE_TRANSFORMATIONS for k in kinds) or len(set(kinds)) != len(kinds):
            raise ParameterError(f"kinds must be distinct names from {IMAGE_TRANSFORMATIONS}, got {self.kinds!r}")
        object.__setattr__(self, "kinds", kinds)
        if len(self.shape) != 2 or any(
            isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1 for s in self.shape
        ):
            raise ParameterError(f"shape must be (rows, columns) of positive integers, got {self.shape!r}")
        object.__setattr__(self, "shape", (int(self.shape[0]), int(self.shape[1])))
        check_positive(self.variance, "variance")
        if self.coordinates not in ("unit", "pixel"):
            raise ParameterError(f"coordinates must be 'unit' or 'pixel', got {self.coordinates!r}")
        if self.origin not in ("raw", "smoothed"):
            raise ParameterError(f"origin must be 'raw' or 'smoothed', got {self.origin!r}")

    # -- geometry -------------------------------------------------------------------------
    @property
    def n_parameters(self) -> int:
        """How many transformation parameters θ has (one per transformation kind)."""
        return len(self.kinds)

    @property
    def _unit(self) -> float:
        """Pixels per coordinate unit."""
        return max(self.shape) / 2.0 if self.coordinates == "unit" else 1.0

    @property
    def sigma_pixels(self) -> float:
        """Standard deviation of the smoothing Gaussian in pixels."""
        return math.sqrt(self.variance) * self._unit

    def _grid(self) -> tuple[Array, Array]:
        rows, cols = self.shape
        yy, xx = np.meshgrid(np.arange(rows, dtype=np.float64), np.arange(cols, dtype=np.float64), indexing="ij")
        P = np.stack([xx.ravel(), yy.ravel()], axis=1)  # (n, 2): (column, row)
        c = np.array([(cols - 1) / 2.0, (rows - 1) / 2.0])
        return P, c

    def _params(self, rho: Any) -> dict[str, float]:
        r = np.atleast_1d(np.asarray(rho))
        if r.shape != (len(self.kinds),):
            raise DataError(f"theta must have {len(self.kinds)} entries (one per kind {self.kinds}), got {r.shape}")
        out = dict.fromkeys(IMAGE_TRANSFORMATIONS, 0.0)
        out.update({k: v for k, v in zip(self.kinds, r.tolist())})
        return out

    def _source(self, rho: Any) -> Array:
        """Source points s_ρ(p) for every pixel, shape (n, 2)."""
        P, c = self._grid()
        p = self._params(rho)
        phi, lam = p["rotation"], p["scaling"]
        t = np.array([p["translation_x"], p["translation_y"]]) * self._unit
        Rm = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])  # R(φ)
        return c + math.exp(-lam) * (P - c - t) @ Rm.T

    def _generators(self) -> tuple[list[Array], list[list[Array]]]:
        """First and second derivatives of s_ρ(p) at ρ = 0: v_a (n, 2) and v_ab (n, 2)."""
        P, c = self._grid()
        d = P - c
        u = self._unit
        ex, ey = np.array([1.0, 0.0]), np.array([0.0, 1.0])
        first = {
            "rotation": d @ _J.T,
            "scaling": -d,
            "translation_x": -u * np.broadcast_to(ex, d.shape),
            "translation_y": -u * np.broadcast_to(ey, d.shape),
        }
        zero = np.zeros_like(d)

        def second(a: str, b: str) -> Array:
            pair = {a, b}
            if a == b == "rotation":
                return -d
            if a == b == "scaling":
                return d.copy()
            if pair == {"rotation", "scaling"}:
                return -(d @ _J.T)
            if "rotation" in pair and pair & {"translation_x", "translation_y"}:
                e = ex if "translation_x" in pair else ey
                return np.broadcast_to(-u * (_J @ e), d.shape).copy()
            if "scaling" in pair and pair & {"translation_x", "translation_y"}:
                e = ex if "translation_x" in pair else ey
                return np.broadcast_to(u * e, d.shape).copy()
            return zero

        v = [np.array(first[k]) for k in self.kinds]
        vv = [[second(a, b) for b in self.kinds] for a in self.kinds]
        return v, vv

    def _kernels(self, S: Array) -> tuple[Array, Array, Array]:
        """g_σ(s_p − q), its gradient and Hessian in s, for source points S (n, 2)."""
        P, _ = self._grid()
        s2 = self.sigma_pixels**2
        D = S[:, None, :] - P[None, :, :]  # (n, n, 2)
        g = np.exp(-np.einsum("pqk,pqk->pq", D, D) / (2 * s2)) / (2 * math.pi * s2)
        grad = -D / s2 * g[..., None]
        hess = (np.einsum("pqk,pql->pqkl", D, D) / s2**2 - np.eye(2) / s2) * g[..., None, None]
        return g, grad, hess

    def _check_images(self, X: ArrayLike) -> Array:
        Xa = _as_examples(X, "X (images)")
        n = self.shape[0] * self.shape[1]
        if Xa.shape[1] != n:
            raise DataError(f"X has {Xa.shape[1]} features but images of shape {self.shape} have {n} pixels")
        return Xa

    # -- evaluation -----------------------------------------------------------------------
    def smooth(self, X: ArrayLike) -> Array:
        """The smoothed images f(p) at the pixel centres, shape (m, n)."""
        Xa = self._check_images(X)
        P, _ = self._grid()
        return Xa @ self._kernels(P)[0].T

    def __call__(self, theta: Any, X: ArrayLike) -> Array:
        """T(θ, X): the transformed images (exact, not a Taylor approximation)."""
        Xa = self._check_images(X)
        W = self._kernels(self._source(theta))[0]
        out = Xa @ W.T
        if self.origin == "raw":
            out = out - self.smooth(Xa) + Xa
        return out

    def derivative_operators(self) -> tuple[Array, list[Array], list[list[Array]]]:
        """Linear maps (n×n) giving f(p), ∂_a T and ∂_a∂_b T at ρ = 0 from an image."""
        P, _ = self._grid()
        g, grad, hess = self._kernels(P)
        v, vv = self._generators()
        D1 = [np.einsum("pqk,pk->pq", grad, va) for va in v]
        D2 = [
            [
                np.einsum("pqkl,pk,pl->pq", hess, v[a], v[b]) + np.einsum("pqk,pk->pq", grad, vv[a][b])
                for b in range(len(v))
            ]
            for a in range(len(v))
        ]
        return g, D1, D2

    def taylor(self, X: ArrayLike, degree: int = 2) -> Array:
        """Taylor rows (m, r + 1, n) of a one-parameter transformation (003 eq. 2).

        Exact for r ≤ 2; higher rows by finite differences of the exact T(θ, X).
        """
        Xa = self._check_images(X)
        r = check_integer(degree, "degree", 0)
        if self.n_parameters != 1:
            raise ParameterError(f"taylor() needs one parameter, this has {self.kinds}; use quadratic_form(X)")
        if r > 2:
            return finite_difference_taylor(self, Xa, r, step=0.02)
        g, D1, D2 = self.derivative_operators()
        rows = [Xa if self.origin == "raw" else Xa @ g.T, Xa @ D1[0].T, 0.5 * Xa @ D2[0][0].T]
        return np.stack(rows[: r + 1], axis=1)

    def quadratic_form(self, X: ArrayLike) -> Array:
        """Second-order form of 003 §3 for all parameters, shape (m, D+1, D+1, n)."""
        Xa = self._check_images(X)
        g, D1, D2 = self.derivative_operators()
        D = self.n_parameters
        out = np.empty((Xa.shape[0], D + 1, D + 1, Xa.shape[1]))
        out[:, 0, 0] = Xa if self.origin == "raw" else Xa @ g.T
        for a in range(D):
            out[:, 0, a + 1] = out[:, a + 1, 0] = 0.5 * Xa @ D1[a].T
            for b in range(D):
                out[:, a + 1, b + 1] = 0.5 * Xa @ D2[a][b].T
        return out

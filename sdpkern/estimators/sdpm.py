"""scikit-learn estimator for the semidefinite programming machine (003, Graepel & Herbrich 2003).

:class:`SDPMClassifier` turns each training example into its polynomial trajectory under a
known transformation (003 eq. 2, :mod:`sdpkern.trajectories`) and learns the maximum-margin
classifier that is correct along every trajectory (003 eq. 6; the dual 8 with kernels). Several
classes are handled one-vs-rest, as every sdpkern classifier (docs/conventions.md).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from .._validation import DEPRECATED, Interval, Options, take_deprecated
from ..builders.sdpm import kernel_sdpm, kernel_taylor_gram, sdpm
from ..errors import ParameterError
from ..kernels.base import Gaussian, Kernel, Linear, Polynomial
from ..trajectories import (
    IMAGE_TRANSFORMATIONS,
    FunctionTransformation,
    ImageTransformation,
    taylor_trajectories,
)
from ._base import KernelClassifierMixin, SdpkernEstimator

__all__ = ["SDPMClassifier"]

Array = NDArray[np.float64]


_POSITIVE = Interval(Real, 0, None, closed="neither")


@dataclass(kw_only=True, eq=False, repr=False)
class SDPMClassifier(KernelClassifierMixin, SdpkernEstimator):
    """Semidefinite programming machine: a maximum-margin classifier on polynomial trajectories.

    Each training example x_i becomes the Taylor polynomial x̃_i(θ) of its transformation
    T(θ, x_i) (003 eq. 2) and the classifier satisfies y_i f(x̃_i(θ)) ≥ 1 − ξ_i for every θ
    on the real line, or on [−segment, segment] (003 eq. 6, Corollary 1). Prediction uses the
    plain input: f(x) = wᵀx + b (or the kernel expansion of 003 eq. 8).

    Parameters
    ----------
    transformation : None, str, tuple of str, callable or object with ``taylor(X, degree)``
        ``None``: no transformation (the plain SVM). A name from ``"rotation"``,
        ``"translation_x"``, ``"translation_y"``, ``"scaling"`` (or a tuple of them for several
        parameters, 003 §3): built-in image transformations on images of ``image_shape`` after
        Gaussian smoothing of variance ``variance`` (003 §4). A callable ``T(theta, X) -> X'``
        (vectorised over rows): derivatives by finite differences. Any object with
        ``taylor(X, degree)`` (e.g. :class:`~sdpkern.trajectories.FunctionTransformation` with
        analytic derivatives, or an :class:`~sdpkern.trajectories.ImageTransformation`).
    taylor_degree : int, default=2
        r, the degree of the Taylor polynomial (003 eq. 2); even unless ``segment`` is given.
        Several parameters use the second-order form (degree 2).
    segment : float or None, default=None
        τ > 0: require the margin only for θ ∈ [−τ, τ] (003 Corollary 1), in θ's units
        (radians for rotation).
    C : float or None, default=None
        Soft-margin penalty C Σ ξ_i (the dual box is 0 ≤ μ_i0 ≤ C, as ``SVC``); ``None`` is the
        hard margin of 003 eq. (6) (an :class:`~sdpkern.errors.InfeasibleError` if the
        trajectories cannot be separated).
    kernel : {"linear", "poly", "rbf"} or Kernel, default="linear"
        ``"linear"`` solves the primal (003 eq. 6); the others the dual (003 eq. 8) with Gram
        blocks of kernel derivatives (one transformation parameter only).
    gamma, coef0, degree : float, float, int
        Parameters of the ``"poly"`` ((γ⟨x, y⟩ + c₀)^degree) and ``"rbf"`` (exp(−γ‖x − y‖²))
        kernels, as scikit-learn's ``SVC``.
    kernel_degree : int
        Deprecated since 0.1.0 (removed in 0.2.0): use ``degree``.
    fit_intercept : bool, default=True
        Learn an offset b (003 omits it).
    image_shape : (int, int) or None, default=None
        Image shape for the built-in transformations; ``None`` means square images.
    variance : float, default=0.09
        Smoothing variance of the built-in transformations (units where the image spans [−1, 1]).
    backend : str, default="clarabel"
        Solver backend (see :mod:`sdpkern.backends`).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each class's C (needs ``C``), as scikit-learn's ``SVC``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) (or (n_classes, n_features) one-vs-rest)
        w (linear kernel only).
    intercept_ : float (or ndarray of shape (n_classes,))
    support_ : ndarray of int
        Indices (into the training set) of the support trajectories.
    theta_star_ : ndarray
        θ_i* of each support trajectory (003 Proposition 3): where its virtual support vector sits.
    dual_coef_ : ndarray of shape (n_support, r + 1)
        y_i μ_{iu} of the support trajectories (003 eq. 9).
    status_ : str
        The solve's status (one-vs-rest: the worst; each model's in ``statuses_``).
    backend_ : str
    estimators_ : list
        One-vs-rest only: the binary models.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sdpkern.estimators import SDPMClassifier
    >>> X = np.array([[2.0, 0.1], [1.5, -0.2], [-2.0, 0.3], [-1.6, -0.1]])
    >>> clf = SDPMClassifier(transformation=lambda t, X: X * (1 + 0.1 * t * t), C=10.0).fit(X, [0, 0, 1, 1])
    >>> clf.predict([[1.8, 0.0], [-1.9, 0.0]]).tolist()
    [0, 1]
    """

    transformation: Any = None
    taylor_degree: int = 2
    segment: float | None = None
    C: float | None = None
    kernel: str | Kernel = "linear"
    gamma: float = 1.0
    coef0: float = 1.0
    degree: int = 3
    kernel_degree: Any = DEPRECATED
    fit_intercept: bool = True
    image_shape: tuple[int, int] | None = None
    variance: float = 0.09
    backend: str = "clarabel"
    class_weight: Any = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "taylor_degree": [Interval(Integral, 0, None)],
        "segment": [_POSITIVE, None],
        "C": [_POSITIVE, None],
        "kernel": [Options({"linear", "poly", "rbf"}), Linear, Polynomial, Gaussian],
        "gamma": [_POSITIVE],
        "coef0": [Interval(Real, None, None)],
        "degree": [Interval(Integral, 1, None)],
        "kernel_degree": [Options({DEPRECATED}), Interval(Integral, 1, None)],
        "fit_intercept": ["boolean"],
        "variance": [_POSITIVE],
        "backend": [str],
        "class_weight": [dict, Options({"balanced"}), None],
    }

    # ------------------------------------------------------------------ parameters
    def _kernel_degree(self) -> int:
        return int(take_deprecated("SDPMClassifier", "kernel_degree", self.kernel_degree, "degree", self.degree))

    def _kernel_object(self) -> Kernel | None:
        """``None`` for the linear primal, else the kernel of the dual."""
        if isinstance(self.kernel, Kernel):
            return None if isinstance(self.kernel, Linear) else self.kernel
        if self.kernel == "linear":
            return None
        if self.kernel == "poly":
            return Polynomial(degree=self._kernel_degree(), gamma=float(self.gamma), coef0=float(self.coef0))
        return Gaussian(gamma=float(self.gamma))

    def _transformation_object(self, n_features: int) -> Any:
        t = self.transformation
        if t is None:
            return None
        names = (t,) if isinstance(t, str) else t
        if isinstance(names, tuple) and names and all(isinstance(k, str) for k in names):
            if any(k not in IMAGE_TRANSFORMATIONS for k in names):
                raise ParameterError(f"transformation names must come from {IMAGE_TRANSFORMATIONS}, got {t!r}")
            shape = self.image_shape
            if shape is None:
                side = int(round(np.sqrt(n_features)))
                if side * side != n_features:
                    raise ParameterError(
                        f"transformation={t!r} needs image_shape: {n_features} features are not a square image"
                    )
                shape = (side, side)
            return ImageTransformation(names, (int(shape[0]), int(shape[1])), variance=float(self.variance))
        if hasattr(t, "taylor"):
            return t
        if callable(t):
            return FunctionTransformation(t)
        raise ParameterError(
            "transformation must be None, a name or tuple of names of built-in image transformations, a callable "
            f"T(theta, X), or an object with taylor(X, degree); got {type(t).__name__}"
        )

    def _shared_state(self, X: Array) -> Array:
        """The trajectories of X (003 eq. 2), computed once for every one-vs-rest model."""
        T = self._transformation_object(X.shape[1])
        several = T is not None and getattr(T, "n_parameters", 1) > 1
        if several and self._kernel_object() is not None:
            raise ParameterError("kernel SDPM supports one transformation parameter; use kernel='linear'")
        if several:
            if self.taylor_degree != 2 or self.segment is not None:
                raise ParameterError(
                    "several transformation parameters use the second-order form of 003 §3: taylor_degree=2, "
                    "segment=None"
                )
            return np.asarray(T.quadratic_form(X), dtype=np.float64)
        return taylor_trajectories(X, T, int(self.taylor_degree))

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> SDPMClassifier:
        """Learn the SDPM from the trajectories of X (003 eq. 6 or 8); one-vs-rest for more classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Per-example weights of the slacks (needs ``C``): example i's C is C·sample_weight_i.

        Returns
        -------
        self
        """
        return self._fit_classifier(X, y, sample_weight)  # type: ignore[no-any-return]

    def _more_validation(self) -> None:
        if self.kernel != "poly" and isinstance(self.kernel_degree, str) and self.degree != 3:
            warnings.warn(
                "SDPMClassifier: since sdpkern 0.1.0 'degree' is the polynomial kernel's degree (unused with "
                f"kernel={self.kernel!r}); the Taylor degree of the trajectories is 'taylor_degree'",
                FutureWarning,
                stacklevel=4,
            )

    def _fit_binary(self, X: Array, y_pm: Array, weights: Array | None, shared: Any) -> None:
        kernel = self._kernel_object()
        opts: dict[str, Any] = {"C": self.C, "offset": bool(self.fit_intercept), "segment": self.segment}
        opts["sample_weight"] = weights
        problem = sdpm(shared, y_pm, **opts) if kernel is None else kernel_sdpm(shared, y_pm, kernel, **opts)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sol = problem.solve(self.backend, allow_inaccurate=True)
        if sol.status != "optimal" or caught:
            warnings.warn(
                f"{self.backend} returned status {sol.status!r}; the model is usable but not certified optimal",
                ConvergenceWarning,
                stacklevel=4,
            )
        e = sol.model.extras
        sv = np.asarray(e["support"], dtype=np.intp)
        self.support_ = sv
        self.theta_star_ = e["theta_star"][sv]
        self.dual_coef_ = y_pm[sv, None] * e["mu"][sv].reshape(len(sv), -1)
        self.intercept_ = float(sol.offset or 0.0)
        self.status_ = sol.status
        self.backend_ = sol.backend
        self.coef_ = e["w"][None, :] if kernel is None else None
        self._kernel_ = kernel
        self._support_trajectories_ = shared[sv] if kernel is not None else None

    def _decision_binary(self, X: Array) -> Array:
        if self._kernel_ is None:
            assert self.coef_ is not None
            return np.asarray(X @ self.coef_[0] + self.intercept_, dtype=np.float64)
        traj = self._support_trajectories_
        if traj is None or traj.shape[0] == 0:
            return np.full(X.shape[0], self.intercept_)
        Kx = kernel_taylor_gram(self._kernel_, traj, X[:, None, :])[:, :, :, 0]
        return np.asarray(np.einsum("iup,iu->p", Kx, self.dual_coef_) + self.intercept_, dtype=np.float64)

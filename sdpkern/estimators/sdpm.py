"""scikit-learn estimator for the semidefinite programming machine (003, Graepel & Herbrich 2003).

:class:`SDPMClassifier` turns each training example into its polynomial trajectory under a
known transformation (003 eq. 2, :mod:`sdpkern.trajectories`) and learns the maximum-margin
classifier that is correct along every trajectory (003 eq. 6; the dual 8 with kernels). Several
classes are handled one-vs-one, as :class:`sklearn.svm.SVC` does.
"""

from __future__ import annotations

import numbers
import warnings
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation import validate_data
from ..builders.sdpm import kernel_sdpm, kernel_taylor_gram, sdpm
from ..errors import LabelError, ParameterError
from ..kernels.base import Gaussian, Kernel, Linear, Polynomial
from ..trajectories import (
    IMAGE_TRANSFORMATIONS,
    FunctionTransformation,
    ImageTransformation,
    taylor_trajectories,
)

__all__ = ["SDPMClassifier"]

Array = NDArray[np.float64]


def _check_real(name: str, value: Any, *, positive: bool = True, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(float(value)):
        raise ParameterError(f"{name} must be a finite real number{' or None' if allow_none else ''}, got {value!r}")
    if positive and value <= 0:
        raise ParameterError(f"{name} must be > 0, got {value!r}")


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")


class SDPMClassifier(ClassifierMixin, BaseEstimator):
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
    degree : int, default=2
        r, the degree of the Taylor polynomial; even unless ``segment`` is given. Several
        parameters use the second-order form (degree 2).
    segment : float or None, default=None
        τ > 0: require the margin only for θ ∈ [−τ, τ] (003 Corollary 1), in θ's units
        (radians for rotation).
    C : float or None, default=None
        Soft-margin penalty; ``None`` is the hard margin of 003 eq. (6) (an
        :class:`~sdpkern.errors.InfeasibleError` if the trajectories cannot be separated).
    kernel : {"linear", "poly", "rbf"} or Kernel, default="linear"
        ``"linear"`` solves the primal (003 eq. 6); the others the dual (003 eq. 8) with Gram
        blocks of kernel derivatives (one transformation parameter only).
    gamma, coef0, kernel_degree : float, float, int
        Parameters of the ``"poly"`` ((γ⟨x, y⟩ + c₀)^d) and ``"rbf"`` (exp(−γ‖x − y‖²)) kernels.
    fit_intercept : bool, default=True
        Learn an offset b (003 omits it).
    image_shape : (int, int) or None, default=None
        Image shape for the built-in transformations; ``None`` means square images.
    variance : float, default=0.09
        Smoothing variance of the built-in transformations (units where the image spans [−1, 1]).
    backend : str, default="clarabel"
        Solver backend (see :mod:`sdpkern.backends`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    pairs_ : list of (int, int)
        Class index pairs of the one-vs-one problems (a single pair for two classes).
    coef_ : ndarray of shape (n_pairs, n_features)
        w of each pair (linear kernel only).
    intercept_ : ndarray of shape (n_pairs,)
    support_ : list of ndarray
        Indices (into the training set) of the support trajectories of each pair.
    theta_star_ : list of ndarray
        θ_i* of each support trajectory (003 Proposition 3): where its virtual support vector sits.
    dual_coef_ : list of ndarray of shape (n_support, r + 1)
        y_i μ_{iu} of the support trajectories (003 eq. 9).
    status_ : list of str
        Solver status of each pair.
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

    def __init__(
        self,
        *,
        transformation: Any = None,
        degree: int = 2,
        segment: float | None = None,
        C: float | None = None,
        kernel: str | Kernel = "linear",
        gamma: float = 1.0,
        coef0: float = 1.0,
        kernel_degree: int = 3,
        fit_intercept: bool = True,
        image_shape: tuple[int, int] | None = None,
        variance: float = 0.09,
        backend: str = "clarabel",
    ) -> None:
        self.transformation = transformation
        self.degree = degree
        self.segment = segment
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.kernel_degree = kernel_degree
        self.fit_intercept = fit_intercept
        self.image_shape = image_shape
        self.variance = variance
        self.backend = backend

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        """Check every parameter in one place (typed errors naming the parameter)."""
        _check_int("degree", self.degree, 0)
        _check_real("segment", self.segment, allow_none=True)
        _check_real("C", self.C, allow_none=True)
        _check_real("gamma", self.gamma)
        _check_real("coef0", self.coef0, positive=False)
        _check_int("kernel_degree", self.kernel_degree, 1)
        _check_real("variance", self.variance)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise ParameterError(f"fit_intercept must be a bool, got {self.fit_intercept!r}")
        if not isinstance(self.kernel, Kernel) and self.kernel not in ("linear", "poly", "rbf"):
            raise ParameterError(f"kernel must be 'linear', 'poly', 'rbf' or a Kernel, got {self.kernel!r}")
        if isinstance(self.kernel, Kernel) and not isinstance(self.kernel, (Linear, Polynomial, Gaussian)):
            raise ParameterError(f"kernel must be a Linear, Polynomial or Gaussian kernel, got {self.kernel!r}")

    def _kernel_object(self) -> Kernel | None:
        """``None`` for the linear primal, else the kernel of the dual."""
        if isinstance(self.kernel, Kernel):
            return None if isinstance(self.kernel, Linear) else self.kernel
        if self.kernel == "linear":
            return None
        if self.kernel == "poly":
            return Polynomial(degree=int(self.kernel_degree), gamma=float(self.gamma), coef0=float(self.coef0))
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

    def _trajectories(self, X: Array) -> Array:
        T = self._transformation_object(X.shape[1])
        if T is not None and getattr(T, "n_parameters", 1) > 1:
            if self.degree != 2 or self.segment is not None:
                raise ParameterError(
                    "several transformation parameters use the second-order form of 003 §3: degree=2, segment=None"
                )
            return np.asarray(T.quadratic_form(X), dtype=np.float64)
        return taylor_trajectories(X, T, int(self.degree))

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X: ArrayLike, y: ArrayLike) -> SDPMClassifier:
        """Learn one SDPM per pair of classes from the trajectories of X (003 eq. 6 or 8).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._check_params()
        Xv, yv = validate_data(self, X, y, dtype=np.float64)
        X_arr: Array = np.asarray(Xv, dtype=np.float64)
        y_arr: NDArray[Any] = np.asarray(yv)
        check_classification_targets(y_arr)
        self.classes_ = np.unique(y_arr)
        if self.classes_.shape[0] < 2:
            raise LabelError(
                f"y must contain at least two classes for the SDPM classifier, got {self.classes_.shape[0]} class"
            )
        kernel = self._kernel_object()
        if (
            kernel is not None
            and self._transformation_object(X_arr.shape[1]) is not None
            and getattr(self._transformation_object(X_arr.shape[1]), "n_parameters", 1) > 1
        ):
            raise ParameterError("kernel SDPM supports one transformation parameter; use kernel='linear'")
        traj = self._trajectories(X_arr)
        self.pairs_: list[tuple[int, int]] = list(combinations(range(self.classes_.shape[0]), 2))
        coefs, intercepts, supports, thetas, duals, statuses, trajs = [], [], [], [], [], [], []
        for a, b in self.pairs_:
            idx = np.flatnonzero((y_arr == self.classes_[a]) | (y_arr == self.classes_[b]))
            y_pm = np.where(y_arr[idx] == self.classes_[b], 1.0, -1.0)
            if kernel is None:
                problem = sdpm(traj[idx], y_pm, C=self.C, offset=bool(self.fit_intercept), segment=self.segment)
            else:
                problem = kernel_sdpm(
                    traj[idx], y_pm, kernel, C=self.C, offset=bool(self.fit_intercept), segment=self.segment
                )
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sol = problem.solve(self.backend, allow_inaccurate=True)
            if sol.status != "optimal" or caught:
                warnings.warn(
                    f"{self.backend} returned status {sol.status!r} for classes "
                    f"({self.classes_[a]!r}, {self.classes_[b]!r}); the model is usable but not certified optimal",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            e = sol.model.extras
            sv = e["support"]
            supports.append(idx[sv])
            thetas.append(e["theta_star"][sv])
            mu = e["mu"]
            duals.append(y_pm[sv, None] * mu[sv].reshape(len(sv), -1))
            intercepts.append(float(sol.offset or 0.0))
            statuses.append(sol.status)
            if kernel is None:
                coefs.append(e["w"])
            else:
                trajs.append(traj[idx][sv])
        self.coef_ = np.array(coefs) if kernel is None else None
        self.intercept_ = np.array(intercepts)
        self.support_ = supports
        self.theta_star_ = thetas
        self.dual_coef_ = duals
        self.status_ = statuses
        self._kernel_ = kernel
        self._support_trajectories_ = trajs
        return self

    def _pair_decisions(self, X: Array) -> Array:
        if self._kernel_ is None:
            assert self.coef_ is not None
            return X @ self.coef_.T + self.intercept_
        out = np.empty((X.shape[0], len(self.pairs_)))
        for k, (traj, coef) in enumerate(zip(self._support_trajectories_, self.dual_coef_)):
            if traj.shape[0] == 0:
                out[:, k] = self.intercept_[k]
                continue
            Kx = kernel_taylor_gram(self._kernel_, traj, X[:, None, :])[:, :, :, 0]
            out[:, k] = np.einsum("iup,iu->p", Kx, coef) + self.intercept_[k]
        return out

    def decision_function(self, X: ArrayLike) -> Array:
        """Decision values: f(x) for two classes (positive means ``classes_[1]``), else one-vs-one
        votes plus a bounded confidence term, shape (n_samples, n_classes), like ``SVC``.
        """
        check_is_fitted(self)
        Xa: Array = np.asarray(validate_data(self, X, dtype=np.float64, reset=False), dtype=np.float64)
        D = self._pair_decisions(Xa)
        if len(self.classes_) == 2:
            return D[:, 0]
        n_classes = len(self.classes_)
        votes = np.zeros((Xa.shape[0], n_classes))
        conf = np.zeros((Xa.shape[0], n_classes))
        for k, (a, b) in enumerate(self.pairs_):
            votes[:, b] += D[:, k] > 0
            votes[:, a] += D[:, k] <= 0
            conf[:, b] += D[:, k]
            conf[:, a] -= D[:, k]
        # confidences scaled into (−1/3, 1/3) so they only break ties between vote counts
        return votes + conf / (3 * (np.abs(conf) + 1))

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class labels (one-vs-one vote for several classes)."""
        d = self.decision_function(X)
        if d.ndim == 1:
            return self.classes_[(d > 0).astype(int)]
        return self.classes_[np.argmax(d, axis=1)]

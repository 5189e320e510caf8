"""scikit-learn estimator for the semidefinite programming machine (003, Graepel & Herbrich 2003).

:class:`SDPMClassifier` turns each training example into its polynomial trajectory under a
known transformation (003 eq. 2, :mod:`sdpkern.trajectories`) and learns the maximum-margin
classifier that is correct along every trajectory (003 eq. 6; the dual 8 with kernels), by the
native interior-point solver (:func:`sdpkern.native.sdpm.sdpm_native`) or through CVXPY
(:mod:`sdpkern.builders.sdpm`). Several classes are handled one-vs-rest, as every sdpkern
classifier (docs/conventions.md).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from .._validation import DEPRECATED, Interval, Options, take_deprecated
from ..backends import get_backend
from ..builders.sdpm import kernel_sdpm, sdpm
from ..errors import ParameterError
from ..kernels.base import Gaussian, Kernel, Linear, Polynomial
from ..native.sdpm import SDPMFeatures, SDPMResult, sdpm_features, sdpm_native
from ..trajectories import (
    IMAGE_TRANSFORMATIONS,
    FunctionTransformation,
    ImageTransformation,
    evaluate_quadratic_trajectories,
    evaluate_trajectories,
    kernel_quadratic_gram,
    kernel_taylor_gram,
    taylor_trajectories,
)
from ._base import KernelClassifierMixin, SdpkernEstimator

__all__ = ["SDPMClassifier"]

Array = NDArray[np.float64]


_POSITIVE = Interval(Real, 0, None, closed="neither")

#: ``solver="auto"`` re-solves through CVXPY when the native answer is not certified, up to this
#: many trajectories: the conic route's time grows about as m² (59 s of CPU at m = 1,000, r = 2
#: on a segment, docs/sdpm.md), so beyond it a fallback would cost minutes and the native answer
#: is kept, with a ConvergenceWarning and its status, instead.
_CONIC_FALLBACK_MAX = 1000

#: The native solver's default relative gap, Clarabel's default: the interior-point iterates
#: reach it on every instance measured (docs/sdpm.md); tighter targets can end at the blocks'
#: conditioning (~1/μ) before the gap does.
_NATIVE_TOL = 1e-8


@dataclass(eq=False)
class _Shared:
    """What the one-vs-rest models share: the trajectories and the native solver's features."""

    trajectories: Array
    features: SDPMFeatures | None


@dataclass(kw_only=True, eq=False, repr=False)
class SDPMClassifier(KernelClassifierMixin, SdpkernEstimator):
    """Semidefinite programming machine: a maximum-margin classifier on polynomial trajectories.

    Each training example x_i becomes the Taylor polynomial x̃_i(θ) of its transformation
    T(θ, x_i) (003 eq. 2) and the classifier satisfies y_i f(x̃_i(θ)) ≥ 1 − ξ_i for every θ
    on the real line, or on [−segment, segment] (003 eq. 6, Corollary 1), minimising
    ½‖f‖² + C Σ ξ_i. Prediction uses the plain input: f(x) = wᵀx + b (or the kernel expansion
    of 003 eq. 8).

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
    C : float or None, default=1.0
        Soft-margin penalty C Σ ξ_i (the dual box is 0 ≤ α_i ≤ C, as ``SVC``); ``None`` is the
        hard margin of 003 eq. (6) (an :class:`~sdpkern.errors.InfeasibleError` if the
        trajectories cannot be separated).
    kernel : {"linear", "poly", "rbf"} or Kernel, default="linear"
        ``"linear"`` learns w (003 eq. 6); the others the dual (003 eq. 8) with Gram blocks of
        kernel derivatives (several transformation parameters with the native solver only).
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
    solver : {"auto", "native", "conic"}, default="auto"
        ``"native"``: the interior-point method on the moment form
        (:func:`~sdpkern.native.sdpm.sdpm_native`, certified by its exact duality gap);
        ``"conic"``: the CVXPY problem of :func:`~sdpkern.builders.sdpm.sdpm` /
        :func:`~sdpkern.builders.sdpm.kernel_sdpm` solved by ``backend``; ``"auto"``: native,
        and conic when the native answer is not certified and m ≤ 1000.
    backend : str, default="clarabel"
        The conic route's solver (see :mod:`sdpkern.backends`).
    tol : float or None, default=None
        The relative duality gap the native solver certifies (``None``: 1e-8, as Clarabel's
        default; w is then within about √(2·tol·objective) of the optimum, the objective within
        tol) and the conic solver's ``tol`` (``None``: the backend's default).
    max_iter : int, default=100
        Interior-point iterations of the native solver.
    class_weight : dict, "balanced" or None, default=None
        Multiplies each class's C (needs ``C``), as scikit-learn's ``SVC``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) (or (n_classes, n_features) one-vs-rest)
        w (linear kernel only; ``None`` otherwise).
    intercept_ : float (or ndarray of shape (n_classes,))
    support_ : ndarray of int
        Indices (into the training set) of the support trajectories (α_i > 1e-6·max α).
    dual_coef_ : ndarray of shape (n_support, q)
        The coefficients of f on the support trajectories' Taylor features, y_i μ_iu with μ_i the
        moments of the trajectory's dual measure (003 eq. 9; q = r + 1, or the upper triangle of
        the (D+1)×(D+1) moment matrix for D parameters): f(x) = Σ_i Σ_u c_iu k^{(u,0)}(x_i, x) + b;
        column 0 is y_i α_i.
    theta_star_ : ndarray of shape (n_support,) or (n_support, D)
        θ_i* of each support trajectory (003 Proposition 3): where its virtual support vector sits.
    virtual_support_vectors_ : ndarray of shape (n_support, n_features)
        x̃_i(θ_i*): the truly virtual support vectors (003 Proposition 3); with ``rank_one_``
        true for all of them, w = Σ y_i α_i x̃_i(θ_i*) (linear kernel).
    rank_one_ : ndarray of bool, shape (n_support,)
        Whether the support trajectory's dual measure is a single point θ_i* (Proposition 3's
        assumption; a trajectory touching the margin at two θ has two).
    objective_ : float
        ½‖w‖² + C Σ ξ_i of the fitted model (ξ its least slacks).
    status_ : str
        The solve's status (one-vs-rest: the worst; each model's in ``statuses_``).
    certificate_ : dict
        ``"measure"`` and ``"value"``: the relative duality gap (native) or the conic solver's
        status; the native certificate also gives the primal and dual objectives and
        ``"max_violation"``, the largest violation over θ of the margin constraints by the
        solver's own slacks, both computed exactly.
    solver_ : str
        ``"native"`` or ``"conic"``: the route that answered (one-vs-rest: ``"conic and native"``
        when ``"auto"`` fell back for some models).
    backend_ : str or None
        The CVXPY backend (``None`` when the native solver answered).
    n_iter_ : int
        Iterations of the solver that answered.
    estimators_ : list
        One-vs-rest only: the binary models.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sdpkern.estimators import SDPMClassifier
    >>> X = np.array([[2.0, 0.1], [1.5, -0.2], [-2.0, 0.3], [-1.6, -0.1]])
    >>> clf = SDPMClassifier(transformation=lambda t, X: X * (1 + 0.1 * t * t), C=10.0).fit(X, [0, 0, 1, 1])
    >>> clf.predict([[1.8, 0.0], [-1.9, 0.0]]).tolist(), clf.solver_, clf.status_
    ([0, 1], 'native', 'optimal')
    """

    transformation: Any = None
    taylor_degree: int = 2
    segment: float | None = None
    C: float | None = 1.0
    kernel: str | Kernel = "linear"
    gamma: float = 1.0
    coef0: float = 1.0
    degree: int = 3
    kernel_degree: Any = DEPRECATED
    fit_intercept: bool = True
    image_shape: tuple[int, int] | None = None
    variance: float = 0.09
    solver: str = "auto"
    backend: str = "clarabel"
    tol: float | None = None
    max_iter: int = 100
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
        "solver": [Options({"auto", "native", "conic"})],
        "backend": [str],
        "tol": [_POSITIVE, None],
        "max_iter": [Interval(Integral, 1, None)],
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

    def _more_validation(self) -> None:
        if self.kernel != "poly" and isinstance(self.kernel_degree, str) and self.degree != 3:
            warnings.warn(
                "SDPMClassifier: since sdpkern 0.1.0 'degree' is the polynomial kernel's degree (unused with "
                f"kernel={self.kernel!r}); the Taylor degree of the trajectories is 'taylor_degree'",
                FutureWarning,
                stacklevel=4,
            )
        if self.segment is None and int(self.taylor_degree) % 2:
            raise ParameterError(
                f"taylor_degree={self.taylor_degree} is odd: a polynomial of odd degree has no finite minimum on the "
                "whole line, so the full-line SDPM needs an even taylor_degree (003 Proposition 1); pass "
                "segment=tau to require the margin on [-tau, tau] only (003 Corollary 1)"
            )
        if self.solver != "native":
            get_backend(self.backend)  # an unknown backend is an error before any work

    def _shared_state(self, X: Array) -> _Shared:
        """The trajectories of X (003 eq. 2) and the native solver's features, computed once for
        every one-vs-rest model."""
        T = self._transformation_object(X.shape[1])
        kernel = self._kernel_object()
        several = T is not None and getattr(T, "n_parameters", 1) > 1
        if several and kernel is not None and self.solver == "conic":
            raise ParameterError(
                f"kernel={self.kernel!r} with several transformation parameters: the conic route's kernel SDPM "
                "(kernel_sdpm) takes one parameter; use solver='native' (or 'auto'), or kernel='linear'"
            )
        if several:
            if self.taylor_degree != 2 or self.segment is not None:
                raise ParameterError(
                    "several transformation parameters use the second-order form of 003 §3: taylor_degree=2, "
                    "segment=None"
                )
            trajectories = np.asarray(T.quadratic_form(X), dtype=np.float64)
        else:
            # without a transformation the trajectories are constant: degree 0, the plain SVM
            trajectories = taylor_trajectories(X, T, 0 if T is None else int(self.taylor_degree))
        features = None
        if self.solver != "conic":
            features = sdpm_features(trajectories, segment=self.segment, kernel=kernel)
        return _Shared(trajectories, features)

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> SDPMClassifier:
        """Learn the SDPM from the trajectories of X (003 eq. 6 or 8); one-vs-rest for more classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Per-example weights of the slacks (needs ``C``): example i's C is C·sample_weight_i;
            an example of weight 0 is removed.

        Returns
        -------
        self
        """
        return self._fit_classifier(X, y, sample_weight)  # type: ignore[no-any-return]

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        super()._store_one_vs_rest(models)
        self.objective_: Any = np.array([m.objective_ for m in models])
        self.solver_ = " and ".join(sorted({m.solver_ for m in models}))  # "conic and native" when auto fell back
        self.backend_ = next((m.backend_ for m in models if m.backend_ is not None), None)

    def _fit_binary(self, X: Array, y_pm: Array, weights: Array | None, shared: _Shared) -> None:
        t0 = time.perf_counter()
        if weights is not None and self.C is None:
            raise ParameterError("sample_weight and class_weight weigh the soft-margin slacks: pass C as well")
        kernel = self._kernel_object()
        if self.solver != "conic":
            assert shared.features is not None
            res = sdpm_native(
                shared.features, y_pm, C=self.C, offset=bool(self.fit_intercept), sample_weight=weights,
                tol=_NATIVE_TOL if self.tol is None else float(self.tol), max_iter=int(self.max_iter),
            )  # fmt: skip
            if res.status == "optimal" or self.solver == "native" or X.shape[0] > _CONIC_FALLBACK_MAX:
                self._store_native(res, y_pm, shared, kernel)
                self.fit_time_ = time.perf_counter() - t0
                return
        self._fit_conic(y_pm, weights, shared, kernel)
        self.fit_time_ = time.perf_counter() - t0

    def _store_native(self, res: SDPMResult, y_pm: Array, shared: _Shared, kernel: Kernel | None) -> None:
        if res.status != "optimal":
            warnings.warn(
                f"SDPMClassifier's native solver stopped with status {res.status!r} at relative duality gap "
                f"{res.gap:.2e} (tol {res.tol:g}); the model is the best point found, not certified "
                "(raise max_iter, or try solver='conic')",
                ConvergenceWarning,
                stacklevel=5,
            )
        # a linear model predicts with w; a kernel model with its whole certified expansion
        sv = res.support if kernel is None else np.flatnonzero(np.any(res.expansion != 0.0, axis=1))
        self._store(
            support=sv, dual_coef=res.expansion[sv], intercept=res.intercept,
            theta=res.theta_star[sv], rank_one=res.rank_one[sv], coef=res.coef, kernel=kernel, shared=shared,
        )  # fmt: skip
        self.objective_ = float(res.objective)
        self.status_ = res.status
        self.certificate_ = res.certificate
        self.solver_, self.backend_, self.n_iter_ = "native", None, res.iterations

    def _fit_conic(self, y_pm: Array, weights: Array | None, shared: _Shared, kernel: Kernel | None) -> None:
        traj = shared.trajectories
        keep = np.arange(traj.shape[0]) if weights is None else np.flatnonzero(weights > 0)  # weight 0: removed
        # constant trajectories (no transformation) have no θ to restrict
        segment = self.segment if traj.ndim == 3 and traj.shape[1] > 1 else None
        opts: dict[str, Any] = {"C": self.C, "offset": bool(self.fit_intercept), "segment": segment}
        opts["sample_weight"] = None if weights is None else weights[keep]
        sub, y_sub = traj[keep], y_pm[keep]
        problem = sdpm(sub, y_sub, **opts) if kernel is None else kernel_sdpm(sub, y_sub, kernel, **opts)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            extra: dict[str, Any] = {} if self.tol is None else {"tol": float(self.tol)}
            sol = problem.solve(self.backend, allow_inaccurate=True, **extra)
        if sol.status != "optimal" or caught:
            warnings.warn(
                f"{self.backend} returned status {sol.status!r}; the model is usable but not certified optimal",
                ConvergenceWarning,
                stacklevel=4,
            )
        e = sol.model.extras
        sv_sub = np.asarray(e["support"], dtype=np.intp)
        mu = np.asarray(e["mu"])[sv_sub].reshape(len(sv_sub), -1)
        if traj.ndim == 4:  # the builder's M_i: their upper triangles, as the native moments
            D = traj.shape[1] - 1
            Ms = np.asarray(e["M"])[sv_sub]
            mu = np.stack([Ms[:, a, b] for a in range(D + 1) for b in range(a, D + 1)], axis=-1)
        rank = np.asarray(e["rank_one"])[sv_sub] if "rank_one" in e else np.ones(len(sv_sub), dtype=bool)
        self._store(
            support=keep[sv_sub], dual_coef=y_sub[sv_sub, None] * mu, intercept=float(sol.offset or 0.0),
            theta=np.asarray(e["theta_star"])[sv_sub], rank_one=rank, coef=e.get("w"), kernel=kernel, shared=shared,
        )  # fmt: skip
        self.objective_ = float(sol.objective)
        self.status_ = sol.status
        self.certificate_ = {
            "measure": "solver status",
            "value": sol.solver_status,
            **(sol.certificate.as_dict() if sol.certificate is not None else {}),
        }
        self.solver_, self.backend_, self.n_iter_ = "conic", sol.backend, int(sol.iterations or 0)

    def _store(
        self, *, support: NDArray[np.intp], dual_coef: Array, intercept: float, theta: Array, rank_one: Any,
        coef: Array | None, kernel: Kernel | None, shared: _Shared,
    ) -> None:  # fmt: skip
        traj = shared.trajectories
        self.support_ = np.asarray(support, dtype=np.intp)
        self.dual_coef_ = np.asarray(dual_coef, dtype=np.float64)
        self.intercept_ = float(intercept)
        self.theta_star_ = np.asarray(theta, dtype=np.float64)
        self.rank_one_ = np.asarray(rank_one, dtype=bool)
        sv_traj = traj[self.support_]
        evaluate = evaluate_quadratic_trajectories if traj.ndim == 4 else evaluate_trajectories
        vsv = [evaluate(sv_traj[k : k + 1], self.theta_star_[k])[0] for k in range(len(sv_traj))]
        self.virtual_support_vectors_ = np.array(vsv).reshape(len(sv_traj), traj.shape[-1])
        self.coef_ = None if kernel is not None else np.asarray(coef, dtype=np.float64)[None, :]
        self._kernel_ = kernel
        self._support_trajectories_ = sv_traj if kernel is not None else None

    def _decision_binary(self, X: Array) -> Array:
        if self._kernel_ is None:
            assert self.coef_ is not None
            return np.asarray(X @ self.coef_[0] + self.intercept_, dtype=np.float64)
        traj = self._support_trajectories_
        if traj is None or traj.shape[0] == 0:
            return np.full(X.shape[0], self.intercept_)
        if traj.ndim == 4:  # several parameters: the Taylor coefficients of k(x̃_i(ρ), x) in ρ
            Kx = kernel_quadratic_gram(self._kernel_, traj, X)
        else:
            Kx = kernel_taylor_gram(self._kernel_, traj, X[:, None, :])[:, :, :, 0]
        return np.asarray(np.einsum("iup,iu->p", Kx, self.dual_coef_) + self.intercept_, dtype=np.float64)

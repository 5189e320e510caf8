"""scikit-learn estimators that learn the kernel with a hyperkernel (002 Ch. 3).

One base class holds hyperkernel resolution, validation and prediction; concrete estimators
are a docstring, an ``__init__`` and the name of their builder (STYLE.md, item 2).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation import binary_labels, check_open_interval, check_positive, validate_data
from ..builders import hyperkernel as hk_builders
from ..errors import ParameterError, SolverError
from ..kernels.hyperkernels import HarmonicARD, Hyperkernel
from ..problem import KernelProblem, Solution

__all__ = [
    "HyperkernelSVC",
    "HyperkernelNuSVC",
    "HyperkernelL2SVC",
    "HyperkernelOneClassSVM",
    "HyperkernelNuSVR",
    "HyperkernelAlignment",
]

_T = TypeVar("_T")

#: Backend retried once when the chosen one breaks down numerically (see ``_solve``).
_FALLBACK_BACKEND = {"clarabel": "scs", "scs": "clarabel"}


class _HyperkernelBase(BaseEstimator):
    """Shared machinery: resolve the hyperkernel on the training data, build, solve, keep the model."""

    hyperkernel: Hyperkernel | None
    lambda_h: float
    widths: Any
    lambda_Q: float
    form: str
    active_set: bool
    eta: float
    max_terms: int | None
    backend: str
    solver_options: dict[str, Any] | None
    random_state: int | None

    def _resolve_hyperkernel(self, X: NDArray[np.float64]) -> Hyperkernel:
        if self.hyperkernel is None:
            check_open_interval(self.lambda_h, "lambda_h", 0.0, 1.0)
            if not (isinstance(self.widths, str) and self.widths == "auto"):
                w = np.asarray(self.widths, dtype=float)
                if w.ndim == 0:
                    w = np.full(X.shape[1], float(w))
                if not np.all(np.isfinite(w)) or np.any(w <= 0):
                    raise ParameterError(f"widths must be 'auto' or positive numbers, got {self.widths!r}")
                return HarmonicARD(self.lambda_h, w).fitted(X)
            return HarmonicARD(self.lambda_h, "auto").fitted(X, random_state=self.random_state)
        if not isinstance(self.hyperkernel, Hyperkernel):
            raise ParameterError(
                f"hyperkernel must be a sdpkern Hyperkernel or None, got {type(self.hyperkernel).__name__}"
            )
        if isinstance(self.hyperkernel, HarmonicARD):
            return self.hyperkernel.fitted(X, random_state=self.random_state)
        self.hyperkernel.check()
        return self.hyperkernel

    def _check_common(self) -> None:
        check_positive(self.lambda_Q, "lambda_Q", allow_zero=True)
        check_positive(self.eta, "eta", allow_zero=True)
        if self.form not in ("socp", "sdp"):
            raise ParameterError(f"form must be 'socp' or 'sdp', got {self.form!r}")
        if self.max_terms is not None and (not isinstance(self.max_terms, (int, np.integer)) or self.max_terms < 1):
            raise ParameterError(f"max_terms must be None or a positive integer, got {self.max_terms!r}")

    def _solve(self, problem: KernelProblem) -> Solution:
        return self._with_fallback(lambda backend, opts: problem.solve(backend=backend, allow_inaccurate=True, **opts))

    def _with_fallback(self, run: Callable[[str, dict[str, Any]], _T]) -> _T:
        # scikit-learn's convention: an answer the solver does not vouch for is kept with a
        # ConvergenceWarning and a status attribute; infeasible or failed solves still raise.
        # A numerical breakdown of one interior-point method (e.g. Clarabel's NumericalError on
        # data with duplicated points of opposite labels) is retried once on the other default
        # backend, with a warning; user-pinned solver options are never overridden.
        try:
            return run(self.backend, dict(self.solver_options or {}))
        except SolverError as exc:
            fallback = _FALLBACK_BACKEND.get(str(self.backend).lower())
            if exc.status != "error" or fallback is None or self.solver_options:
                raise
            warnings.warn(f"{exc}; retrying with backend={fallback!r}", ConvergenceWarning, stacklevel=3)
            return run(fallback, {})

    def _build_and_solve(
        self,
        build: Callable[..., KernelProblem],
        X: NDArray[np.float64],
        y: NDArray[Any] | None,
        hk: Hyperkernel,
        **params: Any,
    ) -> tuple[KernelProblem, Solution]:
        """Build the problem with ``build`` (a builder of :mod:`sdpkern.builders.hyperkernel`) and solve
        it: by cone generation when ``form="socp"`` and ``active_set`` (same optimum, certified),
        else in one go."""  # fmt: skip
        if not isinstance(self.active_set, (bool, np.bool_)):
            raise ParameterError(f"active_set must be True or False, got {self.active_set!r}")
        self.active_terms_: NDArray[np.intp] | None = None
        if self.form == "socp" and self.active_set:
            basis = hk_builders.make_basis(X, hk, None, self.eta, self.max_terms)

            def run(backend: str, opts: dict[str, Any]) -> tuple[KernelProblem, Solution]:
                problem, solution, trace = hk_builders.cone_generation(
                    build, X, y, hk, basis=basis, backend=backend, allow_inaccurate=True, solve_options=opts, **params
                )
                self.active_terms_ = trace.terms
                return problem, solution

            return self._with_fallback(run)
        args = (X,) if y is None else (X, y)
        problem = build(*args, hk, form=_form(self.form), eta=self.eta, max_terms=self.max_terms, **params)
        return problem, self._solve(problem)

    def _store(self, problem: KernelProblem, solution: Solution, fit_time: float) -> None:
        self.basis_ = problem.data["basis"]
        self.hyperkernel_ = self.basis_.hyperkernel
        self.beta_ = solution.beta
        self.alpha_ = solution.alpha
        self.offset_ = solution.offset
        self.model_ = solution.model
        self.objective_ = solution.objective
        self.status_ = solution.status
        self.n_terms_ = self.basis_.size
        self.fit_time_ = fit_time
        self.solve_time_ = solution.total_time
        self.n_iter_ = solution.iterations

    def learned_kernel(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        """The learned kernel k(X, Y) = Σ_l β_l k̲(pair_l, (X, Y)) (002 eq. 2.15)."""
        check_is_fitted(self)
        Xa = validate_data(self, X, reset=False)
        Ya = None if Y is None else validate_data(self, Y, reset=False)
        return self.basis_.learned_kernel(self.beta_, Xa, Ya if Ya is not None else Xa)


class HyperkernelSVC(ClassifierMixin, _HyperkernelBase):
    """C-SVM that learns its kernel with a hyperkernel (002 eq. 3.8).

    Solves min over kernels k in the hyper-RKHS and classifiers f of
    (1/m) Σ hinge(y_i f(x_i)) + (λ/2)‖f‖²_k + (λ_Q/2)‖k‖²_hyper with C = 1/(λm), by default as
    the equivalent second-order cone program (``form="socp"``; see :mod:`sdpkern.builders.hyperkernel`).
    Defaults are the thesis' experiment settings (002 §3.2): the ARD harmonic hyperkernel
    (eq. 2.22) with λ_h = 0.6 and widths 50× the 90% quantile of ``|x_i − x_j|`` per dimension,
    C = 100, λ_Q = 1, 1ᵀβ = 1.

    Parameters
    ----------
    C : float, default=100
        The Vapnik-style C = 1/(λm) of 002 §3.2 ("λ was adjusted so that 1/(λm) = 100"), as in
        scikit-learn's ``SVC``: the box of the dual is 0 ≤ α ≤ C. Eq. (3.8) writes the loss as
        (C'/m)·1ᵀξ with C' = 1/λ = C·m; :func:`~sdpkern.builders.hyperkernel.csvm` takes that C'.
    lambda_Q : float, default=1.0
    lambda_h : float, default=0.6
        Used when ``hyperkernel`` is None.
    widths : "auto" or array-like, default="auto"
        Per-dimension widths of the ARD hyperkernel, used when ``hyperkernel`` is None.
    hyperkernel : Hyperkernel or None
        Any sdpkern hyperkernel; overrides ``lambda_h`` and ``widths``.
    form : {"socp", "sdp"}, default="socp"
    active_set : bool, default=True
        With ``form="socp"``, generate the SOCP's cones (:func:`~sdpkern.builders.hyperkernel.
        cone_generation`): start from a few basis terms and add the violated ones until none
        is, which certifies the full SOCP's optimum. Same optimum, far faster when few terms
        carry weight; ``False`` solves the full SOCP in one go.
    eta : float, default=1e-4
        Tolerance of the pivoted incomplete Cholesky basis (002 §3.2.1).
    max_terms : int or None, default=150
        Cap on the number of basis terms.
    backend : str, default="clarabel"
    solver_options : dict or None
        Passed to the solver (``max_iters``, ``eps``, ``time_limit`` are mapped per backend).
    random_state : int or None, default=0
        Seeds the random sample of the width rule.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    active_terms_ : ndarray or None
        Basis terms whose cones the final restricted SOCP kept (``active_set=True``), else None.
    alpha_ : ndarray (m,)
        Dual coefficients, 0 ≤ α ≤ C.
    beta_ : ndarray (p,)
        Learned weights of the basis kernels (non-negative, sum 1).
    offset_ : float
        b in f(x) = Σ_j α_j y_j k(x, x_j) − b.
    basis_ : HyperkernelBasis
    objective_, status_, n_terms_, fit_time_, solve_time_, n_iter_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = HyperkernelSVC().fit(X[:60], y[:60])
    >>> float(clf.score(X[60:120], y[60:120])) > 0.8
    True
    """

    def __init__(
        self,
        *,
        C: float = 100.0,
        lambda_Q: float = 1.0,
        lambda_h: float = 0.6,
        widths: Any = "auto",
        hyperkernel: Hyperkernel | None = None,
        form: str = "socp",
        active_set: bool = True,
        eta: float = 1e-4,
        max_terms: int | None = 150,
        backend: str = "clarabel",
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.C = C
        self.lambda_Q = lambda_Q
        self.lambda_h = lambda_h
        self.widths = widths
        self.hyperkernel = hyperkernel
        self.form = form
        self.active_set = active_set
        self.eta = eta
        self.max_terms = max_terms
        self.backend = backend
        self.solver_options = solver_options
        self.random_state = random_state

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> HyperkernelSVC:
        """Learn the kernel and the classifier from training data."""
        t0 = time.perf_counter()
        check_positive(self.C, "C")
        self._check_common()
        X_arr, y_arr = validate_data(self, X, y)
        check_classification_targets(y_arr)
        y_pm, self.classes_ = binary_labels(y_arr)
        hk = self._resolve_hyperkernel(X_arr)
        # C here is scikit-learn's and the thesis' experimental C = 1/(λm) (box 0 ≤ α ≤ C); eq. (3.8)
        # writes (C'/m)·1ᵀξ with C' = 1/λ, so the builder gets C' = C·m (002 §3.2, Example 10).
        problem, solution = self._build_and_solve(
            hk_builders.csvm, X_arr, y_pm, hk, C=self.C * X_arr.shape[0], lambda_Q=self.lambda_Q
        )
        self._store(problem, solution, time.perf_counter() - t0)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(x) = Σ_j α_j y_j k(x, x_j) − b; positive values predict ``classes_[1]``."""
        check_is_fitted(self)
        X_arr = validate_data(self, X, reset=False)
        assert self.model_.decision is not None
        return self.model_.decision(X_arr)

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class labels from the sign of the decision function."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]


# ----------------------------------------------------------------------------- the other formulations
_COMMON_PARAMS_DOC = """lambda_Q : float, default=1.0
        Hyperkernel regularisation λ_Q.
    lambda_h : float, default=0.6
        Used when ``hyperkernel`` is None.
    widths : "auto" or array-like, default="auto"
        Per-dimension widths of the ARD hyperkernel (002 §3.2), used when ``hyperkernel`` is None.
    hyperkernel : Hyperkernel or None
        Any sdpkern hyperkernel; overrides ``lambda_h`` and ``widths``.
    form : {"socp", "sdp"}, default="socp"
    active_set : bool, default=True
        With ``form="socp"``, generate the SOCP's cones
        (:func:`~sdpkern.builders.hyperkernel.cone_generation`): same optimum, certified, far
        faster when few basis terms carry weight; ``False`` solves the full SOCP in one go.
    eta : float, default=1e-4
        Tolerance of the pivoted incomplete Cholesky basis (002 §3.2.1).
    max_terms : int or None, default=150
        Cap on the number of basis terms.
    backend : str, default="clarabel"
    solver_options : dict or None
    random_state : int or None, default=0
        Seeds the random sample of the width rule."""


def _form(value: str) -> Literal["sdp", "socp"]:
    """The ``form`` parameter, checked by ``_check_common`` before any build."""
    return cast(Literal["sdp", "socp"], value)


class _HyperkernelClassifier(ClassifierMixin, _HyperkernelBase):
    """Binary classifiers: labels, build, solve, sign of the decision function."""

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_own(self) -> None:
        raise NotImplementedError

    def _builder(self) -> tuple[Callable[..., KernelProblem], dict[str, Any]]:
        """The builder and its own parameters (``C``, ``nu``, ``lambda_Q``)."""
        raise NotImplementedError

    def fit(self, X: ArrayLike, y: ArrayLike) -> Any:
        """Learn the kernel and the classifier from training data."""
        t0 = time.perf_counter()
        self._check_own()
        self._check_common()
        X_arr, y_arr = validate_data(self, X, y)
        check_classification_targets(y_arr)
        y_pm, self.classes_ = binary_labels(y_arr)
        build, params = self._builder()
        problem, solution = self._build_and_solve(build, X_arr, y_pm, self._resolve_hyperkernel(X_arr), **params)
        self._store(problem, solution, time.perf_counter() - t0)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(x) through the hyperkernel expansion; positive values predict ``classes_[1]``."""
        check_is_fitted(self)
        X_arr = validate_data(self, X, reset=False)
        assert self.model_.decision is not None
        return self.model_.decision(X_arr)

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class labels from the sign of the decision function."""
        scores = self.decision_function(X)  # checks fitted before classes_ is read
        return self.classes_[(scores > 0).astype(int)]


class HyperkernelNuSVC(_HyperkernelClassifier):
    """ν-SVM that learns its kernel with a hyperkernel (002 eq. 3.9).

    Solves min over kernels and classifiers of (1/m)Σζ_i + ½‖f‖² − νρ + (λ_Q/2)‖k‖_hyper with
    y_i f(x_i) ≥ ρ − ζ_i, by default as the equivalent SOCP
    (:func:`sdpkern.builders.hyperkernel.nusvm`). Defaults are the thesis' (002 §3.2).

    Parameters
    ----------
    nu : float in (0, 1], default=0.3
        Upper bound on the fraction of margin errors, lower bound on the fraction of support
        vectors; feasible only up to 2·min(m₊, m₋)/m.
    {common}

    Attributes
    ----------
    classes_, alpha_ (0 ≤ α ≤ 1/m), beta_ (sum 1), offset_ (b in f = Σ α_j y_j k(x, x_j) − b),
    basis_, objective_, status_, n_terms_, fit_time_, solve_time_, n_iter_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = HyperkernelNuSVC().fit(X[:60], y[:60])
    >>> float(clf.score(X[60:120], y[60:120])) > 0.8
    True
    """

    def __init__(
        self,
        *,
        nu: float = 0.3,
        lambda_Q: float = 1.0,
        lambda_h: float = 0.6,
        widths: Any = "auto",
        hyperkernel: Hyperkernel | None = None,
        form: str = "socp",
        active_set: bool = True,
        eta: float = 1e-4,
        max_terms: int | None = 150,
        backend: str = "clarabel",
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.nu = nu
        self.lambda_Q = lambda_Q
        self.lambda_h = lambda_h
        self.widths = widths
        self.hyperkernel = hyperkernel
        self.form = form
        self.active_set = active_set
        self.eta = eta
        self.max_terms = max_terms
        self.backend = backend
        self.solver_options = solver_options
        self.random_state = random_state

    def _check_own(self) -> None:
        check_open_interval(self.nu, "nu", 0.0, 1.0, closed_high=True)

    def _builder(self) -> tuple[Callable[..., KernelProblem], dict[str, Any]]:
        return hk_builders.nusvm, {"nu": self.nu, "lambda_Q": self.lambda_Q}


class HyperkernelL2SVC(_HyperkernelClassifier):
    """Lagrangian (L2 soft margin) SVM that learns its kernel with a hyperkernel (002 eq. 3.10).

    Solves min ½(‖f‖² + b²) + (C/2)Σξ_i² + (λ_Q/2)‖k‖_hyper with y_i f(x_i) ≥ 1 − ξ_i, by default
    as the equivalent SOCP (:func:`sdpkern.builders.hyperkernel.l2svm`); the decision function
    is f(x) = Σ α_j y_j k(x, x_j) + yᵀα.

    Parameters
    ----------
    C : float, default=100
        1/(λm) of 002 (3.10) (the thesis' C = 100, §3.2).
    {common}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = HyperkernelL2SVC().fit(X[:60], y[:60])
    >>> float(clf.score(X[60:120], y[60:120])) > 0.8
    True
    """

    def __init__(
        self,
        *,
        C: float = 100.0,
        lambda_Q: float = 1.0,
        lambda_h: float = 0.6,
        widths: Any = "auto",
        hyperkernel: Hyperkernel | None = None,
        form: str = "socp",
        active_set: bool = True,
        eta: float = 1e-4,
        max_terms: int | None = 150,
        backend: str = "clarabel",
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.C = C
        self.lambda_Q = lambda_Q
        self.lambda_h = lambda_h
        self.widths = widths
        self.hyperkernel = hyperkernel
        self.form = form
        self.active_set = active_set
        self.eta = eta
        self.max_terms = max_terms
        self.backend = backend
        self.solver_options = solver_options
        self.random_state = random_state

    def _check_own(self) -> None:
        check_positive(self.C, "C")

    def _builder(self) -> tuple[Callable[..., KernelProblem], dict[str, Any]]:
        return hk_builders.l2svm, {"C": self.C, "lambda_Q": self.lambda_Q}


class HyperkernelOneClassSVM(OutlierMixin, _HyperkernelBase):
    """Novelty detection that learns its kernel with a hyperkernel (002 eq. 3.11).

    The score is g(x) = Σ_j α_j k(x, x_j) − ρ (002 Example 13: η − ξ on the training points);
    ``predict`` returns +1 for inliers (g ≥ 0) and −1 for outliers, as scikit-learn's
    ``OneClassSVM``; ``score_samples`` is Σ_j α_j k(x, x_j) (larger = more normal).

    Parameters
    ----------
    nu : float in (0, 1], default=0.1
        Upper bound on the fraction of training outliers (the thesis' novelty setting, §3.2.5).
    {common}

    Attributes
    ----------
    alpha_ (sum 1, 0 ≤ α ≤ 1/(νm)), beta_, offset_ (ρ: decision = score_samples − offset_), ...

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> det = HyperkernelOneClassSVM(nu=0.1).fit(X)
    >>> bool(det.predict([[0.0, 0.0]])[0] == 1 and det.predict([[8.0, 8.0]])[0] == -1)
    True
    """

    def __init__(
        self,
        *,
        nu: float = 0.1,
        lambda_Q: float = 1.0,
        lambda_h: float = 0.6,
        widths: Any = "auto",
        hyperkernel: Hyperkernel | None = None,
        form: str = "socp",
        active_set: bool = True,
        eta: float = 1e-4,
        max_terms: int | None = 150,
        backend: str = "clarabel",
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.nu = nu
        self.lambda_Q = lambda_Q
        self.lambda_h = lambda_h
        self.widths = widths
        self.hyperkernel = hyperkernel
        self.form = form
        self.active_set = active_set
        self.eta = eta
        self.max_terms = max_terms
        self.backend = backend
        self.solver_options = solver_options
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: Any = None) -> HyperkernelOneClassSVM:
        """Learn the kernel and the support of the training data (``y`` is ignored)."""
        t0 = time.perf_counter()
        check_open_interval(self.nu, "nu", 0.0, 1.0, closed_high=True)
        self._check_common()
        X_arr = validate_data(self, X)
        hk = self._resolve_hyperkernel(X_arr)
        problem, solution = self._build_and_solve(
            hk_builders.one_class, X_arr, None, hk, nu=self.nu, lambda_Q=self.lambda_Q
        )
        self._store(problem, solution, time.perf_counter() - t0)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The novelty score g(x) = Σ_j α_j k(x, x_j) − ρ; negative for outliers."""
        check_is_fitted(self)
        X_arr = validate_data(self, X, reset=False)
        assert self.model_.decision is not None
        return self.model_.decision(X_arr)

    def score_samples(self, X: ArrayLike) -> NDArray[np.float64]:
        """Σ_j α_j k(x, x_j): the unshifted score (``decision_function + offset_``)."""
        return self.decision_function(X) + float(self.offset_ or 0.0)

    def predict(self, X: ArrayLike) -> NDArray[np.int64]:
        """+1 for inliers, −1 for outliers."""
        return np.where(self.decision_function(X) >= 0, 1, -1).astype(np.int64)


class HyperkernelNuSVR(RegressorMixin, _HyperkernelBase):
    """ν-support-vector regression that learns its kernel with a hyperkernel (002 eq. 3.12).

    f(x) = Σ_j (α*_j − α_j) k(x, x_j) − γ, learned with the scale 1ᵀβ = stddev(y) of 002 §3.2,
    by default as the equivalent SOCP (:func:`sdpkern.builders.hyperkernel.nu_regression`).

    Parameters
    ----------
    C : float, default=100
        1/(λm) of (3.12): the box of α, α* (scikit-learn's ``NuSVR(C)`` convention).
    nu : float in (0, 1], default=0.3
    {common}

    Attributes
    ----------
    alpha_ (α̂ = [α; α*] in the SOCP form, α* − α in the SDP form), beta_ (sum stddev(y)),
    offset_ (γ), epsilon_ (the tube width the ν-parameterisation chose), ...

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, (60, 1)); y = np.sin(X[:, 0])
    >>> reg = HyperkernelNuSVR(widths=[1.0]).fit(X, y)
    >>> float(reg.score(X, y)) > 0.9
    True
    """

    def __init__(
        self,
        *,
        C: float = 100.0,
        nu: float = 0.3,
        lambda_Q: float = 1.0,
        lambda_h: float = 0.6,
        widths: Any = "auto",
        hyperkernel: Hyperkernel | None = None,
        form: str = "socp",
        active_set: bool = True,
        eta: float = 1e-4,
        max_terms: int | None = 150,
        backend: str = "clarabel",
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.C = C
        self.nu = nu
        self.lambda_Q = lambda_Q
        self.lambda_h = lambda_h
        self.widths = widths
        self.hyperkernel = hyperkernel
        self.form = form
        self.active_set = active_set
        self.eta = eta
        self.max_terms = max_terms
        self.backend = backend
        self.solver_options = solver_options
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> HyperkernelNuSVR:
        """Learn the kernel and the regression function."""
        t0 = time.perf_counter()
        check_positive(self.C, "C")
        check_open_interval(self.nu, "nu", 0.0, 1.0, closed_high=True)
        self._check_common()
        X_arr, y_arr = validate_data(self, X, y, y_numeric=True)
        hk = self._resolve_hyperkernel(X_arr)
        problem, solution = self._build_and_solve(
            hk_builders.nu_regression, X_arr, y_arr, hk, C=self.C, nu=self.nu, lambda_Q=self.lambda_Q
        )
        self._store(problem, solution, time.perf_counter() - t0)
        self.epsilon_ = float(solution.model.extras["epsilon"])
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """The regression function through the hyperkernel expansion."""
        check_is_fitted(self)
        X_arr = validate_data(self, X, reset=False)
        assert self.model_.decision is not None
        return self.model_.decision(X_arr)


class HyperkernelAlignment(TransformerMixin, _HyperkernelBase):
    """Learn a kernel by hyperkernel target alignment (002 eq. 3.13) and hand it on.

    ``fit(X, y)`` learns β; ``transform(X)`` returns the learned kernel k(X, X_train), so the
    transformer feeds any estimator that takes a precomputed kernel::

        make_pipeline(HyperkernelAlignment(), SVC(kernel="precomputed"))

    (during ``fit`` the SVC receives K(X_train, X_train), at ``predict`` K(X_test, X_train)).

    Parameters
    ----------
    ridge : float, default=1e-2
        ε in ½yᵀ(K(β) + εI)⁻¹y. (3.13) as printed has ε = 0, which needs y in the range of
        every learned kernel; with the smooth kernels of the 50× width rule it is not, and
        the SOCP's α ~ y/ε is badly scaled below ε ≈ 1e-2 (measured on m = 26 draws).
    lambda_Q : float, default=1.0
    lambda_h, widths, hyperkernel, form, eta, max_terms, backend, solver_options, random_state
        As for :class:`HyperkernelSVC`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import SVC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> pipe = make_pipeline(HyperkernelAlignment(), SVC(kernel="precomputed")).fit(X[:60], y[:60])
    >>> float(pipe.score(X[60:120], y[60:120])) > 0.8
    True
    """

    def __init__(
        self,
        *,
        ridge: float = 1e-2,
        lambda_Q: float = 1.0,
        lambda_h: float = 0.6,
        widths: Any = "auto",
        hyperkernel: Hyperkernel | None = None,
        form: str = "socp",
        eta: float = 1e-4,
        max_terms: int | None = 150,
        backend: str = "clarabel",
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.ridge = ridge
        self.lambda_Q = lambda_Q
        self.lambda_h = lambda_h
        self.widths = widths
        self.hyperkernel = hyperkernel
        self.form = form
        self.eta = eta
        self.max_terms = max_terms
        self.backend = backend
        self.solver_options = solver_options
        self.random_state = random_state

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> HyperkernelAlignment:
        """Learn the kernel from inputs and targets (two classes or real values)."""
        t0 = time.perf_counter()
        check_positive(self.ridge, "ridge", allow_zero=True)
        self._check_common()
        X_arr, y_arr = validate_data(self, X, y)
        hk = self._resolve_hyperkernel(X_arr)
        problem = hk_builders.alignment(
            X_arr,
            y_arr,
            hk,
            ridge=self.ridge,
            lambda_Q=self.lambda_Q,
            form=_form(self.form),
            eta=self.eta,
            max_terms=self.max_terms,
        )
        self._store(problem, self._solve(problem), time.perf_counter() - t0)
        self.X_fit_ = X_arr
        return self

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """The learned kernel between X and the training inputs, shape (n_samples, n_train)."""
        check_is_fitted(self)
        X_arr = validate_data(self, X, reset=False)
        return self.basis_.learned_kernel(self.beta_, X_arr, self.X_fit_)


for _cls in (HyperkernelNuSVC, HyperkernelL2SVC, HyperkernelOneClassSVM, HyperkernelNuSVR):
    _cls.__doc__ = (_cls.__doc__ or "").replace("{common}", _COMMON_PARAMS_DOC)

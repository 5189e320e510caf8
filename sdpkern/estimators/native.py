"""scikit-learn estimators over the native solvers (002 Ch. 4-6, 004, 001).

- :class:`PrimalSVC`: primal Newton SVM with the squared hinge loss (004).
- :class:`KrylovRegressor`: ``K α = y`` by CGNE (kernel PLS) or MR-II with early stopping (002 §6.2).
- :class:`KrylovFisherDiscriminant`: ``N α = μ₊ − μ₋`` by a Krylov method with early stopping (002 §6.3).
- :class:`IndefiniteKernelPCA`: kernel PCA keeping the largest-magnitude eigenvalues (002 §6.1).
- :class:`IndefiniteSVC`: libsvm's SVC on an arbitrary symmetric kernel plus the suitability
  report of 001 §6.

Kernels are chosen as in scikit-learn (``kernel="rbf"``, ``gamma="scale"``) or passed as an
:class:`sdpkern.kernels.Kernel` object or a callable ``k(X, Y) -> Gram matrix``;
``kernel="precomputed"`` takes Gram matrices as ``X``. The indefinite kernels of 002 Ch. 6 are
``"epanechnikov"`` (σ = 1/γ, p = 2) and ``"sqeuclidean"`` (``‖x − x'‖²·γ``, 002 §6.2).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import RegressorMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from .._docstrings import fill_doc
from .._validation import Interval, Options, validate_data
from ..errors import BreakdownError, DataError, ParameterError, SolverError
from ..kernels.base import (
    Epanechnikov,
    Gaussian,
    Kernel,
    Laplacian,
    Linear,
    Polynomial,
    Sigmoid,
    SquaredEuclidean,
)
from ..kernels.gram import CallableGram, GramOperator, KernelGram, PrecomputedGram
from ..kernels.spectrum import center_kernel
from ..native.dual_svm import dual_svm
from ..native.early_stopping import cv_stopping_index, discrepancy_stop
from ..native.indefinite import best_offset, fisher_system, indefinite_kpca
from ..native.krylov import get_solver
from ..native.primal_svm import primal_svm_kernel, primal_svm_linear, primal_svm_lowrank
from ..native.pseudo_euclidean import UnsuitableKernelWarning, kernel_suitability, svm_suitability
from ._base import KernelClassifierMixin, SdpkernEstimator, squared_hinge_stationarity

__all__ = [
    "PrimalSVC",
    "KrylovRegressor",
    "KrylovFisherDiscriminant",
    "IndefiniteKernelPCA",
    "IndefiniteSVC",
]

_KERNEL_NAMES = (
    "linear",
    "rbf",
    "gaussian",
    "poly",
    "sigmoid",
    "laplacian",
    "epanechnikov",
    "sqeuclidean",
    "precomputed",
)


_POSITIVE = Interval(Real, 0, None, closed="neither")


#: The kernel parameters of every estimator here, described once (:func:`sdpkern._docstrings.fill_doc`).
_kernel_doc = fill_doc(
    {
        "kernel_parameters": """\
kernel : str, Kernel or callable, default="rbf"
    One of ``"linear"``, ``"rbf"`` (``"gaussian"``), ``"poly"``, ``"sigmoid"``,
    ``"laplacian"``, ``"epanechnikov"``, ``"sqeuclidean"``, ``"precomputed"``; an sdpkern
    :class:`~sdpkern.kernels.Kernel`; or a callable ``k(X, Y) -> Gram matrix``.
gamma : "scale" or float, default="scale"
    ``"scale"`` is 1 / (n_features · X.var()), as scikit-learn.
degree : int, default=3
coef0 : float, default=0.0"""
    }
)


@_kernel_doc
@dataclass(kw_only=True, eq=False, repr=False)
class _NativeKernelBase(SdpkernEstimator):
    """Kernel choice (as scikit-learn's ``SVC``), validation and Gram matrices.

    Parameters
    ----------
    {kernel_parameters}
    """

    kernel: Any = "rbf"
    gamma: Any = "scale"
    degree: int = 3
    coef0: float = 0.0

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "kernel": [Options(set(_KERNEL_NAMES)), Kernel, callable],
        "gamma": [Options({"scale"}), _POSITIVE],
        "degree": [Interval(Integral, 1, None)],
        "coef0": [Interval(Real, None, None)],
    }

    def _resolve_kernel(self, X: NDArray[np.float64]) -> Kernel | Callable[..., Any] | None:
        """Return a kernel callable (None for ``"precomputed"``), fixing ``gamma="scale"`` on ``X``."""
        k = self.kernel
        if not isinstance(k, str):
            return k  # type: ignore[no-any-return]
        if k == "precomputed":
            return None
        if isinstance(self.gamma, str):
            var = float(X.var())
            gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        else:
            gamma = float(self.gamma)
        if k == "linear":
            return Linear()
        if k in ("rbf", "gaussian"):
            return Gaussian(gamma=gamma)
        if k == "laplacian":
            return Laplacian(gamma=gamma)
        if k == "poly":
            return Polynomial(degree=int(self.degree), gamma=gamma, coef0=float(self.coef0))
        if k == "sigmoid":
            return Sigmoid(gamma=gamma, coef0=float(self.coef0))
        if k == "epanechnikov":
            return Epanechnikov(sigma=1.0 / gamma, p=2)
        return SquaredEuclidean(sigma=1.0 / gamma)

    def _fit_kernel(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Resolve the kernel on the training data, store it, and return the training Gram matrix."""
        self._kernel_ = self._resolve_kernel(X)
        if self._kernel_ is None:
            if X.shape[0] != X.shape[1]:
                raise DataError(f"X must be a square Gram matrix with kernel='precomputed', got shape {X.shape}")
            return X
        return np.asarray(self._kernel_(X), dtype=np.float64)

    def _gram(self, X: NDArray[np.float64], Y: NDArray[np.float64]) -> NDArray[np.float64]:
        if self._kernel_ is None:
            return X
        return np.asarray(self._kernel_(X, Y), dtype=np.float64)

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags


@dataclass(kw_only=True, eq=False, repr=False)
class _NativeClassifier(KernelClassifierMixin, _NativeKernelBase):
    """Binary native classifiers; one-vs-rest for more classes (docs/conventions.md)."""

    def _check_training_data(self, X: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[Any]]:
        X_arr, y_arr = super()._check_training_data(X, y)
        if isinstance(self.kernel, str) and self.kernel == "precomputed" and X_arr.shape[0] != X_arr.shape[1]:
            raise DataError(f"X must be a square Gram matrix with kernel='precomputed', got shape {X_arr.shape}")
        return X_arr, y_arr

    def _decision_binary(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Σ_i c_i k(x_i, x) + b over the support (docs/conventions.md)."""
        if getattr(self, "coef_", None) is not None:
            return np.asarray(X @ self.coef_[0] + self.intercept_, dtype=np.float64)
        if self._kernel_ is None:  # precomputed: X holds k(x, x_i) for every training point
            return np.asarray(X[:, self.support_] @ self.dual_coef_ + self.intercept_, dtype=np.float64)
        return self._gram(X, self.support_vectors_) @ self.dual_coef_ + self.intercept_


def _gram_operator(kern: Kernel | Callable[..., Any] | None, X: NDArray[np.float64]) -> GramOperator:
    """The training Gram matrix as a :class:`~sdpkern.kernels.gram.GramOperator`: a kernel
    object on X, a user callable ``k(A, B)`` on X, or ``X`` itself (``kernel="precomputed"``)."""
    if kern is None:
        return PrecomputedGram(X, name="X (a precomputed Gram matrix)")
    if isinstance(kern, Kernel):
        return KernelGram(kern, X)
    return CallableGram(kern, X, kind="pairs")


@dataclass(kw_only=True, eq=False, repr=False)
class PrimalSVC(_NativeClassifier):
    """Primal Newton SVM with the squared hinge loss (004; Chapelle 2007).

    Minimises ``½‖f‖² + C Σ_i max(0, 1 − y_i f(x_i))²`` with ``f(x) = Σ_j β_j k(x_j, x) + b``
    by Newton steps on the support-vector set (Cholesky on the block ``λI + K_SV,SV``,
    ``λ = 1/(2C)``) and an exact line search; see :mod:`sdpkern.native.primal_svm`.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        ``"linear"`` with ``solver="exact"`` works in input space (``d + 1`` unknowns).
    C : float, default=1.0
    gamma : "scale" or float, default="scale"
    degree : int, default=3
    coef0 : float, default=0.0
    solver : {"auto", "dual", "exact", "lowrank"}, default="auto"
        ``"dual"``: the same problem in the dual by the compiled SMO of
        :mod:`sdpkern.native.dual_svm` (libsvm's working-set selection and shrinking, kernel
        columns from a capped cache) to ``tol``, closed by a Newton step on its active set when
        that is cheap (small problems end exact). ``"exact"``: Newton steps on the
        support-vector block, with kernel columns computed only for points that are support
        vectors at some stage. ``"lowrank"``: 004's "data preprocessing", a pivoted incomplete
        Cholesky ``K ≈ GGᵀ`` (at most ``max_rank`` kernel columns) followed by the linear primal
        SVM on ``G`` — an approximation of the kernel. ``"auto"``: ``"exact"`` for the linear
        kernel (d + 1 unknowns), ``"dual"`` for every other (measured faster than the Newton
        route at n = 400-3000, and exact where ``"lowrank"`` is not: examples/benchmarks/bench_thin_plate.py);
        ``solver_`` says which ran.
    max_rank : int or "auto", default="auto"
        Pivot cap of ``"lowrank"``; ``"auto"`` is ``⌈2√n⌉``, so the factorisation costs
        ``O(n r²) = O(n²)`` flops, the order of one pass over the kernel matrix.
    eta : float, default=1e-3
        Incomplete Cholesky stops when every residual diagonal entry of ``K − GGᵀ`` is ``≤ eta``.
    max_iter : int, default=50
        Newton steps (the dual solver's cap is max(10⁷, 100 n) SMO steps).
    random_state : int or None, default=0
        Seed of the recursive half-data warm start (``solver="exact"``, n > 1000).
    tol : float, default=1e-3
        KKT tolerance of ``solver="dual"``, libsvm's meaning (as ``SVC(tol=1e-3)``).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each class's C, as scikit-learn's ``SVC`` (``fit`` also takes ``sample_weight``):
        point i's loss is C · sample_weight_i · class_weight[y_i] · max(0, 1 − y_i f(x_i))².
        Every solver takes the weights (the kernel Newton system's diagonal becomes
        ``1/(2C w_i)``; points of weight 0 never become support vectors).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    support_ : ndarray of int
        Training indices carrying a non-zero coefficient (pivots for ``"lowrank"``).
    dual_coef_ : ndarray of shape (n_SV,)
        Expansion coefficients on ``support_vectors_``.
    support_vectors_ : ndarray
    intercept_ : float
    coef_ : ndarray of shape (1, n_features)
        Only for the linear kernel with ``solver="exact"``.
    objective_ : float
    n_iter_ : int
    solver_ : str
        The solver that ran (``"exact"`` or ``"lowrank"``).
    status_ : str
        ``"optimal"`` when the support-vector set settled (the Newton step on it is exact),
        ``"iteration_limit"`` otherwise (with a ``ConvergenceWarning``); one-vs-rest: the worst.
    certificate_ : dict
        ``{"measure": "stationarity", "value": ‖c − 2C y∘ξ‖∞ / max(1, ‖c‖∞)}`` (the optimality
        condition of the squared-hinge primal) where the solver returns the training outputs.

    Examples
    --------
    >>> import numpy as np
    >>> from sdpkern.estimators.native import PrimalSVC
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [3.0, 3.0], [3.0, 4.0]]); y = ["a", "a", "b", "b"]
    >>> PrimalSVC(kernel="linear", C=10.0).fit(X, y).predict([[0.0, 0.5], [3.0, 3.5]]).tolist()
    ['a', 'b']
    """

    C: float = 1.0
    solver: str = "auto"
    max_rank: int | str = "auto"
    eta: float = 1e-3
    max_iter: int = 50
    random_state: int | None = 0
    tol: float = 1e-3
    class_weight: Any = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_NativeKernelBase._parameter_constraints,
        "C": [_POSITIVE],
        "class_weight": [dict, Options({"balanced"}), None],
        "solver": [Options({"auto", "dual", "exact", "lowrank"})],
        "max_rank": [Options({"auto"}), Interval(Integral, 1, None)],
        "eta": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
        "tol": [_POSITIVE],
    }

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> PrimalSVC:
        """Fit on ``X`` (n, d) and labels ``y`` (one-vs-rest for more than two classes); point i's C
        is C · sample_weight_i · class_weight[y_i]."""
        return self._fit_classifier(X, y, sample_weight)  # type: ignore[no-any-return]

    def _fit_binary(self, Xa: NDArray[np.float64], y_pm: NDArray[np.float64], weights: Any, shared: Any) -> None:
        C, max_iter = float(self.C), int(self.max_iter)
        self.coef_: NDArray[np.float64] | None = None
        self.support_vectors_: NDArray[np.float64] | None = None
        kern = self._resolve_kernel(Xa)
        solver = self.solver
        if solver == "auto":
            linear = isinstance(self.kernel, str) and self.kernel == "linear"
            solver = "exact" if linear else "dual"
        self.solver_ = solver
        if solver == "exact" and isinstance(self.kernel, str) and self.kernel == "linear":
            self._kernel_ = Linear()
            res = primal_svm_linear(Xa, y_pm, C, max_iter=max_iter, sample_weight=weights)
            self.coef_ = res.coef[None, :]
            self.intercept_ = res.intercept
            # c_i = 2C w_i y_i ξ_i on the margin violators (w_i = 1 unweighted): w = Σ c_i x_i at the optimum (004)
            outputs = Xa @ res.coef + res.intercept
            w_xi = np.maximum(0.0, 1.0 - y_pm * outputs) * (1.0 if weights is None else weights)
            self.support_ = np.flatnonzero(w_xi > 0)
            self.support_vectors_ = Xa[self.support_]
            self.dual_coef_ = 2.0 * C * y_pm[self.support_] * w_xi[self.support_]
            self.objective_, self.n_iter_ = res.objective, res.iterations
            w_gap = np.abs(res.coef - self.support_vectors_.T @ self.dual_coef_).max(initial=0.0)
            self._set_status(res.converged, float(w_gap / max(1.0, float(np.abs(res.coef).max(initial=0.0)))))
            return
        if solver == "dual":
            self._kernel_ = kern
            dres = dual_svm(
                _gram_operator(kern, Xa), y_pm, C, loss="squared_hinge", sample_weight=weights, tol=float(self.tol),
                polish="auto",
            )
            nz = np.nonzero(dres.dual_coef)[0]
            self.support_, self.dual_coef_, self.intercept_ = nz, dres.dual_coef[nz], dres.intercept
            self.objective_, self.n_iter_ = dres.objective, dres.n_iter
            self._set_status(
                dres.status == "optimal",
                squared_hinge_stationarity(dres.dual_coef, dres.outputs, y_pm, C if weights is None else C * weights),
                "SMO",
            )
        elif solver == "exact":
            self._kernel_ = kern
            # kernel blocks on demand: only the columns of support vectors, never n × n
            op = _gram_operator(kern, Xa)
            res = primal_svm_kernel(
                op, y_pm, C, max_iter=max_iter, random_state=self.random_state, sample_weight=weights
            )
            nz = np.nonzero(res.coef)[0]
            self.support_ = nz
            self.dual_coef_ = res.coef[nz]
            self.intercept_ = res.intercept
            self.objective_, self.n_iter_ = res.objective, res.iterations
            self._set_status(
                res.converged,
                squared_hinge_stationarity(res.coef, res.outputs, y_pm, C if weights is None else C * weights),
            )
        else:
            if kern is None:
                raise ParameterError("solver='lowrank' needs a kernel function, not kernel='precomputed'")
            self._kernel_ = kern
            max_rank = int(np.ceil(2.0 * np.sqrt(Xa.shape[0]))) if self.max_rank == "auto" else int(self.max_rank)
            lr = primal_svm_lowrank(
                _gram_operator(kern, Xa), y_pm, C, max_rank=max_rank, eta=float(self.eta), max_iter=max_iter,
                sample_weight=weights,
            )
            self.support_ = lr.pivots
            self.dual_coef_ = lr.coef
            self.intercept_ = lr.intercept
            self.objective_, self.n_iter_ = lr.objective, lr.linear.iterations
            self._set_status(lr.linear.converged, None)
            self.certificate_["kernel"] = f"low rank K ≈ GGᵀ, trace(K − GGᵀ) = {lr.residual_trace:.3g}"
        self.support_vectors_ = Xa[self.support_] if self._kernel_ is not None else None

    def _set_status(self, converged: bool, stationarity: float | None, how: str = "Newton") -> None:
        self.status_ = "optimal" if converged else "iteration_limit"
        self.certificate_ = {"measure": "support-vector set settled", "value": bool(converged)}
        if stationarity is not None:
            self.certificate_ = {"measure": "stationarity", "value": stationarity}
        if not converged:
            what = "the support-vector set did not settle" if how == "Newton" else "SMO did not reach tol"
            limit = f"max_iter={self.max_iter} Newton steps" if how == "Newton" else "its step cap"
            warnings.warn(
                f"PrimalSVC: {what} in {limit}",
                ConvergenceWarning,
                stacklevel=4,
            )


@dataclass(kw_only=True, eq=False, repr=False)
class _KrylovBase(_NativeKernelBase):
    """Early-stopping parameters shared by the Krylov estimators (002 §5.3).

    Parameters
    ----------
    method : {"cgne", "mr_ii", "mr", "cg"}
    n_iter : int or None, default=None
        Fixed iteration count; None chooses it.
    max_iter : int, default=30
        Largest count tried by cross-validation.
    cv : int, default=5
    random_state : int or None, default=0
    """

    method: str = "cgne"
    n_iter: int | None = None
    max_iter: int = 30
    cv: int = 5
    random_state: int | None = 0

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_NativeKernelBase._parameter_constraints,
        "method": [Options({"cgne", "mr_ii", "mr", "cg"})],
        "n_iter": [Interval(Integral, 1, None), None],
        "max_iter": [Interval(Integral, 1, None)],
        "cv": [Interval(Integral, 2, None)],
        "random_state": ["random_state"],
    }

    def _run(self, A: Any, b: NDArray[np.float64], n_iter: int) -> tuple[NDArray[np.float64], int]:
        """Exactly ``n_iter`` iterations of ``method`` (fewer if it converges or breaks down).

        Sets ``status_``: the early-stopped iterate is the estimate by design (002 §5.3), so
        reaching it (or converging first) is ``"optimal"``; a breakdown before it keeps the last
        iterate as ``"optimal_inaccurate"`` with a ``ConvergenceWarning``.
        """
        try:
            res = get_solver(self.method)(A, b, max_iter=n_iter, rtol=0.0, atol=0.0)
            self.status_ = "optimal"
        except BreakdownError as exc:
            res = exc.result  # type: ignore[attr-defined]
            self.status_ = "optimal_inaccurate"
            warnings.warn(
                f"{type(self).__name__}: {self.method} broke down after {res.iterations} of {n_iter} iterations "
                "(keeping the last iterate)",
                ConvergenceWarning,
                stacklevel=4,
            )
        self.certificate_ = {"measure": "iterations run / chosen", "value": (res.iterations, n_iter)}
        return res.x, res.iterations


@_kernel_doc
@dataclass(kw_only=True, eq=False, repr=False)
class KrylovRegressor(RegressorMixin, _KrylovBase):
    """Kernel regression ``K α = y − ȳ`` by a Krylov method with early stopping (002 §6.2).

    CGNE on ``K α = y`` early-stopped is kernel partial least squares (002 §5.2.3); MR-II
    minimises the residual over ``S_k(Ky; K)``. Both work for indefinite ``K`` (002 Table 6.1
    uses the squared Euclidean distance). The iteration count is chosen by ``cv``-fold
    cross-validation of the validation squared error (002 §6.2), fixed by ``n_iter``, or by the
    discrepancy principle when ``noise_level`` is given.

    Parameters
    ----------
    {kernel_parameters}
    method : {"cgne", "mr_ii", "mr", "cg"}, default="cgne"
    n_iter : int or None, default=None
        Fixed iteration count; None chooses it.
    max_iter : int, default=30
        Largest count tried by cross-validation.
    cv : int, default=5
    noise_level : float or None, default=None
        ``δ ≥ ‖noise‖``: use the discrepancy principle ``‖y − Kα‖ ≤ τδ`` instead of CV.
    tau : float, default=1.1
    random_state : int or None, default=0

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,)
        c in f(x) = Σ_i c_i k(x_i, x) + b.
    support_ : ndarray of int
        Every training point (``arange(n_samples)``).
    intercept_ : float
        b, the training mean of ``y``.
    n_iter_ : int
        Iterations used for the final fit.
    cv_loss_ : ndarray or None
        Mean validation MSE per iteration count.
    status_, certificate_
        ``"optimal"`` when the chosen iterate was reached (see ``_KrylovBase._run``).
    """

    noise_level: float | None = None
    tau: float = 1.1

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_KrylovBase._parameter_constraints,
        "noise_level": [Interval(Real, 0, None, closed="neither"), None],
        "tau": [Interval(Real, 1, None, closed="neither")],
    }

    def fit(self, X: ArrayLike, y: ArrayLike) -> KrylovRegressor:
        """Fit on ``X`` (n, d) and real targets ``y``."""
        self._validate_params()
        Xa, ya = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        max_iter = max(1, min(int(self.max_iter), Xa.shape[0]))
        K = self._fit_kernel(Xa)
        self.intercept_ = float(ya.mean())
        yc = ya - self.intercept_
        self.cv_loss_ = None
        if self.noise_level is not None:
            noise, tau = float(self.noise_level), float(self.tau)
            n_iter = discrepancy_stop(K, yc, noise, method=self.method, tau=tau, max_iter=max_iter).iterations
        elif self.n_iter is not None:
            n_iter = int(self.n_iter)
        elif Xa.shape[0] < 4:
            n_iter = 1
        else:

            def make_fold(tr, va):  # type: ignore[no-untyped-def]
                Ktr = K[np.ix_(tr, tr)]
                Kva = K[np.ix_(va, tr)]
                ytr = ya[tr] - ya[tr].mean()
                yva = ya[va] - ya[tr].mean()
                return Ktr, ytr, lambda a: float(np.mean((Kva @ a - yva) ** 2))

            choice = cv_stopping_index(
                make_fold, Xa.shape[0], method=self.method, max_iter=max_iter, cv=self.cv,
                random_state=self.random_state,
            )  # fmt: skip
            n_iter, self.cv_loss_ = choice.n_iter, choice.mean_loss
        self.dual_coef_, self.n_iter_ = self._run(K, yc, max(1, n_iter))
        self.support_ = np.arange(Xa.shape[0])
        self.X_fit_ = Xa
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """``Σ_j c_j k(x_j, x) + b`` (b = ȳ)."""
        check_is_fitted(self, "dual_coef_")
        Xa = validate_data(self, X, dtype=np.float64, reset=False)
        return self._gram(Xa, self.X_fit_) @ self.dual_coef_ + self.intercept_


@_kernel_doc
@dataclass(kw_only=True, eq=False, repr=False)
class KrylovFisherDiscriminant(KernelClassifierMixin, _KrylovBase):
    """Kernel Fisher discriminant ``N α = μ₊ − μ₋`` by a Krylov method with early stopping (002 §6.3).

    ``μ± = K1±/m±`` and ``N = K(I − 1₊1₊ᵀ/m₊ − 1₋1₋ᵀ/m₋)K`` (applied as two products with
    ``K``, never formed); any symmetric kernel. The offset minimises the training errors of the
    final scores. The iteration count is chosen by stratified ``cv``-fold cross-validation of the
    validation error (with the offset at the midpoint of the projected class means inside the
    folds) or fixed by ``n_iter``. More than two classes: one-vs-rest.

    Parameters
    ----------
    {kernel_parameters}
    method : {"mr_ii", "cgne", "mr", "cg"}, default="mr_ii"
    n_iter : int or None, default=None
    max_iter : int, default=30
    cv : int, default=5
    random_state : int or None, default=0

    Attributes
    ----------
    dual_coef_ : ndarray
        c on every training point.
    support_ : ndarray of int
        ``arange(n_samples)``.
    intercept_ : float
        b.
    classes_, n_iter_, cv_loss_, status_, certificate_
        As for :class:`KrylovRegressor`.
    """

    method: str = "mr_ii"

    def fit(self, X: ArrayLike, y: ArrayLike) -> KrylovFisherDiscriminant:
        """Fit on ``X`` (n, d) and labels ``y`` (one-vs-rest for more than two classes)."""
        return self._fit_classifier(X, y)  # type: ignore[no-any-return]

    def _shared_state(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._fit_kernel(X)  # one Gram matrix for every one-vs-rest model

    def _fit_binary(self, Xa: NDArray[np.float64], y_pm: NDArray[np.float64], weights: Any, shared: Any) -> None:
        max_iter = max(1, min(int(self.max_iter), Xa.shape[0]))
        self._kernel_, K = self._resolve_kernel(Xa), shared
        self.cv_loss_ = None
        if self.n_iter is not None:
            n_iter = int(self.n_iter)
        elif min(int((y_pm > 0).sum()), int((y_pm < 0).sum())) < 2:
            n_iter = 1
        else:

            def make_fold(tr, va):  # type: ignore[no-untyped-def]
                N, rhs, means = fisher_system(K[np.ix_(tr, tr)], y_pm[tr])
                Kva, yva = K[np.ix_(va, tr)], y_pm[va]

                def loss(a: NDArray[np.float64]) -> float:
                    mid = 0.5 * float(means[0] @ a + means[1] @ a)
                    return float(np.mean(np.where(Kva @ a - mid > 0, 1.0, -1.0) != yva))

                return N, rhs, loss

            choice = cv_stopping_index(
                make_fold, Xa.shape[0], method=self.method, max_iter=max_iter, cv=self.cv, stratify=y_pm,
                random_state=self.random_state,
            )  # fmt: skip
            n_iter, self.cv_loss_ = choice.n_iter, choice.mean_loss
        N, rhs, _ = fisher_system(K, y_pm)
        self.dual_coef_, self.n_iter_ = self._run(N, rhs, n_iter)
        self.intercept_ = best_offset(K @ self.dual_coef_, y_pm)
        self.support_ = np.arange(Xa.shape[0])
        self.support_vectors_ = Xa
        self.X_fit_ = Xa

    def _decision_binary(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._gram(X, self.X_fit_) @ self.dual_coef_ + self.intercept_


@_kernel_doc
@dataclass(kw_only=True, eq=False, repr=False)
class IndefiniteKernelPCA(TransformerMixin, _NativeKernelBase):
    """Kernel PCA keeping the eigenvalues of largest magnitude of the centred kernel (002 §6.1).

    Works like :class:`sklearn.decomposition.KernelPCA` for a PSD kernel; for an indefinite one
    the components are the eigenvectors with the largest ``|λ|`` (MATLAB ``eigs(K, p, 'LM')``).
    Training points map to ``U_i √|λ|`` (their pseudo-Euclidean coordinates, 001 Prop. 1); new
    points to ``k_c(x) U sign(λ)/√|λ|`` with ``k_c`` centred by the training means, which agrees on
    the training points.

    Parameters
    ----------
    n_components : int, default=2
        At most the number of training points (more raises a ``ParameterError``).
    {kernel_parameters}

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Signed, by decreasing magnitude.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
    status_ : str
        ``"optimal"`` (a dense symmetric eigendecomposition, LAPACK ``syevd``).
    """

    n_components: int = 2

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_NativeKernelBase._parameter_constraints,
        "n_components": [Interval(Integral, 1, None)],
    }

    def fit(self, X: ArrayLike, y: Any = None) -> IndefiniteKernelPCA:
        """Compute the components of ``X`` (n, d)."""
        self._validate_params()
        Xa = validate_data(self, X, dtype=np.float64)
        if self.n_components > Xa.shape[0]:
            raise ParameterError(
                f"n_components={self.n_components} exceeds the {Xa.shape[0]} training points; a kernel PCA has at "
                f"most one component per point (pass n_components <= {Xa.shape[0]})"
            )
        K = self._fit_kernel(Xa)
        res = indefinite_kpca((K + K.T) / 2, int(self.n_components))
        self.eigenvalues_ = res.eigenvalues
        self.eigenvectors_ = res.eigenvectors
        self.status_ = "optimal"
        self._K_fit = K
        self.X_fit_ = Xa
        return self

    def _scale(self) -> NDArray[np.float64]:
        lam = self.eigenvalues_
        tiny = np.finfo(float).eps * max(float(np.abs(lam).max(initial=0.0)), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.abs(lam) > tiny, np.sign(lam) / np.sqrt(np.abs(lam)), 0.0)

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Project ``X`` (m, d) on the components, shape (m, n_components)."""
        check_is_fitted(self, "eigenvectors_")
        Xa = validate_data(self, X, dtype=np.float64, reset=False)
        Kc = center_kernel(self._K_fit, self._gram(Xa, self.X_fit_))
        return (Kc @ self.eigenvectors_) * self._scale()

    def fit_transform(self, X: ArrayLike, y: Any = None, **params: Any) -> NDArray[np.float64]:
        """Fit and return the training coordinates ``U √|λ|``."""
        self.fit(X)
        lam = self.eigenvalues_
        tiny = np.finfo(float).eps * max(float(np.abs(lam).max(initial=0.0)), 1.0)
        return self.eigenvectors_ * np.where(np.abs(lam) > tiny, np.sqrt(np.abs(lam)), 0.0)


@dataclass(kw_only=True, eq=False, repr=False)
class IndefiniteSVC(_NativeClassifier):
    """C-SVM on an arbitrary symmetric kernel with the suitability report of 001 §6.

    The dual with an indefinite kernel is a non-convex QP, so it is not given to CVXPY:
    libsvm's SMO (``sklearn.svm.SVC(kernel="precomputed")``) reaches a stationary point, which
    001 Proposition 3 interprets as a stationary point of a pseudo-Euclidean primal. Before
    training, a kernel whose centred matrix has no positive eigenvalue (e.g. ``−k`` with ``k``
    p.d.) is flagged; after training ``suitability_`` holds the ratio of bounded coefficients,
    ``wᵀMw`` of 001 eq. (12) and its sign, and the number of negative eigenvalues. An
    :class:`~sdpkern.native.pseudo_euclidean.UnsuitableKernelWarning` is issued when the solution
    should be dismissed.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="sigmoid"
    C : float, default=1.0
    gamma, degree, coef0
        Kernel parameters (see the module docstring).
    sign : {1, -1}, default=1
        Multiplies the kernel (``sign=-1`` gives ``−k``, for experiments with 001 §6).
    tol : float, default=1e-3
        libsvm's stopping tolerance.
    max_bounded_ratio : float, default=0.5
        Ratio of coefficients at ``C`` above which the report adds a note (not a dismissal).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each class's C, as scikit-learn's ``SVC`` (``fit`` also takes ``sample_weight``).

    Attributes
    ----------
    suitability_ : SuitabilityReport
    pre_training_suitability_ : SuitabilityReport
    svc_ : sklearn.svm.SVC
        libsvm's model on the points of positive weight (its indices refer to those points).
    dual_coef_full_ : ndarray of shape (n_samples,)
        ``α_i y_i`` for every training point.
    dual_coef_, support_, intercept_
        f(x) = Σ_i c_i k(x_i, x) + b with c = ``dual_coef_`` on ``support_``.
    status_ : str
        ``"optimal"``: libsvm met its KKT tolerance ``tol`` (for an indefinite kernel that makes
        the answer a stationary point, 001 Proposition 3); ``"iteration_limit"`` otherwise.
    """

    kernel: Any = "sigmoid"
    C: float = 1.0
    sign: float = 1.0
    tol: float = 1e-3
    max_bounded_ratio: float = 0.5
    class_weight: Any = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_NativeKernelBase._parameter_constraints,
        "C": [_POSITIVE],
        "sign": [Options({1, -1})],
        "tol": [_POSITIVE],
        "max_bounded_ratio": [Interval(Real, 0, 1, closed="both")],
        "class_weight": [dict, Options({"balanced"}), None],
    }

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> IndefiniteSVC:
        """Fit on ``X`` (n, d) and labels ``y`` (one-vs-rest for more than two classes); point i's C
        is C · sample_weight_i · class_weight[y_i]."""
        return self._fit_classifier(X, y, sample_weight)  # type: ignore[no-any-return]

    def _signed(self, K: NDArray[np.float64]) -> NDArray[np.float64]:
        return K if self.sign == 1 else -K

    def _shared_state(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """The signed, symmetrised training Gram matrix, checked for suitability once (001 §6)."""
        K = self._signed(self._fit_kernel(X))
        K = (K + K.T) / 2
        self.pre_training_suitability_ = kernel_suitability(K)
        if not self.pre_training_suitability_.suitable:
            warnings.warn(
                "IndefiniteSVC: " + "; ".join(self.pre_training_suitability_.reasons),
                UnsuitableKernelWarning,
                stacklevel=4,
            )
        return K

    def _fit_binary(self, Xa: NDArray[np.float64], y_pm: NDArray[np.float64], weights: Any, shared: Any) -> None:
        K, C = shared, float(self.C)
        self._kernel_ = self._resolve_kernel(Xa)
        # Zero-weight points are dropped here: scikit-learn's SVC(kernel="precomputed") drops them
        # inside libsvm without re-indexing the kernel's columns, which gives a wrong model
        # (measured with scikit-learn 1.9: decision values off by up to 0.3 against repeated points).
        keep = np.arange(Xa.shape[0]) if weights is None else np.flatnonzero(weights > 0)
        w_keep = None if weights is None else weights[keep]
        self.svc_ = SVC(kernel="precomputed", C=C, tol=float(self.tol))
        self.svc_.fit(K[np.ix_(keep, keep)], y_pm[keep], sample_weight=w_keep)
        if not (np.isfinite(self.svc_.dual_coef_).all() and np.isfinite(self.svc_.intercept_).all()):
            raise SolverError("IndefiniteSVC: libsvm returned non-finite dual coefficients", status="error")
        full = np.zeros(Xa.shape[0])
        # libsvm orders classes as sorted labels, so dual_coef_ is α_i y_i with y = ±1 here.
        full[keep[self.svc_.support_]] = self.svc_.dual_coef_[0]
        self.dual_coef_full_ = full
        bounds = C if weights is None else C * weights
        self.suitability_ = svm_suitability(K, full, bounds, max_bounded_ratio=self.max_bounded_ratio)
        if not self.suitability_.suitable and getattr(self, "pre_training_suitability_", None) is not None:
            if self.pre_training_suitability_.suitable:
                warnings.warn(
                    "IndefiniteSVC: " + "; ".join(self.suitability_.reasons), UnsuitableKernelWarning, stacklevel=4
                )
        self.support_ = np.flatnonzero(full)  # sorted (libsvm groups its support by class)
        self.dual_coef_ = full[self.support_]
        self.intercept_ = float(self.svc_.intercept_[0])
        self.support_vectors_ = Xa[self.support_]
        self.status_ = "optimal" if self.svc_.fit_status_ == 0 else "iteration_limit"
        self.certificate_ = {"measure": "libsvm KKT violation <= tol", "value": float(self.tol)}
        self.X_fit_ = Xa

    def _decision_binary(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Σ_i c_i k(x_i, x) + b``, c = α_i y_i on the support (the kernel signed by ``sign``)."""
        Kx = self._signed(self._gram(X, self.X_fit_))
        return np.asarray(Kx[:, self.support_] @ self.dual_coef_ + self.intercept_, dtype=np.float64)

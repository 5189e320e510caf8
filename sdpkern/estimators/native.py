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

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation import binary_labels, validate_data
from ..errors import DataError, LabelError, ParameterError
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
from ..native.early_stopping import cv_stopping_index, discrepancy_stop
from ..native.indefinite import best_offset, fisher_system, indefinite_kpca
from ..native.krylov import get_solver
from ..native.primal_svm import primal_svm_kernel, primal_svm_linear, primal_svm_lowrank
from ..native.pseudo_euclidean import UnsuitableKernelWarning, kernel_suitability, svm_suitability

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


def _check_real(value: Any, name: str, *, low: float | None = None, strict: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(float(value)):
        raise ParameterError(f"{name} must be a finite real number, got {value!r}")
    v = float(value)
    if low is not None and (v <= low if strict else v < low):
        raise ParameterError(f"{name} must be {'>' if strict else '>='} {low}, got {value!r}")
    return v


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


class _NativeKernelBase(BaseEstimator):
    """Kernel choice, input validation and Gram matrices shared by every estimator here."""

    kernel: Any
    gamma: Any
    degree: int
    coef0: float

    def _resolve_kernel(self, X: NDArray[np.float64]) -> Kernel | Callable[..., Any] | None:
        """Return a kernel callable (None for ``"precomputed"``), fixing ``gamma="scale"`` on ``X``."""
        k = self.kernel
        if isinstance(k, Kernel) or (callable(k) and not isinstance(k, str)):
            return k
        if not isinstance(k, str) or k not in _KERNEL_NAMES:
            raise ParameterError(f"kernel must be one of {_KERNEL_NAMES}, a sdpkern Kernel or a callable, got {k!r}")
        if k == "precomputed":
            return None
        if isinstance(self.gamma, str):
            if self.gamma != "scale":
                raise ParameterError(f"gamma must be 'scale' or a positive number, got {self.gamma!r}")
            var = float(X.var())
            gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        else:
            gamma = _check_real(self.gamma, "gamma", low=0.0)
        if k == "linear":
            return Linear()
        if k in ("rbf", "gaussian"):
            return Gaussian(gamma=gamma)
        if k == "laplacian":
            return Laplacian(gamma=gamma)
        if k == "poly":
            return Polynomial(degree=_check_int(self.degree, "degree", 1), gamma=gamma, coef0=float(self.coef0))
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
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


class _BinaryClassifierBase(ClassifierMixin, _NativeKernelBase):
    """Binary classifiers: any two labels mapped to ±1; ``predict`` from ``decision_function``."""

    def _validate_fit(self, X: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        Xa, ya = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(ya)
        n_classes = np.unique(ya).shape[0]
        if n_classes == 1:
            raise LabelError(f"y contains one class only ({np.unique(ya)[0]!r}); {type(self).__name__} needs two")
        if n_classes > 2:
            raise LabelError(
                f"Only binary classification is supported. y contains {n_classes} classes; wrap "
                f"{type(self).__name__} in sklearn.multiclass.OneVsRestClassifier for more"
            )
        y_pm, classes = binary_labels(ya)
        self.classes_ = classes
        return Xa, y_pm

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class labels, ``classes_[1]`` where ``decision_function > 0``."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _gram_operator(kern: Kernel | Callable[..., Any] | None, X: NDArray[np.float64]) -> GramOperator:
    """The training Gram matrix as a :class:`~sdpkern.kernels.gram.GramOperator`: a kernel
    object on X, a user callable ``k(A, B)`` on X, or ``X`` itself (``kernel="precomputed"``)."""
    if kern is None:
        return PrecomputedGram(X, name="X (a precomputed Gram matrix)")
    if isinstance(kern, Kernel):
        return KernelGram(kern, X)
    return CallableGram(kern, X, kind="pairs")


class PrimalSVC(_BinaryClassifierBase):
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
    solver : {"auto", "exact", "lowrank"}, default="auto"
        ``"exact"``: Newton steps on the support-vector block, with kernel columns computed only
        for points that are support vectors at some stage. ``"lowrank"``: 004's "data
        preprocessing", a pivoted incomplete Cholesky ``K ≈ GGᵀ`` (at most ``max_rank`` kernel
        columns) followed by the linear primal SVM on ``G`` — an approximation of the kernel.
        ``"auto"``: ``"exact"`` up to ``n = 2000`` training points (and always for the linear
        or a precomputed kernel), ``"lowrank"`` above; ``solver_`` says which ran.
    max_rank : int or "auto", default="auto"
        Pivot cap of ``"lowrank"``; ``"auto"`` is ``⌈2√n⌉``, so the factorisation costs
        ``O(n r²) = O(n²)`` flops, the order of one pass over the kernel matrix.
    eta : float, default=1e-3
        Incomplete Cholesky stops when every residual diagonal entry of ``K − GGᵀ`` is ``≤ eta``.
    max_iter : int, default=50
        Newton steps.
    random_state : int or None, default=0
        Seed of the recursive half-data warm start (``solver="exact"``, n > 1000).

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

    Examples
    --------
    >>> import numpy as np
    >>> from sdpkern.estimators.native import PrimalSVC
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [3.0, 3.0], [3.0, 4.0]]); y = ["a", "a", "b", "b"]
    >>> PrimalSVC(kernel="linear", C=10.0).fit(X, y).predict([[0.0, 0.5], [3.0, 3.5]]).tolist()
    ['a', 'b']
    """

    _AUTO_EXACT_MAX_N = 2000

    def __init__(
        self,
        *,
        kernel: Any = "rbf",
        C: float = 1.0,
        gamma: Any = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        solver: str = "auto",
        max_rank: int | str = "auto",
        eta: float = 1e-3,
        max_iter: int = 50,
        random_state: int | None = 0,
    ) -> None:
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.max_rank = max_rank
        self.eta = eta
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> PrimalSVC:
        """Fit on ``X`` (n, d) and any two class labels ``y``."""
        Xa, y_pm = self._validate_fit(X, y)
        C = _check_real(self.C, "C", low=0.0)
        max_iter = _check_int(self.max_iter, "max_iter", 1)
        if self.solver not in ("auto", "exact", "lowrank"):
            raise ParameterError(f"solver must be 'auto', 'exact' or 'lowrank', got {self.solver!r}")
        self.coef_: NDArray[np.float64] | None = None
        self.support_vectors_: NDArray[np.float64] | None = None
        kern = self._resolve_kernel(Xa)
        solver = self.solver
        if solver == "auto":
            linear = isinstance(self.kernel, str) and self.kernel == "linear"
            solver = "exact" if linear or kern is None or Xa.shape[0] <= self._AUTO_EXACT_MAX_N else "lowrank"
        self.solver_ = solver
        if solver == "exact" and isinstance(self.kernel, str) and self.kernel == "linear":
            self._kernel_ = Linear()
            res = primal_svm_linear(Xa, y_pm, C, max_iter=max_iter)
            self.coef_ = res.coef[None, :]
            self.intercept_ = res.intercept
            self.support_ = res.support
            self.support_vectors_ = Xa[res.support]
            self.dual_coef_ = np.empty(0)
            self.objective_, self.n_iter_ = res.objective, res.iterations
            return self
        if solver == "exact":
            self._kernel_ = kern
            # kernel blocks on demand: only the columns of support vectors, never n × n
            if kern is None:
                self._fit_kernel(Xa)
            op = _gram_operator(kern, Xa)
            res = primal_svm_kernel(op, y_pm, C, max_iter=max_iter, random_state=self.random_state)
            nz = np.nonzero(res.coef)[0]
            self.support_ = nz
            self.dual_coef_ = res.coef[nz]
            self.intercept_ = res.intercept
            self.objective_, self.n_iter_ = res.objective, res.iterations
        else:
            if kern is None:
                raise ParameterError("solver='lowrank' needs a kernel function, not kernel='precomputed'")
            self._kernel_ = kern
            if isinstance(self.max_rank, str) and self.max_rank == "auto":
                max_rank = int(np.ceil(2.0 * np.sqrt(Xa.shape[0])))
            else:
                max_rank = _check_int(self.max_rank, "max_rank", 1)
            lr = primal_svm_lowrank(
                _gram_operator(kern, Xa),
                y_pm,
                C,
                max_rank=max_rank,
                eta=_check_real(self.eta, "eta", low=0.0, strict=False),
                max_iter=max_iter,
            )
            self.support_ = lr.pivots
            self.dual_coef_ = lr.coef
            self.intercept_ = lr.intercept
            self.objective_, self.n_iter_ = lr.objective, lr.linear.iterations
        self.support_vectors_ = Xa[self.support_] if self._kernel_ is not None else None
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f(x)``; positive means ``classes_[1]``."""
        check_is_fitted(self, "intercept_")
        Xa = validate_data(self, X, dtype=np.float64, reset=False)
        if self.coef_ is not None:
            return Xa @ self.coef_[0] + self.intercept_
        if self._kernel_ is None or self.support_vectors_ is None:
            return Xa[:, self.support_] @ self.dual_coef_ + self.intercept_
        return self._gram(Xa, self.support_vectors_) @ self.dual_coef_ + self.intercept_


class _KrylovMixin:
    """Early-stopping parameters shared by the Krylov estimators."""

    method: str
    n_iter: int | None
    max_iter: int
    cv: int
    random_state: int | None

    def _check_krylov(self, n: int) -> tuple[str, int]:
        get_solver(self.method)
        max_iter = _check_int(self.max_iter, "max_iter", 1)
        _check_int(self.cv, "cv", 2)
        if self.n_iter is not None:
            _check_int(self.n_iter, "n_iter", 1)
        return self.method, max(1, min(max_iter, n))


class KrylovRegressor(_KrylovMixin, RegressorMixin, _NativeKernelBase):
    """Kernel regression ``K α = y − ȳ`` by a Krylov method with early stopping (002 §6.2).

    CGNE on ``K α = y`` early-stopped is kernel partial least squares (002 §5.2.3); MR-II
    minimises the residual over ``S_k(Ky; K)``. Both work for indefinite ``K`` (002 Table 6.1
    uses the squared Euclidean distance). The iteration count is chosen by ``cv``-fold
    cross-validation of the validation squared error (002 §6.2), fixed by ``n_iter``, or by the
    discrepancy principle when ``noise_level`` is given.

    Parameters
    ----------
    kernel, gamma, degree, coef0
        Kernel choice (see the module docstring).
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
    intercept_ : float
        The training mean of ``y``.
    n_iter_ : int
        Iterations used for the final fit.
    cv_loss_ : ndarray or None
        Mean validation MSE per iteration count.
    """

    def __init__(
        self,
        *,
        kernel: Any = "rbf",
        gamma: Any = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        method: str = "cgne",
        n_iter: int | None = None,
        max_iter: int = 30,
        cv: int = 5,
        noise_level: float | None = None,
        tau: float = 1.1,
        random_state: int | None = 0,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.method = method
        self.n_iter = n_iter
        self.max_iter = max_iter
        self.cv = cv
        self.noise_level = noise_level
        self.tau = tau
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> KrylovRegressor:
        """Fit on ``X`` (n, d) and real targets ``y``."""
        Xa, ya = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        method, max_iter = self._check_krylov(Xa.shape[0])
        K = self._fit_kernel(Xa)
        self.intercept_ = float(ya.mean())
        yc = ya - self.intercept_
        self.cv_loss_ = None
        solver = get_solver(method)
        if self.noise_level is not None:
            res = discrepancy_stop(
                K,
                yc,
                _check_real(self.noise_level, "noise_level", low=0.0),
                method=method,
                tau=_check_real(self.tau, "tau", low=1.0),
                maxiter=max_iter,
            )
            alpha, n_iter = res.x, res.iterations
        else:
            if self.n_iter is not None:
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
                    make_fold, Xa.shape[0], method=method, max_iter=max_iter, cv=self.cv, random_state=self.random_state
                )
                n_iter, self.cv_loss_ = choice.n_iter, choice.mean_loss
            alpha, n_iter = _run_partial(solver, K, yc, n_iter)
        self.dual_coef_ = alpha
        self.n_iter_ = n_iter
        self.X_fit_ = Xa
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """``Σ_j α_j k(x, x_j) + ȳ``."""
        check_is_fitted(self, "dual_coef_")
        Xa = validate_data(self, X, dtype=np.float64, reset=False)
        return self._gram(Xa, self.X_fit_) @ self.dual_coef_ + self.intercept_


def _run_partial(solver: Callable[..., Any], A: Any, b: NDArray[np.float64], n_iter: int) -> tuple[Any, int]:
    """Run exactly ``n_iter`` iterations (fewer if the solver converges or breaks down)."""
    from ..errors import BreakdownError

    try:
        res = solver(A, b, maxiter=n_iter, rtol=0.0, atol=0.0)
    except BreakdownError as exc:
        res = exc.result  # type: ignore[attr-defined]
    return res.x, res.iterations


class KrylovFisherDiscriminant(_KrylovMixin, _BinaryClassifierBase):
    """Kernel Fisher discriminant ``N α = μ₊ − μ₋`` by a Krylov method with early stopping (002 §6.3).

    ``μ± = K1±/m±`` and ``N = K(I − 1₊1₊ᵀ/m₊ − 1₋1₋ᵀ/m₋)K`` (applied as two products with
    ``K``, never formed); any symmetric kernel. The offset minimises the training errors of the
    final scores. The iteration count is chosen by stratified ``cv``-fold cross-validation of the
    validation error (with the offset at the midpoint of the projected class means inside the
    folds) or fixed by ``n_iter``.

    Parameters
    ----------
    kernel, gamma, degree, coef0
        Kernel choice (see the module docstring).
    method : {"mr_ii", "cgne", "mr", "cg"}, default="mr_ii"
    n_iter : int or None, default=None
    max_iter : int, default=30
    cv : int, default=5
    random_state : int or None, default=0

    Attributes
    ----------
    classes_, dual_coef_, intercept_, n_iter_, cv_loss_
    """

    def __init__(
        self,
        *,
        kernel: Any = "rbf",
        gamma: Any = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        method: str = "mr_ii",
        n_iter: int | None = None,
        max_iter: int = 30,
        cv: int = 5,
        random_state: int | None = 0,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.method = method
        self.n_iter = n_iter
        self.max_iter = max_iter
        self.cv = cv
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> KrylovFisherDiscriminant:
        """Fit on ``X`` (n, d) and any two class labels ``y``."""
        Xa, y_pm = self._validate_fit(X, y)
        method, max_iter = self._check_krylov(Xa.shape[0])
        K = self._fit_kernel(Xa)
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
                make_fold,
                Xa.shape[0],
                method=method,
                max_iter=max_iter,
                cv=self.cv,
                stratify=y_pm,
                random_state=self.random_state,
            )
            n_iter, self.cv_loss_ = choice.n_iter, choice.mean_loss
        N, rhs, _ = fisher_system(K, y_pm)
        alpha, self.n_iter_ = _run_partial(get_solver(method), N, rhs, n_iter)
        self.dual_coef_ = alpha
        self.intercept_ = best_offset(K @ alpha, y_pm)
        self.X_fit_ = Xa
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``Σ_j α_j k(x, x_j) + b``; positive means ``classes_[1]``."""
        check_is_fitted(self, "dual_coef_")
        Xa = validate_data(self, X, dtype=np.float64, reset=False)
        return self._gram(Xa, self.X_fit_) @ self.dual_coef_ + self.intercept_


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
        Capped at the number of training points.
    kernel, gamma, degree, coef0
        Kernel choice (see the module docstring).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Signed, by decreasing magnitude.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
    """

    def __init__(
        self, *, n_components: int = 2, kernel: Any = "rbf", gamma: Any = "scale", degree: int = 3, coef0: float = 0.0
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X: ArrayLike, y: Any = None) -> IndefiniteKernelPCA:
        """Compute the components of ``X`` (n, d)."""
        Xa = validate_data(self, X, dtype=np.float64)
        k = _check_int(self.n_components, "n_components", 1)
        K = self._fit_kernel(Xa)
        res = indefinite_kpca((K + K.T) / 2, min(k, Xa.shape[0]))
        self.eigenvalues_ = res.eigenvalues
        self.eigenvectors_ = res.eigenvectors
        self._K_fit = K
        self.X_fit_ = Xa
        self._n_out = res.eigenvalues.shape[0]
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


class IndefiniteSVC(_BinaryClassifierBase):
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

    Attributes
    ----------
    suitability_ : SuitabilityReport
    pre_training_suitability_ : SuitabilityReport
    svc_ : sklearn.svm.SVC
    dual_coef_full_ : ndarray of shape (n_samples,)
        ``α_i y_i`` for every training point.
    """

    def __init__(
        self,
        *,
        kernel: Any = "sigmoid",
        C: float = 1.0,
        gamma: Any = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        sign: float = 1.0,
        tol: float = 1e-3,
        max_bounded_ratio: float = 0.5,
    ) -> None:
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.sign = sign
        self.tol = tol
        self.max_bounded_ratio = max_bounded_ratio

    def _signed(self, K: NDArray[np.float64]) -> NDArray[np.float64]:
        return K if self.sign == 1 else -K

    def fit(self, X: ArrayLike, y: ArrayLike) -> IndefiniteSVC:
        """Fit on ``X`` (n, d) and any two class labels ``y``."""
        Xa, y_pm = self._validate_fit(X, y)
        C = _check_real(self.C, "C", low=0.0)
        if self.sign not in (1, -1):
            raise ParameterError(f"sign must be 1 or -1, got {self.sign!r}")
        K = self._signed(self._fit_kernel(Xa))
        K = (K + K.T) / 2
        self.pre_training_suitability_ = kernel_suitability(K)
        if not self.pre_training_suitability_.suitable:
            warnings.warn(
                "IndefiniteSVC: " + "; ".join(self.pre_training_suitability_.reasons),
                UnsuitableKernelWarning,
                stacklevel=2,
            )
        self.svc_ = SVC(kernel="precomputed", C=C, tol=_check_real(self.tol, "tol", low=0.0)).fit(K, y_pm)
        full = np.zeros(Xa.shape[0])
        # libsvm orders classes as sorted labels, so dual_coef_ is α_i y_i with y = ±1 here.
        full[self.svc_.support_] = self.svc_.dual_coef_[0]
        self.dual_coef_full_ = full
        self.suitability_ = svm_suitability(K, full, C, max_bounded_ratio=self.max_bounded_ratio)
        if not self.suitability_.suitable and self.pre_training_suitability_.suitable:
            warnings.warn(
                "IndefiniteSVC: " + "; ".join(self.suitability_.reasons), UnsuitableKernelWarning, stacklevel=2
            )
        self.support_ = self.svc_.support_
        self.intercept_ = float(self.svc_.intercept_[0])
        self.X_fit_ = Xa
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``Σ_i α_i y_i k(x_i, x) + b``; positive means ``classes_[1]``."""
        check_is_fitted(self, "svc_")
        Xa = validate_data(self, X, dtype=np.float64, reset=False)
        Kx = self._signed(self._gram(Xa, self.X_fit_))
        return Kx[:, self.support_] @ self.svc_.dual_coef_[0] + self.intercept_

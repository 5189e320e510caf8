"""scikit-learn estimators that learn the kernel with a hyperkernel (002 Ch. 3).

One base class holds hyperkernel resolution, validation and prediction; concrete estimators
are a docstring, an ``__init__`` and the name of their builder (STYLE.md, item 2).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import binary_labels, check_open_interval, check_positive
from ..builders import hyperkernel as hk_builders
from ..errors import ParameterError
from ..kernels.hyperkernels import HarmonicARD, Hyperkernel
from ..problem import KernelProblem, Solution

__all__ = ["HyperkernelSVC"]


class _HyperkernelBase(BaseEstimator):
    """Shared machinery: resolve the hyperkernel on the training data, build, solve, keep the model."""

    # set by subclasses
    _builder: str = ""
    hyperkernel: Hyperkernel | None
    lambda_h: float
    widths: Any
    lambda_Q: float
    form: str
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
            raise ParameterError(f"hyperkernel must be a sdpkern Hyperkernel or None, got {type(self.hyperkernel).__name__}")
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
        # scikit-learn's convention: an answer the solver does not vouch for is kept with a
        # ConvergenceWarning and a status attribute; infeasible or failed solves still raise
        return problem.solve(backend=self.backend, allow_inaccurate=True, **(self.solver_options or {}))

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
    (1/m) Σ hinge(y_i f(x_i)) + (1/2C)‖f‖²_k + (λ_Q/2)‖k‖²_hyper, by default as the equivalent
    second-order cone program (``form="socp"``; see :mod:`sdpkern.builders.hyperkernel`).
    Defaults are the thesis' experiment settings (002 §3.2): the ARD harmonic hyperkernel
    (eq. 2.22) with λ_h = 0.6 and widths 50× the 90% quantile of |x_i − x_j| per dimension,
    C = 100, λ_Q = 1, 1ᵀβ = 1.

    Parameters
    ----------
    C : float, default=100
    lambda_Q : float, default=1.0
    lambda_h : float, default=0.6
        Used when ``hyperkernel`` is None.
    widths : "auto" or array-like, default="auto"
        Per-dimension widths of the ARD hyperkernel, used when ``hyperkernel`` is None.
    hyperkernel : Hyperkernel or None
        Any sdpkern hyperkernel; overrides ``lambda_h`` and ``widths``.
    form : {"socp", "sdp"}, default="socp"
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
    alpha_ : ndarray (m,)
        Dual coefficients, 0 ≤ α ≤ C/m.
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
        problem = hk_builders.csvm(
            X_arr, y_pm, hk, C=self.C, lambda_Q=self.lambda_Q, form=self.form, eta=self.eta, max_terms=self.max_terms
        )
        solution = self._solve(problem)
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

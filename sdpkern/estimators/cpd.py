"""scikit-learn classifiers with conditionally positive definite kernels (000 §6, §7).

:class:`CPDSVC` fits the squared-hinge SVM of 000 eq. (14) over F_φ ⊕ 𝒫 (or its β = 0 variant,
000 §6.2) with a native Newton solver (the reduced p.d. problem of
:mod:`sdpkern.native.cpd_reduced`, or 000 Algorithm 1 as printed) or through CVXPY.
:class:`ThinPlateSVC` is the same with the thin-plate kernel named by its order: the
classifier of 000 §7 with a single hyper-parameter, λ.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation import check_positive, validate_data
from ..errors import LabelError, ParameterError
from ..kernels.base import Kernel
from ..kernels.cpd import PolynomialFactor, ThinPlate, cpd_decision, polynomial_factor
from ..kernels.gram import KernelGram, ReducedGram, reduced_gram
from ..native.cpd_newton import cpd_primal_svm
from ..native.cpd_reduced import cpd_primal_svm_reduced

__all__ = ["CPDSVC", "ThinPlateSVC", "polynomially_separable"]

Array = NDArray[np.float64]


def polynomially_separable(P: Array, y: Array) -> bool:
    """Whether some p ∈ 𝒫 separates the classes: ∃β with y_i (Pβ)_i ≥ 1 for all i (an LP).

    For the thin-plate kernel of order 2 this is linear separability, the test 000 §7 uses to
    choose the β = 0 variant. An empty polynomial space separates nothing.
    """
    if P.shape[1] == 0:
        return False
    res = linprog(
        c=np.zeros(P.shape[1]),
        A_ub=-(y[:, None] * P),
        b_ub=-np.ones(P.shape[0]),
        bounds=[(None, None)] * P.shape[1],
        method="highs",
    )
    return bool(res.status == 0)


@dataclass(eq=False)
class _Operators:
    """The fit's Gram operators, made on first use and shared by the one-vs-rest models: Φ
    (dense, for 000 Algorithm 1) and the reduced kernel K_Ξ (one column cache for every model)."""

    base: KernelGram
    _dense: Array | None = None
    _reduced: ReducedGram | None = None

    def dense(self) -> Array:
        if self._dense is None:
            self._dense = self.base.kernel(self.base.X)
        return self._dense

    def reduced(self, Q: Array) -> ReducedGram:
        if self._reduced is None:
            self._reduced = reduced_gram(self.base, self.base.X, Q)
        return self._reduced


@dataclass
class _Binary:
    """One fitted binary model: f(x) = Σ α_j φ(x, x_j) + Σ β_k p_k(x)."""

    alpha: Array
    beta: Array
    beta_zero: bool
    objective: float
    n_iter: int
    converged: bool


class CPDSVC(ClassifierMixin, BaseEstimator):
    """Squared-hinge SVM with a conditionally positive definite kernel (000 eq. 14, §6).

    Minimises λ‖P_φ f‖² + Σ_i max(0, 1 − y_i f(x_i))² over f ∈ F_φ ⊕ 𝒫 (000 eq. 14); by the c.p.d.
    representer theorem (000 Theorem 4.6) f(x) = Σ_j α_j φ(x, x_j) + Σ_k β_k p_k(x) with Pᵀα = 0.

    Parameters
    ----------
    kernel : Kernel or None, default=None
        A :class:`~sdpkern.kernels.cpd.CPDKernel`, or any p.d. kernel (empty polynomial space).
        ``None`` means ``ThinPlate(order=2, formula_dimension=2)``: r² log r with the affine
        functions 𝒫 = π_1(R^d), the "second order thin-plate" of 000 §6.1/§7, usable in any d
        (in R² it is exactly ``ThinPlate(2)`` of eq. 11).
    lam : float, default=1.0
        Regularisation λ > 0.
    solver : {"reduced", "native", "cvxpy"}, default="reduced"
        ``"reduced"``: eq. (14) rewritten exactly as a p.d. problem (the reduced kernel K_Ξ on k
        unisolvent points, polynomial part unpenalised; :mod:`sdpkern.native.cpd_reduced`) and
        solved by the primal Newton method of 004 with one kept Cholesky factor, computing kernel
        columns only for points that are violators at some stage: the same optimum as
        ``"native"``, 2-4x faster on 3000 points and without the n × n kernel matrix.
        ``"native"``: 000 Algorithm 1 as printed (step halving, rank-one Cholesky updates).
        ``"cvxpy"``: the CVXPY builder :func:`sdpkern.builders.cpd_svm.squared_hinge`.
        The β = 0 variant always uses Algorithm 1's β = 0 branch (eq. 18) with ``"reduced"``.
    beta_zero : {"auto", True, False}, default="auto"
        Constrain β = 0 (000 §6.2). ``"auto"`` does so exactly when the classes are separable by
        the polynomial space (linearly separable for the thin-plate of order 2), as in 000 §7,
        and 𝒫 does not interpolate all points (rank P < n). On 𝒫-separable data the minimiser
        of eq. (14) is not unique (000 §6.2) and the Newton iteration may stop at ``max_iter``
        with a :class:`~sklearn.exceptions.ConvergenceWarning`.
    update : {"rank_one", "refactor"}, default="rank_one"
        Algorithm 1 (``solver="native"``, and the β = 0 branch): modify the Hessian's Cholesky
        factor as violators change, or refactorise.
    backend : str, default="clarabel"
        CVXPY backend when ``solver="cvxpy"``.
    max_iter : int, default=100
        Newton steps (native solver).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    X_fit_ : ndarray of shape (n_samples, n_features)
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Expansion coefficients (one row per one-vs-rest model for more than two classes).
    beta_ : ndarray of shape (dim 𝒫,) or (n_classes, dim 𝒫)
        Polynomial coefficients (monomials of (x − center)/scale, see ``factor_``).
    beta_zero_ : bool or ndarray of bool
        Whether the β = 0 variant was used.
    objective_ : float or ndarray
        The optimum of 000 eq. (14).
    n_iter_ : int or ndarray
    factor_ : PolynomialFactor
        The polynomial basis and its QR on the training inputs.

    Notes
    -----
    More than two classes: one-vs-rest, labelling by the largest decision value (000 §7, USPS).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.1, random_state=0)
    >>> clf = CPDSVC(lam=1e-3).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    def __init__(
        self,
        *,
        kernel: Kernel | None = None,
        lam: float = 1.0,
        solver: str = "reduced",
        beta_zero: bool | str = "auto",
        update: str = "rank_one",
        backend: str = "clarabel",
        max_iter: int = 100,
    ) -> None:
        self.kernel = kernel
        self.lam = lam
        self.solver = solver
        self.beta_zero = beta_zero
        self.update = update
        self.backend = backend
        self.max_iter = max_iter

    # ------------------------------------------------------------------ helpers
    def _kernel(self) -> Kernel:
        if self.kernel is None:
            return ThinPlate(order=2, formula_dimension=2)
        if not isinstance(self.kernel, Kernel):
            raise ParameterError(f"kernel must be an sdpkern Kernel or None, got {type(self.kernel).__name__}")
        return self.kernel

    def _validate_params(self) -> None:
        check_positive(self.lam, "lam")
        if self.solver not in ("reduced", "native", "cvxpy"):
            raise ParameterError(f"solver must be 'reduced', 'native' or 'cvxpy', got {self.solver!r}")
        if self.beta_zero not in ("auto", True, False):
            raise ParameterError(f"beta_zero must be 'auto', True or False, got {self.beta_zero!r}")
        if self.update not in ("rank_one", "refactor"):
            raise ParameterError(f"update must be 'rank_one' or 'refactor', got {self.update!r}")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1:
            raise ParameterError(f"max_iter must be a positive integer, got {self.max_iter!r}")

    def _fit_binary(self, ops: _Operators, factor: PolynomialFactor, X: Array, ypm: Array) -> _Binary:
        if self.beta_zero == "auto":
            # β = 0 when 𝒫 separates the classes (000 §7), unless 𝒫 interpolates every point
            # (rank P = n: then 𝒫⊥ = {0} and the β = 0 model would be f ≡ 0)
            bz = factor.rank < X.shape[0] and polynomially_separable(factor.P, ypm)
        else:
            bz = bool(self.beta_zero)
        lam = float(self.lam)
        if self.solver == "reduced" and not bz:
            res = cpd_primal_svm_reduced(
                ops.base.kernel, X, factor.Q, ypm, lam, reduced=ops.reduced(factor.Q), max_iter=self.max_iter
            )
            beta = factor.beta_from_bar(res.beta_bar)
            return _Binary(res.alpha, beta, bz, res.objective, res.iterations, res.converged)
        if self.solver in ("native", "reduced"):
            res = cpd_primal_svm(
                ops.dense(), factor.Q, ypm, lam, beta_zero=bz, update=self.update, max_iter=self.max_iter  # type: ignore[arg-type]
            )
            beta = np.zeros(factor.space.dim) if bz else factor.beta_from_bar(res.beta_bar)
            return _Binary(res.alpha, beta, bz, res.objective, res.iterations, res.converged)
        from ..builders.cpd_svm import CPDData, cpd_data, squared_hinge, squared_hinge_beta_zero

        D: CPDData = cpd_data(X, ypm, self._kernel())
        build = squared_hinge_beta_zero if bz else squared_hinge
        sol = build(X, ypm, self._kernel(), C=1.0 / (2.0 * lam), data=D).solve(backend=self.backend)  # λ = 1/(2C)
        model = sol.model
        assert model.alpha is not None and model.beta is not None
        return _Binary(model.alpha, model.beta, bz, float(model.extras["objective_eq14"]), 0, True)

    # ------------------------------------------------------------------ API
    def fit(self, X: Any, y: Any) -> CPDSVC:
        """Fit on X (n_samples, n_features) and labels y (two or more classes)."""
        self._validate_params()
        Xv, yv = validate_data(self, X, y, dtype=np.float64)
        X, y = np.asarray(Xv, dtype=np.float64), np.asarray(yv)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise LabelError(
                f"y has {self.classes_.shape[0]} class; a classifier needs at least 2 classes (one class given: "
                f"{self.classes_.tolist()})"
            )
        kernel = self._kernel()
        self.factor_ = polynomial_factor(X, kernel)
        ops = _Operators(KernelGram(kernel, X))
        self.X_fit_ = X
        if self.classes_.shape[0] == 2:
            fits = [self._fit_binary(ops, self.factor_, X, np.where(y == self.classes_[1], 1.0, -1.0))]
        else:
            fits = [self._fit_binary(ops, self.factor_, X, np.where(y == c, 1.0, -1.0)) for c in self.classes_]
        self.alpha_: Any = np.array([b.alpha for b in fits])
        self.beta_: Any = np.array([b.beta for b in fits]).reshape(len(fits), -1)
        self.beta_zero_: Any = np.array([b.beta_zero for b in fits])
        self.objective_: Any = np.array([b.objective for b in fits])
        self.n_iter_: Any = np.array([b.n_iter for b in fits])
        self.converged_: Any = np.array([b.converged for b in fits])
        if len(fits) == 1:
            self.alpha_, self.beta_ = self.alpha_[0], self.beta_[0]
            self.beta_zero_, self.objective_ = bool(self.beta_zero_[0]), float(self.objective_[0])
            self.n_iter_, self.converged_ = int(self.n_iter_[0]), bool(self.converged_[0])
        return self

    def decision_function(self, X: Any) -> Array:
        """f(x) (binary: shape (n,), positive for ``classes_[1]``) or one column per class."""
        check_is_fitted(self, "alpha_")
        X = np.asarray(validate_data(self, X, reset=False, dtype=np.float64), dtype=np.float64)
        kernel = self._kernel()
        if self.classes_.shape[0] == 2:
            return cpd_decision(kernel, self.X_fit_, self.alpha_, self.factor_, self.beta_, X)
        # one kernel evaluation shared by all one-vs-rest models
        used = np.flatnonzero(np.any(self.alpha_ != 0.0, axis=0))
        K = kernel(X, self.X_fit_[used]) if used.size else np.zeros((X.shape[0], 0))
        out = K @ self.alpha_[:, used].T
        if self.beta_.shape[1]:
            out = out + self.factor_.basis(X) @ self.beta_.T
        return np.asarray(out, dtype=np.float64)

    def predict(self, X: Any) -> NDArray[Any]:
        """Class labels: the sign of f (binary) or the largest one-vs-rest output."""
        f = self.decision_function(X)
        if f.ndim == 1:
            return np.asarray(self.classes_[(f >= 0).astype(int)])
        return np.asarray(self.classes_[np.argmax(f, axis=1)])


class ThinPlateSVC(CPDSVC):
    """The thin-plate SVM of 000 §7: a classifier whose only hyper-parameter is λ.

    Uses ``ThinPlate(order, formula_dimension)`` (000 eq. 11). The default
    ``formula_dimension=2`` gives r² log r with the affine functions 𝒫 = π_1(R^d) in any
    dimension (the "second order thin-plate" of 000 §6.1, dim 𝒫 = d + 1); with
    ``formula_dimension=None`` eq. (11) is evaluated with the data's own d, which needs 2m > d.

    Invariances (000 §5, eq. 13): rotating or translating the inputs leaves the classifier
    unchanged; scaling them by s is the same as multiplying λ by s^{d_f − 2m}.

    Parameters
    ----------
    order : int, default=2
    formula_dimension : int or None, default=2
    lam, solver, beta_zero, update, backend, max_iter
        As in :class:`CPDSVC`.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> X, y = make_circles(60, factor=0.5, noise=0.05, random_state=0)
    >>> bool(ThinPlateSVC(lam=1e-2).fit(X, y).score(X, y) > 0.9)
    True
    """

    def __init__(
        self,
        *,
        order: int = 2,
        formula_dimension: int | None = 2,
        lam: float = 1.0,
        solver: str = "reduced",
        beta_zero: bool | str = "auto",
        update: str = "rank_one",
        backend: str = "clarabel",
        max_iter: int = 100,
    ) -> None:
        self.order = order
        self.formula_dimension = formula_dimension
        super().__init__(
            kernel=None, lam=lam, solver=solver, beta_zero=beta_zero, update=update, backend=backend, max_iter=max_iter
        )

    def _kernel(self) -> Kernel:
        return ThinPlate(order=self.order, formula_dimension=self.formula_dimension)

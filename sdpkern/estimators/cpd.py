"""scikit-learn classifiers with conditionally positive definite kernels (000 §6, §7).

:class:`CPDSVC` fits the squared-hinge SVM of 000 eq. (14) over F_φ ⊕ 𝒫 (or its β = 0 variant,
000 §6.2); :class:`ThinPlateSVC` is the same with the thin-plate kernel named by its order: the
classifier of 000 §7 with a single hyper-parameter, C = 1/(2λ) (docs/conventions.md). A fit is
:func:`sdpkern.native.cpd.fit_cpd` on a workspace of its own (:class:`~sdpkern.native.cpd.CPDWorkspace`),
or on one of a :class:`~sdpkern.native.cpd.CPDMemory` passed as ``memory`` (a grid search).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    DEPRECATED,
    Interval,
    Options,
    pass_threads,
    take_deprecated,
    validate_data,
    warn_if_not_unisolvent,
)
from ..kernels.base import Kernel
from ..kernels.cpd import ThinPlate
from ..native.cpd import CPDMemory, CPDWorkspace, fit_cpd
from ..native.cpd import polynomial_separator as polynomial_separator  # re-exported for old imports
from ..native.cpd import polynomially_separable as polynomially_separable
from ..native.dual_svm import _one_blas_thread
from ._base import KernelClassifierMixin, SdpkernEstimator, deprecated_attribute, point_weights

# the workspace's helpers are re-exported for old imports but documented where they live
# (sdpkern.native.cpd): an object documented under two modules breaks the source pages' links
__all__ = ["CPDSVC", "ThinPlateSVC"]

Array = NDArray[np.float64]

_POSITIVE = Interval(Real, 0, None, closed="neither")


@dataclass(kw_only=True, eq=False, repr=False)
class _CPDBase(KernelClassifierMixin, SdpkernEstimator):
    """What :class:`CPDSVC` and :class:`ThinPlateSVC` share: parameters, fitting, prediction."""

    C: float = 1.0
    lam: Any = DEPRECATED
    solver: str = "auto"
    beta_zero: bool | str = "auto"
    update: str = "rank_one"
    backend: str = "clarabel"
    max_iter: int = 100
    tol: float = 1e-3
    class_weight: Any = None
    scale: Any = 1.0
    memory: CPDMemory | None = None
    n_jobs: int | None = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "C": [_POSITIVE],
        "lam": [Options({DEPRECATED}), _POSITIVE],
        "solver": [Options({"auto", "dual", "reduced", "native", "cvxpy"})],
        "beta_zero": [Options({"auto"}), "boolean"],
        "update": [Options({"rank_one", "refactor"})],
        "backend": [str],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [_POSITIVE],
        "class_weight": [dict, Options({"balanced"}), None],
        "scale": [Options({"auto"}), _POSITIVE],
        "memory": [CPDMemory, None],
        "n_jobs": [Integral, None],
    }
    converged_ = deprecated_attribute("status_", "converged_", convert=lambda s: s == "optimal")

    # ------------------------------------------------------------------ helpers
    def _kernel(self) -> Kernel:
        raise NotImplementedError

    def _C(self) -> float:
        lam_to_C = lambda lam: 1.0 / (2.0 * float(lam))  # noqa: E731
        return float(take_deprecated(type(self).__name__, "lam", self.lam, "C", self.C, convert=lam_to_C, stacklevel=6))

    def _scale_of(self, X: Array) -> float:
        """The length the inputs are divided by: ``scale``, or for "auto" √(n_features · Var(X))
        (scikit-learn's ``gamma="scale"`` statistic) with every point counted as often as its
        weight says (sample_weight × class_weight: a weight-2 point is a repeated point), 1 where
        that is 0."""
        if self.scale != "auto":
            return float(self.scale)
        y, sample_weight = self.__dict__.get("_fit_args", (None, None))
        w = None if y is None else point_weights(np.ravel(np.asarray(y)), sample_weight, self.class_weight)
        if w is None:
            var = float(X.var())
        else:
            mean = float(w @ X.sum(axis=1)) / (X.shape[1] * float(w.sum()))
            var = float(w @ ((X - mean) ** 2).sum(axis=1)) / (X.shape[1] * float(w.sum()))
        s = float(np.sqrt(X.shape[1] * var))
        return s if np.isfinite(s) and s > 0.0 else 1.0

    def _shared_state(self, X: Array) -> tuple[CPDWorkspace, float]:
        """The workspace of the fit (the one-vs-rest models share it), on the scaled inputs, and
        the scale."""
        scale = self._scale_of(X)
        Xs = X / scale if scale != 1.0 else X
        if self.memory is None:
            return CPDWorkspace(self._kernel(), Xs), scale
        ws = self.memory.take(self._kernel(), Xs)
        self.__dict__.setdefault("_taken", []).append(ws)  # given back at the end of fit
        return ws, scale

    def _fit_binary(
        self, X: Array, ypm: Array, weights: Array | None, shared: tuple[CPDWorkspace, float]
    ) -> None:  # fmt: skip
        ws, self.scale_ = shared
        fit = fit_cpd(
            ws, ypm, self._C(), sample_weight=weights, solver=self.solver, beta_zero=self.beta_zero,
            tol=float(self.tol), max_iter=int(self.max_iter), update=self.update, backend=self.backend,
            n_jobs=pass_threads(self.n_jobs),
        )  # fmt: skip
        # the polynomial basis on the raw inputs: the same monomials of (x/s − c)/σ = (x − sc)/(sσ)
        f0, sc = ws.factor, self.scale_
        self.factor_ = f0 if sc == 1.0 else replace(f0, center=f0.center * sc, scale=f0.scale * sc)
        self.alpha_, self.beta_ = fit.alpha, fit.beta
        self.beta_zero_: Any = fit.beta_zero  # one bool; one-vs-rest: an array of them
        self.objective_: Any = fit.objective
        self.n_iter_, self.status_ = fit.n_iter, fit.status
        self.solver_: Any = fit.solver  # one str; one-vs-rest: a list of them
        self.certificate_ = fit.certificate
        self.support_ = np.flatnonzero(fit.alpha)
        self.dual_coef_ = fit.alpha[self.support_]
        self.support_vectors_ = X[self.support_]
        self.intercept_ = float(fit.beta[0]) if fit.beta.shape[0] else 0.0
        self.backend_ = self.backend if fit.solver == "cvxpy" else None
        if fit.status != "optimal":
            import warnings

            warnings.warn(
                f"{type(self).__name__}: the {fit.solver} route returned status {fit.status!r} "
                f"({fit.certificate.get('measure')} {fit.certificate.get('value')})",
                ConvergenceWarning,
                stacklevel=4,
            )

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        super()._store_one_vs_rest(models)
        self.factor_ = models[0].factor_
        self.scale_ = models[0].scale_
        self.solver_ = [m.solver_ for m in models]
        self.alpha_ = np.array([m.alpha_ for m in models])
        self.beta_ = np.array([m.beta_ for m in models]).reshape(len(models), -1)
        self.beta_zero_ = np.array([m.beta_zero_ for m in models])
        self.objective_ = np.array([m.objective_ for m in models])
        self.backend_ = models[0].backend_
        self.support_vectors_ = np.empty((len(self.support_), self.n_features_in_))
        for m in models:  # the rows of the union of the supports
            self.support_vectors_[np.searchsorted(self.support_, m.support_)] = m.support_vectors_

    # ------------------------------------------------------------------ API
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> _CPDBase:
        """Fit on X (n_samples, n_features) and labels y (one-vs-rest for more than two classes).

        ``sample_weight`` (n_samples,) weights each point's loss: point i's C is
        C · sample_weight_i · class_weight[y_i] (docs/conventions.md), i.e. eq. (14)'s loss term
        Σ w_i max(0, 1 − y_i f(x_i))²; a weight-2 point is a repeated point.
        """
        self._fit_args = (y, sample_weight)  # (read by _shared_state, after validation)
        with nullcontext() if self.solver == "cvxpy" else _one_blas_thread():
            try:
                fitted = self._fit_classifier(X, y, sample_weight)
            except BaseException:
                self.__dict__.pop("_taken", None)  # (a fit cut short may leave its workspace half updated)
                raise
            finally:
                del self._fit_args
            for ws in self.__dict__.pop("_taken", []):
                assert self.memory is not None
                self.memory.give_back(ws)
            # routes that may disagree say why (input validation, after the fit has checked X;
            # in the one-thread block: threads made its small SVD 100× slower on a busy machine)
            warn_if_not_unisolvent(self._kernel(), X, sample_weight, type(self).__name__, rank=self.factor_.rank)
        return fitted  # type: ignore[no-any-return]

    def _decision_binary(self, X: Array) -> Array:
        """Σ_i c_i φ(x_i/s, x/s) + Σ_k β_k p_k(x) (000 Theorem 4.6; the constant monomial's β is b;
        s = ``scale_``; ``factor_`` evaluates the monomials on the raw inputs)."""
        s = self.scale_
        K = self._kernel()(X / s, self.support_vectors_ / s) if len(self.support_) else np.zeros((X.shape[0], 0))
        out = K @ self.dual_coef_
        if self.beta_.shape[0]:
            out = out + self.factor_.basis(X) @ self.beta_
        return np.asarray(out, dtype=np.float64)

    def decision_function(self, X: ArrayLike) -> Array:
        """f(x) (binary: shape (n,), positive for ``classes_[1]``) or one column per class.

        One-vs-rest evaluates the kernel once, on the union of the models' supports.
        """
        check_is_fitted(self, "dual_coef_")
        if "estimators_" not in self.__dict__:
            return super().decision_function(X)
        Xa = np.asarray(validate_data(self, X, reset=False, dtype=np.float64), dtype=np.float64)
        s = self.scale_
        K = self._kernel()(Xa / s, self.support_vectors_ / s) if len(self.support_) else np.zeros((Xa.shape[0], 0))
        out = K @ self.dual_coef_.T
        if self.beta_.shape[1]:
            out = out + self.factor_.basis(Xa) @ self.beta_.T
        return np.asarray(out, dtype=np.float64)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``), as
        scikit-learn's ``ClassifierMixin.score``.

        Unweighted, with ``y`` a vector of the labels' own dtype (integral values when floating),
        the fraction of matches is counted directly; otherwise, and for every input scikit-learn's
        ``accuracy_score`` would reject, that function decides (and raises): its target-type
        checks cost as much as scoring a small fold in a grid search.
        """
        from sklearn.metrics import accuracy_score

        pred = self.predict(X)
        ya = np.asarray(y)
        if (
            sample_weight is None
            and ya.ndim == 1
            and ya.shape == pred.shape
            and ya.dtype == pred.dtype
            and ya.dtype.kind in "biuUf"
            and ya.size
            and (ya.dtype.kind != "f" or bool(np.all(np.isfinite(ya)) and np.all(ya == np.round(ya))))
        ):
            return float(np.mean(ya == pred))
        return float(accuracy_score(y, pred, sample_weight=sample_weight))


@dataclass(kw_only=True, eq=False, repr=False)
class CPDSVC(_CPDBase):
    """Squared-hinge SVM with a conditionally positive definite kernel (000 eq. 14, §6).

    Minimises ½‖P_φ f‖² + C Σ_i max(0, 1 − y_i f(x_i))² over f ∈ F_φ ⊕ 𝒫: 000 eq. (14),
    λ‖P_φ f‖² + Σ ξ_i², divided by 2λ, so C = 1/(2λ) (docs/conventions.md: scikit-learn's C, as
    ``LinearSVC(loss="squared_hinge")``). By the c.p.d. representer theorem (000 Theorem 4.6)
    f(x) = Σ_j α_j φ(x, x_j) + Σ_k β_k p_k(x) with Pᵀα = 0.

    Parameters
    ----------
    kernel : Kernel or None, default=None
        A :class:`~sdpkern.kernels.cpd.CPDKernel`, or any p.d. kernel (empty polynomial space, no
        intercept). ``None`` means ``ThinPlate(order=2, formula_dimension=2)``: r² log r with the
        affine functions 𝒫 = π_1(R^d), the "second order thin-plate" of 000 §6.1/§7, usable in
        any d (in R² it is exactly ``ThinPlate(2)`` of eq. 11).
    C : float, default=1.0
        Weight of the squared hinge loss, C = 1/(2λ) with 000's λ.
    lam : float, deprecated
        000's λ; use ``C = 1 / (2 * lam)``. Passing it warns (``FutureWarning``) and sets C so.
    solver : {"auto", "dual", "reduced", "native", "cvxpy"}, default="auto"
        The route (:func:`sdpkern.native.cpd.fit_cpd`; ``solver_`` says which ran). ``"auto"``
        chooses among the first two (docs/cpd.md, "Which route").
        ``"dual"``: eq. (14) in the dual on the reduced kernel K_Ξ, by sdpkern's SMO core
        (:mod:`sdpkern.native.svm_core`: libsvm's working-set selection, kernel columns from a
        capped cache; the polynomial constraints by an augmented Lagrangian) to ``tol``, with a
        closing Newton step when it costs less than the SMO would.
        ``"reduced"``: eq. (14) rewritten exactly as a p.d. problem (the reduced kernel K_Ξ on k
        unisolvent points, polynomial part unpenalised; :func:`sdpkern.native.cpd.cpd_primal_svm_reduced`)
        solved by the primal Newton method of 004 with one kept Cholesky factor, computing kernel
        columns only for points that are violators at some stage.
        ``"native"``: 000 Algorithm 1 as printed (step halving, rank-one Cholesky updates).
        ``"cvxpy"``: the CVXPY builder :func:`sdpkern.builders.cpd_svm.squared_hinge`.
        The β = 0 variant: with ``"auto"`` and no weights, Chapelle's Newton method on the kernel
        of f (:func:`sdpkern.native.cpd.cpd_beta_zero_svm`, the same steps as eq. 18's in systems
        of order |s|; ``solver_`` "beta_zero"); with ``"cvxpy"`` the builder; otherwise
        Algorithm 1's β = 0 branch (eq. 18).
    beta_zero : {"auto", True, False}, default="auto"
        Constrain β = 0 (000 §6.2). ``"auto"`` does so exactly when the classes are separable by
        the polynomial space (linearly separable for the thin-plate of order 2), as in 000 §7,
        and 𝒫 does not interpolate all points (rank P < n). Separability is decided by the
        least-squares fit when it separates, else — when that fit misclassifies at least 10 %
        of the points — by the β-free fit itself, whose slacks ξ ≠ 0 with Pᵀ(y∘ξ) = 0 prove
        inseparability (Farkas), else by an LP. On 𝒫-separable data the minimiser of eq. (14)
        is not unique (000 §6.2): with ``beta_zero=False`` the fit then returns α = 0 and the
        least-squares polynomial scaled to margin 1 when that separates (an exact minimiser,
        objective 0); otherwise the Newton iteration may stop at ``max_iter`` with a
        :class:`~sklearn.exceptions.ConvergenceWarning`.
    update : {"rank_one", "refactor"}, default="rank_one"
        Algorithm 1 (``solver="native"``, and the β = 0 branch): modify the Hessian's Cholesky
        factor as violators change, or refactorise.
    backend : str, default="clarabel"
        CVXPY backend when ``solver="cvxpy"``.
    max_iter : int, default=100
        Newton steps (Newton solvers; the dual solver's cap is max(10⁷, 100 n) SMO steps).
    tol : float, default=1e-3
        Every route's certificate threshold: the dual's KKT tolerance, libsvm's meaning (the
        maximal violating pair, margin units, as scikit-learn's ``SVC(tol=1e-3)``); the Newton
        routes' stationarity (``certificate_``).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each class's C, as scikit-learn's ``SVC`` (``fit`` also takes
        ``sample_weight``): point i's loss is C · sample_weight_i · class_weight[y_i] ·
        max(0, 1 − y_i f(x_i))². Every solver but ``"native"`` takes weights (its β = 0 branch
        does too); the β = 0 choice of ``beta_zero="auto"`` looks at the points of positive weight.
    scale : "auto" or float, default=1.0
        The inputs are divided by this length before the kernel (and at prediction). ``"auto"``:
        √(n_features · Var(X)) of the training inputs, scikit-learn's ``gamma="scale"`` statistic.
        For the thin-plate kernels this fixes the units C is measured in, not the model family:
        by 000 eq. (13), the model on X/s with C is the model on X with C·s^(d_f − 2m).
    memory : CPDMemory or None, default=None
        Reuse across fits on the same points, opt-in (:class:`~sdpkern.native.cpd.CPDMemory`):
        the kernel columns, the polynomial factor and the separability test of a fold are then
        computed once in a grid search over C; the models are the same bits as without.
    n_jobs : int or None, default=None
        Threads of the dual route's SMO (libsvm runs one): its passes over the points from 4096
        points on, and the rows of the kernel columns it computes where a column reads 2¹⁶
        numbers or more (n(d + 2k + 16), k the polynomials). None: two where the process may use two cores, fewer where
        ``OMP_NUM_THREADS`` says so (joblib's workers set it to their share of the cores, so a
        parallel grid search is not oversubscribed), as scikit-learn's OpenMP estimators use the
        cores unasked; an int as scikit-learn's ``n_jobs`` (−1: every core). The model is the
        same bits for any number.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    dual_coef_ : ndarray of shape (n_SV,) or (n_classes, n_SV)
        α on ``support_`` (one row per one-vs-rest model, over the union of the supports).
    support_ : ndarray of int
        Training indices with α_i ≠ 0, sorted.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    intercept_ : float or ndarray of shape (n_classes,)
        b, the coefficient of the constant monomial (0 for a p.d. kernel, which has no 𝒫).
    beta_ : ndarray of shape (dim 𝒫,) or (n_classes, dim 𝒫)
        Polynomial coefficients on ``factor_.basis`` (monomials of (x − center)/scale, the
        constant first: ``beta_[..., 0]`` is ``intercept_``). f(x) = Σ_i c_i φ(x_i, x) +
        ``factor_.basis(x) @ beta_``.
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        α on every training point (zero off the support).
    beta_zero_ : bool or ndarray of bool
        Whether the β = 0 variant was used.
    objective_ : float or ndarray
        The optimum of 000 eq. (14) (in its own scaling, with λ = 1/(2C)).
    n_iter_ : int
        The route's iterations (SMO steps for ``"dual"``, Newton steps otherwise).
    solver_ : str or list of str
        The route that ran (one per one-vs-rest model): "dual", "reduced", "native",
        "beta_zero", "cvxpy", or "separator" (𝒫 separates the classes and its least-squares fit,
        scaled to margin 1, minimises eq. (14) exactly).
    scale_ : float
        The length the inputs were divided by.
    status_ : str
        ``"optimal"`` when the solver certified its optimum, ``"iteration_limit"`` when Newton's
        active set had not settled at ``max_iter`` (one-vs-rest: the worst).
    certificate_ : dict
        ``{"measure": "stationarity", "value": ‖α − 2C w y∘ξ‖∞ / max(1, ‖α‖∞), "tol": tol}``, zero
        exactly at the optimum of eq. (14) (with β = 0: the gradient's component in 𝒫⊥,
        :func:`sdpkern.native.cpd.stationarity`; the dual adds its ``"kkt_violation"``).
    backend_ : str or None
        The CVXPY backend that ran (``solver="cvxpy"``), else ``None``.
    factor_ : PolynomialFactor
        The polynomial basis and its QR on the training inputs.

    Notes
    -----
    More than two classes: one-vs-rest, labelling by the largest decision value (000 §7, USPS).
    The one-vs-rest models share the kernel columns they compute.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.1, random_state=0)
    >>> clf = CPDSVC(C=500.0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95), clf.status_
    (True, 'optimal')
    """

    kernel: Kernel | None = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_CPDBase._parameter_constraints,
        "kernel": [Kernel, None],
    }

    def _kernel(self) -> Kernel:
        return ThinPlate(order=2, formula_dimension=2) if self.kernel is None else self.kernel


@dataclass(kw_only=True, eq=False, repr=False)
class ThinPlateSVC(_CPDBase):
    """The thin-plate SVM of 000 §7: a classifier whose only hyper-parameter is C (= 1/(2λ)).

    Uses ``ThinPlate(order, formula_dimension)`` (000 eq. 11). The default
    ``formula_dimension=2`` gives r² log r with the affine functions 𝒫 = π_1(R^d) in any
    dimension (the "second order thin-plate" of 000 §6.1, dim 𝒫 = d + 1); with
    ``formula_dimension=None`` eq. (11) is evaluated with the data's own d, which needs 2m > d.

    Invariances (000 §5, eq. 13): rotating or translating the inputs leaves the classifier
    unchanged; scaling them by s is the same as multiplying λ by s^{d_f − 2m} (C by its inverse).
    Hence the default ``scale="auto"``: the inputs are divided by √(n_features · Var(X)) first,
    so that C means the same whatever the data's units (with the raw units, C = 1 on inputs in
    the thousands is C ≈ 10⁶ on unit inputs: a hard margin, and a slow solve).

    Parameters
    ----------
    order : int, default=2
    formula_dimension : int or None, default=2
    scale : "auto" or float, default="auto"
        As in :class:`CPDSVC`; ``scale=1.0`` fits the raw inputs.
    C, lam, solver, beta_zero, update, backend, max_iter, tol, class_weight, memory, n_jobs
        As in :class:`CPDSVC` (``lam`` deprecated: C = 1/(2λ)); ``fit`` takes ``sample_weight``.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> X, y = make_circles(60, factor=0.5, noise=0.05, random_state=0)
    >>> bool(ThinPlateSVC(C=50.0).fit(X, y).score(X, y) > 0.9)
    True
    """

    order: int = 2
    formula_dimension: int | None = 2
    scale: Any = "auto"

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_CPDBase._parameter_constraints,
        "order": [Interval(Integral, 1, None)],
        "formula_dimension": [Interval(Integral, 1, None), None],
    }

    def _kernel(self) -> Kernel:
        return ThinPlate(order=self.order, formula_dimension=self.formula_dimension)

"""scikit-learn estimators that learn the kernel with a hyperkernel (002 Ch. 3).

One base class holds the shared parameters (a keyword-only dataclass: each is declared once),
hyperkernel resolution, building, solving and the fitted model; a concrete estimator is a
docstring, its own parameters and the builder it calls (STYLE.md, item 2). Every model
predicts with f(x) = Σ_i c_i k(x_i, x) + b, k the learned kernel (002 eq. 2.15):
``dual_coef_`` holds c on ``support_``, ``intercept_`` holds b (docs/conventions.md).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any, ClassVar, Literal, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import OutlierMixin, RegressorMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import Interval, Options, validate_data
from ..backends import get_backend
from ..builders import hyperkernel as hk_builders
from ..builders.hyperkernel._common import ExpansionDecision
from ..errors import DataError, DegenerateKernelWarning, InsufficientMemoryError, ParameterError
from ..kernels.hyperkernel_terms import sampled_basis
from ..kernels.hyperkernels import ARDDictionary, HarmonicARD, Hyperkernel
from ..kernels.lowrank import HyperkernelBasis
from ..kernels.relevance import HSICScreen, hsic_screen
from ..native.hyperkernel_families import (
    hyperkernel_alignment_native,
    hyperkernel_l2svm_native,
    hyperkernel_nu_regression_native,
    hyperkernel_nusvm_native,
    hyperkernel_one_class_native,
    nu_feasible_bound,
    regression_targets,
)
from ..native.hyperkernel_master import (
    NativeDecision,
    NativeMasterResult,
    available_memory,
    column_cache_bytes,
    estimate_fit_bytes,
    hyperkernel_csvm_native,
)
from ..native.svm_core import WORKING_SET
from ..problem import KernelProblem, Model, Solution
from ._base import KernelClassifierMixin, SdpkernEstimator, deprecated_attribute

__all__ = [
    "HyperkernelSVC",
    "HyperkernelNuSVC",
    "HyperkernelL2SVC",
    "HyperkernelOneClassSVM",
    "HyperkernelNuSVR",
    "HyperkernelAlignment",
]

_T = TypeVar("_T")
Array = NDArray[np.float64]

#: solver="auto" runs the native master from this many training points on. Measured (same
#: process, wdbc / pima / banana, objectives equal to 1e-9 relative): with the default width
#: ladder, m = 30: cone generation on Clarabel 0.55 / 0.29 / 0.17 s, the native master 0.19 /
#: 0.14 / 0.05 s; m = 100: 6.7 / 2.6 / 1.0 s against 1.0 / 0.55 / 0.08 s. With the thesis' single
#: width (widths=1.0) m = 30: 0.11-0.19 s against 0.04-0.07 s. Below 30 both take well under a
#: second and the conic path keeps the smallest problems on the solver-certified SOCP.
NATIVE_FROM = 30
#: Candidate pairs of the native path's sampled basis (:func:`sdpkern.kernels.hyperkernel_terms.sampled_basis`);
#: below m = 100 every pair is a candidate and the basis is the conic path's.
NATIVE_MAX_PAIRS = 5000
#: solver_options the native master accepts.
_NATIVE_OPTIONS = frozenset(
    {"tol", "max_rounds", "max_steps", "time_limit", "cache_bytes", "smo_tol", "n_jobs", "working_set",
     "working_set_cache_bytes", "newton_points"}
)  # fmt: skip

#: ρ of ``lambda_Q="auto"`` for the dictionary hyperkernel's C-SVM (:meth:`HyperkernelSVC._auto_lambda_Q`).
AUTO_LAMBDA_Q = 0.01

_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_NU = Interval(Real, 0, 1, closed="right")


@dataclass(kw_only=True, eq=False, repr=False)
class _HyperkernelBase(SdpkernEstimator):
    """Parameters and machinery every hyperkernel estimator shares.

    Parameters
    ----------
    lambda_Q : float or "auto", default="auto"
        Hyperkernel regularisation λ_Q (002 eq. 3.8): the weight of the learned kernel's norm in
        the hyper-RKHS. ``"auto"``: for the default dictionary hyperkernel, a fixed fraction of the
        loss's scale (``_auto_lambda_Q``); for any other hyperkernel the thesis' λ_Q = 1 (002 §3.2).
    lambda_h : float, default=0.6
        λ_h of the harmonic ARD kernels (002 eqs. 2.21-2.22), used when ``hyperkernel`` is None.
    widths : "auto" or array-like, default="auto"
        Per-dimension widths σ_d, used when ``hyperkernel`` is None; "auto" is the thesis rule,
        50× the 90% quantile of ``|x_i − x_j|`` per dimension (002 §3.2).
    width_scales : "ladder" or float or array-like, default="ladder"
        Multipliers c of ``widths``, used when ``hyperkernel`` is None; ``"ladder"`` is 4^0 … 4^-5
        (:data:`~sdpkern.kernels.hyperkernels.LADDER_SCALES`).
    screening_level : float in (0, 1) or None, default=0.05
        With the default hyperkernel, the family-wise level of the per-feature HSIC tests that
        choose the dictionary's second relevance vector (:func:`~sdpkern.kernels.relevance.hsic_screen`);
        None keeps one relevance vector (every feature).
    hyperkernel : Hyperkernel or None
        None (default): the dictionary :class:`~sdpkern.kernels.hyperkernels.ARDDictionary` of
        harmonic ARD kernels over ``width_scales`` × relevance vectors (every feature, and the
        features the screen selects), whose learned weights choose widths and features. Any
        sdpkern hyperkernel instead: e.g. ``HarmonicARD()`` with ``width_scales``-free widths is
        the thesis' hyperkernel (002 eq. 2.22) over a pivoted Cholesky basis of training pairs
        (002 §3.2.1); ``lambda_h``, ``widths``, ``width_scales`` and ``screening_level`` then do
        not apply.
    form : {"socp", "sdp"}, default="socp"
        The equivalent SOCP (:mod:`sdpkern.builders.hyperkernel`) or the SDP as printed.
    eta : float, default=1e-4
        Tolerance of the pivoted incomplete Cholesky basis (002 §3.2.1; not for the dictionary).
    max_terms : int or None, default=150
        Cap on the number of basis terms (not for the dictionary).
    backend : str, default="clarabel"
        The conic solver CVXPY calls.
    solver_options : dict or None
        Passed to the solver: the conic route maps ``max_iter``, ``tol``, ``time_limit`` per
        backend; the native route takes ``tol`` (relative gap, 1e-6), ``max_rounds``,
        ``max_steps``, ``time_limit`` (seconds), ``cache_bytes`` (the column caches' memory; by
        default all m columns of the learned kernel, at least 1 GiB), ``smo_tol``, ``n_jobs`` (threads
        for the certificate's ½uᵀK_l u over all basis terms; 1), ``working_set`` (above this many
        points, 30,000, each SVM solve is a decomposition over working sets of about that size),
        ``working_set_cache_bytes`` (their SMO's column cache, 3 GiB) and ``newton_points``
        (Newton β steps while at most this many inner variables are free, 20,000; 0 for the level
        bundle's steps only, also for the alignment, whose β steps otherwise minimise D on a
        subspace: :mod:`sdpkern.native.fractional_model`).
    random_state : int or None, default=0
        Seeds the random sample of the width rule.
    solver : {"auto", "conic", "native"}, default="auto"
        ``"conic"``: the SOCP (or SDP) through CVXPY (``backend``). ``"native"``: the same SOCP by
        constraint generation with a native restricted master
        (:func:`~sdpkern.native.hyperkernel_master.solve_master`: the family's inner problem on the
        SMO core with kernel columns on demand, a level-bundle β step, a certificate by the
        relative duality gap over the whole basis; a pair hyperkernel's basis sampled over the pair
        features, :func:`~sdpkern.kernels.hyperkernel_terms.sampled_basis`). ``"auto"``: native
        from ``NATIVE_FROM`` = 30 training points on where it applies (``form="socp"``, and not
        ``active_set=False``, which asks for the full SOCP through CVXPY; the alignment with
        ``ridge`` > 0).
    progress : bool or None, default=None
        A tqdm bar with the current gap during a native fit; None shows it from 5000 points on.
    """

    lambda_Q: Any = "auto"
    lambda_h: float = 0.6
    widths: Any = "auto"
    width_scales: Any = "ladder"
    screening_level: float | None = 0.05
    hyperkernel: Hyperkernel | None = None
    form: str = "socp"
    eta: float = 1e-4
    max_terms: int | None = 150
    backend: str = "clarabel"
    solver_options: dict[str, Any] | None = None
    random_state: int | None = 0
    solver: str = "auto"
    progress: bool | None = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "solver": [Options({"auto", "conic", "native"})],
        "progress": ["boolean", None],
        "lambda_Q": [Options({"auto"}), _NON_NEGATIVE],
        "lambda_h": [Interval(Real, 0, 1, closed="neither")],
        "screening_level": [Interval(Real, 0, 1, closed="neither"), None],
        "widths": [Options({"auto"}), Interval(Real, 0, None, closed="neither"), "array-like"],
        "width_scales": [Options({"ladder"}), Interval(Real, 0, None, closed="neither"), "array-like"],
        "hyperkernel": [Hyperkernel, None],
        "form": [Options({"socp", "sdp"})],
        "eta": [_NON_NEGATIVE],
        "max_terms": [Interval(Integral, 1, None), None],
        "backend": [str],
        "solver_options": [dict, None],
        "random_state": ["random_state"],
    }

    # ------------------------------------------------------------------ fitting
    def _more_validation(self) -> None:
        if self.hyperkernel is None and not (isinstance(self.widths, str) and self.widths == "auto"):
            w = np.asarray(self.widths, dtype=float)
            if w.ndim > 1 or not np.all(np.isfinite(w)) or np.any(w <= 0):
                raise ParameterError(f"widths must be 'auto' or positive numbers, got {self.widths!r}")
        if self.hyperkernel is None and not (isinstance(self.width_scales, str) and self.width_scales == "ladder"):
            bad = isinstance(self.width_scales, str)
            if not bad:
                c = np.asarray(self.width_scales, dtype=float)
                bad = c.ndim > 1 or c.size == 0 or not np.all(np.isfinite(c)) or bool(np.any(c <= 0))
            if bad:
                raise ParameterError(f"width_scales must be 'ladder' or positive numbers, got {self.width_scales!r}")

    def _resolve_hyperkernel(self, X: Array) -> Hyperkernel:
        """The hyperkernel with its data-dependent parameters resolved on X (widths: 002 §3.2)."""
        hk = self.hyperkernel
        if hk is None:
            scales = self.width_scales if isinstance(self.width_scales, str) else np.atleast_1d(self.width_scales)
            w = self.widths if isinstance(self.widths, str) else np.asarray(self.widths, dtype=float)
            if not isinstance(w, str) and w.ndim == 0:
                w = np.full(X.shape[1], float(w))
            return ARDDictionary(self.lambda_h, w, scales).fitted(X, random_state=self.random_state)
        if isinstance(hk, (HarmonicARD, ARDDictionary)):
            return hk.fitted(X, random_state=self.random_state)
        hk.check()
        return hk

    def _dictionary_basis(
        self, hk: ARDDictionary, X: Array, y: Array | None, classification: bool, weights: Array | None = None
    ) -> HyperkernelBasis:
        """The dictionary's basis on X (its terms' scales weighted by ``weights``), with the
        relevance vector of the features the HSIC screen selects on (X, y) added when it is
        neither empty nor every feature.

        The screen sees each distinct training point of positive weight once: a repeated point
        (or an integer weight) is no new evidence of dependence, and so integer weights and
        repeated points give the same screen."""
        self.screening_: HSICScreen | None = None
        if y is not None and self.screening_level is not None and self.hyperkernel is None:
            keep = np.ones(X.shape[0], dtype=bool) if weights is None else np.asarray(weights) > 0
            Xk, yk = X[keep], y[keep]
            code = np.unique(yk, return_inverse=True)[1].ravel() if classification else yk.astype(np.float64)
            first = np.sort(np.unique(np.column_stack([Xk, code]), axis=0, return_index=True)[1])
            if first.size >= 6:
                screen = hsic_screen(
                    Xk[first], yk[first], level=self.screening_level, classification=classification,
                    random_state=self.random_state,
                )  # fmt: skip
                self.screening_ = screen
                if screen.selected.any() and not screen.selected.all():
                    R = np.vstack([hk.relevance_array(X.shape[1]), screen.selected.astype(float)])
                    hk = hk.with_relevances(R)
        return hk.basis(X, sample_weight=weights)

    def _basis(self, X: Array, y: Array | None = None, *, classification: bool = True) -> HyperkernelBasis:
        """The dictionary's basis (screened on y), or for a pair hyperkernel the conic route's
        pivoted incomplete Cholesky basis on X or the native route's sampled one (002 §3.2.1);
        the memory estimate checked first."""
        solver = self._resolve_solver(X.shape[0])
        self._check_memory(X, solver)
        hk = self._resolve_hyperkernel(X)
        if isinstance(hk, ARDDictionary):
            return self._dictionary_basis(hk, X, y, classification)
        if solver == "conic":
            return hk_builders.make_basis(X, hk, None, self.eta, self.max_terms)
        return sampled_basis(
            hk, X, eta=self.eta, max_terms=self.max_terms, max_pairs=NATIVE_MAX_PAIRS, random_state=self.random_state
        )

    def _lambda_Q(self, basis: HyperkernelBasis, weights: Array | None) -> float:
        """λ_Q as a number: the parameter, or its ``"auto"`` rule for this basis."""
        if self.lambda_Q != "auto":
            value = float(self.lambda_Q)
        elif isinstance(basis.hyperkernel, ARDDictionary):
            value = self._auto_lambda_Q(basis.X.shape[0], weights)
        else:
            value = 1.0  # the thesis' λ_Q (002 §3.2)
        value *= getattr(self, "_lambda_Q_factor", 1.0)  # a classifier's correction of a collapse
        self.lambda_Q_ = value
        return value

    def _auto_lambda_Q(self, m: int, weights: Array | None) -> float:
        """λ_Q of the dictionary hyperkernel with ``lambda_Q="auto"``: the thesis' 1 unless a family states its rule."""
        return 1.0

    def _store_learned_kernel(self, basis: HyperkernelBasis, beta: Array) -> None:
        """What the learned kernel is made of, for a dictionary hyperkernel: ``kernel_weights_``
        (β as relevance vectors × widths), ``width_weights_``, ``relevances_``, ``feature_relevance_``."""
        hk = basis.hyperkernel
        if not isinstance(hk, ARDDictionary):
            return
        R = hk.relevance_array(basis.X.shape[1])
        W = np.asarray(beta, dtype=np.float64).reshape(R.shape[0], -1)
        self.relevances_ = R
        self.kernel_weights_ = W
        self.width_weights_ = W.sum(axis=0)
        self.feature_relevance_ = W.sum(axis=1) @ R

    # ------------------------------------------------------------------ routes
    def _native_unavailable(self) -> str | None:
        """Why ``solver="native"`` cannot run with these parameters (None: it can)."""
        if self.form != "socp":
            return "solver='native' solves the SOCP form; use form='socp' (or solver='conic')"
        return None

    def _resolve_solver(self, m: int) -> str:
        """"conic" or "native" for m training points (see ``solver``)."""
        get_backend(self.backend)  # a misspelt or missing backend is an error whichever path runs
        reason = self._native_unavailable()
        if self.solver == "native":
            if reason is not None:
                raise ParameterError(reason)
            return "native"
        route = "native" if self.solver == "auto" and reason is None and m >= NATIVE_FROM else "conic"
        self._check_route_options(route, m)
        return route

    def _check_route_options(self, route: str, m: int) -> None:
        """ParameterError for ``solver_options`` only the other route takes, naming the route that
        runs and why (``solver="auto"`` chooses by m; an option must never be dropped unsaid)."""
        opts = set(self.solver_options or {})
        other = opts & (_NATIVE_OPTIONS - {"tol", "time_limit"}) if route == "conic" else opts - _NATIVE_OPTIONS
        if not other:
            return
        native_fits = self._native_unavailable() is None
        if route == "conic":
            why = (f"solver='auto' runs the conic route below NATIVE_FROM = {NATIVE_FROM} training points (m = {m})"
                   if self.solver == "auto" and native_fits else f"{type(self).__name__} runs the conic route here")
            hint = "pass solver='native' or leave them out" if native_fits else "leave them out"
            raise ParameterError(
                f"solver_options {sorted(other)} are options of the native solver, but {why}; {hint} (the conic "
                f"route takes tol, max_iter, time_limit and {self.backend}'s own settings)"
            )
        if self.solver == "auto":
            raise ParameterError(
                f"solver_options {sorted(other)} are not options of the native solver, which solver='auto' runs from "
                f"NATIVE_FROM = {NATIVE_FROM} training points on (m = {m}); pass solver='conic' to give them to "
                f"{self.backend}, or use the native solver's {sorted(_NATIVE_OPTIONS)}"
            )

    def _check_memory(self, X: Array, solver: str) -> None:
        """InsufficientMemoryError before any large allocation when the fit cannot fit in memory."""
        m, d = X.shape
        opts = self.solver_options or {}
        ws = {k: int(opts[k]) for k in ("working_set", "working_set_cache_bytes", "newton_points") if k in opts}
        given = opts.get("cache_bytes")
        cache = column_cache_bytes(
            m, None if given is None else int(given), dense=self._dense_native,
            working_set=ws.get("working_set", WORKING_SET),
        )  # fmt: skip
        est = estimate_fit_bytes(
            m, d, solver=solver, max_terms=self.max_terms or 150, max_pairs=NATIVE_MAX_PAIRS, cache_bytes=cache,
            dense=self._dense_native, **ws,
        )  # fmt: skip
        avail = available_memory()
        if avail is not None and est > avail:
            if solver != "native":
                hint = "use solver='native'"
            elif self._dense_native:
                hint = "use fewer training points (the native alignment holds two m × m matrices)"
            else:
                hint = "lower solver_options['cache_bytes'] or ['newton_points'] (the Newton step's matrix)"
            raise InsufficientMemoryError(
                f"{type(self).__name__} with solver={solver!r} on m = {m} training points needs about "
                f"{est / 1e9:.2f} GB, more than the {avail / 1e9:.2f} GB available; {hint}",
                n_samples=m, estimate_bytes=est, available_bytes=avail,
            )  # fmt: skip

    #: whether the native route holds dense m × m matrices (the alignment's inner solve)
    _dense_native: ClassVar[bool] = False
    #: whether the native master's ``outputs`` minus its offset are the training decision values
    #: (the C-SVM's K(β)(y∘α)); the other families' inner vectors are scaled differently
    _native_outputs_are_decisions: ClassVar[bool] = False

    def _native_options(self) -> dict[str, Any]:
        """``solver_options`` for the native master, checked: ParameterError for one it does not take."""
        opts = dict(self.solver_options or {})
        unknown = set(opts) - _NATIVE_OPTIONS
        if unknown:
            raise ParameterError(
                f"solver_options {sorted(unknown)} are not options of the native solver; "
                f"it takes {sorted(_NATIVE_OPTIONS)}"
            )
        return opts

    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        """The family's native master on ``basis`` with the estimator's parameters and ``options``."""
        raise NotImplementedError

    def _fit_native(
        self, basis: HyperkernelBasis, y: Array | None, weights: Array | None, t0: float
    ) -> NativeMasterResult:
        """Fit by the native master (``solver_ == "native"``), the model kept as :meth:`_store_native`.

        An answer the master does not certify (a time or step limit) is kept for inspection with a
        ``ConvergenceWarning``; its serving methods raise ``UncertifiedModelError``."""
        opts = self._native_options()
        if isinstance(basis.hyperkernel, ARDDictionary):
            # a dictionary has a few terms (relevance vectors × widths): starting from all of them
            # saves the rounds of adding them (half the inner solves on the benchmark sets)
            opts = {"initial_terms": basis.size} | opts
        m = basis.X.shape[0]
        show = m >= 5000 if self.progress is None else bool(self.progress)
        r = self._solve_native(basis, y, weights, opts | {"progress": show})
        if r.status != "optimal":
            warnings.warn(
                f"{type(self).__name__}'s native solver stopped with status {r.status!r} at relative gap {r.gap:.2e}; "
                "the model is the best point so far, kept for inspection but not served "
                "(raise solver_options['max_steps'] or 'time_limit')",
                ConvergenceWarning, stacklevel=4,
            )  # fmt: skip
        self._store_native(basis, r, time.perf_counter() - t0)
        return r

    def _store_native(self, basis: HyperkernelBasis, r: NativeMasterResult, fit_time: float) -> None:
        """The fitted attributes of a native fit (the same names as ``_store``)."""
        self.basis_, self.hyperkernel_ = basis, basis.hyperkernel
        self.beta_ = r.beta
        self.alpha_: Array | None = r.alpha
        self._store_learned_kernel(basis, r.beta)
        decision = None if r.coef is None or self._dense_native else NativeDecision(basis, r.beta, r.coef, r.offset)
        self.model_ = Model(
            alpha=r.alpha, offset=r.offset, beta=r.beta, decision=decision, extras={"gap": r.gap, **r.extras}
        )
        self.objective_, self.status_ = r.objective, r.status
        self.backend_: str | None = None  # no CVXPY backend ran
        self.solver_ = "native"
        self.certificate_ = {
            "measure": "relative duality gap",
            "value": r.gap,
            "max_omitted_cone_violation": r.max_violation,
        }
        self.active_terms_: NDArray[np.intp] | None = r.terms
        self.max_violation_: float | None = r.max_violation
        self.n_iter_: int | None = r.steps
        self.n_terms_, self.fit_time_, self.solve_time_ = basis.size, fit_time, r.total_time
        if decision is not None:
            assert r.coef is not None
            self.support_ = np.flatnonzero(r.coef)
            self.dual_coef_ = np.asarray(r.coef[self.support_], dtype=np.float64)
            self.intercept_ = -float(r.offset)

    def _solve(self, problem: KernelProblem) -> Solution:
        # the whole problem in one call: cone generation, when wanted, runs in _build_and_solve
        return self._run(
            lambda backend, opts: problem.solve(backend=backend, allow_inaccurate=True, method="direct", **opts)
        )

    def _run(self, run: Callable[[str, dict[str, Any]], _T]) -> _T:
        # scikit-learn's convention: an answer the solver does not vouch for is kept with a
        # ConvergenceWarning and a status attribute; infeasible or failed solves still raise.
        # Solver trouble is handled by KernelProblem.solve's recovery policy (another backend
        # among others), which records every attempt; ``backend_`` is the one that answered.
        return run(self.backend, dict(self.solver_options or {}))

    def _build_and_solve(
        self, build: Callable[..., KernelProblem], X: Array, y: Array | None, basis: HyperkernelBasis, **params: Any
    ) -> tuple[KernelProblem, Solution]:
        """Build the problem with ``build`` (a builder of :mod:`sdpkern.builders.hyperkernel`) on
        ``basis`` and solve it in one go."""
        args = (X,) if y is None else (X, y)
        problem = build(*args, basis.hyperkernel, form=_form(self.form), basis=basis, **params)
        self.max_violation_ = None
        return problem, self._solve(problem)

    def _store(self, problem: KernelProblem, solution: Solution, fit_time: float) -> None:
        """Keep the fitted model: the family's own values and the conventions' c, b, support."""
        self.basis_ = problem.data["basis"]
        self.hyperkernel_ = self.basis_.hyperkernel
        assert solution.beta is not None  # every hyperkernel builder's solution has β
        self.beta_ = solution.beta
        self.alpha_ = solution.alpha
        # what predict needs: the decision, not the m×m learned kernel matrix
        self.model_ = replace(solution.model, kernel_matrix=None)
        self._store_learned_kernel(self.basis_, solution.beta)
        self.objective_ = solution.objective
        self.status_ = solution.status
        self.backend_ = solution.backend
        self.certificate_ = {
            "measure": "solver status",
            "value": solution.solver_status,
            "max_omitted_cone_violation": self.max_violation_,
            **(solution.certificate.as_dict() if solution.certificate is not None else {}),
            "recovery": solution.recovery,
        }
        self.attempts_ = solution.attempts
        self.n_terms_ = self.basis_.size
        self.solver_ = "conic"
        self.fit_time_ = fit_time
        self.solve_time_ = solution.total_time
        self.n_iter_ = solution.iterations
        decision = solution.model.decision
        if isinstance(decision, ExpansionDecision):
            self.support_ = np.flatnonzero(decision.coef)
            self.dual_coef_ = np.asarray(decision.coef[self.support_], dtype=np.float64)
            self.intercept_ = -float(decision.offset)

    def _decision_binary(self, X: Array) -> Array:
        assert self.model_.decision is not None
        return self.model_.decision(X)

    def learned_kernel(self, X: ArrayLike, Y: ArrayLike | None = None) -> Array:
        """The learned kernel k(X, Y) = Σ_l β_l k̲(pair_l, (X, Y)) (002 eq. 2.15)."""
        check_is_fitted(self, "beta_")
        Xa = validate_data(self, X, reset=False)
        Ya = Xa if Y is None else validate_data(self, Y, reset=False)
        return self.basis_.learned_kernel(self.beta_, Xa, Ya)


@dataclass(kw_only=True, eq=False, repr=False)
class _GeneratedHyperkernel(_HyperkernelBase):
    """The SOCP forms that constraint generation solves (002 eqs. 3.8-3.12).

    Parameters
    ----------
    active_set : bool, default=True
        With ``form="socp"``, generate the SOCP's cones
        (:func:`~sdpkern.builders.hyperkernel.cone_generation`): start from a few basis terms
        and add the violated ones until none is, which certifies the full SOCP's optimum. Same
        optimum, far faster when few terms carry weight; ``False`` solves the full SOCP in one go
        (through CVXPY: ``solver="native"`` always generates the cones).
    """

    active_set: bool = True

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_HyperkernelBase._parameter_constraints,
        "active_set": ["boolean"],
    }

    def _native_unavailable(self) -> str | None:
        if not self.active_set:
            return (
                "solver='native' always generates the cones; active_set=False (the full SOCP in one "
                "solve) needs solver='conic'"
            )
        return super()._native_unavailable()

    def _build_and_solve(
        self, build: Callable[..., KernelProblem], X: Array, y: Array | None, basis: HyperkernelBasis, **params: Any
    ) -> tuple[KernelProblem, Solution]:
        """Solve by cone generation when ``form="socp"`` and ``active_set`` (same optimum,
        certified by the largest omitted-cone violation), else in one go."""
        self.active_terms_: NDArray[np.intp] | None = None
        if not (self.form == "socp" and self.active_set):
            return super()._build_and_solve(build, X, y, basis, **params)

        def run(backend: str, opts: dict[str, Any]) -> tuple[KernelProblem, Solution]:
            problem, solution, trace = hk_builders.cone_generation(
                build, X, y, basis.hyperkernel, basis=basis, backend=backend, allow_inaccurate=True,
                solve_options=opts, **params,
            )  # fmt: skip
            self.active_terms_, self.max_violation_ = trace.terms, trace.max_violation
            return problem, solution

        return self._run(run)


def _form(value: str) -> Literal["sdp", "socp"]:
    """The ``form`` parameter, checked by ``_validate_params`` before any build."""
    return cast(Literal["sdp", "socp"], value)


@dataclass(kw_only=True, eq=False, repr=False)
class _HyperkernelClassifier(KernelClassifierMixin, _GeneratedHyperkernel):
    """Binary hyperkernel classifiers; one-vs-rest (sharing the basis) for more classes."""

    #: tenfold reductions of a λ_Q whose learned kernel separates nothing (:meth:`_fit_binary`)
    _LAMBDA_Q_CORRECTIONS: ClassVar[int] = 3

    _builder: ClassVar[Callable[..., KernelProblem]]
    #: the estimator's parameters the builder takes under the same names (``C``, ``nu``,
    #: ``lambda_Q``): the builders take scikit-learn's C and convert it themselves
    _builder_param_names: ClassVar[tuple[str, ...]]

    def _builder_params(self, basis: HyperkernelBasis, weights: Array | None) -> dict[str, Any]:
        """The builder's own parameters, read off the estimator (λ_Q resolved for ``basis``)."""
        params = {name: getattr(self, name) for name in self._builder_param_names}
        if "lambda_Q" in params:
            params["lambda_Q"] = self._lambda_Q(basis, weights)
        return params

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        """The stacked one-vs-rest attributes, and what the models' learned kernels weigh on
        average: ``feature_relevance_`` and ``width_weights_`` (each model's own are on
        ``estimators_``)."""
        super()._store_one_vs_rest(models)
        if all(hasattr(m, "feature_relevance_") for m in models):
            self.feature_relevance_ = np.mean([m.feature_relevance_ for m in models], axis=0)
            self.width_weights_ = np.mean([m.width_weights_ for m in models], axis=0)

    def _shared_state(self, X: Array) -> HyperkernelBasis | ARDDictionary:
        """The basis the one-vs-rest models share, or the dictionary each screens on its labels."""
        hk = self._resolve_hyperkernel(X)
        if isinstance(hk, ARDDictionary):  # its terms' scales depend on each model's weights
            return hk
        return self._basis(X)

    def _binary_basis(
        self, X: Array, y_pm: Array, shared: HyperkernelBasis | ARDDictionary, weights: Array | None
    ) -> HyperkernelBasis:
        if isinstance(shared, HyperkernelBasis):
            self.screening_ = None
            return shared
        self._check_memory(X, self._resolve_solver(X.shape[0]))
        return self._dictionary_basis(shared, X, y_pm, True, weights)

    def _check_binary(self, y_pm: Array) -> None:
        """Checks of a binary problem's labels before any work (the ν-SVM's feasible ν)."""

    def _fit_binary(self, X: Array, y_pm: Array, weights: Array | None, shared: Any) -> None:
        """One binary fit. Above a threshold λ_Q collapses the learned kernel towards a constant
        (docs/kernel_learning.md) and the model predicts one class for every training point:
        such a λ_Q is divided by 10, at most ``_LAMBDA_Q_CORRECTIONS`` times, with a
        :class:`~sdpkern.errors.DegenerateKernelWarning` naming the λ_Q asked and the one used
        (``lambda_Q_``)."""
        self._lambda_Q_factor = 1.0
        asked = None
        for _ in range(self._LAMBDA_Q_CORRECTIONS + 1):
            decision = self._fit_binary_once(X, y_pm, weights, shared)
            if not self._separates_nothing(X, y_pm, weights, decision):
                break
            asked = self.lambda_Q_ if asked is None else asked
            self._lambda_Q_factor /= 10.0
        else:
            hint = "" if self.hyperkernel is None else "; the default hyperkernel (hyperkernel=None) may learn one"
            warnings.warn(
                f"{type(self).__name__}: the learned kernel separates nothing (every training point is "
                f"predicted in one class) at lambda_Q = {asked:g} nor at {self.lambda_Q_:g} with "
                f"{type(self.hyperkernel_).__name__}: not a matter of lambda_Q (the data or their weights){hint}",
                DegenerateKernelWarning, stacklevel=4,
            )  # fmt: skip
            return
        if asked is not None:
            warnings.warn(
                f"{type(self).__name__}: at lambda_Q = {asked:g} the learned kernel separates nothing (every "
                f"training point is predicted in one class); corrected to lambda_Q = {self.lambda_Q_:g} (lambda_Q_)",
                DegenerateKernelWarning, stacklevel=4,
            )  # fmt: skip

    def _fit_binary_once(self, X: Array, y_pm: Array, weights: Array | None, shared: Any) -> Array | None:
        """Fit at λ_Q·``_lambda_Q_factor``; returns the training decision values when the solver has them."""
        t0 = time.perf_counter()
        self._check_binary(y_pm)
        if self._resolve_solver(X.shape[0]) == "native":
            self._native_options()  # an unknown option fails before the basis is built
            basis = self._binary_basis(X, y_pm, shared, weights)
            r = self._fit_native(basis, y_pm, weights, t0)
            return r.outputs - r.offset if self._native_outputs_are_decisions and r.outputs is not None else None
        basis = self._binary_basis(X, y_pm, shared, weights)
        build = type(self)._builder
        params = self._builder_params(basis, weights) | ({} if weights is None else {"sample_weight": weights})
        problem, solution = self._build_and_solve(build, X, y_pm, basis, **params)
        self._store(problem, solution, time.perf_counter() - t0)
        return None

    def _separates_nothing(self, X: Array, y_pm: Array, weights: Array | None, decision: Array | None) -> bool:
        """Whether a certified model puts every training point of positive weight in one class
        although both classes have such points (``decision``: the training decision values, or None)."""
        keep = np.ones(y_pm.shape[0], dtype=bool) if weights is None else np.asarray(weights) > 0
        if np.unique(y_pm[keep]).size < 2 or self.status_ not in ("optimal", "optimal_inaccurate"):
            return False
        f = self._decision_binary(X[keep]) if decision is None else decision[keep]
        return bool(np.all(f > 0) or np.all(f <= 0))

    def fit(self, X: ArrayLike, y: ArrayLike) -> Any:
        """Learn the kernel and the classifier from training data (one-vs-rest for more than two classes)."""
        return self._fit_classifier(X, y)

    offset_ = deprecated_attribute("intercept_", "offset_", convert=lambda b: -np.asarray(b))


@dataclass(kw_only=True, eq=False, repr=False)
class _WeightedHyperkernelClassifier(_HyperkernelClassifier):
    """The C-forms, whose loss weights are a per-point C (docs/conventions.md): ``class_weight``
    and ``fit(sample_weight=)``, passed to the builder as ``sample_weight``.

    The ν-forms (:class:`HyperkernelNuSVC`) take none: their box is 1/m per point and ν bounds
    the fraction of margin errors and support vectors, a count of points that weights would
    turn into a weighted fraction the formulation (002 eq. 3.9) does not state.
    """

    class_weight: Any = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_GeneratedHyperkernel._parameter_constraints,
        "class_weight": [dict, Options({"balanced"}), None],
    }

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Any:
        """Learn the kernel and the classifier (one-vs-rest for more than two classes); point i's
        C is C · sample_weight_i · class_weight[y_i]."""
        return self._fit_classifier(X, y, sample_weight)


@dataclass(kw_only=True, eq=False, repr=False)
class HyperkernelSVC(_WeightedHyperkernelClassifier):
    """C-SVM that learns its kernel with a hyperkernel (002 eq. 3.8).

    Solves min over kernels k in the hyper-RKHS and classifiers f of
    (1/m) Σ hinge(y_i f(x_i)) + (λ/2)‖f‖²_k + (λ_Q/2)‖k‖²_hyper with C = 1/(λm), by default as
    the equivalent second-order cone program (``form="socp"``; see :mod:`sdpkern.builders.hyperkernel`).
    The default hyperkernel is :class:`~sdpkern.kernels.ARDDictionary` (an explicit hyperkernel,
    002 eq. 2.23): harmonic ARD kernels with λ_h = 0.6 over the thesis' widths (50× the 90%
    quantile of ``|x_i − x_j|`` per dimension, 002 §3.2) times a ladder 4^0 … 4^-5, for every
    feature and for the features an HSIC screen selects, each of unit centred trace; 1ᵀβ = 1,
    λ_Q = 0.01·C·Σ_i w_i and C = 1. β then chooses among widths and features
    (``kernel_weights_``, ``feature_relevance_``; docs/kernel_learning.md).
    ``hyperkernel=HarmonicARD(), C=100.0, lambda_Q=1.0`` is the thesis' setting.

    Parameters
    ----------
    C : float, default=1
        scikit-learn's C (its ``SVC`` default): the box of the dual is 0 ≤ α ≤ C. Eq. (3.8)
        writes the loss as (C'/m)·1ᵀξ with C' = 1/λ = C·m; the builder
        (:func:`~sdpkern.builders.hyperkernel.csvm`, which takes the same C) converts. The
        thesis' C = 1/(λm) = 100 (002 §3.2) with the width ladder overfits low-dimensional data:
        banana m = 1000 / 2000, 11.63 ± 0.61 / 10.96 ± 0.90 % test error against 9.78 ± 0.57 /
        9.73 ± 0.30 % for a tuned RBF SVC; with C = 1, 10.21 ± 0.40 / 9.64 ± 0.62 %, and pima,
        wdbc, twonorm and ringnorm stay within one standard deviation of the tuned SVC
        (docs/hyperkernel.md). The default dictionary learns its mixture at C = 1
        (docs/kernel_learning.md).
    lambda_Q, lambda_h, widths, width_scales, screening_level, hyperkernel
        Shared by the hyperkernel estimators (see ``_HyperkernelBase``): λ_Q (``"auto"``:
        0.01·C·Σ_i w_i with the default dictionary), the ARD kernels' λ_h, widths ("auto":
        002 §3.2's rule) and width multipliers ("ladder"), the HSIC screen's level, any
        hyperkernel instead (``HarmonicARD()`` with ``C=100.0`` is the thesis' setting).
    form, eta, max_terms, backend, solver_options, random_state
        ``"socp"``/``"sdp"``, the basis tolerance and term cap (002 §3.2.1), the CVXPY backend and
        its options, the width rule's seed (see ``_HyperkernelBase``).
    active_set : bool, default=True
        Solve the SOCP by constraint generation over its cones (same optimum, certified).
    class_weight : dict, "balanced" or None, default=None
        Per-class loss weights, as scikit-learn's ``SVC``: with ``fit``'s ``sample_weight``,
        point i's C is C · sample_weight_i · class_weight[y_i] (the box 0 ≤ α_i ≤ C·w_i, on the
        conic and the native route alike).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_SV,) (or (n_classes, n_SV) one-vs-rest)
        c_i = y_i α_i on ``support_``: f(x) = Σ_i c_i k(x_i, x) + b with the learned kernel k.
    support_ : ndarray of int
    intercept_ : float (or ndarray of shape (n_classes,))
        b.
    alpha_ : ndarray of shape (m,)
        Dual variables, 0 ≤ α ≤ C.
    beta_ : ndarray of shape (p,)
        Learned weights of the basis kernels (non-negative, sum 1).
    kernel_weights_ : ndarray of shape (n_relevances, n_widths)
        With the default dictionary: ``beta_`` as relevance vectors × widths, the weights of
        terms each of unit centred trace on the training points (docs/kernel_learning.md).
    width_weights_ : ndarray of shape (n_widths,)
        ``kernel_weights_`` summed over the relevance vectors.
    relevances_ : ndarray of shape (n_relevances, n_features)
        The dictionary's relevance vectors: every feature, then the screened features.
    feature_relevance_ : ndarray of shape (n_features,)
        Each feature's share of the learned kernel, Σ_{r,s} β_{r,s} r (one-vs-rest: the binary
        models' mean).
    screening_ : HSICScreen or None
        The HSIC screen's statistics, p-values and selection (one-vs-rest: on each binary model).
    lambda_Q_ : float
        The λ_Q used (``lambda_Q="auto"``'s value).
    active_terms_ : ndarray or None
        Basis terms whose cones the final restricted SOCP kept (``active_set=True``).
    basis_ : HyperkernelBasis
    status_, backend_, certificate_
        The solve's status (docs/conventions.md), the CVXPY backend that answered (``None`` when
        the native master ran, ``solver_ == "native"``), and how it was certified.
    solver_ : str
        ``"conic"`` or ``"native"``: the route ``solver`` chose.
    objective_, n_terms_, fit_time_, solve_time_, n_iter_
    estimators_ : list
        One-vs-rest only: the binary models (each with the attributes above).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import train_test_split
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=60, random_state=0, stratify=y)
    >>> clf = HyperkernelSVC().fit(X_tr, y_tr)
    >>> float(clf.score(X_te, y_te)) > 0.8
    True
    """

    C: float = 1.0
    _native_outputs_are_decisions = True

    _builder = hk_builders.csvm
    # C goes to the builder as scikit-learn's C (it converts to eq. (3.8)'s C' = C·m)
    _builder_param_names = ("C", "lambda_Q")
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_WeightedHyperkernelClassifier._parameter_constraints,
        "C": [_POSITIVE],
    }

    def _auto_lambda_Q(self, m: int, weights: Array | None) -> float:
        """λ_Q = ρ·C·Σ_i w_i: a fixed fraction ρ of the largest value of the SVM part 1ᵀα of the
        objective (0 ≤ α_i ≤ C w_i), so that the regulariser weighs the same against the loss at
        every m and C (:data:`AUTO_LAMBDA_Q`)."""
        total = float(m) if weights is None else float(np.sum(weights))
        return AUTO_LAMBDA_Q * self.C * total


    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        assert y is not None
        lq = self._lambda_Q(basis, weights)
        return hyperkernel_csvm_native(basis, y, C=self.C, lambda_Q=lq, sample_weight=weights, **options)


@dataclass(kw_only=True, eq=False, repr=False)
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
    lambda_Q, lambda_h, widths, width_scales, hyperkernel, form, active_set, eta, max_terms, backend, solver_options,
    random_state
        As for :class:`HyperkernelSVC`.

    Attributes
    ----------
    dual_coef_ : ndarray
        c = y∘α on ``support_``.
    alpha_ : ndarray
        0 ≤ α ≤ 1/m.
    beta_ : ndarray
        The learned kernel weights (sum 1).
    classes_, support_, intercept_, basis_, status_, backend_, certificate_, objective_, n_terms_
        As for :class:`HyperkernelSVC`; also ``fit_time_``, ``solve_time_``, ``n_iter_``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = HyperkernelNuSVC().fit(X[:60], y[:60])
    >>> float(clf.score(X[60:120], y[60:120])) > 0.8
    True
    """

    nu: float = 0.3
    # the ν-SVM's cone vector is its coefficient vector y∘α (002 eq. 3.9), so K(β)u − b is f
    _native_outputs_are_decisions = True

    def _auto_lambda_Q(self, m: int, weights: Array | None) -> float:
        """λ_Q = ρ·ν: the ν-SVM's dual budget (0 ≤ α_i ≤ 1/m, Σα ≥ ν, 002 eq. 3.9) plays the C-SVM's
        C·Σw (:data:`AUTO_LAMBDA_Q`); the thesis' λ_Q = 1 outweighs it and keeps β at the
        dictionary's uniform mixture."""
        return AUTO_LAMBDA_Q * self.nu

    _builder = hk_builders.nusvm
    _builder_param_names = ("nu", "lambda_Q")
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_GeneratedHyperkernel._parameter_constraints,
        "nu": [_NU],
    }

    def _check_binary(self, y_pm: Array) -> None:
        bound = nu_feasible_bound(y_pm)
        if self.nu > bound * (1 + 1e-12):
            raise ParameterError(
                f"nu={self.nu!r} is infeasible for the class balance: {type(self).__name__} needs "
                f"0 < nu <= 2 min(m+, m-)/m = {bound:.4g} ({int(np.sum(y_pm > 0))} and {int(np.sum(y_pm < 0))} "
                "points per class); lower nu or balance the classes"
            )

    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        assert y is not None
        return hyperkernel_nusvm_native(basis, y, nu=self.nu, lambda_Q=self._lambda_Q(basis, None), **options)


@dataclass(kw_only=True, eq=False, repr=False)
class HyperkernelL2SVC(_WeightedHyperkernelClassifier):
    """Lagrangian (L2 soft margin) SVM that learns its kernel with a hyperkernel (002 eq. 3.10).

    Solves min ½(‖f‖² + b²) + C Σξ_i² + (λ_Q/2)‖k‖_hyper with y_i f(x_i) ≥ 1 − ξ_i, by default
    as the equivalent SOCP (:func:`sdpkern.builders.hyperkernel.l2svm`); the decision function
    is f(x) = Σ α_j y_j k(x, x_j) + yᵀα.

    Parameters
    ----------
    C : float, default=50
        scikit-learn's C of the squared hinge: the loss is C Σ ξ_i² (as
        ``LinearSVC(loss="squared_hinge")``), eq. (3.10)'s (C'/2) Σ ξ_i² with C' = 1/(λm) = 2C;
        the default is the thesis' C' = 100 (§3.2). The builder converts.
    lambda_Q, lambda_h, widths, width_scales, hyperkernel, form, active_set, eta, max_terms, backend, solver_options,
    random_state
        As for :class:`HyperkernelSVC`.
    class_weight : dict, "balanced" or None, default=None
        Per-class loss weights: with ``fit``'s ``sample_weight``, the loss is
        C Σ sample_weight_i · class_weight[y_i] · ξ_i² (:func:`~sdpkern.builders.hyperkernel.l2svm`).

    Attributes
    ----------
    classes_, dual_coef_ (c = y∘α), support_, intercept_ (b = yᵀα), alpha_, beta_, basis_,
    status_, backend_, certificate_, objective_, n_terms_, fit_time_, solve_time_, n_iter_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = HyperkernelL2SVC().fit(X[:60], y[:60])
    >>> float(clf.score(X[60:120], y[60:120])) > 0.8
    True
    """

    C: float = 50.0
    # u = y∘α is the coefficient vector and the offset is −yᵀα (002 eq. 3.10): K(β)u − b is f
    _native_outputs_are_decisions = True

    _builder = hk_builders.l2svm
    _builder_param_names = ("C", "lambda_Q")
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_WeightedHyperkernelClassifier._parameter_constraints,
        "C": [_POSITIVE],
    }

    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        assert y is not None
        lq = self._lambda_Q(basis, weights)
        return hyperkernel_l2svm_native(basis, y, C=self.C, lambda_Q=lq, sample_weight=weights, **options)


@dataclass(kw_only=True, eq=False, repr=False)
class HyperkernelOneClassSVM(OutlierMixin, _GeneratedHyperkernel):
    """Novelty detection that learns its kernel with a hyperkernel (002 eq. 3.11).

    The decision function is f(x) = Σ_j α_j k(x, x_j) − ρ (002 Example 13: η − ξ on the
    training points); ``predict`` returns +1 for inliers (f > 0) and −1 for outliers (f ≤ 0),
    as scikit-learn's ``OneClassSVM``; ``score_samples`` is Σ_j α_j k(x, x_j) (larger = more
    normal) and ``offset_`` is ρ, so ``decision_function = score_samples − offset_``.

    Parameters
    ----------
    nu : float in (0, 1], default=0.1
        Upper bound on the fraction of training outliers (the thesis' novelty setting, §3.2.5).
    lambda_Q, lambda_h, widths, width_scales, hyperkernel, form, active_set, eta, max_terms, backend, solver_options,
    random_state
        As for :class:`HyperkernelSVC`.

    Attributes
    ----------
    dual_coef_ : ndarray
        α on ``support_`` (sum 1, 0 ≤ α ≤ 1/(νm)).
    intercept_ : float
        −ρ.
    offset_ : float
        ρ (scikit-learn's ``OneClassSVM`` meaning: ``decision_function = score_samples − offset_``).
    support_, alpha_, beta_, basis_, status_, backend_, certificate_
        As for :class:`HyperkernelSVC`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> det = HyperkernelOneClassSVM(nu=0.1).fit(X)
    >>> bool(det.predict([[0.0, 0.0]])[0] == 1 and det.predict([[8.0, 8.0]])[0] == -1)
    True
    """

    nu: float = 0.1

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_GeneratedHyperkernel._parameter_constraints,
        "nu": [_NU],
    }

    def fit(self, X: ArrayLike, y: Any = None) -> HyperkernelOneClassSVM:
        """Learn the kernel and the support of the training data (``y`` is ignored)."""
        t0 = time.perf_counter()
        self._validate_params()
        X_arr = validate_data(self, X)
        if X_arr.shape[0] < 2:
            raise DataError(
                f"one-class data needs at least 2 samples to describe a support, got {X_arr.shape[0]} sample; "
                "collect more points"
            )
        if self._resolve_solver(X_arr.shape[0]) == "native":
            self._native_options()
            self._fit_native(self._basis(X_arr), None, None, t0)
        else:
            basis = self._basis(X_arr)
            problem, solution = self._build_and_solve(
                hk_builders.one_class, X_arr, None, basis, nu=self.nu, lambda_Q=self._lambda_Q(basis, None)
            )
            self._store(problem, solution, time.perf_counter() - t0)
        self.offset_ = -self.intercept_
        return self

    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        return hyperkernel_one_class_native(basis, nu=self.nu, lambda_Q=self._lambda_Q(basis, None), **options)

    def decision_function(self, X: ArrayLike) -> Array:
        """f(x) = Σ_j α_j k(x, x_j) − ρ; positive for inliers."""
        check_is_fitted(self, "model_")
        return self._decision_binary(validate_data(self, X, reset=False))

    def score_samples(self, X: ArrayLike) -> Array:
        """Σ_j α_j k(x, x_j): the unshifted score (``decision_function + offset_``)."""
        return self.decision_function(X) + self.offset_

    def predict(self, X: ArrayLike) -> NDArray[np.int64]:
        """+1 for inliers (f > 0), −1 for outliers (f ≤ 0)."""
        return np.where(self.decision_function(X) > 0, 1, -1).astype(np.int64)


@dataclass(kw_only=True, eq=False, repr=False)
class HyperkernelNuSVR(RegressorMixin, _GeneratedHyperkernel):
    """ν-support-vector regression that learns its kernel with a hyperkernel (002 eq. 3.12).

    f(x) = Σ_j (α*_j − α_j) k(x, x_j) − γ, learned with the scale 1ᵀβ = stddev(y) of 002 §3.2,
    by default as the equivalent SOCP (:func:`sdpkern.builders.hyperkernel.nu_regression`).

    Parameters
    ----------
    C : float, default=100
        1/(λm) of (3.12): the box of α, α* (scikit-learn's ``NuSVR(C)`` convention).
    nu : float in (0, 1], default=0.3
    lambda_Q, lambda_h, widths, width_scales, hyperkernel, form, active_set, eta, max_terms, backend, solver_options,
    random_state
        As for :class:`HyperkernelSVC`.

    Attributes
    ----------
    dual_coef_ : ndarray
        α* − α on ``support_``.
    intercept_ : float
        −γ.
    alpha_ : ndarray
        α̂ = [α; α*] in the SOCP form, α* − α in the SDP form.
    beta_ : ndarray
        The learned kernel weights (sum stddev(y)).
    epsilon_ : float
        The tube width the ν-parameterisation chose.
    support_, basis_, status_, backend_, certificate_
        As for :class:`HyperkernelSVC`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, (60, 1)); y = np.sin(X[:, 0])
    >>> reg = HyperkernelNuSVR(widths=[1.0]).fit(X, y)
    >>> float(reg.score(X, y)) > 0.9
    True
    """

    C: float = 100.0
    nu: float = 0.3

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_GeneratedHyperkernel._parameter_constraints,
        "C": [_POSITIVE],
        "nu": [_NU],
    }

    def fit(self, X: ArrayLike, y: ArrayLike) -> HyperkernelNuSVR:
        """Learn the kernel and the regression function."""
        t0 = time.perf_counter()
        self._validate_params()
        X_arr, y_arr = validate_data(self, X, y, y_numeric=True)
        y_arr = regression_targets(y_arr, X_arr.shape[0])  # finite, not constant: before any work
        if self._resolve_solver(X_arr.shape[0]) == "native":
            self._native_options()
            self._fit_native(self._basis(X_arr, y_arr, classification=False), y_arr, None, t0)
        else:
            basis = self._basis(X_arr, y_arr, classification=False)
            problem, solution = self._build_and_solve(
                hk_builders.nu_regression, X_arr, y_arr, basis, C=self.C, nu=self.nu,
                lambda_Q=self._lambda_Q(basis, None),
            )  # fmt: skip
            self._store(problem, solution, time.perf_counter() - t0)
        self.epsilon_ = float(self.model_.extras["epsilon"])
        return self

    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        assert y is not None
        lq = self._lambda_Q(basis, None)
        return hyperkernel_nu_regression_native(basis, y, C=self.C, nu=self.nu, lambda_Q=lq, **options)

    def predict(self, X: ArrayLike) -> Array:
        """f(x) = Σ_i c_i k(x_i, x) + b through the hyperkernel expansion."""
        check_is_fitted(self, "model_")
        return self._decision_binary(validate_data(self, X, reset=False))

    offset_ = deprecated_attribute("intercept_", "offset_", convert=lambda b: -b)


@dataclass(kw_only=True, eq=False, repr=False)
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
    lambda_Q, lambda_h, widths, width_scales, hyperkernel, form, eta, max_terms, backend, solver_options, random_state
        As for :class:`HyperkernelSVC`.

    Attributes
    ----------
    beta_, basis_, status_, backend_, certificate_, objective_, n_terms_, fit_time_

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

    ridge: float = 1e-2

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_HyperkernelBase._parameter_constraints,
        "ridge": [_NON_NEGATIVE],
    }

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> HyperkernelAlignment:
        """Learn the kernel from inputs and targets (two classes or real values)."""
        t0 = time.perf_counter()
        self._validate_params()
        X_arr, y_arr = validate_data(self, X, y)
        classification = np.unique(y_arr).size == 2 or y_arr.dtype.kind not in "fc"
        if not classification:
            y_arr = regression_targets(y_arr, X_arr.shape[0])
        if self._resolve_solver(X_arr.shape[0]) == "native":
            self._native_options()
            self._fit_native(self._basis(X_arr, y_arr, classification=classification), y_arr, None, t0)
        else:
            basis = self._basis(X_arr, y_arr, classification=classification)
            problem, solution = self._build_and_solve(
                hk_builders.alignment, X_arr, y_arr, basis, ridge=self.ridge, lambda_Q=self._lambda_Q(basis, None)
            )
            self._store(problem, solution, time.perf_counter() - t0)
        self.X_fit_ = X_arr
        return self

    _dense_native = True

    def _native_unavailable(self) -> str | None:
        if self.ridge == 0:
            return (
                "solver='native' solves the alignment with ridge > 0 (its inner problem is the linear system "
                "(K(beta) + ridge I) alpha = y); ridge=0 needs solver='conic'"
            )
        return super()._native_unavailable()

    def _solve_native(self, basis: HyperkernelBasis, y: Array | None, weights: Array | None,
                      options: dict[str, Any]) -> NativeMasterResult:  # fmt: skip
        assert y is not None
        lq = self._lambda_Q(basis, None)
        return hyperkernel_alignment_native(basis, y, lambda_Q=lq, ridge=self.ridge, **options)

    def transform(self, X: ArrayLike) -> Array:
        """The learned kernel between X and the training inputs, shape (n_samples, n_train)."""
        check_is_fitted(self, "beta_")
        X_arr = validate_data(self, X, reset=False)
        return self.basis_.learned_kernel(self.beta_, X_arr, self.X_fit_)

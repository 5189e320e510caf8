"""The native restricted master for every hyperkernel family other than the C-SVM (002 eqs. 3.9-3.13).

Each family below is the inner problem D(β) of the saddle form (docs/hyperkernel_derivations.md
§1.1 and §2) that the one outer loop, :func:`~sdpkern.native.hyperkernel_master.solve_master`,
needs: the maximiser α at a fixed β, the cut's constant part q(α) and the cone vector u(α) with
q_l(α) = ½uᵀK_l u. The SVM families solve their inner problem on sdpkern's one SMO core
(:mod:`sdpkern.native.svm_core`, libsvm's problem definitions), mapped to the SOCP forms' units:

========================  ==========================================  =======================  ==================
family (002)              A and q(α) (SOCP form of the builder)       SMO problem              u(α), c
========================  ==========================================  =======================  ==================
ν-SVM (3.9)               yᵀα = 0, 1ᵀα ≥ ν, 0 ≤ α ≤ 1/m; q = 0        ``NuSVC``, α' = mα        y∘α, 1
L2-SVM (3.10)             α ≥ 0; q = 1ᵀα − ½(yᵀα)² − ½Σα_i²/(2Cw_i)   hinge-free QP on K + 1    y∘α, 1
one-class (3.11 × ν)      1ᵀα = 1, 0 ≤ α ≤ 1/(νm); q = 0              ``OneClassSVM``, α' = νmα √ν·α, 1
ν-regression (3.12 / Cm)  α, α* ∈ [0, C], 1ᵀ(α + α*) ≤ Cνm,           ``NuSVR``                 (α* − α)/√(Cm),
                          1ᵀα = 1ᵀα*; q = yᵀ(α* − α)/(Cm)                                       stddev(y)
alignment (3.13)          α free; q = yᵀα − (ε/2)‖α‖²                 (K(β) + εI)α = y          α, 1
========================  ==========================================  =======================  ==================

Why each SMO problem is the family's (docs/hyperkernel_derivations.md §2.2-2.6):

* ν-SVM: the objective −½αᵀG(β)α is homogeneous of degree 2, so at a maximiser 1ᵀα = ν unless
  αᵀG(β)α = 0 (scaling α by t < 1 keeps it feasible and raises the objective); with α' = mα this
  is libsvm's ν-SVC (0 ≤ α' ≤ 1, eᵀα' = νm, yᵀα' = 0), the model f = K(α∘y) − b with b = ρ'/m
  and the margin ρ = r/m (libsvm's ρ' and r).
* L2-SVM: the dual A.18 has no equality constraint (the bias is penalised: H(β) = Y(K + 11ᵀ)Y +
  diag(1/(2Cw_i))), so it is the core's QP without constraint on the kernel K(β) + 1 with the
  diagonal 1/(2Cw_i) and no upper bound; f = K(α∘y) + yᵀα.
* one-class: the thesis' (3.11) times ν (the builder's units) with α' = νmα is libsvm's one-class
  problem (0 ≤ α' ≤ 1, eᵀα' = νm); ρ = ρ'/(νm).
* ν-regression: the builder's a, a* ∈ [0, 1/m] are α/(Cm), α*/(Cm); D is libsvm's ν-SVR dual
  divided by Cm (its α and α* swapped: the expansion coefficients α* − α are libsvm's
  ``dual_coef``), with the tube written as an inequality. libsvm writes it as the equality
  Σ(α + α*) = Cνm, whose multiplier is −ε; when that ε is negative the inequality is slack at
  the optimum, whose multiplier is then ε = 0, and the solution is the ε-SVR with ε = 0.
* alignment (3.13 with the ridge ε > 0): ½yᵀ(K(β) + εI)⁻¹y = max_α yᵀα − ½αᵀ(K(β) + εI)α, the
  maximiser α = (K(β) + εI)⁻¹y by a dense Cholesky factorisation; the regulariser is the squared
  (λ_Q/2)‖Lᵀβ‖².

Inner accuracy. The SMO stops at a KKT violation δ (libsvm's maximal violating pair); the inner
duality gap is then at most about δ·Σα' (Σα' the QP's variables' sum). The master certifies a
gap relative to max(1, abs(J)), so the ν-forms, whose QP objective is D(β) times a known factor s
(m², νm² and Cm), run at δ = ``smo_tol``·max(1, abs(J))·s/Σα' with J the master's current objective:
D(β) is then exact to about ``smo_tol`` in the certificate's units, as for the C-SVM and the
L2-SVM, whose margin units (gradient scale 1, D about Σα/2) give that with δ = ``smo_tol``.
(A δ relative to the QP's own objective instead made the SMO chase round-off where D is tiny
beside the regulariser: 74 s against 0.2 s on banana m = 300 with the thesis' smooth widths.)

The public entry points (:func:`hyperkernel_nusvm_native`, :func:`hyperkernel_l2svm_native`,
:func:`hyperkernel_one_class_native`, :func:`hyperkernel_nu_regression_native`,
:func:`hyperkernel_alignment_native`) take the builders' parameters (scikit-learn's C, ν, λ_Q)
and the options of :func:`~sdpkern.native.hyperkernel_master.solve_master`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_sample_weight, as_vector, check_positive
from ..errors import DataError, LabelError, NotPSDError, ParameterError
from ..kernels.gram import GramOperator, SumGram
from ..kernels.hyperkernel_terms import TermGram, dictionary_gram, dictionary_matvec, learned_block, term_block
from ..kernels.hyperkernels import ARDDictionary
from ..kernels.lowrank import HyperkernelBasis
from .dense_cholesky import BorderedCholesky, cho_factor
from .hyperkernel_master import (
    HESSIAN_RIDGE,
    Curvature,
    InnerSolution,
    MasterFamily,
    NativeMasterResult,
    Restrict,
    _check_labels,
    _free,
    solve_master,
)
from .svm_core import SVMSolution

__all__ = [
    "hyperkernel_nusvm_native",
    "hyperkernel_l2svm_native",
    "hyperkernel_one_class_native",
    "hyperkernel_nu_regression_native",
    "hyperkernel_alignment_native",
    "nu_feasible_bound",
]

Array = NDArray[np.float64]


#: Support changes :meth:`_L2SVCFamily._direct` follows (each a factorisation) before the SMO takes over
_DIRECT_ROUNDS = 3

#: :meth:`_L2SVCFamily._direct` is tried once an SMO solve moved at most this share of its support
#: (far from the optimum β steps move hundreds of points, and the direct solve would not settle)
_SETTLED = 0.01

#: Where the ν-regression's SMO stops (times its KKT tolerance) for :meth:`_NuSVRFamily._face_start`
#: to be weighed: loose enough to leave the slow decades to the face step, tight enough to find
#: the points at the box
_FACE_STAGE = 1e4

#: Rounds of :meth:`_NuSVRFamily._face_start` that free the held points violating their KKT
#: conditions at the face's minimiser, and how many points it frees in all (a border of the
#: factor: each point one more solve with it)
_FACE_ROUNDS = 3
_FACE_BORDER = 64

#: SMO steps a face step costs, per f³/m (f free points of m): the f × f block, its Cholesky
#: factorisation and K(β)'s columns computed again, against SMO steps of about m flops each
#: (measured at 10,000 and 20,000 points: docs/hyperkernel.md, "The ν-regression's inner solve:
#: a cold start and face steps")
_FACE_STEP_COST = 1.0 / 1600


def _core_options(opts: dict[str, Any], restrict: Restrict, tol: float) -> dict[str, Any]:
    """The core's keyword options from the master's settings, at the absolute KKT tolerance ``tol``."""
    return {
        "tol": tol, "max_iter": opts["smo_max_iter"], "working_set": opts["working_set"], "restrict": restrict,
        "n_jobs": opts["n_jobs"],
    }  # fmt: skip


def _decision_accuracy(opts: dict[str, Any], nu: float) -> float:
    """The ν-forms' :meth:`MasterFamily.decision_accuracy`: :func:`_kkt_tolerance` in f's units,
    the same for the three (f is the QP's gradient over m, νm and 1 for the ν-SVM, one-class SVM and
    ν-regression, whose tolerances are smo_tol·max(1, abs(J)) times m/ν, m and 1/ν)."""
    return float(opts["smo_tol"] * opts.get("objective_scale", 1.0) / nu)


def _kkt_tolerance(opts: dict[str, Any], qp_scale: float, mass: float) -> float:
    """The SMO's KKT tolerance for an inner gap of ``smo_tol``·max(1, abs(J)) in D's units (module
    docstring, "Inner accuracy"): D = −obj/``qp_scale`` + q(α), and the QP's gap is at most about
    δ·``mass`` (mass = Σα' over the QP's variables)."""
    return float(opts["smo_tol"] * opts.get("objective_scale", 1.0) * qp_scale / mass)


@dataclass
class _NuSVCFamily(MasterFamily):
    """The hyperkernel ν-SVM (002 eq. 3.9): A = {yᵀα = 0, 1ᵀα ≥ ν, 0 ≤ α ≤ 1/m}, q = 0, u = y∘α.

    The inner problem is libsvm's ν-SVC on K(β) in α' = mα (module docstring). The result's
    ``alpha`` is α (0 ≤ α ≤ 1/m), ``coef`` = y∘α, ``offset`` = b and ``extras["rho"]`` the margin ρ
    of the conic route's recovery (f = ρy_i on the free support vectors).
    """

    name: ClassVar[str] = "hyperkernel nu-SVM"
    source: ClassVar[str] = "002 eq. (3.9)"
    y: Array
    nu: float

    def __post_init__(self) -> None:
        self.m = self.y.shape[0]

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        from .svm_core import solve_nusvc

        m = self.m
        tol = _kkt_tolerance(opts, float(m * m), self.nu * m)  # D = −obj'/m², Σα' = νm
        a0 = None if alpha0 is None else m * alpha0
        sol = solve_nusvc(gram, self.y, self.nu, alpha0=a0, **_core_options(opts, restrict, tol))
        qp, steps = sol.qp, sol.n_iter
        assert qp is not None  # every problem definition returns its QPSolution
        alpha = sol.alpha / m
        Ku = self.y * qp.grad / m  # ∇ = YK(β)Yα' (p = 0): K(β)(y∘α) = y∘∇/m
        return InnerSolution(alpha, self.y * alpha, Ku, 0.0, qp.rho / m, steps, {"rho": qp.r / m})

    def constant(self, alpha: Array) -> float:
        return 0.0

    def vector(self, alpha: Array) -> Array:
        return self.y * alpha

    def coef(self, inner: InnerSolution) -> Array:
        return self.y * inner.alpha

    def decision_accuracy(self, opts: dict[str, Any]) -> float:
        return _decision_accuracy(opts, self.nu)

    def curvature(self, alpha: Array) -> Curvature:
        F = np.flatnonzero(_free(alpha, 1.0 / self.m))
        yF = self.y[F]
        return Curvature(F, yF, np.zeros(F.size), None, np.vstack([yF, np.ones(F.size)]))


class _OnesGram(GramOperator):
    """The constant kernel 11ᵀ (the L2-SVM's penalised bias), never cached: its columns are ones."""

    def _block(self, rows: NDArray[np.intp] | None, cols: NDArray[np.intp]) -> Array:
        return np.ones((self.n if rows is None else rows.shape[0], cols.shape[0]))

    def _diagonal(self) -> Array:
        return np.ones(self.n)

    def columns(self, cols: ArrayLike) -> Array:
        return np.ones((self.n, np.asarray(cols).size))

    def block(self, rows: ArrayLike, cols: ArrayLike, *, out: Array | None = None) -> Array:
        if out is None:
            return np.ones((np.asarray(rows).size, np.asarray(cols).size))
        out[: np.asarray(rows).size, : np.asarray(cols).size] = 1.0
        return out[: np.asarray(rows).size, : np.asarray(cols).size]

    def matvec(self, v: ArrayLike, rows: ArrayLike | None = None, *, threads: int = 1) -> Array:
        s = float(np.sum(v))
        return np.full(self.n if rows is None else np.asarray(rows).size, s)

    def subset(self, points: ArrayLike, **_: Any) -> GramOperator:
        return _OnesGram(np.asarray(points).size, cache_bytes=8 * max(1, np.asarray(points).size))

    def _block_times(self, rows: NDArray[np.intp], cols: NDArray[np.intp], w: Array) -> Array:
        return np.full(rows.shape[0], float(np.sum(w)))


def _with_bias(gram: GramOperator) -> SumGram:
    """K + 11ᵀ over ``gram``'s terms (a :class:`SumGram`: the terms' caches are shared) or ``gram``."""
    n = gram.n
    if isinstance(gram, SumGram):
        ops, weights = [t.op for t in gram.terms], list(gram.weights)
    else:
        ops, weights = [gram], [1.0]
    return SumGram([*ops, _OnesGram(n, cache_bytes=8 * n)], [*weights, 1.0], cache_bytes=gram.cache_bytes)


@dataclass
class _L2SVCFamily(MasterFamily):
    """The hyperkernel L2 (Lagrangian) SVM (002 eq. 3.10; A.18): A = {α ≥ 0},
    q(α) = 1ᵀα − ½(yᵀα)² − ½Σ_i α_i²/(2Cw_i), u = y∘α.

    ``C`` is scikit-learn's C of the squared hinge (loss C Σ w_i ξ_i², (3.10)'s C' = 2C); points of
    weight 0 have α_i = 0. The model is f = K(α∘y) + yᵀα (``offset`` = −yᵀα). The inner problem is
    the core's QP without constraint, or, once the support has settled, its support vectors' KKT
    system (:meth:`_direct`).
    """

    name: ClassVar[str] = "hyperkernel L2-SVM"
    source: ClassVar[str] = "002 eq. (3.10)"
    y: Array
    C: float
    weights: Array | None = None
    diag: Array = field(init=False)
    upper: Array = field(init=False)
    #: whether the last SMO solve ended with nearly the support it started from (:meth:`_direct`)
    settled: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.m = self.y.shape[0]
        w = np.ones(self.m) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        live = w > 0
        self.diag = np.where(live, 0.5 / (self.C * np.where(live, w, 1.0)), 0.0)
        self.upper = np.where(live, np.inf, 0.0)

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        from .svm_core import solve_qp

        y = self.y
        if alpha0 is not None and self.settled:
            direct = self._direct(gram, alpha0, opts)
            if direct is not None:
                return direct
        a0 = np.zeros(self.m) if alpha0 is None else np.clip(alpha0, 0.0, self.upper)
        qp = solve_qp(
            _with_bias(gram), y, -np.ones(self.m), self.upper, a0, D=self.diag, constraints="none",
            shrinking=True, **_core_options(opts, lambda W: _with_bias(restrict(W)), opts["smo_tol"]),
        )  # fmt: skip
        alpha = qp.alpha
        moved = np.count_nonzero((a0 > 0.0) != (alpha > 0.0))
        self.settled = alpha0 is not None and bool(moved <= _SETTLED * np.count_nonzero(alpha))
        bias = float(y @ alpha)
        # ∇ = Y(K + 11ᵀ)Yα + Dα − 1, so (K(β) + 11ᵀ)(y∘α) = y∘(∇ + 1 − Dα)
        Ku = y * (qp.grad + 1.0 - self.diag * alpha) - bias
        return InnerSolution(alpha, y * alpha, Ku, self.constant(alpha), -bias, qp.n_iter)

    def _direct(self, gram: GramOperator, alpha0: Array, opts: dict[str, Any]) -> InnerSolution | None:
        """The maximiser with ``alpha0``'s support vectors kept, from their KKT system, or None.

        With the other variables at 0, the support F's α_F solves (M + y_F y_Fᵀ)α_F = 1, M =
        Y_F K(β)[F, F] Y_F + diag(1/(2Cw_F)) (the QP's gradient vanishes on F): one pass over F's
        pairs (half of them for a dictionary), a Cholesky factorisation of M (plus
        :data:`~sdpkern.native.hyperkernel_master.HESSIAN_RIDGE`, as the Hessian's) and yy_Fᵀ by
        Sherman-Morrison. That is the maximiser when every α_F > 0 and no point outside F has a
        gradient below −``smo_tol`` (one pass over F × the rest gives their outputs): the KKT
        conditions the SMO stops at, met to rounding on F. M is the Hessian's bordered matrix at
        that point (:meth:`curvature`), so its factor goes with the solution. None, and the SMO
        runs, where F is empty or has more than ``newton_points`` points (its factorisation would
        cost more than the SMO), M is not definite in floating point, or the support changes.
        """
        F = np.flatnonzero(alpha0 > 0.0)
        y = self.y
        for _ in range(_DIRECT_ROUNDS):
            if F.size == 0 or F.size > opts["newton_points"]:
                return None
            got = self._kkt_solve(gram, F, opts)
            if got is None:
                return None
            factor, aF = got
            if not np.all(aF > 0.0):  # leaving the support: solve again without them
                F = F[aF > 0.0]
                continue
            yF, bias = y[F], float(y[F] @ aF)
            # on F the system's rows: y_i((K(β)u)_i + yᵀα) + D_i α_i = 1
            Ku = np.empty(self.m)
            Ku[F] = yF * (1.0 - self.diag[F] * aF) - bias
            rest = np.setdiff1d(np.arange(self.m), F)
            if rest.size:
                Ku[rest] = _outputs(gram, rest, F, yF * aF, opts["n_jobs"])
                live = rest[self.upper[rest] > 0]  # weight 0: α = 0 whatever its gradient
                enter = live[y[live] * (Ku[live] + bias) - 1.0 < -opts["smo_tol"]]
                if enter.size:  # entering the support
                    F = np.union1d(F, enter)
                    continue
            alpha = np.zeros(self.m)
            alpha[F] = aF
            solve = BorderedCholesky.plain(factor)
            return InnerSolution(alpha, y * alpha, Ku, self.constant(alpha), -bias, 0, factor=solve)
        return None

    def _kkt_solve(self, gram: GramOperator, F: NDArray[np.intp], opts: dict[str, Any]) -> tuple[Any, Array] | None:
        """(the Cholesky factor of M, α_F) of :meth:`_direct`'s system on F, or None where M is not
        definite in floating point."""
        from scipy.linalg import LinAlgError, cho_solve
        from threadpoolctl import threadpool_limits

        yF = self.y[F]
        M = _dense(gram, opts["n_jobs"], F)
        M *= yF[:, None]
        M *= yF[None, :]
        M[np.diag_indices(F.size)] += self.diag[F]
        M[np.diag_indices(F.size)] += HESSIAN_RIDGE * max(float(M.diagonal().max()), np.finfo(float).tiny)
        try:
            with threadpool_limits(limits=opts["n_jobs"], user_api="blas"):
                factor = cho_factor(M, lower=True, overwrite_a=True)
                Z = cho_solve(factor, np.column_stack([np.ones(F.size), yF]), check_finite=False)
        except LinAlgError:
            return None
        return factor, Z[:, 0] - Z[:, 1] * (float(yF @ Z[:, 0]) / (1.0 + float(yF @ Z[:, 1])))

    def constant(self, alpha: Array) -> float:
        return float(alpha.sum() - 0.5 * float(self.y @ alpha) ** 2 - 0.5 * float(self.diag @ (alpha * alpha)))

    def vector(self, alpha: Array) -> Array:
        return self.y * alpha

    def coef(self, inner: InnerSolution) -> Array:
        return self.y * inner.alpha

    def curvature(self, alpha: Array) -> Curvature:
        F = np.flatnonzero(alpha > 0.0)  # no upper bound
        yF = self.y[F]
        return Curvature(F, yF, self.diag[F], yF, np.zeros((0, F.size)))


@dataclass
class _OneClassFamily(MasterFamily):
    """The hyperkernel one-class SVM (002 eq. 3.11, times ν as the builder): A = {1ᵀα = 1,
    0 ≤ α ≤ 1/(νm)}, q = 0, u = √ν·α. The inner problem is libsvm's one-class SVM in α' = νmα;
    the model f = Kα − ρ (``coef`` = α, ``offset`` = ρ)."""

    name: ClassVar[str] = "hyperkernel one-class SVM"
    source: ClassVar[str] = "002 eq. (3.11)"
    nu: float
    m: int = 0

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        from .svm_core import solve_one_class

        s = self.nu * self.m
        tol = _kkt_tolerance(opts, s * self.m, s)  # D = −obj'/(νm²), Σα' = νm
        a0 = None if alpha0 is None else s * alpha0
        sol = solve_one_class(gram, self.nu, alpha0=a0, **_core_options(opts, restrict, tol))
        qp, steps = sol.qp, sol.n_iter
        assert qp is not None  # every problem definition returns its QPSolution
        alpha = sol.alpha / s
        root = float(np.sqrt(self.nu))
        return InnerSolution(alpha, root * alpha, root * qp.grad / s, 0.0, qp.rho / s, steps)

    def constant(self, alpha: Array) -> float:
        return 0.0

    def vector(self, alpha: Array) -> Array:
        return float(np.sqrt(self.nu)) * alpha

    def coef(self, inner: InnerSolution) -> Array:
        return inner.alpha

    def decisions(self, inner: InnerSolution) -> Array:
        return inner.Ku / float(np.sqrt(self.nu)) - inner.offset

    def decision_accuracy(self, opts: dict[str, Any]) -> float:
        return _decision_accuracy(opts, self.nu)

    def curvature(self, alpha: Array) -> Curvature:
        F = np.flatnonzero(_free(alpha, 1.0 / (self.nu * self.m)))
        return Curvature(F, np.full(F.size, np.sqrt(self.nu)), np.zeros(F.size), None, np.ones((1, F.size)))


@dataclass
class _Face:
    """The ν-regression's minimiser on a face (:meth:`_NuSVRFamily._face_solve`): the free points
    G, d_G and K(β)d on G there, the multipliers (b,) or (b, ε), the solver of K(β)[G, G] plus
    the ridge, and whether the tube is slack."""

    points: NDArray[np.intp]
    d: Array
    outputs: Array
    lam: Array
    solve: BorderedCholesky
    ridge: float
    slack: bool


@dataclass
class _FaceStep:
    """A Newton step along a face of the ν-regression (:meth:`_NuSVRFamily._face_start`,
    :meth:`_NuSVRFamily._cold_start`): the SMO's start there (libsvm's order), K(β)d at it where
    known, the face's free points and the solver of K(β)[G, G] plus its ridge (None for a start
    that is not the face's minimiser: the cold start clipped into the box)."""

    alpha: Array
    outputs: Array | None
    points: NDArray[np.intp]
    solve: BorderedCholesky | None


@dataclass
class _NuSVRFamily(MasterFamily):
    """The hyperkernel ν-regression (002 eq. 3.12 divided by Cm, as the builder): variables
    α̂ = [α; α*] with 0 ≤ α, α* ≤ C, 1ᵀ(α + α*) ≤ Cνm, 1ᵀα = 1ᵀα*, q = yᵀ(α* − α)/(Cm),
    u = (α* − α)/√(Cm), 1ᵀβ = c = stddev(y).

    The inner problem is libsvm's ν-SVR on K(β) (module docstring); the model
    f = K(α* − α) − b (``coef`` = α* − α), the tube width in ``extras["epsilon"]``.
    """

    name: ClassVar[str] = "hyperkernel nu-regression"
    source: ClassVar[str] = "002 eq. (3.12)"
    y: Array
    C: float
    nu: float

    def __post_init__(self) -> None:
        self.m = self.y.shape[0]
        self.scale = float(np.std(self.y, ddof=1))

    def _swap(self, a: Array) -> Array:
        """[α; α*] ↔ libsvm's order (its α multiplies +y: ours α*)."""
        return np.concatenate([a[self.m :], a[: self.m]])

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        from .svm_core import solve_epsilon_svr

        m, Cm = self.m, self.C * self.m
        tol = _kkt_tolerance(opts, Cm, Cm * self.nu)  # D = −obj/(Cm), Σ(α + α*) ≤ Cνm
        a0 = None if alpha0 is None else self._swap(alpha0)
        sol, face = self._staged(gram, a0, tol, restrict, opts)
        steps = sol.n_iter
        eps = float(sol.certificate["epsilon"])
        if eps < 0.0:
            face = None  # its f² factor is not kept beside another solve
            # the tube constraint is an inequality (module docstring): slack at the optimum, the ε = 0 SVR
            svr = solve_epsilon_svr(gram, self.y, self.C, 0.0, alpha0=sol.alpha, **_core_options(opts, restrict, tol))
            d = svr.dual_coef
            if float(np.abs(d).sum()) <= self.C * self.nu * m * (1 + 1e-9):
                steps += svr.n_iter
                lib = np.concatenate([np.clip(d, 0.0, None), np.clip(-d, 0.0, None)])  # the least α + α*
                sol, eps = svr, 0.0
                sol.alpha = lib
        d = sol.dual_coef  # α* − α of the builder's units
        root = float(np.sqrt(Cm))
        alpha = self._swap(sol.alpha)
        factor = None if face is None else self._hessian_factor(alpha, face)
        del face
        return InnerSolution(alpha, d / root, sol.outputs / root, float(self.y @ d) / Cm, sol.rho, steps,
                             {"epsilon": eps}, factor)  # fmt: skip

    def _hessian_factor(self, alpha: Array, face: _FaceStep) -> BorderedCholesky | None:
        """The master's solver of M (:class:`InnerSolution`) from the face step that ended the
        solve, where the solution's free points are that face's: M = K(β)[F, F]/(Cm) plus the
        ridge (the curvature's signs are all 1/√(Cm), its diagonal 0), the face's matrix scaled.
        (The ridges agree where K(β)'s diagonal is constant, as a dictionary's; else they differ
        by the ratio of the largest diagonal entries of the face's factored block and all of F,
        on a ridge of 1e-13.) None where the free points differ."""
        cv = self.curvature(alpha)
        if face.solve is None or not np.array_equal(cv.points, face.points):
            return None
        return face.solve.with_scale(float(cv.signs[0]) ** 2)

    def _staged(
        self, gram: GramOperator, a0: Array | None, tol: float, restrict: Restrict, opts: dict[str, Any]
    ) -> tuple[SVMSolution, _FaceStep | None]:
        """libsvm's ν-SVR on K(β) to the KKT tolerance ``tol``, from :meth:`_cold_start` without a
        warm start, with :meth:`_face_start` steps where the SMO's own rate says it is slow (the
        solution's ``n_iter`` counts every stage).

        The SMO runs to :data:`_FACE_STAGE`·tol, then one decade of the violation at a time. At each
        stop its steps per decade, times the decades left, are the steps it would still take; where
        those cost more than a face step (:data:`_FACE_STEP_COST`·f³/m, f the free points), the
        step is taken and the next decade starts from its point, which passes that decade at once
        where the face was the optimum's. (The SMO's first decades are its fastest: from a good
        start, a rate over them promises a tail far shorter than it is.) A stage that bought less
        than half a decade (a warm start near its stop) gives no rate. The steps pay where the free
        points' K(β)[F, F] is ill-conditioned (a nearly noise-free target at a large C: the solution
        nearly interpolates) and the SMO converges slowly. Without a Newton cap for f
        (``newton_points``) or with the working sets' decomposition, the SMO runs to ``tol`` at
        once from libsvm's start.

        A stage after an SMO stage starts from the outputs K(β)d that one ended with, a face
        step's probe (one SMO step at most, at ``tol``) from the step's own where it has them.
        Where the probe certifies the step's point, the solve ends there and returns that step
        (:class:`_FaceStep`: its factor then serves the master's Newton step); else None, the
        factor dropped before the SMO refills K(β)'s cache, and the next stage computes the
        outputs again, which fills that cache in one batch."""
        from .svm_core import solve_nu_svr

        def smo(
            start: Array | None, t: float, outputs: Array | None = None, max_iter: int | None = None
        ) -> SVMSolution:
            options = _core_options(opts, restrict, t) | ({} if max_iter is None else {"max_iter": max_iter})
            return solve_nu_svr(gram, self.y, self.C, self.nu, alpha0=start, outputs0=outputs, **options)

        ws = opts["working_set"]
        if opts["newton_points"] == 0 or (ws is not None and self.m > ws):
            return smo(a0, tol), None
        level, steps = _FACE_STAGE, 0
        face = self._cold_start(gram, opts) if a0 is None else None
        start, outputs = a0, None
        while True:
            if face is not None:
                start, outputs = face.alpha, None
                if face.solve is not None:  # a face's minimiser: one probe step at tol
                    probe = smo(face.alpha, tol, face.outputs, max_iter=1)
                    if probe.status == "optimal":
                        probe.n_iter += steps
                        return probe, face
                    steps += probe.n_iter
                    # K(β)'s cache may be cold (released for the face's block): the start's outputs
                    # computed again fill it in one batch, which the SMO's steps then read
                    start = probe.alpha
                face = None  # its factor is not kept beside K(β)'s cache
            sol = smo(start, tol * level, outputs)
            if level <= 1.0 or sol.qp is None or sol.qp.kkt_violation <= tol:
                break
            qp = sol.qp
            decades = np.log10(qp.start_violation / qp.kkt_violation) if qp.kkt_violation > 0 else np.inf
            # a start near the stop (a warm start) gives no rate: one decade more first
            left = sol.n_iter / decades * np.log10(qp.kkt_violation / tol) if decades >= 0.5 else 0.0
            face = self._face_start(gram, sol, left, tol, opts) if left > 0 else None
            level /= 10.0
            steps += sol.n_iter
            start, outputs = sol.alpha, sol.outputs
        sol.n_iter += steps
        return sol, None

    def _face_start(
        self, gram: GramOperator, sol: SVMSolution, left: float, tol: float, opts: dict[str, Any]
    ) -> _FaceStep | None:
        """A start for the SMO one Newton step along the face of ``sol``'s point, or None where
        that step would cost more than the ``left`` SMO steps or cannot be taken.

        The face: the points at a bound held (d = α* − α, libsvm's ``dual_coef``, at ±C; at 0 too
        where the tube binds), the others free (:meth:`_face_minimiser`). Where the minimiser lies
        in the box but held points violate their KKT conditions there by more than ``tol``, those
        points join the free ones as a border of the factor (:class:`BorderedCholesky`: no new
        factorisation), for :data:`_FACE_ROUNDS` rounds and :data:`_FACE_BORDER` points at most:
        a face found from a loose SMO point misses a few of the optimum's free points, and the SMO
        took most of a solve to free them. The objective decreases along the segment from d to the
        last minimiser, so the step goes as far as the box and the tube allow: all the way where
        the face is the optimum's. The outputs K(β)d there are (1 − t)·K(β)d₀ + t·K(β)d* (t the
        step's length): K(β)d* on the free points from the face's KKT rows, on the held ones by a
        pass over their pairs with the free points. The rounds and the outputs need that pass, so
        both are left out where the held points are more than half the free ones (the tube
        binds: the pass would cost more than the face's block, and the SMO computes the outputs
        itself)."""
        C, m = self.C, self.m
        d0 = sol.dual_coef
        total = float(sol.alpha.sum())  # Cνm
        F = self.curvature(self._swap(sol.alpha)).points  # the Hessian's free points are the face's
        if F.size == 0 or F.size > opts["newton_points"] or left <= _FACE_STEP_COST * F.size**3 / m:
            return None
        face = self._face_minimiser(gram, F, d0, sol.outputs, total, opts)
        if face is None:
            return None
        # the held points' pass (their outputs, for the rounds and the SMO's start) where it costs at
        # most the face's own block: few points at a bound (where the tube binds, most are held)
        few = m - F.size <= F.size // 2
        KdH = None
        for rnd in range(_FACE_ROUNDS + 1):
            G = face.points
            H = np.delete(np.arange(m), G)
            step = face.d - d0[G]
            t = _face_reach(d0[G], step, C, total - float(np.abs(d0[H]).sum()))
            if not few:
                break
            KdH = sol.outputs[H] + _outputs(gram, H, G, step, opts["n_jobs"]) if H.size else np.zeros(0)
            if t < 1.0 or rnd == _FACE_ROUNDS:
                break
            A = self._face_violators(H, d0[H], KdH, face.lam, tol, _FACE_BORDER - (G.size - F.size))
            if A is None or A.size == 0:
                break
            wider = self._face_bordered(gram, face, F, A, d0, sol.outputs, KdH, total)
            if wider is None:  # the last face stands
                break
            face = wider
        if t <= 0.0:
            return None
        d = d0.copy()
        d[G] += t * step
        Kd = None
        if KdH is not None:
            Kd = sol.outputs.copy()
            Kd[H] += t * (KdH - Kd[H])
            Kd[G] += t * (face.outputs - Kd[G])
        return _FaceStep(self._padded(d, total), Kd, G, face.solve)

    def _face_violators(
        self, H: NDArray[np.intp], dH: Array, KdH: Array, lam: Array, tol: float, room: int
    ) -> NDArray[np.intp] | None:
        """The held points (``H``, d = ``dH``) whose KKT conditions the face's minimiser violates by
        more than ``tol`` (at most ``room``, the worst first), or None where more than ``room`` do.

        With g = K(β)d − y + b at the minimiser: a point at +C violates where g + ε > 0 (moving
        it inward lowers the objective), at −C where g − ε < 0, and, where the tube binds, a point
        at 0 where abs(g) > ε."""
        C = self.C
        b, eps = float(lam[0]), float(lam[1]) if lam.size > 1 else 0.0
        g = KdH - self.y[H] + b
        upper, lower = dH >= C * (1 - 1e-12), dH <= -C * (1 - 1e-12)
        viol = np.where(upper, g + eps, np.where(lower, -(g - eps), np.abs(g) - eps))
        bad = np.flatnonzero(viol > tol)
        if bad.size > room:
            return None
        return H[bad[np.argsort(-viol[bad])]]

    def _face_bordered(
        self, gram: GramOperator, face: _Face, F: NDArray[np.intp], A: NDArray[np.intp], d0: Array, Kd0: Array,
        KdH: Array, total: float,
    ) -> _Face | None:  # fmt: skip
        """``face`` with the held points ``A`` free too: its factor of K(β)[F, F] kept, the border
        (its earlier points and ``A``) by the Schur complement. A point at 0 where the tube binds
        enters with the sign its violation asks for (``KdH``: K(β)d at the held points, the face's
        minimiser). None where the Schur complement is not definite in floating point."""
        from scipy.linalg import LinAlgError

        G = np.union1d(face.points, A)
        border = np.setdiff1d(G, F, assume_unique=True)
        signs = np.sign(d0)
        held = np.delete(np.arange(self.m), face.points)
        g = KdH[np.searchsorted(held, A)] - self.y[A] + float(face.lam[0])
        signs[A] = np.where(d0[A] != 0.0, signs[A], -np.sign(g))
        P_FA = _block(gram, F, border)  # K(β)'s cache may be released (the factor in its place): not refilled
        P_AA = _block(gram, border, border)
        P_AA[np.diag_indices(border.size)] += face.ridge
        try:
            solve = face.solve.bordered(np.searchsorted(G, F), np.searchsorted(G, border), P_FA, P_AA)
        except (LinAlgError, np.linalg.LinAlgError):
            return None
        return self._face_solve(G, solve, face.ridge, d0, Kd0, total, face.slack, signs[G])

    def _cold_start(self, gram: GramOperator, opts: dict[str, Any]) -> _FaceStep | None:
        """The SMO's start without a warm start, or None where m is above the Newton cap or K(β)
        not definite in floating point: every point free and the tube slack, the face's minimiser
        (:meth:`_face_minimiser`: K d + b = y, 1ᵀd = 0). Where it lies in the box and the tube it is
        a face step (:class:`_FaceStep`, with its outputs and factor: the SMO may certify it at
        once); else it is clipped to the box, 1ᵀd = 0 restored on the points with room and, where
        Σabs(d) exceeds Cνm, scaled to it (no outputs, no factor).

        Where the tube is slack at the optimum and few points reach the box (a nearly noise-free
        target at a large C) this start is close to the optimum; libsvm's (the first points at C)
        is far from it, and the SMO's first decades from there were most of the solve (Friedman #3,
        10,000 points: 328,769 SMO steps to 10⁴·tol against 5473 from this start)."""
        C, m = self.C, self.m
        if m > opts["newton_points"]:
            return None
        total = self.C * self.nu * m
        face = self._face_minimiser(gram, np.arange(m), np.zeros(m), np.zeros(m), total, opts)
        if face is None:
            return None
        d = face.d
        if float(np.abs(d).max()) < C * (1 - 1e-12) and float(np.abs(d).sum()) <= total:
            return _FaceStep(self._padded(d, total), face.outputs, face.points, face.solve)
        del face  # its factor: m² memory
        np.clip(d, -C, C, out=d)
        for _ in range(100):  # the clipped mass back on the points with room, in proportion to it
            excess = float(d.sum())
            if abs(excess) <= 1e-13 * C * m:
                break
            room = C - d if excess < 0 else C + d
            d -= excess * room / max(float(room.sum()), np.finfo(float).tiny)
            np.clip(d, -C, C, out=d)
        else:
            return None
        mass = float(np.abs(d).sum())
        if mass > total:
            d *= total / mass
        return _FaceStep(self._padded(d, total), None, np.arange(m), None)

    def _face_minimiser(
        self, gram: GramOperator, F: NDArray[np.intp], d0: Array, Kd0: Array, total: float, opts: dict[str, Any]
    ) -> _Face | None:
        """The minimiser of ½dᵀKd − yᵀd on the face of ``d0`` with the points F free
        (:meth:`_face_solve`), from one Cholesky factorisation of K_FF plus
        :data:`~sdpkern.native.hyperkernel_master.HESSIAN_RIDGE` times its largest diagonal entry
        (as the Hessian's); None where K_FF is not definite in floating point or the borders are
        dependent. The tube binds where ``d0`` makes it (Σabs(d0) = ``total`` = Cνm).

        K(β)'s column cache is released first unless the f × f matrix is under a sixteenth of its
        budget: the matrix takes its place, as the master's Hessian's does after the solve; a
        small one is not worth the columns computed again (docs/hyperkernel.md, "The
        ν-regression's inner solve: a cold start and face steps")."""
        from scipy.linalg import LinAlgError
        from threadpoolctl import threadpool_limits

        f = F.size
        if 8 * f * f > gram.cache_bytes // 16:
            gram.release_cache()
        M = _dense(gram, opts["n_jobs"], F)  # its lower triangle at least
        ridge = HESSIAN_RIDGE * max(float(M.diagonal().max()), np.finfo(float).tiny)
        M[np.diag_indices(f)] += ridge
        try:
            with threadpool_limits(limits=opts["n_jobs"], user_api="blas"):
                factor = cho_factor(M, lower=True, overwrite_a=True)
        except LinAlgError:
            return None  # K_FF not definite in floating point
        del M
        slack = float(np.abs(d0).sum()) < total * (1.0 - 1e-9)
        with threadpool_limits(limits=opts["n_jobs"], user_api="blas"):
            return self._face_solve(F, BorderedCholesky.plain(factor), ridge, d0, Kd0, total, slack, np.sign(d0[F]))

    def _face_solve(
        self, G: NDArray[np.intp], solve: BorderedCholesky, ridge: float, d0: Array, Kd0: Array, total: float,
        slack: bool, signs: Array,
    ) -> _Face | None:  # fmt: skip
        """d_G minimising ½dᵀKd − yᵀd with d held at ``d0`` off G, 1ᵀd = 0 and, where the tube binds
        (not ``slack``), s_Gᵀd_G = Cνm − Σabs(d_H) (s the ``signs``); None where the borders are
        dependent. ``solve`` applies (K_GG + ridge·I)⁻¹.

        In the step Δ = d_G − d0_G the KKT rows are (K_GG + ridge·I)Δ + b + εs = y_G − (K d0)_G −
        ridge·d0_G, from ``Kd0`` (no pass over the held points), with ε = 0 and no tube row where
        it is slack; they also give (K d)_G = y_G − b − εs − ridge·d_G at the solution, to the
        solve's residual. The borders by their Schur complement."""
        g = G.size
        E = np.ones((g, 1)) if slack else np.column_stack([np.ones(g), signs])
        held = np.delete(d0, G)
        rhs = np.array([-held.sum()] if slack else [-held.sum(), total - np.abs(held).sum()]) - E.T @ d0[G]
        Z = solve(np.column_stack([self.y[G] - Kd0[G] - ridge * d0[G], E]))
        Y = Z[:, 1:]
        try:  # singular where every s_i is one sign (two equal rows)
            lam = np.linalg.solve(E.T @ Y, E.T @ Z[:, 0] - rhs)  # (b, ε)
        except np.linalg.LinAlgError:
            return None
        d = d0[G] + Z[:, 0] - Y @ lam
        return _Face(G, d, self.y[G] - E @ lam - ridge * d, lam, solve, ridge, slack)

    def _padded(self, d: Array, total: float) -> Array:
        """[α; α*] in libsvm's order (α − α* = d there) with Σ(α + α*) = ``total``: the tube's
        slack shared out as α = α* on the points with room, in proportion to it.

        A slack within the rounding error of Σ|d| (m·u·``total``, Higham, *Accuracy and Stability
        of Numerical Algorithms*, §4.2) is none: where the tube binds, Σ|d| = ``total`` up to that
        error, and padding by it would make every point's α and α* positive, i.e. free, where the
        points inside the tube are at 0 (the SMO then took hundreds of steps to put them back)."""
        d = np.clip(d, -self.C, self.C)
        room = self.C - np.abs(d)
        slack = total - float(np.abs(d).sum())
        if slack <= d.size * np.finfo(float).eps * total:
            slack = 0.0
        share = 0.5 * slack / max(float(room.sum()), np.finfo(float).tiny)
        pad = room * share
        return np.concatenate([np.maximum(d, 0.0) + pad, np.maximum(-d, 0.0) + pad])

    def constant(self, alpha: Array) -> float:
        return float(self.y @ (alpha[self.m :] - alpha[: self.m])) / (self.C * self.m)

    def vector(self, alpha: Array) -> Array:
        return (alpha[self.m :] - alpha[: self.m]) / float(np.sqrt(self.C * self.m))

    def coef(self, inner: InnerSolution) -> Array:
        return inner.alpha[self.m :] - inner.alpha[: self.m]

    def decisions(self, inner: InnerSolution) -> Array:
        return inner.Ku * float(np.sqrt(self.C * self.m)) - inner.offset

    def decision_accuracy(self, opts: dict[str, Any]) -> float:
        return _decision_accuracy(opts, self.nu)

    def curvature(self, alpha: Array) -> Curvature:
        """In d = α* − α (u = d/√(Cm)): the points with d inside the box, held by 1ᵀd = 0 and,
        where the tube binds, by s_Fᵀd_F = Cνm − Σ|d_B| (s the signs; the points with d = 0 are
        then inside the tube, held). Where it is slack (Σ|d| < Cνm: ε = 0) every point inside the
        box is free and the tube is no constraint: the slack is α = α* on some points, which a
        perturbation of d moves without changing the objective."""
        m, C = self.m, self.C
        d = alpha[m:] - alpha[:m]
        absd = np.abs(d)
        slack = float(absd.sum()) < self.C * self.nu * m * (1 - 1e-9)
        inside = absd < C * (1 - 1e-12)
        F = np.flatnonzero(inside if slack else inside & (absd > 1e-12 * C))
        rows = [np.ones(F.size)] if slack else [np.ones(F.size), np.sign(d[F])]
        return Curvature(F, np.full(F.size, 1.0 / float(np.sqrt(C * m))), np.zeros(F.size), None, np.vstack(rows))


@dataclass
class _AlignmentFamily(MasterFamily):
    """Hyperkernel kernel-target alignment (002 eq. 3.13 with the ridge ε > 0, as the builder):
    α free, q(α) = targetᵀα − (ε/2)‖α‖², u = α, and the squared regulariser (λ_Q/2)‖Lᵀβ‖².

    The inner maximiser α = (K(β) + εI)⁻¹target comes from a dense Cholesky factorisation of
    K(β) + εI (m² memory, m³/3 flops per β step), whose factor the master's Newton step reuses
    (:class:`~sdpkern.native.hyperkernel_master.InnerSolution`); there is no model, only β. For a
    dictionary K(β) comes from one pass over the pairs' lower triangle per β step; for other
    hyperkernels (many terms, a pair loop per entry) the terms' dense matrices are kept while they
    fit in the column-cache budget (``opts["sum_cache_bytes"]``, the alignment has no column
    caches), and K(β) is a weighted sum of them.
    """

    name: ClassVar[str] = "hyperkernel alignment"
    source: ClassVar[str] = "002 eq. (3.13)"
    dense: ClassVar[bool] = True
    target: Array
    ridge: float
    squared: bool = True

    #: the dense term matrices kept so far, by term operator (the master keeps one per term)
    blocks: dict[int, Array] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.m = self.target.shape[0]

    def _kernel(self, gram: GramOperator, budget: int, n_jobs: int) -> Array:
        """K(β) dense (its lower triangle at least, in Fortran order): by a pass over the pairs, or
        Σ_l β_l K_l from the kept term matrices when they fit in ``budget`` bytes (not for a
        dictionary: its pass over half the pairs costs less than reading the kept matrices)."""
        if not (isinstance(gram, SumGram) and all(isinstance(t.op, TermGram) for t in gram.terms)):
            return _dense(gram, n_jobs)
        terms = [t.op for t in gram.terms]
        if isinstance(terms[0], TermGram) and isinstance(terms[0].hyperkernel, ARDDictionary):
            return _dense(gram, n_jobs)
        if 8 * self.m * self.m * len(set(map(id, terms)) | set(self.blocks)) > budget:
            return _dense(gram, n_jobs)
        new = [op for op in terms if id(op) not in self.blocks]
        if new:
            first = new[0]
            assert isinstance(first, TermGram)
            feats = np.vstack([op.feature for op in new if isinstance(op, TermGram)])
            stack = term_block(first.hyperkernel, feats, first.X, first.X)
            for k, op in enumerate(new):
                self.blocks[id(op)] = np.array(stack[k], dtype=np.float64)
        M = np.zeros((self.m, self.m), order="F")
        for t in gram.terms:
            if t.weight != 0.0:
                M += t.weight * self.blocks[id(t.op)]
        return M

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        from scipy.linalg import LinAlgError, cho_solve
        from threadpoolctl import threadpool_limits

        M = self._kernel(gram, int(opts["sum_cache_bytes"]), int(opts["n_jobs"]))
        M[np.diag_indices_from(M)] += self.ridge
        try:
            # BLAS threads as n_jobs says: two OpenBLAS threads on the shared 2-core machine under load
            # took 0.76 s for a 300 × 300 Cholesky factorisation that one thread does in 1.6 ms
            with threadpool_limits(limits=opts["n_jobs"], user_api="blas"):
                factor = cho_factor(M, lower=True, overwrite_a=True)
                alpha = cho_solve(factor, self.target, check_finite=False)
        except LinAlgError as exc:  # K(β) + εI ⪰ εI: only a kernel that is not PSD fails here
            raise NotPSDError(
                f"K(beta) + ridge*I is not positive definite (ridge = {self.ridge:g}): a basis kernel is not PSD"
            ) from exc
        Ku = self.target - self.ridge * alpha
        # K(β) + εI is the Hessian's bordered matrix (:meth:`curvature`): its factor goes with the solution
        return InnerSolution(alpha, alpha, Ku, self.constant(alpha), 0.0, 1, factor=BorderedCholesky.plain(factor))

    def constant(self, alpha: Array) -> float:
        return float(self.target @ alpha - 0.5 * self.ridge * float(alpha @ alpha))

    def vector(self, alpha: Array) -> Array:
        return alpha

    def coef(self, inner: InnerSolution) -> Array:
        return inner.alpha

    def decision_accuracy(self, opts: dict[str, Any]) -> float:
        return 0.0  # a direct solve

    def quadratic_part(self) -> tuple[Array, float]:
        """q(α) = yᵀα − (ε/2)‖α‖² on the whole space, u = α: D is matrix-fractional."""
        return self.target, self.ridge

    def curvature(self, alpha: Array) -> Curvature:
        """Every variable is free (A is the whole space), −∇²q = εI."""
        return Curvature(np.arange(self.m), np.ones(self.m), np.full(self.m, self.ridge), None, np.zeros((0, self.m)))


def _terms(gram: GramOperator) -> tuple[TermGram, Array, Array] | None:
    """(a term operator, the terms' features, their weights β) where ``gram`` is K(β) over term
    operators, else None."""
    if not (isinstance(gram, SumGram) and all(isinstance(t.op, TermGram) for t in gram.terms)):
        return None
    ops = [t.op for t in gram.terms if isinstance(t.op, TermGram)]
    return ops[0], np.vstack([op.feature for op in ops]), np.asarray(gram.weights, dtype=np.float64)


def _dense(gram: GramOperator, n_jobs: int, points: NDArray[np.intp] | None = None) -> Array:
    """K(β)[P, P] as a dense matrix in Fortran order (P the ``points``, all by default; for a
    dictionary its lower triangle only, which the Cholesky factorisation reads): the terms'
    blocks by the compiled loops (one pass per relevance vector of a dictionary, over half the
    pairs) instead of columns through the caches."""
    got = _terms(gram)
    if got is None:
        K = gram.to_dense() if points is None else gram.block(points, points)
        return np.array(K, dtype=np.float64, order="F")
    first, feats, beta = got
    X = first.X if points is None else first.X[points]
    if isinstance(first.hyperkernel, ARDDictionary):
        out = np.zeros((X.shape[0], X.shape[0]), order="F")
        return dictionary_gram(first.hyperkernel, feats, beta, X, out, n_jobs=n_jobs)
    return np.array(learned_block(first.hyperkernel, feats, beta, X, X), dtype=np.float64, order="F")


def _block(gram: GramOperator, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> Array:
    """K(β)[rows, cols] by the compiled loops where ``gram`` is over term operators (one pass per
    relevance vector of a dictionary), else by ``gram.entries``; nothing cached either way."""
    got = _terms(gram)
    if got is None:
        return gram.entries(rows, cols)
    first, feats, beta = got
    return learned_block(first.hyperkernel, feats, beta, first.X[rows], first.X[cols])


def _outputs(gram: GramOperator, rows: NDArray[np.intp], cols: NDArray[np.intp], v: Array, n_jobs: int) -> Array:
    """K(β)[rows, cols] v by a pass over those pairs, nothing cached."""
    got = _terms(gram)
    if got is not None and isinstance(got[0].hyperkernel, ARDDictionary):
        X = got[0].X
        return dictionary_matvec(got[0].hyperkernel, got[1], got[2], X[rows], X[cols], v, n_jobs=n_jobs)
    step = max(1, (1 << 22) // max(1, cols.size))
    return np.concatenate([gram.block(rows[lo : lo + step], cols) @ v for lo in range(0, rows.size, step)])


def _face_reach(d: Array, step: Array, C: float, budget: float) -> float:
    """The largest t ≤ 1 with |d + t·step| ≤ C entrywise and Σ|d + t·step| ≤ ``budget`` (both
    convex in t and met at t = 0: the feasible t are an interval; the sum's end by bisection)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        box = np.where(step > 0, (C - d) / step, np.where(step < 0, (C + d) / -step, np.inf))
    t = float(min(1.0, np.min(box, initial=np.inf)))
    if float(np.abs(d + t * step).sum()) <= budget * (1 + 1e-12):
        return max(t, 0.0)
    lo, hi = 0.0, t
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if float(np.abs(d + mid * step).sum()) <= budget * (1 + 1e-12) else (lo, mid)
    return lo


# ------------------------------------------------------------------------------------ entry points
def nu_feasible_bound(y: Array) -> float:
    """2·min(m₊, m₋)/m: the largest ν for which the ν-SVM (002 eq. 3.9) is feasible."""
    return 2.0 * min(int(np.sum(y > 0)), int(np.sum(y < 0))) / y.shape[0]


def _check_nu(nu: Any) -> float:
    if isinstance(nu, bool) or not isinstance(nu, (int, float, np.integer, np.floating)) or not 0.0 < float(nu) <= 1.0:
        raise ParameterError(f"nu must be a number in (0, 1], got {nu!r}")
    return float(nu)


def hyperkernel_nusvm_native(
    basis: HyperkernelBasis, y: ArrayLike, *, nu: float = 0.3, lambda_Q: float = 1.0, **options: Any
) -> NativeMasterResult:
    """The hyperkernel ν-SVM (002 eq. 3.9, SOCP form) by the native restricted master.

    Same problem and parameters as :func:`~sdpkern.builders.hyperkernel.nusvm`; the inner problem
    is libsvm's ν-SVC on the SMO core (module docstring).

    Parameters
    ----------
    basis : HyperkernelBasis
    y : array (m,)
        Labels ±1 of both classes.
    nu : float in (0, 1]
        Feasible up to 2·min(m₊, m₋)/m.
    lambda_Q : float
    **options
        As :func:`~sdpkern.native.hyperkernel_master.solve_master` (``smo_tol`` relative to the
        inner QP's gradient scale).

    Returns
    -------
    NativeMasterResult
        ``alpha`` (0 ≤ α ≤ 1/m), ``coef`` = y∘α, ``offset`` b, ``extras["rho"]`` the margin.

    Raises
    ------
    ParameterError
        ν outside (0, 1] or above 2·min(m₊, m₋)/m (the message names the feasible range).
    """
    ya = _check_labels(np.asarray(y, dtype=np.float64), basis.X.shape[0])
    v = _check_nu(nu)
    bound = nu_feasible_bound(ya)
    if v > bound * (1 + 1e-12):
        raise ParameterError(
            f"nu = {v!r} is infeasible for these labels: the nu-SVM needs 0 < nu <= 2 min(m+, m-)/m = {bound:.4g} "
            f"({int(np.sum(ya > 0))} and {int(np.sum(ya < 0))} points per class); lower nu or balance the classes"
        )
    return solve_master(basis, _NuSVCFamily(y=ya, nu=v), lambda_Q=lambda_Q, **options)


def hyperkernel_l2svm_native(
    basis: HyperkernelBasis, y: ArrayLike, *, C: float = 50.0, lambda_Q: float = 1.0,
    sample_weight: ArrayLike | None = None, **options: Any,
) -> NativeMasterResult:  # fmt: skip
    """The hyperkernel L2 (Lagrangian) SVM (002 eq. 3.10, SOCP form) by the native restricted master.

    Same problem and parameters as :func:`~sdpkern.builders.hyperkernel.l2svm` (``C`` is
    scikit-learn's C of the squared hinge, loss C Σ w_i ξ_i²); the inner problem is the core's QP
    without equality constraint on K(β) + 11ᵀ (module docstring).

    Parameters
    ----------
    basis : HyperkernelBasis
    y : array (m,)
        Labels ±1 of both classes.
    C : float > 0
    lambda_Q : float
    sample_weight : array (m,) of floats ≥ 0, optional
    **options
        As :func:`~sdpkern.native.hyperkernel_master.solve_master` (``smo_tol`` in margin units).

    Returns
    -------
    NativeMasterResult
        ``alpha`` (α ≥ 0), ``coef`` = y∘α, ``offset`` = −yᵀα.
    """
    ya = _check_labels(np.asarray(y, dtype=np.float64), basis.X.shape[0])
    w = as_sample_weight(sample_weight, ya.shape[0])
    family = _L2SVCFamily(y=ya, C=check_positive(C, "C"), weights=w)
    return solve_master(basis, family, lambda_Q=lambda_Q, **options)


def hyperkernel_one_class_native(
    basis: HyperkernelBasis, *, nu: float = 0.1, lambda_Q: float = 1.0, **options: Any
) -> NativeMasterResult:
    """The hyperkernel one-class SVM (002 eq. 3.11 times ν, SOCP form) by the native restricted master.

    Same problem, parameters and reported objective (ν times (3.11)'s) as
    :func:`~sdpkern.builders.hyperkernel.one_class`; the inner problem is libsvm's one-class SVM on
    the SMO core.

    Parameters
    ----------
    basis : HyperkernelBasis
        On at least 2 points.
    nu : float in (0, 1]
    lambda_Q : float
    **options
        As :func:`~sdpkern.native.hyperkernel_master.solve_master`.

    Returns
    -------
    NativeMasterResult
        ``alpha`` (sum 1, 0 ≤ α ≤ 1/(νm)) = ``coef``, ``offset`` = ρ.
    """
    m = basis.X.shape[0]
    if m < 2:
        raise DataError(f"one-class data needs at least 2 samples to describe a support, got {m} sample")
    return solve_master(basis, _OneClassFamily(nu=_check_nu(nu), m=m), lambda_Q=lambda_Q, **options)


def regression_targets(y: ArrayLike, m: int) -> Array:
    """Finite, non-constant regression targets (one per training point) as a float vector."""
    ya = as_vector(y, "y", length=m)
    if m < 2:
        raise DataError(f"regression needs at least 2 samples to have a spread, got {m} sample")
    if not np.all(np.isfinite(ya)):
        raise DataError("y contains NaN or infinity: regression targets must be finite numbers")
    c = float(np.std(ya, ddof=1))
    if not c > 1e-12 * max(1.0, float(np.abs(ya).max())):
        raise LabelError(
            "y is constant: regression has nothing to learn and the scale 1ᵀβ = stddev(y) would be 0; "
            "predict the constant (sklearn.dummy.DummyRegressor) or check the targets"
        )
    return np.ascontiguousarray(ya)


def hyperkernel_nu_regression_native(
    basis: HyperkernelBasis, y: ArrayLike, *, C: float = 100.0, nu: float = 0.3, lambda_Q: float = 1.0,
    **options: Any,
) -> NativeMasterResult:  # fmt: skip
    """The hyperkernel ν-regression (002 eq. 3.12, SOCP form) by the native restricted master.

    Same problem, parameters and reported objective ((3.12)'s divided by Cm) as
    :func:`~sdpkern.builders.hyperkernel.nu_regression`, with 1ᵀβ = stddev(y); the inner problem is
    libsvm's ν-SVR on the SMO core (module docstring).

    Parameters
    ----------
    basis : HyperkernelBasis
    y : array (m,)
        Finite real targets, not all equal.
    C : float > 0
        The box of α, α* (scikit-learn's ``NuSVR(C)``).
    nu : float in (0, 1]
    lambda_Q : float
    **options
        As :func:`~sdpkern.native.hyperkernel_master.solve_master`.

    Returns
    -------
    NativeMasterResult
        ``alpha`` = [α; α*] (the conic route's 2m-vector), ``coef`` = α* − α, ``offset`` b of
        f = K(α* − α) − b, ``extras["epsilon"]`` the tube width.
    """
    ya = regression_targets(y, basis.X.shape[0])
    family = _NuSVRFamily(y=ya, C=check_positive(C, "C"), nu=_check_nu(nu))
    return solve_master(basis, family, lambda_Q=lambda_Q, **options)


def hyperkernel_alignment_native(
    basis: HyperkernelBasis, y: ArrayLike, *, lambda_Q: float = 1.0, ridge: float = 1e-2, **options: Any
) -> NativeMasterResult:
    """Hyperkernel kernel-target alignment (002 eq. 3.13 with 1ᵀβ = 1 and the ridge ε) by the native master.

    Same problem as :func:`~sdpkern.builders.hyperkernel.alignment` with ``ridge`` > 0 (targets:
    two classes as ±1, real values centred and scaled to unit standard deviation); the inner
    maximiser is a dense linear solve (module docstring).

    Parameters
    ----------
    basis : HyperkernelBasis
    y : array (m,)
    lambda_Q : float
    ridge : float > 0
        ε of K(β) + εI (the native route needs ε > 0; ``ridge=0`` is the conic route's).
    **options
        As :func:`~sdpkern.native.hyperkernel_master.solve_master`.

    Returns
    -------
    NativeMasterResult
        ``beta`` the learned weights, ``alpha`` = (K(β) + εI)⁻¹target.
    """
    from ..builders.hyperkernel.alignment import _alignment_target

    ridge_v = check_positive(ridge, "ridge")
    _, target = _alignment_target(basis.X, y)
    family = _AlignmentFamily(target=np.ascontiguousarray(target), ridge=ridge_v)
    return solve_master(basis, family, lambda_Q=lambda_Q, **options)

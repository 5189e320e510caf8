"""``KernelProblem`` (a CVXPY model plus what is needed to recover the learned model) and
``Solution`` (status, objective, timings, the recovered model and its decision function).

A builder is a pure function ``data + parameters -> KernelProblem``; nothing touches a
solver until :meth:`KernelProblem.solve`. Sweepable values are ``cvxpy.Parameter`` objects,
so re-solving after :meth:`KernelProblem.set` skips CVXPY's canonicalisation (DPP).
"""

from __future__ import annotations

import dataclasses
import os
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from . import _display
from ._capabilities import check_backend_for
from ._validation import DEPRECATED, check_integer, check_open_interval, check_positive, take_deprecated
from .backends import DEFAULT_BACKEND, Backend, get_backend, map_status, raw_certificate
from .errors import (
    InaccurateSolutionError,
    InfeasibleError,
    NumericalError,
    ParameterError,
    SolverError,
    UnboundedError,
)

__all__ = [
    "KernelProblem",
    "Solution",
    "Model",
    "Certificate",
    "Attempt",
    "ProblemData",
    "RECOVERY_BACKEND",
    "RECOVERY_TIME_FACTOR",
    "RECOVERY_MIN_TIME",
    "RECOVERY_OPTIONS",
]

#: The backend the recovery policy tries after the requested one (:meth:`KernelProblem.solve`).
RECOVERY_BACKEND = {"clarabel": "scs", "scs": "clarabel"}

#: The recovery policy's time budget (:meth:`KernelProblem.solve`, ``recovery_time``): by default
#: the recovery attempts together get RECOVERY_TIME_FACTOR × the first attempt's wall time, and
#: at least RECOVERY_MIN_TIME seconds. (An SCS retry used to run to its 2 million iteration cap:
#: minutes on a HyperkernelNuSVR fit.)
RECOVERY_TIME_FACTOR = 10.0
RECOVERY_MIN_TIME = 10.0

#: The recovery policy's re-solve of an ``optimal_inaccurate`` answer with a backend's own
#: options changed (:meth:`KernelProblem.solve`, step 2). Clarabel regularises its KKT system by
#: ``static_regularization_constant`` (default 1e-8); where its last steps stall at AlmostSolved,
#: 1e-10 can finish them: the seed-2 ν-regression sweep's thyroid m = 30, C = 5.5e5 SOCP ended
#: AlmostSolved (relative gap 1.02e-8, primal residual 6e-8 → 2e-4 in the last step) and is
#: optimal in 16 iterations at 1e-10, equal to the SDP form's optimum to 2e-8, where SCS's answer
#: was 2e-5 off. Only a recovery step: as Clarabel's default it lost 8 of 20 SDPM r3/r4 solves.
RECOVERY_OPTIONS = {"clarabel": {"static_regularization_constant": 1e-10}}

#: Statuses a solver gives when it stops at a cap (SCS says "solved inaccurate" at max_iters).
_LIMITED = ("iteration_limit", "time_limit", "optimal_inaccurate")

#: Statuses ordered from best to worst, to pick the best attempt of a recovery.
_STATUS_RANK = {"optimal": 0, "optimal_inaccurate": 1, "iteration_limit": 2, "time_limit": 2}


@dataclass
class Model:
    """What a recovery step returns: the learned model in the family's own terms.

    ``decision`` maps new inputs to decision values (``None`` for families without one, such
    as kernel alignment). ``extras`` holds family-specific values (dual blocks, θ*, ...).
    """

    alpha: NDArray[np.float64] | None = None
    offset: float | None = None
    beta: NDArray[np.float64] | None = None
    kernel_matrix: NDArray[np.float64] | None = None
    decision: Callable[[ArrayLike], NDArray[np.float64]] | None = None
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Certificate:
    """What the solver vouches for at the point it returned, in its own measures.

    Attributes
    ----------
    backend : str
    solver_status : str
        The solver's own status word (Clarabel's ``Solved``/``AlmostSolved``/..., SCS's
        ``solved``/``solved inaccurate``/...).
    iterations : int or None
    primal_residual, dual_residual : float or None
        Relative, in the solver's own stopping rule's terms (:func:`~sdpkern.backends.raw_certificate`):
        Clarabel's ``r_prim``/``r_dual``; SCS's ``res_pri``/``res_dual`` divided by 1 + the norm
        its test scales ``eps_rel`` by, so that ≤ ``tol`` means the same on both.
    gap : float or None
        abs(primal − dual objective) (SCS's ``gap``; Clarabel's two objectives' difference).
    relative_gap : float or None
        gap / max(1, min(abs(primal objective), abs(dual objective))) (Clarabel's ``tol_gap_rel`` rule);
        for SCS gap / (1 + max(|xᵀPx|, |cᵀx|, |bᵀy|)), its own rule.
    tol : float or None
        The tolerance the solve was asked for (``tol`` of :meth:`KernelProblem.solve`).
    """

    backend: str
    solver_status: str
    iterations: int | None
    primal_residual: float | None
    dual_residual: float | None
    gap: float | None
    relative_gap: float | None
    tol: float | None

    @property
    def worst(self) -> float:
        """The largest of the residuals and the relative gap (inf when none is known)."""
        known = [v for v in (self.primal_residual, self.dual_residual, self.relative_gap) if v is not None]
        return max(known) if known else float("inf")

    def as_dict(self) -> dict[str, Any]:
        """The certificate as a plain mapping (for ``certificate_`` on estimators and JSON)."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Attempt:
    """One solver call of :meth:`KernelProblem.solve` (the first, or a recovery step).

    ``reason`` says why it ran (``"requested"``, ``"retry: 10x iterations"``, ``"retry: other
    backend"``); ``options`` are the solver settings it was given; ``max_iter`` and
    ``time_limit`` the caps it ran under in sdpkern's terms (None: the solver's default, no time
    limit): the caller's, or for a recovery attempt the recovery budget's (seconds left of
    ``recovery_time`` when it started).
    """

    backend: str
    status: str
    solver_status: str
    certificate: Certificate
    options: dict[str, Any]
    reason: str
    time: float
    max_iter: int | None = None
    time_limit: float | None = None


@dataclass
class Solution:
    """The outcome of one solve.

    Attributes
    ----------
    status : str
        sdpkern's status vocabulary (see :mod:`sdpkern.backends`).
    objective : float
        The optimal value of the problem as built.
    backend : str
    solver_status : str
        What CVXPY/the solver reported.
    compile_time, setup_time, solve_time, total_time : float
        Seconds: CVXPY's canonicalisation, the solver's set-up, the solver's iterations and
        the wall time of the whole call.
    iterations : int or None
    model : Model
        The recovered model: α, offset, β, learned kernel matrix, decision function.
    certificate : Certificate or None
        The solver's residuals, gap, status and iterations at the returned point.
    attempts : list of Attempt
        Every solver call the solve made, in order (one unless the recovery policy ran).
    recovery : str or None
        What the recovery policy did, or a formulation's own second solve (the SDPM's re-solve
        at its optimum's scale, :meth:`sdpkern.builders.sdpm.SDPMProblem.solve`); None when the
        first attempt was optimal and stands. ``backend`` is the backend of the attempt returned.
    method : str
        How the problem was solved (:meth:`KernelProblem.solve`'s ``method``): ``"direct"`` (the
        whole CVXPY problem in one solver call plus recovery) or ``"cone_generation"`` (a sequence
        of restricted problems; ``certificate``, ``attempts`` and the timings but ``total_time``
        are the last restricted solve's).
    max_violation : float or None
        ``"cone_generation"`` only: the largest violation of an omitted constraint at the
        returned point, in the problem's units (≤ ``tol``·max(1, abs(objective)) certifies the
        restricted optimum as the whole problem's).
    active_terms : ndarray of int or None
        ``"cone_generation"`` only: the terms (e.g. hyperkernel basis terms) whose constraints
        the last restricted problem held.
    """

    status: str
    objective: float
    backend: str
    solver_status: str
    compile_time: float
    setup_time: float | None
    solve_time: float | None
    total_time: float
    iterations: int | None
    model: Model
    certificate: Certificate | None = None
    attempts: list[Attempt] = field(default_factory=list)
    recovery: str | None = None
    method: str = "direct"
    max_violation: float | None = None
    active_terms: NDArray[np.intp] | None = None

    @property
    def alpha(self) -> NDArray[np.float64] | None:
        return self.model.alpha

    @property
    def offset(self) -> float | None:
        return self.model.offset

    @property
    def beta(self) -> NDArray[np.float64] | None:
        return self.model.beta

    @property
    def kernel_matrix(self) -> NDArray[np.float64] | None:
        return self.model.kernel_matrix

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision values on new inputs (the family's prediction rule)."""
        if self.model.decision is None:
            raise TypeError("this formulation has no decision function (it learns a kernel only)")
        return self.model.decision(X)

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Sign of the decision function, in {-1, +1} (0 mapped to +1)."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    def __repr__(self) -> str:
        return (
            f"Solution(status={self.status!r}, objective={self.objective:.8g}, backend={self.backend!r}, "
            f"iterations={self.iterations}, total_time={self.total_time:.3f}s)"
        )

    # ------------------------------------------------------------------ display
    def display(self) -> _display.Display:
        """What a notebook shows (``_repr_html_``) and IPython prints (``_repr_pretty_``): the status,
        objective, certificate, timings, every attempt and the recovered model's sizes."""
        d = _display.Display(f"Solution: {self.status}, objective {_display.fmt(self.objective, 10)}")
        outcome = [("status", f"{self.status} ({self.backend} said {self.solver_status!r})"),
                   ("objective", f"{_display.fmt(self.objective, 10)} (the formulation's units)"),
                   ("method", self.method)]  # fmt: skip
        if self.max_violation is not None:
            outcome.append(("largest omitted violation", _display.fmt(self.max_violation, 3)))
        if self.active_terms is not None:
            outcome.append(("active terms", str(len(self.active_terms))))
        d.add("Outcome", outcome)
        cert = self.certificate
        if cert is not None:
            d.add("Certificate", [
                ("backend", cert.backend), ("solver status", cert.solver_status),
                ("iterations", "–" if cert.iterations is None else str(cert.iterations)),
                ("primal residual", _display.fmt(cert.primal_residual, 3)),
                ("dual residual", _display.fmt(cert.dual_residual, 3)),
                ("relative gap", _display.fmt(cert.relative_gap, 3)),
                ("tolerance asked", _display.fmt(cert.tol, 3)),
            ])  # fmt: skip
        d.add("Timings (s)", [("compile", _display.fmt(self.compile_time, 3)),
                              ("set-up", _display.fmt(self.setup_time, 3)),
                              ("solve", _display.fmt(self.solve_time, 3)),
                              ("total", _display.fmt(self.total_time, 3))])  # fmt: skip
        d.add("Attempts", [
            (f"{i}. {a.backend}", f"{a.reason}: {a.status} in {a.time:.3g} s") for i, a in enumerate(self.attempts, 1)
        ])
        if self.recovery is not None:
            d.add("Recovery", [("what was done", self.recovery)])
        model = []
        for name in ("alpha", "beta"):
            value = getattr(self.model, name)
            if value is not None:
                arr = np.asarray(value)
                model.append((name, f"shape {arr.shape}, {_nonzero(arr)} nonzero"))
        if self.model.offset is not None:
            model.append(("offset", _display.fmt(self.model.offset)))
        if self.model.kernel_matrix is not None:
            model.append(("kernel matrix", f"shape {np.shape(self.model.kernel_matrix)}"))
        model.append(("decision function", "yes" if self.model.decision is not None else "none (learns a kernel only)"))
        d.add("Model", model)
        return d

    def _repr_html_(self) -> str:
        return _display.html(self.display())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        _display.pretty(self.display(), printer, cycle, repr(self))


Recover = Callable[["KernelProblem"], Model]


@dataclass
class ProblemData(MutableMapping[str, Any]):
    """A family's inverse data (what its recovery step reads), typed: a dataclass per family
    (e.g. :class:`sdpkern.builders.hyperkernel.HyperkernelData`) on these framework fields.

    Dict-style access (``data["basis"]``, ``data.get("terms", default)``, ``"terms" in data``)
    stays for one release, as the builders still use it: a field holding ``None`` reads as
    absent, and keys no field declares live in ``extras``.

    Attributes
    ----------
    parameter_checks : dict
        name → check applied by :meth:`KernelProblem.set`.
    derived_parameters : dict
        user-facing name → function(value) → {parameter: value} (e.g. the L2-SVM's C as ridge).
    rescale : callable or None
        ``rescale(problem)``: recomputes a scaled formulation's internal parameters
        (:meth:`KernelProblem._rescale`).
    objective_scale : float
        Factor from the solved objective to the formulation's (``Solution.objective``).
    feasible_bounded : bool or None
        True when the formulation is feasible and bounded for every parameter value (a
        soft-margin SVM): :meth:`KernelProblem.solve` then takes no infeasible or unbounded
        report as certain and raises :class:`~sdpkern.errors.NumericalError` instead.
    extras : dict
        Values under keys no field declares.
    """

    parameter_checks: dict[str, Callable[[Any], Any]] = field(default_factory=dict)
    derived_parameters: dict[str, Callable[[Any], dict[str, float]]] = field(default_factory=dict)
    rescale: Callable[[Any], None] | None = None
    objective_scale: float = 1.0
    feasible_bounded: bool | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def _fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self) if f.name != "extras")

    def __getitem__(self, key: str) -> Any:
        if key in self._fields():
            value = getattr(self, key)
            if value is None:
                raise KeyError(key)
            return value
        return self.extras[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self._fields():
            setattr(self, key, value)
        else:
            self.extras[key] = value

    def __delitem__(self, key: str) -> None:
        if key in self._fields():
            self[key]  # KeyError when absent, as a dict
            setattr(self, key, None)
        else:
            del self.extras[key]

    def __iter__(self) -> Iterator[str]:
        yield from (name for name in self._fields() if getattr(self, name) is not None)
        yield from self.extras

    def __len__(self) -> int:
        return sum(1 for _ in self)
#: ``generate(problem, **solve_arguments) -> Solution``: a faster exact route to the same
#: optimum (:meth:`KernelProblem.solve`, ``method="cone_generation"``).
Generate = Callable[..., Solution]
#: the fields :meth:`KernelProblem.deferred` writes on first use
_DEFERRED_FIELDS = ("cvxpy", "variables", "constraints")


@dataclass
class KernelProblem:
    """A kernel-learning convex program: the CVXPY model and its recovery step.

    A problem made by :meth:`deferred` writes ``cvxpy``, ``variables`` and ``constraints`` on
    first use (a solve by ``generate`` never needs them; ``export``, ``summary`` and a direct
    solve do). In a notebook a problem displays as a table (:meth:`display`).

    Attributes
    ----------
    cvxpy : cvxpy.Problem
        The model itself; change it, inspect it or solve it directly if you like (it is the
        formulation divided by :attr:`objective_scale`; :meth:`solution` reads a solve of it
        back in the formulation's units).
    formulation : str
        Human-readable name, e.g. ``"hyperkernel C-SVM"``.
    source : str
        The equation it implements, e.g. ``"002 eq. (3.8)"``.
    form : str
        ``"sdp"``, ``"socp"`` or ``"qp"``.
    variables, parameters, constraints : dict
        Named handles into the model.
    recover : callable
        ``recover(problem) -> Model`` reads the solved variables and duals.
    data : ProblemData or dict
        Whatever the recovery step needs (training inputs, labels, basis, ...): a family's
        typed :class:`ProblemData` (the hyperkernel builders'), or a plain dict.
    generate : callable or None
        A route to the same optimum through smaller problems (the hyperkernel SOCPs' cone
        generation, :func:`sdpkern.builders.hyperkernel.cone_generation`); ``solve()`` takes it by
        default (``method="auto"``). None when the problem has none.
    """

    cvxpy: cp.Problem
    formulation: str
    source: str
    form: str
    variables: dict[str, cp.Variable]
    parameters: dict[str, cp.Parameter]
    constraints: dict[str, Any]
    recover: Recover
    data: MutableMapping[str, Any] = field(default_factory=dict)
    generate: Generate | None = None

    @classmethod
    def deferred(
        cls,
        write: Callable[[], tuple[cp.Problem, dict[str, cp.Variable], dict[str, Any]]],
        formulation: str,
        source: str,
        form: str,
        parameters: dict[str, cp.Parameter],
        recover: Recover,
        data: MutableMapping[str, Any],
        generate: Generate | None = None,
    ) -> KernelProblem:
        """A problem whose CVXPY model is written by ``write()`` on first use.

        ``write`` returns ``(cvxpy problem, variables, constraints)`` built on ``parameters``
        (the same objects). Writing the model is the costly part of a large problem that a
        ``generate`` route solves without it (measured on the hyperkernel C-SVM at m = 60,
        120 basis terms: 0.8 s to write, 1.2 s to compile, against 0.3 s for the whole cone
        generation).
        """
        problem = cls.__new__(cls)
        problem.__dict__.update(
            formulation=formulation, source=source, form=form, parameters=parameters, recover=recover,
            data=data, generate=generate, _write=write,
        )  # fmt: skip
        return problem

    def __getattr__(self, name: str) -> Any:
        # called only for attributes not set: the fields of a deferred problem, written once
        write = self.__dict__.get("_write")
        if write is None or name not in _DEFERRED_FIELDS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        prob, variables, constraints = write()
        del self.__dict__["_write"]
        self.__dict__.update(cvxpy=prob, variables=variables, constraints=constraints)
        return self.__dict__[name]

    # ------------------------------------------------------------------ parameters
    def set(self, **values: float) -> KernelProblem:
        """Set parameter values (e.g. ``C=10, lambda_Q=0.5``); a re-solve reuses the compilation.

        Names in ``data["derived_parameters"]`` (a mapping name → function(value) → {parameter:
        value}) set the parameters they are expressed through.
        """
        derived = self.data.get("derived_parameters", {})
        for name, value in values.items():
            if name in derived:
                # a user-facing constant the model holds through other parameters (e.g. the
                # L2-SVM's C as ridge = 1/(2C): CVXPY cannot divide by a parameter, DPP)
                self.set(**derived[name](value))
                continue
            if name not in self.parameters:
                known = sorted(set(self.parameters) | set(derived))
                raise ParameterError(f"{name!r} is not a parameter of this problem; it has {known}")
            param = self.parameters[name]
            check = self.data.get("parameter_checks", {}).get(name)
            param.value = check(value) if check is not None else value
        self._rescale()
        return self

    def _rescale(self) -> None:
        """Bring a scaled formulation's internal parameters in step with the user's values.

        A builder that solves a rescaled problem (``data["rescale"]``, e.g. the hyperkernel
        SOCPs, :mod:`sdpkern.builders.hyperkernel.scaling`) writes its CVXPY problem in
        parameters derived from ``parameters``; this recomputes them (and
        ``data["objective_scale"]``) after :meth:`set` or a direct ``.value`` assignment.
        """
        hook = self.data.get("rescale")
        if hook is not None:
            hook(self)

    # ------------------------------------------------------------------ inspection
    def summary(self) -> str:
        """Variables, constraints by cone (model and compiled), parameters and nonzeros."""
        prob = self.cvxpy
        lines = [f"{self.formulation} [{self.form.upper()}]  source: {self.source}"]
        lines.append("variables:")
        for var in sorted(prob.variables(), key=lambda v: v.name()):
            lines.append(f"  {var.name():<12} shape={var.shape}")
        lines.append("constraints (as modelled):")
        counts: Counter[str] = Counter()
        sizes: Counter[str] = Counter()
        for con in prob.constraints:
            kind = type(con).__name__
            counts[kind] += 1
            sizes[kind] += int(np.prod(con.shape)) if con.shape else 1
        for kind in sorted(counts):
            lines.append(f"  {kind:<12} {counts[kind]:>5} constraint(s), {sizes[kind]} scalar row(s)")
        lines.append("parameters:")
        for name, p in self.parameters.items():
            lines.append(f"  {name:<12} value={p.value}")
        lines.append("objective:")
        lines.append(f"  {self._scale_note()}")
        data = self.compiled_data()
        dims = data["dims"]
        A = data["A"]
        soc = list(dims.soc)
        psd = list(dims.psd)
        lines.append("compiled cones (solver form):")
        lines.append(f"  zero={dims.zero}  nonneg={dims.nonneg}")
        lines.append(
            f"  soc: {len(soc)} cone(s)" + (f", sizes {min(soc)}..{max(soc)} (total {sum(soc)})" if soc else "")
        )
        lines.append(f"  psd: {len(psd)} cone(s)" + (f", orders {sorted(set(psd))}" if psd else ""))
        dpp = prob.is_dcp(dpp=True)  # type: ignore[call-arg]
        lines.append(f"  A: {A.shape[0]} x {A.shape[1]}, nonzeros={A.nnz}, DPP={dpp}")
        return "\n".join(lines)

    @property
    def objective_scale(self) -> float:
        """The factor from ``problem.cvxpy``'s optimum to the formulation's (``Solution.objective``).

        1 when the CVXPY model is the formulation as written. A scaled formulation (the
        hyperkernel forms, :mod:`sdpkern.builders.hyperkernel.scaling`; the soft-margin SDPM)
        solves the formulation divided by an estimate of its optimum, so that the solver sees
        an objective of order 1: a CVXPY user who solves ``problem.cvxpy`` reads its optimum
        divided by this factor, and :meth:`solution` reads that solve back in the formulation's
        units. Brought in step with the parameters' current values first (as :meth:`solve` does).
        """
        if all(p.value is not None for p in self.parameters.values()):
            self._rescale()
        return float(self.data.get("objective_scale", 1.0))

    def _scale_note(self) -> str:
        scale = self.objective_scale
        if scale == 1.0:
            return "problem.cvxpy is the formulation as written (objective_scale = 1)"
        return (
            f"problem.cvxpy is the formulation divided by objective_scale = {scale:.8g}: its optimum "
            f"× {scale:.8g} is Solution.objective; problem.solution() reads a solve of problem.cvxpy "
            "back in the formulation's units"
        )

    # ------------------------------------------------------------------ display
    def display(self) -> _display.Display:
        """What a notebook shows (``_repr_html_``) and IPython prints (``_repr_pretty_``): the
        variables, the constraints by cone with their sizes, the parameters and their values, the
        source equation, the objective's scale and the default solve route.

        A deferred problem whose model is not written yet is shown without writing it."""
        d = _display.Display(f"KernelProblem: {self.formulation} [{self.form.upper()}], {self.source}")
        d.add("Formulation", [("name", self.formulation), ("form", self.form), ("source", self.source)])
        if "_write" in self.__dict__:
            d.add("Model", [("CVXPY model", "not written yet: written on first use of problem.cvxpy "
                             "(a solve by cone generation never needs it)")])  # fmt: skip
        else:
            prob = self.cvxpy
            d.add("Variables", [
                (v.name(), f"shape {v.shape}") for v in sorted(prob.variables(), key=lambda v: v.name())
            ])
            d.add("Constraints by cone (as modelled)", _cone_rows(prob.constraints))
        d.add("Parameters", [(name, _display.fmt_value(p.value)) for name, p in self.parameters.items()])
        scale = self.objective_scale
        d.add("Scaling", [
            ("objective_scale", _display.fmt(scale, 8)),
            ("meaning", self._scale_note()),
        ])  # fmt: skip
        route = "cone generation (certified for the whole problem)" if self.generate is not None else "direct"
        d.add("Solving", [("solve() by default", route)])
        return d

    def _repr_html_(self) -> str:
        return _display.html(self.display())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        _display.pretty(self.display(), printer, cycle, repr(self))

    def compiled_data(self, backend: str = "scs") -> dict[str, Any]:
        """The solver-ready data CVXPY produces (``Problem.get_problem_data``)."""
        b = get_backend(backend)
        data, _, _ = self.cvxpy.get_problem_data(b.cvxpy_solver)
        return data

    def export(self, path: str | os.PathLike[str], **options: Any) -> Any:
        """Write the problem for an external solver; the suffix picks the format.

        ``.dat-s`` is SDPA sparse (CSDP, DSDP), ``.cbf`` the Conic Benchmark Format (MOSEK).
        Returns :class:`sdpkern.export.Exported` (the file's data and the map back to the
        problem's variables). See :func:`sdpkern.export.write`.
        """
        from .export import write  # lazy: the export package is not needed to solve

        return write(self, path, **options)

    # ------------------------------------------------------------------ solving
    def solve(
        self,
        backend: str = DEFAULT_BACKEND,
        *,
        tol: float | None = None,
        max_iter: int | None = None,
        time_limit: float | None = None,
        verbose: bool = False,
        warm_start: bool = False,
        allow_inaccurate: bool = False,
        recovery: bool = True,
        recovery_time: float | None = None,
        method: str = "auto",
        eps: Any = DEPRECATED,
        max_iters: Any = DEPRECATED,
        **options: Any,
    ) -> Solution:
        """Solve with ``backend``, certify the answer and recover the model.

        Parameters
        ----------
        backend : str
            The CVXPY solver: ``"clarabel"``, ``"scs"``, any other solver CVXPY has installed, by
            its name in lower case, or one registered with
            :func:`~sdpkern.backends.register_backend` (:mod:`sdpkern.backends`). A backend
            without a cone the problem needs raises :class:`~sdpkern.errors.BackendError` before
            any solve (CVXPY's capabilities, :mod:`sdpkern._capabilities`).
        tol : float in (0, 1), optional
            One meaning on every backend: the relative primal residual, dual residual and gap
            the solver must reach to report ``"optimal"``. Clarabel: ``tol_gap_abs``,
            ``tol_gap_rel``, ``tol_feas``; SCS: ``eps_abs``, ``eps_rel``. Default: the backend's
            ``default_tol`` (Clarabel 1e-8, SCS 1e-7).
        max_iter : int ≥ 1, optional
            Iteration cap (Clarabel ``max_iter``, SCS ``max_iters``).
        time_limit : float > 0, optional
            Seconds per solver call (Clarabel ``time_limit``, SCS ``time_limit_secs``).
        verbose, warm_start : bool
            Passed to CVXPY.
        allow_inaccurate : bool
            Accept an ``optimal_inaccurate`` (or iteration/time-limited) answer with a
            ``ConvergenceWarning`` instead of raising :class:`InaccurateSolutionError`.
        recovery : bool, default True
            The recovery policy, when the first answer is not ``optimal`` (and the problem was
            not certified infeasible or unbounded): (1) after an ``iteration_limit``, the same
            backend again with 10× the iteration cap, from scratch; (2) after an
            ``optimal_inaccurate``, the same backend with :data:`RECOVERY_OPTIONS` (Clarabel:
            ``static_regularization_constant=1e-10``) unless the caller set them; (3) the other
            default backend (Clarabel ↔ SCS, the same ``tol``, ``max_iter`` and ``time_limit``;
            backend-specific ``**options`` are not carried over). It stops at the first
            ``optimal`` attempt; otherwise the best attempt (by status, then by its
            certificate's worst residual) is returned or raised. A limit
            the caller set (``max_iter``, ``time_limit``) is reported, not worked around. No
            attempt's status is ever changed: the returned ``Solution.status`` is what its
            solver said. Every attempt is in ``Solution.attempts``.
        recovery_time : float > 0, optional
            Seconds the recovery attempts may take together (after the first attempt); each one
            runs with the time left as its time limit (the smaller of that and ``time_limit``),
            recorded in ``Attempt.time_limit``, and none starts once it is spent. Default:
            ``RECOVERY_TIME_FACTOR`` (10) × the first attempt's wall time, at least
            ``RECOVERY_MIN_TIME`` (10 s). Only backends with a time limit (Clarabel, SCS) obey it.
        method : {"auto", "direct", "cone_generation"}, default "auto"
            ``"direct"``: the whole CVXPY problem in one solver call (what ``export`` writes).
            ``"cone_generation"``: the problem's ``generate`` route (the hyperkernel SOCP forms:
            restricted problems over a growing set of basis terms,
            :func:`~sdpkern.builders.hyperkernel.cone_generation`), certified for the whole
            problem: the restricted solve is ``"optimal"`` to ``tol`` and no omitted
            constraint is violated by more than ``tol``·max(1, abs(objective))
            (``Solution.max_violation``). ParameterError when the problem has no such route.
            ``"auto"``: ``"cone_generation"`` when the problem has it, else ``"direct"``; if the
            generation does not settle (a ``SolverError`` other than infeasibility), the
            direct solve runs and ``Solution.recovery`` says so.
        eps, max_iters
            Deprecated names of ``tol`` and ``max_iter`` (FutureWarning).
        **options
            The backend's own settings, passed unchanged (they win over ``tol``/``max_iter``).

        Raises
        ------
        ParameterError
            A parameter without a value, or a bad ``tol``/``max_iter``/``time_limit``/option.
        InfeasibleError, UnboundedError, InaccurateSolutionError, SolverError
            When no attempt is acceptable (the status is on the error).
        NumericalError
            When no attempt is certified and one was called infeasible or unbounded, on a
            problem the builder states feasible and bounded for every parameter value
            (``data["feasible_bounded"]``, the soft-margin SVMs): a numerical failure, never
            reported as :class:`InfeasibleError`.
        """
        for name, p in self.parameters.items():
            if p.value is None:
                raise ParameterError(f"parameter {name!r} has no value; call problem.set({name}=...)")
        self._rescale()
        tol = take_deprecated("KernelProblem.solve", "eps", eps, "tol", tol)
        max_iter = take_deprecated("KernelProblem.solve", "max_iters", max_iters, "max_iter", max_iter)
        tol, max_iter, time_limit = _check_solve_options(tol, max_iter, time_limit)
        if recovery_time is not None:
            recovery_time = check_positive(recovery_time, "recovery_time")
        if method not in ("auto", "direct", "cone_generation"):
            raise ParameterError(f"method must be 'auto', 'direct' or 'cone_generation', got {method!r}")
        args = {
            "backend": backend, "tol": tol, "max_iter": max_iter, "time_limit": time_limit, "verbose": verbose,
            "warm_start": warm_start, "allow_inaccurate": allow_inaccurate, "recovery": recovery,
            "recovery_time": recovery_time, **options,
        }  # fmt: skip
        fallback = None
        if method != "direct":
            generated, fallback = self._solve_generated(method, args)
            if generated is not None:
                return generated
        return self._solve_direct(fallback=fallback, **args)

    def solution(self, *, allow_inaccurate: bool = False) -> Solution:
        """A solve of ``problem.cvxpy`` that you ran yourself, read back as a :class:`Solution`.

        ``problem.cvxpy`` is the model :meth:`solve` hands to the solver: for a scaled formulation
        the formulation divided by :attr:`objective_scale`, in scaled variables. After
        ``problem.cvxpy.solve(...)`` with any solver and options, this returns what :meth:`solve`
        would: the status in sdpkern's vocabulary, the objective in the formulation's units (the
        model's optimum × :attr:`objective_scale`) and the recovered model (α, offset, β, the
        decision function; the family's recovery step, as after :meth:`solve`).

        The certificate holds what CVXPY reports of the solve (the status word and iterations);
        the solver's residuals are only known to :meth:`solve`, which calls the solver itself.
        The recovery policy does not run: the answer is the one you made.

        Parameters
        ----------
        allow_inaccurate : bool, default False
            Accept an ``optimal_inaccurate`` (or limited) status with a ``ConvergenceWarning``
            instead of raising :class:`~sdpkern.errors.InaccurateSolutionError`.

        Raises
        ------
        SolverError
            ``problem.cvxpy`` has not been solved; or, as :meth:`solve`, its status is not
            acceptable (:class:`~sdpkern.errors.InfeasibleError`, ...).
        ParameterError
            A parameter's value was changed (``problem.parameters[name].value = ...``) after the
            scaled parameters were derived, so the model was solved with stale ones: call
            ``problem.set()`` (it derives them) and solve again.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from sdpkern.builders.hyperkernel import csvm
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> problem = csvm(X[:20], y[:20], form="sdp")
        >>> _ = problem.cvxpy.solve(solver="CLARABEL")          # CVXPY's own solve
        >>> sol = problem.solution()                            # read back
        >>> bool(abs(sol.objective - problem.cvxpy.value * problem.objective_scale) < 1e-12)
        True
        """
        if "_write" in self.__dict__ or self.cvxpy.status is None:
            raise SolverError(
                f"problem.cvxpy of this {self.formulation} has not been solved: call problem.cvxpy.solve(...) "
                "first (or problem.solve())",
                status="error",
                solver_status=None,
            )
        prob = self.cvxpy
        before = [(param, _copy(param.value)) for param in prob.parameters()]
        self._rescale()
        stale = sorted(param.name() for param, value in before if not _same_value(value, param.value))
        if stale:
            raise ParameterError(
                f"the parameters of this {self.formulation} changed after its scaled parameters {stale} were derived, "
                "so problem.cvxpy was solved with stale ones; they are now in step: solve problem.cvxpy again, "
                "then call problem.solution() (after setting a parameter's .value directly, call problem.set() "
                "before solving by hand)"
            )
        stats = prob.solver_stats
        backend = str(getattr(stats, "solver_name", None) or "unknown").lower()
        cvx_status = str(prob.status)
        raw = raw_certificate(backend, getattr(stats, "extra_stats", None))
        solver_word = str(raw.pop("raw_status", None) or cvx_status)
        status = map_status(cvx_status, solver_word)
        iterations = getattr(stats, "num_iters", None)
        cert = _certificate(backend, solver_word, iterations, raw, None)
        setup, solve_time = getattr(stats, "setup_time", None), getattr(stats, "solve_time", None)
        compile_time = float(getattr(prob, "compilation_time", None) or 0.0)
        total = compile_time + float(setup or 0.0) + float(solve_time or 0.0)
        attempt = Attempt(backend, status, cvx_status, cert, {}, "solved by hand (problem.cvxpy.solve)", total)
        self._raise_for_status(status, solver_word, backend, allow_inaccurate, [attempt])
        value = prob.value
        objective = float(value) if value is not None else float("nan")
        return Solution(
            status=status,
            objective=objective * float(self.data.get("objective_scale", 1.0)),
            backend=backend,
            solver_status=cvx_status,
            compile_time=compile_time,
            setup_time=setup,
            solve_time=solve_time,
            total_time=total,
            iterations=None if iterations is None else int(iterations),
            model=self.recover(self),
            certificate=cert,
            attempts=[attempt],
        )

    def _solve_direct(
        self,
        backend: str,
        *,
        tol: float | None,
        max_iter: int | None,
        time_limit: float | None,
        verbose: bool,
        warm_start: bool,
        allow_inaccurate: bool,
        recovery: bool,
        recovery_time: float | None,
        fallback: str | None,
        **options: Any,
    ) -> Solution:
        """:meth:`solve` with ``method="direct"`` on checked arguments: the whole problem, the
        recovery policy, the certificate and the model (``fallback``: why the generation route
        gave way, for ``Solution.recovery``)."""
        check_backend_for(backend, self.cvxpy, self.formulation)  # e.g. ECOS has no PSD cone
        b = get_backend(backend)
        b.check_portable(tol=tol, max_iter=max_iter, time_limit=time_limit)
        t0 = time.perf_counter()
        settings = {"tol": tol, "max_iter": max_iter, "time_limit": time_limit}
        saved = self._run_attempts(b, settings, options, recovery, recovery_time, warm_start, verbose)
        attempts = [one.attempt for one in saved]
        best = min(saved, key=lambda a: (_STATUS_RANK.get(a.attempt.status, 3), a.attempt.certificate.worst))
        if best is not saved[-1]:
            best.restore(self.cvxpy)
        total = time.perf_counter() - t0
        chosen = best.attempt
        self._raise_for_status(chosen.status, chosen.solver_status, chosen.backend, allow_inaccurate, attempts)
        recovery_note = fallback
        if len(attempts) > 1:
            recovery_note = (
                ("" if fallback is None else fallback + "; ")
                + f"{attempts[0].backend} returned {attempts[0].status!r}; tried "
                + ", ".join(f"{a.backend} ({a.reason}: {a.status})" for a in attempts[1:])
                + f"; returned the {chosen.backend} attempt ({chosen.status})"
            )
        return Solution(
            status=chosen.status,
            # a builder that solves a scaled objective (data["objective_scale"]) reports the
            # problem's own optimum
            objective=best.objective * float(self.data.get("objective_scale", 1.0)),
            backend=chosen.backend,
            solver_status=chosen.solver_status,
            compile_time=best.compile_time,
            setup_time=best.setup_time,
            solve_time=best.solve_time,
            total_time=total,
            iterations=chosen.certificate.iterations,
            model=self.recover(self),
            certificate=chosen.certificate,
            attempts=attempts,
            recovery=recovery_note,
        )

    def _solve_generated(self, method: str, args: dict[str, Any]) -> tuple[Solution | None, str | None]:
        """The ``generate`` route of :meth:`solve`: its Solution, or (``method="auto"`` only)
        None and why the direct solve runs instead."""
        if self.generate is None:
            if method == "cone_generation":
                raise ParameterError(
                    f"{self.formulation} ({self.form}) has no cone generation route; use method='direct'"
                )
            return None, None
        try:
            return self.generate(self, **args), None
        except (InfeasibleError, ParameterError):
            raise  # a relaxation's infeasibility is the problem's; a bad argument is the caller's
        except SolverError as exc:
            if method == "cone_generation":
                raise
            return None, f"cone generation stopped ({exc.status}: {exc}); solved the whole problem directly"

    def _run_attempts(
        self,
        b: Backend,
        settings: dict[str, Any],
        options: dict[str, Any],
        recovery: bool,
        recovery_time: float | None,
        warm_start: bool,
        verbose: bool,
    ) -> list[_Saved]:
        """The first attempt and the recovery policy's (see :meth:`solve`), in order, each saved."""
        tol, max_iter, time_limit = settings["tol"], settings["max_iter"], settings["time_limit"]
        saved: list[_Saved] = []
        deadline: float | None = None  # end of the recovery budget, fixed after the first attempt
        certain = not self._feasible_bounded()  # else an infeasible/unbounded report is a numerical failure
        for bk, reason, caps, own in self._recovery_plan(b, settings, options, recovery):
            last = saved[-1].attempt.status if saved else None
            if last == "optimal" or (last is not None and certain and _certain(last)):
                break
            if last in _LIMITED and (max_iter is not None or time_limit is not None):
                break  # the caller's own caps: reported, not worked around
            if reason == "retry: 10x iterations" and last != "iteration_limit":
                continue  # more iterations only help a solver that ran out of them
            if reason == "retry: own options" and last != "optimal_inaccurate":
                continue  # they help the last steps of a solver that stalled near the optimum
            if saved:  # a recovery attempt: within the budget
                if deadline is None:
                    first = saved[0].attempt.time
                    budget = recovery_time or max(RECOVERY_MIN_TIME, RECOVERY_TIME_FACTOR * first)
                    deadline = time.perf_counter() + budget
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                caps = {**caps, "time_limit": left if caps["time_limit"] is None else min(left, caps["time_limit"])}
            opts = bk.solver_options(own, **caps)
            one = self._attempt(bk, opts, reason, warm_start and not saved, verbose, tol or bk.default_tol)
            one.attempt = dataclasses.replace(one.attempt, max_iter=caps["max_iter"], time_limit=caps["time_limit"])
            saved.append(one)
        return saved

    def _recovery_plan(
        self, b: Backend, settings: dict[str, Any], options: dict[str, Any], recovery: bool
    ) -> list[tuple[Backend, str, dict[str, Any], dict[str, Any]]]:
        """The attempts :meth:`solve` may make, in order (see its ``recovery`` parameter): backend,
        reason, sdpkern's caps (``tol``, ``max_iter``, ``time_limit``) and the backend's own options."""
        plan = [(b, "requested", dict(settings), options)]
        if not recovery:
            return plan
        if "max_iter" in b.aliases:  # a cap sdpkern can set
            more = dict(settings)
            # the solvers' default caps: Clarabel 200, SCS sdpkern's 200 000
            more["max_iter"] = 10 * int(settings["max_iter"] or (200_000 if b.name == "scs" else 200))
            plan.append((b, "retry: 10x iterations", more, options))
        own = RECOVERY_OPTIONS.get(b.name, {})
        if own and not set(own) & set(options):  # the caller's own setting is not overridden
            plan.append((b, "retry: own options", dict(settings), {**options, **own}))
        other = RECOVERY_BACKEND.get(b.name)
        if other is not None:
            try:
                ob = get_backend(other)
            except Exception:  # not installed: the policy has one step fewer
                return plan
            plan.append((ob, "retry: other backend", dict(settings), {}))
        return plan

    def _attempt(
        self, b: Backend, opts: dict[str, Any], reason: str, warm_start: bool, verbose: bool, tol: float | None
    ) -> _Saved:
        """One solver call through CVXPY's public chain (``get_problem_data`` → ``solve_via_data``
        → ``unpack_results``), keeping the solver's raw answer for the certificate."""
        t0 = time.perf_counter()
        prob = self.cvxpy
        try:
            with warnings.catch_warnings():
                # CVXPY's generic "may be inaccurate" warning: the status is reported instead
                warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
                data, chain, inverse = prob.get_problem_data(b.cvxpy_solver, verbose=verbose, solver_opts=dict(opts))
                t1 = time.perf_counter()
                raw = chain.solve_via_data(prob, data, warm_start, verbose, dict(opts))
                t2 = time.perf_counter()
                unreadable = _unpack(prob, raw, chain, inverse)
        except (TypeError, ValueError) as exc:  # an option the solver does not accept
            raise ParameterError(f"option not accepted by {b.name} ({sorted(opts)}): {exc}") from None
        except (cp.error.SolverError, ArithmeticError) as exc:
            return _Saved.failed(b, opts, reason, str(exc), time.perf_counter() - t0, tol)
        except Exception as exc:  # a backend that crashes is a failed attempt (KeyboardInterrupt propagates)
            return _Saved.failed(b, opts, reason, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0, tol)
        if unreadable is not None:
            return _Saved.failed(b, opts, reason, unreadable, time.perf_counter() - t0, tol)
        cvx_status = prob.status
        raw_cert = raw_certificate(b.cvxpy_name.lower() if b.solver is None else b.name, raw, data)
        stats = prob.solver_stats
        iters = getattr(stats, "num_iters", None)
        solver_word = str(raw_cert.pop("raw_status") or cvx_status)
        status = map_status(cvx_status, solver_word)  # the solver's word tells a time from an iteration limit
        cert = _certificate(b.name, solver_word, iters, raw_cert, tol)
        attempt = Attempt(b.name, status, str(cvx_status), cert, dict(opts), reason, time.perf_counter() - t0)
        value = prob.value
        objective = float(value) if value is not None and np.isfinite(value) else float("nan")
        if status in ("optimal", "optimal_inaccurate") and not np.isfinite(objective):
            note = reason + " (non-finite objective)"
            attempt = Attempt(b.name, "error", str(cvx_status), cert, dict(opts), note, attempt.time)
        setup = getattr(stats, "setup_time", None)
        return _Saved(
            attempt, objective, t1 - t0, setup, getattr(stats, "solve_time", None) or (t2 - t1), _snapshot(prob)
        )

    def _raise_for_status(
        self, status: str, raw: str | None, backend: str, allow_inaccurate: bool, attempts: list[Attempt]
    ) -> None:
        if status == "optimal":
            return
        tried = "" if len(attempts) < 2 else " (after " + ", ".join(f"{a.backend}: {a.status}" for a in attempts) + ")"
        if status in ("optimal_inaccurate", "iteration_limit", "time_limit") and allow_inaccurate:
            warnings.warn(
                f"{backend} returned status {status!r} ({raw}) for {self.formulation}{tried}: an inaccurate or "
                "limited answer, not certified optimal (an estimator keeps it for inspection and refuses to predict)",
                ConvergenceWarning,
                stacklevel=4,  # the caller of solve(): _raise_for_status ← _solve_direct ← solve
            )
            return
        hint = {
            "infeasible": "check the data and constraints (a hard-margin problem on non-separable data "
            "is infeasible: use a soft margin)",
            "unbounded": "check the parameters; the problem has no finite optimum",
            "optimal_inaccurate": "loosen tol, raise max_iter, try another backend, "
            "or pass allow_inaccurate=True to accept it",
            "iteration_limit": "raise max_iter or time_limit",
            "time_limit": "raise time_limit (seconds per solver call) or simplify the problem",
        }.get(
            status.replace("_inaccurate", "") if status.startswith(("infeasible", "unbounded")) else status,
            "try another backend or rescale the data",
        )
        msg = f"{backend} returned status {status!r} ({raw}) for {self.formulation}{tried}: {hint}"
        false_verdicts = [a for a in attempts if a.status.startswith(("infeasible", "unbounded"))]
        if false_verdicts and self._feasible_bounded():
            values = ", ".join(
                f"{k}={float(p.value):.6g}" for k, p in self.parameters.items() if p.value is not None and p.size == 1
            )
            said = ", ".join(f"{a.backend}: {a.status}" for a in attempts)
            raise NumericalError(
                f"no solver certified {self.formulation} ({said}); it is feasible and bounded for every "
                f"parameter value, so {false_verdicts[0].backend}'s {false_verdicts[0].status!r} is a numerical "
                f"failure, not a property of the problem ({values}): scale the data or the parameters (a loss "
                "weight C far above the data's scale is the usual cause), or use form='socp' where the builder "
                "offers one",
                status=status,
                solver_status=raw,
            )
        if status.startswith("infeasible"):
            raise InfeasibleError(msg, status=status, solver_status=raw)
        if status.startswith("unbounded"):
            raise UnboundedError(msg, status=status, solver_status=raw)
        if status in ("optimal_inaccurate", "iteration_limit", "time_limit"):
            raise InaccurateSolutionError(msg, status=status, solver_status=raw)
        raise SolverError(msg, status=status, solver_status=raw)

    def _feasible_bounded(self) -> bool:
        """Whether the builder states that the problem is feasible and bounded for every parameter
        value (``data["feasible_bounded"]``; a soft-margin SVM): then no infeasible or unbounded
        report is taken as certain (the recovery policy goes on) and a last one raises
        :class:`~sdpkern.errors.NumericalError`."""
        try:
            return bool(self.data.get("feasible_bounded", False))
        except AttributeError:
            return False

    def __repr__(self) -> str:
        if "_write" in self.__dict__:  # not written yet: do not write it to print it
            return f"KernelProblem({self.formulation!r}, form={self.form!r}, source={self.source!r}, deferred)"
        n_var = sum(v.size for v in self.cvxpy.variables())
        return f"KernelProblem({self.formulation!r}, form={self.form!r}, source={self.source!r}, variables={n_var})"


def _cone_rows(constraints: list[Any]) -> list[tuple[str, str]]:
    """Constraints by kind, with their sizes: PSD orders, SOC sizes, scalar rows otherwise."""
    groups: dict[str, list[Any]] = {}
    for con in constraints:
        groups.setdefault(type(con).__name__, []).append(con)
    rows = []
    for kind in sorted(groups):
        cons = groups[kind]
        if kind == "PSD":
            orders = sorted({int(c.shape[0]) for c in cons})
            rows.append((kind, f"{len(cons)} constraint(s), order(s) {', '.join(map(str, orders))}"))
        elif kind == "SOC":
            sizes = [int(n) for c in cons for n in c.cone_sizes()]
            rows.append((kind, f"{len(sizes)} cone(s), sizes {min(sizes)}..{max(sizes)} (total {sum(sizes)})"))
        else:
            n_rows = sum(int(np.prod(c.shape)) if c.shape else 1 for c in cons)
            rows.append((kind, f"{len(cons)} constraint(s), {n_rows} scalar row(s)"))
    return rows


def _nonzero(arr: NDArray[Any]) -> int:
    """Entries above 1e-8 of the largest magnitude (a solver's zeros are not exact)."""
    scale = float(np.abs(arr).max(initial=0.0))
    return int(np.count_nonzero(np.abs(arr) > 1e-8 * max(scale, 1e-300)))


def parameter_values(problem: KernelProblem) -> Mapping[str, Any]:
    """Current values of a problem's parameters."""
    return {k: p.value for k, p in problem.parameters.items()}


def _check_solve_options(
    tol: Any, max_iter: Any, time_limit: Any
) -> tuple[float | None, int | None, float | None]:
    """Validate :meth:`KernelProblem.solve`'s portable options (typed errors, not the solver's)."""
    t = None if tol is None else check_open_interval(tol, "tol", 0.0, 1.0)
    n = None if max_iter is None else check_integer(max_iter, "max_iter", 1)
    s = None if time_limit is None else check_positive(time_limit, "time_limit")
    return t, n, s


def _same_value(a: Any, b: Any) -> bool:
    """Two parameter values are the same (arrays element by element; None only equals None)."""
    if a is None or b is None:
        return a is None and b is None
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def _certain(status: str) -> bool:
    """Infeasible or unbounded with the solver's certificate: no recovery step changes that."""
    return status in ("infeasible", "unbounded")


def _certificate(
    backend: str, solver_word: str, iterations: Any, raw: Mapping[str, Any], tol: float | None
) -> Certificate:
    p, d = raw.get("primal_objective"), raw.get("dual_objective")
    gap = raw.get("gap")
    rel = None
    if gap is not None and raw.get("gap_scale") is not None:  # SCS's own gap rule (backends.raw_certificate)
        rel = float(gap) / (1.0 + float(raw["gap_scale"]))
    elif gap is not None and p is not None and d is not None:
        rel = float(gap) / max(1.0, min(abs(float(p)), abs(float(d))))
    return Certificate(
        backend=backend,
        solver_status=solver_word,
        iterations=None if iterations is None else int(iterations),
        primal_residual=raw.get("primal_residual"),
        dual_residual=raw.get("dual_residual"),
        gap=gap,
        relative_gap=rel,
        tol=tol,
    )


def _snapshot(prob: cp.Problem) -> dict[str, Any]:
    """The values of every variable and constraint dual (to restore an earlier attempt)."""
    return {
        "vars": [(v, _copy(v.value)) for v in prob.variables()],
        "duals": [(c, _copy(c.dual_value)) for c in prob.constraints],
    }


def _copy(value: Any) -> Any:
    """A copy of a CVXPY value: an array, a scalar, or a list of arrays (a cone's duals)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return np.array(value, copy=True)


def _unpack(prob: cp.Problem, raw: Any, chain: Any, inverse: Any) -> str | None:
    """``prob.unpack_results``; a message instead of an exception when the solver's answer is
    garbage CVXPY cannot read (wrong sizes, missing fields), so that it counts as a failed
    attempt rather than as a bad option."""
    try:
        prob.unpack_results(raw, chain, inverse)
    except (cp.error.SolverError, ArithmeticError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        return f"the solver's answer could not be read ({type(exc).__name__}: {exc})"
    return None


@dataclass
class _Saved:
    """An attempt with what is needed to make it the problem's current point again."""

    attempt: Attempt
    objective: float
    compile_time: float
    setup_time: float | None
    solve_time: float | None
    values: dict[str, Any]

    @classmethod
    def failed(
        cls, b: Backend, opts: dict[str, Any], reason: str, message: str, elapsed: float, tol: float | None
    ) -> _Saved:
        cert = Certificate(b.name, f"error: {message}", None, None, None, None, None, tol)
        attempt = Attempt(b.name, "error", "solver_error", cert, dict(opts), reason, elapsed)
        return cls(attempt, float("nan"), elapsed, None, None, {"vars": [], "duals": []})

    def restore(self, prob: cp.Problem) -> None:
        for var, value in self.values["vars"]:
            var.save_value(value)  # the solver's point as it was (no domain projection)
        for con, value in self.values["duals"]:
            if isinstance(value, list) and len(value) == len(con.dual_variables):
                for dual, part in zip(con.dual_variables, value):  # a cone's duals by part (SOC: t, x)
                    dual.save_value(part)
            else:
                con.save_dual_value(value)

"""``KernelProblem`` (a CVXPY model plus what is needed to recover the learned model) and
``Solution`` (status, objective, timings, the recovered model and its decision function).

A builder is a pure function ``data + parameters -> KernelProblem``; nothing touches a
solver until :meth:`KernelProblem.solve`. Sweepable values are ``cvxpy.Parameter`` objects,
so re-solving after :meth:`KernelProblem.set` skips CVXPY's canonicalisation (DPP).
"""

from __future__ import annotations

import os
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from ._capabilities import check_backend_for
from .backends import DEFAULT_BACKEND, get_backend, map_status
from .errors import (
    InaccurateSolutionError,
    InfeasibleError,
    ParameterError,
    SolverError,
    UnboundedError,
)

__all__ = ["KernelProblem", "Solution", "Model"]


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


Recover = Callable[["KernelProblem"], Model]


@dataclass
class KernelProblem:
    """A kernel-learning convex program: the CVXPY model and its recovery step.

    Attributes
    ----------
    cvxpy : cvxpy.Problem
        The model itself; change it, inspect it or solve it directly if you like.
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
    data : dict
        Whatever the recovery step needs (training inputs, labels, basis, ...).
    """

    cvxpy: cp.Problem
    formulation: str
    source: str
    form: str
    variables: dict[str, cp.Variable]
    parameters: dict[str, cp.Parameter]
    constraints: dict[str, Any]
    recover: Recover
    data: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ parameters
    def set(self, **values: float) -> KernelProblem:
        """Set parameter values (e.g. ``C=10, lambda_Q=0.5``); a re-solve reuses the compilation."""
        for name, value in values.items():
            if name not in self.parameters:
                raise ParameterError(f"{name!r} is not a parameter of this problem; it has {sorted(self.parameters)}")
            param = self.parameters[name]
            check = self.data.get("parameter_checks", {}).get(name)
            param.value = check(value) if check is not None else value
        return self

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

    def compiled_data(self, backend: str = "scs") -> dict[str, Any]:
        """The solver-ready data CVXPY produces (``Problem.get_problem_data``)."""
        b = get_backend(backend)
        data, _, _ = self.cvxpy.get_problem_data(b.cvxpy_name)
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
        warm_start: bool = False,
        verbose: bool = False,
        allow_inaccurate: bool = False,
        **options: Any,
    ) -> Solution:
        """Solve with ``backend`` and recover the model.

        Options are passed to the solver after mapping sdpkern's names (``max_iters``, ``eps``,
        ``time_limit``) to the solver's. A status other than optimal raises a
        :class:`~sdpkern.errors.SolverError` subclass carrying the status, unless
        ``allow_inaccurate`` accepts an ``optimal_inaccurate`` answer (with a warning).
        """
        for name, p in self.parameters.items():
            if p.value is None:
                raise ParameterError(f"parameter {name!r} has no value; call problem.set({name}=...)")
        check_backend_for(backend, self.cvxpy, self.formulation)  # e.g. ECOS has no PSD cone
        b = get_backend(backend)
        opts = b.solver_options(options)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # CVXPY's generic "may be inaccurate" warning: the status is reported below instead
                warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
                self.cvxpy.solve(solver=b.cvxpy_name, warm_start=warm_start, verbose=verbose, **opts)
        except cp.error.SolverError as exc:
            raise SolverError(
                f"{b.name} failed on {self.formulation}: {exc}. Try another backend "
                f"(backend='scs' or 'clarabel') or rescale the data",
                status="error",
            ) from None
        except TypeError as exc:  # unknown solver option
            raise ParameterError(f"option not accepted by {b.name}: {exc}") from None
        total = time.perf_counter() - t0
        cvx_status = self.cvxpy.status
        status = map_status(cvx_status)
        self._raise_for_status(status, cvx_status, b.name, allow_inaccurate)
        stats = self.cvxpy.solver_stats
        setup = getattr(stats, "setup_time", None)
        solve_t = getattr(stats, "solve_time", None)
        compile_t = max(0.0, total - (setup or 0.0) - (solve_t or 0.0))
        model = self.recover(self)
        return Solution(
            status=status,
            objective=float(self.cvxpy.value),
            backend=b.name,
            solver_status=str(cvx_status),
            compile_time=compile_t,
            setup_time=setup,
            solve_time=solve_t,
            total_time=total,
            iterations=getattr(stats, "num_iters", None),
            model=model,
        )

    def _raise_for_status(self, status: str, raw: str | None, backend: str, allow_inaccurate: bool) -> None:
        if status == "optimal":
            return
        if status == "optimal_inaccurate" and allow_inaccurate:
            warnings.warn(
                f"{backend} returned an inaccurate optimum for {self.formulation} (status {raw})",
                ConvergenceWarning,
                stacklevel=3,
            )
            return
        hint = {
            "infeasible": "check the data and constraints (a hard-margin problem on non-separable data "
            "is infeasible: use a soft margin)",
            "unbounded": "check the parameters; the problem has no finite optimum",
            "optimal_inaccurate": "tighten or loosen tolerances, raise max_iters, try another backend, "
            "or pass allow_inaccurate=True to accept it",
            "iteration_limit": "raise max_iters or time_limit",
        }.get(
            status.replace("_inaccurate", "") if status.startswith(("infeasible", "unbounded")) else status,
            "try another backend or rescale the data",
        )
        msg = f"{backend} returned status {status!r} ({raw}) for {self.formulation}: {hint}"
        if status.startswith("infeasible"):
            raise InfeasibleError(msg, status=status, solver_status=raw)
        if status.startswith("unbounded"):
            raise UnboundedError(msg, status=status, solver_status=raw)
        if status in ("optimal_inaccurate", "iteration_limit", "time_limit"):
            raise InaccurateSolutionError(msg, status=status, solver_status=raw)
        raise SolverError(msg, status=status, solver_status=raw)

    def __repr__(self) -> str:
        n_var = sum(v.size for v in self.cvxpy.variables())
        return f"KernelProblem({self.formulation!r}, form={self.form!r}, source={self.source!r}, variables={n_var})"


def parameter_values(problem: KernelProblem) -> Mapping[str, Any]:
    """Current values of a problem's parameters."""
    return {k: p.value for k, p in problem.parameters.items()}

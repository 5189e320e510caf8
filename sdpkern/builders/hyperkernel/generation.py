"""Constraint generation over the cones of the hyperkernel SOCP forms (:func:`cone_generation`)."""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_positive
from ...backends import get_backend
from ...errors import ParameterError, SolverError
from ...kernels.hyperkernels import Hyperkernel
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem, Solution
from ._common import Array, _check_count
from .cones import ConeCheck

__all__ = ["ActiveSetTrace", "GenerationRoute", "cone_violations", "cone_generation"]


@dataclass(frozen=True)
class ActiveSetTrace:
    """What :func:`cone_generation` did: the terms it kept, rounds, the final check, the time.

    ``max_violation`` is max_l ((s/2) vᵀK_l v − μ(Lu)_l + τ) over the omitted basis terms at the
    final iterate (v the cone vector, e.g. y∘α), clipped at 0; ≤ ``tol``·``max(σ, |objective|)``
    (σ the objective's scale of a rescaled form, :mod:`.scaling`; 1 for an unscaled one)
    certifies the restricted optimum as the full SOCP's (the kept cones hold to the solver's
    tolerance).
    """

    terms: NDArray[np.intp]
    rounds: int
    max_violation: float
    total_time: float


def cone_violations(problem: KernelProblem, kernels: Array) -> Array:
    """(s/2) vᵀK_l v − (μ(Lu)_l − τ) for every basis term l at a solved SOCP form's point.

    Positive entries are cones the point violates; a restricted problem's own cones are ≤ 0 up
    to the solver's tolerance. Costs p·m² flops and no factorisation.
    """
    check: ConeCheck = problem.data["cone_check"]
    B: HyperkernelBasis = problem.data["basis"]
    v = np.asarray(check.v.value, dtype=float).ravel()
    u = np.asarray(problem.variables["u"].value, dtype=float)
    tau = float(np.asarray(problem.variables["tau"].value, dtype=float).ravel()[0])
    mu = float(np.asarray(check.mu.value, dtype=float))
    s = 1.0 if check.scale is None else float(np.asarray(check.scale.value, dtype=float))
    quad = 0.5 * s * np.einsum("lij,i,j->l", kernels, v, v, optimize=True)  # (p, m, m) · v · v
    # a rescaled SOCP (:mod:`.scaling`) holds its cones divided by the objective's scale: back to
    # the formulation's units, where the caller's threshold tol·max(σ, abs(objective)) applies
    unit = float(problem.data.get("objective_scale", 1.0))
    return np.asarray(unit * (quad - (mu * (B.L @ u) - tau)), dtype=float)


def cone_generation(
    build: Callable[..., KernelProblem],
    X: ArrayLike,
    y: ArrayLike | None,
    hyperkernel: Hyperkernel | None = None,
    *,
    initial_terms: int = 3,
    add_per_round: int = 3,
    max_rounds: int = 50,
    tol: float = 1e-6,
    backend: str = "clarabel",
    allow_inaccurate: bool = False,
    solve_options: dict[str, Any] | None = None,
    **build_options: Any,
) -> tuple[KernelProblem, Solution, ActiveSetTrace]:
    """Solve a hyperkernel SOCP form (002 eqs. 3.8-3.12) by generating its cones: the same
    optimum as ``build(X, y, hyperkernel, form="socp", **build_options).solve()``, far faster
    when few basis terms carry weight.

    Every SOCP form maximises over (α, u, τ) subject to one cone (s/2)vᵀK_l v ≤ μ(Lu)_l − τ
    per basis term (the module docstrings derive them); at the optimum β_l, the cone's
    multiplier, is non-zero only for the few active terms. Solving with the cones of a subset S
    of terms is a relaxation (fewer constraints on a maximisation); if its optimum also
    satisfies every omitted cone it is feasible and therefore optimal for the full problem,
    with β_l = 0 off S. Otherwise the ``add_per_round`` most violated terms join S and the
    restricted problem is solved again. This is constraint generation (Kelley's cutting
    planes, as used for multiple kernel learning by Sonnenburg et al., JMLR 2006); each
    round's check costs p·m² flops (:func:`cone_violations`), and each restricted problem
    only factors the kernels in S.

    Parameters
    ----------
    build : callable
        A builder taking ``(X, y, hyperkernel, form=, basis=, terms=, **build_options)``:
        :func:`csvm`, :func:`nusvm`, :func:`l2svm`, :func:`one_class` (``y=None``) or
        :func:`nu_regression`.
    X, y, hyperkernel, **build_options
        Passed to ``build`` (parameters such as ``C``, ``nu``, ``lambda_Q``, and ``basis``,
        ``eta``, ``max_terms``, ``factor_tol``). The basis is built once and reused.
    initial_terms : int
        Terms of the first restricted problem: the first pivots of the incomplete Cholesky
        basis (largest residual first, 002 §3.2.1).
    add_per_round : int
        How many of the most violated omitted terms join per round.
    max_rounds : int
        Give up (SolverError) after this many restricted solves.
    tol : float
        Violation accepted as zero, relative to ``max(σ, |objective|)`` (σ the rescaled form's
        objective scale, 1 for an unscaled form).
    backend, allow_inaccurate, solve_options
        Passed to :meth:`KernelProblem.solve` for every restricted problem.

    Returns
    -------
    problem : KernelProblem
        The final restricted problem (``problem.data["terms"]`` lists its terms).
    solution : Solution
        Its solution; ``solution.beta`` has one entry per basis term (zeros off S).
    trace : ActiveSetTrace
    """
    n_initial = _check_count(initial_terms, "initial_terms")
    n_add = _check_count(add_per_round, "add_per_round")
    n_rounds = _check_count(max_rounds, "max_rounds")
    tol_val = check_positive(tol, "tol")
    if "form" in build_options or "terms" in build_options:
        raise ParameterError("cone_generation chooses form='socp' and the terms itself; do not pass form or terms")
    t0 = time.perf_counter()
    args = (X,) if y is None else (X, y)
    # The first build validates the data and fixes the basis; later rounds reuse it.
    first = build(*args, hyperkernel, form="socp", terms=[0], **build_options)
    B: HyperkernelBasis = first.data["basis"]
    build_options = {**build_options, "basis": B}

    def restricted(terms: NDArray[np.intp]) -> KernelProblem:
        if terms.size == 1 and terms[0] == 0:
            return first
        return build(*args, B.hyperkernel, form="socp", terms=terms, **build_options)

    def solve(problem: KernelProblem) -> Solution:
        return problem.solve(backend=backend, allow_inaccurate=allow_inaccurate, **(solve_options or {}))

    return _generate(restricted, solve, B, n_initial, n_add, n_rounds, tol_val, t0)


def _generate(
    restricted: Callable[[NDArray[np.intp]], KernelProblem], solve: Callable[[KernelProblem], Solution],
    B: HyperkernelBasis, n_initial: int, n_add: int, n_rounds: int, tol: float, t0: float,
) -> tuple[KernelProblem, Solution, ActiveSetTrace]:
    """The loop of :func:`cone_generation`: ``restricted(terms)`` builds the SOCP on ``terms``,
    ``solve`` solves it; started at ``t0`` (``time.perf_counter``)."""
    kernels = B.kernels()
    terms = np.arange(min(n_initial, B.size))
    problem = restricted(terms)
    for rounds in range(1, n_rounds + 1):
        if rounds > 1:
            problem = restricted(terms)
        solution = solve(problem)
        violation = cone_violations(problem, kernels)
        violation[terms] = -np.inf  # included cones are the solver's business
        worst = float(violation.max()) if violation.size else -np.inf
        # relative to the scale the solver worked in (a rescaled form's σ ≈ its optimum, 1 unscaled):
        # against max(1, |objective|) a tiny optimum (2.7e-7, ν-SVM heart m = 34 at ν = 0.02) let a
        # violation of 25 % of it pass as certified
        unit = float(problem.data.get("objective_scale", 1.0))
        threshold = tol * max(unit, abs(solution.objective))
        if worst <= threshold or solution.status != "optimal":
            # an uncertified restricted solve (allowed by allow_inaccurate) certifies no omitted cone
            # and adds none reliably: it is returned as it is, its status saying so
            return problem, solution, ActiveSetTrace(terms, rounds, max(worst, 0.0), time.perf_counter() - t0)
        candidates = np.argsort(violation)[::-1][:n_add]
        terms = np.union1d(terms, candidates[violation[candidates] > threshold])
    raise SolverError(
        f"{problem.formulation} constraint generation did not settle in max_rounds={n_rounds} rounds "
        f"({terms.size} of {B.size} terms); raise max_rounds or solve the full SOCP (form='socp') directly",
        status="iteration_limit",
    )


@dataclass(frozen=True)
class GenerationRoute:
    """``KernelProblem.generate`` of a hyperkernel SOCP form: :meth:`KernelProblem.solve`'s
    default route (``method="auto"``), the cone generation of :func:`cone_generation` on the
    problem's own basis and current parameter values.

    The answer is certified for the whole SOCP: each restricted problem is solved to ``tol``
    (by :meth:`KernelProblem.solve`, recovery policy included) and the largest omitted-cone
    violation is at most ``tol``·max(σ, abs(objective)) (σ the form's objective scale, 1 unscaled;
    ``tol`` the backend's ``default_tol``
    when not given; :func:`cone_violations`).

    Attributes
    ----------
    build : callable
        The builder (:func:`csvm`, :func:`nusvm`, :func:`l2svm`, :func:`one_class`, :func:`nu_regression`).
    args : tuple
        ``(X, y)``, or ``(X,)`` for :func:`one_class`.
    options : dict
        The builder's keyword arguments that are not parameters of the problem (``factor_tol``).
    initial_terms, add_per_round, max_rounds
        As in :func:`cone_generation`.
    """

    build: Callable[..., KernelProblem]
    args: tuple[Any, ...]
    options: dict[str, Any]
    initial_terms: int = 3
    add_per_round: int = 3
    max_rounds: int = 50

    def __call__(self, problem: KernelProblem, *, backend: str, tol: float | None, **solve_args: Any) -> Solution:
        """Solve ``problem`` (built by ``build`` on the full basis) by cone generation."""
        t0 = time.perf_counter()
        B: HyperkernelBasis = problem.data["basis"]
        values: dict[str, Any] = {name: p.value for name, p in problem.parameters.items()}
        accepted = inspect.signature(self.build).parameters
        own = {k: v for k, v in values.items() if k in accepted}  # C, nu, lambda_Q
        rest = {k: v for k, v in values.items() if k not in accepted}  # e.g. the L2-SVM's ridge

        def restricted(terms: NDArray[np.intp]) -> KernelProblem:
            sub = self.build(*self.args, B.hyperkernel, form="socp", basis=B, terms=terms, **own, **self.options)
            return sub.set(**rest) if rest else sub

        def solve(sub: KernelProblem) -> Solution:
            return sub.solve(backend=backend, tol=tol, method="direct", **solve_args)

        default_tol = get_backend(backend).default_tol
        threshold = tol if tol is not None else (default_tol if default_tol is not None else 1e-6)
        _, sol, trace = _generate(
            restricted, solve, B, self.initial_terms, self.add_per_round, self.max_rounds, threshold, t0
        )
        return dataclasses.replace(
            sol, total_time=trace.total_time, method="cone_generation", max_violation=trace.max_violation,
            active_terms=trace.terms,
        )  # fmt: skip

"""Small conic test problems shared by the export tests (built fresh on each call).

Each entry is ``name -> builder() -> cvxpy.Problem | KernelProblem``. They cover the cones the
writers handle (LP, SOC, rotated SOC, PSD variables, bmat LMIs), equalities, maximisation,
parameters and constant objective terms, plus the package's own SDP builders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np


def _lp_eq() -> cp.Problem:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((3, 6))
    x0 = rng.random(6)
    x = cp.Variable(6)
    c = rng.random(6) + 0.1
    return cp.Problem(cp.Minimize(c @ x + 2.5), [A @ x == A @ x0, x >= 0, x <= 3])


def _socp() -> cp.Problem:
    rng = np.random.default_rng(1)
    x = cp.Variable(5)
    t = cp.Variable()
    P = rng.standard_normal((4, 5))
    return cp.Problem(
        cp.Minimize(t + cp.sum_squares(x - 1) + x[0]),
        [cp.norm(P @ x - 1) <= t, cp.sum(x) == 2, cp.quad_over_lin(x[:2], t + 1) <= 3, x[4] >= -1],
    )


def _sdp_var() -> cp.Problem:
    rng = np.random.default_rng(2)
    n = 4
    C = rng.standard_normal((n, n))
    C = C + C.T
    X = cp.Variable((n, n), PSD=True)
    As = [rng.standard_normal((n, n)) for _ in range(2)]
    As = [a + a.T for a in As]
    return cp.Problem(cp.Minimize(cp.trace(C @ X)), [cp.trace(X) == 1] + [cp.trace(a @ X) <= 0.5 for a in As])


def _lmi_max() -> cp.Problem:
    """Maximise the smallest eigenvalue of a symmetric affine matrix (a bmat LMI)."""
    rng = np.random.default_rng(3)
    F = [rng.standard_normal((3, 3)) for _ in range(3)]
    F = [f + f.T for f in F]
    y = cp.Variable(3)
    s = cp.Variable()
    M = F[0] * y[0] + F[1] * y[1] + F[2] * y[2]
    Z = cp.Variable((2, 2), symmetric=True)
    big = cp.bmat([[M - s * np.eye(3), np.zeros((3, 2))], [np.zeros((2, 3)), Z]])
    return cp.Problem(cp.Maximize(s - cp.trace(Z) - 0.1), [big >> 0, cp.norm(y) <= 1, Z[0, 1] == 0.2])


def _param_sdp() -> cp.Problem:
    rng = np.random.default_rng(4)
    lam = cp.Parameter(nonneg=True, value=0.7)
    X = cp.Variable((3, 3), symmetric=True)
    C = rng.standard_normal((3, 3))
    C = C @ C.T
    return cp.Problem(cp.Minimize(cp.trace(C @ X) + lam * cp.norm(X, "fro")), [X >> np.eye(3) * 0.1, X[0, 2] == 0.05])


def _hyperkernel_sdp() -> Any:
    from sklearn.datasets import load_breast_cancer

    from sdpkern.builders.hyperkernel import csvm

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(y), 20, replace=False)
    return csvm(X[idx], y[idx], form="sdp", eta=1e-4)


def _hyperkernel_socp() -> Any:
    from sklearn.datasets import load_breast_cancer

    from sdpkern.builders.hyperkernel import csvm

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(1).choice(len(y), 20, replace=False)
    return csvm(X[idx], y[idx], form="socp", eta=1e-4)


def _sdpm_degree4() -> Any:
    from sdpkern.builders.sdpm import sdpm

    rng = np.random.default_rng(5)
    m, r, n = 10, 4, 3
    T = rng.standard_normal((m, r + 1, n)) * 0.3
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    T[:, 0, :] += y[:, None] * 1.5
    return sdpm(T, y, C=1.0, segment=1.0)


PROBLEMS: dict[str, Callable[[], Any]] = {
    "lp_eq": _lp_eq,
    "socp": _socp,
    "sdp_var": _sdp_var,
    "lmi_max": _lmi_max,
    "param_sdp": _param_sdp,
    "hyperkernel_sdp": _hyperkernel_sdp,
    "hyperkernel_socp": _hyperkernel_socp,
    "sdpm_degree4": _sdpm_degree4,
}

#: The ones with a PSD cone (what CSDP/DSDP are really for); the others still go through SDPA.
SDP_PROBLEMS = ["sdp_var", "lmi_max", "param_sdp", "hyperkernel_sdp", "sdpm_degree4", "socp"]


def as_cvxpy(problem: Any) -> cp.Problem:
    """The cvxpy.Problem inside a KernelProblem, or the problem itself."""
    return problem if isinstance(problem, cp.Problem) else problem.cvxpy


def reference_value(problem: Any) -> float:
    """In-process optimum (Clarabel, tight tolerances)."""
    prob = as_cvxpy(problem)
    prob.solve(solver=cp.CLARABEL)
    assert prob.status == cp.OPTIMAL, prob.status
    # a rescaled builder's file states the objective in the problem's own units (export.conic_data)
    scale = 1.0 if isinstance(problem, cp.Problem) else float(problem.data.get("objective_scale", 1.0))
    return float(prob.value) * scale


def rel_err(a: float, b: float) -> float:
    """|a − b| / max(1, |b|)."""
    return abs(a - b) / max(1.0, abs(b))


def require_external_solver(solver: str) -> None:
    """Skip without the solver binary, except under CI, where its absence is a failure."""
    import os

    import pytest

    from sdpkern.export.solvers import SOLVERS, available

    if available(solver):
        return
    msg = f"{SOLVERS[solver]!r} not on PATH (apt-get install coinor-csdp dsdp sdpa; .ci/run does this)"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {msg}")
    pytest.skip(msg)

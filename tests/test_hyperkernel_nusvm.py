"""Hyperkernel ν-SVM (002 eq. 3.9): the SDP form at ν's bound, where eq. (3.9)'s optimal set is a
ray (``nusvm._sdp``), against the SOCP, and the SDP's read-back variables against eq. (3.9)."""

import numpy as np
import pytest
from sweep_instances import keel

from sdpkern.builders.hyperkernel import nusvm

# (data set, m, seed, λ_Q): status sweep seed 29's sonar m = 21 (12 against 9 points, ν drawn 0.9
# and cut to ν_max = 18/21), where SCS ended 200 000 iterations "optimal_inaccurate" (measured
# before the fix), and a balanced draw (11 against 11) at ν = 1, where SCS also ended 200 000
# iterations on the SDP as written, at b = −3.4, ρ = 56 against Clarabel's −0.021, 1.5 (measured too)
AT_BOUND = [("sonar", 21, 236132629, 3.0006622983323797e-06), ("sonar", 22, 5, 1e-5)]


def _nu_max(y: np.ndarray) -> float:
    plus = int((y == y.max()).sum())
    return 2.0 * min(plus, y.size - plus) / y.size


@pytest.mark.parametrize(("name", "m", "seed", "lambda_Q"), AT_BOUND)
def test_sdp_at_nus_bound_is_certified_and_both_backends_return_the_same_classifier(name, m, seed, lambda_Q):
    """At ν = ν_max the held class's α are all 1/m and (b, ρ) of eq. (3.9) range over a ray;
    the SDP as written leaves it to the solver where on the ray to stop. The rewritten SDP is
    certified by both backends, its optimum matches the Clarabel SOCP's to 1e-6 relative
    (measured ≤ 1e-7), and both backends return the ray's end, some point of the held class
    exactly on its margin (min ξ = 0) or ρ = 0. The SOCP's multipliers are moved there too: all
    four (form, backend) pairs give the same b and ρ to 1e-5 (measured ≤ 2.6e-7; the SDP as
    written: 82 apart on sonar m = 21, the SOCP's 8e-3) and decision values to 1e-5 (1.1e-6)."""
    X, y = keel(name, m, seed)
    nu = _nu_max(y)
    ref = nusvm(X, y, nu=nu, lambda_Q=lambda_Q).solve("clarabel", recovery=False)
    sols = {}
    for backend in ("clarabel", "scs"):
        problem = nusvm(X, y, nu=nu, lambda_Q=lambda_Q, form="sdp")
        sol = problem.solve(backend, recovery=False)
        assert sol.status == "optimal"
        assert abs(sol.objective - ref.objective) <= 1e-6 * abs(ref.objective)
        xi, rho = np.asarray(problem.variables["xi"].value), float(problem.variables["chi"].value)
        held = np.flatnonzero(sol.alpha >= (1 - 1e-6) / m)  # α at its bound 1/m
        assert min(float(xi[held].min()), rho) <= 1e-6
        sols[backend] = sol
    for backend in ("clarabel", "scs"):  # the SOCP's multipliers, moved to the ray's end (nusvm._ray_end)
        sols[f"socp-{backend}"] = nusvm(X, y, nu=nu, lambda_Q=lambda_Q).solve(backend, recovery=False)
    a = sols["clarabel"]
    for key, b in sols.items():
        assert abs(a.offset - b.offset) <= 1e-5 and abs(a.model.extras["rho"] - b.model.extras["rho"]) <= 1e-5, key
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_sdp_at_nu_max_returns_the_limit_from_below():
    """The ray's end is the limit ν → ν_max⁻, where eq. (3.9) has one (b, ρ): the SDP at ν_max
    against the Clarabel SOCP (a second formulation, its b and ρ read off its multipliers) at
    ν = ν_max(1 − 1e-4), to 1e-4 (measured 1.2e-5 in b, 2.7e-5 in ρ: the path's drift over that
    step in ν). (The SOCP's raw multipliers at ν_max stop elsewhere on the ray: measured ρ 0.0648
    with Clarabel, and 0.667 from the SDP as written.)"""
    name, m, seed, lambda_Q = AT_BOUND[0]
    X, y = keel(name, m, seed)
    nu = _nu_max(y)
    sdp = nusvm(X, y, nu=nu, lambda_Q=lambda_Q, form="sdp").solve("clarabel", recovery=False)
    below = nusvm(X, y, nu=nu * (1 - 1e-4), lambda_Q=lambda_Q).solve("clarabel", recovery=False)
    assert abs(sdp.offset - below.offset) <= 1e-4
    assert abs(sdp.model.extras["rho"] - below.model.extras["rho"]) <= 1e-4


@pytest.mark.parametrize("at_bound", [False, True])
def test_sdp_variables_are_a_point_of_eq_3_9(at_bound):
    """The SDP is solved in (z, η, q) (``nusvm._sdp``); ``problem.variables`` read eq. (3.9)'s own
    γ, χ, η, ξ, t₁, t₂ back. They must be a feasible point of eq. (3.9) with its optimal value:
    χ, η, ξ ≥ 0 (to 1e-7·s, the solver's accuracy in the scaled units), the LMI tight through its
    Schur complement at the recovered α = G(β)†z (t₁ = αᵀG(β)α to 1e-6 relative; measured 4e-9)
    and eq. (3.9)'s objective ½t₁ − νχ + (1/m)1ᵀξ + (λ_Q/2)‖Lᵀβ‖ equal to the solution's to
    1e-6 relative (measured 2e-10). At a general ν and at ν_max."""
    X, y = keel("heart", 20, 5)
    nu = _nu_max(y) if at_bound else 0.3
    problem = nusvm(X, y, nu=nu, lambda_Q=0.5, form="sdp")
    sol = problem.solve("clarabel", recovery=False)
    v = {k: np.asarray(e.value, dtype=float) for k, e in problem.variables.items()}
    s, m = problem.data["alpha_scale"], y.size
    assert v["chi"] >= -1e-7 * s and v["eta"].min() >= -1e-7 * s and v["xi"].min() >= -1e-7 * s
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    z = v["gamma"] * y_pm + v["chi"] + v["eta"] - v["xi"]
    G = np.outer(y_pm, y_pm) * sol.kernel_matrix
    alpha = np.linalg.lstsq(G, z, rcond=None)[0]
    assert alpha @ G @ alpha == pytest.approx(float(v["t1"]), rel=1e-6)
    L = problem.data["basis"].L
    value = 0.5 * v["t1"] - nu * v["chi"] + v["xi"].sum() / m + 0.25 * np.linalg.norm(L.T @ sol.beta)  # λ_Q/2 = 0.25
    assert float(value) == pytest.approx(sol.objective, rel=1e-6)

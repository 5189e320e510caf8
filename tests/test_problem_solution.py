"""The model a user sees is the model: ``problem.cvxpy`` solved by hand and read back with
``problem.solution()`` gives what ``problem.solve()`` gives, for every builder family and form.

Two routes to one optimum: CVXPY's own ``Problem.solve`` on ``problem.cvxpy`` (any solver, the
scaled model as it is), read back through ``objective_scale`` and the family's recovery step; and
``problem.solve()`` (sdpkern's certified route: the solver called through CVXPY's chain with
sdpkern's tolerances, or cone generation for the hyperkernel SOCPs). Tolerances: the objective
to 1e-6 relative against ``problem.solve()``; the model's decision values (the learned kernel
matrix for alignment) to 1e-6 relative to their largest magnitude against the whole model
solved in one call (``method="direct"``), and to 1e-4 against cone generation's restricted
optimum (both certified to a 1e-8 gap, which fixes the variables to about its square root).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from sdpkern.builders import cpd_svm, sdpm
from sdpkern.builders import hyperkernel as hk
from sdpkern.errors import ParameterError, SolverError
from sdpkern.kernels import Gaussian, ThinPlate
from sdpkern.problem import KernelProblem

RTOL = 1e-6


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    idx = np.random.default_rng(3).permutation(X.shape[0])
    return X[idx[:24], :5], np.where(y[idx[:24]] == 1, 1.0, -1.0), X[idx[24:40], :5]


def _trajectories(X: np.ndarray, degree: int) -> np.ndarray:
    """Rotation-like polynomial trajectories of 2-D projections (003 eq. 2): x, Jx, J²x/2, ..."""
    P = X[:, :2]
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    terms = [P]
    for k in range(1, degree + 1):
        terms.append(terms[-1] @ J.T / k)
    return np.stack(terms, axis=1)


HK_KW = {"eta": 1e-3, "max_terms": 25}

#: name -> builder(X, y) -> KernelProblem, one per family and form
BUILDERS: dict[str, Callable[[np.ndarray, np.ndarray], KernelProblem]] = {
    "hk_csvm_sdp": lambda X, y: hk.csvm(X, y, C=10.0, form="sdp", **HK_KW),
    "hk_csvm_socp": lambda X, y: hk.csvm(X, y, C=10.0, form="socp", **HK_KW),
    "hk_nusvm_sdp": lambda X, y: hk.nusvm(X, y, nu=0.3, form="sdp", **HK_KW),
    "hk_nusvm_socp": lambda X, y: hk.nusvm(X, y, nu=0.3, form="socp", **HK_KW),
    "hk_l2svm_sdp": lambda X, y: hk.l2svm(X, y, C=5.0, form="sdp", **HK_KW),
    "hk_l2svm_socp": lambda X, y: hk.l2svm(X, y, C=5.0, form="socp", **HK_KW),
    "hk_one_class_sdp": lambda X, y: hk.one_class(X, nu=0.2, form="sdp", **HK_KW),
    "hk_one_class_socp": lambda X, y: hk.one_class(X, nu=0.2, form="socp", **HK_KW),
    "hk_nu_regression_sdp": lambda X, y: hk.nu_regression(X, X[:, 0] - X[:, 1], C=10.0, form="sdp", **HK_KW),
    "hk_nu_regression_socp": lambda X, y: hk.nu_regression(X, X[:, 0] - X[:, 1], C=10.0, form="socp", **HK_KW),
    "hk_alignment_sdp": lambda X, y: hk.alignment(X, y, form="sdp", **HK_KW),
    "hk_alignment_socp": lambda X, y: hk.alignment(X, y, form="socp", **HK_KW),
    "sdpm_deg0": lambda X, y: sdpm.sdpm(_trajectories(X, 0), y, C=1.0),
    "sdpm_deg1_segment": lambda X, y: sdpm.sdpm(_trajectories(X, 1), y, C=1.0, segment=0.5),
    "sdpm_deg2": lambda X, y: sdpm.sdpm(_trajectories(X, 2), y, C=1.0),
    "sdpm_deg2_segment": lambda X, y: sdpm.sdpm(_trajectories(X, 2), y, C=1.0, segment=0.5),
    "sdpm_deg4": lambda X, y: sdpm.sdpm(_trajectories(X, 4), y, C=1.0),
    "sdpm_kernel_deg2": lambda X, y: sdpm.kernel_sdpm(_trajectories(X, 2), y, Gaussian(gamma=0.5), C=1.0),
    "cpd_squared_hinge": lambda X, y: cpd_svm.squared_hinge(X[:, :2], y, ThinPlate(), C=2.0),
    "cpd_squared_hinge_beta_zero": lambda X, y: cpd_svm.squared_hinge_beta_zero(X[:, :2], y, ThinPlate(), C=2.0),
    "cpd_hinge_dual": lambda X, y: cpd_svm.hinge_dual(X[:, :2], y, ThinPlate(), C=2.0),
    "cpd_hinge_primal": lambda X, y: cpd_svm.hinge_primal(X[:, :2], y, ThinPlate(), C=2.0),
}


def _model_values(sol: Any, X_new: np.ndarray, name: str) -> np.ndarray:
    """What the model predicts: decision values on new points (the kernel matrix for alignment)."""
    if sol.model.decision is None:
        return np.asarray(sol.kernel_matrix)
    two_d = name.startswith(("sdpm", "cpd"))  # the SDPM and c.p.d. instances live in two dimensions
    Z = X_new[:, :2] if two_d else X_new
    return np.asarray(sol.decision_function(Z))


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_solve_by_hand_reads_back_as_solve(name: str, data: tuple) -> None:
    X, y, X_new = data
    problem = BUILDERS[name](X, y)
    problem.cvxpy.solve(solver="CLARABEL")  # what a CVXPY user does
    by_hand = problem.solution()
    scale = problem.objective_scale
    assert by_hand.status == "optimal"
    assert by_hand.objective == pytest.approx(problem.cvxpy.value * scale, rel=1e-12)

    fresh = BUILDERS[name](X, y)
    default = fresh.solve()  # sdpkern's own route (cone generation for the hyperkernel SOCPs)
    assert by_hand.objective == pytest.approx(default.objective, rel=RTOL, abs=RTOL)
    # the whole model in one solver call, as the hand solve: the same point to solver precision
    direct = fresh.solve(method="direct") if fresh.generate is not None else default
    f_hand, f_direct = _model_values(by_hand, X_new, name), _model_values(direct, X_new, name)
    assert np.abs(f_hand - f_direct).max() <= RTOL * max(1.0, np.abs(f_direct).max())
    # cone generation's restricted optimum: the same model to the accuracy a 1e-8 gap gives the
    # variables (about its square root)
    f_default = _model_values(default, X_new, name)
    assert np.abs(f_hand - f_default).max() <= 1e-4 * max(1.0, np.abs(f_default).max())

def test_the_scaled_model_is_said_so(data: tuple) -> None:
    """csvm's SDP form is solved divided by an estimate of its optimum: CVXPY reads ~1."""
    X, y, _ = data
    problem = hk.csvm(X, y, C=10.0, form="sdp", **HK_KW)
    scale = problem.objective_scale
    assert scale != 1.0
    problem.cvxpy.solve(solver="CLARABEL")
    assert problem.cvxpy.value == pytest.approx(problem.solution().objective / scale, rel=1e-12)
    assert f"objective_scale = {scale:.8g}" in problem.summary()
    assert "objective_scale" in problem._repr_html_()
    unscaled = cpd_svm.squared_hinge(X[:, :2], y, ThinPlate(), C=2.0)
    assert unscaled.objective_scale == 1.0
    assert "formulation as written" in unscaled.summary()


def test_an_unsolved_model_is_refused(data: tuple) -> None:
    X, y, _ = data
    problem = cpd_svm.squared_hinge(X[:, :2], y, ThinPlate(), C=2.0)
    with pytest.raises(SolverError, match="has not been solved"):
        problem.solution()


def test_a_parameter_set_behind_the_scaling_is_caught(data: tuple) -> None:
    """C assigned directly, then solved by hand: the scaled parameters were stale."""
    X, y, _ = data
    problem = hk.csvm(X, y, C=10.0, form="sdp", **HK_KW)
    problem.parameters["C"].value = 50.0
    problem.cvxpy.solve(solver="CLARABEL")
    with pytest.raises(ParameterError, match="stale"):
        problem.solution()
    problem.cvxpy.solve(solver="CLARABEL")  # the parameters are now in step
    assert problem.solution().objective == pytest.approx(
        hk.csvm(X, y, C=50.0, form="sdp", **HK_KW).solve().objective, rel=RTOL
    )


def test_another_solver_by_hand(data: tuple) -> None:
    """SCS through CVXPY, read back: the same optimum to SCS's accuracy (1e-4 relative)."""
    X, y, _ = data
    problem = hk.csvm(X, y, C=10.0, form="sdp", **HK_KW)
    problem.cvxpy.solve(solver="SCS", eps_abs=1e-7, eps_rel=1e-7)
    sol = problem.solution()
    assert sol.backend == "scs"
    assert sol.objective == pytest.approx(hk.csvm(X, y, C=10.0, form="sdp", **HK_KW).solve().objective, rel=1e-4)

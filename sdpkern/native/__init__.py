"""The native path: NumPy/SciPy solvers that need no conic solver (and never import CVXPY).

One compiled SMO core for every SVM (libsvm's solver and its problem types: C-SVC, ν-SVC,
one-class, ε-SVR, ν-SVR, the squared-hinge L2-SVC; :mod:`~sdpkern.native.svm_core`), primal
Newton SVMs (004), the c.p.d. Newton method (000 Algorithm 1) and its reduced form, the dual
solver for p.d. and c.p.d. SVMs on the core (000 §6 constraints),
Krylov solvers with filter factors and early stopping (002 Ch. 5), indefinite-kernel methods
(002 Ch. 6) and pseudo-Euclidean tools (001).
"""

from .cpd import (
    CPDDualResult,
    CPDMemory,
    CPDWorkspace,
    chol_append,
    chol_delete,
    chol_downdate,
    chol_update,
    cpd_beta_zero_svm,
    cpd_dual_svm,
    cpd_primal_svm,
    cpd_primal_svm_reduced,
)
from .dual_svm import DualSVMResult, dual_svm
from .early_stopping import StoppingChoice, cv_stopping_index, discrepancy_stop
from .filters import (
    filter_factors,
    filtered_solution,
    iteration_polynomials,
    landweber_filter,
    residual_polynomials,
    ridge_filter,
    tikhonov_filter,
    tsf_filter,
)
from .hyperkernel_master import NativeMasterResult, hyperkernel_csvm_native
from .indefinite import best_offset, fisher_system, indefinite_kpca, krein_spline_smoothing
from .krylov import SOLVERS, KrylovResult, cg, cgne, get_solver, make_system, mr, mr_ii
from .primal_svm import PrimalSVMResult, primal_svm_kernel, primal_svm_linear, primal_svm_lowrank
from .pseudo_euclidean import (
    PseudoEuclideanEmbedding,
    SuitabilityReport,
    UnsuitableKernelWarning,
    kernel_suitability,
    pseudo_euclidean_embedding,
    svm_suitability,
    wMw,
)
from .svm_core import (
    QPSolution,
    SVMSolution,
    solve_csvc,
    solve_epsilon_svr,
    solve_l2svc,
    solve_nu_svr,
    solve_nusvc,
    solve_one_class,
    solve_qp,
)

#: Old module paths of the c.p.d. family (now :mod:`sdpkern.native.cpd`), deprecated aliases until 0.2.0.
_MOVED = {"cpd_newton": "cpd.newton", "cpd_reduced": "cpd.workspace", "cholesky_update": "cpd.newton"}

__all__ = [
    "solve_csvc",
    "solve_nusvc",
    "solve_one_class",
    "solve_epsilon_svr",
    "solve_nu_svr",
    "solve_l2svc",
    "solve_qp",
    "QPSolution",
    "SVMSolution",
    "chol_append",
    "chol_delete",
    "chol_downdate",
    "chol_update",
    "cpd_primal_svm",
    "cpd_beta_zero_svm",
    "CPDWorkspace",
    "CPDMemory",
    "cpd_primal_svm_reduced",
    "DualSVMResult",
    "dual_svm",
    "CPDDualResult",
    "cpd_dual_svm",
    "StoppingChoice",
    "cv_stopping_index",
    "discrepancy_stop",
    "filter_factors",
    "filtered_solution",
    "iteration_polynomials",
    "landweber_filter",
    "residual_polynomials",
    "ridge_filter",
    "tikhonov_filter",
    "tsf_filter",
    "best_offset",
    "fisher_system",
    "indefinite_kpca",
    "krein_spline_smoothing",
    "hyperkernel_csvm_native",
    "NativeMasterResult",
    "SOLVERS",
    "KrylovResult",
    "cg",
    "cgne",
    "get_solver",
    "make_system",
    "mr",
    "mr_ii",
    "PrimalSVMResult",
    "primal_svm_kernel",
    "primal_svm_linear",
    "primal_svm_lowrank",
    "PseudoEuclideanEmbedding",
    "SuitabilityReport",
    "UnsuitableKernelWarning",
    "kernel_suitability",
    "pseudo_euclidean_embedding",
    "svm_suitability",
    "wMw",
]

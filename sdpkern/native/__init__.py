from .cholesky_update import chol_append, chol_delete, chol_downdate, chol_update  # noqa: F401
from .cpd_newton import CPDPrimalSVM, cpd_primal_svm  # noqa: F401
from .cpd_reduced import cpd_primal_svm_reduced  # noqa: F401
from .early_stopping import StoppingChoice, cv_stopping_index, discrepancy_stop  # noqa: F401
from .filters import (  # noqa: F401
    filter_factors,
    filtered_solution,
    iteration_polynomials,
    landweber_filter,
    residual_polynomials,
    ridge_filter,
    tikhonov_filter,
    tsf_filter,
)
from .indefinite import best_offset, fisher_system, indefinite_kpca, krein_spline_smoothing  # noqa: F401
from .krylov import SOLVERS, KrylovResult, cg, cgne, get_solver, make_system, mr, mr_ii  # noqa: F401
from .primal_svm import PrimalSVMResult, primal_svm_kernel, primal_svm_linear, primal_svm_lowrank  # noqa: F401
from .pseudo_euclidean import (  # noqa: F401
    PseudoEuclideanEmbedding,
    SuitabilityReport,
    UnsuitableKernelWarning,
    kernel_suitability,
    pseudo_euclidean_embedding,
    svm_suitability,
    wMw,
)

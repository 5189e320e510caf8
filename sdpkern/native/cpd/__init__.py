"""The c.p.d. (thin-plate) SVM of 000 §6: the workspace of a fit, its routes, and the choice among them.

:mod:`~sdpkern.native.cpd.workspace` holds the workspace (:class:`CPDWorkspace`, the opt-in
:class:`CPDMemory`), the routes on the reduced kernel K_Ξ (:func:`cpd_dual_svm` on the SMO core,
:func:`cpd_primal_svm_reduced`), the separability test and :func:`fit_cpd`, which chooses the
route; :mod:`~sdpkern.native.cpd.newton` holds 000 Algorithm 1 as printed (:func:`cpd_primal_svm`,
with its rank-one Cholesky modifications) and the β = 0 Newton method (:func:`cpd_beta_zero_svm`).
Every route takes ``(K, Q, y, C, *, sample_weight, tol, max_iter)``.
"""

from .newton import (
    BetaZeroKernel,
    NewtonResult,
    beta_zero_kernel,
    chol_append,
    chol_delete,
    chol_downdate,
    chol_update,
    cpd_beta_zero_svm,
    cpd_primal_svm,
    stationarity,
)
from .workspace import (
    SOLVERS,
    CPDDualResult,
    CPDFit,
    CPDMemory,
    CPDWorkspace,
    cpd_dual_svm,
    cpd_primal_svm_reduced,
    fit_cpd,
    polynomial_separator,
    polynomially_separable,
    reduced_operator,
)

__all__ = [
    "CPDWorkspace",
    "CPDMemory",
    "CPDFit",
    "fit_cpd",
    "SOLVERS",
    "cpd_dual_svm",
    "CPDDualResult",
    "cpd_primal_svm_reduced",
    "reduced_operator",
    "cpd_primal_svm",
    "cpd_beta_zero_svm",
    "NewtonResult",
    "stationarity",
    "beta_zero_kernel",
    "BetaZeroKernel",
    "polynomially_separable",
    "polynomial_separator",
    "chol_update",
    "chol_downdate",
    "chol_append",
    "chol_delete",
]

from .cholesky_update import chol_append, chol_delete, chol_downdate, chol_update  # noqa: F401
from .cpd_newton import CPDPrimalSVM, cpd_primal_svm  # noqa: F401

from . import (
    cpd_svm,  # noqa: F401  (c.p.d. SVMs, 000 §6)
    sdpm,  # noqa: F401  (semidefinite programming machines, 003)
)

"""Builders: pure functions data + parameters -> :class:`~sdpkern.problem.KernelProblem`, one module per family."""

from . import (
    cpd_svm,  # noqa: F401  (c.p.d. SVMs, 000 §6)
    sdpm,  # noqa: F401  (semidefinite programming machines, 003)
)

__all__ = ["cpd_svm", "hyperkernel", "sdpm"]

"""sdpkern: kernel methods whose training problems are convex programs.

Hyperkernels (002), semidefinite programming machines (003), SVMs with conditionally
positive definite kernels (000), and native Newton/Krylov solvers (002 Ch. 4-6, 004).
"""

from .problem import KernelProblem, Model, Solution

__version__ = "0.1.0"
__all__ = ["KernelProblem", "Model", "Solution", "__version__"]

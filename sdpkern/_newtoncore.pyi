"""Type stub of the compiled fresh-factor Newton loop and exact line search (sdpkern/_newtoncore.pyx)."""

import numpy as np
from numpy.typing import NDArray

def exact_line_search(q1: float, q2: float, e: NDArray[np.float64], g: NDArray[np.float64], C: float) -> float: ...
def newton_on_points(
    Phi: NDArray[np.float64],
    Q: NDArray[np.float64],
    M: NDArray[np.float64],
    y: NDArray[np.float64],
    C: float,
    P: NDArray[np.intp],
    c: NDArray[np.float64],
    max_iter: int,
    refactor_max: int,
) -> tuple[NDArray[np.float64], int, bool | None]: ...
def restore_symmetric(A: NDArray[np.float64], diag: NDArray[np.float64]) -> None: ...
def cholesky_blocked(
    A: NDArray[np.float64], block: int, lower: bool, threads: int = 0, order: int = -1
) -> int: ...
def solve_triangular_split(
    R: NDArray[np.float64], B: NDArray[np.float64], lower: bool, trans: bool, threads: int, order: int = -1
) -> None: ...

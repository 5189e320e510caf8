"""Type stub of the compiled harmonic ARD loops (sdpkern/_hkcore.pyx)."""

import numpy as np
from numpy.typing import NDArray

def ard_block(
    Xr: NDArray[np.float64],
    Xc: NDArray[np.float64],
    inv_w: NDArray[np.float64],
    A: NDArray[np.float64],
    lam: float,
    inv_c: NDArray[np.float64],
    squarings: NDArray[np.int64],
    scale_w: NDArray[np.float64],
) -> NDArray[np.float64]: ...
def ard_quadratics(
    Xs: NDArray[np.float64],
    us: NDArray[np.float64],
    inv_w: NDArray[np.float64],
    A: NDArray[np.float64],
    lam: float,
    inv_c: NDArray[np.float64],
    squarings: NDArray[np.int64],
    row_lo: int,
    row_hi: int,
) -> NDArray[np.float64]: ...
def ard_columns(
    XT: NDArray[np.float64],
    Xc: NDArray[np.float64],
    inv_w: NDArray[np.float64],
    A: NDArray[np.float64],
    lam: float,
    inv_c: NDArray[np.float64],
    squarings: NDArray[np.int64],
    scale_w: NDArray[np.float64],
) -> NDArray[np.float64]: ...
def ard_scale_columns(
    XT: NDArray[np.float64],
    Xc: NDArray[np.float64],
    inv_w: NDArray[np.float64],
    A: NDArray[np.float64],
    lam: float,
    inv_c: NDArray[np.float64],
    squarings: NDArray[np.int64],
    scale_w: NDArray[np.float64],
) -> NDArray[np.float64]: ...
def simd(on: bool | None = ...) -> bool: ...

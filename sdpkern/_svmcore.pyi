"""Type stub of the compiled core (sdpkern/_svmcore.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

class ColumnCache:
    owner: Any
    store_array: NDArray[np.float64] | None
    slot_array: NDArray[np.intp]
    point_array: NDArray[np.intp]
    stamp_array: NDArray[np.int64]
    n: int
    capacity: int
    tick: int
    computed: int
    evictions: int
    seconds: float
    fixed: bool
    ahead_fetched: int
    ahead_used: int
    split_columns: int
    def __init__(self, owner: Any, n: int, capacity: int, spec: Any = ..., matrix: Any = ...) -> None: ...
    def ensure(self, cols: NDArray[np.intp]) -> bool: ...
    def offer(self, cols: NDArray[np.intp], values: NDArray[np.float64]) -> int: ...
    def add_to(self, out: NDArray[np.float64], cols: NDArray[np.intp], w: float) -> None: ...
    def gather(
        self, rows: NDArray[np.intp], cols: NDArray[np.intp], out: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]: ...
    def weighted_sum(self, cols: NDArray[np.intp], w: NDArray[np.float64], threads: int = 1) -> NDArray[np.float64]: ...
    def clear(self) -> None: ...

def eval_columns(spec: Any, n: int, cols: NDArray[np.intp]) -> NDArray[np.float64]: ...

COLUMN_LOOP_NUMBERS: int

def simd(on: bool | None = ...) -> bool: ...
def ahead(on: bool | None = ...) -> bool: ...
def smo(
    cache: ColumnCache,
    n_kernel: int,
    y: NDArray[np.float64],
    alpha: NDArray[np.float64],
    v: NDArray[np.float64],
    upper: NDArray[np.float64],
    D: NDArray[np.float64],
    QD: NDArray[np.float64],
    mode: int,
    tol: float,
    max_iter: int,
    active: NDArray[np.intp],
    n_active: int,
    shrinking: bool,
) -> tuple[int, float, int, float]: ...
def radial_gram_inplace(
    G: NDArray[np.float64], sq: NDArray[np.float64], sign: float, p: int, use_log: bool
) -> None: ...

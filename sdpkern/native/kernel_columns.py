"""Kernel columns computed on demand, once, and kept (shared by the primal Newton solvers).

The primal Newton methods (004, Chapelle 2007; 000 Algorithm 1) only ever touch ``K[:, I]``
for the support vectors ``I`` they visit, never the whole ``n × n`` kernel matrix.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from ..errors import DataError

__all__ = ["KernelColumns"]


class KernelColumns:
    """Kernel columns ``K[:, j]`` computed on demand, once, and kept.

    The Newton method only ever needs ``K[:, I]`` for the support vectors ``I`` it has visited,
    never the whole ``n × n`` kernel. Columns live in the blocks they were computed in (no growing
    array to copy): ``(K β)[:p]`` is one product per block on a prefix of rows (the warm-start
    levels are prefixes of one shuffle) and ``K[I, J]`` a gather per block. A column first needed
    by a small warm-start level is computed down all ``n`` rows at once: computing only the
    level's rows and extending later saved 20 % of the kernel entries at n = 5000 but lost it
    again in extra calls and copies.

    ``entries(rows, cols)`` returns ``K[np.ix_(rows, cols)]``. ``size`` counts the columns
    computed so far and ``seconds`` the time spent in ``entries``.
    """

    def __init__(self, n: int, entries: Callable[[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64]]) -> None:
        self.n = n
        self._entries = entries
        self._all = np.arange(n)
        self.blocks: list[NDArray[np.float64]] = []
        self.block_points: list[NDArray[np.intp]] = []
        self.where = np.full(n, -1, dtype=np.intp)  # block holding column j
        self.local = np.full(n, -1, dtype=np.intp)  # its position in that block
        self.seconds = 0.0

    @property
    def size(self) -> int:
        return sum(p.shape[0] for p in self.block_points)

    def ensure(self, idx: NDArray[np.intp]) -> None:
        """Compute the columns of ``idx`` not cached yet."""
        new = idx[self.where[idx] < 0]
        if new.size == 0:
            return
        t0 = time.perf_counter()
        block = np.ascontiguousarray(self._entries(self._all, new), dtype=np.float64)
        self.seconds += time.perf_counter() - t0
        if block.shape != (self.n, new.shape[0]):
            raise DataError(f"the kernel oracle returned shape {block.shape}, expected ({self.n}, {new.shape[0]})")
        self.where[new] = len(self.blocks)
        self.local[new] = np.arange(new.shape[0])
        self.blocks.append(block)
        self.block_points.append(new.copy())

    def matvec(self, beta: NDArray[np.float64], rows: int) -> NDArray[np.float64]:
        """``(K β)[:rows]`` for ``β`` supported on cached points (a prefix: no copies)."""
        out = np.zeros(rows)
        for block, pts in zip(self.blocks, self.block_points):
            bp = beta[pts]
            if bp.any():
                out += block[:rows] @ bp
        return out

    def block(self, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> NDArray[np.float64]:
        """``K[rows, cols]`` (``cols`` cached) as a fresh array."""
        w = self.where[cols]
        order = np.argsort(w, kind="stable")
        bounds = np.searchsorted(w[order], np.arange(len(self.blocks) + 1))
        parts = [
            self.blocks[k].take(rows, axis=0).take(self.local[cols[order[lo:hi]]], axis=1)
            for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))
            if hi > lo
        ]
        out = parts[0] if len(parts) == 1 else np.hstack(parts)
        if np.any(order[1:] < order[:-1]):
            out = out.take(np.argsort(order), axis=1)
        return out

    def grouped(self, idx: NDArray[np.intp]) -> NDArray[np.intp]:
        """``idx`` reordered block by block (so :meth:`block` needs no column shuffle)."""
        return idx[np.lexsort((self.local[idx], self.where[idx]))]

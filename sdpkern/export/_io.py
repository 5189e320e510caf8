"""Atomic file output and vectorised number formatting shared by the writers."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = ["write_atomic", "format_rows"]

#: Lines formatted per call; bounds the temporary format string and tuple (~100 MB at most).
_CHUNK = 200_000


def write_atomic(path: str | os.PathLike[str], pieces: Iterable[str]) -> Path:
    """Write ``pieces`` to ``path`` through a temporary file in the same directory.

    The temporary file is renamed over ``path`` only once everything is written, so a reader
    (or a solver started on the file) never sees a partial file, and an exception, including
    ``KeyboardInterrupt``, leaves the old file, or none, in place.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as fh:
            for piece in pieces:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        # BaseException on purpose: a KeyboardInterrupt must not leave the temporary behind.
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def format_rows(ints: list[NDArray[np.int64]], values: NDArray[np.float64], sep: str = " ") -> Iterable[str]:
    """Lines ``i1 i2 ... value`` for aligned integer columns and a float column.

    Each chunk is one ``%`` operation on a repeated format string: the per-entry work runs in
    C (``int``/``float`` formatting), with no Python-level loop per nonzero. Floats use
    ``repr``, the shortest string that reads back to the same double, so files round-trip
    exactly.
    """
    k = int(values.size)
    ncol = len(ints) + 1
    line = sep.join(["%d"] * len(ints) + ["%r"]) + "\n"
    for start in range(0, k, _CHUNK):
        stop = min(k, start + _CHUNK)
        block = np.empty((stop - start, ncol), dtype=object)
        for col, arr in enumerate(ints):
            block[:, col] = arr[start:stop].tolist()
        block[:, -1] = values[start:stop].tolist()
        yield (line * (stop - start)) % tuple(block.ravel().tolist())


def format_values(values: NDArray[np.float64], per_line: int = 1) -> str:
    """Floats as text, ``per_line`` to a line (``repr``: exact round trip)."""
    k = int(values.size)
    if k == 0:
        return ""
    fmt = " ".join(["%r"] * per_line) + "\n"
    full, rest = divmod(k, per_line)
    out = (fmt * full) % tuple(values[: full * per_line].tolist())
    if rest:
        out += " ".join(["%r"] * rest) % tuple(values[full * per_line :].tolist()) + "\n"
    return out

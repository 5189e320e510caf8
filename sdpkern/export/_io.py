"""Atomic file output and vectorised number formatting shared by the writers."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from .._atomic import atomic_open
from ._numfmt import float_field, format_lines, int_field

__all__ = ["write_atomic", "format_rows"]

#: Lines formatted per chunk; bounds the temporary character matrices (~10 MB each).
_CHUNK = 200_000


def write_atomic(path: str | os.PathLike[str], pieces: Iterable[str | bytes]) -> Path:
    """Write ``pieces`` to ``path`` atomically (:func:`sdpkern._atomic.atomic_open`).

    A reader (or a solver started on the file) never sees a partial file, and an exception,
    including ``KeyboardInterrupt``, leaves the old file, or none, in place. A missing
    directory is not created (a typo in an export path should not make directories): it
    raises :class:`FileNotFoundError` naming ``path``.
    """
    with atomic_open(path, "wb", parents=False, fsync=False) as fh:
        for piece in pieces:
            fh.write(piece if isinstance(piece, bytes) else piece.encode("ascii"))
    return Path(path)


def format_rows(ints: list[NDArray[np.int64]], values: NDArray[np.float64], sep: str = " ") -> Iterator[bytes]:
    """Lines ``i1 i2 ... value`` for aligned integer columns and a float column.

    Vectorised (:mod:`._numfmt`): digits come from whole-array arithmetic, with no Python-level
    loop per entry; floats read back to the same double. Yields the bytes of each chunk.
    """
    k = int(values.size)
    for start in range(0, k, _CHUNK):
        stop = min(k, start + _CHUNK)
        fields = [int_field(np.asarray(col[start:stop])) for col in ints]
        fields.append(float_field(values[start:stop]))
        yield format_lines(fields, sep)


def format_values(values: NDArray[np.float64], per_line: int = 1) -> bytes:
    """Floats as text, ``per_line`` to a line (exact round trip, right-aligned tokens)."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        return b""
    field = float_field(v)
    ends = np.full((1, v.size), ord(" "), dtype=np.uint8)
    last = (np.arange(v.size) % per_line == per_line - 1) | (np.arange(v.size) == v.size - 1)
    ends[0, last] = ord("\n")
    block = np.concatenate([field, ends], axis=0)
    return np.ascontiguousarray(block.T).tobytes()

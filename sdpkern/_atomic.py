"""Atomic file output: a reader never sees a half-written file, an interrupted write leaves none."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import ParameterError

__all__ = ["atomic_open"]


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success fsync it and rename it over ``path``.

    The parent directory is created if missing. Any exception inside the ``with`` block, including
    ``KeyboardInterrupt``, removes the temporary file and leaves the old ``path`` (or none) in place.

    Parameters
    ----------
    path : path-like
        The file to write.
    mode : {"w", "wb"}, default="w"
        Text or binary.
    **open_kwargs
        Passed to :func:`open` (``encoding``, ``newline``).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out" / "cells.json"
    >>> with atomic_open(target, encoding="utf-8") as fh:
    ...     _ = fh.write(json.dumps([1, 2]))
    >>> json.loads(target.read_text())
    [1, 2]
    """
    if mode not in ("w", "wb"):
        raise ParameterError(f"mode must be 'w' or 'wb', got {mode!r}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        # BaseException: a KeyboardInterrupt must not leave the temporary file behind either.
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

"""Atomic file output: a reader never sees a half-written file, an interrupted write leaves none."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import ParameterError, path_error

__all__ = ["atomic_open"]


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_open(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    parents: bool = True,
    fsync: bool = True,
    **open_kwargs: Any,
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success fsync it and rename it over ``path``.

    Any exception inside the ``with`` block, including ``KeyboardInterrupt``, removes the
    temporary file and leaves the old ``path`` (or none) in place. The file gets the usual
    permissions (``0o666`` less the umask), not the temporary file's private ``0o600``.

    Parameters
    ----------
    path : path-like
        The file to write.
    mode : {"w", "wb"}, default="w"
        Text or binary.
    parents : bool, default=True
        Create a missing parent directory. With ``False`` a missing directory raises
        :class:`~sdpkern.errors.PathNotFoundError` (a :class:`FileNotFoundError`) naming ``path``
        (not the hidden temporary file). Every other failure to create or replace the file is a
        :class:`~sdpkern.errors.PathError` (an :class:`OSError`) naming ``path`` and the cause
        (a file where a directory should be, no permission).
    fsync : bool, default=True
        Flush to disk before the rename (durability across a crash). The rename alone already
        makes the file appear whole or not at all, which is all large exports need.
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
    parent = target.parent if str(target.parent) else Path(".")
    try:
        if parents:
            parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        # mkstemp's message names its hidden temporary file; the user knows only ``path``.
        raise path_error(exc, path) from None
    try:
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        try:
            os.replace(tmp, target)
        except OSError as exc:  # e.g. a directory standing at ``path``
            raise path_error(exc, path) from None
    except BaseException:
        # BaseException: a KeyboardInterrupt must not leave the temporary file behind either.
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

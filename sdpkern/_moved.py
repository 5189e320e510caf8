"""Old module paths that keep working for one release (see docs/conventions.md, "Deprecated")."""

from __future__ import annotations

import importlib
import sys
import warnings

__all__ = ["alias_module"]


def alias_module(old: str, new: str) -> None:
    """Make ``import old`` give module ``new``, with a ``FutureWarning`` (removed in
    :data:`sdpkern._deprecation.REMOVED_IN`).

    Called at the top of the module ``old``: it replaces itself in ``sys.modules`` by ``new``,
    so ``old.name`` is ``new.name`` for every attribute, private ones and monkeypatching included.
    """
    from ._deprecation import deprecation_message

    warnings.warn(
        f"{old} has moved to {new}: " + deprecation_message(f"the module path {old}", new),
        FutureWarning,
        stacklevel=3,  # the import statement (the import machinery's frames are skipped)
    )
    sys.modules[old] = importlib.import_module(new)

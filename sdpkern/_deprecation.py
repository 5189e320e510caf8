"""The release scheme of deprecations: one place that says when an old name went and goes.

sdpkern is 0.x (:data:`sdpkern.__version__`). A name renamed for 0.1.0 (the conventions of
``docs/conventions.md``) keeps working in every 0.1.x release with a ``FutureWarning`` and is
removed in 0.2.0; every deprecation message is written by :func:`deprecation_message` from
:data:`DEPRECATED_IN` and :data:`REMOVED_IN`, and ``tests/test_deprecation.py`` checks that they
bracket the package's version.
"""

from __future__ import annotations

__all__ = ["DEPRECATED_IN", "REMOVED_IN", "deprecation_message"]

#: The release in which the old names were deprecated (the first release, 0.1.0).
DEPRECATED_IN = "0.1.0"
#: The release that removes them.
REMOVED_IN = "0.2.0"


def deprecation_message(old: str, new: str, *, converted: bool = False) -> str:
    """``"{old} is deprecated since sdpkern 0.1.0 and will be removed in 0.2.0; use {new}"``.

    Examples
    --------
    >>> deprecation_message("'lam'", "'C'", converted=True)
    "'lam' is deprecated since sdpkern 0.1.0 and will be removed in 0.2.0; use 'C' (converted here)"
    """
    tail = " (converted here)" if converted else ""
    return f"{old} is deprecated since sdpkern {DEPRECATED_IN} and will be removed in {REMOVED_IN}; use {new}{tail}"

"""Deprecated alias of :mod:`sdpkern.apps.cli` (removed in sdpkern 1.1)."""

from ._moved import alias_module

__all__: list[str] = []

alias_module(__name__, "sdpkern.apps.cli")

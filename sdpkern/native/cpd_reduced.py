"""Deprecated alias of :mod:`sdpkern.native.cpd.workspace` (removed in sdpkern 0.2.0)."""

from .._moved import alias_module

__all__: list[str] = []

alias_module(__name__, "sdpkern.native.cpd.workspace")

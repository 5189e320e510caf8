"""sdpkern: kernel methods whose training problems are convex programs.

Hyperkernels (002), semidefinite programming machines (003), SVMs with conditionally
positive definite kernels (000), and native Newton/Krylov solvers (002 Ch. 4-6, 004).

The estimators, builders, :class:`~sdpkern.problem.KernelProblem`, kernel classes and errors
are importable from the top level (``from sdpkern import HyperkernelSVC, csvm, KernelProblem,
HarmonicARD, ParameterError``); ``sdpkern/__init__.pyi`` lists them. Nothing is imported until a
name is first used (PEP 562), so ``import sdpkern`` is cheap and does not load CVXPY;
``sdpkern.native`` and ``sdpkern.kernels`` never do.

==========================  =====================================================
subpackage                  what it holds
==========================  =====================================================
:mod:`sdpkern.estimators`   scikit-learn estimators for every family
:mod:`sdpkern.builders`     data + parameters -> :class:`KernelProblem`
:mod:`sdpkern.kernels`      base, c.p.d. and hyperkernels, low-rank bases
:mod:`sdpkern.native`       NumPy/SciPy solvers (Newton, Krylov, indefinite)
:mod:`sdpkern.export`       SDPA (``.dat-s``) and CBF writers and readers
:mod:`sdpkern.errors`       the exception and warning hierarchy
:mod:`sdpkern.datasets`     the papers' data sets, vendored
:mod:`sdpkern.apps`         the ``sdpkern`` command, demo, experiments, plots
==========================  =====================================================
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

from . import errors
from .errors import *  # noqa: F403  (cheap: the error classes import nothing)

__version__ = "0.1.0"

#: Application modules that moved to :mod:`sdpkern.apps` (old path -> FutureWarning, until 0.2.0).
_MOVED = ("cli", "demo", "experiments", "instances", "plotting")


def _read_stub() -> tuple[dict[str, str], tuple[str, ...]]:
    """``(name -> module, subpackages)`` from the ``from ... import X as X`` lines of ``__init__.pyi``,
    the single list of the top-level names (type checkers read the same file)."""
    tree = ast.parse(Path(__file__).with_name("__init__.pyi").read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    subpackages: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level != 1:
            continue
        for alias in node.names:
            if alias.name == "*":
                continue  # the errors, imported above
            if node.module is None:
                subpackages.append(alias.name)
            else:
                names[alias.asname or alias.name] = f"{__name__}.{node.module}"
    return names, tuple(subpackages)


_NAME_TO_MODULE, _SUBMODULES = _read_stub()

__all__ = ["__version__", *_NAME_TO_MODULE, *errors.__all__, *_SUBMODULES, "errors"]


def __getattr__(name: str) -> Any:
    module = _NAME_TO_MODULE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _SUBMODULES or name in _MOVED:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    # the public names only: not the helpers this module imports for itself (ast, importlib, Path, Any)
    return sorted(__all__)

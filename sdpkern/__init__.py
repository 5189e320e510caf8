"""sdpkern: kernel methods whose training problems are convex programs.

Hyperkernels (002), semidefinite programming machines (003), SVMs with conditionally
positive definite kernels (000), and native Newton/Krylov solvers (002 Ch. 4-6, 004).

The public names below are importable from the top level (``from sdpkern import
HyperkernelSVC, csvm, KernelProblem, HarmonicARD, ParameterError``). Nothing is imported until
a name is first used (PEP 562), so ``import sdpkern`` is cheap and does not load CVXPY;
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

import importlib
from typing import TYPE_CHECKING, Any

from . import errors
from .errors import *  # noqa: F403  (cheap: the error classes import nothing)

__version__ = "0.1.0"

#: Module -> the public names it gives to the top level (the errors are imported eagerly).
#: ``tests/test_public_api.py`` checks that each name resolves, that every estimator and kernel
#: class is listed, and that the ``TYPE_CHECKING`` block below names the same.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "sdpkern.problem": ("KernelProblem", "Solution", "Model"),
    "sdpkern.estimators": (
        "HyperkernelSVC",
        "HyperkernelNuSVC",
        "HyperkernelL2SVC",
        "HyperkernelOneClassSVM",
        "HyperkernelNuSVR",
        "HyperkernelAlignment",
        "SDPMClassifier",
        "CPDSVC",
        "ThinPlateSVC",
        "PrimalSVC",
        "KrylovRegressor",
        "KrylovFisherDiscriminant",
        "IndefiniteKernelPCA",
        "IndefiniteSVC",
    ),
    "sdpkern.builders.hyperkernel": (
        "csvm",
        "nusvm",
        "l2svm",
        "one_class",
        "nu_regression",
        "alignment",
        "cone_generation",
    ),
    "sdpkern.builders.sdpm": ("sdpm", "kernel_sdpm"),
    "sdpkern.builders.cpd_svm": ("squared_hinge", "squared_hinge_beta_zero", "hinge_dual", "hinge_primal"),
    "sdpkern.kernels": (
        "Kernel",
        "Linear",
        "Polynomial",
        "Gaussian",
        "Laplacian",
        "Epanechnikov",
        "Sigmoid",
        "SquaredEuclidean",
        "CPDKernel",
        "ThinPlate",
        "PowerDistance",
        "PolynomialSpace",
        "Hyperkernel",
        "HarmonicHyperkernel",
        "HarmonicARD",
        "PowerSeriesHyperkernel",
        "ExplicitHyperkernel",
    ),
    "sdpkern._discovery": ("all_estimators",),
}

#: Subpackages and modules reachable as attributes (``sdpkern.export.write(...)``).
_SUBMODULES: tuple[str, ...] = (
    "apps",
    "backends",
    "builders",
    "datasets",
    "errors",
    "estimators",
    "export",
    "kernels",
    "native",
    "problem",
    "trajectories",
)

#: Application modules that moved to :mod:`sdpkern.apps` (old path -> FutureWarning, until 1.1).
_MOVED = ("cli", "demo", "experiments", "instances", "plotting")

_NAME_TO_MODULE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["__version__", *_NAME_TO_MODULE, *errors.__all__, *_SUBMODULES]


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
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # the static view of the lazy names, for mypy and IDEs
    from . import apps, backends, builders, datasets, estimators, export, kernels, native, problem, trajectories
    from ._discovery import all_estimators
    from .builders.cpd_svm import hinge_dual, hinge_primal, squared_hinge, squared_hinge_beta_zero
    from .builders.hyperkernel import alignment, cone_generation, csvm, l2svm, nu_regression, nusvm, one_class
    from .builders.sdpm import kernel_sdpm, sdpm
    from .estimators import (
        CPDSVC,
        HyperkernelAlignment,
        HyperkernelL2SVC,
        HyperkernelNuSVC,
        HyperkernelNuSVR,
        HyperkernelOneClassSVM,
        HyperkernelSVC,
        IndefiniteKernelPCA,
        IndefiniteSVC,
        KrylovFisherDiscriminant,
        KrylovRegressor,
        PrimalSVC,
        SDPMClassifier,
        ThinPlateSVC,
    )
    from .kernels import (
        CPDKernel,
        Epanechnikov,
        ExplicitHyperkernel,
        Gaussian,
        HarmonicARD,
        HarmonicHyperkernel,
        Hyperkernel,
        Kernel,
        Laplacian,
        Linear,
        Polynomial,
        PolynomialSpace,
        PowerDistance,
        PowerSeriesHyperkernel,
        Sigmoid,
        SquaredEuclidean,
        ThinPlate,
    )
    from .problem import KernelProblem, Model, Solution

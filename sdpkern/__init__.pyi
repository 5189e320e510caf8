"""The top level of sdpkern as type checkers see it, and the list ``sdpkern/__init__.py`` reads
(with ``ast``, at import) to load each of these names on first use: one ``from MODULE import NAME as
NAME`` per public name, ``from . import SUBPACKAGE as SUBPACKAGE`` for the subpackages. Add a name here
to export it from the top level; tests/test_public_api.py checks that every estimator, kernel class and
error is here and that every name resolves."""

from . import (
    apps as apps,
    backends as backends,
    builders as builders,
    datasets as datasets,
    estimators as estimators,
    export as export,
    kernels as kernels,
    native as native,
    problem as problem,
    trajectories as trajectories,
)
from ._discovery import all_estimators as all_estimators
from .builders.cpd_svm import (
    hinge_dual as hinge_dual,
    hinge_primal as hinge_primal,
    squared_hinge as squared_hinge,
    squared_hinge_beta_zero as squared_hinge_beta_zero,
)
from .builders.hyperkernel import (
    alignment as alignment,
    cone_generation as cone_generation,
    csvm as csvm,
    l2svm as l2svm,
    nu_regression as nu_regression,
    nusvm as nusvm,
    one_class as one_class,
)
from .builders.sdpm import kernel_sdpm as kernel_sdpm, sdpm as sdpm
from .errors import *  # imported eagerly (the error classes import nothing)
from .estimators import (
    CPDSVC as CPDSVC,
    HyperkernelAlignment as HyperkernelAlignment,
    HyperkernelL2SVC as HyperkernelL2SVC,
    HyperkernelNuSVC as HyperkernelNuSVC,
    HyperkernelNuSVR as HyperkernelNuSVR,
    HyperkernelOneClassSVM as HyperkernelOneClassSVM,
    HyperkernelSVC as HyperkernelSVC,
    IndefiniteKernelPCA as IndefiniteKernelPCA,
    IndefiniteSVC as IndefiniteSVC,
    KrylovFisherDiscriminant as KrylovFisherDiscriminant,
    KrylovRegressor as KrylovRegressor,
    PrimalSVC as PrimalSVC,
    SDPMClassifier as SDPMClassifier,
    ThinPlateSVC as ThinPlateSVC,
)
from .kernels import (
    ARDDictionary as ARDDictionary,
    CPDKernel as CPDKernel,
    Epanechnikov as Epanechnikov,
    ExplicitHyperkernel as ExplicitHyperkernel,
    Gaussian as Gaussian,
    HarmonicARD as HarmonicARD,
    HarmonicHyperkernel as HarmonicHyperkernel,
    Hyperkernel as Hyperkernel,
    Kernel as Kernel,
    Laplacian as Laplacian,
    Linear as Linear,
    Polynomial as Polynomial,
    PolynomialSpace as PolynomialSpace,
    PowerDistance as PowerDistance,
    PowerSeriesHyperkernel as PowerSeriesHyperkernel,
    Sigmoid as Sigmoid,
    SquaredEuclidean as SquaredEuclidean,
    ThinPlate as ThinPlate,
)
from .problem import KernelProblem as KernelProblem, Model as Model, Solution as Solution

__version__: str

"""Kernels: base kernels, c.p.d. kernels, hyperkernels, low-rank bases and spectrum tools."""

from . import base
from .base import *  # noqa: F403

__all__ = list(base.__all__)

from .cpd import CPDKernel, PolynomialSpace, PowerDistance, ThinPlate  # noqa: E402

__all__ += ["CPDKernel", "ThinPlate", "PowerDistance", "PolynomialSpace"]

from .spectrum import Signature, center_kernel, eigen_signature, repair_spectrum  # noqa: E402

__all__ += ["Signature", "center_kernel", "eigen_signature", "repair_spectrum"]

from .hyperkernels import (  # noqa: E402
    ARDDictionary,
    ExplicitHyperkernel,
    HarmonicARD,
    HarmonicHyperkernel,
    Hyperkernel,
    PowerSeriesHyperkernel,
)

__all__ += [
    "Hyperkernel",
    "HarmonicHyperkernel",
    "HarmonicARD",
    "ARDDictionary",
    "PowerSeriesHyperkernel",
    "ExplicitHyperkernel",
]

from .lowrank import HyperkernelBasis, hyperkernel_basis, incomplete_cholesky  # noqa: E402

__all__ += ["HyperkernelBasis", "hyperkernel_basis", "incomplete_cholesky"]

from .gram import (  # noqa: E402
    CallableGram,
    GramOperator,
    GramSpec,
    KernelGram,
    PrecomputedGram,
    ReducedGram,
    SumGram,
    as_gram,
    reduced_gram,
)

__all__ += [
    "GramOperator",
    "GramSpec",
    "KernelGram",
    "PrecomputedGram",
    "ReducedGram",
    "CallableGram",
    "SumGram",
    "as_gram",
    "reduced_gram",
]

"""Kernels: base kernels, hyperkernels, low-rank bases (and, as they land, c.p.d. kernels and
spectrum tools)."""

from .base import (
    Epanechnikov,
    Gaussian,
    Kernel,
    Laplacian,
    Linear,
    Polynomial,
    Sigmoid,
    SquaredEuclidean,
    squared_distances,
)

__all__ = [
    "Kernel",
    "Linear",
    "Polynomial",
    "Gaussian",
    "Laplacian",
    "Epanechnikov",
    "Sigmoid",
    "SquaredEuclidean",
    "squared_distances",
]

from .cpd import CPDKernel, PolynomialSpace, PowerDistance, ThinPlate  # noqa: E402

__all__ += ["CPDKernel", "ThinPlate", "PowerDistance", "PolynomialSpace"]

from .spectrum import Signature, center_kernel, eigen_signature, repair_spectrum  # noqa: E402

__all__ += ["Signature", "center_kernel", "eigen_signature", "repair_spectrum"]

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

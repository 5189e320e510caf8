"""scikit-learn estimators over sdpkern's builders and native solvers (one module per family)."""

__all__: list[str] = []

from .cpd import CPDSVC, ThinPlateSVC  # noqa: E402

__all__ += ["CPDSVC", "ThinPlateSVC"]
from .sdpm import SDPMClassifier  # noqa: E402

__all__ += ["SDPMClassifier"]
from .native import (  # noqa: E402
    IndefiniteKernelPCA,
    IndefiniteSVC,
    KrylovFisherDiscriminant,
    KrylovRegressor,
    PrimalSVC,
)

__all__ += ["PrimalSVC", "KrylovRegressor", "KrylovFisherDiscriminant", "IndefiniteKernelPCA", "IndefiniteSVC"]
from .hyperkernel import HyperkernelSVC  # noqa: E402

__all__ += ["HyperkernelSVC"]
from .hyperkernel import (  # noqa: E402
    HyperkernelAlignment,
    HyperkernelL2SVC,
    HyperkernelNuSVC,
    HyperkernelNuSVR,
    HyperkernelOneClassSVM,
)

__all__ += [
    "HyperkernelNuSVC",
    "HyperkernelL2SVC",
    "HyperkernelOneClassSVM",
    "HyperkernelNuSVR",
    "HyperkernelAlignment",
]

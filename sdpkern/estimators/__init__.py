"""scikit-learn estimators over sdpkern's builders and native solvers (one module per family)."""

__all__: list[str] = []

from .cpd import CPDSVC, ThinPlateSVC  # noqa: E402

__all__ += ["CPDSVC", "ThinPlateSVC"]
from .sdpm import SDPMClassifier  # noqa: E402

__all__ += ["SDPMClassifier"]

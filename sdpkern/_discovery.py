"""The registry of public estimators, for contract tests and tools (as ``sklearn.utils.all_estimators``)."""

from __future__ import annotations

import importlib

__all__ = ["all_estimators", "ESTIMATOR_TYPES"]

#: ``type_filter`` values and the scikit-learn mixin each selects.
ESTIMATOR_TYPES: dict[str, tuple[str, str]] = {
    "classifier": ("sklearn.base", "ClassifierMixin"),
    "regressor": ("sklearn.base", "RegressorMixin"),
    "outlier_detector": ("sklearn.base", "OutlierMixin"),
    "transformer": ("sklearn.base", "TransformerMixin"),
}


def all_estimators(type_filter: str | list[str] | None = None) -> list[tuple[str, type]]:
    """Every public estimator class of :mod:`sdpkern.estimators`, sorted by name.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "outlier_detector", "transformer"} or list of them, optional
        Keep only the estimators that derive from the matching scikit-learn mixin (any of them,
        for a list). ``None`` keeps all.

    Returns
    -------
    list of (str, type)
        ``(name, class)`` pairs, the names being those of ``sdpkern.estimators.__all__``.

    Raises
    ------
    ParameterError
        For an unknown ``type_filter``.

    Examples
    --------
    >>> from sdpkern import all_estimators
    >>> names = [name for name, _ in all_estimators("regressor")]
    >>> "KrylovRegressor" in names
    True
    """
    from .errors import ParameterError

    estimators = importlib.import_module("sdpkern.estimators")
    pairs = sorted((name, getattr(estimators, name)) for name in estimators.__all__)
    pairs = [(name, cls) for name, cls in pairs if isinstance(cls, type)]
    if type_filter is None:
        return pairs
    wanted = [type_filter] if isinstance(type_filter, str) else list(type_filter)
    unknown = [t for t in wanted if t not in ESTIMATOR_TYPES]
    if unknown:
        raise ParameterError(f"type_filter={type_filter!r} is not known; choose from {sorted(ESTIMATOR_TYPES)}")
    mixins = tuple(getattr(importlib.import_module(mod), cls) for mod, cls in (ESTIMATOR_TYPES[t] for t in wanted))
    return [(name, cls) for name, cls in pairs if issubclass(cls, mixins)]

"""Shared pytest configuration."""

from __future__ import annotations

import pytest

# scikit-learn's regressor checks fit on 200 samples; the hyperkernel ν-SVR at that size takes
# about a minute per fit (the SOCP's cone count grows with m × terms), so these few contract
# checks run with `-m slow` rather than in the default `make test`.
_SLOW_CONTRACT_CHECKS = (
    "HyperkernelNuSVR()-check_regressor_data_not_an_array",
    "HyperkernelNuSVR()-check_regressors_train",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        name = getattr(item, "originalname", None)  # doctest items have none
        if name == "test_sklearn_contract" and any(key in item.nodeid for key in _SLOW_CONTRACT_CHECKS):
            item.add_marker(pytest.mark.slow)

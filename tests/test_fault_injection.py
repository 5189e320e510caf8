"""The fault-injection run (``examples/benchmarks/fault_injection.py``) over every estimator: a solver that
raises, returns NaN, hits a time or iteration limit, or is interrupted. Nothing may return a
fitted model from an uncertified solve that ``predict`` serves, every error must be typed, and
an interrupt must propagate and leave the estimator as it was."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[1] / "examples" / "benchmarks" / "fault_injection.py"


def _script():  # type: ignore[no-untyped-def]
    name = "sdpkern_example_fault_injection"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _PATH)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return sys.modules[name]


def test_every_estimator_is_covered() -> None:
    import sdpkern.estimators as E

    cases = _script()._cases()
    covered = {type(est).__name__ for est, _, _ in cases.values()}
    public = {n for n in E.__all__ if isinstance(getattr(E, n), type)}
    assert public <= covered, public - covered


@pytest.mark.parametrize("name", list(_script()._cases()))
def test_no_uncertified_model_is_served(name: str) -> None:
    outcomes = _script().run([name])
    assert len(outcomes) == len(_script().FAULTS)
    bad = [o.row() for o in outcomes if o.violation]
    assert not bad, "\n".join(bad)
    by_fault = {o.fault: o.got for o in outcomes}
    # a solver that crashes or returns NaN never yields a model
    assert by_fault["raises"].startswith("SolverError (status 'error')")
    assert by_fault["nan"].startswith("SolverError (status 'error')")
    assert by_fault["interrupt"] == "KeyboardInterrupt propagated"
    for fault in ("time_limit", "iteration_limit"):
        got = by_fault[fault]
        assert got.startswith(("n/a", "InaccurateSolutionError", "fitted, status_=")), got
        if got.startswith("fitted") and "predict refused" not in got:
            assert "status_='optimal'" in got and "certified before the limit" in got


def test_an_interrupted_refit_leaves_the_fitted_model() -> None:
    """fit is atomic: Ctrl-C in a refit leaves the earlier model, attributes and predictions."""
    from unittest import mock

    from sdpkern.estimators import PrimalSVC

    X, y = _script()._data("binary")
    est = PrimalSVC(kernel="rbf", solver="exact").fit(X, y)
    before = {k: v for k, v in est.__dict__.items()}
    pred = est.decision_function(X)

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    with mock.patch("sdpkern.estimators.native.primal_svm_kernel", interrupted), pytest.raises(KeyboardInterrupt):
        est.set_params(C=10.0).fit(X, y)
    assert est.__dict__.keys() == before.keys() and est.dual_coef_ is before["dual_coef_"]
    np.testing.assert_array_equal(est.decision_function(X), pred)

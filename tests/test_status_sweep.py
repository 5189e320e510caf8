"""examples/benchmarks/status_sweep.py's table: the "vs default" distance means the same at every optimum."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _sweep() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "examples" / "benchmarks" / "status_sweep.py"
    spec = importlib.util.spec_from_file_location("status_sweep_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_distance_has_an_absolute_floor_at_a_zero_optimum() -> None:
    """The default sweep's c.p.d. instances with optimum 0 (𝒫-separable data): SCS's 1e-11
    against Clarabel's 1e-18 printed as 1e7 "relative" (2.6e12 on the sweep) under abs(ref);
    relative to max(1, abs(ref)), the scale of the certificates' gap, it is the absolute 1e-11.
    Above 1 it stays relative, and a zero reference is no longer skipped."""
    rel = _sweep()._relative
    assert rel(1e-11, 1e-18) == pytest.approx(1e-11, rel=1e-6)
    assert rel(1e-11, 0.0) == pytest.approx(1e-11)
    assert rel(0.5 + 1e-9, 0.5) == pytest.approx(1e-9, rel=1e-6)
    assert rel(1e4 * (1 + 1e-7), 1e4) == pytest.approx(1e-7, rel=1e-6)
    assert rel(None, 1.0) is None and rel(1.0, None) is None


def test_table_prints_the_floored_distance() -> None:
    """The table's last column on two records of one zero-optimum instance."""
    sweep = _sweep()
    base = {"instance": "cpd x", "family": "cpd_hinge_primal", "form": "qp", "status": "optimal"}
    records = [
        {**base, "backend": "clarabel", "recovery": True, "objective": 1e-18, "iterations": 9},
        {**base, "backend": "scs", "recovery": False, "objective": 1e-11, "iterations": 100},
    ]
    rows = {line.split()[2]: line.split()[-1] for line in sweep.table(records).splitlines()[1:]}
    assert float(rows["scs"]) == pytest.approx(1e-11, rel=0.05)
    assert float(rows["clarabel+recovery"]) == 0.0


def test_report_lists_certified_answers_that_disagree(capsys: pytest.CaptureFixture[str]) -> None:
    """Two ``optimal`` answers 1e-2 apart (the seed-0 β = 0 ionosphere case) are listed by
    instance; 1e-8 apart (within both certificates) they are not."""
    sweep = _sweep()
    base = {"family": "cpd_squared_hinge_beta_zero", "form": "qp", "status": "optimal"}
    records = [
        base | {"instance": "far", "backend": "clarabel", "recovery": True, "objective": 45.12},
        base | {"instance": "far", "backend": "scs", "recovery": False, "objective": 45.52},
        base | {"instance": "near", "backend": "clarabel", "recovery": True, "objective": 2.0},
        base | {"instance": "near", "backend": "scs", "recovery": False, "objective": 2.0 + 2e-8},
    ]
    sweep._print_disagreements(records)
    out = capsys.readouterr().out
    assert "(1):" in out and " far" in out and " near" not in out

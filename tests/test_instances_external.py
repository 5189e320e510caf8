"""CSDP and DSDP on the exported SDPA file of every SDP-form instance of problems/ (issue 8 acceptance).

Every library instance with a PSD cone is solved in process (Clarabel), exported to SDPA,
and solved by ``csdp`` and ``dsdp5``; the external objective must match ours within 1e-5
plain relative difference |theirs - ours| / |ours|. Instances marked ``slow`` in their TOML
are marked slow here too. Without the binaries the tests skip (in CI, where ``CI`` is set,
they fail). ``examples/benchmarks/bench_external.py`` prints the same comparison as a table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from export_problems import require_external_solver

from sdpkern.apps.instances import list_instances, load, load_metadata
from sdpkern.export.solvers import solve_external

pytestmark = pytest.mark.external

RTOL = 1e-5


def _sdp_form() -> list[object]:
    params: list[object] = []
    for name in list_instances():
        meta = load_metadata(name)
        if meta["size"].get("psd_cones", 0) < 1 or meta["reference"]["status"] != "optimal":
            continue
        marks = [pytest.mark.slow] if meta.get("slow") else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


SDP_FORM = _sdp_form()


def test_library_has_sdp_form_instances() -> None:
    assert len(SDP_FORM) >= 4


@pytest.fixture(scope="module")
def ours() -> dict[str, float]:
    return {}


@pytest.mark.parametrize("solver", ["csdp", "dsdp"])
@pytest.mark.parametrize("name", SDP_FORM)
def test_external_solvers_match_in_process_optimum(
    name: str, solver: str, ours: dict[str, float], tmp_path: Path
) -> None:
    require_external_solver(solver)
    problem, meta = load(name)
    if name not in ours:
        sol = problem.solve("clarabel")
        assert sol.status == "optimal"
        ours[name] = sol.objective
    ref = ours[name]
    res = solve_external(problem, solver, path=tmp_path / f"{name}.dat-s", timeout=300)
    assert res.status == "optimal", res.output[-2000:]
    assert res.objective is not None
    assert abs(res.objective - ref) / abs(ref) <= RTOL, (res.objective, ref)

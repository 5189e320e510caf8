"""The problems/ instance library: every instance rebuilds to its stored optimum, round-trips
through SDPA and CBF files, and malformed instance files are refused naming the key."""

from __future__ import annotations

from pathlib import Path

import cvxpy as cp
import pytest

from sdpkern import export
from sdpkern.apps.instances import FORMULATIONS, list_instances, load, load_metadata, problems_dir, rel_diff
from sdpkern.errors import InputError

NAMES = list_instances()
QUICK = [n for n in NAMES if not load_metadata(n).get("slow")]
SLOW = [n for n in NAMES if load_metadata(n).get("slow")]
FEASIBLE = [n for n in QUICK if load_metadata(n)["reference"]["status"] == "optimal"]


def test_library_covers_every_family() -> None:
    assert len(NAMES) >= 12
    metas = [load_metadata(n) for n in NAMES]
    formulations = {m["formulation"] for m in metas}
    assert formulations == set(FORMULATIONS)
    hk_forms = {m["form"] for m in metas if m["formulation"] == "hyperkernel.csvm"}
    assert hk_forms == {"sdp", "socp"}
    sdpm = [m for m in metas if m["formulation"] == "sdpm" and m["reference"]["status"] == "optimal"]
    degrees = {(m["data"]["degree"], "segment" in m["parameters"]) for m in sdpm}
    assert {(0, False), (2, False), (2, True), (4, False), (4, True)} <= degrees
    assert len(SLOW) <= 1


@pytest.mark.parametrize("name", NAMES)
def test_metadata_is_complete(name: str) -> None:
    meta = load_metadata(name)
    assert meta["name"] == name
    for key in ("source", "seed", "size"):
        assert key in meta["data"]
    ref = meta["reference"]
    if ref["status"] == "optimal":
        for key in ("objective", "clarabel", "scs", "rel_diff", "tolerance"):
            assert key in ref, key
        # the references were measured by two backends that agree
        assert rel_diff(ref["scs"], ref["clarabel"]) == pytest.approx(ref["rel_diff"], rel=1e-2, abs=1e-15)
        assert ref["rel_diff"] <= ref["tolerance"]
    assert meta["size"]["variables"] > 0


@pytest.mark.parametrize("name", FEASIBLE)
def test_instance_rebuilds_to_reference(name: str) -> None:
    problem, meta = load(name)
    ref = meta["reference"]
    sol = problem.solve("clarabel")
    assert sol.status == "optimal"
    assert rel_diff(sol.objective, ref["objective"]) <= max(1e-6, ref["tolerance"])


def test_infeasible_instance_is_infeasible() -> None:
    from sdpkern.errors import InfeasibleError

    problem, meta = load("sdpm_hard_infeasible")
    assert meta["reference"]["status"] == "infeasible"
    with pytest.raises(InfeasibleError):
        problem.solve("clarabel")


@pytest.mark.parametrize("suffix", [".dat-s", ".cbf"])
@pytest.mark.parametrize("name", FEASIBLE)
def test_round_trip_through_files(name: str, suffix: str, tmp_path: Path) -> None:
    problem, meta = load(name)
    path = tmp_path / f"{name}{suffix}"
    problem.export(path)
    rebuilt, _ = export.to_cvxpy(export.read(path))
    value = rebuilt.solve(solver=cp.CLARABEL)
    assert rebuilt.status == cp.OPTIMAL
    assert rel_diff(value, meta["reference"]["clarabel"]) <= 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_slow_instance_rebuilds_to_reference(name: str) -> None:
    problem, meta = load(name)
    sol = problem.solve("clarabel")
    assert rel_diff(sol.objective, meta["reference"]["objective"]) <= max(1e-6, meta["reference"]["tolerance"])


# ------------------------------------------------------------------------------- errors
def test_unknown_instance_names_it() -> None:
    with pytest.raises(InputError, match="no_such_instance"):
        load("no_such_instance")


def test_missing_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load(tmp_path / "absent.toml")


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "bad.toml"
    p.write_text(text)
    return p


GOOD = (problems_dir() / "sdpm_deg0.toml").read_text()


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda s: s.replace('formulation = "sdpm"', 'formulation = "nope"'), "formulation"),
        (lambda s: s.replace('source = "synthetic:trajectories"', 'source = "web:thing"'), "data.source"),
        (lambda s: s.replace("size = 16", "size = -3"), "data.size"),
        (lambda s: s.replace("seed = 0", 'seed = "zero"'), "data.seed"),
        (lambda s: s.replace("slow = false", 'slow = "no"'), "slow"),
        (lambda s: s.replace("C = 1.0", "Cee = 1.0"), "parameters"),
        (lambda s: s + "\n[[[broken", "TOML"),
    ],
)
def test_malformed_instance_names_the_key(edit: object, key: str, tmp_path: Path) -> None:
    text = edit(GOOD)  # type: ignore[operator]
    assert text != GOOD
    with pytest.raises(InputError, match=key.replace(".", r"\.")):
        load(_write(tmp_path, text))


def test_path_loading_matches_name() -> None:
    _, by_name = load("sdpm_deg0")
    _, by_path = load(problems_dir() / "sdpm_deg0.toml")
    assert by_name["reference"] == by_path["reference"]

"""The ``sdpkern`` command, driven through ``sdpkern.cli.main([...])``: output, --json, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cvxpy as cp
import pytest

from sdpkern import export
from sdpkern.cli import main
from sdpkern.instances import load_metadata, rel_diff

TINY = "sdpm_deg0"
SDP = "hk_csvm_sdp_m10"


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "bench" in capsys.readouterr().out


def test_no_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert capsys.readouterr().err


def test_unknown_command_is_usage_error() -> None:
    assert main(["frobnicate"]) == 2


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert TINY in out and SDP in out


def test_inspect_prints_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", SDP]) == 0
    out = capsys.readouterr().out
    assert "hyperkernel C-SVM [SDP]" in out
    assert "psd: 1 cone(s)" in out
    assert "reference:" in out


def test_solve_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", TINY, "--backend", "clarabel"]) == 0
    out = capsys.readouterr().out
    assert "status     optimal" in out and "rel. diff" in out and "total=" in out


@pytest.mark.parametrize("backend", ["clarabel", "scs"])
def test_solve_json_matches_reference(backend: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", SDP, "--backend", backend, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    ref = load_metadata(SDP)["reference"]
    assert rec["status"] == "optimal"
    assert rec["reference"] == ref["objective"]
    assert rec["rel_diff"] == pytest.approx(rel_diff(rec["objective"], ref["objective"]))
    assert rec["rel_diff"] <= ref["tolerance"]
    for key in ("compile_time", "solve_time", "total_time", "iterations"):
        assert key in rec


def test_solve_option_is_passed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", TINY, "--backend", "scs", "--option", "eps=1e-9", "-O", "max_iters=100000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rel_diff"] < 1e-7


def test_solve_infeasible_exits_one_with_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "sdpm_hard_infeasible"]) == 1
    assert "infeasible" in capsys.readouterr().err


def test_solve_iteration_limit_exits_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", SDP, "--option", "max_iters=1", "--json"]) == 1
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is False and rec["status"] == "iteration_limit"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["solve", "no_such_instance"], "no_such_instance"),
        (["solve", TINY, "--backend", "bogus"], "bogus"),
        (["solve", TINY, "--option", "novalue"], "key=value"),
        (["solve", TINY, "--option", "not_an_option=3"], "not_an_option"),
        (["export", TINY, "-o", "out.unknown"], "suffix"),
        (["bench", TINY, "--repeat", "0"], "--repeat"),
        (["bench", TINY, "--backends", "clarabel,bogus"], "bogus"),
        (["inspect", "no_such_instance"], "no_such_instance"),
    ],
)
def test_usage_errors_exit_two(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".dat-s", ".cbf"])
def test_export_round_trips(suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"inst{suffix}"
    assert main(["export", SDP, "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    rebuilt, _ = export.to_cvxpy(export.read(out))
    value = rebuilt.solve(solver=cp.CLARABEL)
    assert rel_diff(value, load_metadata(SDP)["reference"]["clarabel"]) <= 1e-6


def test_bench_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    names = ["sdpm_deg0", "hk_csvm_socp_m10", "sdpm_hard_infeasible"]
    rc = main(["bench", *names, "--backends", "clarabel,scs", "--repeat", "2", "--json", str(out)])
    assert rc == 0  # the infeasible instance is infeasible as its reference says
    captured = capsys.readouterr()
    assert "agreement" in captured.out
    assert "bench" in captured.err  # the tqdm bar
    data = json.loads(out.read_text())
    assert len(data["runs"]) == len(names) * 2 * 2
    rows = {r["instance"]: r for r in data["rows"]}
    assert set(rows) == set(names)
    for name in names[:2]:
        assert rows[name]["agreement"] < 1e-5
        assert rows[name]["clarabel_median_time"] > 0 and rows[name]["scs_median_time"] > 0
    assert rows["sdpm_hard_infeasible"]["clarabel_status"] == "infeasible"


def test_bench_unexpected_failure_exits_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", TINY, "--backends", "clarabel", "--repeat", "1", "-O", "max_iters=1"]) == 1
    assert "iteration_limit" in capsys.readouterr().err


def test_demo_forwards_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    import sdpkern.demo

    seen: list[object] = []
    monkeypatch.setattr(sdpkern.demo, "main", lambda argv=None: seen.append(list(argv)) or 0)
    assert main(["demo", "--n-train", "30"]) == 0
    assert seen == [["--n-train", "30"]]


def test_demo_usage_error_exits_two() -> None:
    assert main(["demo", "--no-such-flag"]) == 2


def test_demo_generated_cones_reach_the_full_socp_objective(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    import sdpkern.demo

    objectives = []
    for flags in ([], ["--full"]):
        assert sdpkern.demo.main(["--n-train", "40", *flags]) == 0
        out = capsys.readouterr().out
        objectives.append(float(re.search(r"objective: ([-0-9.e+]+)", out).group(1)))
    assert "constraint generation" not in out
    assert objectives[0] == pytest.approx(objectives[1], rel=1e-6)  # printed to 6 decimals

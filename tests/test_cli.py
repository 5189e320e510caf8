"""The ``sdpkern`` command, driven through ``sdpkern.apps.cli.main([...])``: output, --json, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import cvxpy as cp
import pytest

from sdpkern import export
from sdpkern.apps.cli import main
from sdpkern.apps.instances import load_metadata, rel_diff

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
    assert main(["solve", TINY, "--backend", "scs", "--option", "tol=1e-9", "-O", "max_iter=100000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rel_diff"] < 1e-7


def test_solve_infeasible_exits_one_with_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "sdpm_hard_infeasible"]) == 1
    assert "infeasible" in capsys.readouterr().err


def test_solve_iteration_limit_exits_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", SDP, "--option", "max_iter=1", "--json"]) == 1
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
        (["solve", str(Path("no_dir") / "x.toml")], "does not exist"),
        (["demo", "--n-train", "0"], "--n-train: must be an integer >= 20"),
        (["demo", "--n-train", "many"], "--n-train: must be an integer >= 20"),
        (["demo", "--backend", "nosuch"], "backend='nosuch' is not known"),
        (["demo", "--no-such-flag"], "unrecognized arguments"),
        (["list", "extra"], "unrecognized arguments"),
        (["bench", "--repeat", "x"], "invalid int value"),
    ],
)
def test_usage_errors_exit_two(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["export", TINY, "-o", str(Path("no_dir") / "x.dat-s")], "--output='no_dir/x.dat-s': the directory 'no_dir'"),
        (["bench", TINY, "--json", str(Path("no_dir") / "b.json")], "--json='no_dir/b.json': the directory 'no_dir'"),
    ],
)
def test_io_failures_exit_one_before_any_solve(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that cannot be written is a failure of the command (exit 1), not a usage error, and
    it is found before any solve (the bench used to fail after all its solves)."""
    import cvxpy as cp

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cp.Problem, "get_problem_data", lambda *a, **k: pytest.fail("solved before checking"))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "PathNotFoundError" in err and needle in err
    assert "Traceback" not in err


def test_list_without_a_library_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SDPKERN_PROBLEMS", str(tmp_path / "missing"))
    assert main(["list"]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_usage_error_from_the_console_entry_point_has_no_traceback(tmp_path: Path) -> None:
    """The issue-17 case, end to end in a fresh process: exit 2 and one line on stderr."""
    for argv in (["demo", "--n-train", "0"], ["demo", "--backend", "nosuch"]):
        proc = subprocess.run(
            [sys.executable, "-m", "sdpkern.apps.cli", *argv], capture_output=True, text=True, cwd=tmp_path, timeout=300
        )
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("sdpkern")


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
    assert main(["bench", TINY, "--backends", "clarabel", "--repeat", "1", "-O", "max_iter=1"]) == 1
    assert "iteration_limit" in capsys.readouterr().err


def test_demo_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--quick" in out and "--n-train" in out and "--backend" in out


def test_demo_quick_runs_in_seconds_without_warnings(tmp_path: Path) -> None:
    # `sdpkern demo --quick` is what CI runs from an installed wheel: it must finish quickly and
    # print no warning of any kind (-W error turns one into a failure).
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-m", "sdpkern.apps.cli", "demo", "--quick"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "40 training" in proc.stdout and "status: optimal" in proc.stdout
    assert "RBF SVC, GridSearchCV" in proc.stdout
    assert elapsed < 120  # ~3 s on an idle machine; generous for a loaded one


def test_make_demo_prints_no_convergence_warning() -> None:
    from sklearn.exceptions import ConvergenceWarning

    import sdpkern.apps.demo

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert sdpkern.apps.demo.main([]) == 0


def test_demo_objective_matches_the_estimator(capsys: pytest.CaptureFixture[str]) -> None:
    """The demo builds eq. (3.8) itself from ``HyperkernelSVC()``'s settings (its dictionary basis,
    C, λ_Q); the estimator fitted on the same points must reach the same optimum (catches a
    change of C's meaning on one side)."""
    import re

    import sdpkern.apps.demo
    from sdpkern.estimators import HyperkernelSVC

    assert sdpkern.apps.demo.main(["--n-train", "40"]) == 0
    printed = float(re.search(r"objective: ([-0-9.e+]+)", capsys.readouterr().out).group(1))
    X_tr, _, y_tr, _ = sdpkern.apps.demo.load_split(40, seed=0)
    clf = HyperkernelSVC().fit(X_tr, y_tr)
    assert printed == pytest.approx(clf.objective_, rel=1e-5)  # printed to 6 decimals


def test_demo_generated_cones_reach_the_full_socp_objective(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    import sdpkern.apps.demo

    objectives = []
    for flags in ([], ["--full"]):
        assert sdpkern.apps.demo.main(["--n-train", "40", *flags]) == 0
        out = capsys.readouterr().out
        objectives.append(float(re.search(r"objective: ([-0-9.e+]+)", out).group(1)))
    assert "constraint generation" not in out
    assert objectives[0] == pytest.approx(objectives[1], rel=1e-6)  # printed to 6 decimals

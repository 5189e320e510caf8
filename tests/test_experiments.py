"""Experiment runner: tidy table, resumability after an interruption, backend independence."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from sklearn.datasets import make_classification

from sdpkern.apps.experiments import TIMING_COLUMNS, run_grid
from sdpkern.errors import ParameterError
from sdpkern.estimators import PrimalSVC


@pytest.fixture(scope="module")
def data():
    X1, y1 = make_classification(n_samples=50, n_features=4, random_state=1)
    X2, y2 = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0, random_state=2)
    return {"a": (X1, y1), "b": (X2, y2)}


GRID = {"C": [0.1, 10.0]}


def test_tidy_table_and_summary(data, tmp_path):
    res = run_grid(PrimalSVC(kernel="linear"), data, param_grid=GRID, n_splits=3)
    assert len(res.records) == 2 * 2 * 3 and res.n_computed == 12 and res.n_skipped == 0
    for r in res.records:
        assert {"estimator", "dataset", "split", "seed", "C", "score", "error", "n_iter", "fit_time"} <= set(r)
        assert 0.0 <= r["score"] <= 1.0 and r["error"] == pytest.approx(1 - r["score"])
    summ = res.summary()
    assert len(summ) == 4
    for row in summ:
        scores = [r["score"] for r in res.records if r["dataset"] == row["dataset"] and r["C"] == row["C"]]
        assert row["score_mean"] == pytest.approx(np.mean(scores))
        assert row["score_std"] == pytest.approx(np.std(scores, ddof=1))
    med = res.summary("median_iqr")
    assert all(r["score_q25"] <= r["score_median"] <= r["score_q75"] for r in med)
    res.to_csv(tmp_path / "t.csv")
    res.to_json(tmp_path / "t.json")
    with open(tmp_path / "t.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 12
    assert json.loads((tmp_path / "t.json").read_text()) == res.records
    assert "score_mean" in res.format_summary()
    # same splits for every parameter setting (the tables' protocol)
    seeds = {(r["dataset"], r["split"], r["seed"]) for r in res.records}
    assert len(seeds) == 2 * 3


class _Boom(Exception):
    pass


def test_resume_after_interruption(data, tmp_path, monkeypatch):
    import sdpkern.apps.experiments as ex

    real = ex.run_cell
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 7:  # interrupt in the middle of the 12 cells
            raise _Boom("simulated interruption")
        return real(*args, **kwargs)

    monkeypatch.setattr(ex, "run_cell", flaky)
    with pytest.raises(_Boom):
        run_grid(PrimalSVC(kernel="linear"), data, param_grid=GRID, n_splits=3, results_dir=tmp_path, n_jobs=1)
    finished = sorted((tmp_path / "cells").glob("*.json"))
    assert len(finished) == 6
    mtimes = {p.name: p.stat().st_mtime_ns for p in finished}
    assert not list((tmp_path / "cells").glob("*.tmp"))

    monkeypatch.setattr(ex, "run_cell", real)
    recomputed = []

    def counting(*args, **kwargs):
        recomputed.append(args[0].key)
        return real(*args, **kwargs)

    monkeypatch.setattr(ex, "run_cell", counting)
    res = run_grid(PrimalSVC(kernel="linear"), data, param_grid=GRID, n_splits=3, results_dir=tmp_path, n_jobs=1)
    n_recomputed_finished = len(set(recomputed) & {p.stem for p in finished})
    print(
        f"\ninterrupted run: {len(finished)} cells finished; restart skipped {res.n_skipped}, computed "
        f"{res.n_computed}, recomputed finished cells: {n_recomputed_finished}"
    )
    assert n_recomputed_finished == 0
    assert res.n_skipped == 6 and res.n_computed == 6
    assert {p.name: p.stat().st_mtime_ns for p in finished} == mtimes
    monkeypatch.setattr(ex, "run_cell", real)
    fresh = run_grid(PrimalSVC(kernel="linear"), data, param_grid=GRID, n_splits=3)
    assert res.table(timing=False) == fresh.table(timing=False)


def _cells(tmp_path):
    return {p.name: p.read_bytes() for p in (tmp_path / "cells").glob("*")}


def test_keyboard_interrupt_keeps_finished_cells_and_resumes(data, tmp_path, monkeypatch, caplog):
    """Ctrl-C during a cell: KeyboardInterrupt reaches the caller, the cells finished before are
    on disk, the log says so, and a rerun computes only the rest (issue 17, fault tests)."""
    import sdpkern.apps.experiments as ex

    real = ex.run_cell
    calls = {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ex, "run_cell", interrupted)
    kw = {"param_grid": GRID, "n_splits": 3, "results_dir": tmp_path, "n_jobs": 1}
    with caplog.at_level("WARNING", logger="sdpkern.apps.experiments"), pytest.raises(KeyboardInterrupt):
        run_grid(PrimalSVC(kernel="linear"), data, **kw)
    saved = _cells(tmp_path)
    assert len(saved) == 4 and all(name.endswith(".json") for name in saved)  # no temporary files
    assert "4 of 12 cells are saved" in caplog.text and "resume" in caplog.text

    monkeypatch.setattr(ex, "run_cell", real)
    res = run_grid(PrimalSVC(kernel="linear"), data, **kw)
    assert res.n_skipped == 4 and res.n_computed == 8
    assert all(_cells(tmp_path)[name] == content for name, content in saved.items())  # nothing saved changed
    fresh = run_grid(PrimalSVC(kernel="linear"), data, param_grid=GRID, n_splits=3)
    assert res.table(timing=False) == fresh.table(timing=False)


@pytest.mark.filterwarnings("ignore:.*tasks which were still being processed by the workers:UserWarning")
def test_keyboard_interrupt_while_saving_leaves_no_partial_file(data, tmp_path, monkeypatch):
    """Ctrl-C in the middle of writing a cell (after the bytes, before the rename), with two
    worker processes: the cell is not half-saved, no temporary file is left, the rest resumes."""
    import sdpkern.apps.experiments as ex

    real_fsync = ex.os.fsync
    calls = {"n": 0}

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_fsync(fd)

    monkeypatch.setattr(ex.os, "fsync", fsync)
    kw = {"param_grid": GRID, "n_splits": 3, "results_dir": tmp_path, "n_jobs": 2}
    with pytest.raises(KeyboardInterrupt):
        run_grid(PrimalSVC(kernel="linear"), data, **kw)
    monkeypatch.setattr(ex.os, "fsync", real_fsync)
    saved = _cells(tmp_path)
    assert len(saved) == 2 and all(name.endswith(".json") for name in saved)
    for content in saved.values():
        assert json.loads(content)["score"] >= 0.0  # complete JSON, not a partial write
    res = run_grid(PrimalSVC(kernel="linear"), data, **kw)
    assert res.n_skipped == 2 and res.n_computed == 10
    assert all(_cells(tmp_path)[name] == content for name, content in saved.items())


def test_interrupt_without_results_dir_says_nothing_is_kept(data, monkeypatch, caplog):
    import sdpkern.apps.experiments as ex

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ex, "run_cell", interrupted)
    with caplog.at_level("WARNING", logger="sdpkern.apps.experiments"), pytest.raises(KeyboardInterrupt):
        run_grid(PrimalSVC(kernel="linear"), data, param_grid=GRID, n_splits=1, n_jobs=1)
    assert "pass results_dir" in caplog.text


def test_stale_cells_are_not_reused(data, tmp_path):
    """A results directory reused with anything changed that decides a cell's result recomputes
    it; an unchanged rerun reads every cell."""
    kw = {"param_grid": GRID, "n_splits": 2, "results_dir": tmp_path, "n_jobs": 1}
    first = run_grid(PrimalSVC(kernel="linear"), data, **kw)
    assert first.n_computed == 8
    assert run_grid(PrimalSVC(kernel="linear"), data, **kw).n_skipped == 8
    changed = {
        "random_state": lambda: run_grid(PrimalSVC(kernel="linear"), data, random_state=1, **kw),
        "test_size": lambda: run_grid(PrimalSVC(kernel="linear"), data, test_size=0.5, **kw),
        "fixed parameter": lambda: run_grid(PrimalSVC(kernel="linear", max_iter=7), data, **kw),
        "data": lambda: run_grid(
            PrimalSVC(kernel="linear"), {k: (X + 1.0, y) for k, (X, y) in data.items()}, **kw
        ),
        "scoring": lambda: run_grid(PrimalSVC(kernel="linear"), data, scoring=_neg_error, **kw),
    }
    for what, rerun in changed.items():
        res = rerun()
        assert res.n_skipped == 0 and res.n_computed == 8, what
    assert run_grid(PrimalSVC(kernel="linear"), data, scoring=_neg_error, **kw).n_skipped == 8


def _neg_error(est, X, y):
    return -float(np.mean(est.predict(X) != y))


def test_n_jobs_1_vs_2_identical(data):
    ests = {"lin": PrimalSVC(kernel="linear"), "rbf": PrimalSVC(kernel="rbf")}
    one = run_grid(ests, data, param_grid=GRID, n_splits=2, n_jobs=1)
    two = run_grid(ests, data, param_grid=GRID, n_splits=2, n_jobs=2)
    assert one.table(timing=False) == two.table(timing=False)
    assert all(k not in one.table(timing=False)[0] for k in TIMING_COLUMNS)


def test_per_estimator_grids_and_bad_arguments(data):
    ests = {"lin": PrimalSVC(kernel="linear"), "rbf": PrimalSVC(kernel="rbf")}
    res = run_grid(ests, {"a": data["a"]}, param_grid={"lin": {"C": [1.0]}, "rbf": {"C": [1.0, 2.0]}}, n_splits=1)
    assert [r["estimator"] for r in res.records] == ["lin", "rbf", "rbf"]
    with pytest.raises(ParameterError, match="n_splits"):
        run_grid(PrimalSVC(), data, n_splits=0)
    with pytest.raises(ParameterError, match="test_size"):
        run_grid(PrimalSVC(), data, test_size=1.5)
    with pytest.raises(ValueError, match="datasets"):
        run_grid(PrimalSVC(), {"x": (np.ones((3, 2)), np.ones(4))})

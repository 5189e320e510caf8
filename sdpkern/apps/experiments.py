"""Experiment runner: estimators × data sets × random splits × parameter grids.

This is the protocol of the papers' tables (002 Tables 3.1-3.4, 6.1-6.3; 000 Table 1): every
parameter setting is scored on the same random train/test splits of each data set, and a table
reports the mean ± std (or median and IQR) over the splits.

Cells run through :class:`joblib.Parallel`, so the execution engine is whatever joblib backend is
active: ``n_jobs=2`` uses local processes (loky), and a user with a cluster writes::

    from dask.distributed import Client
    import joblib
    client = Client("scheduler:8786")
    with joblib.parallel_backend("dask"):
        result = run_grid(...)

(or registers Ray's joblib backend) without changing anything else. Each cell has a seed derived
from ``random_state``, the data set name and the split number only, and runs with BLAS limited to
one thread, so the table is bit-for-bit the same on every backend (timing columns excepted).

With ``results_dir`` every finished cell is written atomically to its own JSON file as soon as
its result reaches the caller; a restarted run reads those files back and skips the cells, so
nothing computed is lost when a run is interrupted.

Examples
--------
>>> import numpy as np
>>> from sklearn.datasets import make_classification
>>> from sdpkern.estimators import PrimalSVC
>>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
>>> res = run_grid(PrimalSVC(kernel="linear"), {"toy": (X, y)}, param_grid={"C": [0.1, 1.0]}, n_splits=2)
>>> len(res.records), res.n_computed, res.n_skipped
(4, 4, 0)
>>> [row["C"] for row in res.summary()]
[0.1, 1.0]
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import os
import re
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.model_selection import ParameterGrid, train_test_split

from .._atomic import atomic_open
from ..errors import DataError, ParameterError

__all__ = [
    "Cell",
    "ExperimentResult",
    "TIMING_COLUMNS",
    "make_cells",
    "run_cell",
    "run_context",
    "run_grid",
    "summarize",
    "write_csv",
    "write_json",
    "atomic_write_text",
]

logger = logging.getLogger(__name__)

#: Columns that depend on the machine and the load, excluded from reproducibility comparisons.
TIMING_COLUMNS: tuple[str, ...] = ("fit_time", "predict_time")

DataSpec = tuple[ArrayLike, ArrayLike]


@dataclass(frozen=True)
class Cell:
    """One unit of work: an estimator with fixed parameters on one split of one data set."""

    estimator: str
    dataset: str
    split: int
    params: tuple[tuple[str, Any], ...]
    seed: int
    #: Fingerprint of what else decides the result (see :func:`run_context`); "" if unknown.
    context: str = ""

    @property
    def key(self) -> str:
        """A stable identifier (file name stem) of the cell, independent of the run order.

        It covers the split's seed and the run context, so a results directory reused with other
        data, another ``random_state`` or ``test_size``, other fixed estimator parameters or
        another sdpkern version recomputes the cell instead of reading a stale one.
        """
        text = json.dumps(
            [
                self.estimator,
                self.dataset,
                self.split,
                [[k, _jsonable(v)] for k, v in self.params],
                self.seed,
                self.context,
            ],
            sort_keys=True,
        )
        return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


@dataclass
class ExperimentResult:
    """The tidy table of a run: one record per cell, plus what the run did.

    Attributes
    ----------
    records : list of dict
        One row per cell, in the order of :func:`make_cells` (independent of the backend).
    n_computed : int
        Cells computed by this run.
    n_skipped : int
        Cells read back from ``results_dir`` (finished by an earlier, possibly interrupted run).
    wall_time : float
        Seconds spent by this run.
    """

    records: list[dict[str, Any]]
    n_computed: int = 0
    n_skipped: int = 0
    wall_time: float = 0.0
    param_names: tuple[str, ...] = field(default_factory=tuple)

    def summary(self, stat: str = "mean_std") -> list[dict[str, Any]]:
        """Aggregate over splits; see :func:`summarize`."""
        return summarize(self.records, stat=stat, param_names=self.param_names)

    def table(self, *, timing: bool = True) -> list[dict[str, Any]]:
        """The records, optionally without the timing columns (for bit-for-bit comparisons)."""
        if timing:
            return [dict(r) for r in self.records]
        return [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in self.records]

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write the records as CSV (atomically)."""
        write_csv(self.records, path)

    def to_json(self, path: str | os.PathLike[str]) -> None:
        """Write the records as a JSON list (atomically)."""
        write_json(self.records, path)

    def format_summary(self, stat: str = "mean_std") -> str:
        """The summary as an aligned text table, one line per (estimator, data set, parameters)."""
        rows = self.summary(stat)
        if not rows:
            return "(no results)"
        cols = list(rows[0].keys())
        cells = [[_fmt(r.get(c)) for c in cols] for r in rows]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths))]
        lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# helpers


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _jsonable(v: Any) -> Any:
    """A JSON value for a parameter: numbers, strings, bools and None as is, functions by their
    qualified name, others by repr (without memory addresses, so that it is stable across runs)."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if callable(v) and hasattr(v, "__qualname__") and not isinstance(v, BaseEstimator):
        return f"{getattr(v, '__module__', '')}.{v.__qualname__}"
    return _ADDRESS.sub("", repr(v))


def _array_digest(a: NDArray[Any]) -> str:
    a = np.ascontiguousarray(a)
    h = hashlib.sha1(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode("utf-8"))
    return h.hexdigest()


def run_context(
    estimator: BaseEstimator,
    X: NDArray[Any],
    y: NDArray[Any],
    *,
    test_size: float,
    scoring: Callable[..., float] | None,
) -> str:
    """Fingerprint of everything besides the cell's name, split, grid point and seed that decides
    its result: the estimator's parameters, the data, ``test_size``, the scorer, sdpkern's version."""
    from .. import __version__

    params = sorted((k, _jsonable(v)) for k, v in estimator.get_params(deep=False).items())
    text = json.dumps(
        [
            type(estimator).__qualname__,
            params,
            _array_digest(np.asarray(X)),
            _array_digest(np.asarray(y)),
            float(test_size),
            _jsonable(scoring),
            __version__,
        ]
    )
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and ``os.replace``.

    A reader never sees a half-written file, and an interrupted write leaves the old file (or none).
    """
    with atomic_open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def write_csv(records: Sequence[Mapping[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write records as CSV with the union of their keys as columns (first-seen order), atomically."""
    cols: list[str] = []
    for r in records:
        cols.extend(k for k in r if k not in cols)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow(
            {k: ("" if r.get(k) is None else repr(r[k]) if isinstance(r.get(k), float) else r.get(k)) for k in cols}
        )
    atomic_write_text(path, buf.getvalue())


def write_json(records: Sequence[Mapping[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write records as a JSON list, atomically (floats round-trip exactly)."""
    atomic_write_text(path, json.dumps([dict(r) for r in records], indent=1, allow_nan=True))


def _dataset_seed(random_state: int, dataset: str, split: int) -> int:
    # crc32, not hash(): Python salts str hashes per process, which would break reproducibility.
    ss = np.random.SeedSequence([random_state, zlib.crc32(dataset.encode("utf-8")), split])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def _resolve_datasets(datasets: Mapping[str, DataSpec] | Sequence[str]) -> dict[str, tuple[NDArray[Any], NDArray[Any]]]:
    if isinstance(datasets, Mapping):
        items = list(datasets.items())
    elif isinstance(datasets, (str, bytes)):
        raise ParameterError(f"datasets must be a mapping name -> (X, y) or a list of names, got {datasets!r}")
    else:
        from ..datasets import REGRESSION_SETS, load_keel, load_regression

        items = []
        for name in datasets:
            if name in REGRESSION_SETS:
                ds = load_regression(name)
            else:
                ds = load_keel(name)  # raises a typed error naming an unknown set
            items.append((name, (ds.X, ds.y)))
    out: dict[str, tuple[NDArray[Any], NDArray[Any]]] = {}
    for name, spec in items:
        try:
            X, y = spec
        except (TypeError, ValueError) as exc:
            raise DataError(f"datasets[{name!r}] must be a pair (X, y)") from exc
        X, y = np.asarray(X), np.asarray(y)
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataError(
                f"datasets[{name!r}]: X must be 2-D and y 1-D with as many rows, got X.shape={X.shape}, "
                f"y.shape={y.shape}"
            )
        out[str(name)] = (X, y)
    if not out:
        raise ParameterError("datasets is empty")
    return out


def _resolve_estimators(estimators: BaseEstimator | Mapping[str, BaseEstimator]) -> dict[str, BaseEstimator]:
    if isinstance(estimators, Mapping):
        if not estimators:
            raise ParameterError("estimators is empty")
        return {str(k): v for k, v in estimators.items()}
    if not hasattr(estimators, "get_params"):
        raise ParameterError(f"estimators must be a scikit-learn estimator or a mapping of them, got {estimators!r}")
    return {type(estimators).__name__: estimators}


def _grid_list(grid: Any) -> list[dict[str, Any]]:
    if grid is None:
        return [{}]
    return list(ParameterGrid(grid))


def make_cells(
    estimator_names: Sequence[str],
    dataset_names: Sequence[str],
    grids: Mapping[str, Any],
    *,
    n_splits: int,
    random_state: int,
) -> list[Cell]:
    """All cells of a run, in a fixed order (estimator, data set, parameters, split).

    The split seed depends on ``random_state``, the data set and the split number only, so every
    parameter setting and every estimator is scored on the same splits (the tables' protocol).
    """
    cells = []
    for est in estimator_names:
        for ds in dataset_names:
            for params in _grid_list(grids.get(est)):
                for split in range(n_splits):
                    cells.append(
                        Cell(est, ds, split, tuple(sorted(params.items())), _dataset_seed(random_state, ds, split))
                    )
    return cells


def _n_iter(est: Any) -> int | None:
    it = getattr(est, "n_iter_", None)
    if it is None:
        sol = getattr(est, "solution_", None)
        it = getattr(sol, "iterations", None)
    if it is None:
        return None
    try:
        return int(np.sum(np.asarray(it, dtype=np.float64)))
    except (TypeError, ValueError):
        return None


def run_cell(
    cell: Cell,
    estimator: BaseEstimator,
    X: NDArray[Any],
    y: NDArray[Any],
    *,
    test_size: float,
    scoring: Callable[[Any, NDArray[Any], NDArray[Any]], float] | None = None,
) -> dict[str, Any]:
    """Fit and score one cell; return its record.

    Runs with BLAS limited to one thread: a multithreaded BLAS may sum in a different order on a
    machine with a different number of free cores, and the table must not depend on the backend.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        est = clone(estimator)
        params = dict(cell.params)
        if "random_state" in est.get_params() and "random_state" not in params:
            params["random_state"] = cell.seed % (2**31 - 1)
        est.set_params(**params)
        classifier = is_classifier(est)
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=test_size, random_state=cell.seed % (2**31 - 1), stratify=y if classifier else None
        )
        t0 = time.perf_counter()
        est.fit(X_tr, y_tr)
        t1 = time.perf_counter()
        score = float(scoring(est, X_te, y_te)) if scoring is not None else float(est.score(X_te, y_te))
        t2 = time.perf_counter()
    rec: dict[str, Any] = {"estimator": cell.estimator, "dataset": cell.dataset, "split": cell.split, "seed": cell.seed}
    rec.update({k: _jsonable(v) for k, v in cell.params})
    rec["n_train"], rec["n_test"] = int(len(y_tr)), int(len(y_te))
    rec["score"] = score
    if classifier and scoring is None:
        rec["error"] = 1.0 - score
    rec["n_iter"] = _n_iter(est)
    status = getattr(est, "status_", None)
    if status is not None:
        rec["status"] = str(status)
    rec["fit_time"], rec["predict_time"] = t1 - t0, t2 - t1
    return rec


def _run_indexed(index: int, *args: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    return index, run_cell(*args, **kwargs)


def summarize(
    records: Iterable[Mapping[str, Any]], *, stat: str = "mean_std", param_names: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Aggregate the records over splits, per (estimator, data set, parameter setting).

    Parameters
    ----------
    records : iterable of dict
        Rows as produced by :func:`run_grid`.
    stat : {"mean_std", "median_iqr"}
        ``mean_std``: mean and sample standard deviation (ddof=1; 0 with one split) of the score
        and error; ``median_iqr``: median and the 25th/75th percentiles.
    param_names : sequence of str, optional
        Columns that identify a parameter setting; by default every column that is not one of
        the per-cell outputs.

    Returns
    -------
    list of dict
        One row per group, in first-seen order, with ``n_splits``, the statistics, the mean
        ``fit_time`` and the mean ``n_iter`` where available.
    """
    if stat not in ("mean_std", "median_iqr"):
        raise ParameterError(f"stat must be 'mean_std' or 'median_iqr', got {stat!r}")
    records = list(records)
    outputs = {"split", "seed", "n_train", "n_test", "score", "error", "n_iter", "status", *TIMING_COLUMNS}
    if param_names is None:
        names: list[str] = []
        for r in records:
            names.extend(k for k in r if k not in outputs and k not in ("estimator", "dataset") and k not in names)
        param_names = names
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for r in records:
        key = (r["estimator"], r["dataset"], *(json.dumps(r.get(p), sort_keys=True) for p in param_names))
        groups.setdefault(key, []).append(r)
    out = []
    for rows in groups.values():
        row: dict[str, Any] = {"estimator": rows[0]["estimator"], "dataset": rows[0]["dataset"]}
        row.update({p: rows[0].get(p) for p in param_names})
        row["n_splits"] = len(rows)
        for metric in ("score", "error"):
            vals = np.array([r[metric] for r in rows if r.get(metric) is not None], dtype=np.float64)
            if vals.size == 0:
                continue
            if stat == "mean_std":
                row[f"{metric}_mean"] = float(vals.mean())
                row[f"{metric}_std"] = float(vals.std(ddof=1)) if vals.size > 1 else 0.0
            else:
                q25, med, q75 = np.percentile(vals, [25, 50, 75])
                row[f"{metric}_median"], row[f"{metric}_q25"], row[f"{metric}_q75"] = float(med), float(q25), float(q75)
        times = [r["fit_time"] for r in rows if r.get("fit_time") is not None]
        row["fit_time_mean"] = float(np.mean(times)) if times else None
        iters = [r["n_iter"] for r in rows if r.get("n_iter") is not None]
        row["n_iter_mean"] = float(np.mean(iters)) if iters else None
        out.append(row)
    return out


def _grids_by_estimator(
    estimators: BaseEstimator | Mapping[str, BaseEstimator], param_grid: Any, ests: Mapping[str, BaseEstimator]
) -> dict[str, Any]:
    """One grid per estimator: a mapping keyed by the estimators' names, or the same grid for all."""
    if (
        isinstance(estimators, Mapping)
        and isinstance(param_grid, Mapping)
        and param_grid
        and set(param_grid) <= set(ests)
    ):
        return dict(param_grid)
    return {name: param_grid for name in ests}


def _read_finished(cells: Sequence[Cell], cell_dir: Path | None) -> tuple[list[dict[str, Any] | None], list[int]]:
    """The records already in ``cell_dir`` (``None`` for the others) and the indices still to run."""
    results: list[dict[str, Any] | None] = [None] * len(cells)
    todo: list[int] = []
    for i, c in enumerate(cells):
        path = cell_dir / f"{c.key}.json" if cell_dir is not None else None
        rec = _read_cell(path) if path is not None and path.exists() else None
        if rec is not None:
            results[i] = rec
        else:
            todo.append(i)
    return results, todo


def _read_cell(path: Path) -> dict[str, Any] | None:
    """A saved cell, or None (recompute it) if the file cannot be read as a cell record.

    sdpkern writes cells atomically, so an unreadable one was damaged by something else (a disk
    full, an editor, a copy cut short). It is renamed to ``<key>.json.unreadable`` rather than
    overwritten or deleted, and the run recomputes the cell instead of failing to resume.
    """
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(rec, dict) and "score" in rec:
            return rec
        why = "not a cell record"
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        why = f"{type(exc).__name__}: {exc}"
    aside = path.with_name(path.name + ".unreadable")
    path.replace(aside)
    logger.warning("cell file %s could not be read (%s); kept as %s and recomputed", path, why, aside.name)
    return None


def _compute(
    cells: Sequence[Cell],
    todo: Sequence[int],
    ests: Mapping[str, BaseEstimator],
    data: Mapping[str, tuple[NDArray[Any], NDArray[Any]]],
    results: list[dict[str, Any] | None],
    cell_dir: Path | None,
    bar: Any,
    **options: Any,
) -> None:
    """Run the cells ``todo`` through joblib, filling ``results`` and saving each cell as it arrives."""
    from joblib import Parallel, delayed

    n_jobs = options.pop("n_jobs")
    jobs = (
        delayed(_run_indexed)(i, cells[i], ests[cells[i].estimator], *data[cells[i].dataset], **options) for i in todo
    )
    try:
        # Unordered: each result is saved the moment it arrives, so an interruption loses only
        # the cells still running; the table is put back in cell order by the caller.
        for i, rec in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs):
            results[i] = rec
            if cell_dir is not None:
                atomic_write_text(cell_dir / f"{cells[i].key}.json", json.dumps(rec, allow_nan=True))
            bar.update(1)
    except BaseException:  # KeyboardInterrupt included: say what is kept, then propagate
        done = sum(r is not None for r in results)
        if cell_dir is not None:
            logger.warning(
                "interrupted: %d of %d cells are saved in %s; run again with the same results_dir to resume",
                done,
                len(cells),
                cell_dir,
            )
        else:
            logger.warning(
                "interrupted after %d of %d cells; pass results_dir to keep finished cells", done, len(cells)
            )
        raise


# --------------------------------------------------------------------------------------------
# the runner


def run_grid(
    estimators: BaseEstimator | Mapping[str, BaseEstimator],
    datasets: Mapping[str, DataSpec] | Sequence[str],
    *,
    param_grid: Any = None,
    n_splits: int = 10,
    test_size: float = 0.3,
    random_state: int = 0,
    scoring: Callable[[Any, NDArray[Any], NDArray[Any]], float] | None = None,
    n_jobs: int | None = None,
    results_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> ExperimentResult:
    """Run estimators over data sets × random splits × parameter grids.

    Parameters
    ----------
    estimators : estimator or dict of str -> estimator
        Unfitted scikit-learn estimators (cloned per cell).
    datasets : dict of str -> (X, y), or list of str
        Data in memory, or names of :func:`sdpkern.datasets.load_keel` /
        :func:`~sdpkern.datasets.load_regression` sets.
    param_grid : dict, list of dict, or dict of estimator name -> grid, optional
        A :class:`sklearn.model_selection.ParameterGrid` specification. With a mapping of
        estimators, a mapping keyed by the same names gives one grid per estimator.
    n_splits : int, default=10
        Random train/test splits per data set (stratified for classifiers).
    test_size : float, default=0.3
        Fraction of each data set held out for testing.
    random_state : int, default=0
        Root of every cell's seed.
    scoring : callable ``scoring(estimator, X_test, y_test) -> float``, optional
        Default: the estimator's ``score`` (accuracy or R²); classifiers also get ``error``.
    n_jobs : int, optional
        Passed to :class:`joblib.Parallel`. ``None`` means 1 unless a
        :func:`joblib.parallel_backend` context (Dask, Ray, ...) says otherwise.
    results_dir : path-like, optional
        Directory where each finished cell is written (``cells/<key>.json``, atomically), and
        from which a restarted run reads the cells already done instead of recomputing them. The
        key covers the data, the split seed, ``test_size``, the scorer, the estimator's fixed
        parameters and sdpkern's version (:func:`run_context`); a change of sdpkern's code
        within one version is not detected, so use a fresh directory after editing it.
    progress : bool, optional
        Show a tqdm progress bar; by default only for runs of more than 20 cells.

    Returns
    -------
    ExperimentResult

    Notes
    -----
    **Interrupting a run** (Ctrl-C, i.e. ``KeyboardInterrupt``, or any exception from a cell):
    the exception propagates to the caller after a log message (logger ``sdpkern.apps.experiments``,
    level WARNING) saying how many cells are saved. With ``results_dir``, every cell whose result
    had reached this process is already on disk, each file written atomically (an interrupted
    write leaves no partial file and no temporary file), and nothing saved is ever overwritten or
    deleted; running the same call again computes only the missing cells. Lost are only the
    cells that were still running (with ``n_jobs > 1``, also those finished in a worker but not
    yet received). Without ``results_dir`` nothing is kept. A cell file that cannot be read
    (damaged outside sdpkern) is renamed ``<key>.json.unreadable``, with a warning, and its cell
    recomputed.

    Raises
    ------
    ParameterError
        ``n_splits < 1``, ``test_size`` outside (0, 1), an empty grid or data-set mapping.
    DataError
        A data set that is not a pair ``(X, y)`` of matching shapes.
    """
    if not isinstance(n_splits, (int, np.integer)) or isinstance(n_splits, bool) or n_splits < 1:
        raise ParameterError(f"n_splits must be a positive integer, got {n_splits!r}")
    if not isinstance(test_size, (float, int)) or not 0.0 < float(test_size) < 1.0:
        raise ParameterError(f"test_size must be a fraction in (0, 1), got {test_size!r}")
    ests = _resolve_estimators(estimators)
    data = _resolve_datasets(datasets)
    grids = _grids_by_estimator(estimators, param_grid, ests)
    cells = make_cells(list(ests), list(data), grids, n_splits=int(n_splits), random_state=int(random_state))
    contexts = {
        (e, d): run_context(ests[e], *data[d], test_size=float(test_size), scoring=scoring) for e in ests for d in data
    }
    cells = [replace(c, context=contexts[(c.estimator, c.dataset)]) for c in cells]
    param_names: list[str] = []
    for c in cells:
        param_names.extend(k for k, _ in c.params if k not in param_names)

    start = time.perf_counter()
    cell_dir = Path(results_dir) / "cells" if results_dir is not None else None
    results, todo = _read_finished(cells, cell_dir)
    n_skipped = len(cells) - len(todo)
    if n_skipped:
        logger.info("resuming: %d of %d cells already done in %s", n_skipped, len(cells), results_dir)

    if todo:
        from tqdm.auto import tqdm

        show = len(cells) > 20 if progress is None else bool(progress)
        with tqdm(total=len(cells), initial=n_skipped, disable=not show, desc="cells") as bar:
            options = {"test_size": float(test_size), "scoring": scoring, "n_jobs": n_jobs}
            _compute(cells, todo, ests, data, results, cell_dir, bar, **options)
    records = [r for r in results if r is not None]
    return ExperimentResult(
        records=records,
        n_computed=len(todo),
        n_skipped=n_skipped,
        wall_time=time.perf_counter() - start,
        param_names=tuple(param_names),
    )

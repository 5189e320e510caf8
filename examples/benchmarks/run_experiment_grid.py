"""Demo of the experiment runner: two estimators × two KEEL sets × 3 random splits.
================================================================================

Usage::

    python examples/benchmarks/run_experiment_grid.py [--n-jobs N] [--dask] [--resume DIR] [--out DIR]

``--dask`` starts a ``dask.distributed.LocalCluster`` (2 worker processes) and runs the same
grid through ``joblib.parallel_backend("dask")``; the table is the same as with ``--n-jobs 1``.
``--resume DIR`` keeps finished cells in DIR, so an interrupted run picks up where it stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path

from sdpkern.apps.experiments import run_grid
from sdpkern.estimators import PrimalSVC, ThinPlateSVC


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--dask", action="store_true", help="run on a local Dask cluster of 2 processes")
    ap.add_argument("--resume", type=Path, default=None, help="directory of finished cells (created if missing)")
    ap.add_argument("--out", type=Path, default=Path("experiment_results"), help="where the CSV/JSON go")
    args = ap.parse_args()

    estimators = {"PrimalSVC": PrimalSVC(kernel="rbf"), "ThinPlateSVC": ThinPlateSVC()}
    grids = {"PrimalSVC": {"C": [1.0, 10.0]}, "ThinPlateSVC": {"C": [5.0, 0.5]}}
    datasets = ["heart", "sonar"]

    with contextlib.ExitStack() as stack:
        n_jobs: int | None = args.n_jobs
        if args.dask:
            import joblib
            from dask.distributed import Client, LocalCluster

            cluster = stack.enter_context(LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                                       dashboard_address=None))
            stack.enter_context(Client(cluster))
            stack.enter_context(joblib.parallel_backend("dask"))
            n_jobs = None  # let the active backend decide
        t = time.perf_counter()
        res = run_grid(estimators, datasets, param_grid=grids, n_splits=3, n_jobs=n_jobs, results_dir=args.resume,
                       progress=True)
        wall = time.perf_counter() - t
    print(res.format_summary())
    print(f"\n{len(res.records)} cells: computed {res.n_computed}, resumed {res.n_skipped}; wall {wall:.2f} s")
    res.to_csv(args.out / "records.csv")
    res.to_json(args.out / "records.json")
    print(f"records written to {args.out}/records.csv and .json")


if __name__ == "__main__":
    main()

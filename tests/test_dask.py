"""The runner on a real distributed engine: a Dask LocalCluster of processes gives the n_jobs=1 table."""

from __future__ import annotations

import os
import time

import pytest
from sklearn.datasets import make_classification

from sdpkern.apps.experiments import run_grid
from sdpkern.estimators import PrimalSVC, ThinPlateSVC

try:
    import dask.distributed  # noqa: F401

    HAVE_DASK = True
except ImportError:  # pragma: no cover - CI installs the test extra
    HAVE_DASK = False

pytestmark = pytest.mark.skipif(
    not HAVE_DASK and not os.environ.get("CI"), reason="dask[distributed] not installed (pip install 'sdpkern[dist]')"
)


def _grid():
    X1, y1 = make_classification(n_samples=60, n_features=2, n_redundant=0, random_state=3)
    X2, y2 = make_classification(n_samples=50, n_features=2, n_redundant=0, random_state=4)
    ests = {"primal": PrimalSVC(kernel="rbf"), "thin_plate": ThinPlateSVC()}
    grids = {"primal": {"C": [1.0, 10.0]}, "thin_plate": {"C": [5.0, 0.5]}}
    return ests, {"s1": (X1, y1), "s2": (X2, y2)}, grids


def test_local_cluster_matches_n_jobs_1():
    import joblib
    from dask.distributed import Client, LocalCluster

    ests, data, grids = _grid()
    kw = dict(param_grid=grids, n_splits=3)
    t = time.perf_counter()
    ref = run_grid(ests, data, n_jobs=1, **kw)
    t_one = time.perf_counter() - t
    t = time.perf_counter()
    loky = run_grid(ests, data, n_jobs=2, **kw)
    t_loky = time.perf_counter() - t
    with (
        LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        t = time.perf_counter()
        with joblib.parallel_backend("dask"):
            dist = run_grid(ests, data, **kw)
        t_dask = time.perf_counter() - t
        workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert len(ref.records) == 2 * 2 * 2 * 3
    print(
        f"\nwall time, {len(ref.records)} cells: n_jobs=1 {t_one:.2f} s, loky 2 workers {t_loky:.2f} s, "
        f"Dask LocalCluster 2 processes {t_dask:.2f} s"
    )
    assert dist.table(timing=False) == ref.table(timing=False)
    assert loky.table(timing=False) == ref.table(timing=False)

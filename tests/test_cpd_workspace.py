"""A thin-plate fit depends on its parameters and data only (sdpkern.native.cpd.workspace).

* a fit after any sequence of other fits (other C, other data, other routes; with and without a
  shared :class:`~sdpkern.native.cpd.CPDMemory`), and fits in a thread pool, give the model of a
  cold fit in a fresh process, bit for bit (the fresh process is a subprocess);
* fits leave every module global of sdpkern as they found it (no cache carried between fits);
* the memory: same points take the same workspace, other points or another kernel their own,
  bounded by ``max_sets``; a fit cut short does not hand its workspace on; copies of an estimator
  share the memory, a pickled one comes back empty.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import pickle
import pkgutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_moons

import sdpkern
from sdpkern.estimators import CPDSVC, ThinPlateSVC
from sdpkern.kernels.cpd import PowerDistance
from sdpkern.native.cpd import CPDMemory

#: (data set, estimator parameters): the routes "auto" takes (the dual, its Newton finish, β = 0,
#: the exact separator) and the named ones.
CASES = [
    ("moons", {"C": 5.0, "beta_zero": False}),
    ("moons", {"C": 0.3}),
    ("moons", {"C": 5.0, "beta_zero": False, "solver": "reduced"}),
    ("moons", {"C": 5.0, "beta_zero": False, "solver": "native"}),
    ("linear", {"C": 2.0}),
    ("linear", {"C": 2.0, "beta_zero": False}),
    ("wide", {"C": 1.0, "beta_zero": False}),
    ("wide", {"C": 20.0, "beta_zero": False, "solver": "dual"}),
]

_DATA = textwrap.dedent(
    """
    import numpy as np
    from sklearn.datasets import make_moons

    def data(name):
        if name == "moons":
            return make_moons(160, noise=0.25, random_state=3)
        rng = np.random.default_rng(7)
        if name == "linear":  # separable by a line: beta_zero="auto" takes β = 0
            X = rng.normal(size=(140, 3))
            return X, (X[:, 0] + 0.4 * X[:, 1] > 0).astype(int)
        X = rng.normal(size=(300, 12))  # dim 𝒫 = 13, many support vectors
        return 5.0 * X, (np.sin(2 * X[:, 0]) * X[:, 1] + 0.4 * rng.normal(size=300) > 0).astype(int)
    """
)
exec(_DATA)  # defines data(name) here and in the subprocess alike


def _digest(model: Any) -> str:
    h = hashlib.sha256()
    for name in ("alpha_", "beta_", "dual_coef_", "support_", "intercept_", "objective_", "scale_"):
        h.update(np.ascontiguousarray(np.asarray(getattr(model, name), dtype=np.float64)).tobytes())
    return h.hexdigest()


def _fit(case: int, memory: CPDMemory | None = None) -> str:
    name, params = CASES[case]
    X, y = data(name)  # type: ignore[name-defined]  # noqa: F821
    return _digest(ThinPlateSVC(**params, memory=memory).fit(X, y))


@pytest.fixture(scope="module")
def cold() -> list[str]:
    """Each case fitted once in a fresh interpreter."""
    script = _DATA + textwrap.dedent(
        f"""
        import hashlib, sys
        sys.path.insert(0, {repr(str(__import__("pathlib").Path(__file__).parent))})
        from test_cpd_workspace import CASES, _digest
        from sdpkern.estimators import ThinPlateSVC
        for name, params in CASES:
            X, y = data(name)
            print(_digest(ThinPlateSVC(**params).fit(X, y)))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    lines = out.stdout.split()
    assert len(lines) == len(CASES)
    return lines


def test_every_case_takes_its_route():
    routes = []
    for name, params in CASES:
        X, y = data(name)  # type: ignore[name-defined]  # noqa: F821
        routes.append(ThinPlateSVC(**params).fit(X, y).solver_)
    assert {"dual", "reduced", "native", "beta_zero", "separator"} <= set(routes), routes


@pytest.mark.parametrize("use_memory", [False, True])
def test_a_fit_after_other_fits_is_the_cold_fit_bit_for_bit(cold, use_memory):
    memory = CPDMemory() if use_memory else None
    order = [0, 3, 1, 7, 2, 0, 6, 4, 5, 1, 7, 6, 3, 2, 5, 4]  # every case after others, twice
    for case in order:
        assert _fit(case, memory) == cold[case], CASES[case]
    # another kernel and other points in between change nothing either
    X, y = make_moons(120, noise=0.3, random_state=9)
    CPDSVC(kernel=PowerDistance(1.0), C=3.0, beta_zero=False, memory=memory).fit(X, y)
    assert _fit(0, memory) == cold[0]


@pytest.mark.parametrize("use_memory", [False, True])
def test_fits_in_a_thread_pool_are_the_cold_fits_bit_for_bit(cold, use_memory):
    memory = CPDMemory() if use_memory else None
    jobs = [0, 1, 6, 7, 0, 1, 6, 7, 2, 4]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda c: _fit(c, memory), jobs))
    assert got == [cold[c] for c in jobs]


def _module_state() -> dict[str, Any]:
    """Every mutable container among the module globals of sdpkern, by a picture of its content."""
    state: dict[str, Any] = {}
    for info in pkgutil.walk_packages(sdpkern.__path__, "sdpkern."):
        if info.name.rsplit(".", 1)[-1] in ("cli", "demo", "experiments", "instances", "plotting", "cpd_newton",
                                             "cpd_reduced", "cholesky_update"):  # fmt: skip
            continue  # (deprecated aliases: importing them warns)
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # optional dependencies
            continue
        for key, value in vars(module).items():
            if isinstance(value, (dict, list, set, bytearray)) or type(value).__name__ in (
                "WeakKeyDictionary", "WeakValueDictionary", "OrderedDict", "deque", "_local"
            ):  # fmt: skip
                try:
                    picture = repr(sorted(map(repr, value))) if not isinstance(value, bytearray) else bytes(value)
                except TypeError:
                    picture = repr(vars(value)) if hasattr(value, "__dict__") else repr(value)
                state[f"{info.name}.{key}"] = (len(value) if hasattr(value, "__len__") else None, picture)
    return state


def test_fits_leave_every_module_global_as_they_found_it():
    before = _module_state()
    for case in range(len(CASES)):
        _fit(case)
    X, y = make_moons(90, noise=0.3, random_state=2)
    ThinPlateSVC(C=2.0).fit(X, np.arange(90) % 3)  # one-vs-rest
    after = _module_state()
    changed = {k for k in before if before[k] != after.get(k)} | (after.keys() - before.keys())
    assert not changed, changed


def test_the_memory_keeps_workspaces_by_points_and_kernel():
    X, y = make_moons(100, noise=0.3, random_state=0)
    memory = CPDMemory(max_sets=2)
    ThinPlateSVC(C=1.0, memory=memory).fit(X, y)
    (ws,) = memory._kept.values()
    ThinPlateSVC(C=7.0, memory=memory).fit(X, y)  # the same points: the same workspace
    assert len(memory) == 1 and next(iter(memory._kept.values())) is ws
    ThinPlateSVC(C=7.0, memory=memory).fit(X + 1e-9, y)  # other points: their own
    CPDSVC(kernel=PowerDistance(1.0), C=7.0, memory=memory).fit(X, y)  # another kernel: likewise
    assert len(memory) == 2 and ws not in memory._kept.values()  # (the oldest dropped)
    # copies of an estimator share the memory; a pickled memory comes back empty
    est = ThinPlateSVC(memory=memory)
    assert clone(est).memory is memory and copy.deepcopy(est).memory is memory
    again = pickle.loads(pickle.dumps(memory))
    assert len(again) == 0 and again.max_sets == 2


def test_a_fit_cut_short_does_not_hand_on_its_workspace(monkeypatch):
    from sdpkern.native.cpd import workspace

    X, y = make_moons(80, noise=0.2, random_state=1)
    memory = CPDMemory()

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(workspace, "cpd_dual_svm", boom)
    with pytest.raises(KeyboardInterrupt):
        ThinPlateSVC(C=1.0, beta_zero=False, solver="dual", memory=memory).fit(X, y)
    assert len(memory) == 0

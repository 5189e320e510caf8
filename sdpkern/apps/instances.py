"""The instance library: named, reproducible kernel programs with reference optima.

Each instance is a small TOML file, ``NAME.toml`` in :func:`problems_dir` (the ``problems/``
folder of this package, shipped in the wheel; ``problems/_generate.py`` in the source tree
writes them)::

    name = "hk_csvm_sdp_m10"
    description = "hyperkernel C-SVM (002 eq. 3.8), SDP form, 10 breast-cancer points"
    formulation = "hyperkernel.csvm"      # a key of FORMULATIONS
    form = "sdp"                          # passed to the builder where it has one
    slow = false                          # true: minutes, skipped by the quick tests

    [data]
    source = "sklearn:breast_cancer"      # or "keel:NAME", "synthetic:trajectories"
    seed = 0                              # the subsample / generator seed
    size = 10                             # number of training points (balanced classes)
    standardize = false                   # z-score the columns (whole data set)
    columns = [1, 4, 8, 9]                # optional: keep these columns only

    [parameters]                          # keyword arguments of the builder
    C = 10.0

    [reference]                           # measured by problems/_generate.py, not typed
    status = "optimal"
    objective = 1.2345                    # Clarabel's optimum
    clarabel = 1.2345
    scs = 1.2346
    rel_diff = 1e-6                       # |clarabel - scs| / max(1, |clarabel|)
    tolerance = 1e-4                      # what a backend must reach to agree

:func:`load` turns a name (or a path to such a file) into ``(KernelProblem, metadata)``;
:func:`list_instances` lists the library. Anything malformed raises
:class:`~sdpkern.errors.InputError` naming the offending key.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 needs the backport
    import tomli as tomllib

__all__ = ["FORMULATIONS", "SOURCES", "load", "load_metadata", "build", "list_instances", "problems_dir", "rel_diff"]

Array = NDArray[np.float64]


def rel_diff(a: float, b: float) -> float:
    """``|a − b| / max(1, |b|)``: the agreement measure used throughout the library."""
    return abs(float(a) - float(b)) / max(1.0, abs(float(b)))


# ----------------------------------------------------------------------------- data sources
def _balanced_subsample(y: NDArray[Any], size: int, seed: int) -> NDArray[np.intp]:
    rng = np.random.default_rng(seed)
    classes = np.unique(y)
    if len(classes) != 2:
        raise InputError(f"data: expected two classes, found {len(classes)}")
    half = [size // 2, size - size // 2]
    idx = []
    for c, k in zip(classes, half, strict=True):
        members = np.flatnonzero(y == c)
        if k > len(members):
            raise InputError(f"data.size={size} is larger than the data set allows ({len(y)} points)")
        idx.append(rng.choice(members, k, replace=False))
    return np.sort(np.concatenate(idx))


def _standardize(X: Array) -> Array:
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def _sklearn_breast_cancer(spec: Mapping[str, Any]) -> tuple[Array, Array]:
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return np.asarray(X, float), np.where(y == 1, 1.0, -1.0)


def _keel(spec: Mapping[str, Any], name: str) -> tuple[Array, Array]:
    from ..datasets import load_keel

    ds = load_keel(name)
    return np.asarray(ds.X, float), np.asarray(ds.y, float)


def _synthetic_trajectories(spec: Mapping[str, Any]) -> tuple[Array, Array]:
    """Two classes of polynomial trajectories (m, r + 1, n): offset means, noisy derivatives."""
    size = _int(spec, "size", "data")
    degree = _int(spec, "degree", "data")
    n = _int(spec, "n_features", "data", default=3)
    sep = float(spec.get("separation", 1.5))
    noise = float(spec.get("noise", 0.3))
    rng = np.random.default_rng(_int(spec, "seed", "data"))
    T = rng.standard_normal((size, degree + 1, n)) * noise
    y = np.where(np.arange(size) % 2 == 0, 1.0, -1.0)
    T[:, 0, :] += y[:, None] * sep
    if degree >= 2:  # a class-aligned top coefficient keeps the whole-line problem non-trivial
        T[:, degree, :] += y[:, None] * float(spec.get("curvature", 0.0))
    return T, y


#: data.source -> loader(spec) -> (X or trajectories, y in {-1, +1}).
SOURCES: dict[str, Callable[[Mapping[str, Any]], tuple[Array, Array]]] = {
    "sklearn:breast_cancer": _sklearn_breast_cancer,
    "synthetic:trajectories": _synthetic_trajectories,
}


def load_data(spec: Mapping[str, Any]) -> tuple[Array, Array]:
    """The training data an instance's ``[data]`` table describes."""
    source = spec.get("source")
    if not isinstance(source, str):
        raise InputError(f"data.source must be a string, got {source!r}")
    if source.startswith("keel:"):
        X, y = _keel(spec, source.split(":", 1)[1])
    elif source in SOURCES:
        X, y = SOURCES[source](spec)
    else:
        raise InputError(f"data.source={source!r} is not known; choose one of {sorted(SOURCES)} or 'keel:NAME'")
    if source.startswith("synthetic:"):
        return X, y
    size = _int(spec, "size", "data")
    idx = _balanced_subsample(y, size, _int(spec, "seed", "data"))
    if spec.get("standardize", False):
        X = _standardize(X)
    columns = spec.get("columns")
    if columns is not None:
        if not isinstance(columns, list) or not all(isinstance(c, int) and 0 <= c < X.shape[1] for c in columns):
            raise InputError(f"data.columns must be a list of column indices below {X.shape[1]}, got {columns!r}")
        X = X[:, columns]
    return X[idx], y[idx]


# ----------------------------------------------------------------------------- formulations
def _hyperkernel_csvm(X: Array, y: Array, form: str | None, params: dict[str, Any]) -> Any:
    from ..builders.hyperkernel import csvm

    # The instance files were generated with eq. (3.8)'s own constant C' and the full
    # incomplete-Cholesky basis; the builder now takes scikit-learn's C = C'/m and caps the
    # basis at 150 terms by default, so both are converted to keep every stored reference.
    params = dict(params)
    if "C" in params:
        params["C"] = float(params["C"]) / X.shape[0]
    params.setdefault("max_terms", None)
    return csvm(X, y, form=form or "socp", **params)  # type: ignore[arg-type]


def _sdpm(X: Array, y: Array, form: str | None, params: dict[str, Any]) -> Any:
    from ..builders.sdpm import sdpm

    return sdpm(X, y, form=form or "auto", **params)  # type: ignore[arg-type]


def _cpd_kernel(spec: Any) -> Any:
    """``parameters.kernel = {name = "thin_plate", order = 2, formula_dimension = 2}`` -> a kernel."""
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("name") != "thin_plate":
        raise InputError(f"parameters.kernel must be an inline table with name = 'thin_plate', got {spec!r}")
    from ..kernels.cpd import ThinPlate

    return ThinPlate(**{k: v for k, v in spec.items() if k != "name"})


def _cpd(name: str) -> Callable[[Array, Array, str | None, dict[str, Any]], Any]:
    def build_cpd(X: Array, y: Array, form: str | None, params: dict[str, Any]) -> Any:
        from ..builders import cpd_svm

        params = dict(params)
        kernel = params.pop("kernel", None)
        if "lam" in params:  # the instance files store 000 eq. (14)'s λ; the builders take C = 1/(2λ)
            params["C"] = 1.0 / (2.0 * float(params.pop("lam")))
        return getattr(cpd_svm, name)(X, y, _cpd_kernel(kernel), **params)

    build_cpd.__name__ = f"cpd_{name}"
    return build_cpd


#: formulation name -> builder(X, y, form, parameters) -> KernelProblem.
FORMULATIONS: dict[str, Callable[[Array, Array, str | None, dict[str, Any]], Any]] = {
    "hyperkernel.csvm": _hyperkernel_csvm,
    "sdpm": _sdpm,
    "cpd.squared_hinge": _cpd("squared_hinge"),
    "cpd.squared_hinge_beta_zero": _cpd("squared_hinge_beta_zero"),
    "cpd.hinge_dual": _cpd("hinge_dual"),
    "cpd.hinge_primal": _cpd("hinge_primal"),
}


# ----------------------------------------------------------------------------- files
def problems_dir() -> Path:
    """The library directory: ``$SDPKERN_PROBLEMS`` if set, else the ``problems/`` folder shipped
    inside this package (``sdpkern/apps/problems``, installed with the wheel)."""
    env = os.environ.get("SDPKERN_PROBLEMS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "problems"


def list_instances(directory: str | os.PathLike[str] | None = None) -> list[str]:
    """Names of the instances in the library (sorted); files starting with ``_`` are skipped.

    Raises
    ------
    InputError
        If the directory (by default :func:`problems_dir`) does not exist.
    """
    d = Path(directory) if directory is not None else problems_dir()
    if not d.is_dir():
        where = "directory" if directory is not None else "instance library ($SDPKERN_PROBLEMS or the package's)"
        raise InputError(f"{where} {str(d)!r} is not a directory")
    return sorted(p.stem for p in d.glob("*.toml") if not p.name.startswith("_"))


def _path_of(instance: str | os.PathLike[str]) -> Path:
    s = str(instance)
    p = Path(s)
    if s.endswith(".toml") or os.sep in s or "/" in s:
        if not p.is_file():
            raise InputError(f"instance file {s!r} does not exist")
        return p
    p = problems_dir() / f"{s}.toml"
    if not p.is_file():
        known = list_instances() if problems_dir().is_dir() else []
        raise InputError(f"instance {s!r} is not in {problems_dir()}; known instances: {', '.join(known) or 'none'}")
    return p


def _int(spec: Mapping[str, Any], key: str, table: str, default: int | None = None) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{table}.{key} must be a non-negative integer, got {value!r}")
    return value


def load_metadata(instance: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed, checked TOML of an instance (name or path); ``path`` is added."""
    path = _path_of(instance)
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"instance file {str(path)!r} is not valid TOML: {exc}") from None
    meta.setdefault("name", path.stem)
    formulation = meta.get("formulation")
    if formulation not in FORMULATIONS:
        raise InputError(
            f"formulation={formulation!r} in {path.name} is not known; choose one of {sorted(FORMULATIONS)}"
        )
    for table in ("data", "parameters", "reference"):
        if not isinstance(meta.get(table, {}), dict):
            raise InputError(f"[{table}] in {path.name} must be a table")
    if "data" not in meta:
        raise InputError(f"data: {path.name} has no [data] table")
    form = meta.get("form")
    if form is not None and not isinstance(form, str):
        raise InputError(f"form in {path.name} must be a string, got {form!r}")
    if not isinstance(meta.get("slow", False), bool):
        raise InputError(f"slow in {path.name} must be true or false")
    meta["path"] = str(path)
    return meta


def build(meta: Mapping[str, Any]) -> Any:
    """The KernelProblem an instance's metadata describes."""
    X, y = load_data(meta["data"])
    params = dict(meta.get("parameters", {}))
    builder = FORMULATIONS[meta["formulation"]]
    try:
        return builder(X, y, meta.get("form"), params)
    except TypeError as exc:
        raise InputError(f"parameters of {meta.get('name')!r} do not fit {meta['formulation']}: {exc}") from None


def load(instance: str | os.PathLike[str]) -> tuple[Any, dict[str, Any]]:
    """``(KernelProblem, metadata)`` for an instance name in the library or a path to its TOML."""
    meta = load_metadata(instance)
    return build(meta), meta

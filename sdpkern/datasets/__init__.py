"""Offline copies of the papers' data sets, with small loaders.

Nothing is fetched from the network. The KEEL classification sets (002 Tables 3.1, 6.3;
000 Table 1) and the regression sets (002 Tables 3.4, 6.1) are vendored as gzip files in
``sdpkern/datasets/data``. Categorical attributes are coded as in 002 §3.2: Boolean ones to
±1, other categorical ones to 1, 2, … (in sorted order of their values).
"""

from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError

__all__ = ["load_keel", "load_regression", "KEEL_SETS", "REGRESSION_SETS", "Dataset"]

#: name -> (file, the class taken as positive); aliases follow the papers' table names.
KEEL_SETS: dict[str, tuple[str, str | None]] = {
    "wdbc": ("wdbc.dat", "M"),
    "pima": ("pima.dat", "tested_positive"),
    "ionosphere": ("ionosphere.dat", "g"),
    "sonar": ("sonar.dat", "M"),
    "heart": ("heart.dat", "2"),
    "crx": ("crx.dat", "positive"),
    "thyroid": ("new-thyroid1.dat", "positive"),
    "glass": ("glass-0-1-2-3_vs_4-5-6.dat", "positive"),
    "banana": ("banana.dat", "1.0"),
    "breast": ("breast.dat", "recurrence-events"),
    "german": ("german.dat", "2"),
    "ringnorm": ("ring.dat", "1"),
    "twonorm": ("twonorm.dat", "1"),
    "splice": ("splice.dat", "N"),
}
_ALIASES = {
    "diabetes": "pima",
    "credit": "crx",
    "new-thyroid": "thyroid",
    "ring": "ringnorm",
    "ionosph": "ionosphere",
    "breast_cancer": "wdbc",
}

#: name -> (file, target column, columns to drop)
REGRESSION_SETS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "boston": ("boston.csv", "medv", ()),
    "cpus": ("cpus.csv", "perf", ("name", "estperf")),
    "auto_mpg": ("auto_mpg.csv", "mpg", ("name",)),
}


@dataclass(frozen=True)
class Dataset:
    """A loaded data set: inputs, targets and where they came from."""

    X: NDArray[np.float64]
    y: NDArray[np.float64]
    name: str
    feature_kinds: tuple[str, ...]


def _read_text(filename: str) -> str:
    with resources.files(__package__).joinpath("data").joinpath(filename + ".gz").open("rb") as fh:
        return gzip.decompress(fh.read()).decode("utf-8")


def _encode_column(values: list[str]) -> tuple[NDArray[np.float64], str]:
    """Numbers stay numbers; two-valued categoricals become ±1; others 1, 2, … (002 §3.2)."""
    try:
        return np.array([float(v) for v in values]), "numeric"
    except ValueError:
        levels = sorted(set(values))
        if len(levels) == 2:
            return np.where(np.array(values) == levels[1], 1.0, -1.0), "boolean"
        index = {lev: i + 1 for i, lev in enumerate(levels)}
        return np.array([float(index[v]) for v in values]), "categorical"


def load_keel(name: str) -> Dataset:
    """Load a KEEL classification set; labels are -1/+1 with the paper's positive class +1.

    Examples
    --------
    >>> ds = load_keel("pima")
    >>> ds.X.shape, sorted(set(ds.y.tolist()))
    ((768, 8), [-1.0, 1.0])
    """
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in KEEL_SETS:
        raise InputError(f"name={name!r} is not a bundled KEEL set; choose one of {sorted(KEEL_SETS)}")
    filename, positive = KEEL_SETS[key]
    rows = [[c.strip() for c in line.split(",")] for line in _read_text(filename).splitlines() if line.strip()]
    cols = list(zip(*rows))
    encoded = [_encode_column(list(c)) for c in cols[:-1]]
    X = np.column_stack([e[0] for e in encoded])
    labels = np.array(cols[-1])
    try:  # numeric labels compare as numbers ("1" vs "1.0")
        y = np.where(labels.astype(float) == float(positive), 1.0, -1.0)  # type: ignore[arg-type]
    except ValueError:
        y = np.where(labels == positive, 1.0, -1.0)
    return Dataset(X=X, y=y, name=key, feature_kinds=tuple(e[1] for e in encoded))


def load_regression(name: str) -> Dataset:
    """Load a regression set (boston, cpus, auto_mpg) as numeric inputs and a float target."""
    key = name.lower().replace("-", "_")
    if key not in REGRESSION_SETS:
        raise InputError(f"name={name!r} is not a bundled regression set; choose one of {sorted(REGRESSION_SETS)}")
    filename, target, drop = REGRESSION_SETS[key]
    reader = csv.DictReader(_read_text(filename).splitlines())
    rows = list(reader)
    features = [c for c in reader.fieldnames or [] if c not in (target, "rownames", *drop)]
    encoded = [_encode_column([r[c] for r in rows]) for c in features]
    X = np.column_stack([e[0] for e in encoded])
    y = np.array([float(r[target]) for r in rows])
    return Dataset(X=X, y=y, name=key, feature_kinds=tuple(e[1] for e in encoded))

"""The vendored data sets are byte-identical to ../shared/data and load with the documented shapes."""

import gzip
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from sdpkern.datasets import KEEL_SETS, REGRESSION_SETS, load_keel, load_regression
from sdpkern.errors import InputError

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.mark.parametrize("name", sorted(KEEL_SETS))
def test_keel_loads(name):
    ds = load_keel(name)
    assert ds.X.ndim == 2 and ds.X.shape[0] == ds.y.shape[0]
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    assert np.all(np.isfinite(ds.X))


def test_known_shapes_and_aliases():
    assert load_keel("pima").X.shape == (768, 8)
    assert load_keel("diabetes").X.shape == (768, 8)
    assert load_keel("wdbc").X.shape == (569, 30) and (load_keel("wdbc").y > 0).sum() == 212
    assert load_regression("boston").X.shape == (506, 13)
    assert load_regression("cpus").X.shape == (209, 6)


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/data not beside the checkout")
@pytest.mark.parametrize("name", [f for f, _ in KEEL_SETS.values()] + [f for f, _, _ in REGRESSION_SETS.values()])
def test_vendored_copies_match_shared(name):
    sub = "keel" if name.endswith(".dat") else "regression"
    vendored = resources.files("sdpkern.datasets").joinpath("data", name + ".gz").read_bytes()
    assert gzip.decompress(vendored) == (SHARED / sub / name).read_bytes()


def test_unknown_names():
    with pytest.raises(InputError, match="name"):
        load_keel("mnist")
    with pytest.raises(InputError, match="name"):
        load_regression("housing")

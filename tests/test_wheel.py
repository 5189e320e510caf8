"""The wheel a user installs: it carries the instance library and the data sets, and the
``sdpkern`` command works from it outside the source tree (`make check-wheel` does the same in a
fresh venv with the console script; this test builds offline and installs with ``--target``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import sdpkern
from sdpkern.apps.instances import list_instances, problems_dir

SOURCE = Path(sdpkern.__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not (SOURCE / "pyproject.toml").is_file(), reason="needs the source tree")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel from a copy of what the sdist holds (no tests/, no problems/)."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(SOURCE / name, src / name)
    # not the compiled modules an editable install left in the tree: the wheel compiles its own
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.c")
    shutil.copytree(SOURCE / "sdpkern", src / "sdpkern", ignore=ignore)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(work / "dist"),
            src,
        ],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=600,
    )
    (built,) = (work / "dist").glob("sdpkern-*.whl")
    return built


def test_wheel_carries_the_instances_and_the_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for instance in list_instances():
        assert f"sdpkern/apps/problems/{instance}.toml" in names, instance
    data = SOURCE / "sdpkern" / "datasets" / "data"
    for path in data.iterdir():
        if path.suffix == ".gz":
            assert f"sdpkern/datasets/data/{path.name}" in names, path.name
    assert {"sdpkern/__init__.pyi", "sdpkern/py.typed"} <= names  # the lazy top level reads the stub
    for core in ("_svmcore", "_hkcore", "_newtoncore"):
        assert any(n.startswith(f"sdpkern/{core}.") and n.endswith((".so", ".pyd")) for n in names), f"no {core}"
    assert {"sdpkern/_newtoncore.pyi", "sdpkern/_newtoncore.pyx"} <= names
    assert not any(n.startswith(("tests/", "problems/", "examples/")) for n in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "sdpkern = sdpkern.apps.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_wheel_runs_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "SDPKERN_PROBLEMS"}
    env["PYTHONPATH"] = str(site)  # before site-packages, so the installed copy wins over the editable one

    def run(*code: str) -> str:
        proc = subprocess.run(
            [sys.executable, *code], cwd=run_dir, env=env, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    where = run("-c", "import sdpkern, sdpkern.apps.instances as i; print(sdpkern.__file__); print(i.problems_dir())")
    module_file, library = (Path(line) for line in where.split())
    assert site in module_file.parents and site in library.parents
    assert SOURCE not in module_file.parents

    listed = run("-m", "sdpkern.apps.cli", "list")
    assert {line.split()[0] for line in listed.splitlines()} == set(list_instances())
    inspected = run("-m", "sdpkern.apps.cli", "inspect", "hk_csvm_sdp_m10")
    assert "hyperkernel C-SVM [SDP]" in inspected and "reference:" in inspected
    loaded = run("-c", "from sdpkern.datasets import load_keel; print(load_keel('pima').X.shape)")
    assert loaded.strip() == "(768, 8)"
    core = run("-c", "import sdpkern._svmcore as c; print(c.__file__)")
    assert site in Path(core.strip()).parents  # the wheel's own compiled core


def test_source_library_is_inside_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SDPKERN_PROBLEMS", raising=False)
    assert problems_dir() == SOURCE / "sdpkern" / "apps" / "problems"
    assert not list((SOURCE / "problems").glob("*.toml")), "instances belong in sdpkern/apps/problems"

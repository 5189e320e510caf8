"""sphinx-gallery hooks: the command-line scripts' quick arguments, and their PNG files as figures.

The teaching examples (``examples/*.py``) take no arguments and draw with matplotlib, whose
scraper collects their figures. The command-line scripts (``examples/benchmarks/``,
``examples/reproductions/``) write their figures as PNG files (atomically, with
``savefig``/``save_png``, then close them), so matplotlib's scraper sees nothing: each gets its
own output directory through its command line (``QUICK_ARGS``), and :class:`PNGScraper` hands
every PNG that appears there to the gallery. ``QUICK_ARGS`` is also the smoke test's budget: the
build runs every script with these arguments and fails on any error.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

__all__ = ["QUICK_ARGS", "OUTPUT_ROOT", "SCRIPT_DIRS", "ResetArgv", "PNGScraper", "output_dir", "is_script"]

#: Where the examples write their files during a docs build (never the source tree).
OUTPUT_ROOT = Path(__file__).resolve().parent.parent / "_build" / "gallery-output"

#: Script file -> its arguments in the docs build; ``{out}`` is its output directory (relative to
#: the script's folder, where sphinx-gallery runs it, so that printed paths name no machine).
#: Chosen so the whole gallery runs in a few minutes on two cores; each script's docstring says
#: what the full run does.
QUICK_ARGS: dict[str, list[str]] = {
    "bench_export.py": ["--quick", "--repeat", "1"],
    "bench_builder_route.py": ["--quick"],
    "bench_external.py": ["hk_csvm_sdp_m10", "sdpm_deg2_sdp"],
    "bench_hyperkernel.py": ["--m", "30"],
    "bench_hyperkernel_scale.py": ["--quick"],
    "bench_hyperkernel_large.py": ["--quick"],
    "bench_kernel_learning.py": ["--quick"],
    "bench_sdpm_large.py": ["--quick"],
    "compare_hyperkernel_uci.py": ["--splits", "2", "--sets", "wdbc"],
    "bench_native.py": ["--quick", "--primal-only"],
    "bench_thin_plate.py": ["--quick"],
    "bench_svm_core.py": ["--quick"],
    "plot_gallery.py": ["--quick", "--out", "{out}"],
    "status_sweep.py": ["--quick"],
    "compare_backends.py": ["--instances", "hk_csvm_sdp_m10", "cpd_hinge_dual"],
    "fault_injection.py": ["--estimators", "HyperkernelSVC(solver='conic')", "PrimalSVC(kernel='rbf', solver='exact')"],
    "reproduce_hyperkernel_tables.py": [
        "table31",
        "lambda",
        "--splits",
        "1",
        "--datasets",
        "sonar",
        "heart",
        "--max-train",
        "40",
        "--out",
        "{out}",
    ],
    "reproduce_krylov_tables.py": ["--quick", "--out", "{out}"],
    "reproduce_thin_plate_table.py": ["--splits", "1", "--datasets", "heart", "--figure", "{out}/figure1.png"],
    "roundtrip_instances.py": ["sdpm_deg0", "hk_csvm_sdp_m10", "cpd_hinge_dual"],
    "run_experiment_grid.py": ["--out", "{out}"],
    "sdpm_digits.py": ["--repetitions", "1", "--n-test", "50", "--out", "{out}"],
}


def output_dir(src_file: str | os.PathLike[str]) -> Path:
    """The directory an example writes to in the docs build."""
    return OUTPUT_ROOT / Path(src_file).stem


#: Folders of the command-line scripts (the teaching examples sit above them and take no arguments).
SCRIPT_DIRS = ("benchmarks", "reproductions")


def is_script(src_file: str | os.PathLike[str]) -> bool:
    """Whether ``src_file`` is a command-line script (it needs a ``QUICK_ARGS`` entry)."""
    return Path(src_file).parent.name in SCRIPT_DIRS


class ResetArgv:
    """``sys.argv[1:]`` for each example: a script's quick arguments, output directory emptied first."""

    def __repr__(self) -> str:  # a stable repr: Sphinx compares config values between builds
        return "ResetArgv"

    def __call__(self, gallery_conf: dict[str, Any], script_vars: dict[str, Any]) -> list[str]:
        src = Path(script_vars["src_file"])
        if not is_script(src):
            return []
        if src.name not in QUICK_ARGS:
            raise KeyError(f"{src} has no entry in docs/sphinxext/gallery_hooks.py QUICK_ARGS")
        out = output_dir(src)
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        rel = os.path.relpath(out, src.parent)
        return [arg.replace("{out}", rel) for arg in QUICK_ARGS[src.name]]


class PNGScraper:
    """Image scraper: the PNG files new in the example's output directory since the last block."""

    def __init__(self) -> None:
        self._seen: set[Path] = set()

    def __repr__(self) -> str:
        return "PNGScraper"

    def __call__(self, block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]) -> str:
        from sphinx_gallery.scrapers import figure_rst

        out = output_dir(block_vars["src_file"])
        new = [p for p in sorted(out.rglob("*.png")) if p.resolve() not in self._seen] if out.is_dir() else []
        images = []
        for png, dest in zip(new, block_vars["image_path_iterator"]):
            self._seen.add(png.resolve())
            shutil.copyfile(png, dest)
            images.append(dest)
        return figure_rst(images, gallery_conf["src_dir"]) if images else ""

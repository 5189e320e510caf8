"""Round trip of every problems/ instance through both file formats.
=================================================================

For each feasible instance: solve in process (Clarabel), write ``.dat-s`` and ``.cbf``, read
each back, rebuild a ``cvxpy.Problem`` and solve it with Clarabel; print the plain relative
difference ``|f_file - f_ours| / |f_ours|`` (target 1e-6). Instances marked slow need ``--slow``
(hk_csvm_socp_m150 takes several minutes).

    python examples/benchmarks/roundtrip_instances.py [--slow] [INSTANCE ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import cvxpy as cp

from sdpkern import export
from sdpkern.apps.instances import list_instances, load, load_metadata

RTOL = 1e-6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("instances", nargs="*")
    ap.add_argument("--slow", action="store_true", help="include instances marked slow")
    args = ap.parse_args(argv)
    names = args.instances or [n for n in list_instances() if args.slow or not load_metadata(n).get("slow")]
    print(f"{'instance':<30}{'ours':>18}{'.dat-s rel':>12}{'.cbf rel':>12}")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="sdpkern-rt-") as work:
        for name in names:
            problem, meta = load(name)
            if meta["reference"]["status"] != "optimal":
                continue
            ours = problem.solve("clarabel").objective
            cells = []
            for suffix in (".dat-s", ".cbf"):
                path = Path(work) / f"{name}{suffix}"
                export.write(problem, path)
                rebuilt, _ = export.to_cvxpy(export.read(path))
                value = float(rebuilt.solve(solver=cp.CLARABEL))
                rel = abs(value - ours) / abs(ours)
                worst = max(worst, rel)
                cells.append(f"{rel:12.1e}")
            print(f"{name:<30}{ours:18.10g}" + "".join(cells), flush=True)
    print(f"worst |f_file - f_ours| / |f_ours|: {worst:.1e} (target {RTOL:g})")
    return 0 if worst <= RTOL else 1


if __name__ == "__main__":
    status = main()
    if status:  # exit only on failure: the docs gallery runs this file in-process
        sys.exit(status)

"""CSDP and DSDP on the exported SDPA files of the SDP-form instances of ``problems/``.
====================================================================================

For every instance with a PSD cone, solve it in process (Clarabel), export it to SDPA
(``.dat-s``), run ``csdp`` and ``dsdp5`` on the file through :mod:`sdpkern.export.solvers`,
and print the table: instance, ours, CSDP, DSDP, and each solver's relative difference
``|theirs - ours| / |ours|`` (the acceptance bound is 1e-5).

    python examples/benchmarks/bench_external.py                 # every non-slow SDP-form instance
    python examples/benchmarks/bench_external.py --slow          # include instances marked slow
    python examples/benchmarks/bench_external.py hk_csvm_sdp_m10 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sdpkern.apps.instances import list_instances, load, load_metadata
from sdpkern.errors import SolverError
from sdpkern.export.solvers import available, solve_external

SOLVERS = ("csdp", "dsdp")
RTOL = 1e-5


def rel_diff(a: float, b: float) -> float:
    """|a - b| / |b|: plain relative difference (stricter than the library's max(1, |b|) scale)."""
    return abs(float(a) - float(b)) / abs(float(b))


def sdp_form_instances(include_slow: bool = False) -> list[str]:
    """Instances with at least one PSD cone and an optimal reference."""
    out = []
    for name in list_instances():
        meta = load_metadata(name)
        if meta["size"].get("psd_cones", 0) < 1 or meta["reference"]["status"] != "optimal":
            continue
        if meta.get("slow") and not include_slow:
            continue
        out.append(name)
    return out


def compare(name: str, solvers: tuple[str, ...] = SOLVERS, timeout: float = 600) -> dict[str, Any]:
    """Our (Clarabel) optimum and each external solver's, on one instance."""
    problem, meta = load(name)
    t0 = time.perf_counter()
    ours = problem.solve("clarabel").objective
    row: dict[str, Any] = {"instance": name, "ours": ours, "ours_time": time.perf_counter() - t0}
    with tempfile.TemporaryDirectory(prefix="sdpkern-ext-") as work:
        for s in solvers:
            if not available(s):
                row.update({s: None, f"{s}_status": "not installed", f"{s}_rel": None, f"{s}_time": None})
                continue
            try:
                res = solve_external(problem, s, path=Path(work) / f"{name}.dat-s", timeout=timeout)
            except SolverError as exc:
                row.update({s: None, f"{s}_status": exc.status, f"{s}_rel": None, f"{s}_time": None})
                continue
            obj = res.objective
            row.update(
                {
                    s: obj,
                    f"{s}_status": res.status,
                    f"{s}_rel": None if obj is None else rel_diff(obj, ours),
                    f"{s}_time": res.wall_time,
                }
            )
    return row


def print_table(rows: list[dict[str, Any]], solvers: tuple[str, ...] = SOLVERS) -> None:
    header = f"{'instance':<22}{'ours':>18}" + "".join(f"{s.upper():>18}{'rel':>10}{'[s]':>8}" for s in solvers)
    print(header)
    print("-" * len(header))
    for r in rows:
        line = f"{r['instance']:<22}{r['ours']:>18.10g}"
        for s in solvers:
            if r[s] is None:
                line += f"{r[f'{s}_status']:>18}{'-':>10}{'-':>8}"
            else:
                line += f"{r[s]:>18.10g}{r[f'{s}_rel']:>10.1e}{r[f'{s}_time']:>8.2f}"
        print(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("instances", nargs="*", help="instance names (default: every SDP-form instance)")
    ap.add_argument("--slow", action="store_true", help="include instances marked slow")
    ap.add_argument("--json", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    names = args.instances or sdp_form_instances(args.slow)
    rows = [compare(n) for n in names]
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    misses = [(r["instance"], s) for r in rows for s in SOLVERS if r[s] is None or r[f"{s}_rel"] > RTOL]
    for name, s in misses:
        print(f"{s} misses {RTOL:g} on {name}", file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    status = main()
    if status:  # exit only on failure: the docs gallery runs this file in-process
        sys.exit(status)

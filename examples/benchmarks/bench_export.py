"""Export speed and external-solver agreement, in one run.
=======================================================

1. Speed: the m = 100 hyperkernel C-SVM SDP (ARD harmonic hyperkernel, breast-cancer subset,
   C = 100, λ_Q = 1, low-rank basis η = 1e-4; SPEC "Performance facts"). CVXPY's own
   compilation (``get_problem_data`` on a freshly built problem) against our writers, which
   start from that compiled data (conversion to standard form + file). Best of ``--repeat``.
2. Round trip: write -> read -> rebuilt cvxpy.Problem -> Clarabel, for both formats, against
   the in-process optimum.
3. Agreement: for each SDP-form instance, the in-process optimum (Clarabel) next to CSDP and
   DSDP on the exported ``.dat-s`` file, with relative differences and wall times. The last
   column repeats DSDP on a file whose equalities are written as ± inequality pairs (what
   PICOS does), to show why the writer eliminates them.

Run::

    python examples/benchmarks/bench_export.py [--quick] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
from sklearn.datasets import load_breast_cancer

from sdpkern import export
from sdpkern.builders.hyperkernel import csvm
from sdpkern.errors import SolverError
from sdpkern.export._conic import from_cvxpy
from sdpkern.export.cbf import write_cbf
from sdpkern.export.sdpa import write_sdpa
from sdpkern.export.solvers import available, solve_external


def hyperkernel_sdp(m: int, seed: int = 0) -> Any:
    return csvm(*_subset(m, seed), form="sdp", C=100.0, lambda_Q=1.0, eta=1e-4)


def sdpm_instance(seed: int = 5) -> Any:
    from sdpkern.builders.sdpm import sdpm

    rng = np.random.default_rng(seed)
    m, r, n = 30, 4, 5
    T = rng.standard_normal((m, r + 1, n)) * 0.3
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    T[:, 0, :] += y[:, None]
    return sdpm(T, y, C=1.0, segment=1.0)


def speed(repeat: int, workdir: Path) -> None:
    compile_t, convert_t, sdpa_t, cbf_t = [], [], [], []
    for _ in range(repeat):
        kp = hyperkernel_sdp(100)
        t0 = time.perf_counter()
        kp.cvxpy.get_problem_data(cp.SCS, solver_opts={"use_quad_obj": False})
        compile_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        data = from_cvxpy(kp.cvxpy)  # reuses the compilation above (CVXPY caches it)
        convert_t.append(time.perf_counter() - t0)
        for old in workdir.glob("hk100.*"):  # time writing a file, not deleting the last one
            old.unlink()
        t0 = time.perf_counter()
        info = write_sdpa(data, workdir / "hk100.dat-s")
        sdpa_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        write_cbf(data, workdir / "hk100.cbf")
        cbf_t.append(time.perf_counter() - t0)
    size = (workdir / "hk100.dat-s").stat().st_size
    print("Export speed: hyperkernel C-SVM SDP, m = 100 "
          f"({data.n} variables, {data.A.nnz} nonzeros, PSD blocks {list(data.cones.psd)}; "
          f"SDPA file {size / 1e6:.1f} MB, {int(info.data.A.nnz)} nonzeros after elimination)")
    print(f"  best of {repeat} (median in brackets), seconds")
    rows = [
        ("CVXPY compilation (get_problem_data, fresh problem)", compile_t),
        ("ours: CVXPY data -> standard form", convert_t),
        ("ours: write .dat-s (incl. equality elimination)", sdpa_t),
        ("ours: write .cbf", cbf_t),
    ]
    for label, ts in rows:
        print(f"  {label:<55s} {min(ts):8.4f}  ({statistics.median(ts):.4f})")
    for fmt, ts in ((".dat-s", sdpa_t), (".cbf", cbf_t)):
        total = [a + b for a, b in zip(convert_t, ts)]
        print(f"  {fmt:<7s} (conversion + write) / CVXPY compilation = {min(total) / min(compile_t):.2f} (best), "
              f"{statistics.median(total) / statistics.median(compile_t):.2f} (median)")


def agreement(quick: bool, workdir: Path) -> None:
    instances: list[tuple[str, Any]] = [
        ("hyperkernel SDP m=20", lambda: hyperkernel_sdp(20)),
        ("hyperkernel SDP m=40", lambda: hyperkernel_sdp(40)),
        ("SDPM degree 4, m=30, segment", sdpm_instance),
    ]
    if not quick:
        instances += [
            ("hyperkernel SDP m=60", lambda: hyperkernel_sdp(60)),
            ("hyperkernel SDP m=100", lambda: hyperkernel_sdp(100)),
        ]
    solvers = [s for s in ("csdp", "dsdp") if available(s)]
    missing = sorted({"csdp", "dsdp"} - set(solvers))
    if missing:
        print(f"(not installed: {missing}; apt-get install coinor-csdp dsdp)")
    print("\nExternal solvers on the exported .dat-s files (rel. diff. = |f − f_ours| / max(1, |f_ours|))")
    head = (f"  {'instance':<30s} {'ours (Clarabel)':>16s} {'t':>6s} {'CSDP':>16s} {'rel':>8s} {'t':>6s} "
            f"{'DSDP':>16s} {'rel':>8s} {'t':>6s}   {'DSDP ± pairs':>14s}")
    print(head)
    worst = 0.0
    inaccurate = False
    for name, build in instances:
        kp = build()
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sol = kp.solve("clarabel", allow_inaccurate=True)
        t_ours = time.perf_counter() - t0
        ref = sol.objective
        flag = "*" if sol.status != "optimal" else " "
        inaccurate |= sol.status != "optimal"
        cells = [f"  {name:<30s} {ref:>15.8f}{flag} {t_ours:6.2f}"]
        for s in ("csdp", "dsdp"):
            if s not in solvers:
                cells.append(f" {'—':>16s} {'':>8s} {'':>6s}")
                continue
            res = _external(kp, s, workdir / f"{s}.dat-s")
            if res.objective is None or res.status != "optimal":
                cells.append(f" {res.status:>16s} {'':>8s} {res.wall_time:6.2f}")
                continue
            rel = abs(res.objective - ref) / max(1.0, abs(ref))
            worst = max(worst, rel)
            cells.append(f" {res.objective:16.8f} {rel:8.1e} {res.wall_time:6.2f}")
        if "dsdp" in solvers:
            res = _external(kp, "dsdp", workdir / "pairs.dat-s", equalities="pairs")
            if res.objective is None or res.status != "optimal":
                cells.append(f"   {res.status:>14s}")
            else:
                cells.append(f"   {abs(res.objective - ref) / max(1.0, abs(ref)):14.1e}")
        print("".join(cells), flush=True)
    print(f"  largest relative difference CSDP/DSDP vs ours: {worst:.1e} (target 1e-5)")
    if inaccurate:
        print("  * Clarabel reported optimal_inaccurate; the column still shows its objective")


def _external(kp: Any, solver: str, path: Path, **options: Any) -> Any:
    """solve_external, with an answer the solver does not vouch for shown by its status.

    ``solve_external`` raises on any status but ``optimal`` (KernelProblem.solve's rule); the
    table prints that status instead of an objective.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an inaccurate answer is reported in the table
            return solve_external(kp, solver, path=path, allow_inaccurate=True, **options)
    except SolverError as exc:
        if getattr(exc, "result", None) is None:
            raise
        return exc.result


def round_trip(workdir: Path) -> None:
    """write -> read -> rebuild a cvxpy.Problem -> Clarabel, against the in-process optimum."""
    instances: list[tuple[str, Any]] = [
        ("hyperkernel SDP m=40", lambda: hyperkernel_sdp(40)),
        ("hyperkernel SOCP m=40", lambda: csvm(*_subset(40), form="socp", C=100.0, lambda_Q=1.0, eta=1e-4)),
        ("SDPM degree 4, m=30, segment", sdpm_instance),
    ]
    print("\nRound trip: write -> read -> rebuild -> Clarabel (rel. diff. to the in-process optimum; target 1e-6)")
    print(f"  {'instance':<30s} {'ours':>16s} {'.dat-s':>16s} {'rel':>8s} {'.cbf':>16s} {'rel':>8s}")
    for name, build in instances:
        kp = build()
        ref = kp.solve("clarabel").objective
        cells = [f"  {name:<30s} {ref:16.8f}"]
        for suffix in (".dat-s", ".cbf"):
            path = workdir / f"rt{suffix}"
            export.write(kp, path)
            rebuilt, _ = export.to_cvxpy(export.read(path))
            value = float(rebuilt.solve(solver=cp.CLARABEL))
            cells.append(f" {value:16.8f} {abs(value - ref) / max(1.0, abs(ref)):8.1e}")
        print("".join(cells), flush=True)


def _subset(m: int, seed: int = 0) -> tuple[Any, Any]:
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(seed).choice(len(y), m, replace=False)
    return X[idx], y[idx]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the m = 60 and m = 100 solves")
    parser.add_argument("--repeat", type=int, default=5, help="timing repetitions (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sdpkern-bench-") as work:
        speed(args.repeat, Path(work))
        round_trip(Path(work))
        agreement(args.quick, Path(work))


if __name__ == "__main__":
    main()

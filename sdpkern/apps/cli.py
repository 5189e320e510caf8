"""The ``sdpkern`` command.

    sdpkern demo [--quick] [--n-train N] [--backend B] the breast-cancer demo (make demo)
    sdpkern list                                      the instances of the library
    sdpkern inspect INSTANCE                          the problem summary and the stored reference
    sdpkern solve INSTANCE --backend B [--option k=v ...] [--json]
    sdpkern export INSTANCE -o FILE                   .dat-s (SDPA) or .cbf by suffix
    sdpkern bench [INSTANCE ...] --backends clarabel,scs --repeat N [--json out.json]

INSTANCE is a name in the instance library (:func:`sdpkern.apps.instances.problems_dir`) or a
path to an instance TOML. Exit codes: 0 success; 1 the command failed (a solver failure, a file
that cannot be read or written); 2 usage error (bad arguments, unknown instance or backend, a
backend without the cones an instance needs, bad option); 130 interrupted. Every check that does
not need a solve (backends, their cones, the output path) runs before the first solve. Messages
go to stderr, without a traceback. Heavy imports (CVXPY, the builders) happen only in the
subcommand that needs them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command-line mistake: reported on stderr with exit code 2."""


def _err(msg: str) -> None:
    print(f"sdpkern: {msg}", file=sys.stderr)


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option {item!r} must look like key=value")
        opts[key.strip()] = _parse_value(value.strip())
    return opts


def _check_output(path: str, option: str) -> None:
    """A :class:`~sdpkern.errors.PathError` now, before any solve, if ``path`` cannot be written
    (its directory missing, a file in its way, no permission)."""
    import os
    from pathlib import Path

    from ..errors import path_error

    parent = Path(path).parent if str(Path(path).parent) else Path(".")
    if not parent.is_dir():
        raise path_error(FileNotFoundError(2, "No such file or directory"), path, option)
    if not os.access(parent, os.W_OK):
        raise path_error(PermissionError(13, "Permission denied"), path, option)


def _load(name: str) -> tuple[Any, dict[str, Any]]:
    from .instances import load

    return load(name)


def _reference(meta: dict[str, Any]) -> float | None:
    ref = meta.get("reference", {}).get("objective")
    return None if ref is None else float(ref)


# ----------------------------------------------------------------------------- subcommands
def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run

    return run(args)


def _cmd_list(args: argparse.Namespace) -> int:
    from .instances import list_instances, load_metadata

    for name in list_instances():
        meta = load_metadata(name)
        slow = " (slow)" if meta.get("slow") else ""
        print(f"{name:<30} {meta.get('description', '')}{slow}")
    return EXIT_OK


def _cmd_inspect(args: argparse.Namespace) -> int:
    problem, meta = _load(args.instance)
    print(f"instance: {meta['name']}  ({meta['path']})")
    if meta.get("description"):
        print(f"  {meta['description']}")
    data = meta.get("data", {})
    print("data: " + ", ".join(f"{k}={v}" for k, v in data.items()))
    print(problem.summary())
    ref = meta.get("reference", {})
    if ref:
        print("reference: " + ", ".join(f"{k}={v}" for k, v in ref.items()))
    return EXIT_OK


def _solve_record(problem: Any, meta: dict[str, Any], backend: str, options: dict[str, Any]) -> dict[str, Any]:
    """Solve once; a solver failure becomes a record with ``ok = False`` instead of an exception."""
    from ..errors import SolverError

    rec: dict[str, Any] = {"instance": meta["name"], "backend": backend}
    try:
        sol = problem.solve(backend, **options)
    except SolverError as exc:
        rec.update(ok=False, status=exc.status, solver_status=exc.solver_status, message=str(exc))
        return rec
    ref = _reference(meta)
    rec.update(
        ok=True,
        status=sol.status,
        solver_status=sol.solver_status,
        objective=sol.objective,
        reference=ref,
        rel_diff=None if ref is None else abs(sol.objective - ref) / max(1.0, abs(ref)),
        iterations=sol.iterations,
        compile_time=sol.compile_time,
        setup_time=sol.setup_time,
        solve_time=sol.solve_time,
        total_time=sol.total_time,
    )
    return rec


def _cmd_solve(args: argparse.Namespace) -> int:
    from .._capabilities import check_backend_for
    from ..backends import get_backend

    options = _parse_options(args.option)
    get_backend(args.backend)  # unknown backend -> BackendError -> exit 2
    problem, meta = _load(args.instance)
    check_backend_for(args.backend, problem.cvxpy, meta["name"])  # a cone it lacks -> exit 2
    rec = _solve_record(problem, meta, args.backend, options)
    if args.json:
        print(json.dumps(rec, indent=2, default=str))
    elif rec["ok"]:
        print(f"instance   {rec['instance']}")
        print(f"backend    {rec['backend']}")
        print(f"status     {rec['status']} ({rec['solver_status']})")
        print(f"objective  {rec['objective']:.12g}")
        if rec["reference"] is not None:
            print(f"reference  {rec['reference']:.12g}  (rel. diff {rec['rel_diff']:.2e})")
        print(f"iterations {rec['iterations']}")
        t = {k: rec[k] for k in ("compile_time", "setup_time", "solve_time", "total_time")}
        print("times      " + "  ".join(f"{k.replace('_time', '')}={v:.4f}s" for k, v in t.items() if v is not None))
    if not rec["ok"]:
        _err(f"{rec['backend']} failed on {rec['instance']}: status {rec['status']}: {rec['message']}")
        return EXIT_FAILURE
    return EXIT_OK


def _cmd_export(args: argparse.Namespace) -> int:
    import time

    _check_output(args.output, "--output")
    problem, meta = _load(args.instance)
    t0 = time.perf_counter()
    problem.export(args.output)
    print(f"wrote {args.output} ({meta['name']}, {time.perf_counter() - t0:.3f}s)")
    return EXIT_OK


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def _cmd_bench(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..backends import get_backend
    from .instances import list_instances, load_metadata

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends:
        raise UsageError("--backends needs at least one backend name")
    for b in backends:
        get_backend(b)
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    options = _parse_options(args.option)
    names = list(args.instances)
    if not names:
        names = [n for n in list_instances() if not load_metadata(n).get("slow") or args.slow]
    metas = {n: load_metadata(n) for n in names}  # unknown names fail before any solving
    if args.json:
        _check_output(args.json, "--json")

    from .._capabilities import check_backend_for
    from .instances import build

    for meta in metas.values():  # a backend without an instance's cones: before any solving
        problem = build(meta)
        for b in backends:
            check_backend_for(b, problem.cvxpy, meta["name"])

    records: list[dict[str, Any]] = []
    bar = tqdm(total=len(names) * len(backends) * args.repeat, desc="bench", unit="solve", file=sys.stderr)
    try:
        for name in names:
            meta = metas[name]
            for backend in backends:
                for _ in range(args.repeat):
                    bar.set_postfix_str(f"{meta['name']} / {backend}")
                    rec = _solve_record(build(meta), meta, backend, options)
                    records.append(rec)
                    bar.update()
    finally:
        bar.close()

    rows = _bench_table(records, [metas[n]["name"] for n in names], backends)
    _print_bench(rows, backends)
    if args.json:
        from .._atomic import atomic_open

        with atomic_open(args.json, parents=False, encoding="utf-8") as fh:
            fh.write(json.dumps({"rows": rows, "runs": records}, indent=2, default=str) + "\n")
        print(f"wrote {args.json}")
    expected = {m["name"]: m.get("reference", {}).get("status", "optimal") for m in metas.values()}
    failed = [r for r in records if not r["ok"] and r["status"] != expected.get(r["instance"])]
    for r in failed:
        _err(f"{r['backend']} failed on {r['instance']}: status {r['status']}")
    return EXIT_FAILURE if failed and not args.allow_failures else EXIT_OK


def _bench_table(records: list[dict[str, Any]], names: list[str], backends: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name in names:
        row: dict[str, Any] = {"instance": name}
        objs = []
        for b in backends:
            runs = [r for r in records if r["instance"] == name and r["backend"] == b]
            good = [r for r in runs if r["ok"]]
            row[f"{b}_status"] = good[0]["status"] if good else (runs[0]["status"] if runs else "n/a")
            row[f"{b}_median_time"] = _median([r["total_time"] for r in good]) if good else None
            row[f"{b}_objective"] = good[0]["objective"] if good else None
            if good:
                objs.append(good[0]["objective"])
            row["reference"] = good[0]["reference"] if good else row.get("reference")
        if len(objs) >= 2:
            scale = max(1.0, max(abs(o) for o in objs))
            row["agreement"] = (max(objs) - min(objs)) / scale
        else:
            row["agreement"] = None
        rows.append(row)
    return rows


def _print_bench(rows: list[dict[str, Any]], backends: list[str]) -> None:
    header = f"{'instance':<28}" + "".join(f"{b + ' [s]':>14}{b + ' obj':>18}" for b in backends) + f"{'agreement':>12}"
    print(header)
    print("-" * len(header))
    for row in rows:
        line = f"{row['instance']:<28}"
        for b in backends:
            t, o = row[f"{b}_median_time"], row[f"{b}_objective"]
            line += f"{t:>14.4f}" if t is not None else f"{row[f'{b}_status']:>14}"
            line += f"{o:>18.10g}" if o is not None else f"{'-':>18}"
        agr = row["agreement"]
        line += f"{agr:>12.2e}" if agr is not None else f"{'-':>12}"
        print(line)


# ----------------------------------------------------------------------------- parser
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sdpkern", description="Kernel methods as convex programs: instances and demo.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    from .demo import add_arguments as demo_arguments
    from .demo import backend_name

    d = sub.add_parser("demo", help="hyperkernel C-SVM on breast cancer beside a tuned RBF SVC")
    demo_arguments(d)
    d.set_defaults(func=_cmd_demo)

    lst = sub.add_parser("list", help="list the instances of the library")
    lst.set_defaults(func=_cmd_list)

    i = sub.add_parser("inspect", help="summary of an instance (variables, cones, sizes, reference)")
    i.add_argument("instance", help="an instance name (`sdpkern list`) or the path to an instance .toml")
    i.set_defaults(func=_cmd_inspect)

    s = sub.add_parser("solve", help="solve an instance and compare with its reference")
    s.add_argument("instance")
    s.add_argument("--backend", "-b", type=backend_name, default="clarabel")
    s.add_argument("--option", "-O", action="append", metavar="KEY=VALUE", help="solver option (repeatable)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=_cmd_solve)

    e = sub.add_parser("export", help="write an instance as SDPA (.dat-s) or CBF (.cbf)")
    e.add_argument("instance")
    e.add_argument("-o", "--output", required=True, help="output file; the suffix picks the format")
    e.set_defaults(func=_cmd_export)

    b = sub.add_parser("bench", help="time backends on instances (median of repeats) and check agreement")
    b.add_argument("instances", nargs="*", help="instance names (default: every non-slow instance)")
    b.add_argument("--backends", default="clarabel,scs", help="comma-separated (default clarabel,scs)")
    b.add_argument("--repeat", "-r", type=int, default=3)
    b.add_argument("--option", "-O", action="append", metavar="KEY=VALUE")
    b.add_argument("--json", metavar="OUT.json", help="write rows and every run as JSON")
    b.add_argument("--slow", action="store_true", help="include instances marked slow")
    b.add_argument(
        "--allow-failures", action="store_true", help="exit 0 even if a solve fails unexpectedly (not as its reference)"
    )
    b.set_defaults(func=_cmd_bench)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sdpkern`` console script; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    from ..errors import SdpkernError, SolverError

    try:
        return int(args.func(args))
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except (SolverError, OSError) as exc:
        # infeasible, iteration limit, inaccurate, solver failure; a file that cannot be read or
        # written (PathError, or an OSError from the system): the command failed, it was not misused
        _err(f"{type(exc).__name__}: {exc}")
        return EXIT_FAILURE
    except SdpkernError as exc:
        # InputError, ParameterError, BackendError, ExportError, FormatError: what the user
        # asked for cannot be done as asked
        _err(f"{type(exc).__name__}: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

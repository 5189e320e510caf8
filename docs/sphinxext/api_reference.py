"""Write the API reference page from the package itself.

Every public module (no underscore in its dotted path) is read for its ``__all__``; each class and
function is documented once, under the shallowest public module below the top level that
exports it (``sdpkern.estimators.HyperkernelSVC``, not ``sdpkern.estimators.hyperkernel.
HyperkernelSVC``), in a section per subpackage. A name another workstream adds to an
``__all__`` appears here without editing this file; one that no longer resolves fails the
build (autosummary cannot import it, and the build runs with -W).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

__all__ = ["SECTIONS", "public_modules", "canonical_objects", "write_api_page"]

#: Subpackage -> (section title, order). Subpackages not listed come last, titled by their name.
SECTIONS: dict[str, tuple[str, int]] = {
    "estimators": ("Estimators (scikit-learn)", 0),
    "builders": ("Builders: data + parameters → KernelProblem", 1),
    "problem": ("Problems and solutions", 2),
    "backends": ("Conic backends", 3),
    "kernels": ("Kernels", 4),
    "native": ("Native solvers (NumPy/SciPy)", 5),
    "trajectories": ("Trajectories (SDPM)", 6),
    "export": ("Export to SDPA and CBF", 7),
    "datasets": ("Data sets", 8),
    "errors": ("Errors and warnings", 9),
    "apps": ("Applications", 10),
}

#: The old application paths (``sdpkern.cli`` ...) alias ``sdpkern.apps.*``; not documented twice.
DEPRECATED_ALIASES = {"cli", "demo", "experiments", "instances", "plotting"}


def public_modules(package: str = "sdpkern") -> list[str]:
    """Dotted names of the public modules below ``package``, in walk order."""
    root = importlib.import_module(package)
    names = []
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]):
            continue
        if len(parts) == 2 and parts[1] in DEPRECATED_ALIASES:
            continue
        names.append(info.name)
    return names


def _documentable(obj: object) -> bool:
    return inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)


def canonical_objects(package: str = "sdpkern") -> dict[str, list[tuple[str, str]]]:
    """Subpackage -> sorted ``(module, name)`` pairs, each object once at its shallowest public module."""
    modules = sorted(public_modules(package), key=lambda m: (m.count("."), m))
    seen: dict[int, str] = {}
    out: dict[str, list[tuple[str, str]]] = {}
    for module in modules:
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if obj is None or not _documentable(obj) or id(obj) in seen:
                continue
            seen[id(obj)] = module
            out.setdefault(module.split(".")[1], []).append((module, name))
    return {k: sorted(v) for k, v in out.items()}


def _first_line(module: str) -> str:
    doc = inspect.getdoc(importlib.import_module(module)) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def write_api_page(path: Path, package: str = "sdpkern") -> int:
    """Write the reference page (reStructuredText) to ``path``; return the number of objects."""
    objects = canonical_objects(package)
    order = sorted(objects, key=lambda sub: (SECTIONS.get(sub, (sub, 99))[1], sub))
    lines = [
        "API reference",
        "=============",
        "",
        "Generated from the docstrings. Every name is documented once, where it is imported from;",
        "the estimators, builders, :class:`~sdpkern.problem.KernelProblem`, kernel classes and errors",
        "are also importable from the top level (``from sdpkern import HyperkernelSVC``), which",
        "loads each lazily.",
        "",
    ]
    total = 0
    for sub in order:
        title = SECTIONS.get(sub, (f"``sdpkern.{sub}``", 99))[0]
        lines += [title, "-" * len(title), ""]
        summary = _first_line(f"{package}.{sub}")
        if summary:
            lines += [f":mod:`{package}.{sub}`: {summary}", ""]
        for module in sorted({m for m, _ in objects[sub]}, key=lambda m: (m.count("."), m)):
            names = [n for m, n in objects[sub] if m == module]
            lines += [f".. currentmodule:: {module}", "", f"``{module}``", "", ".. autosummary::"]
            # the template's name without ".rst": autosummary looks for autosummary/<name>.rst
            lines += ["   :toctree: generated/", "   :template: object", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in names]
            lines += [""]
            total += len(names)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:  # keep mtime: no needless rebuild
        path.write_text(text, encoding="utf-8")
    return total

"""Names written as code link to their API page.

The guide pages and docstrings write public names as inline code (```HyperkernelSVC```,
```sdpkern.builders.hyperkernel.csvm```, ```KernelProblem.solve()```). :func:`link_api_names`
wraps each such literal whose text is a documented name (its own name when unique and not an
ordinary word, its dotted path, ``Class.method``; a trailing ``()`` or ``(...)`` is allowed)
in a cross-reference to it, and each ```docs/<page>.md``` in a link to that page. A name that
does not resolve stays plain code, without a warning.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from collections import Counter
from typing import Any

from docutils import nodes
from sphinx import addnodes

__all__ = ["api_names", "link_api_names", "setup"]

_CALL = re.compile(r"\((?:\.\.\.|…)?\)$")

#: Unqualified names that are also ordinary words or parameter names in the pages' prose
#: (``write`` the parameter of ``KernelProblem.deferred``, ``alignment`` the formulation): linked
#: only when written with their module (``sdpkern.export.write``).
GENERIC = frozenset({"alignment", "available", "build", "load", "main", "read", "run", "summarize", "write"})

#: ``docs/<page>.md`` written as code: a link to that page.
_DOC_PATH = re.compile(r"^docs/(?P<page>[\w/]+)\.md$")


def api_names(objects: dict[str, list[tuple[str, str]]]) -> dict[str, str]:
    """Text a page may write -> the documented full name (from ``api_reference.canonical_objects``)."""
    full: dict[str, str] = {}
    short: Counter[str] = Counter()
    pairs: list[tuple[str, str]] = []
    for entries in objects.values():
        for module, name in entries:
            target = f"{module}.{name}"
            full[target] = target
            full[f"sdpkern.{name}"] = target if f"sdpkern.{name}" not in full else full[f"sdpkern.{name}"]
            short[name] += 1
            pairs.append((name, target))
            obj = getattr(importlib.import_module(module), name)
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if not attr.startswith("_") and (callable(value) or isinstance(value, property)):
                        full[f"{name}.{attr}"] = f"{target}.{attr}"
                        full[f"{target}.{attr}"] = f"{target}.{attr}"
    for name, target in pairs:
        if short[name] == 1 and name not in GENERIC:
            full.setdefault(name, target)
    return full


def _skip(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (addnodes.pending_xref, nodes.reference, nodes.literal_block, nodes.title)):
            return True
        if isinstance(parent, addnodes.desc_signature):
            return True
        parent = parent.parent
    return False


def link_api_names(doctree: nodes.document, names: dict[str, str]) -> int:
    """Wrap the literals of ``doctree`` that name an API object in a cross-reference; return how many."""
    count = 0
    for lit in list(doctree.findall(nodes.literal)):
        if _skip(lit):
            continue
        text = _CALL.sub("", lit.astext().strip())
        page = _DOC_PATH.match(text)
        if page is not None:
            xref = addnodes.pending_xref(
                "", refdomain="std", reftype="doc", reftarget="/" + page["page"], refexplicit=True, refwarn=False
            )
        else:
            target = names.get(text)
            if target is None:
                continue
            xref = addnodes.pending_xref(
                "", refdomain="py", reftype="obj", reftarget=target, refexplicit=True, refwarn=False
            )
            xref["py:module"] = None
            xref["py:class"] = None
        lit.parent.replace(lit, xref)
        xref += lit
        count += 1
    return count


def add_alias_ids(doctree: nodes.document) -> int:
    """Give each documented Python object the ids of its other module paths; return how many.

    An object is documented once, at its shallowest public module (``sdpkern.export.write_cbf``),
    but defined in another (``sdpkern.export.cbf``), and Sphinx's viewcode links each source
    module's objects back under one module name for the whole module: the ids ``P.name`` for
    every module prefix P of both paths make those links land on the object.
    """
    count = 0
    for sig in doctree.findall(addnodes.desc_signature):
        module, fullname = sig.get("module"), sig.get("fullname")
        if not module or not fullname or not module.startswith("sdpkern"):
            continue
        obj: Any = importlib.import_module(module) if module in sys.modules or _importable(module) else None
        for part in fullname.split("."):
            obj = getattr(obj, part, None)
        source = getattr(obj, "__module__", None) or module
        prefixes = {".".join(path.split(".")[:k]) for path in (module, source) for k in range(1, path.count(".") + 2)}
        for prefix in sorted(prefixes):
            alias = f"{prefix}.{fullname}"
            if alias not in sig["ids"]:
                sig["ids"].append(alias)
                count += 1
    return count


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _on_builder_inited(app: Any) -> None:
    from api_reference import canonical_objects

    app.env.sdpkern_api_names = api_names(canonical_objects())


def _on_doctree_read(app: Any, doctree: nodes.document) -> None:
    names = getattr(app.env, "sdpkern_api_names", None)
    if names is None:
        _on_builder_inited(app)
        names = app.env.sdpkern_api_names
    link_api_names(doctree, names)
    add_alias_ids(doctree)


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _on_builder_inited)
    app.connect("doctree-read", _on_doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Rich display of sdpkern's objects in notebooks and IPython (``_repr_html_``, ``_repr_pretty_``).

An object describes itself as a title and sections of (name, value) rows (:class:`Display`);
:func:`html` renders that as one HTML table, :func:`text` as aligned plain text. Values are short
strings: shapes, counts and formatted numbers, never whole arrays.
"""

from __future__ import annotations

import html as _html
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Display", "html", "text", "fmt", "fmt_value", "pretty"]

Row = tuple[str, str]


@dataclass
class Display:
    """What an object shows: a title line and named sections of (name, value) rows."""

    title: str
    sections: list[tuple[str, list[Row]]] = field(default_factory=list)

    def add(self, section: str, rows: list[Row]) -> Display:
        """Append a section (skipped when it has no rows)."""
        if rows:
            self.sections.append((section, rows))
        return self


def fmt(value: float | None, digits: int = 6) -> str:
    """A number in ``digits`` significant digits ("–" for None)."""
    if value is None:
        return "–"
    return f"{float(value):.{digits}g}"


def fmt_value(value: Any) -> str:
    """A parameter's value: the number, or the shape and range of an array (never the array)."""
    if value is None:
        return "unset"
    arr = np.asarray(value)
    if arr.ndim == 0:
        return fmt(float(arr)) if np.issubdtype(arr.dtype, np.number) else str(value)
    if arr.size == 0:
        return f"empty array {arr.shape}"
    lo, hi = float(np.min(arr)), float(np.max(arr))
    return f"array {arr.shape}, {fmt(lo, 4)} … {fmt(hi, 4)}"


def html(display: Display) -> str:
    """The display as one HTML ``<table>``: a caption, then a header row per section."""
    esc = _html.escape
    out = [
        '<table class="sdpkern-display" style="border-collapse:collapse;text-align:left">',
        f'<caption style="text-align:left;font-weight:bold">{esc(display.title)}</caption>',
    ]
    for name, rows in display.sections:
        out.append(f'<tr><th colspan="2" style="text-align:left;border-bottom:1px solid #999">{esc(name)}</th></tr>')
        for key, value in rows:
            cell = '<td style="text-align:left;padding-right:1em">'
            out.append(f"<tr>{cell}{esc(key)}</td>{cell}{esc(value)}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


def text(display: Display) -> str:
    """The display as plain text: the title, then each section's rows aligned."""
    lines = [display.title]
    for name, rows in display.sections:
        lines.append(f"{name}:")
        width = max(len(k) for k, _ in rows)
        lines.extend(f"  {k:<{width}}  {v}" for k, v in rows)
    return "\n".join(lines)


def pretty(display: Display, printer: Any, cycle: bool, short: str) -> None:
    """IPython's pretty printer: the text display (``short`` on a reference cycle)."""
    printer.text(short if cycle else text(display))


def cone_rows(cones: Any) -> list[Row]:
    """Rows for a :class:`~sdpkern.export.Cones`: each cone family with its count and sizes."""
    rows: list[Row] = []
    if cones.zero:
        rows.append(("zero (equalities)", f"{cones.zero} row(s)"))
    if cones.nonneg:
        rows.append(("nonnegative", f"{cones.nonneg} row(s)"))
    if cones.soc:
        rows.append(("second-order", f"{len(cones.soc)} cone(s), sizes {min(cones.soc)}..{max(cones.soc)}"))
    if cones.psd:
        orders = sorted(set(cones.psd))
        rows.append(("PSD", f"{len(cones.psd)} cone(s), order(s) {', '.join(map(str, orders))}"))
    if cones.exp:
        rows.append(("exponential", f"{cones.exp} cone(s)"))
    if cones.pow:
        rows.append(("power", f"{len(cones.pow)} cone(s)"))
    return rows


def exported(exp: Any) -> Display:
    """The display of an :class:`~sdpkern.export.Exported`: the file, its size and cones, never its arrays."""
    data, original = exp.data, exp.original
    d = Display(f"Exported: {exp.format} file {exp.path}")
    path = exp.path
    size = f"{path.stat().st_size:,} bytes" if path.is_file() else "not on disk"
    d.add("File", [("path", str(path)), ("format", exp.format), ("size", size)])
    A = data.A
    objective = "minimise cᵀx" + (f" + {fmt(data.offset)}" if data.offset else "")
    if data.sign == -1:
        objective += " (the model maximises its negative)"
    d.add("Problem in the file", [
        ("variables", str(data.n)),
        ("constraint rows", str(A.shape[0])),
        ("nonzeros of A", str(A.nnz)),
        ("objective", objective),
    ])  # fmt: skip
    d.add("Cones", cone_rows(data.cones))
    removed = original.n - data.n
    d.add("Map back to the model", [
        ("model variables", str(original.n)),
        ("eliminated", f"{removed} (x = x0 + T z)" if removed else "none (x = z)"),
    ])  # fmt: skip
    return d

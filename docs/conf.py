"""Sphinx configuration: numpydoc API reference, MyST pages, sphinx-gallery of examples/.

Build with ``make docs`` (warnings are errors) and check the product with ``make docs-check``
(``sphinxext/check_site.py``: every page, gallery page, internal link and anchor). The API
reference page (``api.rst``) is written from the package's ``__all__`` lists at every build
(``sphinxext/api_reference.py``); the gallery runs every example, and every script of
``examples/benchmarks`` and ``examples/reproductions`` with its quick arguments
(``sphinxext/gallery_hooks.py``), and fails the build if one raises. Citations of the papers
link to the references page (``sphinxext/citations.py``), names written as code to their API
page (``sphinxext/api_links.py``); formulas are rendered by a MathJax bundled with the site.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "sphinxext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import summaries  # noqa: E402
from api_reference import write_api_page  # noqa: E402
from docstring_markup import escape_plain_markup  # noqa: E402
from gallery_hooks import PNGScraper, ResetArgv  # noqa: E402

import sdpkern  # noqa: E402

project = "sdpkern"
author = "the sdpkern developers"
copyright = "the sdpkern developers"  # noqa: A001
version = release = sdpkern.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into the site: formulas render without a network
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "citations",
    "api_links",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/README.md", "sphinxext", "auto_examples/**/*.ipynb", "auto_examples/**/*.py"]
templates_path = ["_templates"]

# ---------------------------------------------------------------------------- API reference
# autosummary writes one page per object under generated/ but never deletes one: start afresh, so
# an object that moved or left __all__ leaves no orphan page behind (an error under -W).
shutil.rmtree(HERE / "generated", ignore_errors=True)
shutil.rmtree(HERE / "gen_modules", ignore_errors=True)
write_api_page(HERE / "api.rst")
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_default_options = {
    "members": True,
    # Members sdpkern's classes define or inherit from sdpkern bases; not scikit-learn's or
    # Exception's (documented upstream).
    "inherited-members": "BaseEstimator,ClassifierMixin,RegressorMixin,OutlierMixin,TransformerMixin,"
    "_MetadataRequester,_SetOutputMixin,_HTMLDocumentationLinkMixin,BaseException,object",
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# ---------------------------------------------------------------------------- MyST
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# ---------------------------------------------------------------------------- gallery
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # run every example: the gallery is their smoke test
    "reset_argv": ResetArgv(),
    # The teaching examples draw with matplotlib; the command-line scripts save PNG files and
    # close their figures (the PNGs are their figures).
    "image_scrapers": ("matplotlib", PNGScraper()),
    # "Examples using X" on every API page (the object.rst template's minigallery)
    "doc_module": ("sdpkern",),
    "backreferences_dir": "gen_modules/backreferences",
    "inspect_global_variables": True,
    "abort_on_example_error": False,  # run all, then fail the build listing every failure
    "only_warn_on_example_error": False,
    "min_reported_time": 1,
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "plot_gallery": "True",
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "write_computation_times": False,  # its pages load jQuery and DataTables from the network
    "capture_repr": ("_repr_html_", "__repr__"),
}

# ---------------------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"sdpkern {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_static_path: list[str] = []
html_show_sourcelink = False

# ---------------------------------------------------------------------------- hooks
#: scikit-learn adds these to every estimator class (metadata routing); documented upstream.
_SKLEARN_GENERATED = re.compile(r"^(set_\w+_request|get_metadata_routing)$")


def _skip_member(app: object, what: str, name: str, obj: object, skip: bool, options: object) -> bool | None:
    return True if _SKLEARN_GENERATED.match(name) else None


def _plain_markup(app: object, what: str, name: str, obj: object, options: object, lines: list[str]) -> None:
    lines[:] = escape_plain_markup(lines)


def setup(app: object) -> None:
    app.connect("autodoc-skip-member", _skip_member)  # type: ignore[attr-defined]
    # before numpydoc (priority 500) reads the docstring: |s| and dual_coef_ as plain text
    app.connect("autodoc-process-docstring", _plain_markup, priority=400)  # type: ignore[attr-defined]
    summaries.install()  # one-line API summaries that do not stop at "eq." or "c.p.d."

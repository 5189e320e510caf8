"""Applications built on the library: the ``sdpkern`` command, its demo, the instance library,
the experiment runner and the papers' plots.

=================================  ==========================================================
:mod:`sdpkern.apps.cli`            the ``sdpkern`` console script (``demo``, ``list``, ``inspect``,
                                   ``solve``, ``export``, ``bench``)
:mod:`sdpkern.apps.demo`           ``sdpkern demo`` / ``make demo``
:mod:`sdpkern.apps.instances`      the instance library (TOML files shipped in the package)
:mod:`sdpkern.apps.experiments`    ``run_grid``: estimators × data sets × splits × grids
:mod:`sdpkern.apps.plotting`       the papers' figures (matplotlib, optional)
=================================  ==========================================================

Each module is imported only when used; until sdpkern 0.2.0 the old paths (``sdpkern.cli``,
``sdpkern.experiments``, ...) still work and warn with a ``FutureWarning``.
"""

__all__ = ["cli", "demo", "experiments", "instances", "plotting"]

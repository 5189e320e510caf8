"""Build of sdpkern's compiled cores (``sdpkern._svmcore``, ``sdpkern._hkcore``, ``sdpkern._newtoncore``; Cython;
the last calls BLAS/LAPACK through SciPy's Cython bindings); everything else is in pyproject.toml."""

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )
    for name in ("sdpkern._svmcore", "sdpkern._hkcore", "sdpkern._newtoncore")
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}, quiet=True))

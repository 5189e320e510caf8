"""Build of sdpkern's compiled core (``sdpkern._svmcore``, Cython); everything else is in pyproject.toml."""

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "sdpkern._svmcore",
        ["sdpkern/_svmcore.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}, quiet=True))

"""Build of sdpkern's compiled cores (``sdpkern._svmcore``, ``sdpkern._hkcore``, ``sdpkern._newtoncore``; Cython;
the last calls BLAS/LAPACK through SciPy's Cython bindings); everything else is in pyproject.toml."""

import ctypes.util
import platform
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup


def _vector_exp() -> dict[str, list]:
    """The options that give ``sdpkern._hkcore`` glibc's vector exp (``sdpkern/_simd_exp.h``):
    Linux on x86-64 with libmvec; none elsewhere."""
    if sys.platform.startswith("linux") and platform.machine() == "x86_64" and ctypes.util.find_library("mvec"):
        # a vectorised exp does not set errno: the compiler must not assume that exp does
        return {"macros": [("SDPKERN_VECTOR_EXP", "1")], "compile": ["-fno-math-errno"], "link": ["-lmvec"]}
    return {"macros": [], "compile": [], "link": []}


def _extension(name: str) -> Extension:
    extra = _vector_exp() if name == "sdpkern._hkcore" else {"macros": [], "compile": [], "link": []}
    return Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[np.get_include(), "sdpkern"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"), *extra["macros"]],
        extra_compile_args=["-O3", *extra["compile"]],
        extra_link_args=extra["link"],
    )


extensions = [_extension(name) for name in ("sdpkern._svmcore", "sdpkern._hkcore", "sdpkern._newtoncore")]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}, quiet=True))

"""Build script for the ``smallvis._kernels`` Cython extension.

Project metadata lives in ``pyproject.toml``; this file only declares the
extension.  OpenMP is used when a small probe program compiles and links with
``-fopenmp``; otherwise the kernels are built single-threaded (``n_threads`` is
then accepted but ignored).  No ``-march=native``: the default build must run
on any machine of the same architecture.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

PROBE = r"""
#include <omp.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    return n > 0 ? 0 : 1;
}
"""


def openmp_flags():
    """Return (compile_args, link_args) for OpenMP, or empty lists."""
    if os.environ.get("SMALLVIS_NO_OPENMP"):
        return [], []
    cc = sysconfig.get_config_var("CC") or "cc"
    compiler = cc.split()[0]
    if shutil.which(compiler) is None:
        return [], []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as fh:
            fh.write(PROBE)
        try:
            result = subprocess.run(
                [compiler, "-fopenmp", src, "-o", os.path.join(tmp, "probe")],
                capture_output=True,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError):
            return [], []
    if result.returncode != 0:
        print("smallvis: OpenMP probe failed; building without OpenMP", file=sys.stderr)
        return [], []
    return ["-fopenmp"], ["-fopenmp"]


omp_compile, omp_link = openmp_flags()
# -O3 plus the associativity flags lets GCC/Clang vectorise the floating-point
# reductions of the pair loops.  They do not assume finite math, so NaN and inf
# checks keep working.
fast_math = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-fno-signed-zeros",
             "-fassociative-math"]
compile_args = [] if sys.platform == "win32" else fast_math

extensions = [
    Extension(
        "smallvis._kernels",
        ["smallvis/_kernels.pyx"],
        include_dirs=[np.get_include(), "smallvis"],
        depends=["smallvis/_pairloops.h"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args + omp_compile,
        extra_link_args=omp_link,
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3"},
    ),
)

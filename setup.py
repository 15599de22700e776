"""Build script for the ``smallvis.backends._kernels`` Cython extension.

Project metadata lives in ``pyproject.toml``; this file only declares the
extension.  OpenMP is used when a small probe program compiles and links with
``-fopenmp``; otherwise the kernels are built single-threaded (``n_threads`` is
then accepted but ignored).  No ``-march=native``: the default build must run
on any machine of the same architecture.
"""

import glob
import importlib.util
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


LIBMVEC_PROBE = r"""
#include <math.h>
double exp(double) __attribute__((simd("notinbranch")));
double log(double) __attribute__((simd("notinbranch")));
double log1p(double) __attribute__((simd("notinbranch")));
double out[64], in[64];
int main(void) {
    int i;
    for (i = 0; i < 64; i++) in[i] = i + 1.0;
    for (i = 0; i < 64; i++) out[i] = exp(log(in[i])) + log1p(in[i]);
    return out[3] > 0.0 ? 0 : 1;
}
"""


LIBMVEC_EXP2_PROBE = r"""
#include <math.h>
double exp2(double) __attribute__((simd("notinbranch")));
double log2(double) __attribute__((simd("notinbranch")));
double out[64], in[64];
int main(void) {
    int i;
    for (i = 0; i < 64; i++) in[i] = i + 1.0;
    for (i = 0; i < 64; i++) out[i] = exp2(0.5 * log2(in[i]));
    return out[3] > 0.0 ? 0 : 1;
}
"""


def _compiles(source, flags, libs=()):
    """Whether ``source`` compiles, links and runs with ``flags``."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        exe = os.path.join(tmp, "probe")
        with open(src, "w") as fh:
            fh.write(source)
        try:
            built = subprocess.run([cc, *flags, src, "-o", exe, *libs],
                                   capture_output=True, timeout=60)
            return built.returncode == 0 and subprocess.run(
                [exe], capture_output=True, timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False


def libmvec_flags():
    """Flags for glibc's vector maths (exp/log/log1p, and exp2/log2 when the
    glibc has them, in SIMD loops), if present."""
    if os.environ.get("SMALLVIS_NO_LIBMVEC") or sys.platform != "linux":
        return [], [], []
    flags = ["-O3", "-fno-math-errno", "-fno-trapping-math"]
    if _compiles(LIBMVEC_PROBE, flags, ["-lmvec", "-lm"]):
        macros = [("SMALLVIS_LIBMVEC", "1")]
        # vector exp2/log2 (glibc 2.35+): a faster x**y for the UMAP kernel
        if _compiles(LIBMVEC_EXP2_PROBE, flags, ["-lmvec", "-lm"]):
            macros.append(("SMALLVIS_LIBMVEC_EXP2", "1"))
        return macros, [], ["mvec", "m"]
    print("smallvis: libmvec not found; exp/log loops stay scalar", file=sys.stderr)
    return [], [], []


omp_compile, omp_link = openmp_flags()
mvec_macros, mvec_compile, mvec_libs = libmvec_flags()
# -O3 plus the associativity flags lets GCC/Clang vectorise the floating-point
# reductions of the pair loops.  They do not assume finite math, so NaN and inf
# checks keep working.
fast_math = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-fno-signed-zeros",
             "-fassociative-math"]
compile_args = [] if sys.platform == "win32" else fast_math

# The stochastic loop must follow the NumPy reference operation by operation
# (bitwise twins): no regrouping of floating-point arithmetic, no fused
# multiply-add.  It has no reductions to vectorise, so it loses nothing.
exact_order = [] if sys.platform == "win32" else ["-O3", "-fno-math-errno", "-ffp-contract=off"]


def write_units_list():
    """Write smallvis/methods/_units_list.h, the C lists of the method units.

    Every build writes it from the method folders' unit.h (before
    cythonize), so that a clean clone, an sdist and a wheel build all
    compile the current folders.  The generator is loaded by its path: the
    package itself cannot be imported before it is built.
    """
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "smallvis", "_units_list.py")
    spec = importlib.util.spec_from_file_location("_smallvis_units_list", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write()


write_units_list()

# The package directory is an include directory, so that the engines reach
# the method units as "methods/units.h" (which includes each folder's
# "<method>/unit.h") wherever they live.
PACKAGE_DIR = "smallvis"
UNITS = sorted(glob.glob(os.path.join(PACKAGE_DIR, "methods", "*.h"))
               + glob.glob(os.path.join(PACKAGE_DIR, "methods", "*", "unit.h")))

extensions = [
    Extension(
        "smallvis.backends._sgd_kernels",
        ["smallvis/backends/_sgd_kernels.pyx"],
        include_dirs=[PACKAGE_DIR],
        depends=UNITS,
        extra_compile_args=exact_order + omp_compile,
        extra_link_args=omp_link,
    ),
    Extension(
        "smallvis.backends._search_forest",
        ["smallvis/backends/_search_forest.pyx"],
        extra_compile_args=exact_order + omp_compile,
        extra_link_args=omp_link,
    ),
    Extension(
        "smallvis.backends._graph_products",
        ["smallvis/backends/_graph_products.pyx"],
        extra_compile_args=exact_order + omp_compile,
        extra_link_args=omp_link,
    ),
    Extension(
        "smallvis.backends._kernels",
        ["smallvis/backends/_kernels.pyx"],
        include_dirs=[np.get_include(), PACKAGE_DIR],
        depends=["smallvis/backends/_pairloops.h", "smallvis/backends/_sq_dists_simd.h",
                 "smallvis/backends/_fft_repulsion.pxi",
                 "smallvis/backends/_transform_kernels.pxi",
                 "smallvis/backends/_metric_dists.h",
                 "smallvis/backends/_sparse_kernels.pxi",
                 "smallvis/backends/_second_input.pxi"] + UNITS,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")] + mvec_macros,
        extra_compile_args=compile_args + omp_compile + mvec_compile,
        libraries=mvec_libs,
        extra_link_args=omp_link,
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3"},
        include_path=[PACKAGE_DIR],
    ),
)

"""Frozen numbers (docs/stability.md): this test fails when one changes.

The values in tests/data/frozen/frozen.json were recorded by
tests/data/frozen/make_frozen.py with every setting explicit.  They are
regression values, not evidence of correctness (that is the job of the
finite-difference, twin, R smallvis and golden tests); their job is to make
any change of a result visible.  A change that is intended means: rerun the
script, bump the version and add a line to CHANGELOG.md.

* stochastic optimizer, one thread, fixed random_state (umap, tumap,
  largevis): Y bit for bit, on the platform the values were recorded on
  (other platforms' maths libraries may round differently in the last bit);
* exact optimizer, every method: the cost every 10 iterations, to 1e-9
  relative on a CPU with the recording machine's SIMD (AVX-512, in numpy
  and in its OpenBLAS); elsewhere the first cost to 1e-10 and the others to
  5% (:data:`OTHER_CPU_RTOL`).

Both start from the input affinities stored in
tests/data/frozen/affinities.npz, so that the last bits of numpy's own exp
and log, which differ between numpy releases, cannot change a trajectory:
these pin the optimizers, and the golden cases pin P.

NCVis's stochastic optimizer is not frozen yet: its noise schedule is being
reworked (it will be added, with a changelog line, once that has settled).
"""

import importlib.util
import json
import platform
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent / "data" / "frozen"


def _recorder():
    spec = importlib.util.spec_from_file_location("make_frozen", HERE / "make_frozen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _recorder()
FROZEN = json.loads((HERE / "frozen.json").read_text())


def _floats(hexes):
    return np.array([float.fromhex(h) for h in hexes])


@pytest.fixture(scope="module")
def data():
    return RECORDER.data()


@pytest.mark.parametrize("method", sorted(FROZEN["sgd"]))
def test_one_thread_sgd_is_frozen_bit_for_bit(method, data):
    recorded = FROZEN["platform"]
    if (platform.system(), platform.machine()) != (recorded["system"], recorded["machine"]):
        pytest.skip(f"bitwise values were recorded on {recorded['system']} {recorded['machine']}")
    Y = RECORDER.sgd_run(method, *data)
    expected = _floats(FROZEN["sgd"][method]["Y"]).reshape(Y.shape)
    if not np.array_equal(Y, expected):
        worst = float(np.abs(Y - expected).max())
        pytest.fail(f"{method}: the one-thread stochastic result changed (largest "
                    f"difference {worst:.3g}); if intended, bump the version, add a "
                    "CHANGELOG.md line and rerun tests/data/frozen/make_frozen.py")


#: The SIMD feature of the CPU the exact costs were recorded on (an Intel Xeon
#: with AVX-512).  numpy picks its exp, log and power routines, and smallvis its
#: distance kernels, by the CPU's features at run time; routines of another
#: width may round the last bit otherwise.
RECORDED_SIMD = "AVX512_SKX"
#: Elsewhere the later costs of a run are held to this: an exact run of a
#: method with a steep kernel (umap, tumap) amplifies last-bit differences to
#: about 1% within 50 iterations, while a changed optimizer or cost moves
#: them far more.  The first cost, before any step, is held to 1e-10 everywhere.
OTHER_CPU_RTOL = 0.05


#: OpenBLAS's kernels for AVX-512.  An older OpenBLAS that does not know
#: the CPU falls back to its generic kernels (numpy 1.26.0's OpenBLAS 0.3.23
#: takes a Xeon with AVX512-FP16 for "Prescott"), whose products round
#: otherwise, and umap's exact run then drifts by about 1% in its
#: recorded costs.
RECORDED_BLAS_CORES = ("SkylakeX", "Cooperlake", "SapphireRapids")


def _blas_cores():
    """The core types of the OpenBLAS libraries loaded (numpy's, scipy's); None if unknown."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    cores = [info.get("architecture") for info in threadpool_info()
             if info.get("internal_api") == "openblas"]
    return cores if cores and all(cores) else None


def _simd_as_recorded():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy 1
        from numpy.core._multiarray_umath import __cpu_features__
    cores = _blas_cores()
    return (bool(__cpu_features__.get(RECORDED_SIMD))
            and (cores is None or all(core in RECORDED_BLAS_CORES for core in cores)))


@pytest.mark.parametrize("method", sorted(FROZEN["exact"]))
def test_exact_optimizer_costs_are_frozen(method, data):
    r = RECORDER.exact_run(method, *data)
    frozen = FROZEN["exact"][method]
    assert r.cost_iterations.tolist() == frozen["iterations"]
    costs = _floats(frozen["costs"])
    np.testing.assert_allclose(r.itercosts[:1], costs[:1], rtol=1e-10, atol=0,
                               err_msg=f"{method}: the exact optimizer's first cost changed")
    rtol = 1e-9 if _simd_as_recorded() else OTHER_CPU_RTOL
    np.testing.assert_allclose(r.itercosts, costs, rtol=rtol, atol=0,
                               err_msg=f"{method}: exact-optimizer costs changed")
    if frozen["Q"] is not None:
        np.testing.assert_allclose(r.learned["Q"], frozen["Q"], rtol=1e-9)

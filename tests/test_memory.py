"""Returning freed heap memory to the operating system between stages."""

import platform
import sys

import numpy as np
import pytest

from smallvis import _memory

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def _rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def test_release_runs_exactly_where_glibc_is():
    assert _memory.release_free_heap() is GLIBC


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_release_returns_freed_heap_pages():
    # Freeing a large block raises glibc's mmap threshold (and its trim
    # threshold to twice that, 60 MB), so the 1 MB arrays below come from
    # the heap and stay resident when freed: 40 MB is below the trim
    # threshold, and the small arrays allocated between them pin the heap.
    big = np.ones(30 * 2**20 // 8)
    del big
    blocks, pins = [], []
    for _ in range(40):
        blocks.append(np.ones(2**20 // 8))
        pins.append(np.ones(16))
    del blocks
    before = _rss_mib()
    assert _memory.release_free_heap()
    assert before - _rss_mib() > 20

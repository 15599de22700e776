"""The compute kernels, each twice: a NumPy reference and a Cython fast path.

``reference`` (NumPy, ``fast=False``; public as ``smallvis.reference``) and
``_kernels`` (Cython, ``fast=True``) hold the same functions with the same
signatures: the exact all-pairs cost and gradient, new points' rows against
fixed reference rows, the FFT repulsion, and the kNN and perplexity kernels.
``_sgd_reference`` and ``_sgd_kernels`` are the stochastic optimizer's epoch
loop.  ``_backend`` is the one place that reads ``fast=``.  The kernels are
generic engines: what a method computes comes from its unit in
:mod:`smallvis.methods`.
"""

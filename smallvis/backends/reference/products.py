"""Sparse products whose twins must agree bit for bit.

The spectral start (:func:`smallvis.engines.init.spectral_layout`) hands
its sparse product to the eigensolver, which calls it hundreds of times;
a difference in the last bit of one product leads to another start, and so
to another map.  The compiled twin shares the rows out among threads but
adds each row's terms in the order written here, so both give the same
bits on any number of threads.
"""

import numpy as np
import scipy.sparse as sp


def csr_matvec(indptr, indices, data, x, out, n_threads):
    r"""Write :math:`A x` into ``out``, for the CSR matrix ``A = (indptr, indices, data)``.

    .. math::

        (A x)_i = \sum_{t = \mathrm{indptr}_i}^{\mathrm{indptr}_{i+1} - 1}
                  \mathrm{data}_t \, x_{\mathrm{indices}_t}

    Each row's terms are added one after another, in stored order,
    starting from 0.0: SciPy's CSR product does exactly that, and it is
    what runs here.

    Parameters
    ----------
    indptr : ndarray of int64, shape (n + 1,)
    indices : ndarray of int32 or int64, shape (nnz,)
        Column of each stored entry, in ``[0, len(x))``.
    data : ndarray of float64, shape (nnz,)
    x : ndarray of float64, shape (n_columns,)
    out : ndarray of float64, shape (n,)
        Overwritten with :math:`A x`.
    n_threads : int
        Accepted for signature parity and ignored here.
    """
    n = len(out)
    if len(indptr) != n + 1 or len(indices) != len(data) or (n and indptr[n] > len(data)):
        raise ValueError("csr_matvec: indptr must have len(out) + 1 entries, and "
                         "indices and data one per stored entry")
    A = sp.csr_matrix((data, indices, indptr), shape=(n, len(x)))
    out[:] = A @ np.asarray(x, dtype=np.float64)

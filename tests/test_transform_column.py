"""New points placed over their row and their column (``Method.placed_with_column``).

The column kernels (``normalised_column_transform_cost`` and its gradient)
add to a new point's own row the terms it brings to the fixed points' rows,
with those rows' normalisers and offsets held
(:func:`smallvis.backends.reference.normalised_column_transform_cost`): for
a unit normalised over each row, its own row normalised over itself; over
all pairs, its row and column both held against the fit's single
normaliser.  A unit with a bandwidth per row weighs its row with the new
point's bandwidth and its column with each training point's.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis.backends import _kernels, reference
from smallvis.backends.reference.transform import fixed_row_sums
from smallvis.registry import METHODS

from conftest import example_params
from test_gradients import central_differences

#: every method placed over its row and column, at each registry example
CASES = [(name, i) for name, m in METHODS.items() if m.placed_with_column
         for i in range(len(m.examples))]


def _kind(unit_type):
    """What the column kernels branch on: the normalisation, a bandwidth per row, the log domain."""
    return (unit_type.normalisation, "bandwidth" in getattr(unit_type, "point_fields", ()),
            bool(unit_type.log_domain))


def _accepted(unit_type):
    """Whether the column kernels take the unit: normalised, without an importance per point."""
    return "importance" not in getattr(unit_type, "point_fields", ())


def _unit(name, i):
    m = METHODS[name]
    prefix, args = m.kernel_name(example_params(name, 25)[i])
    return m.normalised_units[prefix](*args)


def _offset_is_whole(unit):
    r"""Whether the unit's offset is the whole :math:`S = \sum q\, \partial f / \partial q`.

    The held terms :math:`f(p, q) - S q` need it: a unit may leave out of
    its offset and its :math:`\partial f / \partial q` a constant that
    cancels from the fit's force (hlsne's linear :math:`q`), which the
    held cost does not cancel (nerv's unit keeps its constant for this).
    Checked by central differences of the unit's cost on a random set.
    """
    rng = np.random.default_rng(0)
    P, Q = rng.random((3, 4)), rng.random((3, 4))
    P /= P.sum()
    Q /= Q.sum()
    h, dC = 1e-6, np.zeros_like(Q)
    for idx in np.ndindex(Q.shape):
        up, down = Q.copy(), Q.copy()
        up[idx] += h * Q[idx]
        down[idx] -= h * Q[idx]
        dC[idx] = (unit.cost(P, up, np.log(up)) - unit.cost(P, down, np.log(down))) / (
            2 * h * Q[idx])
    S = float(np.ravel(unit.offset(P, Q, P.sum(), None))[0])
    return abs(S - float(np.sum(Q * dC))) < 1e-6 * max(1.0, abs(S))


#: the kernels' cases: the methods placed over their column, and for each
#: kind of normalised unit they accept (:func:`_kind`) that none of those
#: is, its first registered method whose offset is whole (so the kernels of
#: a total unit and of a bandwidth unit are checked whichever methods are
#: placed with them)
KERNEL_CASES = list(CASES)
_SEEN = {_kind(u) for name, _ in CASES for u in METHODS[name].normalised_units.values()}
for _name, _m in METHODS.items():
    for _u in _m.normalised_units.values():
        if (_accepted(_u) and _kind(_u) not in _SEEN and len(_m.normalised_units) == 1
                and not _m.learned
                and _offset_is_whole(_unit(_name, 0))):
            _SEEN.add(_kind(_u))
            KERNEL_CASES.append((_name, 0))

#: the first of :data:`KERNEL_CASES` of each kind, for the checks that prove
#: the same for every case of a kind
ONE_PER_KIND = list({_kind(type(_unit(name, i))): (name, i)
                     for name, i in reversed(KERNEL_CASES)}.values())[::-1]


def _with_bandwidths(unit, n, rng):
    """``unit`` with a bandwidth for each of ``n`` rows (itself without a bandwidth field)."""
    if "bandwidth" not in getattr(unit, "point_fields", ()):
        return unit
    return unit._replace(bandwidth=0.4 + 1.2 * rng.random(n))


def _units(name, i, m, n, rng):
    """The unit of the ``m`` new points and the unit of the ``n`` training points."""
    unit = _unit(name, i)
    return _with_bandwidths(unit, m, rng), _with_bandwidths(unit, n, rng)


def _problem(rng, unit, m=6, n=25, dim=2, density=0.3, scale=1.0):
    """New rows and columns of P, a training map and its own P.

    Rows summing to 1 for a unit normalised over each row; for one over all
    pairs, a symmetric P summing to 1 and the new entries on its scale.
    """
    total = unit.normalisation == "total"
    P = sp.random(m, n, density=density, random_state=rng, format="csr")
    P.data = 0.05 + 0.9 * rng.random(P.nnz)
    P.sort_indices()
    column = 0.05 + 0.9 * rng.random(P.nnz)
    if total:
        P.data /= n * n
        column /= n * n
    triplet = (P.indptr.astype(np.int64), P.indices.astype(np.int64), P.data.copy())
    Y = rng.normal(scale=scale, size=(m, dim))
    Y_train = rng.normal(scale=scale, size=(n, dim))
    P_train = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
    np.fill_diagonal(P_train, 0.0)
    P_train[np.arange(n), (np.arange(n) + 1) % n] += 0.1
    if total:
        P_train = P_train + P_train.T
        P_train /= P_train.sum()
    else:
        P_train /= P_train.sum(axis=1, keepdims=True)
    return triplet, column, Y, Y_train, P_train


def test_some_method_is_placed_over_its_column():
    assert CASES


def test_the_kernels_cases_cover_a_total_and_a_bandwidth_unit():
    kinds = {_kind(u) for name, _ in KERNEL_CASES for u in METHODS[name].normalised_units.values()}
    assert any(k[0] == "total" for k in kinds) and any(k[0] == "rows" for k in kinds)
    assert any(k[1] for k in kinds)


@pytest.mark.parametrize("name,i", KERNEL_CASES)
@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("dim,scale", [(1, 1.0), (2, 0.5), (2, 2.0), (3, 1.0)])
def test_column_gradient_matches_finite_differences(name, i, fast, dim, scale, rng):
    unit, unit_train = _units(name, i, 6, 25, rng)
    module = _kernels if fast else reference
    triplet, column, Y, Y_train, P_train = _problem(rng, unit, dim=dim, scale=scale)
    fixed = fixed_row_sums(unit_train, P_train, Y_train)
    grad = np.zeros_like(Y)
    module.normalised_column_transform_gradient(unit, *triplet, Y, Y_train, column, fixed,
                                                grad, 1)
    fd = central_differences(lambda Yc: module.normalised_column_transform_cost(
        unit, *triplet, Yc, Y_train, column, fixed, 1), Y)
    assert np.abs(grad).max() > 1e-8
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


@pytest.mark.parametrize("name,i", KERNEL_CASES)
@pytest.mark.parametrize("n_threads", [1, 2])
def test_column_twins_agree(name, i, n_threads, rng):
    for dim, density, scale in [(1, 1.0, 1.0), (2, 0.3, 1.0), (3, 0.1, 1.0), (2, 0.3, 30.0)]:
        unit, unit_train = _units(name, i, 9, 40, rng)
        triplet, column, Y, Y_train, P_train = _problem(rng, unit, m=9, n=40, dim=dim,
                                                        density=density, scale=scale)
        Y_train[3] = Y[2]  # a coincident pair: no force, finite cost
        column[triplet[0][4]:triplet[0][5]] = 0.0  # a far point: its column is 0
        fixed = fixed_row_sums(unit_train, P_train, Y_train)
        out = {}
        for module in (reference, _kernels):
            grad = np.zeros_like(Y)
            module.normalised_column_transform_gradient(unit, *triplet, Y, Y_train, column,
                                                        fixed, grad, n_threads)
            out[module] = (module.normalised_column_transform_cost(
                unit, *triplet, Y, Y_train, column, fixed, n_threads), grad)
        (c_ref, g_ref), (c_fast, g_fast) = out[reference], out[_kernels]
        assert np.isfinite(c_ref) and np.all(np.isfinite(g_ref))
        assert c_fast == pytest.approx(c_ref, rel=1e-10, abs=1e-12)
        # Where a held offset S_j and the unit's log ratio cancel (a held q
        # far above 1 whose p is 0: the force is q (S_j - log(q/z)/kappa),
        # a few ulps of S_j), the gradient is rounding and moves by a
        # whole share when S_j moves by one ulp; the twins' exp and log may
        # differ by an ulp (NumPy 1.26's against the C library's).
        # Such entries are held to what one ulp of the held sums moves the
        # reference by; every other entry to 1e-10.
        nudged = np.zeros_like(Y)
        reference.normalised_column_transform_gradient(
            unit, *triplet, Y, Y_train, column, np.nextafter(fixed, np.inf), nudged, 1)
        ulp_noise = np.abs(nudged - g_ref)
        np.testing.assert_array_less(np.abs(g_fast - g_ref),
                                     1e-10 * np.abs(g_ref).max() + 1e-10 * np.abs(g_ref)
                                     + 4.0 * ulp_noise + 1e-300)


@pytest.mark.parametrize("name,i", ONE_PER_KIND)
def test_a_new_point_feels_only_the_fixed_rows(name, i, rng):
    """Row s of the gradient is the same alone as in a batch (no new-new pairs)."""
    unit, unit_train = _units(name, i, 5, 25, rng)
    triplet, column, Y, Y_train, P_train = _problem(rng, unit, m=5)
    fixed = fixed_row_sums(unit_train, P_train, Y_train)
    P = sp.csr_matrix((triplet[2], triplet[1], triplet[0]), shape=(5, Y_train.shape[0]))
    C = sp.csr_matrix((column, triplet[1], triplet[0]), shape=P.shape)
    alone = (unit if "bandwidth" not in getattr(unit, "point_fields", ())
             else unit._replace(bandwidth=unit.bandwidth[2:3]))
    for module in (reference, _kernels):
        grad = np.zeros_like(Y)
        module.normalised_column_transform_gradient(unit, *triplet, Y, Y_train, column, fixed,
                                                    grad, 1)
        row, col = P[2], C[2]
        one = np.zeros((1, Y.shape[1]))
        module.normalised_column_transform_gradient(
            alone, row.indptr.astype(np.int64), row.indices.astype(np.int64), row.data,
            Y[2:3].copy(), Y_train, col.data, fixed, one, 1)
        np.testing.assert_allclose(one[0], grad[2], rtol=1e-12, atol=1e-14)


def _fit_cost(unit, P, Y):
    """The method's own cost of a fit, :func:`smallvis.backends.reference.normalised_cost`."""
    S = sp.csr_matrix(P)
    return reference.normalised_cost(unit, S.indptr.astype(np.int64),
                                     S.indices.astype(np.int64), S.data, Y, 1)


def _first_order_problem(unit_type, rng, n):
    """Training map and P, and a new point's row and column on the fit's scale."""
    total = unit_type.normalisation == "total"
    Y_train = rng.normal(size=(n, 2))
    P_train = rng.random((n, n))
    np.fill_diagonal(P_train, 0.0)
    y = rng.normal(size=(1, 2))
    if total:
        P_train = P_train + P_train.T
        P_train /= P_train.sum()
        # p_sj = p_js on the scale of the fit's entries
        row = rng.random(n) / (n * n)
        return Y_train, P_train, y, row, row.copy()
    P_train /= P_train.sum(axis=1, keepdims=True)
    row = rng.random(n)
    # p_{s|j}, small as one entry of a row of n + 1
    return Y_train, P_train, y, row / row.sum(), 0.01 * rng.random(n)


@pytest.mark.parametrize("name,i", ONE_PER_KIND)
def test_the_column_is_the_fit_s_terms_to_first_order(name, i, rng):
    """Adding a point to the fit changes its exact cost by the kernel's, to O(w_s / Z).

    The fit's own cost (:func:`smallvis.backends.reference.normalised_cost`)
    on the N + 1 points, the new point's row and column appended to ``P``
    (every other entry unchanged) and each normaliser taken again, against
    the fit's cost on the N training points: their difference is the
    kernel's cost of the new point, up to the second order in its weights
    over the normalisers, which shrinks as the map grows.  Without the held
    offset's terms ``- S q``, or with the column weighed by the new point's
    bandwidth, the kernel misses a first-order term, which the check sees.
    """
    unit_type = type(_unit(name, i))
    n = 200
    unit_new, unit_train = _units(name, i, 1, n, rng)
    if "bandwidth" in getattr(unit_type, "point_fields", ()):
        # beyond the training points' (0.4 to 1.6): a column weighed with it
        # instead of theirs moves every term the same way
        unit_new = unit_new._replace(bandwidth=np.array([3.0]))
    Y_train, P_train, y, row, column = _first_order_problem(unit_type, rng, n)
    P_with = np.zeros((n + 1, n + 1))
    P_with[:n, :n] = P_train
    P_with[n, :n] = row
    P_with[:n, n] = column
    unit_with = unit_train
    if "bandwidth" in getattr(unit_type, "point_fields", ()):
        unit_with = unit_train._replace(bandwidth=np.append(unit_train.bandwidth,
                                                            unit_new.bandwidth))
    exact = (_fit_cost(unit_with, P_with, np.vstack([Y_train, y]))
             - _fit_cost(unit_train, P_train, Y_train))
    fixed = fixed_row_sums(unit_train, P_train, Y_train)
    triplet = (np.array([0, n], dtype=np.int64), np.arange(n, dtype=np.int64), row)
    kernel = reference.normalised_column_transform_cost(unit_new, *triplet, y, Y_train, column,
                                                       fixed, 1)
    unheld = fixed.copy()
    unheld[:, 2] = 0.0  # the held offset's terms left out
    missing = reference.normalised_column_transform_cost(unit_new, *triplet, y, Y_train,
                                                        column, unheld, 1)
    assert abs(kernel - exact) < 0.05 * abs(missing - exact)
    if "bandwidth" in getattr(unit_type, "point_fields", ()):
        # the column weighed with the new point's bandwidth instead of each
        # training point's: further from the fit's cost
        swapped = fixed.copy()
        swapped[:, 3] = unit_new.bandwidth[0]
        wrong = reference.normalised_column_transform_cost(unit_new, *triplet, y, Y_train,
                                                          column, swapped, 1)
        assert abs(kernel - exact) < 0.25 * abs(wrong - exact)
    assert kernel == pytest.approx(exact, rel=0.05, abs=1e-3 * abs(exact))


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_the_entry_selects_the_column_kernels(module):
    for name, m in METHODS.items():
        if m.placed_with_column:
            assert m.normalised_units  # the column is written for normalised units
            assert all(_accepted(u) for u in m.normalised_units.values()), name
            # its held terms f - S q need the whole offset (nerv's keeps its constant)
            assert all(_offset_is_whole(_unit(name, i)) for i in range(len(m.examples))), name
            cost, gradient, args = m.kernels(module, example_params(name, 25)[0],
                                             family="column_transform")
            assert cost.__name__ == "normalised_column_transform_cost"
            assert gradient.__name__ == "normalised_column_transform_gradient"


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_bad_fixed_rows_and_units_are_refused(module, rng):
    name, i = KERNEL_CASES[0]
    unit, unit_train = _units(name, i, 6, 25, rng)
    triplet, column, Y, Y_train, P_train = _problem(rng, unit)
    fixed = fixed_row_sums(unit_train, P_train, Y_train)
    with pytest.raises(ValueError, match="shape"):
        module.normalised_column_transform_cost(unit, *triplet, Y, Y_train, column,
                                                fixed[:, :3].copy(), 1)
    bad = fixed.copy()
    bad[0, 3] = 0.0
    with pytest.raises(ValueError, match="bandwidths"):
        module.normalised_column_transform_cost(unit, *triplet, Y, Y_train, column, bad, 1)
    weighted = [u for m in METHODS.values() for u in m.normalised_units.values()
                if not _accepted(u)]
    if weighted:
        with pytest.raises(ValueError, match="importance"):
            fixed_row_sums(weighted[0](), P_train, Y_train)

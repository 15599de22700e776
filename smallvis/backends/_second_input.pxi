# The two-input engine (included by _kernels.pyx): a cost C_1(P) + lambda
# C_2(R) with a second per-pair input R beside P, each part run by this
# module's own pair or normalised entry points.  The formulas and the rule
# are the reference twin's (backends/reference/second_input.py).


def _second_input_parts(unit):
    """((first, its entries), (second, its entries), weight) of a two-input unit."""
    entries = {"pair": (pair_cost, pair_gradient, pair_transform_cost,
                        pair_transform_gradient),
               "normalised": (normalised_cost, normalised_gradient,
                              normalised_transform_cost, normalised_transform_gradient)}
    unit_field_values(unit)
    first, second, weight = unit.parts()
    return ((first, entries[unit_engine(first)]), (second, entries[unit_engine(second)]),
            weight)


def second_input_cost(unit, indptr, indices, data, Y, n_threads):
    """A two-input unit's exact cost; see the reference twin."""
    (first, e1), (second, e2), weight = _second_input_parts(unit)
    cost = e1[0](first, indptr, indices, data, Y, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0])
        cost += weight * e2[0](second, *R, Y, n_threads)
    return float(cost)


def second_input_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    """A two-input unit's exact gradient (into grad); see the reference twin."""
    (first, e1), (second, e2), weight = _second_input_parts(unit)
    e1[1](first, indptr, indices, data, Y, grad, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0])
        other = np.zeros_like(grad)
        e2[1](second, *R, Y, other, n_threads)
        grad += weight * other
    return None


def second_input_transform_cost(unit, indptr, indices, data, Y, Y_train, n_threads):
    """A two-input unit's cost of new points; see the reference twin."""
    (first, e1), (second, e2), weight = _second_input_parts(unit)
    cost = e1[2](first, indptr, indices, data, Y, Y_train, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0], Y_train.shape[0])
        cost += weight * e2[2](second, *R, Y, Y_train, n_threads)
    return float(cost)


def second_input_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of second_input_transform_cost in the new points; see the reference twin."""
    (first, e1), (second, e2), weight = _second_input_parts(unit)
    e1[3](first, indptr, indices, data, Y, Y_train, grad, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0], Y_train.shape[0])
        other = np.zeros_like(grad)
        e2[3](second, *R, Y, Y_train, other, n_threads)
        grad += weight * other
    return None

"""Object arrays and frames: one rule at every entry point.

An object array (an object-dtype DataFrame, a list mixing ``None`` with
numbers) is read as float64 when every element is a real number, NaN,
``None`` or ``pd.NA`` (missing values then refused as NaN is); any other
element is a ``TypeError`` naming the argument.
"""

import decimal
import fractions
import warnings

import numpy as np
import pytest

import smallvis

pd = pytest.importorskip("pandas")

SETTINGS = dict(method="tsne", perplexity=3, n_iter=10, random_state=0)


def _data():
    return np.random.default_rng(5).normal(size=(12, 3))


def _embed(X):
    return smallvis.embed(X, **SETTINGS)


def _affinities(X):
    return smallvis.affinities(X, "tsne", perplexity=3)


def _fit(X):
    return smallvis.Embedding(**SETTINGS).fit(X).embedding_


def _transform(X):
    """The estimator's ``transform``, whose argument is ``X``."""
    model = smallvis.Embedding(**SETTINGS).fit(_data())
    return model.transform(X)


ENTRY_POINTS = [_embed, _affinities, _fit, _transform]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_an_all_float_object_frame_is_read_as_floats(entry):
    X = _data()
    frame = pd.DataFrame(X, columns=list("abc")).astype(object)
    expected = entry(X)
    got = entry(frame)
    if hasattr(got, "toarray"):
        got, expected = got.toarray(), expected.toarray()
    np.testing.assert_array_equal(got, expected)


def _missing_at(missing):
    frame = pd.DataFrame(_data(), columns=list("abc")).astype(object)
    frame.iloc[4, 1] = missing
    frame.iloc[7, 2] = missing
    return frame


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("missing", [np.nan, float("nan"), None, "NA"])
def test_missing_values_in_an_object_frame_get_the_nan_message(entry, missing):
    if missing == "NA":
        missing = pd.NA
    with pytest.raises(ValueError, match=r"X contains 2 NaN or infinite value"):
        entry(_missing_at(missing))


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("bad", ["1.5", b"2", object(), [1.0], 1 + 2j])
def test_anything_but_numbers_in_an_object_frame_is_a_type_error(entry, bad):
    frame = pd.DataFrame(_data(), columns=list("abc")).astype(object)
    frame.iloc[3, 0] = bad
    with pytest.raises(TypeError, match=r"X must be numeric"):
        entry(frame)


def test_other_real_number_types_are_numbers():
    X = _data()
    objects = X.astype(object)
    objects[0, 0] = fractions.Fraction(X[0, 0])
    objects[1, 1] = decimal.Decimal(X[1, 1])
    objects[2, 2] = np.float32(0.5)
    X[2, 2] = 0.5
    objects[3, 0] = 2  # a Python int
    X[3, 0] = 2.0
    np.testing.assert_array_equal(_embed(objects), _embed(X))


def test_an_object_list_without_pandas_follows_the_same_rule():
    X = _data().tolist()
    X[2][1] = None
    with pytest.raises(ValueError, match="X contains 1 NaN or infinite value"):
        _embed(np.array(X, dtype=object))
    X[2][1] = "text"
    with pytest.raises(TypeError, match="X must be numeric"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _embed(np.array(X, dtype=object))

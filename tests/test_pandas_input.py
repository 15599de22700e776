"""pandas input with missing values (``pd.NA``) and nullable dtypes.

``pd.NA`` is pandas' missing value: it is refused exactly as NaN is, with
the message that names ``X``, not with a ``TypeError`` from ``float()``.
"""

import numpy as np
import pytest

import smallvis

pd = pytest.importorskip("pandas")

NAN_MESSAGE = "X contains 1 NaN or infinite value(s); all values must be finite"


def _data():
    return np.random.default_rng(3).normal(size=(12, 3))


def _with_missing(kind):
    """A frame of _data() with the entry (4, 1) missing, in pandas' ways."""
    X = _data()
    if kind == "Int64":
        frame = pd.DataFrame(np.round(10 * X).astype(int), columns=list("abc")).astype("Int64")
    elif kind == "Float64":
        frame = pd.DataFrame(X, columns=list("abc")).astype("Float64")
    else:  # an object column holding pd.NA next to plain float columns
        frame = pd.DataFrame(X, columns=list("abc"))
        frame["b"] = frame["b"].astype(object)
    frame.iloc[4, 1] = pd.NA
    return frame


KINDS = ["Int64", "Float64", "object"]


def test_nan_message_is_the_one_expected():
    X = _data()
    X[4, 1] = np.nan
    with pytest.raises(ValueError) as info:
        smallvis.embed(X, method="tsne", perplexity=3, n_iter=5)
    assert str(info.value) == NAN_MESSAGE


@pytest.mark.parametrize("kind", KINDS)
def test_pd_na_in_embed_is_refused_like_nan(kind):
    frame = _with_missing(kind)
    assert frame.isna().to_numpy().sum() == 1
    with pytest.raises(ValueError) as info:
        smallvis.embed(frame, method="tsne", perplexity=3, n_iter=5)
    assert str(info.value) == NAN_MESSAGE


@pytest.mark.parametrize("kind", KINDS)
def test_pd_na_in_estimator_fit_is_refused_like_nan(kind):
    model = smallvis.Embedding("tsne", perplexity=3, n_iter=5)
    with pytest.raises(ValueError) as info:
        model.fit(_with_missing(kind))
    assert str(info.value) == NAN_MESSAGE
    assert not hasattr(model, "embedding_")


@pytest.mark.parametrize("kind", KINDS)
def test_pd_na_in_estimator_transform_is_refused_like_nan(kind):
    frame = _with_missing(kind)
    complete = frame.drop(index=4).astype("float64")
    model = smallvis.Embedding("tsne", perplexity=3, n_iter=20, random_state=0).fit(complete)
    before = model.embedding_.copy()
    with pytest.raises(ValueError, match=r"X.* contains 1 NaN or infinite value"):
        model.transform(frame)
    np.testing.assert_array_equal(model.embedding_, before)


def test_pd_na_in_an_object_array_is_refused_like_nan():
    with pytest.raises(ValueError, match="init array contains NaN or infinite values"):
        init = np.array(_data()[:, :2], dtype=object)
        init[0, 0] = pd.NA
        smallvis.embed(_data(), method="tsne", perplexity=3, n_iter=5, init=init)


@pytest.mark.parametrize("dtype", ["Int64", "Float64"])
def test_nullable_frames_without_missing_values_embed_as_float64(dtype):
    X = np.round(10 * _data())  # integral, so Int64 holds it exactly
    frame = pd.DataFrame(X, columns=list("abc")).astype(dtype)
    settings = dict(method="tsne", perplexity=3, n_iter=20, random_state=0)
    np.testing.assert_array_equal(smallvis.embed(frame, **settings),
                                  smallvis.embed(X, **settings))
    model = smallvis.Embedding(**settings).fit(frame)
    np.testing.assert_array_equal(model.embedding_, smallvis.embed(X, **settings, fast=True))


def test_text_next_to_pd_na_is_still_not_numeric():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", pd.NA, "z"]})
    with pytest.raises(TypeError, match="X must be numeric"):
        smallvis.embed(frame, method="tsne", perplexity=1, n_iter=5)

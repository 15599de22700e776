"""Every bad value of a method parameter is reported under its command-line option.

The registry's checks raise ``ParameterError`` naming the keyword, which the
command line turns into its option (``--knn-method: knn_method must be ...``).
"""

import pytest

from smallvis.cli import main

CASES = [
    # (method, bad options, the option(s) the message must start with)
    ("umap", ["--knn-method", "bogus"], "--knn-method"),
    ("tsne", ["--knn-method", "nope"], "--knn-method"),
    ("ncvis", ["--knn-method", "bogus"], "--knn-method"),
    ("umap", ["--n-trees", "0"], "--n-trees"),
    ("umap", ["--local-connectivity", "-1"], "--local-connectivity"),
    ("largevis", ["--kernel", "bogus"], "--kernel"),
    ("largevis", ["--kernel", "cauchy", "--alpha", "2"], "--alpha, --kernel"),
    ("largevis", ["--optimizer", "sgd", "--kernel", "exp"], "--kernel, --optimizer"),
    ("umap", ["--min-dist", "3", "--spread", "1"], "--min-dist, --spread"),
    ("ncvis", ["--min-dist", "2", "--spread", "0.5"], "--min-dist, --spread"),
    ("tsne", ["--optimizer", "sgd"], "--optimizer"),
]


@pytest.mark.parametrize("method,options,flags", CASES)
def test_a_bad_method_parameter_is_named_by_its_option(method, options, flags, capsys):
    code = main(["embed", "iris", "--method", method, "--n-iter", "5", "--quiet",
                 "--out", "/dev/null", *options])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"smallvis: error: {flags}: "), err
    assert "Traceback" not in err


def test_a_value_after_a_keyword_reads_as_an_option_and_its_value(capsys):
    """``kernel='exp'`` in a message reads ``--kernel 'exp'`` on the command line."""
    main(["embed", "iris", "--method", "largevis", "--optimizer", "sgd", "--kernel", "exp",
          "--quiet", "--out", "/dev/null"])
    err = capsys.readouterr().err
    assert "--optimizer 'sgd' supports largevis with --kernel 'cauchy' only" in err
    assert err.rstrip().endswith("got --kernel 'exp'")

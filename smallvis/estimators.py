"""One estimator class per registered method: ``smallvis.TSNE``, ``smallvis.UMAP``, ...

>>> import smallvis
>>> X, labels = smallvis.datasets.load("iris")
>>> Y = smallvis.UMAP(random_state=0).fit_transform(X)

Each class is :class:`smallvis.Embedding` with ``method`` fixed: the same
parameters otherwise (:class:`~smallvis.estimator.MethodEmbedding`).  The
classes are written out, not made in a loop, so that a reader, an editor's
"go to definition" and a type checker find them.  A class is bound to its
registry entry by its name alone (:func:`~smallvis.estimator.estimator_class_name`:
the method's name in upper case), so no method name is spelled here as a
string: the registry stays the only list of methods, and
tests/test_estimator.py checks that this file has one class for each entry
and no other.

A new method needs two lines here: its class name in ``__all__``, and at the
end of the file a class like the others, decorated with
:func:`~smallvis.estimator.method_estimator`, its body a one-line docstring.
"""

from .estimator import MethodEmbedding, method_estimator

__all__ = [
    "ASNE",
    "SSNE",
    "TSNE",
    "LARGEVIS",
    "UMAP",
    "TUMAP",
    "NCVIS",
    "NEGTSNE",
    "INFONCE",
]


@method_estimator
class ASNE(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="asne"``; the same parameters otherwise."""


@method_estimator
class SSNE(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ssne"``; the same parameters otherwise."""


@method_estimator
class TSNE(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tsne"``; the same parameters otherwise."""


@method_estimator
class LARGEVIS(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="largevis"``; the same parameters otherwise."""


@method_estimator
class UMAP(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="umap"``; the same parameters otherwise."""


@method_estimator
class TUMAP(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tumap"``; the same parameters otherwise."""


@method_estimator
class NCVIS(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ncvis"``; the same parameters otherwise."""


@method_estimator
class NEGTSNE(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="negtsne"``; the same parameters otherwise."""


@method_estimator
class INFONCE(MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="infonce"``; the same parameters otherwise."""

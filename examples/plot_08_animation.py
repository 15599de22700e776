"""
Watching a run
==============

A :class:`smallvis.Recorder` passed as ``callback`` keeps the layouts of a
run, and :func:`smallvis.animate` turns them into a GIF, each frame turned
onto the final map so that the picture does not spin.  This is t-SNE on 600
digits: under early exaggeration (the first 250 iterations) the classes
gather into tight groups; when it ends they expand into the final map.
Below the animation, the same run as a strip of frames.
"""

import base64

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML

import smallvis
from smallvis.animation import align_frames

X, labels = smallvis.datasets.load("digits")
rows = np.random.default_rng(0).choice(len(X), 600, replace=False)
X, labels = X[rows], labels[rows]

# every 10th iteration: 100 layouts of a 1000-iteration run, all the
# recorder keeps by default
recorder = smallvis.Recorder(every=10)
smallvis.embed(X, "tsne", random_state=0, callback=recorder)

# without a path, animate returns the GIF's bytes; pass path="tsne.gif" to
# write a file instead.  A small picture keeps the page light.
gif = smallvis.animate(recorder, labels=labels, fps=12, n_frames=40, size=5.0, dpi=64,
                       title="t-SNE, iteration {step}")
HTML(f'<img src="data:image/gif;base64,{base64.b64encode(gif).decode()}" '
     'alt="animation of a t-SNE run on 600 digits">')

# %%
# The strip aligns the frames as the animation does, onto the last layout.
# Each panel has its own scale: the early layouts are far smaller.

steps = np.array(recorder.steps)
# the recorder's steps, not the iterations asked for: it thins its frames
# as the run goes on, so pick the nearest kept ones
picks = [int(np.argmin(np.abs(steps - s))) for s in (20, 100, 240, 300, 500, steps[-1])]
aligned = align_frames([recorder.frames[i] for i in picks])
fig, axes = plt.subplots(2, 3, figsize=(11, 7.4))
for ax, i, Y in zip(axes.flat, picks, aligned):
    smallvis.plot(Y, labels, ax=ax, legend=False, s=5, title=f"iteration {steps[i]}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()

"""From data to the input affinities P: nearest neighbours and affinities.

``neighbors`` holds the one kNN index (:class:`~smallvis.inputs.neighbors.KNNIndex`)
that serves the fit and new points; ``affinities`` turns distances or a kNN
graph into each method family's P.
"""

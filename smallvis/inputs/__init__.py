"""From data to the input affinities P: nearest neighbours and affinities.

``neighbors`` holds the one kNN index
(:class:`~smallvis.inputs.neighbors.KNNIndex`) that serves the fit and new
points; ``_new_points`` the units and far points of new points' queries;
``affinities`` turns distances or a kNN graph into each method family's P.
"""

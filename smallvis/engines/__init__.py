"""The fit's engines: starting layouts, the two optimizers and the sampled cost.

``init`` (initial layouts), ``optim`` (the exact optimizer), ``sgd`` (the
stochastic optimizer) and ``sampled_cost`` (an estimate of a stochastic run's
cost) run any method; they call the kernels of :mod:`smallvis.backends` and
name no method.
"""

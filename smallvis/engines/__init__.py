"""The engines: generic machinery that runs any method of the registry.

Every compiled kernel (``_kernels``, ``_sgd_kernels``) sits here beside its
NumPy twin (``reference``, ``_sgd_reference``); ``_backend`` chooses between
them.  Above the kernels: the starting layouts (``init``), the exact
optimizers (``optim``), the stochastic optimizer (``sgd``), the sampled cost
(``sampled_cost``) and the placement of new points (``transform``).  No
module here names a method: what a method computes comes from its entry in
:mod:`smallvis.methods`.
"""

"""Readable NumPy twins of the stochastic optimizer's kernels.

Re-exported by :mod:`smallvis.backends.reference` (which lists them in its
``__all__``): the counter-based random numbers, Walker's alias table, the
per-method SGD coefficients and the epoch loop ``sgd_epochs``.  Their Cython
twins are in ``smallvis/backends/_sgd_kernels.pyx``; with one thread both loops
perform the same floating-point operations in the same order and agree bit
for bit.  Formulas: docs/theory.md ("SGD coefficients", "NCVis: noise ratio
and learned normalisation").
"""

import math
import numpy as np

from ..methods import unit_classes
from ..methods._common import unit_field_values


_MASK64 = 0xFFFFFFFFFFFFFFFF
#: 2^64 / golden ratio, the increment of splitmix64.
_GOLDEN = 0x9E3779B97F4A7C15
#: Scales the top 53 bits of a 64-bit draw to a double in [0, 1).
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0


def _mix64(z):
    """splitmix64's finaliser on uint64 arrays (wrapping arithmetic)."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _absorb(h, x):
    """One step of the key chain: ``mix64(h XOR (x + golden))``."""
    with np.errstate(over="ignore"):
        return _mix64(np.asarray(h, dtype=np.uint64)
                      ^ (np.asarray(x).astype(np.uint64) + np.uint64(_GOLDEN)))


def _edge_key(seed, epoch, edge):
    """The draw-independent part of the key: absorb seed, epoch, edge."""
    return _absorb(_absorb(_absorb(np.uint64(0), np.uint64(seed)), epoch), edge)


def _randint(bits, n):
    """Lemire's multiply-shift: ``floor(bits * n / 2**64)`` for ``n < 2**32``.

    The 128-bit product is formed from 32-bit halves so that uint64
    arithmetic suffices; the result is exact.
    """
    bits = np.asarray(bits, dtype=np.uint64)
    n = np.uint64(n)
    lo = bits & np.uint64(0xFFFFFFFF)
    hi = bits >> np.uint64(32)
    return ((hi * n + ((lo * n) >> np.uint64(32))) >> np.uint64(32)).astype(np.int64)


def _uniform(bits):
    """The top 53 bits as a double in [0, 1)."""
    bits = np.asarray(bits, dtype=np.uint64)
    return (bits >> np.uint64(11)).astype(np.float64) * _TWO_POW_MINUS_53


def counter_random(seed, epochs, edges, draws, out):
    r"""Counter-based random 64-bit words: a pure function of the key.

    .. math::

        h_0 = 0,\quad h_{k+1} = \mathrm{mix}(h_k \oplus (x_k + G)),\quad
        (x_0, x_1, x_2, x_3) = (\text{seed}, \text{epoch}, \text{edge}, \text{draw}),

    and the word is :math:`h_4`, where ``mix`` is the splitmix64 finaliser,
    :math:`G` = 0x9E3779B97F4A7C15 and all arithmetic wraps modulo
    :math:`2^{64}`.  No state is carried from one draw to the next, so a
    draw does not depend on how many draws came before it, on the order of
    the loop or on the thread that makes it.

    Parameters
    ----------
    seed : int
        In ``[0, 2**64)``.
    epochs, edges, draws : ndarray of int64, same shape
        The rest of each key (non-negative).
    out : ndarray of uint64, same shape
        Receives the words.
    """
    out[...] = _absorb(_edge_key(seed, epochs, edges), draws)


def counter_randint(seed, epochs, edges, draws, n, out):
    r"""Uniform integers in ``[0, n)`` from :func:`counter_random`.

    Lemire's multiply-shift reduction of the word :math:`u`:
    :math:`\lfloor u n / 2^{64} \rfloor` (``1 <= n < 2**32``).
    """
    words = np.empty(np.shape(out), dtype=np.uint64)
    counter_random(seed, epochs, edges, draws, words)
    out[...] = _randint(words, n)


def counter_uniform(seed, epochs, edges, draws, out):
    r"""Uniform doubles in ``[0, 1)`` from :func:`counter_random`.

    :math:`\lfloor u / 2^{11} \rfloor \cdot 2^{-53}`: the top 53 bits of the word.
    """
    words = np.empty(np.shape(out), dtype=np.uint64)
    counter_random(seed, epochs, edges, draws, words)
    out[...] = _uniform(words)


# The per-method coefficients of the stochastic loop live in the method units
# (smallvis/methods/<name>.py, docs/theory.md "SGD coefficients"): the
# problem's ``params`` are the unit's fields, and the unit's
# ``sgd_unit(n_others, nu)`` gives what an epoch with ``nu`` negatives per
# positive sample calls on a map of ``n_others + 1`` points; its
# ``sgd_attract(d2, q)`` and ``sgd_repel(d2, q)`` return ``(c, dJ/dQ)``,
# where ``q`` is the learned scalar seen by the head: the sample moves the
# head by ``alpha c (y_i - y_other)``.  dJ/dQ is 0 for the methods without
# a learned Q.

#: The stochastic loop's coefficients by name: ``problem.coefficient`` of
#: :func:`sgd_epochs` is one of these keys (each unit's ``sgd_coefficient``,
#: found among the units of :mod:`smallvis.methods`), in both twins (the
#: Cython twin runs the C unit named by the unit's ``kernel``; a test checks
#: that they agree).
SGD_COEFFICIENTS = {unit.sgd_coefficient: unit for unit in unit_classes()
                    if hasattr(unit, "sgd_coefficient")}
#: The stochastic loop's grouped steps by name: ``problem.coefficient`` may
#: instead be one of these keys (each unit's ``sgd_grouped``).  A grouped unit's
#: sample computes the coefficients of its positive and all its negatives at
#: once from their squared distances (``unit.sgd_group(d2_pos, d2_neg)``;
#: InfoNCE's softmax denominator couples them), then applies the steps; the
#: Cython twin runs the C unit's ``smallvis_<name>_sgd_group``.  Its loss is
#: defined with ``m`` negatives, so every sample draws the epoch's ``n_noise``
#: (scheme "epochs_per_sample" too, whose bookkeeping of negatives then only
#: advances).
SGD_GROUPS = {unit.sgd_grouped: unit for unit in unit_classes() if hasattr(unit, "sgd_grouped")}
#: How positive samples are chosen (``problem.scheme``; see :func:`sgd_epochs`).
SGD_SCHEMES = ("epochs_per_sample", "alias", "every_edge")
#: How negatives are drawn (``problem.noise``; see :func:`sgd_epochs`).
SGD_NOISES = ("uniform", "uniform_others", "degree")
#: The noise of a problem with frozen rows (placing new points): negatives
#: drawn uniformly from the frozen rows (see :func:`sgd_epochs`).
FROZEN_NOISE = "reference"
#: Every noise the engines run: the fit's, then the frozen one.
ENGINE_NOISES = SGD_NOISES + (FROZEN_NOISE,)


def _coefficient_unit(problem):
    """The unit class of ``problem.coefficient`` (a per-pair or a grouped unit)."""
    try:
        return {**SGD_COEFFICIENTS, **SGD_GROUPS}[problem.coefficient]
    except (KeyError, TypeError):
        raise ValueError(f"unknown SGD coefficient {problem.coefficient!r}; expected one "
                         f"of {', '.join([*SGD_COEFFICIENTS, *SGD_GROUPS])}") from None


def _is_grouped(problem):
    """Whether ``problem.coefficient`` names a grouped step (:data:`SGD_GROUPS`)."""
    return isinstance(problem.coefficient, str) and problem.coefficient in SGD_GROUPS


def _problem_fields(problem):
    """``problem.params`` as floats, each checked to be a real number (both twins load these)."""
    unit_class = _coefficient_unit(problem)
    try:
        unit = unit_class(*problem.params)
    except TypeError:
        raise ValueError(f"params must hold the {problem.coefficient!r} unit's fields "
                         f"{unit_class._fields}; got {problem.params!r}") from None
    return unit_field_values(unit)


def _epoch_unit(problem, nu):
    """What an epoch with ``nu`` negatives per positive calls: the unit of the problem's fields.

    A grouped unit's ``sgd_unit`` is the unit itself (its step reads the
    sample's distances only).
    """
    unit = _coefficient_unit(problem)(*_problem_fields(problem))
    return unit.sgd_unit(int(problem.n_others), float(nu))


def check_group_arrays(d2, out):
    """Refuse a grouped step's arrays unless both are 1-D float64 of one length >= 1.

    Shared by both twins of :func:`sgd_group_coefficients`: the compiled one
    reads ``d2`` and writes ``out`` without bounds checks.
    """
    for name, a in (("d2", d2), ("out", out)):
        if not isinstance(a, np.ndarray) or a.dtype != np.float64 or a.ndim != 1:
            raise ValueError(f"{name} must be a 1-D float64 array (the positive's squared "
                             f"distance, then the negatives'); got {type(a).__name__}"
                             f"{'' if not isinstance(a, np.ndarray) else f' {a.dtype} {a.shape}'}")
    if d2.shape[0] < 1 or out.shape != d2.shape:
        raise ValueError(f"d2 and out must have the same length, at least 1 (m + 1 for m "
                         f"negatives); got {d2.shape[0]} and {out.shape[0]}")


def sgd_group_coefficients(problem, d2, out):
    r"""The grouped step's coefficients of ``problem.coefficient`` for one sample.

    ``d2[0]`` is the positive pair's squared distance and ``d2[1:]`` those
    of its ``m`` negatives; ``out[0]`` receives the positive's coefficient
    and ``out[1:]`` the negatives' (the head moves by
    :math:`\alpha c (y_i - y_{other})`).  The formulas are the method
    unit's ``sgd_group`` (e.g.
    :meth:`smallvis.methods.infonce.unit.InfoNCEUnit.sgd_group`).

    Parameters
    ----------
    problem : object
        Reads ``coefficient`` (a key of :data:`SGD_GROUPS`) and ``params``.
    d2 : ndarray of float64, shape (m + 1,)
    out : ndarray of float64, shape (m + 1,)
    """
    if not _is_grouped(problem):
        raise ValueError(f"{problem.coefficient!r} is not a grouped step; expected one of "
                         f"{', '.join(SGD_GROUPS)}")
    check_group_arrays(d2, out)
    unit = _epoch_unit(problem, len(d2) - 1)
    out[0], out[1:] = unit.sgd_group(float(d2[0]), d2[1:])


def sgd_coefficients(problem, d2, q, nu, out):
    r"""The stochastic loop's coefficients of ``problem.coefficient``, at given distances.

    For each squared distance ``d2[t]``, ``out[:, t]`` receives the
    attraction coefficient :math:`c_a` of a positive sample and its
    :math:`\partial J / \partial Q`, then the repulsion coefficient
    :math:`c_r` of a negative sample and its :math:`\partial J / \partial Q`
    (0 for methods without a learned Q): the sample moves the head by
    :math:`\alpha c (y_i - y_k)`.  See :func:`sgd_epochs` for the formulas.

    Parameters
    ----------
    problem : object
        Reads ``coefficient``, ``params`` and ``n_others`` (see
        :func:`sgd_epochs`).
    d2 : ndarray of float64, shape (n,)
        Squared distances (non-negative).  The loop skips a negative at
        distance 0, so the repulsion there is NaN.
    q : float
        The learned scalar seen by the head (NCVis's :math:`Q'`).
    nu : float
        Negatives per positive sample (NCVis's noise ratio).
    out : ndarray of float64, shape (4, n)
        Receives :math:`(c_a, \partial_Q J_a, c_r, \partial_Q J_r)` per distance.
    """
    if _is_grouped(problem):
        raise ValueError(f"{problem.coefficient!r} is a grouped step: its coefficients "
                         "depend on the whole sample (sgd_group_coefficients)")
    epoch_unit = _epoch_unit(problem, nu)
    for t in range(len(d2)):
        out[0, t], out[1, t] = epoch_unit.sgd_attract(float(d2[t]), float(q))
        out[2:, t] = epoch_unit.sgd_repel(float(d2[t]), float(q)) if d2[t] > 0.0 else math.nan


def _clip(x, bound):
    x = x if x > -bound else -bound
    return x if x < bound else bound


def alias_table(prob, alias):
    r"""Walker's alias table by Vose's construction, in place.

    A column ``c`` drawn uniformly and a uniform :math:`u` give ``c`` if
    :math:`u <` ``prob[c]``, else ``alias[c]``; then
    :math:`P(i) = (\mathrm{prob}_i + \sum_{c:\,\mathrm{alias}_c = i}
    (1 - \mathrm{prob}_c)) / n` equals the target probability of ``i``.

    Vose's two stacks (the columns below and at or above 1, each last in,
    first out, pushed in index order) are singly linked lists threaded
    through ``alias``, and the work values live in ``prob``: a column on a
    stack has no alias yet, and its work value becomes its acceptance
    probability when it leaves the small stack.  So the construction needs
    no memory beyond the table (at 13 million edges a stack array or a copy
    of the weights is 50 to 100 MB), and it makes the same operations in
    the same order as the textbook form with two list stacks: the same
    bits (tests/test_sgd.py compares with that form).

    Parameters
    ----------
    prob : ndarray of float64, shape (n,)
        On entry the target probabilities times ``n`` (mean 1); receives
        the acceptance probabilities (1 for the columns that end without
        an alias).
    alias : ndarray of int32, shape (n,)
        Receives the aliases (a column's own index when it has none).
    """
    n = len(prob)
    small = large = -1  # tops of the stacks; alias[i] links i to the entry below
    for i in range(n):
        if prob[i] < 1.0:
            alias[i], small = small, i
        else:
            alias[i], large = large, i
    while small >= 0 and large >= 0:
        s, small = small, int(alias[small])
        g, large = large, int(alias[large])
        alias[s] = g  # prob[s] keeps its work value: the acceptance probability
        prob[g] = (prob[g] + prob[s]) - 1.0
        if prob[g] < 1.0:
            alias[g], small = small, g
        else:
            alias[g], large = large, g
    for top in (small, large):  # what is left needs no alias
        while top >= 0:
            i, top = top, int(alias[top])
            prob[i], alias[i] = 1.0, i


def _alias_draw(u_column, u_coin, prob, alias):
    """Walker's alias method: one table entry and one biased coin."""
    column = int(_randint(u_column, len(prob)))
    return column if _uniform(u_coin) < prob[column] else int(alias[column])


def sgd_epochs(problem, Y, seed, epoch_start, epoch_end, n_threads):
    r"""Run epochs ``epoch_start .. epoch_end - 1`` of the SGD loop, in place on ``Y``.

    One loop serves every stochastic method; the method enters only through
    its attraction and repulsion coefficients (``problem.coefficient``), its
    clip bound and a few switches.  A positive sample is an edge ``(i, j)``
    (``i = head``, ``j = tail``), at squared distance :math:`d^2`:

    .. math::

        g = \mathrm{clip}(c_a(d^2)\,(y_i - y_j)),\quad
        y_i \leftarrow y_i + \alpha_e g,\quad y_j \leftarrow y_j - \alpha_e g,

    then ``m`` negatives ``k`` each give
    :math:`g = \mathrm{clip}(c_r(d^2_{ik})\,(y_i - y_k))`,
    :math:`y_i \leftarrow y_i + \alpha_e g` (and, if negatives move,
    :math:`y_k \leftarrow y_k - \alpha_e g`).  The coefficients
    (``SGD_COEFFICIENTS``: the units' ``sgd_attract`` and ``sgd_repel``;
    derivations in docs/theory.md):

    .. math::

        c_a^{umap} = \frac{-2ab\,d^{2(b-1)}}{1 + a d^{2b}},\quad
        c_r^{umap} = \frac{2\gamma b}{(\epsilon + d^2)(1 + a d^{2b})},\quad
        c_a^{cauchy} = \frac{-2}{1 + d^2},\quad
        c_r^{cauchy} = \frac{2\gamma}{(\epsilon + d^2)(1 + d^2)},

    (umap-learn, McInnes et al. 2018; the Cauchy pair serves tumap and
    LargeVis, Tang et al. 2016) and NCVis's (Artemenkov & Panov 2020), with
    :math:`w' = e^{-Q'} \hat q / \nu`, :math:`\hat q = 1 / (1 + a d^{2b})`
    and :math:`\nu` the epoch's ``n_noise``:

    .. math::

        c_a^{ncvis} = -\frac{2ab\,d^{2(b-1)} \hat q}{1 + w'},\quad
        c_r^{ncvis} = \frac{w'}{1 + w'}\, 2ab\,d^{2(b-1)} \hat q,

    whose :math:`\partial J / \partial Q'` are :math:`-1 / (1 + w')` and
    :math:`w' / (1 + w')`.  A negative at distance 0 (e.g. the head itself)
    is skipped.

    Parameters
    ----------
    problem : object
        The stochastic problem (:class:`smallvis.engines.sgd.SgdProblem`), read by
        attribute:

        * ``head``, ``tail`` (int32, ``(n_edges,)``): directed edges,
          ``head`` non-decreasing; scheme ``"alias"`` leaves ``head``
          empty and finds the head of edge ``e`` in ``indptr``.
        * ``indptr`` (int32, ``(n_samples + 1,)``): the edges of head ``i``
          are ``indptr[i] <= e < indptr[i + 1]`` (CSR row pointers).
        * ``edge_weight`` (float64, ``(n_edges,)``): scheme
          ``"epochs_per_sample"``: epochs per sample of each edge;
          ``"alias"``: the alias-table acceptance probability of each edge;
          ``"every_edge"``: unused.  ``edge_alias`` (int32): the alias of each
          edge (scheme ``"alias"``).
        * ``noise_prob``, ``noise_alias`` (float64 / int32, ``(n_samples,)``):
          the noise distribution's alias table (noise ``"degree"``).
        * ``alphas`` (float64, ``(n_epochs,)``): learning rate of each epoch.
        * ``n_noise`` (int64, ``(n_epochs,)``): negatives per positive
          sample in each epoch (scheme ``"epochs_per_sample"``: the negative
          sample rate).  NCVis's coefficient uses it as the epoch's noise
          ratio :math:`\nu`, so that the expected update of an epoch is the
          exact NCE gradient at that :math:`\nu`.
        * ``state`` (float64, ``(2, n_edges)``, updated): scheme
          ``"epochs_per_sample"``: the epoch of the next sample and of the
          next negative sample of each edge, so blocks of epochs continue
          exactly where the previous block stopped.
        * ``q`` (float64, ``(1,)``, updated): a learned scalar (NCVis's
          normalisation), ``q += q_learning_rate * dJ/dQ`` after each
          positive and negative sample when ``q_learning_rate != 0``.
        * ``q_offset`` (float64, ``(n_samples,)`` or ``(0,)``): per-head
          correction added to ``q`` before a coefficient sees it (NCVis's
          :math:`Q' = Q + \log p_i^-`); empty: none.
        * ``coefficient`` (a key of ``SGD_COEFFICIENTS``) and its
          parameters ``params``: the fields of its unit, in order (floats).
        * ``n_others`` (int): the points a point of the map is compared
          with, ``N - 1`` (a fit; the ``N`` training points when placing
          new points, as the exact transform), for a unit whose coefficients
          depend on it.
        * ``scheme``: ``"epochs_per_sample"`` (umap-learn's bookkeeping),
          ``"alias"`` (``samples_per_epoch`` edges drawn from the alias
          table) or ``"every_edge"`` (every edge once per epoch).
        * ``noise``: ``"uniform"`` (all points), ``"uniform_others"`` (the
          points other than the head), ``"degree"`` (the alias table) or
          ``"reference"`` (uniformly over the frozen rows ``n_free <= k < n``).
        * ``n_free`` (int): rows ``0 <= i < n_free`` move; the rows from
          ``n_free`` on are a frozen reference that no step moves (a tail
          or negative there stays put).  ``n_free >= n_samples``: every
          row moves (the fit).
        * ``edge_key`` (int64, ``(n_edges,)`` or ``(0,)``): the "edge" part
          of each edge's random key (schemes ``"epochs_per_sample"`` and
          ``"every_edge"``); empty: the edge's index.  A key that depends
          on the edge's own identity makes its draws independent of the
          other edges in the problem (placing new points).
        * ``clip`` (float): the bound of each clipped component;
          ``clip_after_step`` (bool): clip :math:`\alpha_e c (y_i - y_k)`
          instead of :math:`c (y_i - y_k)`.
        * ``move_negatives`` (bool): negatives move opposite to the head;
          ``defer_head`` (bool): the head's moves are summed and applied
          after its negatives (LargeVis); ``skip_tail`` (bool): a negative
          equal to the positive's tail is skipped (LargeVis).
        * ``samples_per_epoch`` (int): positive samples per epoch of scheme
          ``"alias"``.
    Y : ndarray of float64, shape (n_samples, n_components)
        Coordinates, updated in place.
    seed : int
        Key of the counter-based generator.
    epoch_start, epoch_end : int
        Epochs to run (0-based, ``epoch_end <= n_epochs``).
    n_threads : int
        The schedule's thread count ``T`` (the loops below run it in
        order, on one thread).  ``T = 1``: the items of an epoch run in
        order, in place.  ``T > 1``: in each epoch, "thread" ``t`` runs
        items ``t n / T <= e < (t + 1) n / T`` in order on its own copy
        :math:`Y^{(t)}` of the epoch's starting :math:`Y` (and of ``q``),
        then

        .. math::

            Y \leftarrow (\cdots((Y + (Y^{(0)} - Y)) + (Y^{(1)} - Y)) + \cdots)
                + (Y^{(T-1)} - Y)

        element by element, in that order.  The learned scalar ``q`` takes
        the mean of the copies' changes instead,
        :math:`q \leftarrow q + ((q^{(0)} - q) + \cdots + (q^{(T-1)} - q)) / T`:
        every sample updates it and it settles within an epoch, so each
        copy moves it most of the way to where one thread would, and the
        sum would overshoot ``T`` times (it diverges from ``T = 3``).
        Each row of ``Y`` moves a little per epoch and thread, and gets the
        sum, as a lock-free loop would give it.  The Cython twin runs the
        shares on ``T`` threads at once and gives the same bits.

    Notes
    -----
    Random draws are keyed ``(seed, epoch, e, d)``: ``e`` is the edge
    (schemes ``"epochs_per_sample"`` and ``"every_edge"``; its
    ``edge_key`` when there are edge keys) or the sample
    number within the epoch (``"alias"``); ``"alias"`` draws its edge with
    ``d = 0, 1`` and negative ``p`` with ``d = 2 + 2p, 3 + 2p``; the other
    schemes draw negative ``p`` with ``d = 2p, 2p + 1``.
    """
    _coefficient_unit(problem)  # a known coefficient, or a clear error
    if problem.scheme not in SGD_SCHEMES or problem.noise not in ENGINE_NOISES:
        raise ValueError(f"unknown SGD scheme or noise: {problem.scheme!r}, {problem.noise!r}")
    pr = problem
    grouped = _is_grouped(pr)
    head, tail, q_offset = pr.head, pr.tail, pr.q_offset
    n = Y.shape[0]
    n_free = min(int(pr.n_free), n)

    def step(Y, i, k, c, alpha, acc, move_other):
        """Move ``i`` along ``c (y_i - y_k)`` (or add to ``acc``), ``k`` the other way."""
        for d in range(Y.shape[1]):
            g = c * (Y[i, d] - Y[k, d])
            s = (_clip(alpha * g, pr.clip) if pr.clip_after_step
                 else alpha * _clip(g, pr.clip))
            if acc is None:
                Y[i, d] += s
            else:
                acc[d] += s
            if move_other:
                Y[k, d] -= s

    def draw_negative(words, p, i):
        """Negative ``p`` of a sample with head ``i``, from its words."""
        if pr.noise == "degree":
            return _alias_draw(words[2 * p], words[2 * p + 1], pr.noise_prob, pr.noise_alias)
        if pr.noise == "uniform_others":
            neg = int(_randint(words[2 * p], n - 1))
            return neg + (neg >= i)
        if pr.noise == "reference":
            return n_free + int(_randint(words[2 * p], n - n_free))
        return int(_randint(words[2 * p], n))

    def grouped_sample(Y, epoch, i, j, key, first_draw, m, epoch_unit):
        """One positive edge (i, j) and its ``m`` negatives in one grouped step.

        Every difference and distance is taken at the current ``Y``, the
        coefficients of the whole sample are computed, then the steps are
        applied in draw order (the positive first): the sample's update is
        the clipped descent on its loss at one point.
        """
        alpha = pr.alphas[epoch]
        words = _absorb(key, np.arange(first_draw, first_draw + 2 * m, dtype=np.int64))
        others = [j] + [draw_negative(words, p, i) for p in range(m)]
        diffs = [Y[i] - Y[k] for k in others]
        d2 = np.array([float(np.sum(diff ** 2)) for diff in diffs])
        c_a, c_r = epoch_unit.sgd_group(float(d2[0]), d2[1:])
        moves = [j < n_free] + [pr.move_negatives and k < n_free for k in others[1:]]
        for k, c, diff, move in zip(others, [c_a, *c_r], diffs, moves):
            for d in range(Y.shape[1]):
                g = c * diff[d]
                s = (_clip(alpha * g, pr.clip) if pr.clip_after_step
                     else alpha * _clip(g, pr.clip))
                Y[i, d] += s
                if move:
                    Y[k, d] -= s

    def sample(Y, q, epoch, i, j, key, first_draw, m, epoch_unit):
        """One positive edge (i, j) and its ``m`` negatives."""
        if grouped:
            grouped_sample(Y, epoch, i, j, key, first_draw, m, epoch_unit)
            return
        alpha = pr.alphas[epoch]
        acc = np.zeros(Y.shape[1]) if pr.defer_head else None
        qi = q[0] + q_offset[i] if len(q_offset) else q[0]
        c, dq = epoch_unit.sgd_attract(float(np.sum((Y[i] - Y[j]) ** 2)), qi)
        step(Y, i, j, c, alpha, acc, j < n_free)
        if pr.q_learning_rate != 0.0:
            q[0] += pr.q_learning_rate * dq
        words = _absorb(key, np.arange(first_draw, first_draw + 2 * m, dtype=np.int64))
        for p in range(m):
            neg = draw_negative(words, p, i)
            if pr.skip_tail and neg == j:
                continue
            d2 = float(np.sum((Y[i] - Y[neg]) ** 2))
            if d2 <= 0.0:
                continue
            qi = q[0] + q_offset[i] if len(q_offset) else q[0]
            c, dq = epoch_unit.sgd_repel(d2, qi)
            step(Y, i, neg, c, alpha, acc, pr.move_negatives and neg < n_free)
            if pr.q_learning_rate != 0.0:
                q[0] += pr.q_learning_rate * dq
        if acc is not None:
            Y[i] += acc

    def run_items(Y, q, epoch, lo, hi):
        """Items ``lo <= e < hi`` of an epoch, in order, in place on ``Y`` and ``q``."""
        n_noise = int(pr.n_noise[epoch])
        # the epoch's noise count is NCVis's nu
        epoch_unit = _epoch_unit(pr, n_noise)
        if pr.scheme == "alias":
            keys = _edge_key(seed, epoch, np.arange(lo, hi, dtype=np.int64))
            for s in range(lo, hi):
                words = _absorb(keys[s - lo], np.array([0, 1], dtype=np.int64))
                e = _alias_draw(words[0], words[1], pr.edge_weight, pr.edge_alias)
                i = int(np.searchsorted(pr.indptr, e, side="right")) - 1  # e's row
                sample(Y, q, epoch, i, tail[e], keys[s - lo], 2, n_noise, epoch_unit)
            return
        ids = pr.edge_key if len(pr.edge_key) else np.arange(len(tail), dtype=np.int64)
        keys = _edge_key(seed, epoch, ids[lo:hi])
        for e in range(lo, hi):
            if pr.scheme == "every_edge":
                sample(Y, q, epoch, head[e], tail[e], keys[e - lo], 0, n_noise, epoch_unit)
                continue
            # umap-learn: edge e is due every edge_weight[e] epochs; its
            # negatives are due n_noise times as often.
            state = pr.state
            if state[0, e] > epoch + 1:
                continue
            state[0, e] += pr.edge_weight[e]
            per_negative = pr.edge_weight[e] / n_noise
            m = int((epoch + 1 - state[1, e]) / per_negative)
            state[1, e] += m * per_negative
            # a grouped step's loss is defined with the epoch's count of negatives
            sample(Y, q, epoch, head[e], tail[e], keys[e - lo], 0, n_noise if grouped else m,
                   epoch_unit)

    n_items = pr.samples_per_epoch if pr.scheme == "alias" else len(tail)
    n_threads = max(1, int(n_threads))
    for epoch in range(epoch_start, epoch_end):
        if n_threads == 1:
            run_items(Y, pr.q, epoch, 0, n_items)
            continue
        # several threads: each runs its share on its own copy of Y and q
        # (seeing its own updates at once), then the changes are added in
        # thread order
        copies = []
        for t in range(n_threads):
            Y_t, q_t = Y.copy(), pr.q.copy()
            run_items(Y_t, q_t, epoch, t * n_items // n_threads,
                      (t + 1) * n_items // n_threads)
            copies.append((Y_t, q_t))
        Y_old, q_old = Y.copy(), pr.q.copy()
        q_change = np.zeros_like(q_old)
        for Y_t, q_t in copies:
            Y += Y_t - Y_old
            q_change += q_t - q_old
        pr.q[...] = q_old + q_change / n_threads

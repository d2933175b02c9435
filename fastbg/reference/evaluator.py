"""The second evaluator: a contact net, a race net and optionally a crashed net, by position class.

Pure-Python mirror of ``fastbg._core.evaluator``; the specification is
``docs/evaluator.md``. A position (row 0 on roll, before its roll) of class ``bearoff`` is
read from the one-sided bear-off database (:mod:`fastbg.reference.bearoffdb`), of class
``race`` with at most :data:`fastbg.reference.racedb.RACE_MAX` checkers a side from the
small-race database (:mod:`fastbg.reference.racedb`), other races by the race net on
:func:`fastbg.reference.features.race_inputs`, and of class
``contact`` by the contact net on :func:`fastbg.reference.features.contact_inputs` (by the
crashed net, on the same inputs, if the nets have one and the position is crashed,
:func:`fastbg.reference.features.is_crashed`); the
raw outputs are made consistent as the first network's are
(:func:`fastbg.reference.nn.consistent`).

**In integers, as the first network.** :func:`quantize_net` turns a net into per-point
tables (the 4 point units of each index, and for the race net its crossovers and pip
count, which are linear in the checkers of a point), per-count tables of the checkers off
(the race net's one-hot units), and for the contact net one int32 row per feature
numerator: the hidden pre-activations are exact integer sums, which the core may compute
incrementally and in any order. The hidden sigmoid and the output layer are those of
:func:`fastbg.reference.nn.quantize` (the same tables and rounding rules).

Reproducibility
---------------
Both engines compute bitwise equal probabilities, choose the same plays and play the same
games for the same bit generator state.
"""
from __future__ import annotations

import numpy as np

from . import bearoffdb
from . import racedb
from ..spec import luck as _luck
from .movegen import legal_plays
from .board import is_race, validate_board
from .eval import pubeval_score
from . import features as F
from ..spec.nets import (  # noqa: F401  (the spec's names, also the reference's)
    ALL_KINDS, BLOT_FEATURE_MAX, BLOT_TOP, CONTACT_KINDS, DATA_DIR, EXTRA_FEATURE_MAX,
    FEATURE_MAX, INPUT_WIDTHS, KINDS, MAX_PLAYS, MAX_RANKED, N_BLOT_INPUTS, N_INPUTS, NETS_META,
    NETS_NAME, OPTIONAL_KINDS, check_decision, check_net, check_nets, default_nets, hidden_label,
    load_nets, nets_path, quantize_net, reads_blots, save_nets)
from ..spec.nply import check_ply, filter_arrays, survivors, move_filter as nply_move_filter
from ..spec.nn import H_MAXV, H_OFFSET, H_SHIFT, NN_OUTPUTS, hidden_table
from .nn import consistent, equity, sigmoid

__all__ = ["KINDS", "OPTIONAL_KINDS", "ALL_KINDS", "N_INPUTS", "INPUT_WIDTHS", "check_net", "check_nets", "quantize_net", "forward", "forward_q",
           "probabilities", "load_nets", "save_nets", "nets_path", "default_nets",
           "EvalPolicy", "EvalPolicy1Ply", "EvalPolicyNPly", "MEMO_MAX"]


def _pre_q(q: dict, boards: np.ndarray, side1_blots: bool = True) -> np.ndarray:
    """Integer hidden pre-activations, int64 (n, nh); side 1's blot numerators taken as 0
    unless ``side1_blots`` (the blot rule's first pass, :meth:`EvalPolicy.ranking`)."""
    b = boards.astype(np.int64)
    pre = np.repeat(q["bias"][None, :].astype(np.int64), b.shape[0], axis=0)
    idx = np.arange(25)
    for s in range(2):
        pre += q["point"][s, idx[None, :], b[:, s, :]].astype(np.int64).sum(axis=1)
        pre += q["off"][s, 15 - b[:, s, :].sum(axis=1)]
    rows = q["feat"].shape[0]
    if rows:
        blots = reads_blots(196 + rows)
        nums = [F.contact_features(x).reshape(-1) for x in boards]
        if rows - (N_BLOT_INPUTS if blots else 0) > 2 * F.N_FEATURES:
            # a 252-input net reads the extra features too
            nums = [np.concatenate([v, F.extra_features(x).reshape(-1)]) for v, x in zip(nums, boards)]
        if blots:                       # a crashed net of 246 or 262 inputs: the blot features
            keep = np.array([1, side1_blots], dtype=np.int64)[:, None]
            nums = [np.concatenate([v, (F.blot_features(x) * keep).reshape(-1)])
                    for v, x in zip(nums, boards)]
        pre += np.array(nums, dtype=np.int64).reshape(-1, rows) @ q["feat"].astype(np.int64)
    return pre


def forward_q(q: dict, boards, side1_blots: bool = True) -> np.ndarray:
    """Raw outputs of a quantized net (:func:`quantize_net`), float64 (n, 5).

    Bitwise equal to the core's (``fastbg._core.evaluator``). ``side1_blots=False``: a
    blot-reading net's side-1 blot inputs taken as 0 (the blot rule's first pass).
    """
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    v = np.clip(_pre_q(q, b, side1_blots) + H_OFFSET, 0, H_MAXV) >> H_SHIFT
    h = hidden_table()[v].astype(np.int64)
    acc = h @ q["w2"].astype(np.int64).T + q["b2"].astype(np.int64)[None, :]
    return sigmoid(acc.astype(np.float64) * q["out_scale"])


def forward(weights: dict, kind: str, boards) -> np.ndarray:
    """Raw outputs of the float net (as in training), float64 (n, 5)."""
    w = check_net(weights, kind)
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    x = F.contact_inputs_many(b) if kind in CONTACT_KINDS else F.race_inputs_many(b)
    n_in = w["w1"].shape[0]
    if kind in CONTACT_KINDS and reads_blots(n_in):      # the blot features, N / D
        blots = np.array([F.blot_features(v).reshape(-1) for v in b], dtype=np.float64)
        x = np.concatenate([x[:, :n_in - N_BLOT_INPUTS],
                            blots / np.tile(F.BLOT_FEATURE_DENOMINATORS, 2)], axis=1)
    x = x[:, :n_in]     # a 236-input contact net reads the first 236
    h = 1.0 / (1.0 + np.exp(-(x @ w["w1"] + w["b1"])))
    return 1.0 / (1.0 + np.exp(-(h @ w["w2"].T + w["b2"])))


def probabilities(qnets: dict, boards, side1_blots: bool = True) -> np.ndarray:
    """The evaluator's five probabilities of each board (row 0 on roll, before its roll).

    Parameters
    ----------
    qnets : dict
        ``{"contact": quantized net, "race": quantized net}`` (:func:`quantize_net`), and
        optionally ``"crashed"``: then the crashed contact positions
        (:func:`fastbg.reference.features.is_crashed`) are read by it.
    boards : array_like of int, shape (2, 25) or (n, 2, 25)
        Games not over.
    side1_blots : bool, default True
        False: a blot-reading crashed net reads side 1's blot inputs as 0 (the first
        pass of the blot rule, :meth:`EvalPolicy.ranking`, where side 1 has just moved).

    Returns
    -------
    numpy.ndarray of float64, shape (5,) or (n, 5)
    """
    single = np.asarray(boards).ndim == 2
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    p = np.zeros((b.shape[0], NN_OUTPUTS))
    cls = np.array([F.position_class(x) for x in b])
    if (cls == "over").any():
        raise ValueError("a game that is over has no evaluation")
    for i in np.flatnonzero(cls == "bearoff"):
        p[i] = bearoffdb.bearoff_probabilities(b[i])
    small = np.array([c == "race" and racedb.is_small_race(x) for c, x in zip(cls, b)], dtype=bool)
    for i in np.flatnonzero(small):
        p[i] = racedb.race_probabilities(b[i])
    if "crashed" in qnets and (cls == "contact").any():
        cls[(cls == "contact") & F.is_crashed(b)] = "crashed"
    for kind in qnets:
        rows = np.flatnonzero((cls == kind) & ~small)
        if len(rows):
            p[rows] = consistent(b[rows], forward_q(qnets[kind], b[rows], side1_blots))
    return p[0] if single else p


def _before(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether board ``a`` comes before ``b`` in the canonical (lexicographic) order."""
    d = np.flatnonzero(a.reshape(-1) != b.reshape(-1))
    return bool(len(d)) and int(a.reshape(-1)[d[0]]) < int(b.reshape(-1)[d[0]])


class EvalPolicy:
    """0-ply checker play by the second evaluator: the play of highest mover's equity
    (under the blot rule when the crashed net reads the blot inputs, :meth:`ranking`).

    Parameters
    ----------
    nets : dict, optional
        ``{"contact": w, "race": w}`` and optionally ``"crashed": w`` (float weights,
        :func:`check_nets`); default :func:`default_nets`.
    """

    name = "nn"

    def __init__(self, nets: dict | None = None):
        nets = check_nets(default_nets() if nets is None else nets)
        self.q = {kind: quantize_net(w, kind) for kind, w in nets.items()}
        #: Whether the blot rule ranks the plays (a crashed net that reads the blot inputs).
        self.blot_rule = "crashed" in nets and reads_blots(nets["crashed"]["w1"].shape[0])

    def probabilities(self, board) -> np.ndarray:
        """The five probabilities of a position (row 0 on roll, before its roll); a bad
        board refused by :func:`~fastbg.reference.board.validate_board`, as the core does."""
        return probabilities(self.q, validate_board(board))

    def play_equities(self, before, plays, mover_blots: bool = True) -> np.ndarray:
        """The mover's cubeless equity after each play (mover in row 0, not swapped);
        ``mover_blots=False``: the mover's blot inputs taken as 0 (the blot rule's first
        pass). ``before`` and ``plays`` as in :meth:`ranking` (:func:`check_decision`):
        the reference evaluates each play whole and reads ``before`` only to check it."""
        plays = check_decision(before, plays)[1]
        return self._play_equities(plays, mover_blots)

    def _play_equities(self, plays: np.ndarray, mover_blots: bool = True) -> np.ndarray:
        """:meth:`play_equities` of checked plays."""
        out = np.empty(len(plays))
        over = ~plays[:, 0].any(axis=1)
        for i in np.flatnonzero(over):
            loser = plays[i, 1]
            out[i] = 1.0 if loser.sum() < 15 else (3.0 if loser[18:].any() else 2.0)
        live = np.flatnonzero(~over)
        if len(live):
            p = probabilities(self.q, plays[live, ::-1], mover_blots)
            out[live] = -equity(p)   # the core's equity5, operation for operation
        return out

    def ranking(self, before, plays, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The first ``k`` plays of the decision's 0-ply ranking and their equities.

        Without a blot-reading crashed net, the plays by :meth:`play_equities`, best
        first, ties to the canonically first. With one, the blot rule
        (``docs/evaluator.md``, "The blot rule"): when there are more than
        :data:`BLOT_TOP` plays, each is valued with its mover's blot inputs taken as 0
        (a first pass, which spares the core a search of the mover's bear-off for most
        plays), the :data:`BLOT_TOP` best of those are valued in full and ranked first by
        that value, and the others follow in the first pass's order. The 0-ply choice is
        the first play, everywhere the evaluator chooses one (``choose``, the look-aheads,
        the 1-ply policy and the luck of variance reduction).

        Parameters
        ----------
        before : array_like of int, shape (2, 25)
            The position before the roll (mover in row 0), or any of its plays.
        plays : array_like of int, shape (n, 2, 25)
            Its legal plays for one roll, 1 <= n <= 4096 (any order: ties go to the
            canonically first play, :func:`fastbg.reference.movegen.legal_plays`' order).
        k : int, default 1
            1..64.

        Returns
        -------
        order : numpy.ndarray of int64, shape (min(n, k),)
            Indices into ``plays``, the 0-ply choice first.
        values : numpy.ndarray of float64, shape (min(n, k),)
            Their mover's cubeless equities: exact for the first :data:`BLOT_TOP`, the
            first pass's after them.

        Raises
        ------
        ValueError, TypeError
            As :func:`check_decision`: a malformed board or play, no plays, a play whose
            opponent has not ``before``'s checker count, ``k`` outside 1..64 (TypeError: not
            an int). Plays that are not legal from ``before`` but keep that count are
            valued as given (the engines do not generate the roll's plays to check).
        """
        before, plays, k = check_decision(before, plays, k)
        rule = self.blot_rule and len(plays) > BLOT_TOP
        v = self._play_equities(plays, mover_blots=not rule)

        def best_first(rows):   # ties to the canonically first board, then the first given
            return sorted(rows, key=lambda j: (-v[j], plays[j].tobytes(), j))
        order = np.array(best_first(range(len(plays)))[: max(k, BLOT_TOP)], dtype=np.int64)
        if rule:
            top = order[:BLOT_TOP]
            v[top] = self._play_equities(plays[top])
            order[:BLOT_TOP] = best_first(top)
        order = order[:k]
        return order, v[order]

    def choose(self, board_before, plays, bitgen=None) -> int:
        """Index of the 0-ply choice (:meth:`ranking`'s first play)."""
        return int(self.ranking(board_before, plays)[0][0])

    # ------------------------------------------------------------- lookahead (labels)

    def after_probs(self, play) -> np.ndarray:
        """The mover's probabilities after its play (mover in row 0, rows not swapped)."""
        play = np.asarray(play, dtype=np.int8)
        if not play[0].any():
            loser = play[1]
            gammon = loser.sum() == 15
            return np.array([1.0, float(gammon), float(gammon and loser[18:].any()), 0.0, 0.0])
        return _luck.flip(probabilities(self.q, play[::-1]))

    def roll_values(self, pos, prefilter: int = 0) -> np.ndarray:
        """The mover's probabilities after its best 0-ply play for each of the 21 rolls.

        Parameters
        ----------
        pos : numpy.ndarray of int8, shape (2, 25)
            Row 0 on roll, before its roll; the game not over.
        prefilter : int, default 0
            0: the best of every play; ``k >= 1``: the best of the ``k`` best plays by
            pubeval's score for ``pos`` (ties canonical), a cheaper yardstick for luck.

        Returns
        -------
        numpy.ndarray of float64, shape (21, 5)
            Row ``s`` for the roll ``d1-d2`` with ``d1 = 1..6``, ``d2 = 1..d1`` in that order
            (``s = d1 (d1 - 1) / 2 + d2 - 1``): :meth:`after_probs` of the 0-ply choice
            (:meth:`ranking`), of ``pos`` itself when the roll has no play. The
            values of the 1-ply look-ahead and of variance reduction
            (:mod:`fastbg.spec.luck`); the core's ``roll_values``, bit for bit.
        """
        k = min(int(prefilter), 64)
        race = is_race(pos) if k >= 1 else False
        v = np.empty((21, NN_OUTPUTS))
        s = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                plays = legal_plays(pos, d1, d2)
                if len(plays) == 0:
                    v[s] = self.after_probs(pos)
                else:
                    if 1 <= k < len(plays):
                        score = [pubeval_score(p, race) for p in plays]
                        order = sorted(range(len(plays)), key=lambda j: -score[j])[:k]  # stable
                        plays = plays[sorted(order)]    # canonical order among the k kept
                    v[s] = self.after_probs(plays[int(self.ranking(pos, plays)[0][0])])
                s += 1
        return v

    def _ply1(self, pos) -> np.ndarray:
        v = self.roll_values(pos)
        acc = np.zeros(NN_OUTPUTS)
        s = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                acc = acc + (1.0 if d1 == d2 else 2.0) * v[s]
                s += 1
        return acc / 36.0

    def _ply2(self, pos, cands: int) -> np.ndarray:
        acc = np.zeros(NN_OUTPUTS)
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                plays = legal_plays(pos, d1, d2)
                if len(plays) == 0:
                    best_q = _luck.flip(self._ply1(pos[::-1]))
                else:
                    order = self.ranking(pos, plays, cands)[0]
                    best_q, best_e, best_c = None, 0.0, None
                    for j in order:
                        c = plays[j]
                        q = self.after_probs(c) if not c[0].any() else _luck.flip(self._ply1(c[::-1]))
                        e = float(equity(q))
                        if best_q is None or e > best_e or (e == best_e and _before(c, best_c)):
                            best_q, best_e, best_c = q, e, c
                acc = acc + (1.0 if d1 == d2 else 2.0) * best_q
        return acc / 36.0

    def lookahead(self, boards, plies: int = 1, candidates: int = 4) -> np.ndarray:
        """The 0-, 1- or 2-ply probabilities of positions (the core's, bit for bit).

        Parameters
        ----------
        boards : array_like of int, shape (n, 2, 25)
        plies : {0, 1, 2}
        candidates : int
            The 0-ply best plays of a roll that the 2-ply look-ahead values at 1 ply.

        Returns
        -------
        numpy.ndarray of float64, shape (n, 5)
        """
        b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        if plies not in (0, 1, 2):
            raise ValueError(f"plies must be 0, 1 or 2, got {plies!r}")
        if plies == 0:
            return probabilities(self.q, b).reshape(-1, NN_OUTPUTS)
        f = self._ply1 if plies == 1 else (lambda x: self._ply2(x, candidates))
        return np.array([f(np.ascontiguousarray(x)) for x in b]).reshape(-1, NN_OUTPUTS)

    # ------------------------------------------------------------- n-ply (GNU's plies)

    def _nply(self, pos: np.ndarray, ply: int, memo: dict) -> np.ndarray:
        """``pos``'s probabilities at ``ply`` (row 0 on roll, game not over): 0 ply the
        evaluator's; n ply the mean over the 21 rolls of :meth:`_after_nply` at n - 1 of
        the roll's 0-ply choice (of ``pos`` itself when the roll has no play). ``memo``
        holds the values at 1 ply and more of this call (the core's cache: same numbers)."""
        if ply == 0:
            return probabilities(self.q, pos)
        key = (pos.tobytes(), ply)
        if key in memo:
            return memo[key]
        acc = np.zeros(NN_OUTPUTS)
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                plays = legal_plays(pos, d1, d2)
                src = pos if len(plays) == 0 else plays[int(self.ranking(pos, plays)[0][0])]
                acc = acc + (1.0 if d1 == d2 else 2.0) * self._after_nply(src, ply - 1, memo)
        out = acc / 36.0
        memo[key] = out
        return out

    def _after_nply(self, play: np.ndarray, ply: int, memo: dict) -> np.ndarray:
        """The mover's probabilities after its play (not swapped) at ``ply``: exact if it
        bore off its last checker."""
        if ply == 0 or not play[0].any():
            return self.after_probs(play)
        return _luck.flip(self._nply(np.ascontiguousarray(play[::-1]), ply, memo))

    def nply_probabilities(self, boards, ply: int = 1) -> np.ndarray:
        """The probabilities of positions at n ply (GNU Backgammon's plies,
        :mod:`fastbg.spec.nply`); the core's, bit for bit.

        Parameters
        ----------
        boards : array_like of int, shape (2, 25) or (n, 2, 25)
            Row 0 on roll, before its roll; games not over.
        ply : int, default 1
            0..3: 0 is the evaluator's value; n is the mean over the 21 rolls (weight 1 a
            double, 2 else, in the order d1 = 1..6, d2 = 1..d1, then / 36) of the (n-1)-ply
            value, flipped to the roller's side, after the roll's 0-ply choice
            (:meth:`ranking`'s first play); a roll without a play leaves the position as
            it is; a play bearing off the last checker counts its exact result.

        Returns
        -------
        numpy.ndarray of float64, shape (n, 5)
            The side on roll's five probabilities.

        Raises
        ------
        ValueError
            For a bad board, a finished game or a ply outside 0..3.
        """
        ply = check_ply(ply)
        b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        out = np.zeros((len(b), NN_OUTPUTS))
        memo: dict = {}
        for i, x in enumerate(b):
            x = validate_board(x)
            if not x[0].any() or not x[1].any():
                raise ValueError(f"board {i}: the game is over")
            out[i] = self._nply(np.ascontiguousarray(x), ply, memo)
        return out

    def rank_nply(self, before, plays, ply: int = 1, move_filter=None):
        """The plays of a roll ranked at n ply through a move filter; the core's, bit for bit.

        Every play is valued at 0 ply (:meth:`after_probs`); then for each level ``L`` of
        the filter below ``ply`` (:func:`fastbg.spec.nply.survivors`) the plays valued at
        ``L`` ply are ranked and only the survivors go on; a skipped level values and
        prunes nothing. The last survivors are valued at ``ply``; once a level leaves a
        single play the ranking stops there (the choice is made; GNU Backgammon stops too),
        and that play keeps the value of the ply it reached.

        Parameters
        ----------
        before : array_like of int, shape (2, 25)
            The position before the roll (mover in row 0), as :meth:`ranking`'s.
        plays : array_like of int, shape (n, 2, 25)
            Its legal plays for one roll (mover in row 0, not swapped), 1 <= n <= 4096.
        ply : int, default 1
            0..3.
        move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
            Default :data:`fastbg.spec.nply.DEFAULT_FILTER` (GNU Backgammon's Normal).

        Returns
        -------
        order : numpy.ndarray of int64, shape (n,)
            The plays valued at ``ply`` best first, then those dropped by each level (the
            deepest level's first), each group best first by its own values; ties to the
            canonically first board, then the first given.
        probabilities : numpy.ndarray of float64, shape (n, 5)
            Row j: the mover's probabilities after play j at the ply ``plies[j]``.
        plies : numpy.ndarray of int64, shape (n,)
            The ply each play was last valued at.

        Raises
        ------
        ValueError, TypeError
            As :func:`check_decision`; a ply outside 0..3 or a malformed filter.
        """
        ply = check_ply(ply)
        before, plays, _ = check_decision(before, plays)
        return self._rank_nply(plays, ply, filter_arrays(move_filter, ply), {})

    def _rank_nply(self, plays: np.ndarray, ply: int, arrays, memo: dict):
        """:meth:`rank_nply` of checked plays, with the filter as
        :func:`~fastbg.spec.nply.filter_arrays` gives it and ``memo`` the values at 1 ply
        and more known so far (exact: any memo gives the same numbers)."""
        accept, extra, thr = arrays
        n = len(plays)
        probs = np.zeros((n, NN_OUTPUTS))
        plies = np.zeros(n, dtype=np.int64)
        value = [0.0] * n
        order = list(range(n))
        alive = n           # the survivors are order[:alive]; the dropped ones stay after
        for level in range(ply + 1):
            if level < ply and accept[level] < 0:
                continue    # a skipped level: no values, no pruning
            for j in order[:alive]:
                probs[j] = self._after_nply(plays[j], level, memo)
                value[j] = float(equity(probs[j]))
                plies[j] = level
            order[:alive] = sorted(order[:alive], key=lambda j: (-value[j], plays[j].tobytes(), j))
            if level == ply:
                break
            alive = survivors([value[j] for j in order[:alive]], int(accept[level]),
                              int(extra[level]), float(thr[level]))
            if alive == 1:
                break       # one play left: the choice is made (GNU Backgammon stops too)
        return np.array(order, dtype=np.int64), probs, plies

    def roll_values_nply(self, pos, ply: int = 1, move_filter=None, memo: dict | None = None):
        """:meth:`roll_values` at n ply: the yardstick of luck at n ply; the core's, bit for
        bit.

        Parameters
        ----------
        pos : numpy.ndarray of int8, shape (2, 25)
            Row 0 on roll, before its roll; the game not over.
        ply : int, default 1
            0..3 (0: the best 0-ply play, valued at 0 ply, as :meth:`roll_values`).
        move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
            The filter of each roll's ranking (default GNU Backgammon's Normal).
        memo : dict, optional
            Values at 1 ply and more already known (exact; kept across calls by a caller
            that values many positions).

        Returns
        -------
        numpy.ndarray of float64, shape (21, 5)
            Row ``s`` for the roll ``d1-d2`` (``d1 = 1..6``, ``d2 = 1..d1``): the mover's
            probabilities at ``ply`` after the roll's best play by :meth:`rank_nply` (the
            only play when there is one; valued at ``ply`` even where a filter level left
            it alone earlier), after ``pos`` itself when the roll has no play.
        """
        ply = check_ply(ply)
        arrays = filter_arrays(move_filter, ply)
        memo = {} if memo is None else memo
        pos = np.ascontiguousarray(pos, dtype=np.int8)
        v = np.empty((21, NN_OUTPUTS))
        s = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                plays = legal_plays(pos, d1, d2)
                if len(plays) == 0:
                    v[s] = self._after_nply(pos, ply, memo)
                elif len(plays) == 1:
                    v[s] = self._after_nply(plays[0], ply, memo)
                else:
                    order, probs, plies = self._rank_nply(plays, ply, arrays, memo)
                    j = int(order[0])
                    v[s] = probs[j] if plies[j] == ply else self._after_nply(plays[j], ply, memo)
                s += 1
        return v

    def __repr__(self) -> str:
        return f"EvalPolicy({hidden_label(self.q)})"


class EvalPolicy1Ply(EvalPolicy):
    """1-ply checker play by the second evaluator (mirror of the core's).

    Parameters
    ----------
    nets : dict, optional
        As :class:`EvalPolicy`.
    candidates : int, default 8
        Plays kept from the 0-ply ranking (best first, ties canonical), 1..64.
    """

    name = "nn-1ply"

    def __init__(self, nets: dict | None = None, candidates: int = 8):
        super().__init__(nets)
        if not 1 <= candidates <= 64:
            raise ValueError(f"candidates must be in 1..64, got {candidates}")
        self.candidates = candidates

    def reply_value(self, after) -> float:
        """The mover's 1-ply equity after its play (rows not swapped)."""
        after = np.asarray(after, dtype=np.int8)
        if not after[0].any():
            loser = after[1]
            return 1.0 if loser.sum() < 15 else (3.0 if loser[18:].any() else 2.0)
        opp = np.ascontiguousarray(after[::-1])
        acc = 0.0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                replies = legal_plays(opp, d1, d2)
                if len(replies) == 0:
                    best = float(self.play_equities(opp, opp[None])[0])
                else:
                    best = float(self.ranking(opp, replies)[1][0])
                acc = acc + (1.0 if d1 == d2 else 2.0) * best
        return -(acc / 36.0)

    def play_values(self, plays) -> np.ndarray:
        """1-ply values of plays (mover's equity; no candidate filter)."""
        return np.array([self.reply_value(p) for p in np.asarray(plays, dtype=np.int8).reshape(-1, 2, 25)])

    def choose(self, board_before, plays, bitgen=None) -> int:
        cand = self.ranking(board_before, plays, self.candidates)[0]
        values = [self.reply_value(plays[j]) for j in cand]
        best = int(np.argmax(values))      # ties: the earlier candidate, canonical among equals
        for k, v in enumerate(values):     # equal values: the canonically first play
            if v == values[best] and _before(plays[cand[k]], plays[cand[best]]):
                best = k
        return int(cand[best])


#: Entries of :class:`EvalPolicyNPly`'s memo at most: it is emptied when full (the core's
#: cache is direct-mapped and overwrites; neither changes a number).
MEMO_MAX = 200_000


class EvalPolicyNPly(EvalPolicy):
    """Checker play at n ply through a move filter (mirror of the core's): the first play
    of :meth:`EvalPolicy.rank_nply`.

    Parameters
    ----------
    nets : dict, optional
        As :class:`EvalPolicy`.
    ply : int, default 1
        0..3.
    move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
        Default :data:`fastbg.spec.nply.DEFAULT_FILTER` (GNU Backgammon's Normal).

    Notes
    -----
    Keeps the values it computed at 1 ply and more across decisions (exact: the choices
    are those of a fresh :meth:`~EvalPolicy.rank_nply` each time).
    """

    name = "nn"

    def __init__(self, nets: dict | None = None, ply: int = 1, move_filter=None):
        super().__init__(nets)
        self.ply = check_ply(ply)
        self.move_filter = nply_move_filter(move_filter)
        self._arrays = filter_arrays(self.move_filter, self.ply)
        self._memo: dict = {}

    def choose(self, board_before, plays, bitgen=None) -> int:
        """Index of the best play at :attr:`ply` (:meth:`~EvalPolicy.rank_nply`'s first)."""
        plays = check_decision(board_before, plays)[1]
        if len(self._memo) > MEMO_MAX:
            self._memo.clear()
        return int(self._rank_nply(plays, self.ply, self._arrays, self._memo)[0][0])

    def __repr__(self) -> str:
        return (f"EvalPolicyNPly({hidden_label(self.q)}, ply={self.ply}, "
                f"move_filter={self.move_filter.describe(self.ply)!r})")

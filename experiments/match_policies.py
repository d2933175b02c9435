"""Play policy A against policy B with duplicate dice and report points per game.

Each dice sequence is played twice with the sides exchanged: game 1 with A in row
0 of the start, game 2 with B there, both from the same dice bit generator state
(the dice stream carries only dice; the random policy draws from a separate
stream). The luck of the dice largely cancels within a pair, so the points per
game converge much faster than with independent games.

Score: cubeless money points for A (1, 2, 3 for a single game, gammon,
backgammon won; negative when lost), averaged per game. The 95% confidence
interval is Student's t over the per-pair means (pairs are independent; the two
games of a pair are not), from scipy.stats.

Opponents: ``random``, ``pubeval``, ``nn`` (the shipped network), a path to a
network checkpoint ``.npz`` (keys w1, b1, w2, b2, as experiments/train_td.py
writes them), ``nn2`` (the second evaluator, :class:`fastbg._core.evaluator.EvalPolicy`
with its shipped nets) or ``nn2:NETS.npz`` (nets saved by
:func:`fastbg.reference.evaluator.save_nets`, loaded by ``load_nets`` and passed as
``EvalPolicy(nets)``; with ``--engine python`` the pure-Python mirror
:class:`fastbg.reference.evaluator.EvalPolicy`). A spec whose module is not built
(or whose nets are missing) is skipped with a one-line message, exit status 0 (with
``--json``: an object with ``skipped``).

``gnubg`` is GNU Backgammon's 0-ply network through the ``gnubg-nn`` package,
which lives in the peers' venv ``experiments/.venv-peers`` (see
experiments/bench_peers.py; to create it alone: ``python -m venv
experiments/.venv-peers && experiments/.venv-peers/bin/pip install gnubg-nn``): a
worker process there receives each roll's legal plays (as fastbg computes them) and
returns the play whose position, with the turn passed, has the lowest 0-ply
cubeless equity for the opponent by ``gnubg_nn.probabilities(board, 0)``. Games
with gnubg run in a Python game loop over the core's move generator (same dice
contract, slower).

Luck adjustment (``--luck``, the default; ``--no-luck`` to skip it)
-------------------------------------------------------------------
Variance reduction as GNU Backgammon's and eXtreme Gammon's luck rating. A fixed
yardstick V, the shipped ``nn`` at 0 ply (the mover's cubeless equity after its best
play; exact 1, 2, 3 when a play ends the game; the one-sided bear-off database in pure
bear-offs), measures the luck of every roll before the side to move plays it::

    L = Vbest(r) - mean over the 36 rolls r' of Vbest(r')

where Vbest(r) is the mover's equity after the yardstick's best play for roll r (a
roll with no legal play: the position unchanged with the turn passed). The mean is
the compiled 1-ply kernel (``NN1PlyPolicy.play_values`` of the swapped position),
equal to the explicit loop over the 21 rolls with ``legal_plays`` and
``play_equities`` (``--selftest`` checks it). The opening roll's luck is Vbest(r)
minus the mean over the 30 non-double rolls; within a duplicate pair it cancels
exactly (both games open with the same roll, played by the side in row 0). A game's
luck is the sum of A's turns' luck minus B's (cubeless equity, A's point of view),
and its luck-adjusted result is ``points - luck``: the same expectation as the
points (each term has mean 0 given the position, whatever the yardstick), a much
smaller variance. Reported for both, per game over duplicate pairs: the mean, its
standard error and Student-t 95% interval; and ``variance_ratio``, Var(plain) /
Var(adjusted) over pairs with a bootstrap 95% interval: how many times fewer games
the adjusted figure needs for the same interval. The JSON records the method and the
yardstick (its weights' and file's SHA-256).

Measured (seed 1, 2,000 pairs each, nice 19 on the shared 2-core machine;
experiments/results/match_nn_*_luck.json and ``*_noluck.json``):

==================  ==========================  ==========================  ==============
match               plain ppg (95% CI)          adjusted ppg (95% CI)       variance ratio
==================  ==========================  ==========================  ==============
nn v pubeval        +0.454 (+0.414 .. +0.495)   +0.493 (+0.476 .. +0.509)   6.4 (5.9-7.0)
nn v gnubg          -0.127 (-0.165 .. -0.089)   -0.150 (-0.162 .. -0.138)   10.3 (9.4-11.3)
==================  ==========================  ==========================  ==============

Cost: luck needs the Python game loop and a 21-roll look-ahead before every turn,
about 5-6 ms a game by the yardstick (~55 turns). nn v pubeval: ~7 ms a game with
luck against ~0.2 ms in the compiled loop with ``--no-luck`` -- for the compiled
policies, playing 6.4 times more games with ``--no-luck`` is still cheaper in CPU.
nn v gnubg: ~16 ms a game with luck against ~9-14 ms without (the gnubg worker
dominates), so the adjusted figure is about 6-9 times cheaper for the same interval.

Usage::

    python experiments/match_policies.py nn pubeval --games 4000 --seed 1
    python experiments/match_policies.py nn gnubg --games 4000 --out experiments/results/match_nn_gnubg.json
    python experiments/match_policies.py nn pubeval --games 20000 --no-luck
    python experiments/match_policies.py nn2:experiments/runs/ev1/nets.npz nn --games 2000
    python experiments/match_policies.py experiments/runs/td1/best.npz pubeval --games 2000
    python experiments/match_policies.py --selftest [--pairs 1000] [--samples 20000] [--match A B]
    python experiments/match_policies.py --eval-agreement [GOLDEN.jsonl] [--net CHECKPOINT]

``--selftest`` checks, each able to fail: that the compiled 36-roll mean equals the
explicit one and the 36 rolls' luck sums to 0 (to 1e-9); that the luck of rolls drawn
as the game draws them over ~10,000 positions of seeded games (nn self-play, pubeval v
random, random v random) averages to 0 within 4 standard errors, while the same test
catches a wrong mean (the 21 rolls unweighted); that the Python loop plays the
compiled loop's games; that on a 1,000-pair nn v pubeval match the plain and adjusted
figures agree (overlapping intervals, and the per-pair luck's interval holds 0); that
the variance ratio exceeds 2; and that ``nn2:NETS.npz`` plays (a tiny made-up net, both
engines where built, the same games). Exit status 1 if any fails.

The last form reports the mean absolute difference of cubeless equity between
the shipped network and GNU Backgammon's 0-ply evaluation over the distinct
positions of ``../shared/golden/gnubg_moves.jsonl`` (issue 5's agreement target).

Reproducibility: pair ``k`` uses dice from
``PCG64DXSM(SeedSequence(seed, spawn_key=(k,)))``, so the same seed gives the same
dice and, for deterministic policies, the same result.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

import record  # experiments/record.py: command, date and commit of a result

POINTS = np.array([1, 2, 3, -1, -2, -3], dtype=np.int64)


HERE = Path(__file__).resolve().parent
PEER_PYTHON = HERE / ".venv-peers" / "bin" / "python"

_GNUBG_WORKER = r"""
import sys
import gnubg_nn as g
for line in sys.stdin:
    vals = [int(v) for v in line.split()]
    best, best_eq = 0, None
    for j in range(len(vals) // 50):
        b = vals[50 * j: 50 * j + 50]
        mover, opp = b[:25], b[25:]
        if sum(mover) == 0:
            best = j
            break
        # gnubg's board: [[side not on roll], [side on roll]]; after the play the
        # opponent is on roll.
        w, wg, wbg, lg, lbg = g.probabilities([mover, opp], 0)
        eq = (2 * w - 1) + (wg - lg) + (wbg - lbg)
        if best_eq is None or eq < best_eq:
            best, best_eq = j, eq
    sys.stdout.write(f"{best}\n")
    sys.stdout.flush()
"""


class GnubgPolicy:
    """GNU Backgammon's 0-ply network (gnubg-nn in experiments/.venv-peers), via a worker."""

    name = "gnubg"

    def __init__(self):
        import subprocess

        if not PEER_PYTHON.exists():
            raise FileNotFoundError(
                f"{PEER_PYTHON} not found: create the peers' venv with experiments/bench_peers.py"
            )
        self.proc = subprocess.Popen([str(PEER_PYTHON), "-c", _GNUBG_WORKER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def choose(self, board_before, plays, bitgen=None) -> int:
        arr = np.asarray(plays, dtype=np.int64).reshape(len(plays), 50)
        self.proc.stdin.write(" ".join(map(str, arr.ravel().tolist())) + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


ROLLS21 = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
#: Weight of each of the 21 rolls among the 36 (a double once, any other roll twice).
WEIGHTS21 = np.array([1.0 if d1 == d2 else 2.0 for d1, d2 in ROLLS21])

LUCK_METHOD = (
    "Variance reduction by luck adjustment (as GNU Backgammon's and eXtreme Gammon's luck "
    "rating). Yardstick V: the shipped nn at 0 ply (cubeless; exact 1/2/3 when a play ends "
    "the game; the one-sided bear-off database in pure bear-offs). Before each turn with "
    "roll r, the luck of the side to move is Vbest(r) - mean over the 36 rolls of Vbest(r'), "
    "Vbest(r) = the mover's equity after the yardstick's best play for r (no legal play: the "
    "position unchanged with the turn passed). The mean is computed by the compiled "
    "1-ply kernel (NN1PlyPolicy.play_values of the swapped position, equal to the explicit "
    "21-roll loop over legal_plays and play_equities, checked by --selftest). Opening roll: "
    "its luck is Vbest(r) minus the mean over the 30 non-double rolls (within a duplicate "
    "pair the opening luck cancels exactly: both games open with the same roll by the side "
    "in row 0). A game's luck = sum of A's turns' luck minus B's; adjusted result = points "
    "- luck (unbiased: each term has mean 0 given the position, whatever the yardstick). "
    "Intervals: Student's t over duplicate pairs.")


class Yardstick:
    """Luck of rolls measured by a fixed evaluator: the shipped ``nn`` at 0 ply.

    Parameters
    ----------
    net : fastbg._core.nn.Net, optional
        Default the shipped network (:func:`fastbg._core.nn.default_net`).

    Notes
    -----
    ``best(board, plays)`` is the mover's equity after the yardstick's best play (or the
    position unchanged with the turn passed if ``plays`` is empty); ``mean(board)`` is its
    average over the 36 rolls; ``luck(board, plays)`` their difference. ``mean`` is cached
    by position. The yardstick accumulates how many luck terms it computed, their sum and
    sum of squares and the seconds spent (``n``, ``s1``, ``s2``, ``seconds``).
    """

    def __init__(self, net=None):
        from fastbg import get_engine
        from fastbg._core import nn as core_nn

        self.net = core_nn.default_net() if net is None else net
        self.pol = core_nn.NNPolicy(self.net)
        self.ply1 = core_nn.NN1PlyPolicy(self.net, candidates=1)
        self.legal_plays = get_engine("cython").legal_plays
        self._cache: dict[bytes, float] = {}
        self._open_cache: dict[bytes, float] = {}
        self.n, self.s1, self.s2, self.seconds = 0, 0.0, 0.0, 0.0

    def identity(self) -> dict:
        """What the yardstick is: the network file, its SHA-256 and a checksum of the weights."""
        import hashlib

        from fastbg.reference.nn import sha256_file, weights_path

        h = hashlib.sha256()
        for k, v in sorted(self.net.weights().items()):
            h.update(k.encode())
            h.update(np.ascontiguousarray(v, dtype=np.float64).tobytes())
        out = {"evaluator": "fastbg nn, 0 ply (fastbg._core.nn.NNPolicy), cubeless equity",
               "weights_sha256": h.hexdigest(), "hidden": int(self.net.hidden)}
        if net_is_default(self.net):
            path = weights_path()
            # (the package may be installed from another checkout: then the absolute path)
            shown = path.relative_to(HERE.parent) if path.is_relative_to(HERE.parent) else path
            out.update(file=str(shown), file_sha256=sha256_file(path))
        return out

    def best(self, board, plays) -> float:
        """The mover's equity after the yardstick's best play of ``plays`` (mover in row 0)."""
        if len(plays) == 0:
            return float(self.pol.play_equities(board, np.asarray(board, dtype=np.int8)[None])[0])
        return float(self.pol.play_equities(board, plays).max())

    def mean(self, board) -> float:
        """Mean over the 36 rolls of :meth:`best` (compiled 1-ply kernel, cached)."""
        b = np.ascontiguousarray(board, dtype=np.int8)
        key = b.tobytes()
        m = self._cache.get(key)
        if m is None:
            if len(self._cache) > 500_000:
                self._cache.clear()
            m = self._cache[key] = -float(self.ply1.play_values(b[::-1][None])[0])
        return m

    def mean_explicit(self, board, rolls=ROLLS21, weights=WEIGHTS21) -> float:
        """Same as :meth:`mean` by the explicit loop over ``legal_plays`` (the check)."""
        v = [self.best(board, self.legal_plays(board, d1, d2)) for d1, d2 in rolls]
        return float(np.dot(weights, v) / weights.sum())

    def mean_opening(self, board) -> float:
        """Mean of :meth:`best` over the 30 non-double rolls (the opening roll)."""
        b = np.ascontiguousarray(board, dtype=np.int8)
        key = b.tobytes()
        m = self._open_cache.get(key)
        if m is None:
            m = self._open_cache[key] = self.mean_explicit(
                b, [r for r in ROLLS21 if r[0] != r[1]], np.ones(15))
        return m

    def luck(self, board, plays, opening: bool = False) -> float:
        """Luck of the roll whose legal plays are ``plays``, for the side to move (row 0)."""
        t = time.perf_counter()
        x = self.best(board, plays) - (self.mean_opening(board) if opening else self.mean(board))
        self.n += 1
        self.s1 += x
        self.s2 += x * x
        self.seconds += time.perf_counter() - t
        return x

    def turn_stats(self) -> dict:
        """Mean luck per turn (the mover's) and its standard error, over every term so far."""
        n = self.n
        mean = self.s1 / n if n else float("nan")
        sd = float(np.sqrt(max(self.s2 / n - mean * mean, 0.0) * n / (n - 1))) if n > 1 else float("nan")
        return {"turns": n, "mean_luck_per_turn": mean, "sd_luck_per_turn": sd,
                "stderr": sd / np.sqrt(n) if n > 1 else float("nan")}


def net_is_default(net) -> bool:
    from fastbg._core import nn as core_nn

    d = core_nn.default_net()
    return net is d or all(np.array_equal(v, d.weights()[k]) for k, v in net.weights().items())


def luck_match_game(board, dice_bitgen, choice_bitgen, policy_a, policy_b, yardstick=None):
    """One game (opening roll) in Python over the core's move generator; A in row 0.

    Same dice draws as :func:`fastbg._core.rollout.match_game`; any policy with
    ``choose(board, plays, bitgen)`` works (the core's policies too).

    Returns
    -------
    (int, float)
        Outcome class 0..5 from A's point of view, and A's luck over the game by
        ``yardstick`` (:class:`Yardstick`; 0.0 without one): the luck of A's turns minus
        that of B's.
    """
    from fastbg._core.movegen import legal_plays
    from fastbg.reference.board import outcome
    from fastbg.spec.dice import opening_roll, roll_index

    cur = np.array(board, dtype=np.int8)
    side = 0
    a, b = opening_roll(dice_bitgen)
    if a > b:
        d1, d2 = a, b
    else:
        cur, side, d1, d2 = cur[::-1].copy(), 1, b, a
    luck = 0.0
    first = True
    while True:
        pol = policy_a if side == 0 else policy_b
        plays = legal_plays(cur, d1, d2)
        n = len(plays)
        if yardstick is not None:
            x = yardstick.luck(cur, plays, opening=first)
            luck += x if side == 0 else -x
            first = False
        after = cur if n == 0 else plays[0] if n == 1 else plays[pol.choose(cur, plays, choice_bitgen)]
        if not after[0].any():
            won = outcome(after)
            return (won - 1 if side == 0 else won + 2), luck
        cur = after[::-1].copy()
        side ^= 1
        r = roll_index(dice_bitgen)
        d1, d2 = r // 6 + 1, r % 6 + 1


def mixed_match_game(board, dice_bitgen, choice_bitgen, policy_a, policy_b) -> int:
    """One game (opening roll) in Python over the core's move generator; A in row 0.

    Same dice draws as :func:`fastbg._core.rollout.match_game`; any policy with
    ``choose(board, plays, bitgen)`` works (the core's policies too).
    """
    return luck_match_game(board, dice_bitgen, choice_bitgen, policy_a, policy_b)[0]


class PolicyUnavailable(RuntimeError):
    """A policy spec that cannot be built in this checkout (e.g. ``nn2`` before its core is built)."""


def make_nn2_policy(spec: str, engine: str = "cython"):
    """The second evaluator's policy: ``nn2`` (shipped nets) or ``nn2:PATH.npz``.

    ``PATH.npz`` holds nets saved by :func:`fastbg.reference.evaluator.save_nets`; they are
    loaded with :func:`fastbg.reference.evaluator.load_nets` and passed to
    ``EvalPolicy(nets)``: :class:`fastbg._core.evaluator.EvalPolicy` for the ``cython``
    engine, :class:`fastbg.reference.evaluator.EvalPolicy` (pure Python, slow) for ``python``.

    Raises
    ------
    PolicyUnavailable
        If the module is not there (not built yet) or the nets cannot be loaded.
    """
    path = spec[4:] if spec.startswith("nn2:") else None
    modname = "fastbg._core.evaluator" if engine == "cython" else "fastbg.reference.evaluator"
    try:
        import importlib

        mod = importlib.import_module(modname)
        ref = importlib.import_module("fastbg.reference.evaluator")
    except ImportError as exc:
        raise PolicyUnavailable(
            f"{spec}: the second evaluator is not available in this checkout ({modname}: {exc}); "
            "build the core (pip install -e .) once fastbg/_core/evaluator lands, "
            "or try --engine python for the pure-Python mirror") from None
    try:
        nets = ref.load_nets(path) if path else None
        return mod.EvalPolicy(nets)
    except (OSError, ValueError, KeyError) as exc:
        what = path or "the shipped nets (fastbg/data/nn/nn2.npz)"
        raise PolicyUnavailable(f"{spec}: cannot load {what}: {exc}") from None


def make_match_policy(spec: str, engine: str = "cython"):
    """A policy object for ``spec``: a policy name, ``gnubg``, ``nn2``, ``nn2:PATH.npz``,
    or a first-network checkpoint ``.npz``."""
    if spec == "gnubg":
        return GnubgPolicy()
    if spec == "nn2" or spec.startswith("nn2:"):
        return make_nn2_policy(spec, engine)
    if engine == "cython":
        from fastbg._core import nn as core_nn
        from fastbg._core.policies import make_policy
    else:
        from fastbg.reference import nn as ref_nn
        from fastbg.reference.policies import make_policy
    if spec.endswith(".npz"):
        from fastbg.reference.nn import load_weights

        w = load_weights(spec)
        if engine == "cython":
            return core_nn.NNPolicy(core_nn.Net(w["w1"], w["b1"], w["w2"], w["b2"]))
        return ref_nn.NNPolicy(w)
    return make_policy(spec)


def duplicate_match(policy_a, policy_b, pairs: int, seed: int, engine: str = "cython",
                    board=None, first_pair: int = 0) -> np.ndarray:
    """Play ``pairs`` duplicate pairs; return A's points per game of each pair.

    Parameters
    ----------
    policy_a, policy_b : policy objects of the chosen engine (or names)
    pairs : int
    seed : int
        Root of the dice: pair ``k`` uses ``SeedSequence(seed, spawn_key=(k,))``.
    engine : {"cython", "python"}
    board : array_like, shape (2, 25), optional
        Start (default the standard start, with an opening roll).
    first_pair : int
        Index of the first pair (to continue a match).

    Returns
    -------
    numpy.ndarray of float64, shape (pairs,)
        Mean of A's points over the two games of each pair.
    """
    if engine == "cython":
        from fastbg._core.rollout import match_game
    else:
        from fastbg.reference.rollout import match_game
    if isinstance(policy_a, GnubgPolicy) or isinstance(policy_b, GnubgPolicy):
        def match_game(board, dice, choice, pa, pb):  # noqa: F811
            return mixed_match_game(board, dice, choice, pa, pb)
    if board is None:
        from fastbg.game.position import START_BOARD

        board = START_BOARD
    out = np.empty(pairs, dtype=np.float64)
    for k in range(pairs):
        ss = np.random.SeedSequence(seed, spawn_key=(first_pair + k,))
        choice = np.random.PCG64DXSM(ss.spawn(1)[0])
        c1 = match_game(board, np.random.PCG64DXSM(ss), choice, policy_a, policy_b)
        c2 = match_game(board, np.random.PCG64DXSM(ss), choice, policy_b, policy_a)
        out[k] = (POINTS[c1] - POINTS[c2]) / 2.0
    return out


def duplicate_match_luck(policy_a, policy_b, pairs: int, seed: int, yardstick: Yardstick,
                         board=None, first_pair: int = 0) -> dict:
    """Play ``pairs`` duplicate pairs in the Python game loop with luck by ``yardstick``.

    Same pairs, dice and games as :func:`duplicate_match` (the policies are the
    cython engine's, or ``gnubg``).

    Returns
    -------
    dict of numpy.ndarray of float64, shape (pairs,)
        ``plain``: mean of A's points over the two games of each pair; ``luck``: mean of
        A's luck over them; ``adjusted``: ``plain - luck``.
    """
    if board is None:
        from fastbg.game.position import START_BOARD

        board = START_BOARD
    plain = np.empty(pairs, dtype=np.float64)
    luck = np.empty(pairs, dtype=np.float64)
    for k in range(pairs):
        ss = np.random.SeedSequence(seed, spawn_key=(first_pair + k,))
        choice = np.random.PCG64DXSM(ss.spawn(1)[0])
        c1, l1 = luck_match_game(board, np.random.PCG64DXSM(ss), choice, policy_a, policy_b, yardstick)
        c2, l2 = luck_match_game(board, np.random.PCG64DXSM(ss), choice, policy_b, policy_a, yardstick)
        plain[k] = (POINTS[c1] - POINTS[c2]) / 2.0
        luck[k] = (l1 - l2) / 2.0
    return {"plain": plain, "luck": luck, "adjusted": plain - luck}


def variance_ratio(plain: np.ndarray, adjusted: np.ndarray, boot: int = 2000, seed: int = 0) -> dict:
    """Var(plain) / Var(adjusted) over pairs, with a 95% percentile-bootstrap interval.

    The ratio is how many times more pairs the plain figure needs for the same
    standard error as the adjusted one.
    """
    ratio = float(plain.var(ddof=1) / adjusted.var(ddof=1))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(plain), size=(boot, len(plain)))
    r = plain[idx].var(axis=1, ddof=1) / adjusted[idx].var(axis=1, ddof=1)
    lo, hi = np.percentile(r, [2.5, 97.5])
    return {"variance_ratio": ratio, "variance_ratio_ci95": [float(lo), float(hi)],
            "correlation_points_luck": float(np.corrcoef(plain, plain - adjusted)[0, 1])}


def summarize(per_pair: np.ndarray, level: float = 0.95) -> dict:
    """Points per game with standard error and a Student-t confidence interval."""
    n = len(per_pair)
    mean = float(per_pair.mean()) if n else float("nan")
    se = float(per_pair.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * se) if n > 1 else float("nan")
    return {"pairs": n, "games": 2 * n, "ppg": mean, "stderr": se,
            "ci95": [mean - half, mean + half]}


_GNUBG_EVAL_WORKER = r"""
import sys, json
import gnubg_nn as g
out = []
for line in sys.stdin:
    pid = line.strip()
    out.append(list(g.probabilities(g.board_from_position_id(pid), 0)))
print(json.dumps(out))
"""


def eval_agreement(path: Path, limit: int | None = None, net: str = "nn") -> dict:
    """Mean absolute difference of cubeless equity, nn vs GNU Backgammon 0-ply.

    Over the distinct Position IDs of a golden file (JSON lines with
    ``position_id``), each evaluated for the side on roll before its roll by the
    ``nn`` policy's forward pass (the shipped network, or ``net``: a checkpoint
    ``.npz``) and by ``gnubg_nn.probabilities(board, 0)``. Also by class of
    position: ``contact``, ``race`` (no contact, not both sides home) and
    ``bearoff`` (both sides' checkers all in their home boards or off).
    """
    import subprocess

    from fastbg._core import nn as core_nn
    from fastbg import Position
    from fastbg.reference.board import is_race

    pids, boards = [], []
    seen = set()
    with open(path) as f:
        for line in f:
            pid = json.loads(line)["position_id"]
            if pid not in seen:
                b = Position.from_position_id(pid).board
                if b[0].any() and b[1].any():
                    seen.add(pid)
                    pids.append(pid)
                    boards.append(b)
    pids, boards = pids[:limit], boards[:limit]
    res = subprocess.run([str(PEER_PYTHON), "-c", _GNUBG_EVAL_WORKER], input="\n".join(pids),
                         capture_output=True, text=True, check=True)
    g = np.array(json.loads(res.stdout))
    if net == "nn":
        pol = core_nn.NNPolicy()
    else:
        with np.load(net) as z:
            pol = core_nn.NNPolicy(core_nn.Net(z["w1"], z["b1"], z["w2"], z["b2"]))
    p = np.array([pol.probabilities(b) for b in boards])

    def equity(x):
        return (2 * x[:, 0] - 1) + (x[:, 1] - x[:, 3]) + (x[:, 2] - x[:, 4])

    d = np.abs(equity(p) - equity(g))
    cls = np.array(["bearoff" if not (b[0][6:].any() or b[1][6:].any())
                    else "race" if is_race(b) else "contact" for b in boards])
    out = {"network": net, "positions": len(pids), "mean_abs_equity_diff": float(d.mean()),
           "median_abs_equity_diff": float(np.median(d)), "max_abs_equity_diff": float(d.max()),
           "mean_abs_win_diff": float(np.abs(p[:, 0] - g[:, 0]).mean()),
           "mean_abs_diff_by_output": dict(zip(
               ["win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"],
               np.abs(p - g).mean(axis=0).round(5).tolist())),
           "by_class": {}}
    for c in ("contact", "race", "bearoff"):
        m = cls == c
        if m.any():
            out["by_class"][c] = {"positions": int(m.sum()),
                                  "mean_abs_equity_diff": float(d[m].mean())}
    return out


def spec_identity(spec: str) -> dict:
    """The SHA-256 of a policy spec's file, if it names one."""
    path = spec[4:] if spec.startswith("nn2:") else spec if spec.endswith(".npz") else None
    if path is None:
        return {}
    from fastbg.reference.nn import sha256_file

    return {"file": path, "file_sha256": sha256_file(path)}


def run_match(a: str, b: str, games: int, seed: int, engine: str = "cython", luck: bool = True,
              log=None) -> dict:
    """One duplicate match, summarised as the CLI prints it (the JSON object)."""
    pa = make_match_policy(a, engine)
    pb = make_match_policy(b, engine)
    yard = Yardstick() if luck else None
    t0 = time.perf_counter()
    try:
        if luck:
            m = duplicate_match_luck(pa, pb, games // 2, seed, yard)
            res = summarize(m["plain"])
        else:
            res = summarize(duplicate_match(pa, pb, games // 2, seed, engine))
    finally:
        for pol in (pa, pb):
            if isinstance(pol, GnubgPolicy):
                pol.close()
    sec = time.perf_counter() - t0
    res.update(a=a, b=b, seed=seed, engine=engine, seconds=round(sec, 3),
               games_per_s=round(res["games"] / sec, 2), ms_per_game=round(1e3 * sec / res["games"], 3))
    for key, spec in (("a_identity", a), ("b_identity", b)):
        ident = spec_identity(spec)
        if ident:
            res[key] = ident
    if luck:
        res["luck_adjusted"] = summarize(m["adjusted"])
        res.update(variance_ratio(m["plain"], m["adjusted"]))
        res["luck"] = {"method": LUCK_METHOD, "yardstick": yard.identity(),
                       "luck_per_pair": summarize(m["luck"]), **yard.turn_stats(),
                       "seconds_in_luck": round(yard.seconds, 3),
                       "game_loop": "Python loop over the core's move generator (luck_match_game): "
                                    "the same games as duplicate_match plays"}
    else:
        res["luck"] = None
    res["date_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res["nice"] = os.nice(0)
    return res


def format_result(res: dict) -> str:
    lo, hi = res["ci95"]
    lines = [f"{res['a']} vs {res['b']}: {res['ppg']:+.4f} points/game for A "
             f"(95% CI {lo:+.4f} .. {hi:+.4f}, SE {res['stderr']:.4f}) "
             f"over {res['games']} games ({res['pairs']} duplicate pairs), "
             f"seed {res['seed']}, {res['seconds']:.1f} s ({res['games_per_s']:.0f} games/s)"]
    if res.get("luck"):
        adj = res["luck_adjusted"]
        lo, hi = adj["ci95"]
        rlo, rhi = res["variance_ratio_ci95"]
        lines.append(f"  luck-adjusted: {adj['ppg']:+.4f} points/game (95% CI {lo:+.4f} .. {hi:+.4f}, "
                     f"SE {adj['stderr']:.4f}); variance ratio plain/adjusted "
                     f"{res['variance_ratio']:.2f} (95% CI {rlo:.2f} .. {rhi:.2f}); "
                     f"luck {res['luck']['seconds_in_luck']:.1f} s of the run")
    return "\n".join(lines)


# --------------------------------------------------------------------------- self-test

class _Recorder:
    """A stand-in yardstick that records the positions before each roll (luck 0)."""

    def __init__(self):
        self.boards = []

    def luck(self, board, plays, opening=False):
        if not opening:
            self.boards.append(np.array(board, dtype=np.int8))
        return 0.0


def sample_positions(games: int, seed: int) -> np.ndarray:
    """Positions before a roll from seeded games: nn self-play, pubeval v random, random v random."""
    from fastbg._core.policies import make_policy
    from fastbg.game.position import START_BOARD

    rec = _Recorder()
    kinds = [("nn", "nn"), ("pubeval", "random"), ("random", "random")]
    pols = {k: make_policy(k) for k in ("nn", "pubeval", "random")}
    for g in range(games):
        a, b = kinds[g % len(kinds)]
        ss = np.random.SeedSequence(seed, spawn_key=(g,))
        luck_match_game(START_BOARD, np.random.PCG64DXSM(ss), np.random.PCG64DXSM(ss.spawn(1)[0]),
                        pols[a], pols[b], rec)
    return np.array(rec.boards)


def selftest(argv) -> int:
    """Checks that can fail: the luck terms' mean, its exact zero, and a real match."""
    ap = argparse.ArgumentParser(prog="match_policies.py --selftest",
                                 description="self-test of the luck adjustment")
    ap.add_argument("--pairs", type=int, default=1000, help="pairs of the match check")
    ap.add_argument("--samples", type=int, default=20000, help="(position, roll) draws")
    ap.add_argument("--match", nargs=2, default=["nn", "pubeval"], metavar=("A", "B"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from fastbg.spec.dice import roll_index

    out, failures = {}, []

    def check(name, ok, **info):
        out[name] = {"ok": bool(ok), **info}
        print(f"[{'ok' if ok else 'FAIL'}] {name}: " + ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in info.items()),
            file=sys.stderr, flush=True)
        if not ok:
            failures.append(name)

    yard = Yardstick()
    t0 = time.perf_counter()
    boards = sample_positions(150, args.seed)
    rng = np.random.default_rng(args.seed)

    # 1. the compiled mean is the explicit 36-roll mean, and the 36 lucks sum to zero
    sub = boards[rng.choice(len(boards), size=min(300, len(boards)), replace=False)]
    d_mean = max(abs(yard.mean(b) - yard.mean_explicit(b)) for b in sub)
    exact = []
    for b in sub[:100]:
        lk = [yard.luck(b, yard.legal_plays(b, d1, d2)) for d1, d2 in ROLLS21]
        exact.append(abs(np.dot(WEIGHTS21, lk)) / 36.0)
    check("mean_is_explicit_36_roll_mean", d_mean < 1e-9, positions=len(sub), max_abs_diff=d_mean)
    check("weighted_luck_over_36_rolls_is_zero", max(exact) < 1e-9, positions=len(exact),
          max_abs=float(max(exact)))

    # 2. luck averages to about 0 over random positions and rolls drawn as the game draws them;
    #    a wrong mean (the 21 rolls unweighted) must be caught by the same test
    dice = np.random.PCG64DXSM(args.seed)
    lk, bad = np.empty(args.samples), np.empty(args.samples)
    unweighted = {}
    for i, j in enumerate(rng.integers(0, len(boards), size=args.samples)):
        b = boards[j]
        r = roll_index(dice)
        v = yard.best(b, yard.legal_plays(b, r // 6 + 1, r % 6 + 1))
        lk[i] = v - yard.mean(b)
        key = b.tobytes()
        if key not in unweighted:
            unweighted[key] = yard.mean_explicit(b, ROLLS21, np.ones(21))
        bad[i] = v - unweighted[key]
    se = lk.std(ddof=1) / np.sqrt(len(lk))
    se_bad = bad.std(ddof=1) / np.sqrt(len(bad))
    check("sampled_luck_mean_is_zero", abs(lk.mean()) < 4 * se, samples=len(lk),
          positions=len(boards), mean=float(lk.mean()), stderr=float(se), sd=float(lk.std(ddof=1)))
    check("wrong_mean_is_detected", abs(bad.mean()) > 4 * se_bad, mean=float(bad.mean()),
          stderr=float(se_bad))

    # 3. a match: the Python loop plays the compiled loop's games, and plain and adjusted
    #    means agree within their intervals; the variance ratio
    a, b = args.match
    pa, pb = make_match_policy(a), make_match_policy(b)
    t1 = time.perf_counter()
    m = duplicate_match_luck(pa, pb, args.pairs, args.seed, Yardstick())
    t_luck = time.perf_counter() - t1
    t1 = time.perf_counter()
    compiled = duplicate_match(pa, pb, args.pairs, args.seed)
    t_plain = time.perf_counter() - t1
    check("python_loop_plays_the_compiled_games", np.array_equal(compiled, m["plain"]), pairs=args.pairs)
    sp, sa, sl = summarize(m["plain"]), summarize(m["adjusted"]), summarize(m["luck"])
    # the intervals overlap, and (the sharper, paired test) the luck per pair, which is
    # plain minus adjusted pair by pair, has a 95% interval containing 0
    overlap = sp["ci95"][0] <= sa["ci95"][1] and sa["ci95"][0] <= sp["ci95"][1]
    check(f"{a}_v_{b}_plain_and_adjusted_agree", overlap and sl["ci95"][0] <= 0 <= sl["ci95"][1],
          plain=sp["ppg"], plain_se=sp["stderr"], adjusted=sa["ppg"], adjusted_se=sa["stderr"],
          luck_per_pair=sl["ppg"], luck_se=sl["stderr"])
    vr = variance_ratio(m["plain"], m["adjusted"])
    check("variance_ratio_above_2", vr["variance_ratio"] > 2.0, **{k: v for k, v in vr.items()
                                                                     if not isinstance(v, list)},
          ci_lo=vr["variance_ratio_ci95"][0], ci_hi=vr["variance_ratio_ci95"][1],
          ms_per_game_luck=1e3 * t_luck / (2 * args.pairs), ms_per_game_compiled=1e3 * t_plain / (2 * args.pairs))

    # 4. the nn2 specs: a small made-up net through save_nets / load_nets, both engines
    try:
        import tempfile

        from fastbg.reference import evaluator as ref_ev
    except ImportError as exc:
        out["nn2"] = {"ok": None, "skipped": f"fastbg.reference.evaluator: {exc}"}
        print(f"[skip] nn2: {exc}", file=sys.stderr)
    else:
        g = np.random.default_rng(1)
        nets = {k: {"w1": g.normal(0, 0.1, (ref_ev.N_INPUTS[k], 8)), "b1": np.zeros(8),
                    "w2": g.normal(0, 0.1, (5, 8)), "b2": np.zeros(5)} for k in ref_ev.KINDS}
        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "tiny.npz")
            ref_ev.save_nets(path, nets)
            res = {}
            for engine in ("python", "cython"):
                try:
                    pol = make_match_policy(f"nn2:{path}", engine)
                except PolicyUnavailable as exc:
                    out[f"nn2_{engine}"] = {"ok": None, "skipped": str(exc)}
                    print(f"[skip] nn2 ({engine}): {exc}", file=sys.stderr)
                    continue
                res[engine] = duplicate_match_luck(pol, make_match_policy("pubeval"), 3, args.seed, Yardstick())
                check(f"nn2_{engine}_plays_with_luck", np.isfinite(res[engine]["adjusted"]).all(),
                      pairs=3, plain=float(res[engine]["plain"].mean()))
            if len(res) == 2:
                check("nn2_engines_play_the_same_games", all(
                    np.array_equal(res["python"][k], res["cython"][k]) for k in ("plain", "luck")))
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["failures"] = failures
    if args.json:
        print(json.dumps(out, indent=1))
    print(f"selftest: {len(failures)} failed of {sum(1 for v in out.values() if isinstance(v, dict) and v.get('ok') is not None)}"
          f" checks, {out['seconds']:.0f} s", file=sys.stderr)
    return 1 if failures else 0


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--selftest":
        return selftest(argv[1:])
    if argv and argv[0] == "--eval-agreement":
        rest = argv[1:]
        net = "nn"
        if "--net" in rest:
            i = rest.index("--net")
            net = rest[i + 1]
            rest = rest[:i] + rest[i + 2:]
        path = Path(rest[0]) if rest else HERE.parent.parent / "shared" / "golden" / \
            "gnubg_moves.jsonl"
        print(json.dumps(eval_agreement(path, net=net), indent=1))
        return 0
    specs = "random, pubeval, nn, gnubg, nn2, nn2:NETS.npz or a checkpoint .npz"
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help=f"policy A: {specs}")
    ap.add_argument("b", help=f"policy B: {specs}")
    ap.add_argument("--games", type=int, default=2000, help="games (2 per dice sequence)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", choices=("cython", "python"), default="cython")
    ap.add_argument("--luck", action=argparse.BooleanOptionalAction, default=True,
                    help="also report the luck-adjusted points per game (default on; "
                         "--no-luck plays in the compiled loop, faster)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--out", help="also write the JSON object to this file")
    args = ap.parse_args(argv)
    if args.games < 2:
        ap.error("--games must be at least 2")
    try:
        res = run_match(args.a, args.b, args.games, args.seed, args.engine, args.luck)
    except PolicyUnavailable as exc:
        print(f"match_policies: skipped: {exc}", file=sys.stderr)
        if args.json:
            print(json.dumps({"a": args.a, "b": args.b, "skipped": str(exc)}))
        return 0
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        record.write_json(args.out, res)
    print(json.dumps(res) if args.json else format_result(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Training positions for the evaluator: self-play with exploration, and odd games on purpose.

Step 4 of the recipe of issue 11's EVALUATOR.md (see ``experiments/TRAINING.md``):
positions a rollout-trained net must judge well. Three kinds of games, all played by
fastbg's compiled engine (its move generator and the shipped ``nn``'s 0-ply play
equities), each game seeded by ``PCG64DXSM(SeedSequence(seed, spawn_key=(game,)))``:

``nn``
    Both sides play the network's best play; with probability ``--explore`` a side
    instead picks uniformly among the plays within ``--window`` equity of the best
    (wildbg's exploration), so games leave the well-trodden lines.
``wild``
    One side (chosen by the game's dice stream) plays uniformly random plays for its
    first 3 to 12 turns, then the network: this is where backgames, crashed boards and
    odd primes come from, which self-play between equals rarely reaches.
``pubeval``
    One side plays pubeval throughout: a weaker but different style.
``backgame``
    Self-play as ``nn`` from a random backgame set-up (``backgame_start``) instead of the
    opening position: the positions the rollouts of backgames need.
``bearoff``
    Self-play as ``nn`` from a random bear-off against contact (``contact_bearoff_start``):
    one side bearing off, the other with checkers back and a gammon to save. Their
    decisions (bear off or stay safe; run the last checker or wait for a shot) are the
    crashed net's largest errors.

Every position before a roll (row 0 on roll) of every game is a candidate, except pure
bear-offs (both sides home: the one-sided database is exact there) and finished games;
each candidate is kept with probability ``--keep`` (fewer near-duplicates of one game),
and the pool is de-duplicated. Output: ``<out>.npz`` with ``boards`` (N, 2, 25) int8,
``kind`` (N,) int8 (0 nn, 1 wild, 2 pubeval, 3 random race, 4 backgame, 5 random bar
endgame, 6 bearoff), ``game`` and ``ply`` (N,) int32 (-1 for the random races and endgames), ``role`` (N,) int8 (0: a position before its roll;
k >= 1: the position after the k-th alternative play of the roll at that game and ply, so
the positions of one (game, ply) with role >= 1 are the candidates of one decision), and the
arguments. Training seeds are 1..89999; benchmark seeds (``experiments/errorrate.py``,
``rollout_bias.py``) are 90001 and up, so training never sees a benchmark game.

Usage::

    python experiments/evaluator/positions.py --games 40000 --seed 1 \\
        --out experiments/runs/evaluator/positions_g1
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from fastbg._core.evaluator import EvalPolicy
from fastbg import get_engine
from fastbg.reference.evaluator import load_nets
from fastbg.reference.features import CRASHED_MAX, checkers_in_play, is_crashed, position_class
from fastbg.game import START_BOARD

KINDS = {"nn": 0, "wild": 1, "pubeval": 2, "backgame": 4, "bearoff": 6}


def _roll(bg: np.random.Generator) -> tuple[int, int]:
    return int(bg.integers(1, 7)), int(bg.integers(1, 7))


def is_pure_bearoff(board: np.ndarray) -> bool:
    """Both sides have every checker in their home board (or off)."""
    return not board[:, 6:].any()


def lookahead_best(nn, plays, k: int) -> list[int]:
    """Indices of the ``k`` plays with the best 1-ply equity of the nets (``nn`` an
    ``EvalPolicy``): the mover's equity of each play is minus the 1-ply equity of the
    position after it with the opponent on roll; a play that ends the game is a win worth
    at least 1, so it counts first."""
    after = np.ascontiguousarray(np.asarray(plays, dtype=np.int8)[:, ::-1])
    live = np.flatnonzero(after[:, 1].any(axis=1))
    eq = np.full(len(plays), 10.0)
    if len(live):
        p = nn.lookahead(after[live], 1, 1)
        eq[live] = -(2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4])
    return [int(i) for i in np.argsort(-eq, kind="stable")[:k]]


def play_game(eng, nn, pubeval, seed: int, game: int, kind: str, explore: float,
              window: float, alternatives: int = 0, lookahead_alternatives: int = 0,
              player=None):
    """One game; yields ``(ply, board, alts)`` for every position before a roll, where
    ``alts()`` returns the positions (turn passed) after the ``alternatives`` best plays of the
    roll by the net and one random play, when ``alternatives > 0``: the positions a
    0-ply player compares, good and bad, not only the ones good play reaches. With
    ``lookahead_alternatives = K``, also the K best plays by the nets' 1-ply look-ahead
    (:func:`lookahead_best`): the plays a 0-ply player underrates are there too, for the
    labels and the losses to lift (the random draws are made as without them, so the games
    are the same). ``player``, if given, plays the games in ``nn``'s place (``nn`` still
    ranks the alternatives)."""
    player = nn if player is None else player
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(game,))))
    board = np.array(START_BOARD, dtype=np.int8)
    odd_side = int(rng.integers(0, 2))
    wild_turns = int(rng.integers(3, 13))
    if kind in SET_UPS:                # a set-up, either side on roll, any roll
        board = SET_UPS[kind](rng)
        side = int(rng.integers(0, 2))
        if side == 1:
            board = board[::-1].copy()
        d1, d2 = _roll(rng)
    else:
        # opening roll: no doubles; the higher die's side moves first
        while True:
            a, b = _roll(rng)
            if a != b:
                break
        side = 0 if a > b else 1
        if side == 1:
            board = board[::-1].copy()
        d1, d2 = max(a, b), min(a, b)
    turns = [0, 0]
    ply = 0
    while True:
        if ply > 0:
            d1, d2 = _roll(rng)
        plays = eng.legal_plays(board, d1, d2)
        pick = []
        if alternatives and len(plays) > 1:
            eq = nn.play_equities(board, plays)
            pick = list(np.argsort(-eq, kind="stable")[:alternatives]) + [int(rng.integers(0, len(plays)))]

        def alts(plays=plays, pick=pick):
            # (a function: the look-ahead is paid only for the positions kept)
            if pick and lookahead_alternatives:
                pick = pick + lookahead_best(nn, plays, lookahead_alternatives)
            return [np.ascontiguousarray(plays[k][::-1]) for k in dict.fromkeys(pick)
                    if plays[k][0].any()]
        yield ply, board, alts
        if len(plays):
            odd = side == odd_side
            if kind == "wild" and odd and turns[side] < wild_turns:
                k = int(rng.integers(0, len(plays)))
            elif kind == "pubeval" and odd:
                k = pubeval.choose(board, plays, None)
            else:
                eq = player.play_equities(board, plays)
                k = int(np.argmax(eq))
                if len(plays) > 1 and rng.random() < explore:
                    near = np.flatnonzero(eq >= eq[k] - window)
                    k = int(near[rng.integers(0, len(near))])
            board = np.array(plays[k], dtype=np.int8)
        if not board[0].any():
            return
        board = board[::-1].copy()
        turns[side] += 1
        side ^= 1
        ply += 1


#: Anchor pairs of backgames (indices of the backgame side: 23 = the opponent's ace point).
BACKGAME_ANCHORS = [(23, 21), (22, 21), (23, 22), (22, 20), (21, 20), (23, 20), (22, 19), (21, 19)]


def backgame_start(rng: np.random.Generator) -> np.ndarray:
    """A random backgame: row 0 holds two points in row 1's home board (with 0-2 spare
    checkers back there) and has its other checkers spread over its indices 4..17 (timing
    varies); row 1 has most of its checkers home or in its outer board, on points row 0
    does not occupy, with sometimes a straggler further back. Self-play from such starts
    gives the backgames, containment and crashed boards that games from the opening
    position rarely reach (the rollouts of backgames were the furthest off)."""
    while True:
        b = np.zeros((2, 25), np.int8)
        a1, a2 = BACKGAME_ANCHORS[int(rng.integers(0, len(BACKGAME_ANCHORS)))]
        b[0, a1] = b[0, a2] = 2
        for _ in range(int(rng.integers(0, 3))):
            b[0, int(rng.choice([a1, a2, int(rng.integers(18, 24))]))] += 1
        rest = 15 - int(b[0].sum())
        np.add.at(b[0], rng.integers(4, 18, rest), 1)
        # row 1: its index j is row 0's 23 - j; it may not share a point with row 0
        free = [j for j in range(24) if b[0, 23 - j] == 0]
        home = [j for j in free if j <= 11]
        w = np.array([3.0 if j <= 5 else 1.0 for j in home])
        n_back = int(rng.integers(0, 2))
        np.add.at(b[1], rng.choice(home, 15 - n_back, p=w / w.sum()), 1)
        for _ in range(n_back):
            b[1, int(rng.choice([j for j in free if j >= 12]))] += 1
        if (b[1] > 0).sum() >= 3:
            return b


def contact_bearoff_start(rng: np.random.Generator) -> np.ndarray:
    """A random bear-off against contact (row 0 the side bearing off): it has 0..10
    checkers off and the rest in its home board, sometimes 1..3 still coming in (its
    indices 6..11); the other side has 1..4 checkers back, on the bar or on open points
    of that home board (an anchor 40% of the time), no checker off, 1..6 home points
    made and its other checkers on its indices 0..11. The side on roll is drawn by the
    caller. Self-play reaches these with the gammon in doubt too rarely for the crashed
    net to rank their plays (bearing off against a checker back: ``3/off 2/off`` or the
    safe ``3/1 2/off``)."""
    while True:
        b = np.zeros((2, 25), np.int8)
        in_play = 15 - int(rng.integers(0, 11))
        coming = min(int(rng.choice([0, 0, 0, 1, 2, 3])), in_play)
        np.add.at(b[0], rng.integers(6, 12, coming), 1)
        np.add.at(b[0], rng.choice(6, in_play - coming, p=[0.22, 0.2, 0.18, 0.16, 0.13, 0.11]), 1)
        free = [23 - a for a in range(6) if b[0, a] == 0]       # open points, the back side's index
        back = int(rng.choice([1, 1, 2, 2, 2, 3, 4]))
        left = back
        if free and back >= 2 and rng.random() < 0.4:          # an anchor
            b[1, int(rng.choice(free))] = 2
            left -= 2
        for _ in range(left):
            if not free or rng.random() < 0.4:
                b[1, 24] += 1
            else:
                b[1, int(rng.choice(free))] += 1
        rest = 15 - back
        made = rng.choice(6, size=int(rng.integers(1, 7)), replace=False)
        for i in made:
            k = min(2, rest)
            b[1, i] += k
            rest -= k
        np.add.at(b[1], rng.integers(0, 12, rest), 1)
        if position_class(b) == "contact":
            return b


def near_crashed(board: np.ndarray) -> bool:
    """Whether a play from ``board`` may leave a crashed contact position: it is a contact
    position and a side has at most ``CRASHED_MAX + 4`` checkers in play (a play takes at
    most 4 of the mover's out of play; the other side's stay in play)."""
    return position_class(board) == "contact" and bool(
        (checkers_in_play(board) <= CRASHED_MAX + 4).any())


#: The kinds of game that start from a random set-up, not the opening position.
SET_UPS = {"backgame": backgame_start, "bearoff": contact_bearoff_start}


def random_races(n: int, seed: int) -> np.ndarray:
    """``n`` random race positions, many with few checkers: each side has 1..15 checkers on
    its own indices 0..11 (so neither can meet the other), at least one of them outside
    its home board (not a pure bear-off). The end of a race, which self-play positions
    reach too rarely for the race net to learn it (a lone checker on the 8-point against
    one on the 7-point is a 23/36 shot)."""
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(2**32,))))
    out = []
    while len(out) < n:
        b = np.zeros((2, 25), np.int8)
        for s in (0, 1):
            k = int(rng.choice([1, 2, 3, 4, 5, 6, 8, 10, 12, 15]))
            span = int(rng.integers(7, 13))          # checkers within the first `span` points
            np.add.at(b[s], rng.integers(0, span, k), 1)
        if b[:, 6:].any():
            out.append(b)
    return np.array(out, dtype=np.int8)


def random_bar_endgames(n: int, seed: int) -> np.ndarray:
    """``n`` random crashed endgames of stragglers against a home board: one side (the
    straggler side, on roll or not at random) has 8..14 checkers off, 1..3 of its checkers
    on the bar or in the other side's home board and the rest in its own; the other side
    has 0..8 off, 2..6 of its home points made and its other checkers on its indices 0..11.
    Self-play rarely reaches them, and the crashed net misreads them (one checker on the bar
    with 14 off against a closed board: 0.995 to win by generation 16's net, 0.944 by
    rollouts). Only contact positions that are crashed are kept."""
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(2**30,))))
    out = []
    while len(out) < n:
        b = np.zeros((2, 25), np.int8)
        a, o = 0, 1                                    # a: the straggler side, o: the blocker
        in_play_a = 15 - int(rng.integers(8, 15))
        in_play_o = 15 - int(rng.integers(0, 9))
        made = rng.choice(6, size=min(int(rng.integers(2, 7)), in_play_o // 2), replace=False)
        b[o, made] = 2
        rest = in_play_o - 2 * len(made)
        np.add.at(b[o], rng.integers(0, 12, rest), 1)
        m = min(int(rng.integers(1, 4)), in_play_a)
        for _ in range(m):                            # stragglers: the bar, or an open point
            free = [i for i in range(18, 24) if b[o, 23 - i] == 0]
            if rng.random() < 0.5 or not free:
                b[a, 24] += 1
            else:
                b[a, int(rng.choice(free))] += 1
        np.add.at(b[a], rng.integers(0, 6, in_play_a - m), 1)
        if rng.random() < 0.5:
            b = b[::-1].copy()                         # the blocker on roll
        if position_class(b) == "contact" and bool(is_crashed(b)):
            out.append(b)
    return np.array(out, dtype=np.int8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=1, help="training seeds are 1..89999")
    ap.add_argument("--mix", default="nn=0.6,wild=0.3,pubeval=0.1",
                    help="share of games of each kind: nn (the nets), wild (one side plays "
                         "randomly for its first 3-12 turns), pubeval, backgame (default %(default)s)")
    ap.add_argument("--explore", type=float, default=0.1)
    ap.add_argument("--window", type=float, default=0.08)
    ap.add_argument("--keep", type=float, default=0.3, help="chance of keeping a position")
    ap.add_argument("--alternatives", type=int, default=0,
                    help="with each kept position, the positions after this many best plays "
                         "of its roll and one random play (the candidates 0-ply compares)")
    ap.add_argument("--lookahead-alternatives", type=int, default=0, metavar="K",
                    help="with --alternatives, also the positions after the K best plays by "
                         "the nets' 1-ply look-ahead (needs --nets; about 0.3 ms a play)")
    ap.add_argument("--player", choices=("nets", "nn1"), default="nets",
                    help="who plays the games: the --nets (default), or the first network "
                         "(nn1, the TD net), whose games reach the positions of a weaker "
                         "player; --nets still ranks the alternatives")
    ap.add_argument("--out", required=True, help="output path without .npz")
    ap.add_argument("--races", type=int, default=0,
                    help="also this many random race positions (random_races), kind 3")
    ap.add_argument("--near-crashed", action="store_true",
                    help="keep only contact positions where a side has at most CRASHED_MAX + 4 "
                         "checkers in play (a play may make them crashed): the decisions "
                         "candidates.py --crashed-decisions keeps, for less look-ahead")
    ap.add_argument("--bar-endgames", type=int, default=0,
                    help="also this many random crashed endgames of stragglers against a home "
                         "board (random_bar_endgames), kind 5")
    ap.add_argument("--nets", default=None, help="play with the second evaluator's nets "
                    "(fastbg.reference.evaluator.save_nets) instead of the shipped network")
    args = ap.parse_args(argv)
    if not 1 <= args.seed <= 89999:
        ap.error("training seeds are 1..89999 (90001+ are the benchmarks')")
    for name in ("games", "alternatives", "lookahead_alternatives", "races", "bar_endgames"):
        if getattr(args, name) < 0:
            ap.error(f"--{name} must be >= 0, got {getattr(args, name)}")
    for name in ("keep", "explore"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            ap.error(f"--{name} is a probability (0..1), got {getattr(args, name)}")
    if args.nets is not None and not Path(args.nets).is_file():
        ap.error(f"no nets file {args.nets}")
    if args.lookahead_alternatives and (args.nets is None or not args.alternatives):
        ap.error("--lookahead-alternatives needs --nets and --alternatives")
    try:
        mix = {k: float(v) for k, v in (kv.split("=") for kv in args.mix.split(","))}
    except ValueError:
        ap.error(f"--mix is KIND=SHARE,... (e.g. nn=0.6,wild=0.3,pubeval=0.1), got {args.mix!r}")
    if not set(mix) <= set(KINDS) or min(mix.values()) < 0 or sum(mix.values()) <= 0:
        ap.error(f"--mix kinds are {', '.join(KINDS)} with shares >= 0, got {args.mix!r}")
    eng = get_engine("cython")
    nn = eng.nn.NNPolicy() if args.nets is None else EvalPolicy(load_nets(args.nets))
    player = eng.nn.NNPolicy() if args.player == "nn1" else nn
    pubeval = eng.make_policy("pubeval")
    kinds = list(mix)
    cum = np.cumsum([mix[k] for k in kinds]) / sum(mix.values())
    boards, kind_of, game_of, ply_of, role_of = [], [], [], [], []
    seen = set()
    keep_rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(args.seed, spawn_key=(2**31,))))
    t0 = time.perf_counter()
    for g in range(args.games):
        kind = kinds[int(np.searchsorted(cum, (g * 0.6180339887) % 1.0, side="right"))]
        for ply, b, alts in play_game(eng, nn, pubeval, args.seed, g, kind, args.explore,
                                      args.window, args.alternatives,
                                      args.lookahead_alternatives, player):
            if keep_rng.random() >= args.keep:
                continue
            if args.near_crashed and not near_crashed(b):
                continue
            for role, x in enumerate([b] + alts()):
                key = x.tobytes()
                if is_pure_bearoff(x) or key in seen:
                    continue
                seen.add(key)
                boards.append(x)
                kind_of.append(KINDS[kind])
                game_of.append(g)
                ply_of.append(ply)
                role_of.append(role)
        if (g + 1) % 2000 == 0:
            print(f"{g + 1} games, {len(boards)} positions, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    # positions made at random, not played: game and ply -1
    for kind, n, make in ((3, args.races, random_races), (5, args.bar_endgames, random_bar_endgames)):
        for b in make(n, args.seed) if n else []:
            key = b.tobytes()
            if key not in seen:
                seen.add(key)
                boards.append(b)
                kind_of.append(kind)
                game_of.append(-1)
                ply_of.append(-1)
                role_of.append(0)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out.with_suffix(".npz"), boards=np.array(boards, dtype=np.int8),
                        kind=np.array(kind_of, np.int8), game=np.array(game_of, np.int32),
                        ply=np.array(ply_of, np.int32), role=np.array(role_of, np.int8),
                        args=json.dumps(vars(args)))
    print(f"{len(boards)} positions from {args.games} games in {time.perf_counter() - t0:.0f} s "
          f"-> {out.with_suffix('.npz')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

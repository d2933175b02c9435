"""Self-play games of fastbg's shipped ``nn`` at 0 ply, as a source of realistic positions.

Used by the strength benchmarks (``errorrate.py``, ``rollout_bias.py``) to sample
decisions and positions. Only fastbg's public API: ``fastbg.legal_plays`` and
``fastbg.nn.evaluate``.

The player on roll picks the play that maximises its equity (minus the opponent's
0-ply cubeless equity of the resulting position); with probability ``explore`` it
instead picks uniformly among the plays within ``window`` equity of the best, so
that games vary and leave the well-trodden lines a little (wildbg explores the same
way). Games start from the starting position with the opening roll (no doubles on
the first play).

Benchmark seeds (90001 and up) are disjoint from any training seed: game ``g`` of a
run with seed ``s`` draws everything from ``PCG64DXSM(SeedSequence(s, spawn_key=(g,)))``,
so a game depends only on (s, g) and fastbg's network and move generator.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import fastbg

import record


def provenance() -> dict:
    """Which fastbg ran: :func:`record.provenance` (kept here for the scripts that import it)."""
    return record.provenance()


@dataclass
class Turn:
    """One turn of a self-play game: the position before the roll and what happened."""
    turn: int                 # 0 = first play of the game
    board: np.ndarray         # (2, 25) int8, row 0 on roll, before the roll
    dice: str                 # e.g. "64" (higher die first) or "33"
    plays: list               # fastbg.Play list in fastbg's order (empty: no legal play)
    results: list             # per play: (2, 25) board after it, turn passed (opponent in row 0)
    chosen: int               # index of the play made (-1 if none)


def dice_text(d1: int, d2: int) -> str:
    return f"{max(d1, d2)}{min(d1, d2)}"


def result_board(play) -> np.ndarray:
    """The position after ``play`` with the turn passed: opponent in row 0, mover in row 1.

    fastbg's ``Play.board`` is still in the mover's frame (row 0 = mover); its
    ``Play.position_id`` is of the turn-passed position, which is what GNU Backgammon
    evaluates for the opponent on roll.
    """
    return np.ascontiguousarray(np.asarray(play.board, dtype=np.int8)[::-1])


def mover_won(result_board: np.ndarray) -> bool:
    """True if the play that produced ``result_board`` (opponent on roll) bore off the last checker."""
    return int(result_board[1].sum()) == 0


def terminal_equity(result_board: np.ndarray) -> float:
    """The mover's points for a play that ends the game: 1, 2 (gammon) or 3 (backgammon).

    ``result_board`` has the opponent (the loser) in row 0. Backgammon: the loser has
    borne off nothing and has a checker on the bar or in the winner's home board (the
    loser's points 19-24, indices 18..24).
    """
    loser = result_board[0]
    if int(loser.sum()) < 15:
        return 1.0
    return 3.0 if int(loser[18:25].sum()) > 0 else 2.0


def nn_mover_equities(boards) -> list[float]:
    """Mover equities of resulting boards (opponent on roll, in row 0) by fastbg ``nn``.

    Minus the opponent's 0-ply cubeless equity before its roll; a play that ends the
    game scores its exact points.
    """
    out = []
    for b in boards:
        if mover_won(b):
            out.append(terminal_equity(b))
        else:
            out.append(-fastbg.nn.evaluate(b)["equity"])
    return out


def nn1_mover_equities(boards) -> list[float]:
    """As :func:`nn_mover_equities`, by the first network (``nn1``, the TD net that was
    the shipped ``nn`` before the second evaluator): the player of the error-rate
    benchmark's games (``errorrate.py build`` at its commit, 2026-12-01)."""
    global _NN1
    if _NN1 is None:
        from fastbg import get_engine
        _NN1 = get_engine("cython").nn.NNPolicy()
    out = []
    for b in boards:
        if mover_won(b):
            out.append(terminal_equity(b))
        else:
            p = _NN1.probabilities(np.ascontiguousarray(b))
            out.append(-float(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]))
    return out


_NN1 = None
#: Who plays the games: name -> mover equities of the resulting boards.
PLAYERS = {"nn": nn_mover_equities, "nn1": nn1_mover_equities}


def play_game(seed: int, game: int, explore: float = 0.1, window: float = 0.04,
              max_turns: int = 1000, player: str = "nn") -> list[Turn]:
    """One self-play game (see the module docstring); returns its turns in order.
    ``player`` (a key of :data:`PLAYERS`): ``"nn"`` the shipped evaluator, ``"nn1"`` the
    first network."""
    mover_equities = PLAYERS[player]
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(game,))))
    board = fastbg.Position.parse("start").board.copy()
    turns: list[Turn] = []
    for t in range(max_turns):
        while True:
            d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
            if t > 0 or d1 != d2:
                break
        dice = dice_text(d1, d2)
        plays = fastbg.legal_plays(board, dice)
        if not plays:
            turns.append(Turn(t, board, dice, plays, [], -1))
            board = board[::-1].copy()
            continue
        results = [result_board(p) for p in plays]
        if len(plays) == 1:
            chosen = 0
        else:
            eq = np.array(mover_equities(results))
            best = int(np.argmax(eq))
            chosen = best
            if explore > 0 and rng.random() < explore:
                near = np.flatnonzero(eq >= eq[best] - window)
                chosen = int(near[rng.integers(len(near))])
        turns.append(Turn(t, board, dice, plays, results, chosen))
        board = results[chosen]
        if mover_won(board):
            return turns
    raise RuntimeError(f"game {game} of seed {seed} did not end in {max_turns} turns")

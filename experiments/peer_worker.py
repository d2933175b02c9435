"""Measure one peer backgammon library; run inside experiments/.venv-peers.

Started by ``experiments/bench_peers.py`` (one process per peer); prints one JSON
object on stdout. It imports only the peer, numpy and the standard library (not
fastbg), so it runs in the peers' own virtual environment.

Workloads (the same as ``fastbg bench``):

random
    Random-policy games from the start with the opening roll (re-rolled while the
    dice are equal; the higher die plays both numbers), games/s. Dice and choices
    come from Python's ``random.Random(seed)``; each peer is driven the way its
    documentation shows, with the cheapest sampling it allows.
pubeval
    Games with Tesauro's pubeval choosing the plays, where the peer has it
    (gnubg-nn's ``pub_best_move``).
movegen
    Legal plays of the fixed positions x 21 rolls, (position, roll) pairs/s, and
    the number of distinct resulting positions found, where the peer can load an
    arbitrary position.

Usage: ``python peer_worker.py PEER --positions FILE.json [--games N] [--repeat R]``
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def opening(rng):
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            return max(a, b), min(a, b)


# ---------------------------------------------------------------------------
# gnubg-nn: GNU Backgammon's C move generator and evaluators behind Python.
# Board: [[opponent's 25], [on roll's 25]], index i = point i + 1, 24 = bar.
# moves(board, d1, d2) -> tuple of 20-character position keys, one per distinct
# resulting position (GNU Backgammon de-duplicates by position), mover's row
# still second.

def gnubg_setup():
    import gnubg_nn as g

    start = g.board_from_position_id("4HPwATDgc/ABMA")
    return g, start


def gnubg_random_game(g, start, rng):
    board = start
    d1, d2 = opening(rng)
    plies = 0
    while True:
        keys = g.moves(board, d1, d2)
        if keys:
            board = g.board_from_position_key(keys[rng.randrange(len(keys))] if len(keys) > 1 else keys[0])
        plies += 1
        if sum(board[1]) == 0:
            return plies
        board = (board[1], board[0])
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)


def gnubg_pubeval_game(g, start, rng):
    board = [list(start[0]), list(start[1])]
    d1, d2 = opening(rng)
    plies = 0
    while True:
        mv = g.pub_best_move(board, d1, d2)
        me, op = board[1], board[0]
        for i in range(0, len(mv), 2):
            f, t = mv[i], mv[i + 1]
            me[f] -= 1
            if t >= 0:
                me[t] += 1
                if op[23 - t] == 1:
                    op[23 - t] = 0
                    op[24] += 1
        plies += 1
        if sum(me) == 0:
            return plies
        board = [me, op]
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)


def gnubg_movegen(g, positions):
    boards = [(list(b[1]), list(b[0])) for b in positions]
    total = 0
    t0 = time.perf_counter()
    for b in boards:
        for d1, d2 in ROLLS:
            total += len(g.moves(b, d1, d2))
    return time.perf_counter() - t0, total


# ---------------------------------------------------------------------------
# OpenSpiel: C++ backgammon behind pybind11. A turn is one or two decisions: an
# action plays the two dice of a roll (two half-moves, "checker moves"); a
# double is two such decisions. Legal actions are move pairs, not distinct
# positions. Arbitrary positions cannot be loaded from Python, so the legal-play
# workload uses the positions of its own random games (see openspiel_movegen).

def openspiel_setup():
    import pyspiel

    return pyspiel, pyspiel.load_game("backgammon")


def openspiel_random_game(pyspiel, game, rng):
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            acts = [a for a, _ in outcomes]
            probs = [p for _, p in outcomes]
            state.apply_action(rng.choices(acts, probs)[0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    return decisions


def openspiel_positions(game, n, seed, every=4):
    """Chance-node states (a player about to roll) from seeded random games."""
    rng = random.Random(seed)
    out = []
    turns = 0
    while len(out) < n:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < n:
            if state.is_chance_node():
                if state.move_number() > 0:
                    turns += 1
                    if turns % every == 0:
                        out.append(state.clone())
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
    return out


def openspiel_movegen(states, distinct):
    """Every roll of every state: legal actions and, with ``distinct``, the distinct
    positions after the whole roll (a double expanded over both decisions)."""
    total = 0
    t0 = time.perf_counter()
    for st in states:
        for outcome, _ in st.chance_outcomes():
            s = st.child(outcome)
            legal = s.legal_actions()
            if not distinct:
                total += len(legal)
                continue
            player = s.current_player()
            seen = set()
            for a in legal:
                c = s.child(a)
                if not c.is_terminal() and c.current_player() == player:   # second half of a double
                    for a2 in c.legal_actions():
                        seen.add(c.child(a2).observation_string(player))
                else:
                    seen.add(c.observation_string(player))
            total += len(seen)
    return time.perf_counter() - t0, total


# ---------------------------------------------------------------------------
# gym-backgammon: pure Python. get_valid_actions(roll) returns a set of plays,
# each a tuple of (source, target) checker moves (sorted); two move orders that
# reach the same position can both be listed, so plays are move sequences, not
# distinct positions. WHITE moves from 23 down to 0 and rolls negative dice.

def gym_setup():
    from gym_backgammon.envs.backgammon import BLACK, WHITE
    from gym_backgammon.envs.backgammon_env import BackgammonEnv

    return BackgammonEnv, WHITE, BLACK


def gym_random_game(env, rng):
    agent, roll, _ = env.reset()          # its own opening roll (module random)
    done = False
    plies = 0
    while not done:
        if roll is None:
            d = (rng.randint(1, 6), rng.randint(1, 6))
            roll = (-d[0], -d[1]) if agent == 0 else d
        actions = list(env.get_valid_actions(roll))
        action = actions[rng.randrange(len(actions))] if actions else None
        _, _, done, _ = env.step(action)
        plies += 1
        agent = env.get_opponent_agent()
        roll = None
    return plies


def gym_load(env, b, WHITE, BLACK):
    """Put our board (row 0 on roll, as WHITE) into the env's game."""
    g = env.game
    me, op = b[0], b[1]
    board = [(0, None)] * 24
    for i in range(24):
        if me[i]:
            board[i] = (int(me[i]), WHITE)
        elif op[23 - i]:
            board[i] = (int(op[23 - i]), BLACK)
    g.board = board
    g.bar = [int(me[24]), int(op[24])]
    g.off = [15 - int(sum(me)), 15 - int(sum(op))]
    g.players_positions = g.get_players_positions()
    env.current_agent = WHITE


def gym_movegen(env_cls, WHITE, BLACK, positions):
    env = env_cls()
    env.reset()
    total = 0
    t0 = time.perf_counter()
    for b in positions:
        gym_load(env, b, WHITE, BLACK)
        for d1, d2 in ROLLS:
            total += len(env.get_valid_actions((-d1, -d2)))
    return time.perf_counter() - t0, total


# ---------------------------------------------------------------------------

def median_rate(work, secs):
    rates = [work / s for s in secs]
    return {"median": statistics.median(rates), "runs": rates, "work": work}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("peer", choices=["gnubg_nn", "openspiel", "gym_backgammon"])
    ap.add_argument("--positions", required=True, help="JSON list of (2, 25) boards, row 0 on roll")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--movegen-positions", type=int, default=1000)
    ap.add_argument("--distinct-positions", type=int, default=200,
                    help="OpenSpiel: positions for the (slow) distinct-position expansion")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with open(args.positions) as fh:
        positions = json.load(fh)[: args.movegen_positions]
    out = {"peer": args.peer, "games": args.games, "repeat": args.repeat}

    def timed_games(play):
        secs = []
        for _ in range(args.repeat):
            rng = random.Random(args.seed)
            t0 = time.perf_counter()
            for _ in range(args.games):
                play(rng)
            secs.append(time.perf_counter() - t0)
        return median_rate(args.games, secs)

    if args.peer == "gnubg_nn":
        g, start = gnubg_setup()
        import gnubg_nn
        out["version"] = getattr(gnubg_nn, "__version__", None) and str(getattr(gnubg_nn.__version__, "__version__", gnubg_nn.__version__))
        out["random"] = timed_games(lambda rng: gnubg_random_game(g, start, rng))
        out["pubeval"] = timed_games(lambda rng: gnubg_pubeval_game(g, start, rng))
        runs = [gnubg_movegen(g, positions) for _ in range(args.repeat)]
        out["movegen"] = {**median_rate(len(positions) * 21, [s for s, _ in runs]),
                          "positions": len(positions), "plays": runs[0][1],
                          "plays_unit": "distinct resulting positions"}
    elif args.peer == "openspiel":
        pyspiel, game = openspiel_setup()
        import importlib.metadata as md
        out["version"] = md.version("open_spiel")
        out["random"] = timed_games(lambda rng: openspiel_random_game(pyspiel, game, rng))
        states = openspiel_positions(game, len(positions), args.seed)
        runs = [openspiel_movegen(states, False) for _ in range(args.repeat)]
        out["movegen"] = {**median_rate(len(states) * 21, [s for s, _ in runs]),
                          "positions": len(states), "plays": runs[0][1],
                          "plays_unit": "legal actions (two-half-move pairs; a double is two decisions)",
                          "positions_source": "OpenSpiel's own seeded random games (no loader for "
                                              "arbitrary positions)"}
        sub = states[: args.distinct_positions]
        runs = [openspiel_movegen(sub, True) for _ in range(max(1, args.repeat // 2))]
        out["movegen_distinct"] = {**median_rate(len(sub) * 21, [s for s, _ in runs]),
                                   "positions": len(sub), "plays": runs[0][1],
                                   "plays_unit": "distinct resulting positions (doubles expanded "
                                                 "over both decisions, by observation string)"}
    elif args.peer == "gym_backgammon":
        env_cls, WHITE, BLACK = gym_setup()
        import importlib.metadata as md
        out["version"] = md.version("gym-backgammon")
        env = env_cls()  # one env, reset per game; unwrapped: no gym.make checkers timed
        out["random"] = timed_games(lambda rng: gym_random_game(env, rng))
        runs = [gym_movegen(env_cls, WHITE, BLACK, positions) for _ in range(args.repeat)]
        out["movegen"] = {**median_rate(len(positions) * 21, [s for s, _ in runs]),
                          "positions": len(positions), "plays": runs[0][1],
                          "plays_unit": "move sequences (not de-duplicated by position)"}
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()

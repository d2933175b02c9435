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

Opponents: ``random``, ``pubeval``, ``nn`` (the shipped network) or a path to a
network checkpoint ``.npz`` (keys w1, b1, w2, b2, as experiments/train_td.py
writes them).

``gnubg`` is GNU Backgammon's 0-ply network through the ``gnubg-nn`` package,
which lives in the peers' venv ``experiments/.venv-peers`` (see
experiments/bench_peers.py): a worker process there receives each roll's legal
plays (as fastbg computes them) and returns the play whose position, with the
turn passed, has the lowest 0-ply cubeless equity for the opponent by
``gnubg_nn.probabilities(board, 0)``. Games with gnubg run in a Python game loop
over the core's move generator (same dice contract, slower).

Usage::

    python experiments/match_policies.py nn pubeval --games 20000 --seed 1
    python experiments/match_policies.py experiments/runs/td1/best.npz pubeval --games 2000
    python experiments/match_policies.py --eval-agreement [GOLDEN.jsonl] [--net CHECKPOINT]

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
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

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


def mixed_match_game(board, dice_bitgen, choice_bitgen, policy_a, policy_b) -> int:
    """One game (opening roll) in Python over the core's move generator; A in row 0.

    Same dice draws as :func:`fastbg._core.rollout.match_game`; any policy with
    ``choose(board, plays, bitgen)`` works (the core's policies too).
    """
    from fastbg._core.movegen import legal_plays
    from fastbg.reference.board import outcome
    from fastbg.reference.dice import opening_roll, roll_index

    cur = np.array(board, dtype=np.int8)
    side = 0
    a, b = opening_roll(dice_bitgen)
    if a > b:
        d1, d2 = a, b
    else:
        cur, side, d1, d2 = cur[::-1].copy(), 1, b, a
    while True:
        pol = policy_a if side == 0 else policy_b
        plays = legal_plays(cur, d1, d2)
        n = len(plays)
        after = cur if n == 0 else plays[0] if n == 1 else plays[pol.choose(cur, plays, choice_bitgen)]
        if not after[0].any():
            won = outcome(after)
            return won - 1 if side == 0 else won + 2
        cur = after[::-1].copy()
        side ^= 1
        r = roll_index(dice_bitgen)
        d1, d2 = r // 6 + 1, r % 6 + 1


def make_match_policy(spec: str, engine: str = "cython"):
    """A policy object for ``spec``: a policy name, ``gnubg``, or a checkpoint ``.npz``."""
    if spec == "gnubg":
        return GnubgPolicy()
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
    from fastbg.game.position import Position
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


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="policy A: random, pubeval, nn, gnubg or a checkpoint .npz")
    ap.add_argument("b", help="policy B: random, pubeval, nn, gnubg or a checkpoint .npz")
    ap.add_argument("--games", type=int, default=2000, help="games (2 per dice sequence)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", choices=("cython", "python"), default="cython")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.games < 2:
        ap.error("--games must be at least 2")
    pa = make_match_policy(args.a, args.engine)
    pb = make_match_policy(args.b, args.engine)
    t0 = time.perf_counter()
    per_pair = duplicate_match(pa, pb, args.games // 2, args.seed, args.engine)
    res = summarize(per_pair)
    res.update(a=args.a, b=args.b, seed=args.seed, engine=args.engine,
               seconds=round(time.perf_counter() - t0, 3))
    if args.json:
        print(json.dumps(res))
    else:
        lo, hi = res["ci95"]
        print(f"{args.a} vs {args.b}: {res['ppg']:+.4f} points/game for A "
              f"(95% CI {lo:+.4f} .. {hi:+.4f}, SE {res['stderr']:.4f}) "
              f"over {res['games']} games ({res['pairs']} duplicate pairs), "
              f"seed {args.seed}, {res['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

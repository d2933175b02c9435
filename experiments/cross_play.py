"""Cross-play rollouts: who misplays a position, fastbg's player or GNU Backgammon's?

Two programs' 0-ply rollouts of a position can disagree because one of them evaluates it
wrongly or because one of them *plays* it badly, and a rollout cannot say which side's
play is at fault. This script plays the position out with each side played by either
program, the same dice for the four pairings (game ``i`` draws its dice from
``numpy.random.default_rng([seed, i])``):

* fastbg against fastbg, gnubg against fastbg, fastbg against gnubg, gnubg against gnubg.

If the side on roll does better with fastbg's player than with gnubg's against the same
opponent, fastbg plays that side better there (and likewise for the other side). fastbg's
player is the ``nn`` policy (the nets in use: ``--nets`` or the shipped ones) choosing as
it does in rollouts (:meth:`EvalPolicy.ranking`'s first play, the blot rule included);
GNU Backgammon's is its 0-ply network through the ``gnubg-nn`` package in
``experiments/.venv-peers`` (``match_policies.GnubgPolicy``: the play that minimises the
opponent's cubeless 0-ply equity). Games are played to the end, cubeless, plain Monte
Carlo (no variance reduction); points per game for the side on roll with the standard
error of the mean. GNU Backgammon is a measuring stick here, as everywhere: nothing it
plays becomes a label.

Usage::

    python experiments/cross_play.py AMWgmxv/gBKYAg --games 2000 \\
        --out experiments/results/families/cross_play_AMWgmxv.json
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fastbg  # noqa: E402
from fastbg._core.evaluator import EvalPolicy  # noqa: E402
from fastbg import get_engine  # noqa: E402
from fastbg.reference.evaluator import load_nets  # noqa: E402

from match_policies import GnubgPolicy  # noqa: E402
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)

PAIRINGS = (("fastbg", "fastbg"), ("gnubg", "fastbg"), ("fastbg", "gnubg"), ("gnubg", "gnubg"))


def play(eng, players: dict, start: np.ndarray, on_roll: str, other: str, rng) -> int:
    """Points of one game for the side on roll at ``start`` (1, 2, 3 or their negatives)."""
    b = start.copy()
    side = 0
    while True:
        d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        plays = eng.legal_plays(b, d1, d2)
        if len(plays):
            k = players[on_roll if side == 0 else other](b, plays) if len(plays) > 1 else 0
            b = np.array(plays[k], np.int8)
        if not b[0].any():
            loser = b[1]
            pts = 1 if loser.sum() < 15 else (3 if loser[18:].any() else 2)
            return pts if side == 0 else -pts
        b = b[::-1].copy()
        side ^= 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("position")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--nets", help="fastbg's nets (default: the shipped ones)")
    ap.add_argument("--out", help="write the JSON here")
    args = ap.parse_args(argv)
    if args.games < 2:
        ap.error("--games must be at least 2")
    try:
        start = fastbg.Position.parse(args.position).board.astype(np.int8)
    except ValueError as e:
        ap.exit(2, f"cross_play.py: {e}\n")
    eng = get_engine("cython")
    nn = EvalPolicy(load_nets(args.nets)) if args.nets else EvalPolicy()
    gnubg = GnubgPolicy()

    def fastbg_choice(b, plays):
        order, _ = nn.ranking(b, np.asarray(plays), 1)
        return int(order[0])

    players = {"fastbg": fastbg_choice, "gnubg": gnubg.choose}
    out = {"position_id": fastbg.Position.parse(start).to_position_id(), "games": args.games,
           "seed": args.seed, "nets": args.nets or "shipped",
           **record.header(), "pairings": []}
    try:
        for on_roll, other in PAIRINGS:
            pts = np.array([play(eng, players, start, on_roll, other, np.random.default_rng([args.seed, i]))
                            for i in range(args.games)])
            row = {"on_roll": on_roll, "opponent": other, "points_per_game": float(pts.mean()),
                   "se": float(pts.std(ddof=1) / math.sqrt(len(pts)))}
            out["pairings"].append(row)
            print(f"side on roll played by {on_roll:6s}, opponent by {other:6s}: "
                  f"{row['points_per_game']:+.3f} ± {row['se']:.3f}", flush=True)
    finally:
        gnubg.close()
    if args.out:
        record.write_json(args.out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

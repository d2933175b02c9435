"""Training positions of the families of issue 36 (back games, primes, crunched boards, ...).

``experiments/families.py`` makes positions of each family (a set-up, played on by a mix of
players, kept if the family's rule holds); this script turns them into a training set in
``positions.py``'s format. Each kept position (before its roll, row 0 on roll) is one
*decision*: a random roll, and the positions after the roll's ``--alternatives`` best plays
by the nets at 0 ply, its ``--lookahead-alternatives`` best by the nets' 1-ply look-ahead
(the plays 0 ply underrates, which is where a player's blind spot shows: in
``AMWgmxv/gBKYAg`` 4-3, ``8/1`` is GNU Backgammon's best play and generation 18's
0-ply value of it is 1.3 equity too low), and one random play. The position and its
candidates are rolled out by ``labels.py --vr`` (common dice: the candidates' differences
are sharper than their values), and ``train.py``'s ranking and regret losses read the
candidates of a decision together.

Output ``<out>.npz``: ``boards`` (N, 2, 25) int8, ``kind`` (N,) int8 (7: a family
position), ``game`` (N,) int32 (the decision's number, unique in the file: every 20th is
held out for validation by ``train.py``), ``ply`` (N,) int32 (0), ``role`` (N,) int8 (0: the
position before the roll; k >= 1: the k-th candidate), ``family`` (N,) int8 (the index in
``families.FAMILIES``), and the arguments. The positions of a benchmark set
(``--exclude-set``, ``experiments/results/families/<set>_positions.jsonl.gz``) are left out.

Usage::

    python experiments/evaluator/family_positions.py --per-family 2500 --seed 36001 \\
        --out experiments/runs/evaluator/positions_f1
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import families  # noqa: E402
from positions import lookahead_best  # noqa: E402

KIND_FAMILY = 7


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-family", type=int, default=2500)
    ap.add_argument("--families", default=",".join(f for f in families.FAMILIES if f != "control"),
                    help="comma-separated (default: all but control)")
    ap.add_argument("--seed", type=int, default=36001, help="training seeds are 1..89999")
    ap.add_argument("--alternatives", type=int, default=3)
    ap.add_argument("--lookahead-alternatives", type=int, default=2)
    ap.add_argument("--nets", default=None, help="the nets that play on and rank (default: shipped)")
    ap.add_argument("--exclude-set", action="append", default=[],
                    help="a family_bench.py set whose positions to leave out (repeatable)")
    ap.add_argument("--out", required=True, help="output path without .npz")
    args = ap.parse_args(argv)
    if not 1 <= args.seed <= 89999:
        ap.error("training seeds are 1..89999 (90001+ are the benchmarks')")
    fams = args.families.split(",")
    for f in fams:
        if f not in families.FAMILIES:
            ap.error(f"unknown family {f!r}; the families are {', '.join(families.FAMILIES)}")
    import fastbg
    import family_bench
    seen = set()
    for name in args.exclude_set:
        for r in family_bench.load_positions(name):
            seen.add(family_bench.board_of(r).tobytes())
    players = families.Players(args.nets)
    nn, eng = players.nn, players.eng
    boards, game, role, fam_of = [], [], [], []
    t0 = time.perf_counter()
    dec = 0
    for f in fams:
        res = families.generate(f, args.per_family, args.seed, players, seen)
        fi = families.FAMILIES.index(f)
        for k, b in enumerate(res["boards"]):
            rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(args.seed, spawn_key=(1000 + fi, k))))
            plays = []
            for _ in range(10):
                d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
                plays = eng.legal_plays(np.ascontiguousarray(b), d1, d2)
                if len(plays) >= 2:
                    break
            cand = [b]
            if len(plays) >= 2:
                eq = nn.play_equities(np.ascontiguousarray(b), plays)
                pick = list(np.argsort(-eq, kind="stable")[:args.alternatives])
                if args.lookahead_alternatives:
                    pick += lookahead_best(nn, plays, args.lookahead_alternatives)
                pick.append(int(rng.integers(0, len(plays))))
                for j in dict.fromkeys(int(x) for x in pick):
                    a = np.ascontiguousarray(plays[j][::-1])
                    if a[1].any():                       # not a play that ends the game
                        cand.append(a)
            for r, x in enumerate(cand):
                key = x.tobytes()
                if r > 0 and key in seen:
                    continue
                seen.add(key)
                boards.append(x)
                game.append(dec)
                role.append(r)
                fam_of.append(fi)
            dec += 1
        print(f"{f}: {len(res['boards'])} decisions, {len(boards)} positions so far "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    out = Path(args.out).with_suffix(".npz")
    out.parent.mkdir(parents=True, exist_ok=True)
    n = len(boards)
    np.savez_compressed(out, boards=np.array(boards, np.int8), kind=np.full(n, KIND_FAMILY, np.int8),
                        game=np.array(game, np.int32), ply=np.zeros(n, np.int32),
                        role=np.array(role, np.int8), family=np.array(fam_of, np.int8),
                        args=json.dumps(vars(args)))
    print(f"{n} positions of {dec} decisions -> {out} ({time.perf_counter() - t0:.0f} s; "
          f"fastbg {fastbg.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

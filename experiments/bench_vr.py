"""Does variance reduction pay? Accuracy per CPU second of rollouts with and without it.

For each policy and position, the same seed is rolled out with ``vr=False`` and
``vr=True`` (the same games: VR draws nothing), and the script reports the standard error
of the cubeless equity, the time, and the **efficiency ratio**

    (se_plain**2 * seconds_plain) / (se_vr**2 * seconds_vr)

which is how many times fewer CPU seconds a variance-reduced rollout needs for the same
standard error (above 1: VR pays). Both runs of a pair are timed side by side, so the
ratio is meaningful on a loaded machine even when the absolute times are not. The default
of ``fastbg rollout --vr/--no-vr`` (``fastbg.rollouts.cubeless.DEFAULT_VR``) is chosen from
these ratios.

Usage::

    python experiments/bench_vr.py                      # about 10 minutes on 2 cores
    python experiments/bench_vr.py --scale 0.2 --json experiments/results/bench_vr.json
"""
from __future__ import annotations

import argparse
import platform
import sys
import time

import fastbg
from fastbg.rollouts import cubeless

import record  # experiments/record.py: command, date and commit of a result

#: (name, position, opening): the start with the opening roll, a contact middle game, a
#: priming position (issue 11's XGID), a race and a bear-off.
POSITIONS = [
    ("start (opening roll)", "start", True),
    ("contact", "4HPwATDgc/ABMA", False),
    ("priming", "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10", False),
    ("race", "tN2WAgBsd6YCAA", False),
    ("bear-off", "2zYAANi2AQAAAA", False),
]

#: (policy, plain games, VR games) at --scale 1.
POLICY_GAMES = [("nn", 20000, 2000), ("nn1", 20000, 2000), ("pubeval", 100000, 1000),
                ("nn-1ply", 400, 200)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every game count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--policies", default=",".join(p for p, _, _ in POLICY_GAMES))
    ap.add_argument("--prefilter", type=int, default=None,
                    help="the yardstick's plays per roll: pubeval's K best (0: all; default "
                         "fastbg.rollouts.cubeless.VR_PREFILTER)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    wanted = args.policies.split(",")
    if args.prefilter is not None:
        cubeless.VR_PREFILTER = args.prefilter
    rows = []
    print(f"{'policy':<8} {'position':<21} {'se plain':>9} {'se VR':>9} {'var ratio':>9} "
          f"{'time/game ratio':>15} {'efficiency':>10}")
    for policy, g_plain, g_vr in POLICY_GAMES:
        if policy not in wanted:
            continue
        for name, pos, opening in POSITIONS:
            out = {}
            for vr, games in ((False, g_plain), (True, g_vr)):
                games = max(100, int(games * args.scale))
                t0 = time.perf_counter()
                r = fastbg.rollout(pos, games, seed=args.seed, workers=args.workers,
                                   policy=policy, opening=opening, vr=vr)
                out[vr] = (r, time.perf_counter() - t0)
            (rp, tp), (rv, tv) = out[False], out[True]
            cost_p = rp.stderr["equity"] ** 2 * tp   # (variance per game / games) x seconds
            cost_v = rv.stderr["equity"] ** 2 * tv
            row = {"policy": policy, "position": name, "id": pos,
                   "plain": {"games": rp.games, "seconds": tp, "equity": rp.equity,
                             "se": rp.stderr["equity"]},
                   "vr": {"games": rv.games, "seconds": tv, "equity": rv.equity,
                          "se": rv.stderr["equity"]},
                   "variance_ratio": (rp.stderr["equity"] ** 2 * rp.games)
                   / (rv.stderr["equity"] ** 2 * rv.games),
                   "time_per_game_ratio": (tv / rv.games) / (tp / rp.games),
                   "efficiency_ratio": cost_p / cost_v if cost_v > 0 else float("inf")}
            rows.append(row)
            print(f"{policy:<8} {name:<21} {rp.stderr['equity']:9.4f} {rv.stderr['equity']:9.4f} "
                  f"{row['variance_ratio']:9.1f} {row['time_per_game_ratio']:15.1f} "
                  f"{row['efficiency_ratio']:10.2f}", flush=True)
    if args.json:
        record.write_json(args.json, {
            "benchmark": "experiments/bench_vr.py", "argv": sys.argv[1:],
            "machine": platform.processor() or platform.machine(),
            "prefilter": cubeless.VR_PREFILTER, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())

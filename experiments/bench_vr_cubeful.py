"""Does variance reduction pay in cubeful and cube rollouts? Accuracy per CPU second.

For each case the same seed is rolled out with ``vr=False`` and ``vr=True`` (the same
games: VR draws nothing, the counts are equal) and the script reports the standard error,
the time and the **efficiency ratio**

    (se_plain**2 * seconds_plain) / (se_vr**2 * seconds_vr)

(above 1: VR pays; how many times fewer CPU seconds a variance-reduced rollout needs for
the same standard error). Cubeful rollouts: the SE of the cubeful equity (money) or of the
match winning chance (match). Cube rollouts: the SE of No double and of the paired
difference DT - ND, the one that decides the double. The two runs of a pair are timed side
by side on one worker, so the ratio holds on a loaded machine when absolute times do not.
The default of ``--vr`` for ``fastbg rollout --cubeful`` and ``fastbg cube`` is chosen from
these ratios, and each pair's estimates are checked to agree within 4 standard errors.

Usage::

    python experiments/bench_vr_cubeful.py                # about 6 minutes on 2 cores
    python experiments/bench_vr_cubeful.py --json experiments/results/bench_vr_cubeful.json
"""
from __future__ import annotations

import argparse
import math
import platform
import sys
import time

import fastbg
from fastbg import MatchState

import record  # experiments/record.py: command, date and commit of a result

#: (name, position, state): the start (opening roll), a middle game (158 v 139 pips, both
#: sides anchored), the priming position of
#: issue 11, a race, and the post-Crawford cube decision a new user found close.
CASES = [
    ("start, money", "start", None),
    ("contact, money", "bJ7BARiw5+ABMA", None),
    ("priming, money", "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10", None),
    ("race, money", "tN2WAgBsd6YCAA", None),
    ("contact, 7-point match 2-4", "4HPMwQCMz+AIIQ", ("match", 7, (2, 4))),
    ("contact, 5-point match 1-4 post-Crawford", "4HPMwQCMz+AIIQ", ("match", 5, (1, 4))),
]


def _state(spec):
    return None if spec is None else MatchState.match(spec[1], spec[2])


def _timed(fn):
    t0 = time.process_time()
    r = fn()
    return r, time.process_time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3000, help="games (trials) per run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    rows = []
    print(f"{'case':<44} {'kind':<8} {'SE plain':>9} {'SE VR':>9} {'s plain':>8} "
          f"{'s VR':>8} {'ratio':>6}  agree")
    for name, pos, spec in CASES:
        st = _state(spec)
        for kind in ("cubeful", "cube"):
            runs = {}
            for vr in (False, True):
                if kind == "cubeful":
                    res, sec = _timed(lambda: fastbg.cubeful_rollout(
                        pos, args.games, seed=args.seed, workers=1, state=st, vr=vr))
                    est = res.equity if st is None else res.mwc
                    se = res.stderr if st is None else res.mwc_stderr
                    runs[vr] = dict(estimate=est, se=se, seconds=sec)
                else:
                    res, sec = _timed(lambda: fastbg.cube_rollout(
                        pos, args.games, seed=args.seed, workers=1, state=st, vr=vr))
                    runs[vr] = dict(estimate=res.dt - res.nd, se=res.stderr["dt_minus_nd"],
                                    se_nd=res.stderr["nd"], nd=res.nd, seconds=sec,
                                    action=res.action)
            p, v = runs[False], runs[True]
            ratio = (p["se"] ** 2 * p["seconds"]) / (v["se"] ** 2 * v["seconds"])
            z = abs(p["estimate"] - v["estimate"]) / math.hypot(p["se"], v["se"])
            row = dict(case=name, position=pos, state=spec, kind=kind, games=args.games,
                       plain=p, vr=v, efficiency_ratio=ratio, z_plain_vs_vr=z)
            if kind == "cube":
                row["efficiency_ratio_nd"] = ((p["se_nd"] ** 2 * p["seconds"])
                                              / (v["se_nd"] ** 2 * v["seconds"]))
            rows.append(row)
            print(f"{name:<44} {kind:<8} {p['se']:9.4f} {v['se']:9.4f} {p['seconds']:8.1f} "
                  f"{v['seconds']:8.1f} {ratio:6.1f}  {'yes' if z <= 4 else 'NO'} "
                  f"(|z| {z:.1f})", flush=True)
    out = dict(games=args.games, seed=args.seed, fastbg_version=fastbg.__version__,
               machine=platform.machine(), python=platform.python_version(),
               ratio_definition="(se_plain^2 * cpu_plain) / (se_vr^2 * cpu_vr), one worker",
               rows=rows)
    if args.json:
        record.write_json(args.json, out)
        print(f"wrote {args.json}")
    return 0 if all(r["z_plain_vs_vr"] <= 4 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

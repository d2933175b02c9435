"""The 15 opening rolls: candidate plays rolled out side by side, against published rollouts.

For every opening roll (the opening roll fixed, the game going on with ordinary dice) this
runs ``fastbg moves start ROLL --rollout`` (the plays within 0.10 of the best at 0 ply, at
most 8, or ``--top``; variance reduction and quasi-random dice on; common random numbers)
and records each candidate's equity, its paired difference from the best and the
probability that it is best. It then compares the best play with the play that published
rollouts of the openings rank best (the table below, with its sources), and the 5-1 pair
with the GNU Backgammon rollout posted to GammOnLine in 2006 (46,656 games, full cubeful
with variance reduction: 24/23 13/8 +0.0069 cubeless, 13/8 6/5 -0.0058).

The published best plays (money, cubeless) are those of the bot rollouts summarised in the
Backgammon openings literature (bkgm.com's opening rollouts, GNU Backgammon and eXtreme
Gammon rollouts); 6-4 and 4-3 have several plays within a few millipoints, listed together.

Usage::

    python experiments/openings.py --games 1296 --json experiments/results/openings.json
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import fastbg

#: The best play(s) of each opening roll in published bot rollouts (money, cubeless).
PUBLISHED_BEST = {
    "21": ["13/11 24/23"], "31": ["8/5 6/5"], "41": ["24/23 13/9"], "51": ["24/23 13/8"],
    "61": ["13/7 8/7"], "32": ["24/21 13/11", "13/11 13/10"], "42": ["8/4 6/4"],
    "52": ["13/11 13/8", "24/22 13/8"], "62": ["24/18 13/11"],
    "43": ["24/20 13/10", "13/10 13/9", "24/21 13/9"], "53": ["8/3 6/3"],
    "63": ["24/18 13/10", "24/15"], "54": ["24/20 13/8", "13/8 13/9"],
    "64": ["24/18 13/9", "8/2 6/2", "24/14"], "65": ["24/13"],
}
#: GNU Backgammon's rollout of the two main 5-1 plays (GammOnLine, 26 February 2006).
GNUBG_51 = {"24/23 13/8": 0.0069, "13/8 6/5": -0.0058}


def _same(a: str, b: str) -> bool:
    return sorted(a.split()) == sorted(b.split())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--top", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = []
    t0 = time.perf_counter()
    for roll in PUBLISHED_BEST:
        t = time.perf_counter()
        r = fastbg.rollout_plays("start", roll, games=args.games, seed=args.seed,
                                 workers=args.workers, top=args.top)
        best = r.plays[0]["move"]
        agree = any(_same(best, p) for p in PUBLISHED_BEST[roll])
        rows.append({"roll": roll, "published_best": PUBLISHED_BEST[roll], "best": best,
                     "agrees": agree, "seconds": time.perf_counter() - t,
                     "plays": [{k: p[k] for k in ("move", "equity", "diff", "diff_stderr",
                                                  "p_best")} | {"se": p["stderr"]["equity"]}
                               for p in r.plays]})
        print(f"{roll}: best {best:<14} ({'agrees' if agree else 'differs'}; published "
              f"{' / '.join(PUBLISHED_BEST[roll])})  "
              + ", ".join(f"{p['move']} {p['equity']:+.3f} ({p['diff']:+.3f} +- "
                          f"{p['diff_stderr']:.3f})" for p in r.plays[:4]), flush=True)
    r51 = next(x for x in rows if x["roll"] == "51")
    ours = {p["move"]: p["equity"] for p in r51["plays"]}
    cmp51 = {m: {"gnubg": v, "fastbg": next((e for mm, e in ours.items() if _same(mm, m)),
                                            None)} for m, v in GNUBG_51.items()}
    out = {"machine": platform.machine(), "fastbg": fastbg.__version__, "args": vars(args),
           "seconds": time.perf_counter() - t0, "agree": sum(x["agrees"] for x in rows),
           "rolls": rows, "gnubg_51": cmp51}
    print(f"best play as published in {out['agree']} of 15 rolls; 5-1 vs GNU Backgammon: "
          f"{cmp51}; {out['seconds']:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

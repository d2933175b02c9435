"""The 15 opening rolls as one table (``fastbg table openings``), timed, against published rollouts.

Runs :func:`fastbg.research.openings_table` (the same as ``fastbg table openings --games N
--seed S --store PATH``): for every opening roll, the opening roll fixed and the game going
on with ordinary dice, the candidate plays (within 0.10 of the best at 0 ply, at most 8, or
``--top``) are rolled out side by side with the same dice, every candidate the full ``--games``
(no pruning), variance reduction and quasi-random dice on. The table is kept in a results
store, so a run that is stopped resumes where it was (run the same command again: it
continues the unfinished table it finds in the store).

It records the wall-clock time and how busy the machine was (the 1-minute load average,
sampled every 10 s, and the number of CPUs), then compares each roll's best play with the
play(s) published rollouts rank best, and the 5-1 pair with GNU Backgammon's rollout.

Published rollouts (money play, cubeless equity of the opening play):

- GNU Backgammon, opening 5-1, posted by "Stick" to GammOnLine on 26 February 2006
  (archived at https://www.bkgm.com/rgb/rgb.cgi?view+1344): full cubeful rollout with
  variance reduction, 46,656 games, quasi-random dice: 24/23 13/8 +0.0069 (s.e. 0.0007)
  cubeless, 13/8 6/5 -0.0058 (0.0008). The post adds that "all the opening moves have
  already been rolled out this extensively cubeless", at
  http://www.bkgm.com/openings/rollouts.html.
- The best play of each roll in those bot rollouts (GNU Backgammon, Snowie, eXtreme Gammon;
  :data:`PUBLISHED_BEST`): where several plays are within a few millipoints (3-2, 4-3, 5-2,
  5-4, 6-3, 6-4) all are listed, and agreeing with any of them counts. Snowie 3-ply's
  averages over match scores (https://www.bkgm.com/rgb/rgb.cgi?view+907) rank the same plays
  first or within 0.008.

Usage::

    python experiments/openings.py --games 1296 --seed 1 --json experiments/results/openings_table.json
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import threading
import time
from pathlib import Path

import fastbg
from fastbg.research import openings_table
from fastbg.rollouts.store import ResultsStore

import record  # experiments/record.py: command, date and commit of a result

#: The best play(s) of each opening roll in published bot rollouts (money, cubeless).
PUBLISHED_BEST = {
    "2-1": ["13/11 24/23"], "3-1": ["8/5 6/5"], "4-1": ["24/23 13/9"], "5-1": ["24/23 13/8"],
    "6-1": ["13/7 8/7"], "3-2": ["24/21 13/11", "13/11 13/10"], "4-2": ["8/4 6/4"],
    "5-2": ["13/11 13/8", "24/22 13/8"], "6-2": ["24/18 13/11"],
    "4-3": ["24/20 13/10", "13/10 13/9", "24/21 13/9"], "5-3": ["8/3 6/3"],
    "6-3": ["24/18 13/10", "24/15"], "5-4": ["24/20 13/8", "13/8 13/9"],
    "6-4": ["24/18 13/9", "8/2 6/2", "24/14"], "6-5": ["24/13"],
}
#: GNU Backgammon's rollout of the two main 5-1 plays (GammOnLine, 26 February 2006).
GNUBG_51 = {"24/23 13/8": (0.0069, 0.0007), "13/8 6/5": (-0.0058, 0.0008)}

RUNS = Path(__file__).resolve().parent / "runs"


def _same(a: str, b: str) -> bool:
    return sorted(a.split()) == sorted(b.split())


class LoadSampler(threading.Thread):
    """The 1-minute load average every ``every`` seconds, while the table runs."""

    def __init__(self, every: float = 10.0):
        super().__init__(daemon=True)
        self.every, self.samples, self.stop = every, [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.samples.append(os.getloadavg()[0])
            self.stop.wait(self.every)


def _unfinished(store: Path, request: dict):
    """The id of an unfinished openings table in ``store`` asked for with ``request``'s
    games, seed, policy and candidates (None if there is none)."""
    if not store.exists():
        return None
    with ResultsStore(store) as st:
        for run in st.runs():
            if run.kind == "table" and run.status != "done" and all(
                    run.request.get(k) == v for k, v in request.items()):
                return run.id
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--top", type=int, default=None)
    ap.add_argument("--store", default=str(RUNS / "openings_table.sqlite"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    store = Path(args.store)
    store.parent.mkdir(parents=True, exist_ok=True)
    run_id = _unfinished(store, {"table": "openings", "games": args.games, "seed": args.seed,
                                 "top": args.top})
    sampler = LoadSampler()
    sampler.start()
    t0 = time.perf_counter()
    res = openings_table(args.games, seed=args.seed, workers=args.workers, top=args.top,
                         store=store, run_id=run_id,
                         on_row=lambda roll, j, n: print(f"  {roll} ({j + 1}/{n})", flush=True))
    seconds = time.perf_counter() - t0
    sampler.stop.set()
    rows = []
    for r in res.rows:
        published = PUBLISHED_BEST[r["roll"]]
        agree = any(_same(r["best"], p) for p in published)
        rows.append({"roll": r["roll"], "published_best": published, "best": r["best"],
                     "agrees": agree, "candidates": len(r["plays"]),
                     "plays": [{k: p[k] for k in ("move", "equity", "diff", "diff_stderr",
                                                  "p_best")} | {"se": p["stderr"]["equity"]}
                               for p in r["plays"]]})
        print(f"{r['roll']}: best {r['best']:<14} ({'agrees' if agree else 'differs'}; "
              f"published {' / '.join(published)})  "
              + ", ".join(f"{p['move']} {p['equity']:+.3f} ({p['diff']:+.3f} +- "
                          f"{p['diff_stderr']:.3f})" for p in r["plays"][:4]), flush=True)
    r51 = next(x for x in rows if x["roll"] == "5-1")
    ours = {p["move"]: (p["equity"], p["se"]) for p in r51["plays"]}
    cmp51 = {m: {"gnubg": v[0], "gnubg_se": v[1],
                 "fastbg": next((e for mm, (e, _) in ours.items() if _same(mm, m)), None),
                 "fastbg_se": next((s for mm, (_, s) in ours.items() if _same(mm, m)), None)}
             for m, v in GNUBG_51.items()}
    load = sampler.samples
    out = {"machine": platform.machine(), "cpus": os.cpu_count(), "fastbg": fastbg.__version__,
           "args": vars(args), "run_id": res.run_id, "seconds": seconds,
           "table_seconds": res.seconds, "stored_games": res.stored_games,
           "load_average": {"mean": sum(load) / len(load), "min": min(load), "max": max(load),
                            "samples": len(load)},
           "candidates": sum(x["candidates"] for x in rows),
           "agree": sum(x["agrees"] for x in rows), "rolls": rows, "gnubg_51": cmp51,
           "summary": res.summary}
    print(f"best play as published in {out['agree']} of {len(rows)} rolls; "
          f"{out['candidates']} candidates x {args.games:,} games; 5-1 vs GNU Backgammon: "
          f"{cmp51}; {seconds:.0f} s, load average {out['load_average']['mean']:.1f} on "
          f"{out['cpus']} CPUs; equity of winning the opening roll "
          f"{res.summary.get('equity', float('nan')):+.4f} (s.e. "
          f"{res.summary.get('stderr', float('nan')):.4f})")
    if args.json:
        record.write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

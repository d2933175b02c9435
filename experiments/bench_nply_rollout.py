"""fastbg's 1- and 2-ply rollouts against GNU Backgammon's rollouts at the same ply and trials.

Issue 38, item 3 (target: fastbg's n-ply rollouts at least 5x GNU Backgammon's at the same
ply and trials, one thread). For each position and ply, interleaved (gnubg, then fastbg,
repeat by repeat, so that a drifting load on a shared machine hits both alike):

* GNU Backgammon (``/usr/games/gnubg``, Debian's package, driven through
  :mod:`gnubg_driver`): a cubeless rollout with chequer play at N ply, ``set threads 1``,
  its default rollout move filter (shown by ``show rollout``: Normal, up to 8 plays within
  0.16 at 0 ply, 1 ply not pruned, the same as fastbg's ``normal``), its pruning nets on
  (its default), variance reduction off, no truncation, bear-off truncation off,
  quasi-random dice, ``--trials`` games and a fixed seed; CPU and wall time of the
  ``rollout`` command alone, measured inside gnubg (its start-up is outside), in a fresh
  gnubg each time (no warm cache);
* fastbg: ``fastbg.rollout(position, trials, ply=N, move_filter="normal", vr=False,
  quasi_random=True, workers=1)`` (policy ``nn``, the compiled core), CPU and wall time.

Both play cubeless to the end without variance reduction, so both do the same kind of work:
every decision of every game ranked at N ply through the same filter. The nets differ
(gnubg's 128-hidden-unit nets with its pruning nets, fastbg's; see
experiments/bench_gnubg_rollout.py for the differences at 0 ply), so the games differ too;
both results are recorded. With ``--vr`` each position is also rolled out with variance
reduction: gnubg's (the luck valued at the rollout's own ply) against fastbg's with the
luck at 0 ply (its default, the cheap yardstick) and at the rollout's ply.

The ratio is gnubg's CPU seconds per game over fastbg's (CPU time is the fairer measure on a
shared machine; wall-clock ratios are in the JSON too), each the median of ``--repeat`` runs.

Usage::

    python experiments/bench_nply_rollout.py                  # writes experiments/results/bench_nply_rollout.json
    python experiments/bench_nply_rollout.py --plies 1 --trials1 36 --repeat 1 --json /tmp/x.json

Needs gnubg (``sudo apt-get install gnubg``).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import fastbg
from fastbg._core.evaluator import clear_blot_memo

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gnubg_driver as gd  # noqa: E402
from bench_gnubg_rollout import POSITIONS  # noqa: E402  (name -> (Position ID, description))
import record  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "bench_nply_rollout.json"


#: gnubg's commands before every rollout (plies, varredn, trials, seed and initial appended).
GNUBG_SETTINGS = [
    "set threads 1",
    "set rollout cubeful off",                       # cubeless rollout
    "set rollout players-are-same on",
    "set rollout chequerplay cubeful off",           # cubeless chequer evaluations
    "set rollout chequerplay noise 0",
    "set rollout chequerplay prune on",              # its default: the pruning nets
    "set rollout cubedecision plies 0",              # unused in a cubeless rollout
    "set rollout later enable off",                  # same settings for every ply
    "set rollout truncation enable off",             # play every game to the end
    "set rollout bearofftruncation exact off",       # ... also in the bear-off
    "set rollout bearofftruncation onesided off",
    "set rollout limit enable off",                  # no early stop on SE
    "set rollout jsd stop off",                      # no early stop on JSD
    "set rollout log off",
    "set rollout quasirandom on",                    # gnubg's default
    "set rollout rng mersenne",                      # gnubg's default generator
    "set output digits 6",
]


def gnubg_commands(ply: int, trials: int, seed: int, initial: bool, vr: bool) -> list[str]:
    return GNUBG_SETTINGS + [
        f"set rollout chequerplay plies {ply}",
        f"set rollout varredn {'on' if vr else 'off'}",
        f"set rollout initial {'on' if initial else 'off'}",
        f"set rollout trials {trials}",
        f"set rollout seed {seed}",
    ]


def run_gnubg(exe: str, pos: fastbg.Position, ply: int, trials: int, seed: int, initial: bool,
              vr: bool) -> dict:
    commands = gnubg_commands(ply, trials, seed, initial, vr)
    r = gd.rollout(exe, pos.to_xgid(), commands)
    if r["position_id"] != pos.to_position_id():
        raise RuntimeError(f"gnubg loaded {r['position_id']}, not {pos.to_position_id()}")
    if r["games"] != trials:
        raise RuntimeError(f"gnubg played {r['games']} trials, {trials} asked")
    r["commands"] = commands
    r["games_per_s"] = r["games"] / r["seconds"]
    r["cpu_per_game"] = r["cpu_seconds"] / r["games"]
    return r


def run_fastbg(pos: fastbg.Position, ply: int, trials: int, seed: int, vr: bool,
               luck_ply: int = 0) -> dict:
    clear_blot_memo()       # every timed rollout starts cold, as gnubg's in a fresh process
    w0, c0 = time.perf_counter(), time.process_time()
    r = fastbg.rollout(pos, trials, seed=seed, policy="nn", ply=ply, move_filter="normal",
                       vr=vr, luck_ply=luck_ply if vr else 0, quasi_random=True, workers=1)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {"games": r.games, "seconds": wall, "cpu_seconds": cpu,
            "games_per_s": r.games / wall, "cpu_per_game": cpu / r.games,
            "probabilities": {k: getattr(r, k) for k in ("win", "win_gammon", "win_backgammon",
                                                          "lose_gammon", "lose_backgammon")},
            "equity": r.equity, "equity_stderr": r.stderr["equity"], "settings": r.settings}


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plies", default="1,2", help="comma-separated plies (default 1,2)")
    ap.add_argument("--positions", default="contact,race", help=f"of {', '.join(POSITIONS)}")
    ap.add_argument("--trials1", type=int, default=72, help="games at 1 ply (default 72)")
    ap.add_argument("--trials2", type=int, default=12, help="games at 2 ply (default 12)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vr", action="store_true",
                    help="also with variance reduction (gnubg's; fastbg's luck at 0 ply and at N ply)")
    ap.add_argument("--gnubg", default=None, help="the gnubg program (default: PATH or /usr/games)")
    ap.add_argument("--json", default=str(RESULTS))
    args = ap.parse_args(argv)
    exe = gd.require_gnubg(args.gnubg)
    plies = [int(x) for x in args.plies.split(",")]
    names = args.positions.split(",")
    for n in names:
        if n not in POSITIONS:
            ap.error(f"unknown position {n!r}: choose among {', '.join(POSITIONS)}")
    fastbg.rollout("tN2WAgBsd6YCAA", 2, seed=0, ply=1, workers=1)   # warm up: nets, databases
    report = {"benchmark": "experiments/bench_nply_rollout.py",
              "gnubg": {"program": exe, "version": gd.gnubg_version(exe), "threads": 1,
                        "move_filter": "its default for rollouts (Normal, 'show rollout')",
                        "prune": True},
              "fastbg_settings": {"engine": "cython", "workers": 1, "policy": "nn",
                                  "move_filter": "normal", "function": "fastbg.rollout"},
              "load_average_start": list(os.getloadavg()), "rows": []}
    print("| position | ply | vr | trials | gnubg CPU s/game | fastbg CPU s/game | ratio (CPU) "
          "| ratio (wall) |\n|---|---|---|---|---|---|---|---|", flush=True)
    for ply in plies:
        trials = args.trials1 if ply == 1 else args.trials2
        for name in names:
            pid, desc = POSITIONS[name]
            pos = fastbg.Position.parse(pid)
            initial = name == "start"
            modes = [("off", False, 0)] + ([("gnubg vs luck 0-ply", True, 0),
                                            (f"gnubg vs luck {ply}-ply", True, ply)]
                                           if args.vr else [])
            gnubg_vr = None
            for label, vr, luck in modes:
                gs, fs = [], []
                for _ in range(args.repeat):
                    if not vr or gnubg_vr is None:
                        gs.append(run_gnubg(exe, pos, ply, trials, args.seed, initial, vr))
                    fs.append(run_fastbg(pos, ply, trials, args.seed, vr, luck))
                if vr:
                    gnubg_vr = gnubg_vr or gs
                    gs = gnubg_vr
                g_cpu, f_cpu = median_of(gs, "cpu_per_game"), median_of(fs, "cpu_per_game")
                g_wall, f_wall = median_of(gs, "games_per_s"), median_of(fs, "games_per_s")
                row = {"position": name, "position_id": pid, "description": desc, "ply": ply,
                       "vr": label, "luck_ply": luck if vr else None, "trials": trials,
                       "gnubg_cpu_per_game": g_cpu, "fastbg_cpu_per_game": f_cpu,
                       "ratio_cpu": g_cpu / f_cpu, "gnubg_games_per_s": g_wall,
                       "fastbg_games_per_s": f_wall, "ratio_wall": f_wall / g_wall,
                       "gnubg": gs, "fastbg": fs, "load_average": list(os.getloadavg())}
                report["rows"].append(row)
                print(f"| {name} | {ply} | {label} | {trials} | {g_cpu:.3f} | {f_cpu:.4f} | "
                      f"{g_cpu / f_cpu:.1f}x | {f_wall / g_wall:.1f}x |", flush=True)
    record.write_json(args.json, report)
    print(f"written {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

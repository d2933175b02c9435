"""Variance-reduced rollouts side by side: fastbg's against GNU Backgammon's own, per CPU second.

For each position both programs roll out ``--trials`` games cubelessly on one thread, with
variance reduction and quasi-random dice (GNU Backgammon: ``set rollout varredn on``, its
0-ply chequer play, the settings of ``bench_gnubg_rollout.py`` otherwise; fastbg: the ``nn``
with ``vr=True``, ``workers=1``). Each reports its own standard error of the cubeless equity;
the **efficiency ratio**

    (se_gnubg**2 * seconds_gnubg) / (se_fastbg**2 * seconds_fastbg)

is how many times less CPU time fastbg needs for the same standard error (above 1: fastbg is
better). Both runs of a position are timed one after the other in the same process, so the
ratio holds on a busy machine better than the absolute times. Needs the ``gnubg`` program
(Debian: ``apt-get install gnubg``).

Usage::

    python experiments/bench_vr_gnubg.py --json experiments/results/bench_vr_gnubg.json
"""
from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fastbg  # noqa: E402
from bench_gnubg_rollout import POSITIONS, find_gnubg, gnubg_rollout, gnubg_version  # noqa: E402
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--positions", nargs="+", choices=list(POSITIONS), default=list(POSITIONS))
    ap.add_argument("--gnubg", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    exe = find_gnubg(args.gnubg)
    if exe is None:
        print("gnubg not found: apt-get install gnubg", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as home:
        for name in args.positions:
            pid, desc = POSITIONS[name]
            pos = fastbg.Position.parse(pid)
            initial = name == "start"
            g = gnubg_rollout(exe, home, pos.to_xgid(), args.trials, args.seed, initial,
                              varredn=True)
            t0 = time.perf_counter()
            f = fastbg.rollout(pos, args.trials, seed=args.seed, workers=1, vr=True,
                               quasi_random=True, opening=initial)
            fs = time.perf_counter() - t0
            ratio = (g["equity_stderr"] ** 2 * g["seconds"]) / (f.stderr["equity"] ** 2 * fs)
            rows.append({"position": name, "position_id": pid, "description": desc,
                         "gnubg": {"equity": g["equity"], "se": g["equity_stderr"],
                                   "seconds": g["seconds"]},
                         "fastbg": {"equity": f.equity, "se": f.stderr["equity"],
                                    "seconds": fs},
                         "efficiency_ratio": ratio})
            print(f"{name:<8} gnubg {g['equity']:+.4f} +- {g['equity_stderr']:.4f} in "
                  f"{g['seconds']:.1f} s | fastbg {f.equity:+.4f} +- {f.stderr['equity']:.4f} "
                  f"in {fs:.1f} s | fastbg {ratio:.1f}x more accurate per CPU second",
                  flush=True)
    if args.json:
        record.write_json(args.json, {"machine": platform.machine(), "gnubg": gnubg_version(exe),
                                      "args": vars(args), "results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())

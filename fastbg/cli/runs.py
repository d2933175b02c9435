"""``fastbg runs``: the runs of a results store, listed, shown and exported."""
from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import numpy as np

from ..game import PROBABILITY_KEYS
from ..rollouts.cubeless import outcome_statistics, vr_statistics
from ..rollouts.store import ResultsStore, default_store_path
from .common import _positive_int, plural, print_json

ACTIONS = ("list", "show", "export")


def add_parsers(sub) -> None:
    """The ``runs`` command."""
    p = sub.add_parser(
        "runs", help="list, show or export the runs of a results store",
        description="The runs kept by `fastbg rollout --store`: `fastbg runs` lists them "
                    "(id, what, progress, status, equity +- SE), `fastbg runs show RUN` "
                    "shows one with its settings, `fastbg runs export RUN --csv|--json` "
                    "writes its blocks (counts and sums, as stored). A run that was "
                    "interrupted or killed is listed with the games of its stored blocks; "
                    "`fastbg rollout --resume RUN` continues it.")
    p.add_argument("action", nargs="?", choices=ACTIONS, default="list",
                   help="list (default), show or export")
    p.add_argument("run", nargs="?", type=_positive_int, default=None, metavar="RUN",
                   help="the run's id (show, export)")
    p.add_argument("--store", default=None, metavar="PATH",
                   help="the store (default $FASTBG_STORE or ~/.local/share/fastbg/runs.sqlite)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="machine-readable output")
    fmt.add_argument("--csv", action="store_true", help="export: comma-separated block rows")


def _estimate(run, blocks) -> dict:
    """Games, equity and its SE from a run's stored blocks (its summary's if it has one)."""
    if not blocks:
        return {"games": 0, "equity": None, "stderr": None}
    counts = sum(c for _, c, _ in blocks.values())
    sums = None
    if all(f is not None for _, _, f in blocks.values()):
        sums = np.array([math.fsum(v) for v in zip(*(f.ravel() for _, _, f in blocks.values()))])
        sums = sums.reshape(next(iter(blocks.values()))[2].shape)
    n = sum(g for g, _, _ in blocks.values())
    if counts.ndim == 2:                    # with a breakdown by first roll: row 0 the totals
        counts = counts[0]
        sums = None if sums is None else sums[0]
    if sums is not None:
        est, se = vr_statistics(sums, n)
    else:
        est, se = outcome_statistics(counts)
    return {"games": n, "equity": est["equity"], "stderr": se["equity"],
            **{k: est[k] for k in PROBABILITY_KEYS}}


def _row(run, store) -> dict:
    d = run.to_dict()
    d["estimate"] = _estimate(run, store.blocks(run.id))
    return d


def _cmd_runs(args) -> int:
    if args.csv and args.action != "export":
        raise ValueError("--csv is for `fastbg runs export RUN`")
    if args.action == "list" and args.run is None:
        path = default_store_path() if args.store is None else Path(args.store).expanduser()
        if not path.exists():
            if args.json:
                print_json([], indent=2)
            else:
                print(f"no runs: there is no store {path} yet (`fastbg rollout ... --store` "
                      "makes it)")
            return 0
    with ResultsStore(args.store, create=False) as store:
        if args.action == "list":
            if args.run is not None:
                raise ValueError("`fastbg runs` lists every run; `fastbg runs show RUN` shows one")
            rows = [_row(r, store) for r in store.runs()]
            if args.json:
                print_json(rows, indent=2)
                return 0
            print(f"{plural(len(rows), 'run')} in {store.path}")
            if rows:
                print(f"  {'id':>4}  {'kind':<8} {'position':<16} {'games':>15}  "
                      f"{'status':<11} {'equity':>8} {'s.e.':>7}  created")
            for r in rows:
                e = r["estimate"]
                eq = "" if e["equity"] is None else f"{e['equity']:+8.4f} {e['stderr']:7.4f}"
                print(f"  {r['id']:>4}  {r['kind']:<8} {r['position']:<16} "
                      f"{e['games']:>7,}/{r['games']:<7,}  {_status(r):<11} {eq:>16}  "
                      f"{r['created']}")
            return 0
        if args.run is None:
            raise ValueError(f"`fastbg runs {args.action}` needs a RUN id (`fastbg runs` "
                             "lists them)")
        run = store.run(args.run)
        if args.action == "show":
            row = _row(run, store)
            if args.json:
                print_json(row, indent=2)
                return 0
            e = row["estimate"]
            print(f"run {run.id} in {store.path}: {run.kind} of {run.position}, "
                  f"{_status(row)}")
            print(f"  games {e['games']:,} of {run.games:,} in {plural(run.blocks, 'block')} "
                  f"(of up to {run.block_size:,} games); seed {run.seed}; created "
                  f"{run.created}, updated {run.updated}")
            if e["equity"] is not None:
                print(f"  cubeless equity {e['equity']:+.4f} (s.e. {e['stderr']:.4f}); "
                      + ", ".join(f"{k} {e[k]:.4f}" for k in PROBABILITY_KEYS))
            print("  settings:")
            for k, v in run.settings.items():
                print(f"    {k}: {v}")
            if run.status != "done":
                print(f"  resume with: fastbg rollout --resume {run.id}"
                      + ("" if args.store is None else f" --store {args.store}"))
            return 0
        # export
        blocks = store.blocks(run.id)
        if args.csv:
            w = csv.writer(sys.stdout, lineterminator="\n")
            first = next(iter(blocks.values()), None)
            ncounts = 0 if first is None else first[1].size
            nsums = 0 if first is None or first[2] is None else first[2].size
            w.writerow(["run", "block", "games"] + _column_names(ncounts, nsums))
            for k, (g, c, f) in blocks.items():
                w.writerow([run.id, k, g] + c.ravel().tolist()
                           + ([] if f is None else [repr(x) for x in f.ravel().tolist()]))
            return 0
        out = _row(run, store)
        out["blocks"] = [{"block": k, "games": g, "counts": c.tolist(),
                          "sums": None if f is None else f.tolist()}
                         for k, (g, c, f) in blocks.items()]
        print_json(out, indent=2)
        return 0


#: A cubeless block's six outcome counts and, with variance reduction or truncation, its
#: sums and sums of squares of the six estimates (fastbg.rollouts.cubeless).
_OUTCOMES = ("win_single", "win_gammon", "win_backgammon", "lose_single", "lose_gammon",
             "lose_backgammon")
_ESTIMATES = (*PROBABILITY_KEYS, "equity")


def _column_names(ncounts: int, nsums: int) -> list[str]:
    counts = ([f"count_{k}" for k in _OUTCOMES] if ncounts == 6
              else [f"count_{i}" for i in range(ncounts)])
    sums = ([f"sum_{k}" for k in _ESTIMATES] + [f"sumsq_{k}" for k in _ESTIMATES]
            if nsums == 12 else [f"sum_{i}" for i in range(nsums)])
    return counts + sums


def _status(row) -> str:
    if row["status"] == "running":
        return "unfinished"       # running now, or killed: resume continues it
    return row["status"]


COMMANDS = {"runs": _cmd_runs}

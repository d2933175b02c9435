"""``fastbg runs``: the runs of a results store, listed, shown and exported."""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
from pathlib import Path

import numpy as np

from ..game import PROBABILITY_KEYS
from ..game.files import missing_directory
from ..research import convergence, plot_convergence, plot_table
from ..research.plots import check_plot_path
from ..rollouts.cubeful import convergence_point
from ..rollouts.cubeless import outcome_statistics, vr_statistics
from ..rollouts.resume import stored_estimate
from ..rollouts.store import ResultsStore, default_store_path
from .common import add_no_progress_option, plural, print_json, resume_text, run_id_arg, store_hint, store_path_arg, stored_blocks
from .research import write_table_csv

ACTIONS = ("list", "show", "export")


def add_parsers(sub) -> None:
    """The ``runs`` command."""
    p = sub.add_parser(
        "runs", help="list, show or export the runs of a results store",
        description="The runs kept by `fastbg rollout --store` (cubeless or cubeful), `fastbg "
                    "moves --rollout --store`, `fastbg cube --store` (cube rollouts) and "
                    "`fastbg table --store` (a "
                    "table is a run, and each of its rows a run of its own): `fastbg runs` "
                    "lists them (id, what, progress, status, equity +- SE, the table a row "
                    "belongs to), `fastbg runs show RUN` shows one with its settings (a "
                    "table with its rows), `fastbg runs export RUN --csv|--json` writes its "
                    "blocks (counts and sums, as stored; a table: its rows). A run that was "
                    "interrupted or killed is listed with the games of its stored blocks "
                    "('no games yet' if killed before its first block; a new run that Ctrl-C "
                    "stops that early is not kept); `fastbg rollout --resume RUN` (candidate "
                    "plays: `fastbg moves --resume RUN`; a cube rollout: `fastbg cube --resume "
                    "RUN`; a table: `fastbg table NAME --resume RUN`) continues it. A run "
                    "whose record or "
                    "blocks are damaged is listed as corrupt, with what is wrong, among the "
                    "others (the listing's exit status is 0 all the same: it is a report; "
                    "show, export and --resume refuse that run, with status 2).")
    # ACTION, as the usage and the errors name it ("argument ACTION: invalid choice"; it was
    # "argument action", after a usage of {list,show,export})
    p.add_argument("action", nargs="?", choices=ACTIONS, default="list", type=_action,
                   metavar="ACTION", help="list (default), show or export")
    p.add_argument("run", nargs="?", type=run_id_arg, default=None, metavar="RUN",
                   help="the run's id (show, export)")
    p.add_argument("--store", default=None, metavar="PATH", type=store_path_arg(False, takes_position=False),
                   help="the store (default $FASTBG_STORE or ~/.local/share/fastbg/runs.sqlite)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="machine-readable output")
    fmt.add_argument("--csv", action="store_true", help="export: comma-separated block rows "
                     "(a table: its rows, as `fastbg table --csv` writes them)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="show: also draw the run into FILE (.png, .svg or .pdf): a rollout's "
                        "equity and 95%% interval against games played, after each block; "
                        "a table's plot")
    add_no_progress_option(p)


def _action(text: str) -> str:
    """The argparse type of ``runs``' ACTION: one of :data:`ACTIONS`; for a word that looks
    like a store's path (``fastbg runs s.db``) or a run's id (``fastbg runs 3``), an error
    that says how to give it."""
    if text in ACTIONS:
        return text
    hint = store_hint(text) or (f"; for run {text}, write `fastbg runs show {text}`"
                                if text.isascii() and text.isdigit() else "")
    if hint:
        raise argparse.ArgumentTypeError(f"{text!r} is not an action (list, show or export)"
                                         + hint)
    return text       # argparse's own error, naming the choices


def _estimate(run, blocks, store) -> dict:
    """Games, equity and its SE from a run's stored blocks: a rollout's estimate, the best
    play of candidate plays, a table's headline (from its summary) and its rows done."""
    if run.kind == "table":
        return _table_estimate(run, store)
    if run.kind in ("cubeful", "cube"):
        return stored_estimate(run, blocks)
    if not blocks:
        return {"games": 0, "equity": None, "stderr": None}
    n = sum(g for g, _, _ in blocks.values())
    if run.kind == "plays":
        try:
            curves = convergence(blocks.values(), "plays",
                                 run.settings.get("candidate_moves"))["curves"]
        except ValueError:            # pruned on the way: the summary has its numbers
            s = run.summary or {}
            return {"games": n, "equity": s.get("equity"),
                    "stderr": (s.get("stderr") or {}).get("equity"), "best": s.get("best")}
        best = max(curves, key=lambda c: c["equity"][-1])
        return {"games": n, "equity": best["equity"][-1], "stderr": best["stderr"][-1],
                "best": best["label"]}
    counts = sum(c for _, c, _ in blocks.values())
    sums = None
    if all(f is not None for _, _, f in blocks.values()):
        sums = np.array([math.fsum(v) for v in zip(*(f.ravel() for _, _, f in blocks.values()))])
        sums = sums.reshape(next(iter(blocks.values()))[2].shape)
    if counts.ndim == 2:                    # with a breakdown by first roll: row 0 the totals
        counts = counts[0]
        sums = None if sums is None else sums[0]
    if sums is not None:
        est, se = vr_statistics(sums, n)
    else:
        est, se = outcome_statistics(counts)
    return {"games": n, "equity": est["equity"], "stderr": se["equity"],
            **{k: est[k] for k in PROBABILITY_KEYS}}


def _table_estimate(run, store) -> dict:
    """A table's rows done (of how many) and its headline equity, if it has one."""
    req = run.request
    size = {"openings": lambda: len(req["rolls"]), "replies": lambda: len(req["rolls"]),
            "race": lambda: len(req["pips"]) * len(req["leads"]) * req["positions"]}
    if req.get("table") in size:
        rows = store.rows(run.id)
        done = sum(r.status == "done" for r in rows)
        out = {"rows": done, "of_rows": size[req["table"]]()}
    else:                                   # gammons: the table's own blocks
        out = {"games": sum(g for g, _, _ in store.blocks(run.id).values())}
    head = (run.summary or {}).get("summary", {})
    out.update(equity=head.get("equity"), stderr=head.get("stderr"))
    return out


def _row(run, store) -> dict:
    d = run.to_dict()
    d["estimate"] = _estimate(run, stored_blocks(store, run), store)
    return d


def _listed(run_id: int, store) -> dict:
    """Run ``run_id``'s entry in the listing: :func:`_row`, or for a run whose record or
    blocks cannot be read, what is known of it, no estimate, and ``corrupt``: what is wrong
    (one damaged run does not stop the listing of the others)."""
    try:
        run = store.run(run_id)
    except ValueError as exc:            # its record: nothing but the id to show
        return {"id": run_id, "estimate": None, "corrupt": str(exc)}
    try:
        return _row(run, store)
    except ValueError as exc:            # its blocks, or a table's rows
        return {**run.to_dict(), "estimate": None, "corrupt": str(exc)}


def _progress(r) -> tuple[str, str]:
    """A listed run's progress as (done, of): games, or a table's rows ("rows" after its
    total); "?" for what a damaged record or its blocks do not tell."""
    e = r["estimate"]
    if e is None:
        return "?", f"{r['games']:,}" if "games" in r else "?"
    if "rows" in e:
        return f"{e['rows']:,}", f"{e['of_rows']:,} rows"
    return f"{e['games']:,}", f"{r['games']:,}"


#: The longest position text of the listing; longer is cut (with "...").
_POSITION_WIDTH = 40


def _listing(rows) -> list[str]:
    """The lines of `fastbg runs`: a header and a line a run, each column as wide as its
    widest entry (positions of any length, game counts of any size), numbers right-aligned
    under their headers and the progress aligned on its "/"."""
    def cut(text: str) -> str:
        return text if len(text) <= _POSITION_WIDTH else text[:_POSITION_WIDTH - 3] + "..."

    cells = []
    for r in rows:
        e = r["estimate"] or {}
        eq = ("no games yet" if not e.get("games", 1) else "" if e.get("equity") is None
              else f"{e['equity']:+8.4f} {e['stderr']:7.4f}")
        parent = r.get("parent")
        done, of = _progress(r)
        cells.append((str(r["id"]), r.get("kind", "?"), cut(r.get("position", "?")), done, of,
                      _status(r), eq, "" if parent is None else str(parent),
                      r.get("created", "?")))
    w = [max([len(c[i]) for c in cells] + [0]) for i in range(len(cells[0]))]
    done_w = max(w[3], len("games"))
    games_w = done_w + 1 + w[4]
    wid, wkind, wpos = max(w[0], 4), max(w[1], 4), max(w[2], len("position"))
    wstat, weq, wtab = max(w[5], len("status")), max(w[6], 16), max(w[7], len("table"))
    head = (f"  {'id':>{wid}}  {'kind':<{wkind}}  {'position':<{wpos}}  "
            f"{'games':<{games_w}}  {'status':<{wstat}}  "
            f"{'equity':>8} {'s.e.':>7}{'':>{weq - 16}}  {'table':>{wtab}}  created")
    lines = [head]
    for (rid, kind, pos, done, of, status, eq, parent, created) in cells:
        lines.append(f"  {rid:>{wid}}  {kind:<{wkind}}  {pos:<{wpos}}  "
                     f"{done:>{done_w}}/{of:<{w[4]}}  {status:<{wstat}}  {eq:>{weq}}  "
                     f"{parent:>{wtab}}  {created}")
    return lines


def _cmd_runs(args) -> int:
    if args.csv and args.action != "export":
        raise ValueError("--csv is for `fastbg runs export RUN`")
    if args.plot is not None and args.action != "show":
        raise ValueError("--plot is for `fastbg runs show RUN`")
    if args.action == "list" and args.run is None:
        path = default_store_path() if args.store is None else Path(args.store).expanduser()
        if not path.exists():
            # a path the user named, as --store or $FASTBG_STORE, in a directory that does
            # not exist: a typo, not a store still to be made (rollout --store would fail
            # too); only the default store's data directory is made on first use
            named = args.store is not None or bool(os.environ.get("FASTBG_STORE"))
            missing = missing_directory(path) if named else None
            if missing:
                where = "" if args.store is not None else " ($FASTBG_STORE)"
                raise ValueError(f"no store {path}{where}: {missing}")
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
            rows = [_listed(i, store) for i in store.run_ids()]
            if args.json:
                print_json(rows, indent=2)
                return 0
            print(f"{plural(len(rows), 'run')} in {store.path}")
            if rows:
                print("\n".join(_listing(rows)))
            corrupt = [r for r in rows if "corrupt" in r]
            for r in corrupt:
                print(f"  corrupt run {r['id']}: {r['corrupt']}")
            if corrupt:
                print("  (`fastbg runs show`, `fastbg runs export` and --resume refuse a corrupt "
                      "run)")
            return 0
        if args.run is None:
            raise ValueError(f"`fastbg runs {args.action}` needs a RUN id (`fastbg runs` "
                             "lists them)")
        run = store.run(args.run)
        if args.action == "show":
            row = _row(run, store)
            if args.plot is not None:
                _plot(run, store, args.plot)
            if args.json:
                print_json(row, indent=2)
                return 0
            _show(run, row, store, args)
            if args.plot is not None:
                print(f"  plot drawn into {args.plot}")
            return 0
        # export
        if run.kind == "table":
            table = _table_summary(run)
            if args.csv:
                write_table_csv(table, sys.stdout)
            else:
                print_json({**_row(run, store), "table": table}, indent=2)
            return 0
        blocks = stored_blocks(store, run)
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


def _resume_hint(run, store, args) -> str:
    """The command that continues ``run`` (a table's row: its table)."""
    if run.parent is not None:
        run = store.run(run.parent)
    if run.kind == "table":
        return resume_text(run.id, args, f"table {run.request.get('table')}")
    return resume_text(run.id, args, {"plays": "moves", "cube": "cube"}.get(run.kind, "rollout"))


def _show(run, row, store, args) -> None:
    e = row["estimate"]
    what = (f"{run.request.get('table')} table ({run.position})" if run.kind == "table"
            else f"{run.kind} of {run.position}")
    print(f"run {run.id} in {store.path}: {what}, {_status(row)}"
          + ("" if run.parent is None else f"; a row of table run {run.parent}"))
    if run.kind == "table":
        rows = store.rows(run.id)
        done = f"{e['rows']:,} of {e['of_rows']:,} rows done" if "rows" in e else \
            f"games {e['games']:,} of {run.games:,}"
        print(f"  {done}; {run.games:,} games a row; seed {run.seed}; created {run.created}, "
              f"updated {run.updated}")
        head = (run.summary or {}).get("summary", {})
        if "meaning" in head:
            print(f"  {head['meaning']}: {head['equity']:+.4f} (s.e. {head['stderr']:.4f})")
        for r in rows:
            print(f"    row run {r.id}: {r.kind} of {r.position}, {r.games_done:,} of "
                  f"{r.games:,} games, {_status(r.to_dict())}")
    else:
        print(f"  games {e['games']:,} of {run.games:,} in {plural(run.blocks, 'block')} "
              f"(of up to {run.block_size:,} games); seed {run.seed}; created "
              f"{run.created}, updated {run.updated}")
        if e["equity"] is not None and run.kind == "plays":
            print(f"  best play {e['best']}: cubeless equity {e['equity']:+.4f} (s.e. "
                  f"{e['stderr']:.4f})")
        elif e["equity"] is not None and run.kind in _SHOWN:
            print(_SHOWN[run.kind](e))
        elif e["equity"] is not None:
            print(f"  cubeless equity {e['equity']:+.4f} (s.e. {e['stderr']:.4f}); "
                  + ", ".join(f"{k} {e[k]:.4f}" for k in PROBABILITY_KEYS))
    print("  settings:")
    for k, v in run.settings.items():
        print(f"    {k}: {v}")
    if run.status != "done":
        print(f"  resume with: {_resume_hint(run, store, args)}")


#: The estimate line of `fastbg runs show` for a cubeful rollout and a cube rollout.
_SHOWN = {
    "cubeful": lambda e: (f"  cubeful equity {e['equity']:+.4f} (s.e. {e['stderr']:.4f})"
                          if "mwc" not in e else
                          f"  match winning chance {e['mwc']:.4f} (s.e. {e['mwc_stderr']:.4f}); "
                          f"equity (EMG) {e['equity']:+.4f} (s.e. {e['stderr']:.4f})"),
    "cube": lambda e: (f"  No double {e['nd']:+.4f} (s.e. {e['stderr']:.4f})"
                       + ("" if e["dt"] != e["dt"] else
                          f", Double/take {e['dt']:+.4f}, Double/pass {e['dp']:+.4f}: "
                          f"{e['action']}")),
}


def _table_summary(run) -> dict:
    """A stored table's result (what it wrote when it finished or was stopped)."""
    if not (run.summary or {}).get("rows"):
        raise ValueError(f"table run {run.id} has no finished row stored yet: `fastbg table "
                         f"{run.request.get('table')} --resume {run.id}` computes it")
    return run.summary


def _plot(run, store, path) -> None:
    """``fastbg runs show RUN --plot FILE``: a table's plot, or a rollout's convergence."""
    check_plot_path(path)
    if run.kind == "table":
        plot_table(_table_summary(run), path)
        return
    cubeful = run.kind == "cubeful"
    curve = convergence(stored_blocks(store, run).values(), run.kind,
                        run.settings.get("candidate_moves") if run.kind == "plays" else None,
                        point=convergence_point(run.request) if cubeful else None,
                        unit="cubeful equity (EMG in match play)" if cubeful
                        else "cubeless equity")
    plot_convergence(curve, path, f"run {run.id}: {run.kind} of {run.position}")


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
    if "corrupt" in row:
        return "CORRUPT"
    if row["status"] == "running":
        return "unfinished"       # running now, or killed: resume continues it
    return row["status"]


COMMANDS = {"runs": _cmd_runs}

"""Checker-play error rate of a fastbg evaluator against GNU Backgammon 2-ply.

Two subcommands:

``build``
    Samples checker-play decisions (a position before the roll and the roll) from
    fastbg ``nn`` self-play games (``nn_selfplay.py``, seed 90001: benchmark seeds
    are disjoint from training seeds), classifies each position with GNU
    Backgammon's own ``classifypos`` (contact / crashed / race / bear-off), keeps
    decisions with at least two distinct legal plays, at most a few per game and
    class (every crashed one: they are rare in self-play), and for every distinct
    legal play stores GNU Backgammon's cubeless money equity of the resulting
    position at 2 ply (the reference) and at 0 ply (gnubg's own net), from the
    mover's point of view (gnubg evaluates the position after the play with the
    opponent on roll; the mover's equity is minus that). Output:
    ``experiments/results/errorrate_decisions.jsonl.gz`` (one JSON object per
    decision) and ``errorrate_decisions.meta.json`` (gnubg version, settings,
    selection rules, counts, timings). Resumable: the gnubg evaluations are
    appended to ``experiments/runs/errorrate/evals.jsonl`` decision by decision and
    a restart skips what is done.

``score``
    For an evaluator (default: fastbg's shipped ``nn`` at 0 ply), chooses the play
    with the highest mover equity in every decision (ties: the first in fastbg's
    order, which is the stored order), and reports the error against gnubg 2-ply,
    ``max eq2 - eq2[chosen]``, in millipoints per decision (mean and standard error)
    by class; the same for gnubg 0-ply's own choice; and the fraction of decisions
    where the choice is not a 2-ply best play. Markdown on stdout, JSON in
    ``experiments/results/errorrate_<name>.json``.

Pluggable evaluators: ``--hook FILE.py:NAME`` or ``--hook module:NAME``. ``NAME`` is
called with a list of (2, 25) int8 boards, each the position after one legal play
with the turn passed (the opponent on roll in row 0, the mover in row 1, as
``fastbg.Position.parse(play.position_id).board``; a board may have the mover with
no checker left, i.e. the game won), and returns the mover's equity of each. With
``--hook-arg TEXT``, ``NAME(TEXT)`` is called once first and must return that
function (e.g. ``--hook mynet.py:load --hook-arg checkpoint.npz``).

GNU Backgammon is the measuring stick only: its numbers are never training labels.

Usage
-----
    python experiments/errorrate.py build [--contact 2000] [--crashed 600] [--race 1000]
        [--bearoff 0] [--seed 90001] [--limit N]
    python experiments/errorrate.py score [--policy nn | --hook FILE.py:NAME] [--name NAME]
    python experiments/errorrate.py compare A.json B.json    # paired differences by class
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import importlib
import importlib.util
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fastbg  # noqa: E402

import gnubg_driver  # noqa: E402
import nn_selfplay  # noqa: E402
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)

RESULTS = HERE / "results"
WORK = HERE / "runs" / "errorrate"
DECISIONS = RESULTS / "errorrate_decisions.jsonl.gz"
META = RESULTS / "errorrate_decisions.meta.json"
CLASSES = ("contact", "crashed", "race", "bearoff")

# per game and class, at most this many decisions (chosen at random among the
# game's decisions of that class with at least two distinct plays). Crashed
# positions are rare (about 2 decisions a game, bunched in a few games): a game
# gives up to 4 of them, against 2 of its ~35 contact decisions.
PER_GAME = {"contact": 2, "crashed": 4, "race": 2, "bearoff": 1}


def log(msg: str) -> None:
    print(f"[{datetime.datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut by a kill: redone on restart
                pass
    return out


# ---------------------------------------------------------------------------
# build: sampling


def sample(args, exe: str, work: Path) -> tuple[list[dict], dict]:
    """Play games batch by batch, classify their decisions with gnubg, select.

    Deterministic for a seed and fastbg version. Every batch's games and gnubg
    classes are kept in ``work/games.jsonl`` so a restart does not replay them.
    """
    targets = {"contact": args.contact, "crashed": args.crashed, "race": args.race,
               "bearoff": args.bearoff}
    games_file = work / "games.jsonl"
    done = {r["batch"]: r for r in read_jsonl(games_file)}
    selected: list[dict] = []
    counts = {c: 0 for c in CLASSES}
    batch = 0
    n_games = 0
    seen = {c: 0 for c in CLASSES}
    while any(counts[c] < targets[c] for c in CLASSES) and n_games < args.max_games:
        if batch in done:
            rec = done[batch]
        else:
            t0 = time.perf_counter()
            decisions = []
            for g in range(batch * args.batch_games, (batch + 1) * args.batch_games):
                for t in nn_selfplay.play_game(args.seed, g, explore=args.explore,
                                               window=args.window, player=args.player):
                    if len(t.plays) >= 2:
                        decisions.append({"game": g, "turn": t.turn,
                                          "position_id": fastbg.Position.parse(t.board).to_position_id(),
                                          "dice": t.dice, "nplays": len(t.plays)})
            t1 = time.perf_counter()
            out = work / f"classify_{batch}.jsonl"
            out.unlink(missing_ok=True)
            gnubg_driver.batch(exe, [{"key": batch, "classify": [d["position_id"] for d in decisions]}],
                               out, nice=args.nice)
            classes = read_jsonl(out)[0]["class"]
            out.unlink()
            for d, c in zip(decisions, classes):
                d["gnubg_class"] = c
            rec = {"batch": batch, "decisions": decisions, "play_seconds": t1 - t0,
                   "classify_seconds": time.perf_counter() - t1}
            with open(games_file, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
        # selection, game by game
        by_game: dict[int, list[dict]] = {}
        for d in rec["decisions"]:
            by_game.setdefault(d["game"], []).append(d)
        for g in sorted(by_game):
            rng = np.random.Generator(np.random.PCG64DXSM(
                np.random.SeedSequence(args.seed, spawn_key=(g, 1))))
            n_games += 1
            for cls in CLASSES:
                cand = [d for d in by_game[g]
                        if gnubg_driver.BENCH_CLASS.get(d["gnubg_class"]) == cls]
                seen[cls] += len(cand)
                room = targets[cls] - counts[cls]
                if room <= 0 or not cand:
                    continue
                k = min(PER_GAME[cls], len(cand), room)
                pick = sorted(rng.choice(len(cand), size=k, replace=False))
                for i in pick:
                    d = dict(cand[i])
                    d["class"] = cls
                    d["id"] = f"g{d['game']}t{d['turn']}"
                    selected.append(d)
                counts[cls] += k
        log(f"sampling: batch {batch}, {n_games} games, selected {counts} "
            f"(decisions seen by class {seen})")
        batch += 1
    return selected, {"games": n_games, "batches": batch, "decisions_seen": seen,
                      "selected": counts}


# ---------------------------------------------------------------------------
# build: evaluation


def play_list(d: dict) -> list[dict]:
    """The decision's distinct legal plays in fastbg's order, with their turn-passed boards."""
    pos = fastbg.Position.parse(d["position_id"])
    plays = fastbg.legal_plays(pos, d["dice"])
    out = []
    for p in plays:
        rb = nn_selfplay.result_board(p)
        pid = p.position_id
        assert fastbg.Position.parse(pid).board.tolist() == rb.tolist(), "Play.position_id frame"
        out.append({"move": p.move, "position_id": pid, "over": nn_selfplay.mover_won(rb),
                    "terminal": nn_selfplay.terminal_equity(rb) if nn_selfplay.mover_won(rb) else None})
    if len(out) != d["nplays"]:
        raise RuntimeError(f"{d['id']}: {len(out)} plays now, {d['nplays']} when sampled")
    return out


def evaluate(args, exe: str, work: Path, selected: list[dict]) -> None:
    evals_file = work / "evals.jsonl"
    done = {r["key"] for r in read_jsonl(evals_file)}
    todo = [d for d in selected if d["id"] not in done]
    log(f"gnubg evaluation: {len(done)} decisions done, {len(todo)} to do")
    t_start = time.perf_counter()
    n_done = 0
    for i in range(0, len(todo), args.chunk):
        chunk = todo[i:i + args.chunk]
        tasks = []
        for d in chunk:
            plays = play_list(d)
            tasks.append({"key": d["id"],
                          "evaluate": [p["position_id"] for p in plays if not p["over"]]})
        gnubg_driver.batch(exe, tasks, evals_file, contexts=("0ply", "2ply"), nice=args.nice)
        n_done += len(chunk)
        rate = (time.perf_counter() - t_start) / n_done
        log(f"gnubg evaluation: {len(done) + n_done}/{len(selected)} decisions, "
            f"{rate:.2f} s per decision, about {rate * (len(todo) - n_done) / 60:.0f} min left")


def finalize(args, exe: str, work: Path, selected: list[dict], sampling: dict,
             timings: dict) -> None:
    evals = {r["key"]: r for r in read_jsonl(work / "evals.jsonl")}
    rows = []
    cpu = 0.0
    for d in selected:
        if d["id"] not in evals:
            continue
        ev = evals[d["id"]]
        cpu += ev["cpu"]
        plays = play_list(d)
        it0 = iter(ev["eval"]["0ply"])
        it2 = iter(ev["eval"]["2ply"])
        out_plays = []
        for p in plays:
            if p["over"]:
                eq0 = eq2 = p["terminal"]
            else:
                # gnubg's probabilities are the opponent's (on roll after the play)
                eq0 = -gnubg_driver.equity(next(it0))
                eq2 = -gnubg_driver.equity(next(it2))
            out_plays.append({"move": p["move"], "position_id": p["position_id"],
                              "eq2": round(eq2, 5), "eq0": round(eq0, 5)})
        assert next(it0, None) is None and next(it2, None) is None, d["id"]
        rows.append({"id": d["id"], "game": d["game"], "turn": d["turn"],
                     "position_id": d["position_id"], "dice": d["dice"], "class": d["class"],
                     "gnubg_class": d["gnubg_class"], "plays": out_plays})
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", compresslevel=9) as fh:
        for r in rows:
            fh.write(json.dumps(r, separators=(",", ":")) + "\n")
    counts = {c: sum(r["class"] == c for r in rows) for c in CLASSES}
    meta = {
        "benchmark": "experiments/errorrate.py build",
        "command": record.command(), "date_utc": record.now(),
        "decisions": len(rows), "by_class": counts,
        "plays": sum(len(r["plays"]) for r in rows),
        "fastbg": nn_selfplay.provenance(),
        "gnubg": {"program": exe, "version": gnubg_driver.gnubg_version(exe),
                  "reference": "gnubg.evaluate(board after the play, opponent on roll), "
                               "cubeless, money, centred cube, 2 ply (eq2) and 0 ply (eq0); "
                               "evalcontext(cubeful=0, plies, deterministic=1, prune=1, "
                               "noise=0); mover equity = -(2w-1 + wg-lg + wbg-lbg) of the "
                               "opponent's probabilities; plays that end the game score "
                               "their exact 1/2/3 points",
                  "contexts": {c: dict(zip(("plies", "prune"), gnubg_driver.EVAL_CONTEXTS[c]))
                               for c in ("0ply", "2ply")},
                  "threads": 1,
                  "conventions_checked": timings.get("conventions")},
        "sampling": {
            "games": "fastbg nn 0-ply self-play (experiments/nn_selfplay.py): best play by "
                     "minus the opponent's nn equity; with probability explore a uniform "
                     "choice among plays within window of the best; opening roll first",
            "seed": args.seed, "player": args.player, "explore": args.explore,
            "window": args.window, "batch_games": args.batch_games,
            "targets": {"contact": args.contact, "crashed": args.crashed, "race": args.race,
                        "bearoff": args.bearoff},
            "per_game_and_class": PER_GAME,
            "classes": "gnubg.classifypos of the position before the roll: 10 contact, 9 "
                       "crashed, 8 race, 4-7 bear-off (databases)",
            "rule": "decisions with at least 2 distinct legal plays; per game and class a "
                    "random sample of at most per_game_and_class (crashed oversampled), "
                    "games in order until each class target is met",
            **sampling},
        "fields": {"id": "g<game>t<turn>", "position_id": "before the roll, mover on roll",
                   "dice": "higher die first", "class": "contact/crashed/race/bearoff",
                   "gnubg_class": "gnubg.classifypos value",
                   "plays": "every distinct legal play in fastbg's order: move (fastbg "
                            "notation), position_id (after the play, opponent on roll), eq2 "
                            "and eq0 (gnubg 2-ply and 0-ply cubeless equity for the mover)"},
        "timings": {**{k: v for k, v in timings.items() if k != "conventions"},
                    "gnubg_cpu_seconds_in_evaluations": round(cpu, 1)},
    }
    record.write_json(args.meta, meta, indent=2)
    log(f"wrote {len(rows)} decisions ({counts}) to {out} and {args.meta}")


def cmd_build(args) -> int:
    exe = gnubg_driver.require_gnubg(args.gnubg)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    conventions = gnubg_driver.check_conventions(exe)
    log("gnubg conventions checked: board orientation, Position IDs, evaluation sign")
    sel_file = work / "selected.json"
    if sel_file.exists():
        saved = json.loads(sel_file.read_text())
        selected, sampling = saved["selected"], saved["sampling"]
        log(f"selection read from {sel_file}: {sampling['selected']}")
    else:
        selected, sampling = sample(args, exe, work)
        sel_file.write_text(json.dumps({"selected": selected, "sampling": sampling}))
    t1 = time.perf_counter()
    if args.limit:
        selected = selected[:args.limit]
    evaluate(args, exe, work, selected)
    t2 = time.perf_counter()
    timings_file = work / "timings.json"
    timings = json.loads(timings_file.read_text()) if timings_file.exists() else {}
    # wall times accumulate over restarts
    timings["sampling_wall_seconds"] = timings.get("sampling_wall_seconds", 0) + (t1 - t0)
    timings["evaluation_wall_seconds"] = timings.get("evaluation_wall_seconds", 0) + (t2 - t1)
    timings_file.write_text(json.dumps(timings))
    timings["conventions"] = conventions
    finalize(args, exe, work, selected, sampling, timings)
    log(f"build done: sampling {timings['sampling_wall_seconds']:.0f} s, gnubg evaluation "
        f"{timings['evaluation_wall_seconds']:.0f} s (wall, summed over runs)")
    return 0


# ---------------------------------------------------------------------------
# score


def load_hook(spec: str, arg: str | None):
    where, _, name = spec.rpartition(":")
    if not where or not name:
        raise SystemExit(f"--hook wants FILE.py:NAME or module:NAME, not {spec!r}")
    if where.endswith(".py"):
        mspec = importlib.util.spec_from_file_location(Path(where).stem, where)
        module = importlib.util.module_from_spec(mspec)
        mspec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    fn = getattr(module, name)
    return fn(arg) if arg is not None else fn


def nn_hook(boards):
    """fastbg ``nn`` at 0 ply (``fastbg.nn.evaluate``), the default evaluator."""
    return nn_selfplay.nn_mover_equities(boards)


def stats(errors: list[float]) -> dict:
    n = len(errors)
    if n == 0:
        return {"n": 0}
    a = np.asarray(errors) * 1000.0
    return {"n": n, "mean_mp": float(a.mean()),
            "se_mp": float(a.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")}


def classes_of_rows(rows) -> list[str]:
    """The classes of scored decisions: errorrate's own (contact, crashed, race, bearoff)
    in that order, then any other (e.g. the families of ``family_bench.py decisions``) in
    the order they first appear."""
    seen = list(dict.fromkeys(r["class"] for r in rows))
    return [c for c in CLASSES if c in seen] + [c for c in seen if c not in CLASSES]


def first_argmax(values) -> int:
    best = 0
    for i, v in enumerate(values):
        if v > values[best]:
            best = i
    return best


def cmd_score(args) -> int:
    if args.hook:
        fn = load_hook(args.hook, args.hook_arg)
        name = args.name or Path(args.hook.rpartition(":")[0]).stem
    else:
        if args.policy != "nn":
            raise SystemExit("only --policy nn is built in; use --hook for other evaluators")
        fn = nn_hook
        name = args.name or "nn"
    with gzip.open(args.decisions, "rt") as fh:
        decisions = [json.loads(line) for line in fh]
    meta = json.loads(Path(args.meta).read_text()) if Path(args.meta).exists() else {}
    t0 = time.perf_counter()
    rows = []
    for d in decisions:
        boards = [fastbg.Position.parse(p["position_id"]).board for p in d["plays"]]
        eq = [float(x) for x in fn(boards)]
        if len(eq) != len(boards):
            raise RuntimeError(f"the evaluator returned {len(eq)} equities for {len(boards)} boards")
        eq2 = [p["eq2"] for p in d["plays"]]
        eq0 = [p["eq0"] for p in d["plays"]]
        best2 = max(eq2)
        ce, cg = first_argmax(eq), first_argmax(eq0)
        rows.append({"id": d["id"], "class": d["class"], "double": d["dice"][0] == d["dice"][1],
                     "err": best2 - eq2[ce], "err_gnubg0": best2 - eq2[cg],
                     "chosen": ce, "chosen_gnubg0": cg})
    seconds = time.perf_counter() - t0

    def summary(sel):
        e = [r["err"] for r in sel]
        g = [r["err_gnubg0"] for r in sel]
        diff = [a - b for a, b in zip(e, g)]
        return {"evaluator": {**stats(e), "fraction_not_2ply_best": (
                    sum(x > 1e-9 for x in e) / len(e) if e else None)},
                "gnubg_0ply": {**stats(g), "fraction_not_2ply_best": (
                    sum(x > 1e-9 for x in g) / len(g) if g else None)},
                "difference_mp": stats(diff)}

    groups = {}
    for cls in classes_of_rows(rows):
        sel = [r for r in rows if r["class"] == cls]
        if sel:
            groups[cls] = summary(sel)
            groups[cls]["non_doubles"] = summary([r for r in sel if not r["double"]])
            groups[cls]["doubles"] = summary([r for r in sel if r["double"]])
    groups["all_but_bearoff"] = summary([r for r in rows if r["class"] != "bearoff"])
    report = {
        "benchmark": "experiments/errorrate.py score",
        "command": record.command(), "date_utc": record.now(),
        "evaluator": name, "hook": args.hook, "hook_arg": args.hook_arg,
        "fastbg": nn_selfplay.provenance(),
        "decisions_file": str(args.decisions), "decisions": len(rows),
        "reference": "gnubg 2-ply cubeless money equity (see the decisions' meta JSON)",
        "gnubg_version": meta.get("gnubg", {}).get("version"),
        "error": "max eq2 - eq2[chosen] per decision, millipoints (x1000); mean and SE",
        "ties": "first in fastbg's order",
        "seconds": seconds,
        "by_class": groups,
        "per_decision": [{"id": r["id"], "class": r["class"],
                          "err_mp": round(r["err"] * 1000, 2),
                          "err_gnubg0_mp": round(r["err_gnubg0"] * 1000, 2)} for r in rows],
    }
    out = Path(args.output or RESULTS / f"errorrate_{name}.json")
    record.write_json(out, report)

    print(f"Checker-play error against GNU Backgammon 2-ply ({meta.get('gnubg', {}).get('version', '?')}), "
          f"millipoints per decision, mean ± SE; {len(rows)} decisions; evaluator `{name}`\n")
    print(f"| class | decisions | {name} | gnubg 0-ply | {name} − gnubg 0-ply | "
          f"{name} not 2-ply best | gnubg 0-ply not 2-ply best |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for cls, s in groups.items():
        e, g, df = s["evaluator"], s["gnubg_0ply"], s["difference_mp"]
        print(f"| {cls} | {e['n']} | {e['mean_mp']:.1f} ± {e['se_mp']:.1f} | "
              f"{g['mean_mp']:.1f} ± {g['se_mp']:.1f} | {df['mean_mp']:.1f} ± {df['se_mp']:.1f} | "
              f"{100 * e['fraction_not_2ply_best']:.1f}% | {100 * g['fraction_not_2ply_best']:.1f}% |")
    print(f"\nJSON: {out}  ({seconds:.1f} s)")
    return 0


def _classes_of(report: dict) -> dict:
    """id -> class of a score report's decisions (reports before the class was stored
    per decision read it from their decisions file)."""
    rows = report["per_decision"]
    if all("class" in r for r in rows):
        return {r["id"]: r["class"] for r in rows}
    with gzip.open(report["decisions_file"], "rt") as fh:
        return {d["id"]: d["class"] for d in map(json.loads, fh)}


def cmd_compare(args) -> int:
    """Paired differences between score reports of the same decisions, by class.

    ``a`` and ``b`` may each list several reports, comma-separated and in the same order
    (e.g. two validation sets): their decisions are pooled, the i-th report of ``a`` paired
    with the i-th of ``b``.
    """
    fa, fb = args.a.split(","), args.b.split(",")
    if len(fa) != len(fb):
        raise SystemExit(f"{len(fa)} reports against {len(fb)}: give as many on each side")
    ea, eb, cls, names = {}, {}, {}, ([], [])
    for k, (pa, pb) in enumerate(zip(fa, fb)):
        a, b = (json.loads(Path(f).read_text()) for f in (pa, pb))
        xa = {(k, r["id"]): r["err_mp"] for r in a["per_decision"]}
        xb = {(k, r["id"]): r["err_mp"] for r in b["per_decision"]}
        if set(xa) != set(xb):
            raise SystemExit(f"{pa} and {pb} score different decisions")
        ea.update(xa)
        eb.update(xb)
        cls.update({(k, i): c for i, c in _classes_of(a).items()})
        names[0].append(a["evaluator"])
        names[1].append(b["evaluator"])
    na, nb = ("+".join(dict.fromkeys(n)) for n in names)
    out = {"a": fa, "b": fb, "evaluator_a": na, "evaluator_b": nb, "by_class": {}}
    print(f"{na} - {nb}, millipoints per decision (paired, mean ± SE)")
    for c in (*classes_of_rows([{"class": c} for c in cls.values()]), "all_but_bearoff"):
        ids = [i for i in ea if (cls[i] != "bearoff" if c == "all_but_bearoff" else cls[i] == c)]
        if len(ids) < 2:
            continue
        d = np.array([ea[i] - eb[i] for i in ids])
        row = {"n": len(ids), "mean_a_mp": float(np.mean([ea[i] for i in ids])),
               "mean_b_mp": float(np.mean([eb[i] for i in ids])),
               "difference_mp": float(d.mean()),
               "se_mp": float(d.std(ddof=1) / math.sqrt(len(d)))}
        out["by_class"][c] = row
        print(f"  {c:16s} {len(ids):5d}  {row['mean_a_mp']:6.3f} vs {row['mean_b_mp']:6.3f}  "
              f"difference {row['difference_mp']:+.3f} ± {row['se_mp']:.3f}")
    if args.json:
        record.write_json(args.json, out)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="sample decisions and evaluate them with gnubg")
    b.add_argument("--contact", type=int, default=2000)
    b.add_argument("--crashed", type=int, default=600)
    b.add_argument("--race", type=int, default=1000)
    b.add_argument("--bearoff", type=int, default=300,
                   help="pure bear-off decisions (both sides in gnubg's database classes), "
                        "a separate class")
    b.add_argument("--seed", type=int, default=90001, help="self-play seed (benchmark: 90001)")
    b.add_argument("--player", choices=sorted(nn_selfplay.PLAYERS), default="nn",
                   help="who plays the games: the shipped nn (default), or nn1, the first "
                        "network, whose games gave the benchmark's decisions (its nn then)")
    b.add_argument("--explore", type=float, default=0.1)
    b.add_argument("--window", type=float, default=0.04)
    b.add_argument("--batch-games", type=int, default=500)
    b.add_argument("--max-games", type=int, default=60000)
    b.add_argument("--chunk", type=int, default=50, help="decisions per gnubg process")
    b.add_argument("--limit", type=int, default=0, help="evaluate only the first N selected (test)")
    b.add_argument("--nice", type=int, default=None, help="nice value for gnubg processes")
    b.add_argument("--gnubg")
    b.add_argument("--work", default=str(WORK))
    b.add_argument("--output", default=str(DECISIONS))
    b.add_argument("--meta", default=str(META))
    s = sub.add_parser("score", help="score an evaluator on the decisions")
    s.add_argument("--policy", default="nn")
    s.add_argument("--hook", help="FILE.py:NAME or module:NAME (see the module docstring)")
    s.add_argument("--hook-arg")
    s.add_argument("--name", help="name in the report and the JSON file name")
    s.add_argument("--decisions", default=str(DECISIONS))
    s.add_argument("--meta", default=str(META))
    s.add_argument("--output")
    c = sub.add_parser("compare", help="paired differences of two score reports")
    c.add_argument("a", help="a score report (JSON of `score`), or several comma-separated "
                   "(pooled)")
    c.add_argument("b", help="another report of the same decisions (as many, in the same order)")
    c.add_argument("--json", metavar="OUT", help="also write the differences to this JSON file")
    args = ap.parse_args(argv)
    return {"build": cmd_build, "score": cmd_score, "compare": cmd_compare}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())

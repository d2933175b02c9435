"""The family benchmark (issue 36): fastbg and GNU Backgammon 0-ply on positions self-play rarely reaches.

Positions come from ``families.py``'s generators (back games, ace-point games, primes,
crunched and crashed boards against anchors, bearing in and off against an anchor,
blitzes, mutual holding games, and ordinary self-play as a control), not from the
training data's distribution. For each position:

* the **label**: fastbg's own variance-reduced rollout (``fastbg.rollout``, the nets in
  use, ``--games`` games, one seed for all: common dice), as the issue asks;
* **GNU Backgammon's 0-ply evaluation** of it (a measuring stick, never a label);
* a **checker-play decision**: a seeded roll and every distinct legal play, each valued
  by GNU Backgammon at 2 ply (the reference) and 0 ply, in ``errorrate.py``'s decision
  format with the family as the class, so ``errorrate.py score`` reports the checker-play
  error per family for any evaluator beside gnubg 0-ply's;
* for a subset (``--per-family`` positions of each family), **GNU Backgammon's 0-ply
  rollout** (cubeless, its 0-ply chequer play, no variance reduction, ``--trials``), to
  compare fastbg's rollouts with.

Subcommands (each resumable: it keeps what it finished and skips it when run again):

``positions``   make the set: ``--n`` positions of each family (``--seed``: 90001 and up
                for benchmark sets, 1..89999 for training sets).
``label``       fastbg rollouts of the set (or of the rollout subset, ``--subset``).
``gnubg-eval``  GNU Backgammon's 0-ply evaluations of the set.
``decisions``   the checker-play decisions and their GNU Backgammon 2-ply/0-ply values.
``gnubg-rollout``  GNU Backgammon's 0-ply rollouts of the subset.
``referee``     where fastbg's and gnubg's 0-ply rollouts of a subset position disagree,
                both programs' 1-ply rollouts: which 0-ply player misplays it.
``score``       the report: per family, the 0-ply equity error of fastbg (the nets in use,
                or ``--nets``) and of gnubg 0-ply against the labels (mean absolute,
                bias with the family's subject on roll and not), and on the subset
                fastbg's rollouts against gnubg's.

Files: ``experiments/results/families/<set>_*.jsonl.gz`` (positions, labels, gnubg
values, decisions; small, kept in git) and ``experiments/runs/families/<set>/`` (work in
progress). Every result records the command, the fastbg version and the nets' SHA-256.

Usage::

    python experiments/family_bench.py positions --set bench --n 300 --seed 90001
    python experiments/family_bench.py label --set bench --games 1296 --part 0/2 &
    python experiments/family_bench.py label --set bench --games 1296 --part 1/2
    python experiments/family_bench.py gnubg-eval --set bench
    python experiments/family_bench.py decisions --set bench
    python experiments/family_bench.py gnubg-rollout --set bench --per-family 20
    python experiments/family_bench.py label --set bench --subset --games 5184 --name g18_sub
    python experiments/family_bench.py score --set bench
    python experiments/errorrate.py score --decisions experiments/results/families/bench_decisions.jsonl.gz \\
        --meta experiments/results/families/bench_decisions.meta.json --name g18_families
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "evaluator"))

import fastbg  # noqa: E402
from fastbg.spec import nets as ref_evaluator  # noqa: E402

import families  # noqa: E402
import gnubg_driver  # noqa: E402
import nn_selfplay  # noqa: E402
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)
import rollout_bias  # noqa: E402
import with_nets  # noqa: E402

RESULTS = HERE / "results" / "families"
RUNS = HERE / "runs" / "families"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def read_jsonl(path: Path) -> list[dict]:
    path = Path(path)
    if not path.exists():
        return []
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rt") as fh:
        for line in fh:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:      # a line cut short by an interruption
                    pass
    return out


def write_jsonl_gz(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", compresslevel=9) as fh:
        for r in rows:
            fh.write(json.dumps(r, separators=(",", ":")) + "\n")
    tmp.replace(path)


now = record.now
command = record.command


def nets_sha(path: str | None) -> str:
    if path:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return json.loads((ref_evaluator.nets_path().with_name("nn2.json")).read_text())["sha256"]


def use_nets(path: str | None) -> None:
    """Make ``path`` the nets of every ``nn`` policy in this process (with_nets.use_nets)."""
    if path:
        with_nets.use_nets(path)


def positions_file(name: str) -> Path:
    return RESULTS / f"{name}_positions.jsonl.gz"


def load_positions(name: str) -> list[dict]:
    rows = read_jsonl(positions_file(name))
    if not rows:
        raise SystemExit(f"no positions for set {name!r}: run `family_bench.py positions --set {name}` first")
    return rows


def board_of(row: dict) -> np.ndarray:
    return fastbg.Position.parse(row["position_id"]).board.astype(np.int8)


def subset(rows: list[dict], per_family: int, seed: int = 7) -> list[dict]:
    """The rollout subset: the first ``per_family`` positions of each family in a seeded
    random order (the same for every command)."""
    rng = np.random.Generator(np.random.PCG64DXSM(seed))
    out = []
    for fam in families.FAMILIES:
        rs = [r for r in rows if r["family"] == fam]
        idx = rng.permutation(len(rs))[:per_family]
        out += [rs[i] for i in sorted(idx)]
    return out


def interleave(rows: list[dict]) -> list[dict]:
    """The rows family by family in turn (so that a partial run covers every family)."""
    by = {f: [r for r in rows if r["family"] == f] for f in families.FAMILIES}
    out = []
    for k in range(max((len(v) for v in by.values()), default=0)):
        for f in families.FAMILIES:
            if k < len(by[f]):
                out.append(by[f][k])
    return out


def equity(p) -> float:
    return gnubg_driver.equity(p)


# ---------------------------------------------------------------------------
# positions


def cmd_positions(args) -> int:
    out = positions_file(args.set)
    if out.exists() and not args.force:
        raise SystemExit(f"{out} exists (use --force to make it again)")
    seen = set()
    for other in args.exclude or []:
        for r in load_positions(other):
            seen.add(board_of(r).tobytes())
    players = families.Players()
    rows = []
    t0 = time.perf_counter()
    for fam in families.FAMILIES:
        res = families.generate(fam, args.n, args.seed, players, seen)
        for k, b in enumerate(res["boards"]):
            rows.append({"id": f"{fam}-{k}", "family": fam,
                         "position_id": fastbg.Position.parse(b).to_position_id(),
                         "subject": int(res["subject"][k]), "forward": int(res["forward"][k]),
                         "attempt": int(res["attempt"][k])})
        log(f"{fam}: {len(res['boards'])} positions ({time.perf_counter() - t0:.0f} s)")
    write_jsonl_gz(out, rows)
    meta = {"command": command(), "date_utc": now(), "seed": args.seed, "per_family": args.n,
            "excluded_sets": args.exclude or [], "fastbg": nn_selfplay.provenance(),
            "generators": "experiments/families.py (set-ups, play on by fastbg's nets with "
                          "exploration, pubeval and random plays, kept if the family's rule holds)",
            "by_family": {f: sum(r["family"] == f for r in rows) for f in families.FAMILIES}}
    record.write_json(out.with_name(f"{args.set}_positions.meta.json"), meta)
    log(f"{len(rows)} positions -> {out}")
    return 0


# ---------------------------------------------------------------------------
# fastbg rollouts


def cmd_label(args) -> int:
    use_nets(args.nets)
    rows = load_positions(args.set)
    if args.subset:
        rows = subset(rows, args.per_family)
    rows = interleave(rows)
    part, parts = (int(x) for x in args.part.split("/"))
    rows = rows[part::parts]
    name = args.name or ("g18" if not args.nets else Path(args.nets).stem)
    work = RUNS / args.set / f"labels_{name}"
    work.mkdir(parents=True, exist_ok=True)
    meta = {"games": args.games, "seed": args.seed, "vr": True, "policy": "nn",
            "nets_sha256": nets_sha(args.nets), "subset": args.per_family if args.subset else None}
    mpath = work / "meta.json"
    if mpath.exists() and json.loads(mpath.read_text()) != meta:
        raise SystemExit(f"{work} holds labels made with other settings: {mpath.read_text()}")
    mpath.write_text(json.dumps(meta))
    done_file = work / f"part{part}of{parts}.jsonl"
    done = {r["id"] for r in read_jsonl(done_file)}
    todo = [r for r in rows if r["id"] not in done]
    log(f"label {name}: {len(done)} done, {len(todo)} to do ({args.games} games each)")
    t0 = time.perf_counter()
    with open(done_file, "a") as fh:
        for i, r in enumerate(todo):
            res = fastbg.rollout(board_of(r), args.games, seed=args.seed, workers=1, vr=True,
                                 policy="nn")
            p = [res.win, res.win_gammon, res.win_backgammon, res.lose_gammon, res.lose_backgammon]
            fh.write(json.dumps({"id": r["id"], "probs": [round(x, 6) for x in p],
                                 "equity": round(res.equity, 6),
                                 "se": round(res.stderr["equity"], 6), "games": res.games,
                                 "seconds": round(res.seconds, 3)}) + "\n")
            fh.flush()
            if (i + 1) % 25 == 0:
                el = time.perf_counter() - t0
                log(f"label {name}: {len(done) + i + 1}/{len(rows)}, "
                    f"about {el / (i + 1) * (len(todo) - i - 1) / 60:.0f} min left")
    collect_labels(args.set, name, meta)
    return 0


def collect_labels(set_name: str, name: str, meta: dict | None = None) -> Path:
    work = RUNS / set_name / f"labels_{name}"
    got = {}
    for f in sorted(work.glob("part*.jsonl")):
        for r in read_jsonl(f):
            got[r["id"]] = r
    order = {r["id"]: k for k, r in enumerate(load_positions(set_name))}
    rows = sorted(got.values(), key=lambda r: order[r["id"]])
    out = RESULTS / f"{set_name}_labels_{name}.jsonl.gz"
    write_jsonl_gz(out, rows)
    meta = meta or json.loads((work / "meta.json").read_text())
    record.write_json(out.with_name(f"{set_name}_labels_{name}.meta.json"),
        {**meta, "positions": len(rows), "date_utc": now(), "fastbg": nn_selfplay.provenance(),
         "what": "fastbg.rollout(position, games, seed, workers=1, vr=True, policy='nn'): "
                 "luck-adjusted probabilities (clipped), equity and its standard error"})
    return out


# ---------------------------------------------------------------------------
# GNU Backgammon


def cmd_gnubg_eval(args) -> int:
    exe = gnubg_driver.require_gnubg(args.gnubg)
    gnubg_driver.check_conventions(exe)
    rows = load_positions(args.set)
    work = RUNS / args.set
    work.mkdir(parents=True, exist_ok=True)
    raw = work / "gnubg_eval.jsonl"
    done = {r["key"] for r in read_jsonl(raw)}
    todo = [r for r in rows if r["id"] not in done]
    for i in range(0, len(todo), 200):
        chunk = todo[i:i + 200]
        gnubg_driver.batch(exe, [{"key": r["id"], "classify": [r["position_id"]],
                                  "evaluate": [r["position_id"]]} for r in chunk],
                           raw, contexts=("0ply",), nice=args.nice)
        log(f"gnubg 0-ply: {len(done) + i + len(chunk)}/{len(rows)}")
    got = {r["key"]: r for r in read_jsonl(raw)}
    out = [{"id": r["id"], "gnubg_class": got[r["id"]]["class"][0],
            "probs": got[r["id"]]["eval"]["0ply"][0][:5],
            "equity": round(equity(got[r["id"]]["eval"]["0ply"][0]), 6)} for r in rows if r["id"] in got]
    path = RESULTS / f"{args.set}_gnubg0.jsonl.gz"
    write_jsonl_gz(path, out)
    record.write_json(path.with_name(f"{args.set}_gnubg0.meta.json"),
        {"command": command(), "date_utc": now(), "gnubg": gnubg_driver.gnubg_version(exe),
         "what": "gnubg.evaluate(position, cubeless money, centred cube, 0 ply, prune), the side "
                 "on roll before its roll; gnubg_class is gnubg.classifypos"})
    log(f"{len(out)} evaluations -> {path}")
    return 0


def decision_of(row: dict, seed: int) -> dict | None:
    """A seeded roll of the position with at least two distinct legal plays (up to 20
    tries), as errorrate.py's decision dict without the gnubg values; None if none."""
    pos = fastbg.Position.parse(row["position_id"])
    key = int(hashlib.sha256(row["id"].encode()).hexdigest()[:8], 16)
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(key,))))
    for _ in range(20):
        d1, d2 = sorted((int(rng.integers(1, 7)), int(rng.integers(1, 7))), reverse=True)
        plays = fastbg.legal_plays(pos, f"{d1}{d2}")
        if len(plays) >= 2:
            return {"id": row["id"], "game": -1, "turn": -1, "position_id": row["position_id"],
                    "dice": [d1, d2], "class": row["family"], "gnubg_class": None,
                    "nplays": len(plays)}
    return None


def cmd_decisions(args) -> int:
    import errorrate
    exe = gnubg_driver.require_gnubg(args.gnubg)
    gnubg_driver.check_conventions(exe)
    rows = interleave(load_positions(args.set))
    work = RUNS / args.set
    work.mkdir(parents=True, exist_ok=True)
    raw = work / "decisions_evals.jsonl"
    decisions = [d for d in (decision_of(r, args.seed) for r in rows) if d is not None]
    done = {r["key"] for r in read_jsonl(raw)}
    todo = [d for d in decisions if d["id"] not in done]
    log(f"decisions: {len(decisions)} of {len(rows)} positions, {len(done)} done")
    t0 = time.perf_counter()
    for i in range(0, len(todo), args.chunk):
        chunk = todo[i:i + args.chunk]
        tasks = []
        for d in chunk:
            plays = errorrate.play_list(d)
            tasks.append({"key": d["id"], "classify": [d["position_id"]],
                          "evaluate": [p["position_id"] for p in plays if not p["over"]]})
        gnubg_driver.batch(exe, tasks, raw, contexts=("0ply", "2ply"), nice=args.nice)
        n = i + len(chunk)
        el = time.perf_counter() - t0
        log(f"decisions: {len(done) + n}/{len(decisions)}, about {el / n * (len(todo) - n) / 60:.0f} min left")
    evals = {r["key"]: r for r in read_jsonl(raw)}
    out_rows = []
    for d in decisions:
        if d["id"] not in evals:
            continue
        ev = evals[d["id"]]
        it0, it2 = iter(ev["eval"]["0ply"]), iter(ev["eval"]["2ply"])
        plays = []
        for p in errorrate.play_list(d):
            if p["over"]:
                eq0 = eq2 = p["terminal"]
            else:
                eq0, eq2 = -equity(next(it0)), -equity(next(it2))
            plays.append({"move": p["move"], "position_id": p["position_id"],
                          "eq2": round(eq2, 5), "eq0": round(eq0, 5)})
        out_rows.append({k: d[k] for k in ("id", "game", "turn", "position_id", "dice", "class")}
                        | {"gnubg_class": ev["class"][0], "plays": plays})
    path = RESULTS / f"{args.set}_decisions.jsonl.gz"
    write_jsonl_gz(path, out_rows)
    record.write_json(path.with_name(f"{args.set}_decisions.meta.json"), (
        {"benchmark": "experiments/family_bench.py decisions", "command": command(),
         "date_utc": now(), "decisions": len(out_rows),
         "by_class": {f: sum(r["class"] == f for r in out_rows) for f in families.FAMILIES},
         "gnubg": {"program": exe, "version": gnubg_driver.gnubg_version(exe),
                   "reference": "as errorrate.py build: gnubg.evaluate(board after the play, "
                                "opponent on roll), cubeless money, 2 ply (eq2) and 0 ply (eq0), "
                                "prune on; plays that end the game score their exact points"},
         "sampling": {"positions": f"{args.set}_positions.jsonl.gz", "seed": args.seed,
                      "rule": "per position a roll from PCG64DXSM(SeedSequence(seed, spawn_key="
                              "(sha256(id)[:8],))), re-rolled (up to 20 times) until it has 2+ "
                              "distinct legal plays; class = the position's family"},
         "fastbg": nn_selfplay.provenance()}))
    log(f"{len(out_rows)} decisions -> {path}")
    return 0


def gnubg_rollout_commands(trials: int, seed: int, vr: bool) -> list[str]:
    cmds = [c for c in rollout_bias.gnubg_commands(trials, seed) if "varredn" not in c]
    return cmds + [f"set rollout varredn {'on' if vr else 'off'}"]


def cmd_gnubg_rollout(args) -> int:
    exe = gnubg_driver.require_gnubg(args.gnubg)
    gnubg_driver.check_conventions(exe)
    rows = interleave(subset(load_positions(args.set), args.per_family))
    work = RUNS / args.set
    work.mkdir(parents=True, exist_ok=True)
    raw = work / f"gnubg_rollouts_{args.trials}.jsonl"
    done = {r["id"] for r in read_jsonl(raw)}
    todo = [r for r in rows if r["id"] not in done]
    commands = gnubg_rollout_commands(args.trials, args.seed, args.vr)
    log(f"gnubg rollouts: {len(done)} done, {len(todo)} to do, {args.trials} trials")
    t0 = time.perf_counter()
    for i, r in enumerate(todo):
        xgid = fastbg.Position.parse(r["position_id"]).to_xgid()
        res = gnubg_driver.rollout(exe, xgid, commands, nice=args.nice)
        if res["position_id"] != r["position_id"]:
            raise RuntimeError(f"{r['id']}: gnubg loaded {res['position_id']}")
        res["id"] = r["id"]
        with open(raw, "a") as fh:
            fh.write(json.dumps(res) + "\n")
        el = time.perf_counter() - t0
        log(f"gnubg rollout {len(done) + i + 1}/{len(rows)} {r['id']}: {res['equity']:+.3f} "
            f"± {res['equity_stderr']:.3f} ({res['seconds']:.0f} s), about "
            f"{el / (i + 1) * (len(todo) - i - 1) / 60:.0f} min left")
    got = read_jsonl(raw)
    path = RESULTS / f"{args.set}_gnubg_rollouts.jsonl.gz"
    write_jsonl_gz(path, got)
    record.write_json(path.with_name(f"{args.set}_gnubg_rollouts.meta.json"), (
        {"command": command(), "date_utc": now(), "gnubg": gnubg_driver.gnubg_version(exe),
         "commands": commands, "per_family": args.per_family,
         "what": "gnubg's cubeless 0-ply rollout of the position (dice not rolled), its "
                 "equity and standard error; a measuring stick, never a training label"}))
    log(f"{len(got)} rollouts -> {path}")
    return 0


def cmd_referee(args) -> int:
    """Deeper rollouts where fastbg's and gnubg's 0-ply rollouts of the subset disagree."""
    exe = gnubg_driver.require_gnubg(args.gnubg)
    use_nets(args.nets)
    me = "fastbg_1ply" if not args.nets else f"fastbg_1ply_{Path(args.nets).stem}"
    gr = {r["id"]: r for r in read_jsonl(RESULTS / f"{args.set}_gnubg_rollouts.jsonl.gz")}
    fr = {r["id"]: r for r in read_jsonl(RESULTS / f"{args.set}_labels_{args.rollouts}.jsonl.gz")}
    rows = {r["id"]: r for r in load_positions(args.set)}
    ids = sorted((i for i in gr if i in fr and abs(fr[i]["equity"] - gr[i]["equity"]) > args.threshold),
                 key=lambda i: -abs(fr[i]["equity"] - gr[i]["equity"]))
    work = RUNS / args.set
    work.mkdir(parents=True, exist_ok=True)
    raw = work / "referee.jsonl"
    done = {(r["id"], r["who"]) for r in read_jsonl(raw)}
    commands = [c.replace("chequerplay plies 0", "chequerplay plies 1")
                for c in gnubg_rollout_commands(args.trials, args.seed, False)]
    log(f"referee: {len(ids)} positions where the 0-ply rollouts differ by more than {args.threshold}")
    for i in ids:
        if (i, me) not in done:
            res = fastbg.rollout(board_of(rows[i]), args.games, seed=args.seed, workers=args.workers,
                                 policy="nn-1ply", vr=True)
            rec = {"id": i, "who": me, "equity": res.equity, "se": res.stderr["equity"],
                   "games": res.games, "seconds": res.seconds}
            with open(raw, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            log(f"{i}: {me} {res.equity:+.3f} ± {res.stderr['equity']:.3f}")
        if (i, "gnubg_1ply") not in done:
            xgid = fastbg.Position.parse(rows[i]["position_id"]).to_xgid()
            r = gnubg_driver.rollout(exe, xgid, commands, nice=args.nice)
            rec = {"id": i, "who": "gnubg_1ply", "equity": r["equity"], "se": r["equity_stderr"],
                   "games": r["games"], "seconds": r["seconds"]}
            with open(raw, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            log(f"{i}: gnubg 1-ply {r['equity']:+.3f} ± {r['equity_stderr']:.3f} "
                f"(0-ply: fastbg {fr[i]['equity']:+.3f}, gnubg {gr[i]['equity']:+.3f})")
    got = read_jsonl(raw)
    out = []
    for i in ids:
        d = {"id": i, "position_id": rows[i]["position_id"], "fastbg_0ply_rollout": fr[i]["equity"],
             "fastbg_0ply_rollouts_name": args.rollouts,
             "gnubg_0ply_rollout": gr[i]["equity"]}
        for r in got:
            if r["id"] == i:
                d[r["who"] + "_rollout"] = r["equity"]
                d[r["who"] + "_se"] = r["se"]
        out.append(d)
    path = RESULTS / f"{args.set}_referee.jsonl.gz"
    write_jsonl_gz(path, out)
    record.write_json(path.with_name(f"{args.set}_referee.meta.json"), (
        {"command": command(), "date_utc": now(), "gnubg": gnubg_driver.gnubg_version(exe),
         "gnubg_commands": commands, "fastbg": nn_selfplay.provenance(),
         "what": "where fastbg's and gnubg's 0-ply rollouts of a subset position differ by more "
                 "than the threshold, both programs' 1-ply rollouts (fastbg: policy nn-1ply, "
                 "variance-reduced; gnubg: chequer play at 1 ply, no variance reduction): which "
                 "0-ply player misplays the position"}))
    for d in out:
        print(f"{d['id']:18s} 0-ply: fastbg {d['fastbg_0ply_rollout']:+.3f} gnubg {d['gnubg_0ply_rollout']:+.3f}"
              f"   1-ply: fastbg {d.get(me + '_rollout', float('nan')):+.3f} "
              f"gnubg {d.get('gnubg_1ply_rollout', float('nan')):+.3f}")
    return 0


# ---------------------------------------------------------------------------
# score


def mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, float)
    if len(x) == 0:
        return float("nan"), float("nan")
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")


def fastbg_equities(boards: np.ndarray) -> np.ndarray:
    p = fastbg.nn.evaluate_many(boards)
    return (2 * p[:, 0] - 1) + (p[:, 1] - p[:, 3]) + (p[:, 2] - p[:, 4])


def cmd_score(args) -> int:
    use_nets(args.nets)
    rows = load_positions(args.set)
    labels = {r["id"]: r for r in read_jsonl(RESULTS / f"{args.set}_labels_{args.labels}.jsonl.gz")}
    g0 = {r["id"]: r for r in read_jsonl(RESULTS / f"{args.set}_gnubg0.jsonl.gz")}
    boards = np.array([board_of(r) for r in rows])
    fb = fastbg_equities(boards)
    name = args.name or ("g18" if not args.nets else Path(args.nets).stem)
    report = {"command": command(), "date_utc": now(), "set": args.set, "evaluator": name,
              "nets_sha256": nets_sha(args.nets), "labels": args.labels,
              "fastbg": nn_selfplay.provenance(), "by_family": {}}
    table = []
    for fam in families.FAMILIES + ("all",):
        idx = [k for k, r in enumerate(rows) if (fam == "all" or r["family"] == fam)
               and r["id"] in labels and r["id"] in g0]
        if not idx:
            continue
        lab = np.array([labels[rows[k]["id"]]["equity"] for k in idx])
        se = np.array([labels[rows[k]["id"]]["se"] for k in idx])
        ef = fb[idx] - lab
        eg = np.array([g0[rows[k]["id"]]["equity"] for k in idx]) - lab
        subj_on_roll = np.array([rows[k]["subject"] == 0 for k in idx])
        fam_rep = {"n": len(idx), "label_se_mean": float(se.mean()),
                   "fastbg_mae": mean_se(np.abs(ef)), "gnubg0_mae": mean_se(np.abs(eg)),
                   "mae_difference": mean_se(np.abs(ef) - np.abs(eg)),
                   "fastbg_bias_subject_on_roll": mean_se(ef[subj_on_roll]),
                   "fastbg_bias_subject_not_on_roll": mean_se(ef[~subj_on_roll]),
                   "gnubg0_bias_subject_on_roll": mean_se(eg[subj_on_roll]),
                   "gnubg0_bias_subject_not_on_roll": mean_se(eg[~subj_on_roll]),
                   "fastbg_over_0.1": int((np.abs(ef) > 0.1).sum()),
                   "gnubg0_over_0.1": int((np.abs(eg) > 0.1).sum())}
        report["by_family"][fam] = fam_rep
        table.append((fam, fam_rep))
    # rollouts of the subset: fastbg's (labels of a subset run, or the full labels) v gnubg's
    gr = {r["id"]: r for r in read_jsonl(RESULTS / f"{args.set}_gnubg_rollouts.jsonl.gz")}
    sub = {r["id"]: r for r in read_jsonl(RESULTS / f"{args.set}_labels_{args.rollouts}.jsonl.gz")} \
        if args.rollouts else labels
    roll = {}
    for fam in families.FAMILIES + ("all",):
        ids = [i for i in gr if i in sub and (fam == "all" or i.rsplit("-", 1)[0] == fam)]
        if not ids:
            continue
        d = np.array([sub[i]["equity"] - gr[i]["equity"] for i in ids])
        noise = np.array([math.hypot(sub[i]["se"], gr[i]["equity_stderr"]) for i in ids])
        worst = ids[int(np.argmax(np.abs(d)))]
        roll[fam] = {"n": len(ids), "mean_abs_difference": float(np.abs(d).mean()),
                     "mean_difference": mean_se(d), "over_0.08": int((np.abs(d) > 0.08).sum()),
                     "noise_se_mean": float(noise.mean()),
                     "expected_mean_abs_from_noise": float(np.mean(noise) * math.sqrt(2 / math.pi)),
                     "worst": {"id": worst, "difference": float(d[ids.index(worst)])}}
    report["rollouts_vs_gnubg"] = {"fastbg": args.rollouts or args.labels, "by_family": roll}
    checker = {}
    if args.checker:                 # an errorrate.py score report of this set's decisions
        rep = json.loads(Path(args.checker).read_text())
        for fam, c in rep["by_class"].items():
            checker[fam] = {"n": c["evaluator"]["n"], "fastbg_mp": c["evaluator"]["mean_mp"],
                            "gnubg0_mp": c["gnubg_0ply"]["mean_mp"],
                            "difference_mp": [c["difference_mp"]["mean_mp"], c["difference_mp"]["se_mp"]]}
        report["checker_play_vs_gnubg_2ply"] = {"report": args.checker, "by_family": checker}
    out = Path(args.output or RESULTS / f"{args.set}_score_{name}.json")
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"0-ply cubeless equity error against fastbg's rollouts (labels `{args.labels}`), set `{args.set}`, evaluator `{name}`\n")
    print("| family | n | fastbg MAE | gnubg 0-ply MAE | fastbg - gnubg | fastbg bias, subject on roll / not | gnubg bias, on roll / not |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fam, r in table:
        print(f"| {fam} | {r['n']} | {r['fastbg_mae'][0]:.3f} | {r['gnubg0_mae'][0]:.3f} | "
              f"{r['mae_difference'][0]:+.3f} ± {r['mae_difference'][1]:.3f} | "
              f"{r['fastbg_bias_subject_on_roll'][0]:+.3f} / {r['fastbg_bias_subject_not_on_roll'][0]:+.3f} | "
              f"{r['gnubg0_bias_subject_on_roll'][0]:+.3f} / {r['gnubg0_bias_subject_not_on_roll'][0]:+.3f} |")
    if checker:
        print(f"\nChecker-play error against GNU Backgammon 2-ply, millipoints per decision ({args.checker})\n")
        print("| family | decisions | fastbg | gnubg 0-ply | fastbg - gnubg |")
        print("|---|---:|---:|---:|---:|")
        for fam, c in checker.items():
            print(f"| {fam} | {c['n']} | {c['fastbg_mp']:.2f} | {c['gnubg0_mp']:.2f} | "
                  f"{c['difference_mp'][0]:+.2f} ± {c['difference_mp'][1]:.2f} |")
    if roll:
        print(f"\nfastbg rollouts (`{args.rollouts or args.labels}`) against GNU Backgammon 0-ply rollouts\n")
        print("| family | n | mean abs. difference | mean difference | over 0.08 | from noise alone | worst |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for fam, r in roll.items():
            print(f"| {fam} | {r['n']} | {r['mean_abs_difference']:.3f} | {r['mean_difference'][0]:+.3f} | "
                  f"{r['over_0.08']} | {r['expected_mean_abs_from_noise']:.3f} | "
                  f"{r['worst']['id']} {r['worst']['difference']:+.3f} |")
    print(f"\nJSON: {out}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def add(name, fn, help):
        p = sub.add_parser(name, help=help)
        p.add_argument("--set", default="bench", help="the position set's name (default bench)")
        p.set_defaults(fn=fn)
        return p

    p = add("positions", cmd_positions, "make a position set")
    p.add_argument("--n", type=int, default=300, help="positions per family")
    p.add_argument("--seed", type=int, default=90001)
    p.add_argument("--exclude", nargs="*", help="sets whose positions this one must not repeat")
    p.add_argument("--force", action="store_true")
    p = add("label", cmd_label, "fastbg rollouts of the positions")
    p.add_argument("--games", type=int, default=1296)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nets", help="nets file (default: the shipped nets)")
    p.add_argument("--name", help="the labels' name (default g18, or the nets file's stem)")
    p.add_argument("--part", default="0/1", help="K/N: the K-th of N interleaved parts (one process each)")
    p.add_argument("--subset", action="store_true", help="only the rollout subset")
    p.add_argument("--per-family", type=int, default=20)
    p = add("gnubg-eval", cmd_gnubg_eval, "GNU Backgammon 0-ply evaluations")
    p.add_argument("--gnubg")
    p.add_argument("--nice", type=int, default=None)
    p = add("decisions", cmd_decisions, "checker-play decisions valued by GNU Backgammon")
    p.add_argument("--seed", type=int, default=90101)
    p.add_argument("--chunk", type=int, default=50)
    p.add_argument("--gnubg")
    p.add_argument("--nice", type=int, default=None)
    p = add("gnubg-rollout", cmd_gnubg_rollout, "GNU Backgammon 0-ply rollouts of the subset")
    p.add_argument("--per-family", type=int, default=20)
    p.add_argument("--trials", type=int, default=5184)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--vr", action="store_true", help="gnubg's variance reduction (off by default: "
                   "at 0 ply it costs gnubg about 20x per game)")
    p.add_argument("--gnubg")
    p.add_argument("--nice", type=int, default=None)
    p = add("referee", cmd_referee, "1-ply rollouts of both programs where their 0-ply rollouts disagree")
    p.add_argument("--rollouts", default="g18_sub", help="fastbg's rollouts of the subset (a labels name)")
    p.add_argument("--threshold", type=float, default=0.08)
    p.add_argument("--games", type=int, default=1296, help="fastbg nn-1ply games")
    p.add_argument("--nets", help="nets file of fastbg's 1-ply rollouts (default: the shipped nets)")
    p.add_argument("--trials", type=int, default=1296, help="gnubg 1-ply trials")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--gnubg")
    p.add_argument("--nice", type=int, default=None)
    p = add("score", cmd_score, "the report")
    p.add_argument("--labels", default="g18", help="the labels' name")
    p.add_argument("--rollouts", help="the fastbg rollouts of the subset to compare with gnubg's "
                   "(a labels name; default: --labels)")
    p.add_argument("--nets")
    p.add_argument("--name")
    p.add_argument("--output")
    p.add_argument("--checker", help="an errorrate.py score report of the set's decisions "
                   "(the checker-play error per family, beside gnubg 0-ply's)")
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())

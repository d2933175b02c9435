"""Self-consistency probe of fastbg's evaluator: where its 0-ply value and its own rollout disagree, and why.

The family benchmark (``family_bench.py``) measures fastbg on the kinds of positions
somebody thought of. This probe looks for the ones nobody thought of. For every position
of a set it compares two of fastbg's own numbers, which need no outside reference:

* the nets' **0-ply** cubeless equity (``fastbg.nn.evaluate_many``), and
* fastbg's **rollout** of the position (``fastbg.rollout``, the same nets playing at 0 ply,
  variance reduction, ``--games`` games, seed ``--rollout-seed``, one worker).

Where they differ by more than ``--threshold`` (the position is *flagged*), one of them is
wrong, and two more rollouts of the position (cubeless, no variance reduction) tell which:
GNU Backgammon's 0-ply player (``--gnubg-trials``; a measuring stick, never a label) and
pubeval (``--pubeval-games``). A flagged position is diagnosed

``evaluation``
    fastbg's rollout agrees with gnubg's, within ``max(0.05, 3 x their combined standard
    error)``: fastbg plays the position well, only its 0-ply value of it is off (what more
    training on rollouts of such positions fixes);
``play``
    fastbg's rollout disagrees with gnubg's by more than that: fastbg's player misplays the
    position (or the positions it leads to), so its own rollouts of it are off too and
    cannot serve as labels there. ``pubeval_sides`` says whether pubeval's rollout agrees
    with gnubg's, with fastbg's, with both or with neither.

Every flagged position also records the 0-ply value against gnubg's rollout.

Sources of positions (``--source``):

``set:NAME``
    a family-benchmark set (``experiments/results/families/NAME_positions.jsonl.gz``),
    family by family in turn (so a partial run covers every family);
``file:PATH``
    a text file of Position IDs (or XGIDs without dice), one a line (blank lines and
    ``#`` comments skipped), or an ``.npz`` with ``boards`` (n, 2, 25);
``generated:N``
    N contact positions made here from ``--seed`` (default 90501; benchmark seeds are
    90001 and up, training seeds 1..89999), to find families nobody listed: a third each
    of three kinds (position i is of kind ``wild``, ``pubeval``, ``drift`` by i mod 3), each
    from the next *try* t (a game, or a set-up played on) that gives a new position:

    * ``wild``: a game from the opening (``experiments/evaluator/positions.py``'s wild
      kind, game t): one side plays random plays for its first 3-12 turns, then both
      play fastbg's nets, choosing among the plays within 0.1 of their best 30% of the
      time; one random contact position of the game is kept;
    * ``pubeval``: as ``wild``, but one side plays pubeval throughout;
    * ``drift``: a set-up of a random family (``families.SETUPS``), sides swapped at
      random, then 10-40 half-moves of uniformly random legal plays, so that the
      position drifts out of the family; the last contact position is kept.

    Only contact positions (``position_class == "contact"``) are kept, de-duplicated.
    Try t's dice come from ``PCG64DXSM(SeedSequence(seed, spawn_key=(t,)))`` (drift:
    ``spawn_key=(2**20, t)``; the pick of a game's position ``(2**21, t)``), so the first M
    positions of ``generated:N`` are those of ``generated:M``, and ``--nets`` changes them
    (the nets play the games). The positions, their kind and their game and ply (or
    set-up and half-moves) are stored with the run.

Every position is also sorted into the families whose rule it meets (``families.classify``;
``none`` if none), and the report summarises by family and by source kind and lists the
15 largest disagreements with their Position IDs: a family where fastbg goes wrong that
has no rule shows there as positions of ``none`` that look alike.

Stages (``--stage``): ``fastbg`` runs only the cheap part (0-ply and fastbg's rollout of
every position); ``full`` (default) then rolls the flagged positions out with gnubg and
pubeval, largest disagreement first.

Files: ``experiments/runs/families/probe_<name>/`` holds the run's settings
(``meta.json``; a rerun with other settings is refused), the generated positions
(``positions.jsonl.gz``) and ``results.jsonl``, one line per position and stage
(``fastbg``, ``gnubg``, ``pubeval``) appended as soon as it is computed, so an
interrupted run keeps what it finished and a rerun skips it. The report goes to
``experiments/results/families/probe_<name>.json`` (command, date, settings, nets
SHA-256, fastbg and gnubg versions, one row per position, the summaries) and, as
Markdown, to stdout.

Usage::

    python experiments/probe.py --source generated:3000 --name gen3000 --stage fastbg
    python experiments/probe.py --source generated:3000 --name gen3000
    python experiments/probe.py --source set:bench --games 1296 --threshold 0.08
    python experiments/probe.py --source file:/tmp/ids.txt --nets /tmp/g19.npz --name g19_ids
    python experiments/probe.py --source generated:6 --games 36 --limit 2 --name smoke
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "evaluator"))

import fastbg  # noqa: E402
from fastbg.reference.board import validate_board  # noqa: E402
from fastbg.reference.features import position_class  # noqa: E402

import families  # noqa: E402
import family_bench as fb  # noqa: E402
import gnubg_driver  # noqa: E402
import nn_selfplay  # noqa: E402
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)

#: The kinds of generated positions, position i being of kind KINDS[i % 3].
KINDS = ("wild", "pubeval", "drift")
#: Exploration of the nets in the generated games: share of choices among near-best plays, and the window.
EXPLORE, WINDOW = 0.3, 0.1
#: Half-moves of random plays after a drift set-up (inclusive range).
DRIFT_HALF_MOVES = (10, 40)
#: Smallest tolerance of the rollout comparisons (equity), whatever the standard errors.
MIN_TOLERANCE = 0.05
#: How many of the largest disagreements the report lists.
TOP = 15


# ---------------------------------------------------------------------------
# small helpers


def equities(probs: np.ndarray) -> np.ndarray:
    """Cubeless equities of rows of (win, wg, wbg, lg, lbg)."""
    p = np.asarray(probs, float).reshape(-1, 5)
    return (2 * p[:, 0] - 1) + (p[:, 1] - p[:, 3]) + (p[:, 2] - p[:, 4])


def playable(b: np.ndarray) -> bool:
    """A legal board with both sides still in the game."""
    try:
        validate_board(b)
    except ValueError:
        return False
    return bool(b[0].any() and b[1].any())


def is_contact(b: np.ndarray) -> bool:
    return playable(b) and position_class(b) == "contact"


def position_id(b: np.ndarray) -> str:
    return fastbg.Position.parse(np.asarray(b, np.int8)).to_position_id()


def generator(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=key)))


def tolerance(*ses: float) -> float:
    """How far two rollouts may differ and still agree: ``max(0.05, 3 x combined SE)``."""
    return max(MIN_TOLERANCE, 3.0 * math.sqrt(sum(s * s for s in ses)))


command = record.command


# ---------------------------------------------------------------------------
# sources of positions


def parse_source(text: str) -> tuple[str, str]:
    """``set:NAME``, ``file:PATH`` or ``generated:N`` as (kind, value); ValueError if not."""
    kind, sep, value = text.partition(":")
    if not sep or kind not in ("set", "file", "generated") or not value:
        raise ValueError(f"--source is set:NAME, file:PATH or generated:N, got {text!r}")
    if kind == "generated" and (not value.isdigit() or int(value) < 1):
        raise ValueError(f"generated:N needs a whole number N >= 1, got {value!r}")
    if kind == "set" and not fb.positions_file(value).exists():
        raise ValueError(f"no position set {value!r}: {fb.positions_file(value)} does not exist "
                         f"(make it with `family_bench.py positions --set {value}`)")
    if kind == "file" and not Path(value).is_file():
        raise ValueError(f"no file {value}")
    return kind, value


def row(pid: str, ident: str, source: str, **detail) -> dict:
    return {"id": ident, "position_id": pid, "source": source, "detail": detail}


def set_positions(name: str) -> list[dict]:
    """A family-benchmark set's positions, family by family in turn."""
    return [row(r["position_id"], r["id"], f"set:{name}:{r['family']}", family=r["family"], subject=r.get("subject"))
            for r in fb.interleave(fb.load_positions(name))]


def file_boards(path: Path) -> list[np.ndarray]:
    """The boards of a file of Position IDs (or XGIDs) or of an npz with ``boards``;
    ValueError naming the first bad entry."""
    if path.suffix == ".npz":
        with np.load(path) as z:
            if "boards" not in z:
                raise ValueError(f"{path} has no array 'boards' (it has {', '.join(z.files)})")
            arr = np.asarray(z["boards"])
        if arr.ndim != 3 or arr.shape[1:] != (2, 25):
            raise ValueError(f"{path}: 'boards' must be (n, 2, 25), got {arr.shape}")
        return [a.astype(np.int8) for a in arr]
    out = []
    for k, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            out.append(fastbg.Position.parse(text).board.astype(np.int8))
        except ValueError as e:
            raise ValueError(f"{path}, line {k}: {text!r} is not a position ({e})") from None
    return out


def file_positions(path: Path) -> list[dict]:
    """A file's positions, de-duplicated, without finished games."""
    rows, seen = [], set()
    for k, b in enumerate(file_boards(path)):
        if not playable(b):
            fb.log(f"{path}: entry {k + 1} is not a position in play, skipped")
            continue
        if b.tobytes() in seen:
            continue
        seen.add(b.tobytes())
        rows.append(row(position_id(b), f"f{k}", f"file:{path.name}", entry=k))
    return rows


class PositionMaker:
    """The generated positions of one seed (see the module docstring): ``take(n)`` the first n."""

    def __init__(self, seed: int):
        from fastbg._core.evaluator import EvalPolicy
        from fastbg import get_engine
        self.seed = seed
        self.eng = get_engine("cython")
        self.nn = EvalPolicy()          # the nets in use (family_bench.use_nets before)
        self.pubeval = self.eng.make_policy("pubeval")

    def game_position(self, k: int, kind: str, seen: set):
        """One random contact position not in ``seen`` of game k of ``kind`` (wild or pubeval), and where it came from."""
        import positions as games
        boards = [(ply, b.copy()) for ply, b, _ in games.play_game(self.eng, self.nn, self.pubeval, self.seed, k,
                                                                     kind, EXPLORE, WINDOW)
                  if is_contact(b) and b.tobytes() not in seen]
        if not boards:
            return None
        ply, b = boards[int(generator(self.seed, 2**21, k).integers(0, len(boards)))]
        return b, {"game": k, "ply": ply}

    def random_half_move(self, rng, b: np.ndarray) -> np.ndarray:
        """A uniformly random legal play of a random roll; the board with the other side on roll."""
        d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        plays = self.eng.legal_plays(np.ascontiguousarray(b, np.int8), d1, d2)
        if len(plays):
            b = np.array(plays[int(rng.integers(0, len(plays)))], np.int8)
        return b[::-1].copy()

    def drift_position(self, k: int, seen: set):
        """The last contact position not in ``seen`` of 10-40 random half-moves from a random set-up."""
        rng = generator(self.seed, 2**20, k)
        fam = list(families.SETUPS)[int(rng.integers(0, len(families.SETUPS)))]
        b = families.SETUPS[fam](rng)
        if b is None:
            return None
        b = b.astype(np.int8)
        if rng.random() < 0.5:
            b = b[::-1].copy()
        if not is_contact(b):
            return None
        last = None
        for h in range(1, int(rng.integers(DRIFT_HALF_MOVES[0], DRIFT_HALF_MOVES[1] + 1)) + 1):
            b = self.random_half_move(rng, b)
            if not playable(b):
                break
            if is_contact(b) and b.tobytes() not in seen:
                last = (b.copy(), {"setup": fam, "half_moves": h})
        return last

    def take(self, n: int) -> list[dict]:
        """The first ``n`` generated positions: position i is of kind KINDS[i % 3], from the
        first try (game or set-up) t after position i - 1's that gives a new contact position."""
        rows, seen, t = [], set(), 0
        t0 = time.perf_counter()
        while len(rows) < n:
            if t > 50 * n + 100:
                raise RuntimeError(f"only {len(rows)} new contact positions from {t} tries")
            kind = KINDS[len(rows) % len(KINDS)]
            got = self.drift_position(t, seen) if kind == "drift" else self.game_position(t, kind, seen)
            t += 1
            if got is None:
                continue
            b, detail = got
            seen.add(b.tobytes())
            rows.append(row(position_id(b), f"g{len(rows)}", kind, **detail))
            if len(rows) % 200 == 0:
                fb.log(f"generated {len(rows)}/{n} ({time.perf_counter() - t0:.0f} s)")
        return rows


def generated_positions(n: int, seed: int, work: Path) -> list[dict]:
    """The first ``n`` generated positions, from the run's cache when it has them."""
    cache = work / "positions.jsonl.gz"
    have = fb.read_jsonl(cache)
    if len(have) >= n:
        return have[:n]
    fb.log(f"generating {n} positions (seed {seed})")
    rows = PositionMaker(seed).take(n)
    if [r["position_id"] for r in have] != [r["position_id"] for r in rows[:len(have)]]:
        raise SystemExit(f"{cache} holds other positions than seed {seed} makes now (other nets?); use another --name")
    fb.write_jsonl_gz(cache, rows)
    return rows


def load_source(kind: str, value: str, args, work: Path) -> list[dict]:
    """The positions to probe (the first ``--limit`` of them)."""
    if kind == "set":
        rows = set_positions(value)
    elif kind == "file":
        rows = file_positions(Path(value))
    else:
        n = int(value) if args.limit is None else min(int(value), args.limit)
        rows = generated_positions(n, args.seed, work)
    return rows if args.limit is None else rows[:args.limit]


# ---------------------------------------------------------------------------
# the run's files


def settings(args, kind: str, value: str) -> dict:
    """What the stored results depend on (a rerun must have the same; not N of generated:N, whose
    first M positions are those of generated:M)."""
    s = {"source": "generated" if kind == "generated" else f"{kind}:{value}", "games": args.games, "rollout_seed": args.rollout_seed,
         "gnubg_trials": args.gnubg_trials, "pubeval_games": args.pubeval_games,
         "nets_sha256": fb.nets_sha(args.nets)}
    if kind == "generated":
        s["seed"] = args.seed
    return s


def check_meta(work: Path, meta: dict) -> None:
    """Write the run's settings, or refuse if the run was made with others."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / "meta.json"
    if path.exists():
        old = json.loads(path.read_text())
        if old != meta:
            diff = {k: (old.get(k), meta.get(k)) for k in sorted(set(old) | set(meta)) if old.get(k) != meta.get(k)}
            raise SystemExit(f"{work} holds a run with other settings (stored, now): {diff}; "
                             "use the same settings or another --name")
    path.write_text(json.dumps(meta, indent=1) + "\n")


def load_results(path: Path, rows: list[dict]) -> dict:
    """``{id: {stage: line}}`` from results.jsonl; refuses lines whose position is not the id's."""
    pid = {r["id"]: r["position_id"] for r in rows}
    out: dict = {}
    for line in fb.read_jsonl(path):
        if line["id"] in pid and line["position_id"] != pid[line["id"]]:
            raise SystemExit(f"{path}: {line['id']} is {line['position_id']} there but {pid[line['id']]} now; "
                             "use another --name")
        out.setdefault(line["id"], {})[line["stage"]] = line
    return out


def append(path: Path, line: dict) -> None:
    with open(path, "a") as fh:
        fh.write(json.dumps(line, separators=(",", ":")) + "\n")


# ---------------------------------------------------------------------------
# stages


def run_fastbg(rows: list[dict], done: dict, path: Path, games: int, seed: int) -> None:
    """0-ply equity and fastbg's VR rollout of every position not done."""
    todo = [r for r in rows if "fastbg" not in done.get(r["id"], {})]
    fb.log(f"fastbg stage: {len(rows) - len(todo)} done, {len(todo)} to do ({games} games each)")
    if not todo:
        return
    eq0 = equities(fastbg.nn.evaluate_many(np.array([fb.board_of(r) for r in todo])))
    t0 = time.perf_counter()
    for i, r in enumerate(todo):
        res = fastbg.rollout(fb.board_of(r), games, seed=seed, workers=1, vr=True, policy="nn")
        line = {"id": r["id"], "position_id": r["position_id"], "stage": "fastbg", "eq0": round(float(eq0[i]), 6),
                "rollout": round(res.equity, 6), "se": round(res.stderr["equity"], 6),
                "probs": [round(x, 6) for x in (res.win, res.win_gammon, res.win_backgammon, res.lose_gammon,
                                                 res.lose_backgammon)],
                "games": res.games, "seconds": round(res.seconds, 3)}
        append(path, line)
        done.setdefault(r["id"], {})["fastbg"] = line
        if (i + 1) % 25 == 0 or i + 1 == len(todo):
            el = time.perf_counter() - t0
            fb.log(f"fastbg stage: {i + 1}/{len(todo)}, about {el / (i + 1) * (len(todo) - i - 1) / 60:.0f} min left")


def flagged(rows: list[dict], done: dict, threshold: float) -> list[dict]:
    """The positions whose 0-ply and rollout differ by more than ``threshold``, largest first."""
    out = [(abs(done[r["id"]]["fastbg"]["eq0"] - done[r["id"]]["fastbg"]["rollout"]), r) for r in rows
           if "fastbg" in done.get(r["id"], {})]
    return [r for d, r in sorted(out, key=lambda x: -x[0]) if d > threshold]


def gnubg_line(exe: str, r: dict, commands: list[str], nice) -> dict:
    res = gnubg_driver.rollout(exe, fastbg.Position.parse(r["position_id"]).to_xgid(), commands, nice=nice)
    if res["position_id"] != r["position_id"]:
        raise RuntimeError(f"{r['id']}: gnubg loaded {res['position_id']}, not {r['position_id']}")
    return {"id": r["id"], "position_id": r["position_id"], "stage": "gnubg", "equity": res["equity"],
            "se": res["equity_stderr"], "games": res["games"], "probabilities": res["probabilities"],
            "gnubg_class": res["gnubg_class"], "seconds": round(res["seconds"], 2)}


def pubeval_line(r: dict, games: int, seed: int) -> dict:
    res = fastbg.rollout(fb.board_of(r), games, seed=seed, workers=1, vr=False, policy="pubeval")
    return {"id": r["id"], "position_id": r["position_id"], "stage": "pubeval", "equity": round(res.equity, 6),
            "se": round(res.stderr["equity"], 6), "games": res.games, "seconds": round(res.seconds, 3)}


def run_references(todo_rows: list[dict], done: dict, path: Path, args) -> str | None:
    """gnubg's and pubeval's rollouts of the flagged positions not done; returns gnubg's version (None if not run)."""
    todo = [r for r in todo_rows if not {"gnubg", "pubeval"} <= set(done.get(r["id"], {}))]
    fb.log(f"reference stage: {len(todo_rows) - len(todo)} of {len(todo_rows)} flagged done, {len(todo)} to do "
           f"(gnubg {args.gnubg_trials} trials, pubeval {args.pubeval_games} games)")
    if not todo:
        return None
    exe = gnubg_driver.require_gnubg(args.gnubg)
    gnubg_driver.check_conventions(exe)
    commands = fb.gnubg_rollout_commands(args.gnubg_trials, args.rollout_seed, vr=False)
    t0 = time.perf_counter()
    for i, r in enumerate(todo):
        have = done.setdefault(r["id"], {})
        if "pubeval" not in have:
            have["pubeval"] = pubeval_line(r, args.pubeval_games, args.rollout_seed)
            append(path, have["pubeval"])
        if "gnubg" not in have:
            have["gnubg"] = gnubg_line(exe, r, commands, args.nice)
            append(path, have["gnubg"])
        el = time.perf_counter() - t0
        f = have["fastbg"]
        fb.log(f"reference {i + 1}/{len(todo)} {r['id']}: 0-ply {f['eq0']:+.3f}, fastbg {f['rollout']:+.3f}, "
               f"gnubg {have['gnubg']['equity']:+.3f}, pubeval {have['pubeval']['equity']:+.3f}; "
               f"about {el / (i + 1) * (len(todo) - i - 1) / 60:.0f} min left")
    return gnubg_driver.gnubg_version(exe)


# ---------------------------------------------------------------------------
# diagnosis and report


def pubeval_sides(p: dict, f: dict, g: dict) -> str:
    """Whom pubeval's rollout agrees with: ``gnubg``, ``fastbg``, ``both`` or ``neither``."""
    with_g = abs(p["equity"] - g["equity"]) <= tolerance(p["se"], g["se"])
    with_f = abs(p["equity"] - f["rollout"]) <= tolerance(p["se"], f["se"])
    return {(True, False): "gnubg", (False, True): "fastbg", (True, True): "both"}.get((with_g, with_f), "neither")


def diagnose(stages: dict, threshold: float) -> dict:
    """The report's fields of one position from its stages."""
    f = stages["fastbg"]
    out = {"eq0": f["eq0"], "rollout": f["rollout"], "se": f["se"], "difference": round(f["eq0"] - f["rollout"], 6),
           "flag": abs(f["eq0"] - f["rollout"]) > threshold, "gnubg": None, "pubeval": None, "diagnosis": None}
    g, p = stages.get("gnubg"), stages.get("pubeval")
    if g:
        tol = tolerance(f["se"], g["se"])
        out["gnubg"] = {k: g[k] for k in ("equity", "se", "games")}
        out["fastbg_minus_gnubg"] = round(f["rollout"] - g["equity"], 6)
        out["eq0_minus_gnubg"] = round(f["eq0"] - g["equity"], 6)
        out["tolerance"] = round(tol, 6)
    if p:
        out["pubeval"] = {k: p[k] for k in ("equity", "se", "games")}
    if out["flag"]:
        if g:
            out["diagnosis"] = "evaluation" if abs(out["fastbg_minus_gnubg"]) <= out["tolerance"] else "play"
            if out["diagnosis"] == "play" and p:
                out["pubeval_sides"] = pubeval_sides(p, f, g)
        else:
            out["diagnosis"] = "pending"
    return out


def report_rows(rows: list[dict], done: dict, threshold: float) -> list[dict]:
    """One row per position with a fastbg stage: its source, families and diagnosis."""
    out = []
    for r in rows:
        stages = done.get(r["id"], {})
        if "fastbg" not in stages:
            continue
        b = fb.board_of(r)
        fams = {k: int(v) for k, v in families.classify(b).items()}
        out.append({"id": r["id"], "position_id": r["position_id"], "source": r["source"], "detail": r["detail"],
                    "class": position_class(b), "families": fams, **diagnose(stages, threshold)})
    return out


def summary(rows: list[dict], groups) -> dict:
    """Per group (``groups(row)`` lists a row's groups): n, mean |0-ply - rollout|, flagged, diagnoses."""
    by: dict = {}
    for r in rows:
        for grp in groups(r):
            by.setdefault(grp, []).append(r)
    out = {}
    for grp, rs in by.items():
        fl = [r for r in rs if r["flag"]]
        out[grp] = {"n": len(rs), "mean_abs_difference": float(np.mean([abs(r["difference"]) for r in rs])),
                    "flagged": len(fl), "share_flagged": len(fl) / len(rs),
                    **{d: sum(r["diagnosis"] == d for r in fl) for d in ("evaluation", "play", "pending")}}
    return out


def family_groups(r: dict) -> list[str]:
    return list(r["families"]) or ["none"]


def source_groups(r: dict) -> list[str]:
    return [r["source"]]


def fmt(x, spec="+.3f") -> str:
    return "-" if x is None else format(x, spec)


def markdown(rep: dict) -> str:
    """The report's Markdown summary."""
    s = rep["settings"]
    lines = [f"## Probe `{rep['name']}`: fastbg 0-ply against its own rollouts",
             "",
             f"{rep['probed']} of {rep['positions']} positions probed (source `{rep['source']}`, {s['games']} games a rollout, "
             f"threshold {rep['threshold']}); nets `{s['nets_sha256'][:12]}`. Flagged positions checked with gnubg 0-ply "
             f"({s['gnubg_trials']} trials) and pubeval ({s['pubeval_games']} games) rollouts: "
             f"{rep['checked']} of {rep['flagged']}.", ""]
    head = "| {} | n | mean abs. 0-ply − rollout | flagged | evaluation | play | pending |"
    for title, key in (("family", "by_family"), ("source", "by_source")):
        lines += [head.format(title), "|---|---:|---:|---:|---:|---:|---:|"]
        for grp, v in rep[key].items():
            lines.append(f"| {grp} | {v['n']} | {v['mean_abs_difference']:.3f} | {v['flagged']} ({v['share_flagged']:.0%}) | "
                         f"{v['evaluation']} | {v['play']} | {v['pending']} |")
        lines.append("")
    lines += [f"### The {len(rep['largest'])} largest disagreements", "",
              "| # | Position ID | source | families | 0-ply | rollout ± se | 0-ply − rollout | gnubg | pubeval | diagnosis |",
              "|---:|---|---|---|---:|---:|---:|---:|---:|---|"]
    for k, r in enumerate(rep["largest"], 1):
        diag = r["diagnosis"] or "-"
        if r.get("pubeval_sides"):
            diag += f" (pubeval: {r['pubeval_sides']})"
        lines.append(f"| {k} | `{r['position_id']}` | {r['source']} | {', '.join(r['families']) or 'none'} | "
                     f"{r['eq0']:+.3f} | {r['rollout']:+.3f} ± {r['se']:.3f} | {r['difference']:+.3f} | "
                     f"{fmt(r['gnubg'] and r['gnubg']['equity'])} | {fmt(r['pubeval'] and r['pubeval']['equity'])} | {diag} |")
    return "\n".join(lines)


def report(args, name: str, meta: dict, rows: list[dict], done: dict, gnubg_version: str | None) -> dict:
    """Write the JSON report and return it."""
    out_rows = report_rows(rows, done, args.threshold)
    order = sorted(out_rows, key=lambda r: -abs(r["difference"]))
    fam_order = {f: k for k, f in enumerate(families.FAMILIES + ("none",))}
    by_family = summary(out_rows, family_groups)
    rep = {"command": command(), "date_utc": fb.now(), "name": name, "source": args.source, "settings": meta, "threshold": args.threshold,
           "stage": args.stage, "limit": args.limit, "positions": len(rows), "probed": len(out_rows),
           "flagged": sum(r["flag"] for r in out_rows),
           "checked": sum(r["flag"] and r["diagnosis"] != "pending" for r in out_rows),
           "fastbg": nn_selfplay.provenance(), "gnubg": gnubg_version,
           "what": {"eq0": "fastbg.nn.evaluate_many, cubeless equity of the side on roll",
                    "rollout": "fastbg.rollout(position, games, seed=rollout_seed, workers=1, vr=True, policy='nn')",
                    "gnubg": "gnubg 0-ply cubeless rollout, no variance reduction (family_bench.gnubg_rollout_commands)",
                    "pubeval": "fastbg.rollout(position, pubeval_games, seed=rollout_seed, workers=1, vr=False, policy='pubeval')",
                    "diagnosis": "flagged positions: evaluation if |fastbg rollout - gnubg rollout| <= max(0.05, 3 x combined SE), "
                                 "else play; pending until gnubg's rollout is in",
                    "families": "families.classify (subject row per family); none: no family's rule holds"},
           "by_family": dict(sorted(by_family.items(), key=lambda kv: fam_order.get(kv[0], 99))),
           "by_source": dict(sorted(summary(out_rows, source_groups).items())),
           "largest": order[:TOP], "rows": out_rows}
    path = fb.RESULTS / f"probe_{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record.write_json(path, rep)
    return rep


# ---------------------------------------------------------------------------
# command line


def default_name(kind: str, value: str, args) -> str:
    """The run's name when ``--name`` is not given: from the source (and the nets file)."""
    base = {"set": value, "file": Path(value).stem, "generated": f"gen_s{args.seed}"}[kind]
    return base + (f"_{Path(args.nets).stem}" if args.nets else "")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="See the module docstring (experiments/probe.py) for the sources, stages and files.")
    ap.add_argument("--source", required=True, help="set:NAME, file:PATH (Position IDs or an npz of boards) or generated:N")
    ap.add_argument("--name", help="the run's name (default: from the source, e.g. the set's name or gen_s<seed>)")
    ap.add_argument("--stage", choices=("fastbg", "full"), default="full",
                    help="fastbg: 0-ply and fastbg rollouts only; full (default): also gnubg and pubeval on flagged positions")
    ap.add_argument("--seed", type=int, default=90501, help="seed of generated positions (default %(default)s)")
    ap.add_argument("--games", type=int, default=324, help="games of fastbg's VR rollout (default %(default)s)")
    ap.add_argument("--rollout-seed", type=int, default=1, help="seed of every rollout (default %(default)s)")
    ap.add_argument("--threshold", type=float, default=0.1, help="flag |0-ply - rollout| above this (default %(default)s)")
    ap.add_argument("--gnubg-trials", type=int, default=2592, help="gnubg 0-ply rollout trials, no VR (default %(default)s)")
    ap.add_argument("--pubeval-games", type=int, default=2592, help="pubeval rollout games, no VR (default %(default)s)")
    ap.add_argument("--nets", help="nets file to probe (default: the shipped nets)")
    ap.add_argument("--limit", type=int, help="probe only the first N positions")
    ap.add_argument("--gnubg", help="the gnubg program (default: found on PATH or /usr/games/gnubg)")
    ap.add_argument("--nice", type=int, help="niceness of the gnubg processes")
    args = ap.parse_args(argv)
    for opt in ("games", "gnubg_trials", "pubeval_games", "limit"):
        v = getattr(args, opt)
        if v is not None and v < 1:
            ap.error(f"--{opt.replace('_', '-')} must be at least 1, got {v}")
    if args.seed < 0 or args.rollout_seed < 0:
        ap.error("seeds must be >= 0")
    if not args.threshold >= 0:
        ap.error(f"--threshold must be >= 0, got {args.threshold}")
    if args.nets and not Path(args.nets).is_file():
        ap.error(f"no nets file {args.nets}")
    if args.name and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", args.name):
        ap.error(f"--name may hold letters, digits, '_', '.' and '-' only, got {args.name!r}")
    try:
        args.kind, args.value = parse_source(args.source)
    except ValueError as e:
        ap.error(str(e))
    if args.kind == "file":
        try:
            file_boards(Path(args.value))
        except (ValueError, OSError) as e:
            ap.error(str(e))
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    fb.use_nets(args.nets)
    name = args.name or default_name(args.kind, args.value, args)
    work = fb.RUNS / f"probe_{name}"
    meta = settings(args, args.kind, args.value)
    check_meta(work, meta)
    rows = load_source(args.kind, args.value, args, work)
    if not rows:
        raise SystemExit(f"no positions in {args.source}")
    path = work / "results.jsonl"
    done = load_results(path, rows)
    fb.log(f"probe {name}: {len(rows)} positions from {args.source}")
    run_fastbg(rows, done, path, args.games, args.rollout_seed)
    version = None
    if args.stage == "full":
        version = run_references(flagged(rows, done, args.threshold), done, path, args)
    if version is None and any("gnubg" in v for v in done.values()) and gnubg_driver.find_gnubg(args.gnubg):
        version = gnubg_driver.gnubg_version(gnubg_driver.find_gnubg(args.gnubg))
    rep = report(args, name, meta, rows, done, version)
    print(markdown(rep))
    print(f"\nJSON: {fb.RESULTS / f'probe_{name}.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Do fastbg's n-ply cube decisions agree with GNU Backgammon's at the same ply?

Issue 38, item 2 (target: n-ply cube decisions agree with GNU Backgammon's at the same ply on
100+ positions from self-play, money and match; state the disagreements and their sizes).

Positions: ``--games`` self-play games of fastbg's nn at 0 ply (seeded dice, the opening
roll first), every position before a roll whose 0-ply cubeless winning chance of the
player on roll is in ``[--min-win, --max-win]`` (where cube decisions are made), thinned to
``--positions`` evenly along the games. Each position gets one cube state of
:data:`STATES`, in turn (money: centred, owned, Jacoby; match: 5-, 7- and 9-point scores,
post-Crawford, an opponent-owned cube).

For each position, state and ply of ``--plies``:

* **fastbg**: ``cube_decision(position, method="eval", ply=N, state=...)`` (Janowski's
  model on the n-ply cubeless probabilities, GNU Backgammon's cube efficiencies);
* **gnubg**: ``gnubg.cfevaluate(board, cubeinfo, evalcontext(cubeful=1, plies=N,
  deterministic, prune))`` of GNU Backgammon 1.07 (``/usr/games/gnubg``, one thread, its
  pruning nets as by default), its No double, Double/take and Double/pass (normalised
  equity, EMG, in match play; converted to MWC by ``gnubg.eq2mwc``) and its proper action;
  also its cubeless probabilities at that ply (``gnubg.evaluate``);
* **model check**: fastbg's Janowski model (:func:`fastbg.cube.janowski_cube_decision`)
  on gnubg's own cubeless probabilities. At 0 ply this isolates the cube model from the
  networks: it should reproduce gnubg's cubeful numbers (gnubg's 0-ply cube evaluation is
  the same model) except where gnubg reads its two-sided bear-off database. At 1 ply and
  more gnubg averages cubeful values over the rolls (the cube decisions made at each node)
  instead, and the check measures that difference of method alone.

**Jacoby.** The model check differs by design in money play with the Jacoby rule:
fastbg's :func:`fastbg.cube.cubeful_equity` counts gammons as single games in the live cube
too (take and cash points at W = L = 1), GNU Backgammon's live cube keeps the gammon values
for the take and cash points (a doubled cube counts gammons) and only caps the ends at -1
and +1; so fastbg's No double is lower when gammons are likely.

Compared: the proper action (the double part: double / no double, too good; the take
part: take / pass), and the values of ND and DT as equity per unit of the current cube
(EMG in match play; DP is +1 in both). A disagreement is listed with the margins of both
programs (DT - ND and DP - DT): a decision on the edge of a window can flip on a tiny
difference.

Usage::

    python experiments/cube_eval_vs_gnubg.py                   # 120 positions, 0 and 1 ply
    python experiments/cube_eval_vs_gnubg.py --positions 20 --plies 0 --out /tmp/x.json
    python experiments/cube_eval_vs_gnubg.py --families 12 \
        --out experiments/results/cube_eval_vs_gnubg_families.json   # not from self-play
    python experiments/cube_eval_vs_gnubg.py --reuse experiments/results/cube_eval_vs_gnubg.json \
        --positions 40 --plies 2 --out experiments/results/cube_eval_vs_gnubg_2ply.json

Writes ``--out`` (default ``experiments/results/cube_eval_vs_gnubg.json``: summary per ply
and kind, every row) through :mod:`record`. Needs gnubg (``sudo apt-get install gnubg``).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

import fastbg
from fastbg import MatchState
from fastbg.cube import janowski_cube_decision
from fastbg.cube.efficiency import cube_efficiency
from fastbg.rollouts.cubedecision import cube_decision
from fastbg.rollouts.plays import rank_plays

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gnubg_driver as gd  # noqa: E402
import record  # noqa: E402

KEYS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

#: The cube states given to the positions in turn: (name, MatchState).
STATES = (
    ("money centred", MatchState.money()),
    ("7-point 0-0", MatchState.match(7)),
    ("money owned", MatchState.money(2, "player")),
    ("5-point 1-3 (4-away/2-away)", MatchState.match(5, (1, 3))),
    ("money Jacoby", MatchState.money(jacoby=True)),
    ("7-point 4-2 (3-away/5-away)", MatchState.match(7, (4, 2))),
    ("money centred", MatchState.money()),
    ("5-point 2-2 (3-away/3-away)", MatchState.match(5, (2, 2))),
    ("9-point 2-5, cube 2 owned (7-away/4-away)", MatchState.match(9, (2, 5), 2, "player")),
    ("5-point 1-4 post-Crawford (4-away/1-away)", MatchState.match(5, (1, 4))),
    ("money, opponent's cube", MatchState.money(2, "opponent")),
    ("7-point 3-3 (4-away/4-away)", MatchState.match(7, (3, 3))),
)

_GNUBG_SCRIPT = r'''
import json
SPEC = json.loads(%(spec)r)
gnubg.command("set threads 1")
out = open(SPEC["output"], "w")
for t in SPEC["tasks"]:
    b = gnubg.positionfromid(t["position_id"])
    ci = gnubg.cubeinfo(t["cube"], t["owner"], 1, t["match_length"], tuple(t["score"]),
                        t["crawford"], 0)
    ci["jacoby"] = t["jacoby"]
    ci["beavers"] = t["beavers"]
    row = {"i": t["i"]}
    for ply in SPEC["plies"]:
        ec = gnubg.evalcontext(1, ply, 1, 1, 0.0)
        r = gnubg.cfevaluate(b, ci, ec)
        p = gnubg.evaluate(b, ci, gnubg.evalcontext(0, ply, 1, 1, 0.0))
        row[str(ply)] = {"optimal": r[0], "nd": r[1], "dt": r[2], "dp": r[3], "code": r[4],
                         "action": r[5], "probs": list(p[:5]),
                         "mwc": [gnubg.eq2mwc(v, ci) for v in r[:4]] if t["match_length"] else None}
    out.write(json.dumps(row) + "\n")
    out.flush()
print("FASTBG_DONE")
'''


def self_play_positions(games: int, seed: int, lo: float, hi: float) -> list[str]:
    """Position IDs before a roll, the player on roll's 0-ply win in [lo, hi], from fastbg
    self-play at 0 ply (cubeless), seeded; in the order played."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        pos = fastbg.Position.parse("start")
        first = True
        for _ in range(400):
            if not first:
                ev = fastbg.evaluate(pos)
                if lo <= ev["win"] <= hi:
                    out.append(pos.to_position_id())
            while True:
                d1, d2 = (int(v) for v in rng.integers(1, 7, size=2))
                if not (first and d1 == d2):
                    break
            first = False
            plays = rank_plays(pos, (d1, d2), cubeful=False)
            board = plays[0].board if plays else pos.board
            if plays and not board[0].any():
                break                                       # the mover bore off its last
            pos = fastbg.Position(np.ascontiguousarray(board[::-1]))
    return out


def gnubg_task(i: int, pid: str, state: MatchState) -> dict:
    """The cube state in gnubg's terms: the player on roll is gnubg's player 1."""
    owner = {"centred": -1, "player": 1, "opponent": 0}[state.cube_owner]
    return {"i": i, "position_id": pid, "cube": state.cube, "owner": owner,
            "match_length": state.match_length, "score": [state.score[1], state.score[0]],
            "crawford": int(state.crawford), "jacoby": int(state.jacoby),
            "beavers": int(state.beaver)}


def parts(action: str) -> tuple[str, str]:
    """An action's two halves: (double part, take part), in one vocabulary for both
    programs: ("no double" | "double" | "too good", "take" | "pass" | "beaver")."""
    a = action.lower().replace("redouble", "double")
    if a.startswith("too good"):
        dbl = "too good"
    elif a.startswith("no double") or a.startswith("never") or "no double" in a:
        dbl = "no double"
    else:
        dbl = "double"
    take = "pass" if re.search(r"pass|drop", a) else "beaver" if "beaver" in a else "take"
    return dbl, take


def emg_values(d: dict, money: bool) -> tuple[float, float]:
    """ND and DT of a fastbg decision as equity per unit of the current cube."""
    if money:
        return d["nd"], d["dt"]
    return d["nd_emg"], d["dt_emg"]


def resummarise(path: str) -> None:
    """Recompute the ``summary`` of a stored result from its rows (after a change of
    :func:`summarise`), keeping its record (command, date, commit) as it is."""
    report = json.loads(Path(path).read_text())
    rows = report["rows"]
    summary = {}
    for ply in report["settings"]["plies"]:
        for kind in ("all", "money", "match"):
            rs = [r for r in rows if r["ply"] == ply and (kind == "all" or r["mode"] == kind)]
            summary[f"{ply}ply_{kind}"] = summarise(rs, [r for r in rs if r["can_double"]])
    report["summary"] = summary
    Path(path).write_text(json.dumps(report, indent=1) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=120)
    ap.add_argument("--games", type=int, default=60, help="self-play games to draw them from")
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--min-win", type=float, default=0.55)
    ap.add_argument("--max-win", type=float, default=0.92)
    ap.add_argument("--plies", default="0,1")
    ap.add_argument("--gnubg", default=None, help="the gnubg program (default: PATH or /usr/games)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"
                                         / "cube_eval_vs_gnubg.json"))
    ap.add_argument("--reuse", default=None, metavar="RESULT",
                    help="take the positions and states of an earlier result (its first "
                         "--positions) instead of playing games, e.g. for another ply")
    ap.add_argument("--families", type=int, default=None, metavar="K",
                    help="take the first K positions of each family of the family benchmark "
                         "(experiments/family_bench.py, set bench: generated, not self-play) "
                         "instead of playing games; states in turn as for self-play")
    ap.add_argument("--resummarise", action="store_true",
                    help="only recompute the summary of --out from its rows (no evaluation)")
    args = ap.parse_args(argv)
    if args.resummarise:
        resummarise(args.out)
        return 0
    exe = gd.require_gnubg(args.gnubg)
    plies = [int(x) for x in args.plies.split(",")]
    t0 = time.perf_counter()
    if args.reuse:
        old = json.loads(Path(args.reuse).read_text())
        by_name = dict(STATES)
        seen: dict = {}
        for r in old["rows"]:
            seen.setdefault(r["i"], (r["position_id"], r["state"], by_name[r["state"]]))
        cases = [seen[i] for i in sorted(seen)][:args.positions]
        pool = [c[0] for c in cases]
    elif args.families:
        import family_bench     # the benchmark's positions (results/families, in git)
        by_family: dict = {}
        for r in family_bench.load_positions("bench"):
            by_family.setdefault(r["family"], []).append(r["position_id"])
        pool = [pid for pids in by_family.values() for pid in pids[:args.families]]
        cases = [(pid, *STATES[i % len(STATES)]) for i, pid in enumerate(pool)]
    else:
        pool = self_play_positions(args.games, args.seed, args.min_win, args.max_win)
        if len(pool) < args.positions:
            raise SystemExit(f"only {len(pool)} positions in {args.games} games: raise --games")
        pick = np.linspace(0, len(pool) - 1, args.positions).round().astype(int)
        cases = [(pool[j], *STATES[i % len(STATES)]) for i, j in enumerate(pick)]
    t_pos = time.perf_counter() - t0

    # gnubg: one process for everything
    tasks = [gnubg_task(i, pid, st) for i, (pid, _, st) in enumerate(cases)]
    tmp = Path(args.out).with_suffix(".gnubg.jsonl")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    t1 = time.perf_counter()
    out = gd.run_script(exe, _GNUBG_SCRIPT % {"spec": json.dumps(
        {"tasks": tasks, "plies": plies, "output": str(tmp)})})
    if "FASTBG_DONE" not in out:
        raise RuntimeError("gnubg stopped before the end:\n" + out[-2000:])
    g_rows = {r["i"]: r for r in map(json.loads, tmp.read_text().splitlines())}
    tmp.unlink()
    t_gnubg = time.perf_counter() - t1

    rows, t_fast = [], 0.0
    for i, (pid, name, st) in enumerate(cases):
        pos = fastbg.Position.parse(pid)
        x, _ = cube_efficiency(pos, st)
        for ply in plies:
            t2 = time.perf_counter()
            f = cube_decision(pos, method="eval", ply=ply, state=st)
            t_fast += time.perf_counter() - t2
            g = g_rows[i][str(ply)]
            model = janowski_cube_decision(g["probs"], st, x=x, position=pos)
            money = st.is_money
            row = {"i": i, "position_id": pid, "state": name, "ply": ply,
                   "mode": "money" if money else "match", "can_double": f.can_double,
                   "fastbg": {"action": f.action, "probs": [f.probabilities[k] for k in KEYS],
                              "nd": f.nd, "dt": f.dt, "dp": f.dp,
                              "nd_emg": emg_values(f.decision, money)[0],
                              "dt_emg": emg_values(f.decision, money)[1]},
                   "gnubg": {"action": g["action"], "probs": g["probs"], "nd_emg": g["nd"],
                             "dt_emg": g["dt"], "dp_emg": g["dp"], "mwc": g["mwc"]},
                   "model_on_gnubg_probs": {"action": model["action"],
                                            "nd_emg": emg_values(model, money)[0],
                                            "dt_emg": emg_values(model, money)[1]}}
            rows.append(row)

    summary = {}
    for ply in plies:
        for kind in ("all", "money", "match"):
            rs = [r for r in rows if r["ply"] == ply and (kind == "all" or r["mode"] == kind)]
            dec = [r for r in rs if r["can_double"]]
            summary[f"{ply}ply_{kind}"] = summarise(rs, dec)
    report = {"experiment": "experiments/cube_eval_vs_gnubg.py",
              "gnubg": {"program": exe, "version": gd.gnubg_version(exe), "threads": 1,
                        "evalcontext": "cubeful, deterministic, pruning nets on, no noise"},
              "settings": {"positions": len(cases), "games": args.games, "seed": args.seed,
                           "reuse": args.reuse, "families": args.families,
                           "min_win": args.min_win, "max_win": args.max_win, "plies": plies,
                           "states": [n for n, _ in STATES]},
              "pool": len(pool),
              "seconds": {"self_play": round(t_pos, 1), "gnubg": round(t_gnubg, 1),
                          "fastbg": round(t_fast, 1)},
              "summary": summary, "rows": rows}
    record.write_json(args.out, report)
    print(json.dumps({"summary": summary, "seconds": report["seconds"]}, indent=1))
    return 0


def summarise(rs: list, dec: list) -> dict:
    """Agreements and the sizes of the differences of a set of rows (``dec``: those where
    the player may double)."""
    def same(r, other, half):
        return parts(r["fastbg" if other is None else other]["action"])[half] == \
            parts(r["gnubg"]["action"])[half]

    def stats(v):
        v = np.abs(np.asarray(v, dtype=float))
        v = v[np.isfinite(v)]
        return None if not len(v) else {"mean_abs": round(float(v.mean()), 4),
                                        "max_abs": round(float(v.max()), 4),
                                        "median_abs": round(float(np.median(v)), 4)}

    out = {"rows": len(rs), "with_cube_decision": len(dec)}
    if not dec:
        return out
    both = [r for r in dec if same(r, None, 0) and same(r, None, 1)]
    out["action_agrees"] = len(both)
    out["double_part_agrees"] = sum(same(r, None, 0) for r in dec)
    out["take_part_agrees"] = sum(same(r, None, 1) for r in dec)
    out["model_on_gnubg_probs_action_agrees"] = sum(
        same(r, "model_on_gnubg_probs", 0) and same(r, "model_on_gnubg_probs", 1) for r in dec)
    out["nd_emg_diff"] = stats([r["fastbg"]["nd_emg"] - r["gnubg"]["nd_emg"] for r in rs])
    out["dt_emg_diff"] = stats([r["fastbg"]["dt_emg"] - r["gnubg"]["dt_emg"] for r in dec])
    out["model_nd_emg_diff"] = stats([r["model_on_gnubg_probs"]["nd_emg"] - r["gnubg"]["nd_emg"]
                                      for r in rs])
    out["model_dt_emg_diff"] = stats([r["model_on_gnubg_probs"]["dt_emg"] - r["gnubg"]["dt_emg"]
                                      for r in dec])
    out["win_diff"] = stats([r["fastbg"]["probs"][0] - r["gnubg"]["probs"][0] for r in rs])
    # the model alone, without the Jacoby rule (whose live cube fastbg and gnubg model
    # differently: see the module docstring)
    plain = [r for r in rs if "Jacoby" not in r["state"]]
    out["model_nd_emg_diff_without_jacoby"] = stats(
        [r["model_on_gnubg_probs"]["nd_emg"] - r["gnubg"]["nd_emg"] for r in plain])
    kinds: dict = {}
    for r in dec:
        if r in both:
            continue
        f, g = parts(r["fastbg"]["action"]), parts(r["gnubg"]["action"])
        kind = ("too good / double, pass" if {f[0], g[0]} == {"too good", "double"} and
                f[1] == g[1] == "pass" else "double / no double" if f[0] != g[0] else
                "take / pass")
        kinds[kind] = kinds.get(kind, 0) + 1
    out["disagreement_kinds"] = kinds
    out["disagreements"] = [
        {"i": r["i"], "position_id": r["position_id"], "state": r["state"],
         "fastbg": r["fastbg"]["action"], "gnubg": r["gnubg"]["action"],
         "fastbg_dt_minus_nd": round(r["fastbg"]["dt_emg"] - r["fastbg"]["nd_emg"], 4),
         "gnubg_dt_minus_nd": round(r["gnubg"]["dt_emg"] - r["gnubg"]["nd_emg"], 4),
         "fastbg_dp_minus_dt": round(1.0 - r["fastbg"]["dt_emg"], 4),
         "gnubg_dp_minus_dt": round(r["gnubg"]["dp_emg"] - r["gnubg"]["dt_emg"], 4),
         "win_fastbg": round(r["fastbg"]["probs"][0], 4),
         "win_gnubg": round(r["gnubg"]["probs"][0], 4)}
        for r in dec if r not in both]
    return out


if __name__ == "__main__":
    raise SystemExit(main())

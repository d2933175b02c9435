"""How fast is fastbg's n-ply checker-play evaluation against GNU Backgammon's at the same ply?

Issue 38, item 1 (target: fastbg at least 5x GNU Backgammon at 1 and 2 ply). For ~20 contact
decisions (position and roll, the first ``--decisions`` contact decisions with at least
``--min-plays`` legal plays of ``experiments/results/errorrate_decisions.jsonl.gz``), both
programs rank the plays of the roll at 1 and at 2 ply, one thread, side by side in one run:

* fastbg: ``EvalPolicy.rank_nply(before, plays, ply, "normal")`` of the compiled core (the
  roll's legal plays are generated before the clock starts: microseconds), cubeless, with
  GNU Backgammon's default move filter (Normal: at 0 ply up to 8 plays within 0.16, 1 ply
  not pruned), CPU time per decision (``time.process_time``);
* GNU Backgammon (``/usr/games/gnubg``, Debian's package, driven through
  :mod:`gnubg_driver`): ``set board ID``, ``set dice``, ``hint`` with ``set evaluation
  chequerplay evaluation plies N``, cubeless, its default move filter (the same Normal),
  ``set threads 1``, CPU time of each ``hint`` measured inside gnubg; once with its default
  pruning nets (``prune on``: each roll's plays pre-screened by a small net, the rest of
  the look-ahead valued only for the few best) and once without (``prune off``: every play
  of every roll by the full net, as fastbg does). Each setting runs in a fresh gnubg so no
  cache carries over from another setting; fastbg's cache is per call anyway.

The ratio is gnubg's CPU seconds over fastbg's for the same decisions (sum over them); the
best plays of both are recorded too (they need not agree: the nets differ).

Usage::

    python experiments/bench_nply.py                       # writes experiments/results/bench_nply.json
    python experiments/bench_nply.py --decisions 5 --json /tmp/x.json

Needs gnubg (``sudo apt-get install gnubg``). Times are CPU seconds on a shared machine.
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

import fastbg
from fastbg.engine import get_engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gnubg_driver as gd  # noqa: E402
import record  # noqa: E402

DECISIONS = Path(__file__).resolve().parent / "results" / "errorrate_decisions.jsonl.gz"

_GNUBG_SCRIPT = r'''
import json, time
SPEC = json.loads(%(spec)r)
for c in ["set threads 1", "set player 0 human", "set player 1 human", "new game",
          "set evaluation chequerplay evaluation plies %%d" %% SPEC["ply"],
          "set evaluation chequerplay evaluation cubeful off",
          "set evaluation chequerplay evaluation prune " + ("on" if SPEC["prune"] else "off")]:
    gnubg.command(c)
for d in SPEC["decisions"]:
    gnubg.command("set board " + d["position_id"])
    gnubg.command("set dice %%s %%s" %% (d["dice"][0], d["dice"][1]))
    print("\nFASTBG_START")
    c0, w0 = time.process_time(), time.perf_counter()
    gnubg.command("hint")
    c1, w1 = time.process_time(), time.perf_counter()
    print("\nFASTBG_DONE " + json.dumps({"id": d["id"], "cpu": c1 - c0, "wall": w1 - w0}))
'''

_TOP = re.compile(r"^\s*1\.\s+Cubeless\s+\d-ply\s+(.*?)\s+Eq\.:", re.M)


def load_decisions(n: int, min_plays: int) -> list[dict]:
    out = []
    with gzip.open(DECISIONS, "rt") as fh:
        for line in fh:
            d = json.loads(line)
            if d["class"] == "contact" and len(d["plays"]) >= min_plays:
                out.append({"id": d["id"], "position_id": d["position_id"],
                            "dice": [int(d["dice"][0]), int(d["dice"][1])]})
                if len(out) == n:
                    break
    return out


def run_gnubg(exe: str, decisions: list[dict], ply: int, prune: bool) -> dict:
    spec = json.dumps({"ply": ply, "prune": prune, "decisions": decisions})
    out = gd.run_script(exe, _GNUBG_SCRIPT % {"spec": spec})
    rows = {}
    for chunk in out.split("FASTBG_START")[1:]:
        m = re.search(r"FASTBG_DONE (\{.*\})", chunk)
        if not m:
            raise RuntimeError("gnubg stopped before the end:\n" + chunk[-2000:])
        r = json.loads(m.group(1))
        top = _TOP.search(chunk)
        r["best"] = " ".join(top.group(1).split()) if top else None
        rows[r["id"]] = r
    return rows


def run_fastbg(decisions: list[dict], ply: int, move_filter: str = "normal") -> dict:
    ev = get_engine("cython").evaluator.EvalPolicy()
    rows = {}
    for d in decisions:
        pos = fastbg.Position.parse(d["position_id"])
        plays = fastbg.legal_plays(pos, tuple(d["dice"]))
        boards = np.array([p.board for p in plays], dtype=np.int8)
        c0, w0 = time.process_time(), time.perf_counter()
        order, probs, plies = ev.rank_nply(pos.board, boards, ply, move_filter)
        c1, w1 = time.process_time(), time.perf_counter()
        rows[d["id"]] = {"id": d["id"], "cpu": c1 - c0, "wall": w1 - w0, "plays": len(plays),
                         "deep": int((plies == ply).sum()), "best": plays[int(order[0])].move}
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=20)
    ap.add_argument("--min-plays", type=int, default=10)
    ap.add_argument("--plies", default="1,2")
    ap.add_argument("--gnubg", default=None, help="the gnubg program (default: PATH or /usr/games)")
    ap.add_argument("--json", default=str(Path(__file__).resolve().parent / "results" / "bench_nply.json"))
    args = ap.parse_args(argv)
    exe = gd.require_gnubg(args.gnubg)
    decisions = load_decisions(args.decisions, args.min_plays)
    run_fastbg(decisions[:2], 1)            # warm up: nets and databases loaded
    report = {"benchmark": "experiments/bench_nply.py", "gnubg": {"program": exe,
              "version": gd.gnubg_version(exe), "threads": 1, "cubeful": False,
              "move_filter": "its default for hint (Normal: 0 + up to 8 within 0.16 at 0 ply)"},
              "fastbg_settings": {"engine": "cython", "threads": 1, "move_filter": "normal",
                                  "function": "EvalPolicy.rank_nply"},
              "decisions": decisions, "plies": {}}
    for ply in [int(x) for x in args.plies.split(",")]:
        t0 = time.perf_counter()
        fb = run_fastbg(decisions, ply)
        gp = run_gnubg(exe, decisions, ply, prune=True)
        gn = run_gnubg(exe, decisions, ply, prune=False)
        f_cpu = sum(r["cpu"] for r in fb.values())
        p_cpu = sum(r["cpu"] for r in gp.values())
        n_cpu = sum(r["cpu"] for r in gn.values())
        rows = [{"id": d["id"], "position_id": d["position_id"], "dice": d["dice"],
                 "fastbg": fb[d["id"]], "gnubg_prune": gp[d["id"]], "gnubg_noprune": gn[d["id"]]}
                for d in decisions]
        report["plies"][str(ply)] = {
            "fastbg_cpu_seconds": f_cpu, "gnubg_prune_cpu_seconds": p_cpu,
            "gnubg_noprune_cpu_seconds": n_cpu,
            "ratio_vs_gnubg_prune": p_cpu / f_cpu, "ratio_vs_gnubg_noprune": n_cpu / f_cpu,
            "fastbg_ms_per_decision": 1e3 * f_cpu / len(decisions),
            "gnubg_prune_ms_per_decision": 1e3 * p_cpu / len(decisions),
            "gnubg_noprune_ms_per_decision": 1e3 * n_cpu / len(decisions),
            "seconds": time.perf_counter() - t0, "rows": rows}
        print(f"{ply} ply, {len(decisions)} decisions: fastbg {1e3 * f_cpu / len(decisions):.1f} ms "
              f"a decision, gnubg {1e3 * p_cpu / len(decisions):.1f} ms (prune) and "
              f"{1e3 * n_cpu / len(decisions):.1f} ms (no prune): ratios {p_cpu / f_cpu:.2f}x "
              f"and {n_cpu / f_cpu:.2f}x", flush=True)
    record.write_json(args.json, report)
    print(f"written {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

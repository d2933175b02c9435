"""Where a 0-ply crashed net falls short of the 2-ply search that labels it.

Two measurements (``experiments/TRAINING.md``, "After generation 17: the student's gap"):

``decisions``
    The crashed decisions of the contact validation sets (``errorrate_contact_valid`` and
    ``_valid2``) where a float-hook score (``errorrate.py score --hook hook.py:load``, the
    ``hvalid_NAME.json`` and ``hvalid2_NAME.json`` files) errs by more than ``--over``
    millipoints, each with the error of the nets' 2-ply search with one reply a roll (the
    labels' teacher) and of GNU Backgammon 0-ply, against GNU Backgammon 2-ply.
``regret``
    The mean regret (millipoints a decision) of crashed checkpoints' 0-ply choices against
    the 2-ply labels of a set of decisions (``candidates.py`` positions with
    ``lookahead.py`` labels): the student's error against its own teacher, on decisions
    it was trained on or not.

Usage::

    python experiments/evaluator/student_gap.py decisions --score zB3 \\
        --nets RUNS/nets_g17.npz --over 20
    python experiments/evaluator/student_gap.py regret --set cb2x RUNS/zB3/epoch_009.npz
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

from fastbg.reference.nn import equity

HERE = Path(__file__).resolve().parent
RUNS = HERE.parent / "runs" / "evaluator"
RESULTS = HERE.parent / "results"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)


def _hook(crashed: str):
    import hook
    return hook.load(f"contact={RUNS}/s16c/epoch_019.npz,race={RUNS}/r14/epoch_000.npz,"
                     f"crashed={crashed}")


def decisions(args) -> int:
    from fastbg import Position
    from fastbg._core.evaluator import EvalPolicy
    from fastbg.reference.evaluator import load_nets

    nn = EvalPolicy(load_nets(args.nets))
    errs = {}
    for v in ("valid", "valid2"):
        for d in json.loads((RUNS / f"h{v}_{args.score}.json").read_text())["per_decision"]:
            if d["class"] == "crashed":
                errs[f"{v}:{d['id']}"] = (d["err_mp"], d["err_gnubg0_mp"])
    n_all = len(errs)
    tot = np.zeros(3)
    rows = []
    for v in ("valid", "valid2"):
        with gzip.open(RESULTS / f"errorrate_contact_{v}.jsonl.gz", "rt") as f:
            for line in f:
                r = json.loads(line)
                key = f"{v}:{r['id']}"
                if key not in errs or errs[key][0] <= args.over:
                    continue
                plays = r["plays"]
                after = np.array([Position.parse(p["position_id"]).board for p in plays], np.int8)
                live = after[:, 1].any(axis=1)      # row 1 the mover: not borne off
                teacher = np.full(len(plays), 9.0)  # a play that ends the game is best
                teacher[live] = -equity(nn.lookahead(np.ascontiguousarray(after[live]), 2, 1))
                eq2 = np.array([p["eq2"] for p in plays])
                t_err = 1000 * (eq2.max() - eq2[int(np.argmax(teacher))])
                tot += (errs[key][0], t_err, errs[key][1])
                rows.append({"id": key, "position_id": r["position_id"], "dice": r["dice"],
                             "student_mp": errs[key][0], "teacher_mp": round(t_err, 2),
                             "gnubg0_mp": errs[key][1],
                             "best": plays[int(np.argmax(eq2))]["move"]})
                print(f"{key} {r['position_id']} {r['dice']}: student {errs[key][0]:.0f}, "
                      f"teacher {t_err:.0f}, gnubg 0-ply {errs[key][1]:.0f} mp "
                      f"(best {rows[-1]['best']})")
    per = tot / n_all
    print(f"{len(rows)} of {n_all} crashed decisions over {args.over} mp; their share of the "
          f"mean error: student {per[0]:.2f}, teacher {per[1]:.2f}, gnubg 0-ply {per[2]:.2f} mp")
    if args.out:
        record.write_json(args.out, {
            "score": args.score, "nets": args.nets,
            "over_mp": args.over, "crashed_decisions": n_all,
            "share_mp": {"student": per[0], "teacher": per[1], "gnubg0": per[2]},
            "decisions": rows})
    return 0


def regret(args) -> int:
    import lookahead

    pos = np.load(RUNS / f"positions_{args.set}.npz")
    idx, probs = lookahead.load(RUNS / f"lookahead_{args.set}", boards=pos["boards"])
    boards = pos["boards"][idx]
    key = pos["game"][idx].astype(np.int64) * 100000 + pos["ply"][idx]
    label = -equity(probs)            # the candidates' mover's equity (row 1 the mover)
    _, inv = np.unique(key, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    groups = [g for g in np.split(order, np.flatnonzero(np.diff(inv[order])) + 1) if len(g) > 1]
    for ckpt in args.checkpoints:
        v = _hook(ckpt)(boards)
        r = 1000 * np.array([label[g].max() - label[g][np.argmax(v[g])] for g in groups])
        print(f"{ckpt}: {r.mean():.2f} +- {r.std(ddof=1) / np.sqrt(len(r)):.2f} mp over "
              f"{len(r)} decisions of {args.set} ({int((r > 40).sum())} over 40 mp)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("decisions", help="the validation decisions a score errs on most")
    d.add_argument("--score", required=True, help="NAME of hvalid_NAME.json / hvalid2_NAME.json")
    d.add_argument("--nets", required=True, help="the teacher's nets file (pack.py)")
    d.add_argument("--over", type=float, default=20.0, help="millipoints (default 20)")
    d.add_argument("--out", default=None, help="a JSON file for the list")
    r = sub.add_parser("regret", help="checkpoints' regret against a set's 2-ply labels")
    r.add_argument("--set", required=True, help="S of positions_S.npz and lookahead_S")
    r.add_argument("checkpoints", nargs="+", help="crashed-net checkpoints (train.py)")
    args = ap.parse_args(argv)
    return decisions(args) if args.cmd == "decisions" else regret(args)


if __name__ == "__main__":
    sys.exit(main())

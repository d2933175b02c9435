"""Ship a generation's nets as the package's second evaluator (fastbg/data/nn/nn2.npz).

Writes the nets (``save_nets``, float64: the weights as trained), their SHA-256 and the recipe to ``nn2.json``,
with the generation's record from ``experiments/results/evaluator_generations.jsonl`` and
any measured figures given with ``--measured KEY=VALUE``.


``python experiments/evaluator/ship.py --gen 3``
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from pathlib import Path


from fastbg.reference.evaluator import DATA_DIR, NETS_META, NETS_NAME, load_nets, save_nets

HERE = Path(__file__).resolve().parent
RUNS = HERE.parent / "runs" / "evaluator"
GENERATIONS = HERE.parent / "results" / "evaluator_generations.jsonl"


def family_record(score: dict, source: str) -> dict:
    """Each family's figures from a family_bench.py score report, for nn2.json: the 0-ply
    equity error against fastbg's rollouts and the checker-play error against GNU Backgammon
    2-ply, fastbg's beside gnubg 0-ply's, and ``weaker``: fastbg's worse than gnubg 0-ply's in
    either by more than two standard errors of the paired difference."""
    checker = (score.get("checker_play_vs_gnubg_2ply") or {}).get("by_family", {})
    out = {}
    for fam, r in score["by_family"].items():
        if fam in ("all", "control"):
            continue
        d, se = r["mae_difference"]
        c = checker.get(fam)
        weaker = d > 2 * se or (c is not None and c["difference_mp"][0] > 2 * c["difference_mp"][1])
        text = (f"0-ply equity error {r['fastbg_mae'][0]:.3f} against rollouts, gnubg 0-ply "
                f"{r['gnubg0_mae'][0]:.3f}")
        if c is not None:
            text += (f"; checker-play error {c['fastbg_mp']:.1f} millipoints a decision against "
                     f"gnubg 2-ply, gnubg 0-ply {c['gnubg0_mp']:.1f}")
        out[fam] = {"weaker": bool(weaker), "summary": text, "positions": r["n"],
                    "fastbg_mae": r["fastbg_mae"][0], "gnubg0_mae": r["gnubg0_mae"][0],
                    "checker_mp": None if c is None else c["fastbg_mp"],
                    "gnubg0_checker_mp": None if c is None else c["gnubg0_mp"], "source": source}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", type=int, help="the generation to ship (runs/evaluator/nets_g<gen>.npz)")
    ap.add_argument("--measured", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--families", metavar="SCORE_JSON",
                    help="a family_bench.py score report (with --checker) of these nets: each "
                         "family's figures go to nn2.json, marked weaker where the nets were "
                         "measured less exact than GNU Backgammon 0-ply (fastbg eval says so)")
    ap.add_argument("--families-only", action="store_true",
                    help="only write --families' record into the shipped nn2.json (the nets stay)")
    args = ap.parse_args(argv)
    if args.families_only:
        if not args.families:
            ap.error("--families-only needs --families")
        path = DATA_DIR / NETS_META
        meta = json.loads(path.read_text())
        meta["families"] = family_record(json.loads(Path(args.families).read_text()), args.families)
        path.write_text(json.dumps(meta, indent=1) + "\n")
        weak = [f for f, v in meta["families"].items() if v["weaker"]]
        print(f"{path}: families recorded; weaker than gnubg 0-ply in {', '.join(weak) or 'none'}")
        return 0
    if args.gen is None:
        ap.error("--gen is needed")
    nets = load_nets(RUNS / f"nets_g{args.gen}.npz")
    out = DATA_DIR / NETS_NAME
    save_nets(out, nets)
    sha = hashlib.sha256(out.read_bytes()).hexdigest()
    gens = [json.loads(x) for x in GENERATIONS.read_text().splitlines() if x.strip()] \
        if GENERATIONS.exists() else []
    meta = {
        "name": "fastbg second evaluator",
        "sha256": sha,
        "file": NETS_NAME,
        "generation": args.gen,
        "shipped": datetime.date.today().isoformat(),
        "nets": {k: {"inputs": int(w["w1"].shape[0]), "hidden": int(w["w1"].shape[1]),
                     "outputs": 5} for k, w in nets.items()},
        "spec": "docs/evaluator.md",
        "recipe": "experiments/TRAINING.md (section 'The second evaluator'); "
                  "experiments/evaluator/generation.py --gen K for K = 3..",
        "generations": gens,
        "measured": dict(kv.split("=", 1) for kv in args.measured),
    }
    if args.families:
        meta["families"] = family_record(json.loads(Path(args.families).read_text()), args.families)
    (DATA_DIR / NETS_META).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{out} ({out.stat().st_size:,} bytes, SHA-256 {sha})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

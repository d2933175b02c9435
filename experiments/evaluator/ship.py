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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", type=int, required=True)
    ap.add_argument("--measured", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
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
    (DATA_DIR / NETS_META).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{out} ({out.stat().st_size:,} bytes, SHA-256 {sha})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Learning curves of train.py runs: validation loss and equity error against epochs.

``python experiments/evaluator/plot.py RUN [RUN ...] --out experiments/results/curves.png``
(matplotlib, the ``[plot]`` extra; a run is a name under experiments/runs/evaluator/ or a
directory holding ``log.jsonl``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RUNS = Path(__file__).resolve().parent.parent / "runs" / "evaluator"


def read_log(run: str) -> list[dict]:
    path = Path(run) / "log.jsonl" if Path(run).is_dir() else RUNS / run / "log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("plotting needs matplotlib: pip install -e '.[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for run in args.runs:
        log = read_log(run)
        ep = [r["epoch"] + 1 for r in log]
        a1.plot(ep, [r["val_loss"] for r in log], marker=".", label=Path(run).name)
        a2.plot(ep, [r["val_equity_mae"] for r in log], marker=".", label=Path(run).name)
    a1.set(xlabel="epochs (0: the warm start)", ylabel="validation cross-entropy")
    a2.set(xlabel="epochs (0: the warm start)", ylabel="validation |equity - label|")
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

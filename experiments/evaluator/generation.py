"""One generation of the evaluator: positions, labels, training, packing, scoring.

Generation ``k`` plays ``--games`` self-play games with generation ``k - 1``'s nets (the
shipped first network for ``k = 1``), keeps positions and alternatives
(``positions.py``), labels them by the previous nets' look-ahead (``lookahead.py``, 1 or 2
plies), trains the contact and race nets from the previous ones (``train.py``), packs them
(``pack.py``) and scores them on the checker-play benchmark (``../errorrate.py``), so that
each generation is judged by error rate, not by its loss. Every step is skipped when its
output exists, so re-running the command resumes. Results are appended to
``experiments/results/evaluator_generations.jsonl``.

Usage::

    python experiments/evaluator/generation.py --gen 3 --games 25000 --plies 1
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RUNS = HERE.parent / "runs" / "evaluator"
RESULTS = HERE.parent / "results" / "evaluator_generations.jsonl"
sys.path.insert(0, str(HERE.parent))
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)
PY = sys.executable


def run(cmd: list[str], log) -> None:
    print("+", " ".join(cmd), file=log, flush=True)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=log, stderr=subprocess.STDOUT)
    print(f"  {time.perf_counter() - t0:.0f} s", file=log, flush=True)


def last_epoch(run_dir: Path) -> Path:
    return sorted(run_dir.glob("epoch_*.npz"))[-1]


def from_shipped(gen: int) -> bool:
    """Recreate generation ``gen``'s nets and checkpoints from the package's shipped nets
    (``fastbg/data/nn/nn2.npz``) when that is the generation shipped: the run directory is
    git-ignored, so a fresh clone starts the next generation from what was shipped."""
    from fastbg.reference.evaluator import DATA_DIR, NETS_META, NETS_NAME, load_nets, save_nets
    meta = json.loads((DATA_DIR / NETS_META).read_text())
    if meta.get("generation") != gen:
        return False
    nets = load_nets(DATA_DIR / NETS_NAME, meta["sha256"])
    save_nets(RUNS / f"nets_g{gen}.npz", nets)
    for kind in ("contact", "race"):
        run_dir = RUNS / f"{kind[0]}{gen}"
        run_dir.mkdir(parents=True, exist_ok=True)
        np.savez(run_dir / "epoch_000.npz", **nets[kind], kind=kind)
    print(f"generation {gen} recreated from the shipped {NETS_NAME}")
    return True


def label_set(pos: Path, lab: Path, nets: Path, games: int, races: int, seed: int,
              plies: int, args, log) -> None:
    """Positions of ``games`` self-play games (and ``races`` random races) and their
    look-ahead labels; each step skipped when its output exists."""
    if not pos.with_suffix(".npz").exists():
        run([PY, str(HERE / "positions.py"), "--games", str(games), "--seed", str(seed),
             "--alternatives", str(args.alternatives), "--keep", str(args.keep),
             "--races", str(races), "--nets", str(nets), "--out", str(pos)], log)
    done = lab.parent / f"{lab.name}.done"
    if not done.exists():
        base = [PY, str(HERE / "lookahead.py"), "--positions", str(pos.with_suffix(".npz")),
                "--nets", str(nets), "--plies", str(plies), "--candidates",
                str(args.candidates), "--out", str(lab)]
        procs = [subprocess.Popen(base + ["--part", f"{i}/{args.parts}"], stdout=log,
                                  stderr=subprocess.STDOUT) for i in range(args.parts)]
        if any(p.wait() for p in procs):
            raise SystemExit("labelling failed; see the log")
        done.write_text("done\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", type=int, required=True)
    ap.add_argument("--games", type=int, default=25000)
    ap.add_argument("--keep", type=float, default=0.2)
    ap.add_argument("--alternatives", type=int, default=3)
    ap.add_argument("--plies", type=int, default=1, choices=(1, 2))
    ap.add_argument("--races", type=int, default=0, help="random race positions to add")
    ap.add_argument("--parts", type=int, default=1, help="label with this many processes")
    ap.add_argument("--contact-epochs", type=int, default=12)
    ap.add_argument("--race-epochs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--contact-width", type=int, default=252, choices=(236, 252),
                    help="the contact net's inputs (train.py --width): 252 reads the extra "
                         "features; generations 1-8 were trained with 236")
    ap.add_argument("--also-gen", type=int, action="append", default=[],
                    help="train on that generation's positions and labels as well")
    ap.add_argument("--candidates", type=int, default=3, help="2 plies: plays valued at 1 ply")
    ap.add_argument("--extra-games", type=int, default=0,
                    help="also label positions of this many more games at 1 ply (set 'b')")
    ap.add_argument("--extra-races", type=int, default=0,
                    help="random race positions to add to set 'b'")
    args = ap.parse_args(argv)
    k = args.gen
    RUNS.mkdir(parents=True, exist_ok=True)
    prev = RUNS / f"nets_g{k - 1}.npz"
    if not prev.exists():
        if not from_shipped(k - 1):
            raise SystemExit(f"{prev} is missing: run generation {k - 1} first")
    pos, lab = RUNS / f"positions_g{k}", RUNS / f"lookahead_g{k}"
    log = open(RUNS / f"generation_g{k}.log", "a")
    t0 = time.perf_counter()
    sets = []
    if args.extra_games or args.extra_races:                # 1 ply: cheap, so first
        sets.append((RUNS / f"positions_g{k}b", RUNS / f"lookahead_g{k}b"))
        label_set(*sets[-1], prev, args.extra_games, args.extra_races, 1000 + k, 1, args, log)
    label_set(pos, lab, prev, args.games, args.races, k, args.plies, args, log)
    also = [(RUNS / f"positions_g{g}{s}", RUNS / f"lookahead_g{g}{s}")
            for g in args.also_gen for s in ("", "b")
            if (RUNS / f"lookahead_g{g}{s}.done").exists()]
    inits = {"contact": RUNS / f"c{k - 1}", "race": RUNS / f"r{k - 1}"}
    for kind, epochs in (("race", args.race_epochs), ("contact", args.contact_epochs)):
        name = f"{kind[0]}{k}"
        if not (RUNS / name / f"epoch_{epochs - 1:03d}.npz").exists():
            run([PY, str(HERE / "train.py"), "--net", kind, "--name", name,
                 "--init", str(last_epoch(inits[kind])), "--positions", str(pos.with_suffix(".npz")),
                 "--labels", f"lookahead:{lab}", "--epochs", str(epochs),
                 "--threads", str(args.threads)]
                + (["--width", str(args.contact_width)] if kind == "contact" else [])
                + [x for p, lb in sets + also
                   for x in ("--also", str(p.with_suffix(".npz")), f"lookahead:{lb}")], log)
    nets = RUNS / f"nets_g{k}.npz"
    run([PY, str(HERE / "pack.py"), "--contact", str(last_epoch(RUNS / f"c{k}")),
         "--race", str(last_epoch(RUNS / f"r{k}")), "--out", str(nets)], log)
    name = f"evaluator_g{k}"
    run([PY, str(HERE.parent / "errorrate.py"), "score", "--hook",
         f"{HERE / 'hook.py'}:load", "--hook-arg",
         f"contact={last_epoch(RUNS / f'c{k}')},race={last_epoch(RUNS / f'r{k}')}",
         "--name", name], log)
    score = json.loads((HERE.parent / "results" / f"errorrate_{name}.json").read_text())
    rec = {"gen": k, **record.header(), "args": vars(args), "seconds": time.perf_counter() - t0,
           "error_mp": {c: score["by_class"][c]["evaluator"]["mean_mp"]
                        for c in ("contact", "crashed", "race", "all_but_bearoff")}}
    with open(RESULTS, "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())

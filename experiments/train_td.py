"""Train fastbg's neural network by TD(0) self-play (see experiments/TRAINING.md).

The games and the weight updates run in the Cython core
(:func:`fastbg._core.nn.td_train`, one thread, GIL released); this script only
schedules chunks of games, evaluates against pubeval, logs and checkpoints.

Run directory ``experiments/runs/<name>/`` (git-ignored):

``log.jsonl``
    One JSON object per chunk: ``games``, ``seconds`` (training wall time,
    cumulative), ``alpha``, ``mse`` (mean squared TD error of the chunk),
    ``moves_per_game``, ``games_per_second``; at each evaluation also ``eval``:
    points per game against pubeval over duplicate-dice pairs with SE and 95% CI.
``last.npz``
    The latest state (weights + ``meta`` JSON with the games done, the dice bit
    generator state and the arguments): the run resumes from it.
``best.npz``
    The weights with the best vs-pubeval score so far (and that score).
``ckpt_<games>.npz``
    Snapshots every ``--snapshot-every`` games.

Usage::

    nohup python experiments/train_td.py --name td128 --hidden 128 --seed 1 \
        > experiments/runs/td128.out 2>&1 &

Fine-tune from another run's weights with a lower learning rate (a new run;
``games`` counts this run's games, ``init_games`` in its arguments the earlier ones)::

    python experiments/train_td.py --name td128ft --init experiments/runs/td128/last.npz \
        --alpha 0.01 --alpha-final 0.002 --alpha-halflife 1000000

Ship a checkpoint (float32 copy, SHA-256, recipe and its measured strength in
``fastbg/data/nn/nn.json``)::

    python experiments/train_td.py --ship experiments/runs/td128/best.npz --ship-games 20000

Re-running the same command resumes from ``last.npz`` (the arguments stored
there win, except ``--max-games``/``--max-seconds``).

Reproducibility: the initial weights come from ``default_rng(SeedSequence(seed))``
and the dice from ``PCG64DXSM(SeedSequence(seed, spawn_key=(1,)))``, whose state is
saved with every checkpoint, so a run resumed from a checkpoint continues exactly
as the uninterrupted run would. The evaluation uses its own fixed dice
(``--eval-seed``), the same at every evaluation.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from match_policies import duplicate_match, summarize  # noqa: E402

from fastbg._core import nn as core_nn  # noqa: E402
from fastbg._core.policies import make_policy  # noqa: E402

RUNS = Path(__file__).resolve().parent / "runs"


def alpha_at(games: int, a: argparse.Namespace) -> float:
    """Learning rate: alpha0 * 0.5 ** (games / halflife), never below alpha_final."""
    return max(a.alpha_final, a.alpha * 0.5 ** (games / a.alpha_halflife))


def init_weights(hidden: int, seed: int) -> dict:
    """Uniform random weights in +-0.1 (Tesauro 1992 starts from small random weights)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    return {
        "w1": rng.uniform(-0.1, 0.1, (core_nn_inputs(), hidden)),
        "b1": rng.uniform(-0.1, 0.1, hidden),
        "w2": rng.uniform(-0.1, 0.1, (5, hidden)),
        "b2": rng.uniform(-0.1, 0.1, 5),
    }


def core_nn_inputs() -> int:
    from fastbg.reference.nn import NN_INPUTS

    return NN_INPUTS


def save(path: Path, net, meta: dict) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    w = net.weights()
    np.savez(tmp, **w, meta=np.array(json.dumps(meta)))
    os.replace(tmp, path)


def load(path: Path):
    with np.load(path, allow_pickle=False) as z:
        w = {k: z[k] for k in ("w1", "b1", "w2", "b2")}
        meta = json.loads(str(z["meta"]))
    return w, meta


def evaluate(net, pairs: int, seed: int) -> dict:
    pol = core_nn.NNPolicy(net)
    t0 = time.perf_counter()
    res = summarize(duplicate_match(pol, make_policy("pubeval"), pairs, seed))
    res["seconds"] = round(time.perf_counter() - t0, 2)
    return res


def ship(checkpoint: Path, games: int, seed: int) -> dict:
    """Copy a checkpoint's weights into fastbg/data/nn/ (float32) with checksum and recipe.

    The strength written into ``nn.json`` is measured on the shipped (float32)
    weights against pubeval: ``games`` games in duplicate pairs, dice seed ``seed``.
    """
    from fastbg.reference import nn as ref_nn

    w, meta = load(checkpoint)
    out_dir = ref_nn.DATA_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / ref_nn.WEIGHTS_NAME
    ref_nn.save_weights(path, w, dtype=np.float32)
    shipped = ref_nn.load_weights(path)
    net = core_nn.Net(shipped["w1"], shipped["b1"], shipped["w2"], shipped["b2"])
    ev = evaluate(net, games // 2, seed)
    a = meta["args"]
    info = {
        "file": ref_nn.WEIGHTS_NAME,
        "sha256": ref_nn.sha256_file(path),
        "dtype": "float32 (read as float64)",
        "inputs": ref_nn.NN_INPUTS,
        "hidden": int(shipped["w1"].shape[1]),
        "outputs": ["win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"],
        "encoding": "Tesauro 1992 (TD-Gammon) units per side and point, bar/2, off/15; "
                    "turn units dropped (perspective-relative board); see fastbg/reference/nn.py",
        "algorithm": "TD(0) self-play, 0-ply greedy play, both sides one net "
                     "(experiments/train_td.py, experiments/TRAINING.md)",
        "games_trained": meta["games"] + a.get("init_games", 0),
        "training_seconds": round(meta["seconds"]),
        "source_checkpoint": str(checkpoint.relative_to(RUNS.parent.parent))
        if checkpoint.is_absolute() and RUNS.parent.parent in checkpoint.parents
        else str(checkpoint),
        "recipe": {k: a[k] for k in ("hidden", "seed", "alpha", "alpha_final", "alpha_halflife")},
        "command": f"python experiments/train_td.py --name {a['name']} --hidden {a['hidden']} "
                   f"--seed {a['seed']} --alpha {a['alpha']} --alpha-final {a['alpha_final']} "
                   f"--alpha-halflife {a['alpha_halflife']:g} --max-games {meta['games']}"
                   + (f" --init {a['init']}" if a.get("init") else ""),
        "vs_pubeval": {**ev, "seed": seed,
                       "note": "cubeless money points per game for nn, duplicate dice, "
                               "experiments/match_policies.py nn pubeval"},
    }
    if a.get("init"):
        # a fine-tuning run: record the run it started from (its own recipe)
        _, im = load(Path(a["init"]) if Path(a["init"]).is_absolute()
                     else RUNS.parent.parent / a["init"])
        ia = im["args"]
        info["training_seconds"] = round(meta["seconds"] + im["seconds"])
        info["started_from"] = {
            "checkpoint": a["init"], "games": im["games"], "seconds": round(im["seconds"]),
            "recipe": {k: ia[k] for k in ("hidden", "seed", "alpha", "alpha_final",
                                          "alpha_halflife")},
            "command": f"python experiments/train_td.py --name {ia['name']} --hidden "
                       f"{ia['hidden']} --seed {ia['seed']} --alpha {ia['alpha']} "
                       f"--alpha-final {ia['alpha_final']} --alpha-halflife "
                       f"{ia['alpha_halflife']:g} --max-games {im['games']}",
        }
    (out_dir / ref_nn.META_NAME).write_text(json.dumps(info, indent=1) + "\n")
    return info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", default="td128", help="run directory under experiments/runs")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--alpha", type=float, default=0.1, help="initial learning rate")
    ap.add_argument("--alpha-final", type=float, default=0.01, help="floor of the learning rate")
    ap.add_argument("--alpha-halflife", type=float, default=400_000,
                    help="games over which the learning rate halves")
    ap.add_argument("--chunk", type=int, default=2000, help="games per logged chunk")
    ap.add_argument("--eval-every", type=int, default=20_000)
    ap.add_argument("--eval-pairs", type=int, default=1000,
                    help="duplicate pairs per evaluation (2 games each)")
    ap.add_argument("--eval-seed", type=int, default=12345)
    ap.add_argument("--snapshot-every", type=int, default=100_000)
    ap.add_argument("--max-games", type=int, default=10_000_000)
    ap.add_argument("--max-seconds", type=float, default=float("inf"))
    ap.add_argument("--init", type=Path, metavar="CHECKPOINT",
                    help="start a new run from this checkpoint's weights instead of random "
                         "ones (fine-tuning, e.g. with a lower learning rate)")
    ap.add_argument("--ship", type=Path, metavar="CHECKPOINT",
                    help="instead of training: ship this checkpoint's weights into "
                         "fastbg/data/nn/ and measure them against pubeval")
    ap.add_argument("--ship-games", type=int, default=20_000)
    ap.add_argument("--ship-seed", type=int, default=2024)
    args = ap.parse_args(argv)
    if args.ship is not None:
        info = ship(args.ship.resolve(), args.ship_games, args.ship_seed)
        print(json.dumps(info, indent=1))
        return 0

    run = RUNS / args.name
    run.mkdir(parents=True, exist_ok=True)
    last = run / "last.npz"
    if last.exists():
        w, meta = load(last)
        keep = {"max_games": args.max_games, "max_seconds": args.max_seconds}
        args = argparse.Namespace(**{**meta["args"], **keep})
        games, seconds = meta["games"], meta["seconds"]
        best_ppg = meta.get("best_ppg", -np.inf)
        bitgen = np.random.PCG64DXSM()
        bitgen.state = meta["bitgen_state"]
        print(f"resuming {run} at {games} games", flush=True)
    else:
        if args.init is not None:
            w, init_meta = load(args.init)
            args.hidden = int(w["w1"].shape[1])
            args.init = str(args.init)
            args.init_games = init_meta["games"]
        else:
            w = init_weights(args.hidden, args.seed)
        games, seconds, best_ppg = 0, 0.0, -np.inf
        bitgen = np.random.PCG64DXSM(np.random.SeedSequence(args.seed, spawn_key=(1,)))
        (run / "args.json").write_text(json.dumps(vars(args), indent=1))
    net = core_nn.Net(w["w1"], w["b1"], w["w2"], w["b2"])
    log = open(run / "log.jsonl", "a")
    started = time.perf_counter()

    def meta_now() -> dict:
        return {"games": games, "seconds": seconds, "best_ppg": best_ppg,
                "bitgen_state": bitgen.state, "args": vars(args), "hidden": net.hidden,
                "encoding": "tesauro196", "algorithm": "TD(0) self-play, 0-ply greedy"}

    while games < args.max_games and time.perf_counter() - started < args.max_seconds:
        alpha = alpha_at(games, args)
        n = min(args.chunk, args.max_games - games)
        t0 = time.perf_counter()
        r = core_nn.td_train(net, n, bitgen, alpha)
        dt = time.perf_counter() - t0
        games += n
        seconds += dt
        rec = {"games": games, "seconds": round(seconds, 1), "alpha": alpha,
               "mse": r["mse"], "moves_per_game": r["moves"] / n,
               "games_per_second": round(n / dt, 1)}
        if games % args.eval_every == 0 or games >= args.max_games:
            ev = evaluate(net, args.eval_pairs, args.eval_seed)
            rec["eval"] = ev
            if ev["ppg"] > best_ppg:
                best_ppg = ev["ppg"]
                m = meta_now()
                m["eval"] = ev
                save(run / "best.npz", net, m)
        log.write(json.dumps(rec) + "\n")
        log.flush()
        if "eval" in rec:
            print(f"{games:>9} games {seconds:8.0f} s alpha {alpha:.4f} mse {r['mse']:.5f} "
                  f"vs pubeval {rec['eval']['ppg']:+.3f} +- {rec['eval']['stderr']:.3f}",
                  flush=True)
            save(last, net, meta_now())
        if games % args.snapshot_every == 0:
            save(run / f"ckpt_{games}.npz", net, meta_now())
    save(last, net, meta_now())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Lookahead labels: a net's 1-ply probabilities of training positions.

A cheap, noise-free alternative to rollout labels (``labels.py``): the five
probabilities of a position (row 0 on roll, before its roll) are the average over the 21
rolls (weights 1/36 and 2/36) of the probabilities after the net's best 0-ply play for
that roll (the exact result when the play ends the game; the position with the turn passed
when no play is legal). The net is the shipped first network (``--policy nn1``) or, with
``--nets``, a pair of the second evaluator's nets (what ``nn`` plays since issue 11; with
``--plies 2``, its 2-ply look-ahead): each generation labels the next one's positions; nothing
comes from GNU Backgammon.

Writes chunks ``<out>_<k>.npz`` with ``index`` (rows of the position file), ``probs`` (n, 5)
and ``boards_sha256`` (what they label); resumable like labels.py.

Usage::

    python experiments/evaluator/lookahead.py --positions P.npz --out RUNS/lookahead_g1
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

from fastbg._core.evaluator import EvalPolicy
from fastbg import get_engine
from fastbg.reference.evaluator import load_nets

ROLLS = tuple((d1, d2, (1 if d1 == d2 else 2) / 36.0) for d1 in range(1, 7) for d2 in range(1, d1 + 1))


def flip(p: np.ndarray) -> np.ndarray:
    """Probabilities of the other side: win <-> lose, gammons exchanged."""
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])


def terminal(board_after: np.ndarray) -> np.ndarray:
    """The mover's probabilities when its play bore off its last checker (mover in row 0)."""
    loser = board_after[1]
    gammon = loser.sum() == 15
    return np.array([1.0, float(gammon), float(gammon and loser[18:].any()), 0.0, 0.0])


def one_ply(eng, nn, board: np.ndarray) -> np.ndarray:
    """The 1-ply probabilities of ``board`` for its side on roll."""
    out = np.zeros(5)
    for d1, d2, w in ROLLS:
        plays = eng.legal_plays(board, d1, d2)
        if len(plays) == 0:
            p = flip(nn.probabilities(np.ascontiguousarray(board[::-1])))
        else:
            k = int(np.argmax(nn.play_equities(board, plays))) if len(plays) > 1 else 0
            best = plays[k]
            p = terminal(best) if not best[0].any() else \
                flip(nn.probabilities(np.ascontiguousarray(best[::-1])))
        out += w * p
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chunk", type=int, default=20000)
    ap.add_argument("--part", default="0/1", help="K/N: label only chunks k with k %% N == K "
                    "(run N processes, one a core)")
    ap.add_argument("--plies", type=int, default=1, choices=(0, 1, 2),
                    help="1: the best play of each roll at 0 ply; 2: its candidates at 1 ply "
                         "(needs --nets; about 17 ms a position); 0: the nets' own 0-ply "
                         "probabilities (needs --nets: an anchor that keeps a fine-tuned net "
                         "where it was on positions no deeper label covers)")
    ap.add_argument("--candidates", type=int, default=3, help="2 plies: plays valued at 1 ply")
    ap.add_argument("--nets", default=None,
                    help="the second evaluator's nets (fastbg.reference.evaluator.save_nets); "
                         "default the shipped first network")
    args = ap.parse_args(argv)
    if args.chunk < 1:
        ap.error(f"--chunk must be >= 1, got {args.chunk}")
    try:
        part, nparts = (int(v) for v in args.part.split("/"))
    except ValueError:
        ap.error(f"--part is K/N, got {args.part!r}")
    if not 0 <= part < nparts:
        ap.error(f"--part K/N needs 0 <= K < N, got {args.part}")
    if not Path(args.positions).is_file():
        ap.error(f"no positions file {args.positions}")
    boards = np.load(args.positions)["boards"]
    eng = get_engine("cython")
    nn = eng.nn.NNPolicy() if args.nets is None else EvalPolicy(load_nets(args.nets))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for k, start in enumerate(range(0, len(boards), args.chunk)):
        path = out.parent / f"{out.name}_{k:04d}.npz"
        if k % nparts != part:
            continue
        idx = np.arange(start, min(start + args.chunk, len(boards)))
        if path.exists():            # resume, but only onto chunks of these positions
            with np.load(path) as z:
                if "boards_sha256" in z.files and str(z["boards_sha256"]) != fingerprint(boards[idx]):
                    raise SystemExit(f"lookahead.py: error: {path} labels other positions than "
                                     f"rows {idx[0]}..{idx[-1]} of {args.positions}: another --out")
            continue
        if args.nets is not None:     # the core's nogil look-ahead of the second evaluator
            probs = nn.lookahead(boards[idx], args.plies, args.candidates)
        elif args.plies == 0:
            raise SystemExit("--plies 0 needs --nets (the second evaluator's own probabilities)")
        elif args.plies == 1:
            probs = np.array([one_ply(eng, nn, np.ascontiguousarray(boards[i])) for i in idx])
        else:
            raise SystemExit("--plies 2 needs --nets (the second evaluator's look-ahead)")
        tmp = path.parent / f".{path.stem}.part"          # whole chunks only, even if killed
        with open(tmp, "wb") as f:
            np.savez(f, index=idx, probs=probs, boards_sha256=fingerprint(boards[idx]))
        tmp.replace(path)
        print(f"{idx[-1] + 1}/{len(boards)} in {time.perf_counter() - t0:.0f} s", file=sys.stderr,
              flush=True)
    return 0


def fingerprint(boards: np.ndarray) -> str:
    """SHA-256 of boards (int8, C order): what a chunk labels, checked on resume and load."""
    return hashlib.sha256(np.ascontiguousarray(boards, dtype=np.int8).tobytes()).hexdigest()


def load(out, chunks: int | None = None, boards: np.ndarray | None = None
         ) -> tuple[np.ndarray, np.ndarray]:
    """The labelled rows and their probabilities, over every chunk of ``out`` found, or
    over its first ``chunks`` (chunks 0 .. chunks - 1, all of which must be there). With
    ``boards`` (the positions file's), each chunk's rows must be in it and, for chunks that
    record it, be the boards the chunk labelled. Errors: SystemExit with the reason."""
    out = Path(out)
    files = sorted(out.parent.glob(f"{out.name}_[0-9]*.npz"))
    if chunks is None and not files:
        raise SystemExit(f"no lookahead labels {out}_<k>.npz")
    if chunks is not None:
        files = [out.parent / f"{out.name}_{k:04d}.npz" for k in range(chunks)]
        missing = [f.name for f in files if not f.exists()]
        if missing:
            raise SystemExit(f"{out}: {len(missing)} of its first {chunks} chunks are not labelled "
                             f"yet (first: {missing[0]})")
    parts = [np.load(f) for f in files]
    if boards is not None:
        for f, p in zip(files, parts):
            idx = p["index"]
            if len(idx) and idx.max() >= len(boards):
                raise SystemExit(f"{f} labels row {idx.max()}, beyond the {len(boards)} positions "
                                 "given: labels of another positions file")
            if "boards_sha256" in p.files and str(p["boards_sha256"]) != fingerprint(boards[idx]):
                raise SystemExit(f"{f} labels other positions than the positions file given")
    return (np.concatenate([p["index"] for p in parts]), np.concatenate([p["probs"] for p in parts]))


if __name__ == "__main__":
    sys.exit(main())

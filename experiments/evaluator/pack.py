"""Pack a contact and a race checkpoint of train.py (and optionally a crashed one) into one
nets file (save_nets), or unpack a nets file into its checkpoints (a generation's warm start).

``python experiments/evaluator/pack.py --contact RUN/epoch_029.npz --race RUN2/epoch_059.npz
--out experiments/runs/evaluator/nets_g1.npz``

``python experiments/evaluator/pack.py --unpack experiments/runs/evaluator/nets_g10.npz
--contact RUN/c10/epoch_000.npz --race RUN/r10/epoch_000.npz`` (checkpoints that exist are
kept, so a rerun of a generation's script does not overwrite them)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from fastbg.reference.evaluator import load_nets, save_nets

KEYS = ("w1", "b1", "w2", "b2")


def kinds(args) -> tuple:
    """The nets named on the command line: contact, race and crashed if given."""
    return ("contact", "race") + (("crashed",) if args.crashed else ())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contact", required=True)
    ap.add_argument("--race", required=True)
    ap.add_argument("--crashed", help="a crashed net's checkpoint (train.py --net crashed); "
                    "with --unpack, where to write the file's crashed net (it must have one)")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", help="the nets file to write from the two checkpoints")
    group.add_argument("--unpack", metavar="NETS",
                       help="a nets file to write the two checkpoints from")
    args = ap.parse_args(argv)
    if args.unpack:
        if not Path(args.unpack).is_file():
            ap.error(f"--unpack {args.unpack}: no such nets file")
        nets = load_nets(args.unpack)
        if args.crashed and "crashed" not in nets:
            ap.error(f"{args.unpack} has no crashed net to unpack")
        for kind in kinds(args):
            path = Path(getattr(args, kind))
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                np.savez(path, **{k: nets[kind][k] for k in KEYS})
            print(path)
        return 0
    for kind in kinds(args):
        if not Path(getattr(args, kind)).is_file():
            ap.error(f"--{kind} {getattr(args, kind)}: no such checkpoint")
    if Path(args.out).suffix != ".npz":
        ap.error(f"--out {args.out}: a nets file ends in .npz")
    nets = {}
    for kind in kinds(args):
        with np.load(getattr(args, kind)) as z:
            nets[kind] = {k: z[k] for k in KEYS}
    save_nets(args.out, nets, sources=np.array([getattr(args, kind) for kind in kinds(args)]))
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

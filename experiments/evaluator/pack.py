"""Pack a contact and a race checkpoint of train.py into one nets file (save_nets).

``python experiments/evaluator/pack.py --contact RUN/epoch_029.npz --race RUN2/epoch_059.npz
--out experiments/runs/evaluator/nets_g1.npz``
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from fastbg.reference.evaluator import save_nets


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contact", required=True)
    ap.add_argument("--race", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    nets = {}
    for kind in ("contact", "race"):
        with np.load(getattr(args, kind)) as z:
            nets[kind] = {k: z[k] for k in ("w1", "b1", "w2", "b2")}
    save_nets(args.out, nets, sources=np.array([args.contact, args.race]))
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

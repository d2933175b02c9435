"""Run an experiment script with other nets as fastbg's default ``nn`` evaluator.

``python experiments/evaluator/with_nets.py NETS.npz experiments/rollout_bias.py compare ...``
loads ``NETS.npz`` (:func:`fastbg.reference.evaluator.save_nets`'s format) and makes it
what :func:`fastbg.reference.evaluator.default_nets` returns in this process, so that
every ``nn`` policy, rollout and evaluation the script makes uses it (threads share it;
a Dask cluster's worker processes would not). For measuring a candidate generation
before it is shipped; the script's own output records the shipped nets' checksum, so
say which nets were used where the result is kept.
"""
from __future__ import annotations

import runpy
import sys

from fastbg.reference import evaluator


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__.strip().splitlines()[2])
    nets, script = sys.argv[1], sys.argv[2]
    evaluator._DEFAULT = evaluator.load_nets(nets)
    sys.argv = [script] + sys.argv[3:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()

"""Run an experiment script with other nets as fastbg's default ``nn`` evaluator.

``python experiments/evaluator/with_nets.py NETS.npz experiments/rollout_bias.py compare ...``
loads ``NETS.npz`` (:func:`fastbg.spec.nets.save_nets`'s format) and makes it
what :func:`fastbg.spec.nets.default_nets` returns in this process, so that
every ``nn`` policy, rollout and evaluation the script makes uses it (threads share it;
a Dask cluster's worker processes would not). For measuring a candidate generation
before it is shipped. A result the script writes through ``experiments/record.py`` records
this command line (``with_nets.py NETS.npz`` included) and, under ``fastbg.nets_override``,
the path and SHA-256 of ``NETS.npz`` beside the shipped nets' checksums.

There is no public way to replace the default nets (on purpose: the library's nets are
the shipped ones), so :func:`use_nets` sets ``fastbg.spec.nets._DEFAULT``: the one
place in experiments/ that does (``family_bench.py --nets`` and ``blot_cost.py`` call it).
"""
from __future__ import annotations

import hashlib
import os
import runpy
import sys
from pathlib import Path

from fastbg.spec import nets as evaluator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)


def use_nets(nets) -> dict:
    """Make ``nets`` the default ``nn`` evaluator of this process and return them loaded.

    ``nets``: a path to a :func:`fastbg.spec.nets.save_nets` file (recorded, with its
    SHA-256, as ``fastbg.nets_override`` in the results this process writes through
    ``experiments/record.py``) or nets already loaded by ``load_nets``.
    """
    if isinstance(nets, (str, os.PathLike)):
        path = nets
        nets = evaluator.load_nets(path)
        record.NETS_OVERRIDE = {"path": str(path), "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest()}
    evaluator._DEFAULT = nets
    return nets


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__.strip().splitlines()[2])
    nets, script = sys.argv[1], sys.argv[2]
    use_nets(nets)
    sys.argv = [script] + sys.argv[3:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()

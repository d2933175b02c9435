"""The second evaluator at 1 or 2 plies, for ``experiments/errorrate.py score --hook``.

``--hook experiments/evaluator/hook_ply.py:load --hook-arg plies=2,nets=NETS.npz``
values every play by the look-ahead of :meth:`fastbg._core.evaluator.EvalPolicy.lookahead`
of the position after it (the opponent on roll): ``plies=1`` is a 1-ply player,
``plies=2`` (with ``candidates``, default 3) a 2-ply one. A net trained to imitate
``lookahead.py --plies K`` labels perfectly would play as this hook with ``plies=K``, so
its score is the ceiling of one generation of training on such labels.

``plies=0`` scores the engine's own 0-ply choice, :meth:`EvalPolicy.ranking`'s first play
(the blot rule for a crashed net that reads the blot inputs, docs/evaluator.md): that play
gets its equity and the others -1e9, since only the choice counts. The plays are one
decision's (errorrate.py passes them together), so the first is the ranking's base.
"""
from __future__ import annotations

import numpy as np

from fastbg._core.evaluator import EvalPolicy
from fastbg.reference.evaluator import load_nets


def load(spec: str):
    """``"plies=K,nets=PATH,candidates=C"`` -> boards after a play -> mover's equities."""
    opts = dict(part.partition("=")[::2] for part in filter(None, spec.split(",")))
    plies = int(opts.get("plies", 1))
    cands = int(opts.get("candidates", 3))
    pol = EvalPolicy(load_nets(opts["nets"])) if "nets" in opts else EvalPolicy()

    def mover_equities(boards):
        b = np.ascontiguousarray(np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25))
        out = np.empty(len(b))
        done = ~b[:, 1].any(axis=1)
        for i in np.flatnonzero(done):
            loser = b[i, 0]
            out[i] = 1.0 + (0 if loser.sum() < 15 else (2 if loser[18:].any() else 1))
        if plies == 0:          # the engine's choice (any play is a valid base: exact sums)
            plays = np.ascontiguousarray(b[:, ::-1])
            order, values = pol.ranking(plays[0], plays, 1)
            out[:] = -1e9
            out[order[0]] = values[0]
            return out
        live = np.flatnonzero(~done)
        if len(live):
            p = pol.lookahead(b[live], plies, cands)
            out[live] = -(2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4])
        return out

    return mover_equities

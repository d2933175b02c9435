"""Continue a stored rollout from Python with nothing but its store and its id.

A stored run's request is ``position``, ``games`` and its settings as they were resolved
(:meth:`fastbg.rollouts.settings.RolloutSettings.as_dict`), so the run is rebuilt from the
record alone; the runner (engine, threads, Dask, callbacks) is the caller's, since none of
it changes the numbers. Tables are resumed by :func:`fastbg.research.resume`, which also
takes these runs.
"""
from __future__ import annotations

import math

import numpy as np

from . import cubeful, cuberollout
from .cubeful import cubeful_rollout
from .cubeless import rollout
from .candidates import PlaysSettings
from .cuberollout import cube_rollout
from .cubesettings import CubefulSettings, CubeRolloutSettings
from .plays import rollout_plays
from .runner import Runner
from .settings import RolloutSettings
from .store import ResultsStore, StoredRun, describe_run

__all__ = ["resume_rollout", "RESUMABLE_KINDS", "stored_estimate"]

#: The kinds of stored run :func:`resume_rollout` continues, each with its run function and
#: its settings class (a run of candidate plays takes its roll too).
_RUNS = {"rollout": (rollout, RolloutSettings), "cubeful": (cubeful_rollout, CubefulSettings),
         "cube": (cube_rollout, CubeRolloutSettings),
         "plays": (rollout_plays, PlaysSettings)}
RESUMABLE_KINDS = tuple(_RUNS)


def resume_rollout(store: ResultsStore, run: StoredRun, games: int | None = None,
                   runner: Runner | None = None, **runner_overrides):
    """Continue, extend or read again stored rollout ``run`` of ``store``.

    Parameters
    ----------
    store : ResultsStore
        The open store that holds the run.
    run : StoredRun
        Its record (:meth:`ResultsStore.run`).
    games : int, optional
        The games of the whole run: more than it asked for extends it; None (default)
        keeps its own.
    runner : Runner, optional
        Where and how to play (its ``store`` and ``run_id`` are set here).
    **runner_overrides
        Fields of the runner (``workers=2``, ``progress=...``).

    Returns
    -------
    RolloutResult, CubefulRolloutResult, CubeRolloutResult or PlaysRolloutResult
        The numbers of one uninterrupted run of ``games`` games.

    Raises
    ------
    ValueError
        For a run of another kind (a table: :func:`fastbg.research.resume`), or any
        reason :func:`fastbg.rollout` refuses to resume it (fewer games, a damaged block).
    """
    if run.kind not in RESUMABLE_KINDS:
        raise ValueError(f"run {run.id} is {describe_run(run)}: fastbg.resume continues "
                         "rollouts and tables")
    req = dict(run.request)
    games = run.games if games is None else games
    runner = (runner or Runner()).replace(store=store, run_id=run.id, **runner_overrides)
    run_function, settings_class = _RUNS[run.kind]
    if run.kind == "plays":          # (candidate plays: the roll is an argument too)
        return rollout_plays(req["position"], req["dice"], games,
                             settings=PlaysSettings.from_request(req), runner=runner)
    return run_function(req["position"], games, settings=settings_class.from_request(req),
                        runner=runner)


def stored_estimate(run: StoredRun, blocks: dict) -> dict:
    """The estimate of a stored cubeful rollout or cube rollout from its stored blocks
    (``fastbg runs``), finished or not.

    Parameters
    ----------
    run : StoredRun
        A run of kind ``"cubeful"`` or ``"cube"``.
    blocks : dict
        Its blocks, ``{k: (games, counts, sums)}`` (:meth:`ResultsStore.blocks`).

    Returns
    -------
    dict
        ``games``, ``equity`` and ``stderr`` (None without a block): a cubeful rollout's
        equity (EMG in match play; with ``mwc`` and ``mwc_stderr``), a cube rollout's No
        double (with ``nd``, ``dt``, ``dp`` and ``action``). The blocks' float sums are
        added with :func:`math.fsum`.
    """
    if not blocks:
        return {"games": 0, "equity": None, "stderr": None}
    n = sum(g for g, _, _ in blocks.values())
    counts = sum(c for _, c, _ in blocks.values())
    sums = None
    if all(f is not None for _, _, f in blocks.values()):
        shape = next(iter(blocks.values()))[2].shape
        sums = np.array([math.fsum(v) for v in zip(*(f.ravel() for _, _, f in blocks.values()))]
                        ).reshape(shape)
    of_kind = {"cubeful": cubeful.stored_statistics, "cube": cuberollout.stored_statistics}
    return of_kind[run.kind](run.request, counts, sums, n)

"""Continue a stored rollout from Python with nothing but its store and its id.

A stored run's request is ``position``, ``games`` and its settings as they were resolved
(:meth:`fastbg.rollouts.settings.RolloutSettings.as_dict`), so the run is rebuilt from the
record alone; the runner (engine, threads, Dask, callbacks) is the caller's, since none of
it changes the numbers. Tables are resumed by :func:`fastbg.research.resume`, which also
takes these runs.
"""
from __future__ import annotations

from .cubeless import rollout
from .candidates import PlaysSettings
from .plays import rollout_plays
from .runner import Runner
from .settings import RolloutSettings
from .store import ResultsStore, StoredRun, describe_run

__all__ = ["resume_rollout", "RESUMABLE_KINDS"]

#: The kinds of stored run :func:`resume_rollout` continues.
RESUMABLE_KINDS = ("rollout", "plays")


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
    RolloutResult or PlaysRolloutResult
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
    if run.kind == "rollout":
        return rollout(req["position"], games, settings=RolloutSettings.from_request(req),
                       runner=runner)
    return rollout_plays(req["position"], req["dice"], games,
                         settings=PlaysSettings.from_request(req), runner=runner)

"""``fastbg.resume(store, run_id)``: continue any stored run, rollout or table, from Python.

A stored run's record holds everything its numbers depend on (its request), so the store
and the run's id are all a resumed run needs; where and how it plays (engine, threads,
Dask, progress) is the caller's choice and changes nothing in the numbers.
"""
from __future__ import annotations

from ..rollouts.resume import RESUMABLE_KINDS, resume_rollout
from ..rollouts.store import ResultsStore, describe_run
from .gammons import GammonsSettings, gammons_table
from .openings import OpeningsSettings, RepliesSettings, openings_table, replies_table
from .race import RaceSettings, race_table
from .table import check_table_run

__all__ = ["resume", "TABLE_SETTINGS", "TABLE_FUNCTIONS", "TABLE_SETTINGS_CLASSES"]

#: The settings class of each table: what its stored request holds beside its arguments.
TABLE_SETTINGS_CLASSES = {"openings": OpeningsSettings, "replies": RepliesSettings,
                          "race": RaceSettings, "gammons": GammonsSettings}

#: The arguments of each table that its stored request holds: what a resumed table takes from
#: the store (the command line refuses them beside ``--resume``): ``games`` and its settings
#: (and the replies table's ``opening``).
TABLE_SETTINGS = {name: ("games", *cls.fields()) for name, cls in TABLE_SETTINGS_CLASSES.items()}
TABLE_SETTINGS["replies"] = ("opening", *TABLE_SETTINGS["replies"])

#: The function of each table.
TABLE_FUNCTIONS = {"openings": openings_table, "replies": replies_table, "race": race_table,
                   "gammons": gammons_table}


def table_arguments(run) -> dict:
    """The arguments of stored table ``run``'s function, from its request (with ``opening``
    for the replies table, its first argument)."""
    check_table_run(run, run.request.get("table"))
    return {k: run.request[k] for k in TABLE_SETTINGS[run.request["table"]]
            if k in run.request}


def resume(store, run_id: int, *, games: int | None = None, **runner):
    """Continue a stored run: finish an interrupted one, extend one, or read a finished one
    again.

    Parameters
    ----------
    store : ResultsStore or str or Path
        The results store that holds the run (a path is opened and closed here).
    run_id : int
        The run's id (``fastbg runs`` lists them).
    games : int, optional
        More games than the run asked for extends it (per row for a table); None keeps its
        own.
    **runner
        Where and how to play: ``engine``, ``workers``, ``dask``, ``progress``,
        ``on_interrupt``, ``runner=Runner(...)`` (``on_block`` for a rollout, ``on_row`` for
        a table); none of them changes the numbers.

    Returns
    -------
    RolloutResult, CubefulRolloutResult, CubeRolloutResult, PlaysRolloutResult or TableResult
        The numbers of one uninterrupted run of ``games`` games (trials of a cube rollout).

    Raises
    ------
    ValueError
        No such run, a damaged one, one locked by another process, fewer games than it
        asked for, or a run that is a row of a table (resume the table).

    Examples
    --------
    >>> res = fastbg.rollout("start", 5000, seed=1, store="runs.sqlite")  # doctest: +SKIP
    >>> fastbg.resume("runs.sqlite", res.run_id, games=10_000)            # doctest: +SKIP
    """
    st = store if isinstance(store, ResultsStore) else ResultsStore(store, create=False)
    try:
        run = st.run(run_id)
        if run.parent is not None:
            raise ValueError(f"run {run.id} is a row of table run {run.parent}: resume the "
                             "table")
        if run.kind in RESUMABLE_KINDS:
            return resume_rollout(st, run, games, **runner)
        if run.kind != "table":
            raise ValueError(f"run {run.id} is {describe_run(run)}, which fastbg.resume "
                             "does not continue")
        check_table_run(run, run.request.get("table"))
        table = run.request["table"]
        settings = TABLE_SETTINGS_CLASSES[table].from_request(run.request)
        args = (run.request["opening"],) if table == "replies" else ()
        return TABLE_FUNCTIONS[table](*args, run.request["games"] if games is None else games,
                                      settings=settings, store=st, run_id=run.id, **runner)
    finally:
        if st is not store:
            st.close()

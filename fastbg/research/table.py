"""What every equity table shares: its result, its seeds, and its run in the results store.

A table is a run of its own in the results store (kind ``"table"``, its request and settings
as any run's), and each of its rows (an opening roll's candidate plays, a race position) is a
run of its own, a row of the table (:attr:`fastbg.rollouts.store.StoredRun.parent`), kept
block by block by the rollout that computes it. Rows are computed one after another and
their runs created in row order, so row ``j`` of a resumed table is its ``j``-th stored row;
each continues from its first missing block, so a table interrupted at any moment (Ctrl-C,
``kill -9``, a crash) and resumed ends with exactly the numbers of one uninterrupted table,
losing at most the blocks that were being played.

With ``dask=`` a table's rows play their blocks on one Dask cluster (:func:`table_cluster`),
started or connected once for the whole table: the numbers, the seeds and the store are
those of threads.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..rollouts.cluster import connect
from ..rollouts.runner import Runner
from ..rollouts.store import OpenRun, ResultsStore, describe_run, open_run, with_article

__all__ = ["TableResult", "TABLES", "derived_seed", "StoredTable", "check_table_run", "run_rows",
           "table_cluster", "check_table_runner", "row_runner", "check_stored_table"]

#: The tables, by name: what each is (``fastbg table NAME``).
TABLES = {
    "openings": "the 15 opening rolls, each with its candidate plays rolled out side by side",
    "replies": "the 21 replies to an opening play, each with its candidate plays",
    "race": "cubeless win probabilities and cube actions over a grid of race positions, with "
            "the Keith count's and Trice's rule's predictions and their errors",
    "gammons": "gammon and backgammon rates by game phase, from self-play",
}


def derived_seed(seed: int, *key: int) -> int:
    """A 128-bit seed for one part of a table (a row, a random position), from its root seed.

    ``SeedSequence(seed, spawn_key=key)``'s first four 32-bit words, little-endian. The keys
    of a table's parts have at least three words, so they never coincide with the one-word
    keys of blocks nor the two-word keys of quasi-random dice (DESIGN section 4); a part
    depends only on the root seed and its own key, never on which other parts the table
    holds.
    """
    words = np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key)).generate_state(4, np.uint32)
    return int.from_bytes(words.astype("<u4").tobytes(), "little")


@dataclass
class TableResult:
    """An equity table: its rows, its headline numbers and everything to reproduce it.

    Attributes
    ----------
    table : str
        ``"openings"``, ``"replies"``, ``"race"`` or ``"gammons"`` (:data:`TABLES`).
    title : str
        What the table holds, in a line.
    rows : list of dict
        One per row computed (fewer than asked for when ``interrupted``); the keys are the
        table's own (its function's docstring).
    summary : dict
        The table's headline numbers, each with its standard error.
    games : int
        Games asked for per row (per candidate play, per race position; all games of
        ``gammons``).
    seed : int
        The root seed (each row's seed is :func:`derived_seed` of it).
    settings : dict
        Everything the numbers depend on.
    seconds : float
        Wall-clock time.
    interrupted : bool
        Stopped (Ctrl-C) before every row was done; the rows hold what was finished.
    run_id : int or None
        With a store: the table's run (``fastbg table NAME --resume RUN`` continues it).
    stored_games : int
        Games read from the store rather than played now (all rows together, per candidate).
    planned_rows : int or None
        The rows asked for (an interrupted table has fewer), where the table knows them.
    dask : str or None
        The Dask scheduler's address when the rows' blocks ran on a cluster.
    """

    table: str
    title: str
    rows: list
    summary: dict
    games: int
    seed: int
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    run_id: int | None = None
    stored_games: int = 0
    dask: str | None = None
    planned_rows: int | None = None

    def to_dict(self) -> dict:
        """JSON-ready: ``table``, ``title``, ``games``, ``seed``, ``summary``, ``rows``,
        ``seconds``, ``interrupted``, ``settings`` (and ``run_id``, ``stored_games`` of a
        stored table; ``dask``, the scheduler's address, of a table run on a cluster;
        ``planned_rows``, the rows asked for, where the table knows them)."""
        d = {"table": self.table, "title": self.title, "games": self.games, "seed": self.seed,
             "summary": dict(self.summary), "rows": [dict(r) for r in self.rows],
             "seconds": self.seconds, "interrupted": self.interrupted,
             "settings": dict(self.settings)}
        if self.run_id is not None:
            d.update(run_id=self.run_id, stored_games=self.stored_games)
        if self.dask is not None:
            d["dask"] = self.dask
        if self.planned_rows is not None:
            d["planned_rows"] = self.planned_rows
        return d


@contextlib.contextmanager
def table_cluster(dask, workers, blocks: int):
    """The Dask cluster of a whole table, or None for threads: ``(cluster, row_args)``.

    ``dask`` and ``workers`` as :func:`fastbg.rollout` takes them (:func:`fastbg.rollouts.
    cluster.connect`; ``blocks``: a row's blocks, the most worker processes a local cluster
    gets). A local cluster is started once, not for every row (a start costs seconds), and
    closed at the end. ``row_args`` are the ``workers`` and ``dask`` arguments of each row's
    rollout: the table's ``workers`` on threads; on a cluster, the cluster itself, which the
    rows share and leave open.
    """
    cl = connect(dask, workers, blocks=blocks)
    try:
        yield cl, ({"workers": workers} if cl is None else {"workers": None, "dask": cl})
    finally:
        if cl is not None:
            cl.close()


def check_table_runner(runner: Runner, function: str) -> None:
    """ValueError for the fields of a :class:`~fastbg.rollouts.runner.Runner` that a table
    does not take: ``on_block`` (a table's rows are rollouts of their own, each with its
    blocks) and ``table_run`` (a table is no row of another)."""
    if runner.on_block is not None:
        raise ValueError(f"{function}() takes no on_block: its rows are rollouts of their own "
                         "(on_row tells of each)")
    if runner.table_run is not None:
        raise ValueError(f"{function}() takes no table_run: a table is not a row of a table")


def row_runner(runner: Runner, run_args: dict, store_args: dict, on_interrupt) -> Runner:
    """The runner of a table's row: the table's engine and progress, the threads or cluster
    ``run_args`` (:func:`table_cluster`), the row's place in the store ``store_args``
    (:meth:`StoredTable.row`) and the table's ``on_interrupt`` (:func:`run_rows`)."""
    return runner.replace(**{"store": None, "run_id": None, "table_run": None, "on_row": None,
                             "on_interrupt": on_interrupt, **run_args, **store_args})


def check_table_run(run, table: str) -> None:
    """ValueError unless stored run ``run`` is a ``table`` table (saying what it is)."""
    name = run.request.get("table") if run.kind == "table" else None
    if name != table:
        raise ValueError(f"run {run.id} is {describe_run(run)}, not {with_article(table)} table"
                         + (f": `fastbg table {name} --resume {run.id}` continues it"
                            if name else ""))


def check_stored_table(store, run_id: int, table: str) -> None:
    """ValueError unless ``run_id`` of ``store`` (a :class:`~fastbg.rollouts.store.
    ResultsStore`, a path, or None: nothing to check) is ``table`` table
    (:func:`check_table_run`), before a table that plays its own blocks opens it."""
    if store is None:
        return
    st = store if isinstance(store, ResultsStore) else ResultsStore(store, create=False)
    try:
        check_table_run(st.run(run_id), table)
    finally:
        if st is not store:
            st.close()


class StoredTable:
    """A table's run in a results store, and its rows' runs (none without a store).

    Parameters
    ----------
    store : ResultsStore, str, Path or None
    run_id : int or None
        Continue this stored table (its kind, table name, request and settings must be
        those given: ValueError otherwise, before anything is changed).
    table : str
        The table's name.
    request, settings : dict
        The arguments that determine the table's numbers (with ``position``, a description,
        and ``games``) and its settings (with ``seed``, ``games`` and ``block_size``).
    """

    def __init__(self, store, run_id, table: str, request: dict, settings: dict):
        self.run: OpenRun | None = None
        self._rows = []
        if store is None:
            open_run(None, run_id, "table", request, settings, 1)   # run_id alone: an error
            return
        st = store if isinstance(store, ResultsStore) else ResultsStore(store)
        try:
            if run_id is not None:
                check_table_run(st.run(run_id), table)
            self.run = open_run(st, run_id, "table", request, settings, int(settings["block_size"]))
        except BaseException:
            if st is not store:
                st.close()
            raise
        self.run.owned = st is not store
        self._rows = [r.id for r in st.rows(self.run.run_id)]

    @property
    def store(self) -> ResultsStore | None:
        return None if self.run is None else self.run.store

    @property
    def run_id(self) -> int | None:
        return None if self.run is None else self.run.run_id

    def row(self, j: int) -> dict:
        """The store arguments of row ``j``'s rollout: ``store``, ``run_id`` (its stored run,
        if the row was started before) and ``table_run`` (the table, for a new row);
        ValueError if a finished table, read again, lacks row ``j`` (it is damaged)."""
        if self.run is None:
            return {}
        if j < len(self._rows):
            return {"store": self.run.store, "run_id": self._rows[j]}
        if self.run.finished:   # (read again without a lock: no row is to be added)
            raise ValueError(f"table run {self.run.run_id} in {self.run.store.path} is marked "
                             f"done but has no row {j + 1}; the store was left as it is")
        return {"store": self.run.store, "table_run": self.run.run_id}

    def started(self, j: int, run_id: int | None) -> None:
        """Row ``j`` runs as stored run ``run_id`` (a new row is appended)."""
        if run_id is not None and j == len(self._rows):
            self._rows.append(run_id)

    def finish(self, result: TableResult) -> None:
        """Record the table's end (its whole result as the run's summary) and release it;
        a new table stopped before any of its blocks was stored is removed instead, and
        ``result.run_id`` becomes None (:meth:`fastbg.rollouts.store.OpenRun.finish`)."""
        if self.run is not None and not self.run.finish(result.interrupted, result.to_dict()):
            result.run_id = None

    def abort(self) -> None:
        """Release the table after an error or a Ctrl-C that stopped it before :meth:`finish`
        (:meth:`fastbg.rollouts.store.OpenRun.abort`)."""
        if self.run is not None:
            self.run.abort()

    @contextlib.contextmanager
    def aborted_on_error(self):
        """Run the table's rows: on an error or an uncaught Ctrl-C, :meth:`abort`."""
        try:
            yield self
        except BaseException:
            self.abort()
            raise


def run_rows(keys, play_row: Callable, stored: StoredTable, on_row=None, on_interrupt=None):
    """Compute a table's rows in order, stopping at the first interrupted one.

    ``play_row(j, key, store_args, on_interrupt) -> (row dict or None, interrupted, run_id,
    stored_games)`` computes row ``j``; ``on_row(label, j, n)`` is told as each starts.
    Ctrl-C noticed while a row plays its last blocks lets that row finish whole (its
    rollout is then not interrupted), so the ``on_interrupt`` handed to the rows remembers
    it, and the table stops after that row. Returns the rows computed, whether the table
    was interrupted, and the games read from the store.
    """
    noticed = []

    def interrupt(running: int) -> None:
        noticed.append(running)
        if on_interrupt is not None:
            on_interrupt(running)

    rows, interrupted, stored_games = [], False, 0
    for j, key in enumerate(keys):
        if on_row is not None:
            on_row(str(key), j, len(keys))
        row, interrupted, run_id, from_store = play_row(j, key, stored.row(j), interrupt)
        stored.started(j, run_id)
        stored_games += from_store
        if row is not None:
            rows.append(row)
        interrupted = interrupted or bool(noticed and j + 1 < len(keys))
        if interrupted:
            break
    return rows, interrupted, stored_games

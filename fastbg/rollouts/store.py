"""The results store: rollouts kept block by block in one SQLite file, to resume and extend.

A run is one rollout: its request (the arguments that determine its numbers), its settings
(:func:`fastbg.rollouts.settings.rollout_settings`), and each finished block's integer counts
and float sums, written in block order as the blocks are merged. Because block ``k`` of a
run depends only on (seed, settings, k) (DESIGN section 4), a run resumed from its first
missing block ends with exactly the numbers of an uninterrupted run, and a run extended by
more games gives the numbers of having asked for the total at first. Only the driving process
writes; SQLite's write-ahead log keeps every committed block through ``kill -9`` or a crash.

The file is SQLite (the standard library's :mod:`sqlite3`, WAL mode). Tables: ``meta``
(``format = fastbg-results-store``, ``version``), ``runs`` (id, kind, position, request and
settings as JSON, seed as decimal text (seeds are 128-bit), games, block size, status,
timestamps, summary, and the parent table of a table's row) and ``blocks``
(run, block index, games, counts and sums as JSON). Floats are written with ``repr``, which
reads back bit for bit.
"""
from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..game.files import missing_directory, why_not_written
from ..game.parse import position_and_roll
from .blocks import block_size_of
from .interrupts import sigint_deferred

__all__ = ["ResultsStore", "StoredRun", "OpenRun", "open_run", "default_store_path",
           "STORE_FORMAT", "STORE_VERSION"]

STORE_FORMAT = "fastbg-results-store"
#: 2 added ``runs.parent``: the table a run is a row of (:mod:`fastbg.research`). A version-1
#: file is upgraded in place when opened (the column is added, empty); older fastbg versions
#: then refuse it as newer.
STORE_VERSION = 2

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    position TEXT NOT NULL,
    request TEXT NOT NULL,
    settings TEXT NOT NULL,
    seed TEXT NOT NULL,
    games INTEGER NOT NULL,
    block_size INTEGER NOT NULL,
    status TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    summary TEXT,
    parent INTEGER REFERENCES runs(id)
);
CREATE TABLE blocks (
    run INTEGER NOT NULL REFERENCES runs(id),
    k INTEGER NOT NULL,
    games INTEGER NOT NULL,
    counts TEXT NOT NULL,
    sums TEXT,
    finished TEXT NOT NULL,
    PRIMARY KEY (run, k)
);
"""


@functools.lru_cache(maxsize=1)
def _schema_columns() -> dict:
    """``{table: set of column names}`` of :data:`_SCHEMA`, read from an in-memory copy."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE 'sqlite_%'")]
        return {t: {r[1] for r in db.execute(f"PRAGMA table_info({t})")} for t in tables}
    finally:
        db.close()


#: A run's row with the number of its stored blocks and their games (StoredRun's fields).
_RUNS_QUERY = ("SELECT r.id, r.kind, r.position, r.request, r.settings, r.seed, r.games, "
               "r.block_size, r.status, r.created, r.updated, r.summary, r.parent, COUNT(b.k), "
               "COALESCE(SUM(b.games), 0) FROM runs r LEFT JOIN blocks b ON b.run = r.id "
               "{where} GROUP BY r.id ORDER BY r.id")


#: What a stored run of each kind is, in a message ("run 6 is a rollout of candidate plays").
_KIND_NAMES = {"rollout": "a rollout", "plays": "a rollout of candidate plays",
               "cubeful": "a cubeful rollout", "cube": "a cube rollout"}


def with_article(word: str) -> str:
    """``word`` with its indefinite article."""
    return ("an " if word[:1] in "aeiou" else "a ") + word


def kind_name(kind: str) -> str:
    """A run kind as a noun phrase with its article (``"plays"``: "a rollout of candidate
    plays")."""
    return _KIND_NAMES.get(kind, with_article(kind))


def describe_run(run) -> str:
    """What a :class:`StoredRun` is, for a message: "an openings table", "a rollout of
    candidate plays (a row of table run 2)", ..."""
    name = run.request.get("table") if run.kind == "table" else None
    what = f"{with_article(name)} table" if name else kind_name(run.kind)
    if run.parent is not None:
        what += f" (a row of table run {run.parent})"
    return what


def default_store_path() -> Path:
    """Where runs are stored unless told: ``$FASTBG_STORE``, else ``runs.sqlite`` in the
    user's data directory (``$XDG_DATA_HOME/fastbg``, default ``~/.local/share/fastbg``;
    ``%LOCALAPPDATA%\\fastbg`` on Windows)."""
    env = os.environ.get("FASTBG_STORE")
    if env:
        return Path(env).expanduser()
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "fastbg" / "runs.sqlite"


def _create_file(path: Path) -> bool:
    """Create ``path`` empty (a new store's file), so that a place where no file can be made
    is an OSError naming why; False if it exists already (an empty file, taken as new)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        return False
    return True


#: What a run's ``status`` may be (:class:`StoredRun`); any other is a damaged record.
RUN_STATUSES = ("running", "interrupted", "done")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _dump(a) -> str:
    return json.dumps(np.asarray(a).tolist() if isinstance(a, np.ndarray) else a)


def _damage(exc: sqlite3.Error) -> bool:
    """Whether an SQLite error reading the store is damage of what the file holds (a
    malformed page, "database disk image is malformed"; text that is not UTF-8), which
    concerns the runs stored there, rather than a failure of its use (locked, read-only, a
    full disk, an I/O error), which concerns the whole store."""
    if isinstance(exc, sqlite3.OperationalError):
        return str(exc).startswith("Could not decode to UTF-8")
    return type(exc) is sqlite3.DatabaseError


def _read_seed(d: dict, name: str) -> None:
    """A stored request's or settings' ``seed`` as an int, in place: fastbg writes an int, and
    a seed written as the command line's JSON writes it, a decimal string (128-bit seeds are
    strings there), is the same seed; anything else is a damaged record (ValueError)."""
    seed = d.get("seed")
    if isinstance(seed, str):
        if not (seed.isascii() and seed.isdigit()):
            raise ValueError(f"its {name}'s seed {seed!r} is not a whole number")
        d["seed"] = int(seed)


#: The kinds of run whose ``position`` is the position rolled out (a table's is a label).
_ROLLED_OUT = ("rollout", "plays", "cubeful", "cube")


def _check_position(position, request: dict) -> None:
    """A rolled-out run's position column: a position (what the listing shows), and the one
    its request rolls out (what --resume plays); ValueError naming what is wrong."""
    try:
        position_and_roll(position)
    except ValueError as exc:
        raise ValueError(f"its position: {exc}") from None
    if "position" in request and request["position"] != position:
        raise ValueError(f"its position {position!r} is not its request's "
                         f"{request['position']!r}")


@dataclass(frozen=True)
class StoredRun:
    """A run as stored (:meth:`ResultsStore.run`).

    Attributes
    ----------
    id : int
        The run's number in its store.
    kind : str
        ``"rollout"`` (cubeless), ``"plays"`` (candidate plays rolled out side by side,
        :func:`fastbg.rollouts.plays.rollout_plays`) or ``"table"`` (an equity table of
        :mod:`fastbg.research`, whose rows are runs of their own).
    position : str
        The position rolled out (Position ID, or XGID with the roll).
    request : dict
        The arguments of :func:`fastbg.rollout` that determine the numbers.
    settings : dict
        The run's settings (as in its result's JSON).
    seed, games, block_size : int
        Root seed, games asked for, games per block.
    status : str
        ``"running"`` (or killed while running), ``"interrupted"``, ``"done"``.
    created, updated : str
        UTC timestamps (ISO 8601).
    summary : dict or None
        The final estimates of a finished or interrupted run.
    parent : int or None
        The table run this run is a row of (None for a run of its own).
    blocks : int
        Blocks stored.
    games_done : int
        Games in the stored blocks.
    """

    id: int
    kind: str
    position: str
    request: dict
    settings: dict
    seed: int
    games: int
    block_size: int
    status: str
    created: str
    updated: str
    summary: dict | None
    parent: int | None
    blocks: int
    games_done: int

    def to_dict(self) -> dict:
        """JSON-ready dict, ``id`` first."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class ResultsStore:
    """One results file: open (or create) it, add runs and their blocks, read them back.

    Parameters
    ----------
    path : str or Path, optional
        The SQLite file (default :func:`default_store_path`); created if missing, in a
        directory that must exist, but for the user's data directory of the default store
        without ``$FASTBG_STORE``, which is created too.
    create : bool, default True
        False: the store must exist already (resuming a run).

    Raises
    ------
    ValueError
        If the file exists but is not a fastbg results store (another SQLite database, a
        corrupted or foreign file) or is of a newer version: nothing in it is changed; if
        it cannot be opened ("cannot open the store PATH: why", such as a read-only
        directory, where SQLite cannot make its log files), or a new one cannot be created (its directory missing or not
        writable: "cannot create the store PATH: why", and nothing is left behind); with
        ``create=False``, if there is no such file.
    """

    def __init__(self, path=None, create: bool = True):
        self.path = Path(default_store_path() if path is None else path).expanduser()
        self._locks = {}
        if self.path.is_dir():
            raise ValueError(f"the store {self.path} is a directory, not a file")
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if not self.path.exists() and not create:
            raise ValueError(f"there is no results store {self.path}")
        made = False
        # a path the user chose, given or in $FASTBG_STORE, is refused in a directory that
        # does not exist (a typo would otherwise make a tree of them); only the data
        # directory of the default store, which the user never named, is made
        data_dir = path is None and not os.environ.get("FASTBG_STORE")
        if fresh:
            missing = None if data_dir else missing_directory(self.path)
            if missing is not None:
                raise ValueError(f"cannot create the store {self.path}: {missing}")
            if data_dir and os.name != "nt" and not os.environ.get("XDG_DATA_HOME"):
                # ~/.local/share/fastbg is made, with its parents, below a home that exists:
                # HOME naming a missing directory (`HOME=/nonexistent`) made that too
                home = Path.home()
                if not home.is_dir():
                    raise ValueError(f"cannot create the store {self.path}: the home "
                                     f"directory {home} does not exist")
            try:
                if data_dir:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                made = _create_file(self.path)
            except OSError as exc:   # (sqlite3 would only say "unable to open database file")
                raise ValueError(f"cannot create the store {self.path}: "
                                 f"{why_not_written(self.path, exc)}") from None
        self.db = None
        try:
            self.db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
            if fresh or self._no_tables():
                # new, or an SQLite file with nothing in it yet: another process may be
                # making this very store (its file is there before its tables), so _create
                # waits for it and takes its store if it made one
                self._create_in_turn()
            else:
                self._check()
                self.db.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL: a commit is not flushed to disk at once, so a block
            # costs no fsync; a killed or crashed process loses nothing committed (the data
            # is in the system's cache), a power cut at most the last blocks, never the file.
            self.db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as exc:
            if made:                 # the empty file made above goes again
                if self.db is not None:
                    self.db.close()
                with contextlib.suppress(OSError):
                    os.remove(self.path)
            if fresh:
                raise ValueError(f"cannot create the store {self.path}: {exc}") from None
            if isinstance(exc, sqlite3.OperationalError):   # cannot open, locked, read-only
                raise ValueError(f"cannot open the store {self.path}: "
                                 f"{self._cannot_open(exc)}") from None
            raise ValueError(f"{self.path} is not a fastbg results store ({exc})") from None

    def _cannot_open(self, exc: sqlite3.OperationalError) -> str:
        """Why SQLite could not open an existing store: its own words, and the usual cause,
        a directory this process cannot write (the write-ahead log keeps two files beside
        the store, which even reading it needs to create)."""
        folder = self.path.parent
        if os.access(folder, os.W_OK):
            return str(exc)
        return (f"its directory {folder} is read-only, and SQLite's write-ahead log needs to "
                f"create {self.path.name}-wal and {self.path.name}-shm there ({exc}); copy the "
                "store to a writable directory")

    # ------------------------------------------------------------------ file format
    def _no_tables(self) -> bool:
        """Whether the SQLite file holds no table at all (a store being made, or an empty
        database), read without a lock."""
        return self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0

    def _create_in_turn(self, wait: float = 30.0) -> None:
        """:meth:`_create` in WAL mode, waiting while another process makes the store:
        SQLite answers "database is locked" at once, without waiting, to some of the
        lock changes of a file that goes into WAL mode while others open it."""
        deadline = time.monotonic() + wait
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self._create()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _create(self) -> None:
        """Make the store's tables, unless another process made them first: several
        processes may open the same new store at once (``fastbg rollout --store new.db &``
        three times), and the write lock taken first makes them one after another, the
        later ones finding the store made and checking it as an existing one."""
        with self._tx():
            made = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
            if made is None:
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('format', ?), ('version', ?)",
                                (STORE_FORMAT, str(STORE_VERSION)))
        if made is not None:
            self._check()

    def _check(self) -> None:
        try:
            rows = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise   # the file cannot be opened or read: no word on what it holds
            rows = {}
        if "format" not in rows:
            raise ValueError(f"{self.path} is an SQLite database but not a fastbg results "
                             "store (no fastbg format record); give another --store")
        if rows["format"] != STORE_FORMAT:
            raise ValueError(f"{self.path} is an SQLite database but not a fastbg results "
                             f"store: its format record is {rows['format']!r}, and this fastbg "
                             f"reads format {STORE_FORMAT!r} (versions up to {STORE_VERSION}); "
                             "give another --store")
        try:
            version = int(rows.get("version", "0"))
        except ValueError:
            raise ValueError(f"{self.path} is a damaged fastbg results store (its version "
                             f"record {rows['version']!r} is not a whole number); the store "
                             "was left as it is") from None
        if version > STORE_VERSION:
            raise ValueError(f"{self.path} is a results store of a newer fastbg (version "
                             f"{rows['version']}; this one reads {STORE_VERSION})")
        if version < 2:
            have = {row[1] for row in self.db.execute("PRAGMA table_info(runs)")}
            with self._tx():
                if "parent" not in have:   # (a version record older than its tables: no)
                    self.db.execute("ALTER TABLE runs ADD COLUMN parent INTEGER "
                                    "REFERENCES runs(id)")
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'version'",
                                (str(STORE_VERSION),))
        for table, columns in _schema_columns().items():
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if columns - have:
                what = (f"its table {table!r} is missing" if not have else
                        f"its table {table!r} lacks the column(s) "
                        + ", ".join(sorted(columns - have)))
                raise ValueError(f"{self.path} is a damaged fastbg results store ({what}); "
                                 "the store was left as it is")

    @contextlib.contextmanager
    def snapshot(self):
        """Reads that see one state of the store: a read transaction (in WAL mode the
        commits before it began, none after), which writes nothing, so that it also serves
        a store this process may not write."""
        self.db.execute("BEGIN DEFERRED")
        try:
            yield self
        finally:
            self.db.execute("COMMIT")

    @contextlib.contextmanager
    def _tx(self):
        """One transaction: committed whole, or rolled back on an error."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _lock_path(self, run: int) -> str:
        return f"{self.path}.run{int(run)}.lock"

    def lock(self, run: int) -> None:
        """Hold ``run`` for this process until :meth:`unlock` or :meth:`close` (an advisory
        lock on a file beside the store, released by the system when the process dies, even
        by kill -9), so that two processes cannot play the same run; ValueError if another
        holds it. The file is removed when the run is released (a killed process leaves
        it, and the next run of it removes it)."""
        if int(run) in self._locks:
            return
        try:
            import fcntl
        except ImportError:          # pragma: no cover - not on POSIX: no lock
            return
        path = self._lock_path(run)
        for _ in range(100):
            try:
                f = open(path, "a")
            except OSError as exc:
                raise ValueError(f"cannot lock run {run} of {self.path}: cannot create "
                                 f"{path}: {exc.strerror or exc}") from None
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                break
            # A holder removes the file while it still holds it (_release): a file opened
            # here before that removal is locked only after it, and is no longer the one
            # at the path, which another process may then create and lock too. Held only
            # if it is still the file at the path; else again with the file there now.
            try:
                if os.path.samestat(os.fstat(f.fileno()), os.stat(path)):
                    self._locks[int(run)] = f
                    return
            except FileNotFoundError:
                pass
            f.close()
        raise ValueError(f"run {run} of {self.path} is being played by another process "
                         "right now: wait for it, or stop it first")

    def _release(self, run: int, f) -> None:
        """Remove ``run``'s lock file, then release it: removed while held, so that no
        other process holds it then (:meth:`lock` checks that the file it locked is still
        the one at the path)."""
        with contextlib.suppress(OSError):
            os.remove(self._lock_path(run))
        f.close()

    def unlock(self, run: int) -> None:
        """Release ``run`` (:meth:`lock`) and remove its lock file."""
        f = self._locks.pop(int(run), None)
        if f is not None:
            self._release(run, f)

    def close(self) -> None:
        """Close the file (and release the runs this process held)."""
        for run, f in self._locks.items():
            self._release(run, f)
        self._locks.clear()
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ writing
    def create_run(self, kind: str, position: str, request: dict, settings: dict,
                   parent: int | None = None) -> int:
        """A new run (status ``running``, no blocks), a row of table run ``parent`` if
        given; returns its id."""
        now = _now()
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO runs (kind, position, request, settings, seed, games, block_size,"
                " status, created, updated, parent) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)",
                (kind, position, json.dumps(request), json.dumps(settings),
                 str(int(settings["seed"])), int(settings["games"]), int(settings["block_size"]),
                 now, now, None if parent is None else int(parent)))
        return int(cur.lastrowid)

    def add_block(self, run: int, k: int, games: int, counts, sums=None) -> None:
        """Store block ``k`` of ``run`` (its counts and float sums), committed at once."""
        now = _now()
        with self._tx():
            self.db.execute("INSERT OR REPLACE INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
                            (run, int(k), int(games), _dump(counts),
                             None if sums is None else _dump(sums), now))
            self.db.execute("UPDATE runs SET updated = ? WHERE id = ?", (now, run))

    def resume_run(self, run: int, games: int, settings: dict) -> None:
        """Mark ``run`` running again, for ``games`` games in all (``games`` grows with
        ``--extend``), and drop the stored blocks that are not blocks of the new length
        (a last block shorter than a full one, which the longer run plays in full)."""
        block_size = int(settings["block_size"])
        with self._tx():
            self.db.execute("UPDATE runs SET status = 'running', games = ?, settings = ?, "
                            "updated = ? WHERE id = ?",
                            (int(games), json.dumps(settings), _now(), run))
            self.db.execute("DELETE FROM blocks WHERE run = ? AND games != ? AND "
                            "(k + 1) * ? <= ?", (run, block_size, block_size, int(games)))

    def delete_run(self, run: int) -> None:
        """Remove ``run`` and its blocks (and release it): a new run stopped before anything
        of it was stored (:meth:`OpenRun.finish`). Its id is given to the next new run when
        no later one holds an id yet (:meth:`_reuse_ids`): the user was told that nothing
        was stored, and the run never appeared in a listing."""
        with self._tx():
            self.db.execute("DELETE FROM blocks WHERE run = ?", (int(run),))
            self.db.execute("DELETE FROM runs WHERE id = ?", (int(run),))
        self.unlock(run)
        self._reuse_ids()

    def _reuse_ids(self) -> None:
        """Let the ids above the last stored run be given again: ``runs.id`` is
        AUTOINCREMENT, which never gives an id twice, so a removed run used to leave a gap.

        Safe with concurrent runs: this is one write transaction, so no run is created
        meanwhile and SQLite's counter only comes down to the highest id still stored (a
        run another process created stays); and it stops above an id whose lock file is
        there, a removed run that another process has not released yet (it removes the
        lock file before releasing it, :meth:`_release`), or whose holder was killed: a
        new run given that id could not be locked. Called after this process released the
        run it removed. A failure here loses nothing but the id, so it is not raised."""
        with contextlib.suppress(sqlite3.Error), self._tx():
            row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'runs'").fetchone()
            if row is None:
                return
            top = int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM runs").fetchone()[0])
            seq = int(row[0])
            while seq > top and not os.path.exists(self._lock_path(seq)):
                seq -= 1
            if seq != int(row[0]):
                self.db.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'runs'", (seq,))

    def is_empty(self, run: int) -> bool:
        """Whether ``run`` has no stored block and no row (a table's rows are runs)."""
        blocks = self.db.execute("SELECT COUNT(*) FROM blocks WHERE run = ?", (int(run),))
        rows = self.db.execute("SELECT COUNT(*) FROM runs WHERE parent = ?", (int(run),))
        return blocks.fetchone()[0] == 0 and rows.fetchone()[0] == 0

    def finish_run(self, run: int, status: str, summary: dict) -> None:
        """Record the end of ``run`` (``done`` or ``interrupted``) and its estimates."""
        with self._tx():
            self.db.execute("UPDATE runs SET status = ?, summary = ?, updated = ? WHERE id = ?",
                            (status, json.dumps(summary), _now(), run))

    # ------------------------------------------------------------------ reading
    def run(self, run_id) -> StoredRun:
        """The stored run ``run_id`` (ValueError naming the store if there is none)."""
        if isinstance(run_id, bool) or not isinstance(run_id, (int, np.integer)):
            raise ValueError(f"a run id is a whole number, got {run_id!r}")
        try:
            row = self.db.execute(_RUNS_QUERY.format(where="WHERE r.id = ?"),
                                  (int(run_id),)).fetchone()
        except sqlite3.DatabaseError as exc:
            if not _damage(exc):
                raise
            raise self._unreadable(int(run_id), exc) from None
        if row is None:
            n = self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            raise ValueError(f"there is no run {run_id} in {self.path} "
                             f"({n} run{'' if n == 1 else 's'}; `fastbg runs --store "
                             f"{self.path}` lists them)")
        try:
            return self._stored(row)
        except ValueError as exc:
            raise ValueError(f"{self.path}: {exc}; the store was left as it is") from None

    def _unreadable(self, run_id: int, exc: sqlite3.Error) -> ValueError:
        """The error of a run that a damaged page (or undecodable text) hides: its record
        itself, or the blocks its record is read with (their number and games)."""
        try:
            self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        except sqlite3.DatabaseError as again:
            if not _damage(again):
                raise
            what = f"run {run_id}'s record cannot be read"
        else:
            what = f"the blocks of run {run_id} cannot be read"
        return ValueError(f"{self.path}: {what} ({exc}); the store was left as it is")

    def runs(self) -> list[StoredRun]:
        """Every run, oldest first."""
        rows = self.db.execute(_RUNS_QUERY.format(where="")).fetchall()
        try:
            return [self._stored(r) for r in rows]
        except ValueError as exc:
            raise ValueError(f"{self.path}: {exc}; the store was left as it is") from None

    def run_ids(self) -> list[int]:
        """Every run's id, oldest first: for a listing that reads the runs one by one with
        :meth:`run`, so that one damaged run does not hide the others (:meth:`runs` refuses
        them all).

        A damaged page of the runs table stops a scan of it, so then every id up to the
        highest given is looked up on its own (a lookup reads only the pages on its way): the
        ids found are listed, and so are those whose lookup meets the damage (their records
        are on it), for :meth:`run` to refuse with what is wrong."""
        try:
            return [int(i) for (i,) in self.db.execute("SELECT id FROM runs ORDER BY id")]
        except sqlite3.DatabaseError as exc:
            if not _damage(exc):
                raise
            scan = exc
        top = 0
        for sql in ("SELECT seq FROM sqlite_sequence WHERE name = 'runs'",
                    "SELECT MAX(id) FROM runs"):
            try:
                row = self.db.execute(sql).fetchone()
            except sqlite3.DatabaseError as exc:
                if not _damage(exc):
                    raise
                continue
            if row is not None and row[0] is not None:
                top = max(top, int(row[0]))
        if not top:
            raise scan          # not even the highest id can be read
        ids = []
        for i in range(1, top + 1):
            try:
                if self.db.execute("SELECT 1 FROM runs WHERE id = ?", (i,)).fetchone() is None:
                    continue
            except sqlite3.DatabaseError as exc:
                if not _damage(exc):
                    raise
            ids.append(i)
        return ids

    def rows(self, table: int) -> list[StoredRun]:
        """The runs that are rows of table run ``table``, oldest first (a table creates
        its rows in row order, so this is row order)."""
        try:
            rows = self.db.execute(_RUNS_QUERY.format(where="WHERE r.parent = ?"),
                                   (int(table),)).fetchall()
        except sqlite3.DatabaseError as exc:
            if not _damage(exc):
                raise
            raise ValueError(f"{self.path}: the rows of table run {table} cannot be read "
                             f"({exc}); the store was left as it is") from None
        return [self._stored(r) for r in rows]

    @staticmethod
    def _stored(row) -> StoredRun:
        (i, kind, pos, req, st, seed, games, bs, status, created, updated, summary, parent,
         nb, ng) = row
        try:
            request, settings = json.loads(req), json.loads(st)
            for name, value in (("request", request), ("settings", settings)):
                if not isinstance(value, dict):
                    raise ValueError(f"its {name} is a JSON {type(value).__name__}, not an object")
                _read_seed(value, name)
            if kind in _ROLLED_OUT:
                _check_position(pos, request)
            if status not in RUN_STATUSES:
                raise ValueError(f"its status {status!r} is none of {', '.join(RUN_STATUSES)}")
            return StoredRun(id=int(i), kind=kind, position=pos, request=request,
                             settings=settings, seed=int(seed), games=int(games),
                             block_size=int(bs), status=status, created=created,
                             updated=updated,
                             summary=None if summary is None else json.loads(summary),
                             parent=None if parent is None else int(parent),
                             blocks=int(nb), games_done=int(ng))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"run {i}'s record is corrupted ({exc})") from None

    def blocks(self, run: int, counts_shape: tuple | None = None) -> dict:
        """The stored blocks of ``run``, as ``{k: (games, counts, sums)}`` for ``k = 0, 1,
        ...`` (numpy arrays; ``sums`` None for plain counts).

        Parameters
        ----------
        run : int
            The run's id.
        counts_shape : tuple of int, optional
            The shape every block's counts must have (the ``counts_shape`` its run was
            played with); without it, only that the blocks' shapes agree is checked.

        Raises
        ------
        ValueError
            If a block is damaged: it cannot be read, its counts or sums are of another
            shape (:meth:`_check_blocks`), it holds no games, more than its run's block
            size or games beyond its run's games, or it follows a missing block (a run
            stores its blocks in order, so a gap is never a run's own doing: counting from
            the gap on would replay or drop games). The store is not changed.
        """
        out = {}
        try:
            for k, games, counts, sums in self.db.execute(
                    "SELECT k, games, counts, sums FROM blocks WHERE run = ? ORDER BY k", (run,)):
                if k != len(out):
                    raise self._corrupted(run, k, f"it is stored but block {len(out)} before "
                                          "it is missing")
                try:
                    out[int(k)] = (int(games), np.asarray(json.loads(counts), dtype=np.int64),
                                   None if sums is None else np.asarray(json.loads(sums),
                                                                        dtype=np.float64))
                except (ValueError, TypeError) as exc:
                    raise self._corrupted(run, k, str(exc)) from None
        except sqlite3.DatabaseError as exc:   # a damaged page, or text that is not UTF-8
            if not _damage(exc):
                raise
            raise self._corrupted(run, len(out), f"it cannot be read: {exc}") from None
        row = self.db.execute("SELECT block_size, games FROM runs WHERE id = ?",
                              (run,)).fetchone()
        self._check_blocks(run, out, *((None, None) if row is None else map(int, row)))
        for k, (_, counts, _) in out.items():   # (alike: only the first can be wrong)
            if counts_shape is not None and counts.shape != tuple(counts_shape):
                raise self._corrupted(run, k, f"counts of shape {counts.shape}, where its "
                                      f"run's have shape {tuple(counts_shape)}")
        return out

    def _corrupted(self, run: int, k: int, why: str) -> ValueError:
        return ValueError(f"block {k} of run {run} in {self.path} is corrupted ({why}); "
                          "the store was left as it is")

    def _check_blocks(self, run: int, blocks: dict, block_size: int | None,
                      run_games: int | None = None) -> None:
        """What every run's blocks share: counts of one shape, each block's outcome counts
        (shape (6,); other kinds store other integer sums) non-negative and adding up to at
        most its games, 1 to ``block_size`` games a block (a cut last block holds fewer),
        none beyond the run's ``run_games`` (block ``k`` holds at most
        :func:`~fastbg.rollouts.blocks.block_size_of` its games: a run that grows is given
        its new games before its new blocks, so more is damage, never a run's own doing),
        and float sums in every block or in none, of one shape, all finite.
        The shape most blocks have is taken as the right one, so that the block named is the
        odd one out."""
        def shape(a):
            return None if a is None else a.shape

        for i, what in ((1, "counts"), (2, "sums")):
            shapes = [shape(b[i]) for b in blocks.values()]
            usual = max(set(shapes), key=lambda x: (shapes.count(x), x is not None)) if shapes else None
            for k, b in blocks.items():
                if shape(b[i]) != usual:
                    got = "no sums" if b[i] is None else f"{what} of shape {b[i].shape}"
                    want = "none" if usual is None else f"shape {usual}"
                    raise self._corrupted(run, k, f"{got}, where its other blocks have {want}")
        for k, (games, counts, sums) in blocks.items():
            if counts.shape == (6,):                     # outcome counts
                if (counts < 0).any():
                    raise self._corrupted(run, k, "a negative count")
                if int(counts.sum()) > games:            # (fewer: truncated games have none)
                    raise self._corrupted(run, k, f"its counts add up to {int(counts.sum()):,} "
                                          f"games, more than its {games:,}")
            if block_size is not None and not 0 < games <= block_size:
                raise self._corrupted(run, k, f"it holds {games:,} games, where its run's "
                                      f"blocks hold 1 to {block_size:,}")
            room = None if run_games is None or block_size is None else \
                block_size_of(k, run_games, block_size)
            if room is not None and games > room:
                raise self._corrupted(run, k, (
                    f"it holds {games:,} games beyond its run's {run_games:,} in all, which "
                    "end before it" if room <= 0 else
                    f"it holds {games:,} games, where its run has {run_games:,} in all, "
                    f"{room:,} of them in this block"))
            if sums is not None and not np.isfinite(sums).all():
                raise self._corrupted(run, k, "a sum that is not a finite number")


#: Settings a resumed run may change: they do not change its numbers.
_FREE_SETTINGS = ("games", "engine")


@dataclass
class OpenRun:
    """A stored run being played (:func:`open_run`).

    Attributes
    ----------
    store : ResultsStore
    run_id : int
    done : dict
        Its stored blocks, ``{k: (counts, sums)}`` for ``k = 0, 1, ...`` (the ``done`` of
        :func:`fastbg.rollouts.blocks.run_blocks`).
    owned : bool
        The store was opened here from a path, and is closed by :meth:`finish`.
    new : bool
        The run was created here (not resumed).
    finished : bool
        A finished run read again (resumed with the games it had): all its blocks are in
        ``done``, so nothing is played and nothing written; it is neither locked nor marked,
        and a store this process may not write serves.
    """

    store: ResultsStore
    run_id: int
    done: dict
    owned: bool
    new: bool = False
    finished: bool = False

    def on_block(self, k: int, games: int, counts, sums) -> None:
        """Store block ``k`` (the ``on_block`` of :func:`~fastbg.rollouts.blocks.run_blocks`).

        Raises
        ------
        ValueError
            For a finished run (:attr:`finished`): it is marked done but lacks block ``k``,
            which is damage, not a block to play (the store is not changed)."""
        if self.finished:
            raise ValueError(f"run {self.run_id} in {self.store.path} is marked done but "
                             f"block {k} of it is missing; the store was left as it is")
        self.store.add_block(self.run_id, k, games, counts, sums)

    def _drop_if_empty(self) -> bool:
        """Remove the run if it is new and nothing of it was stored; whether it was."""
        if self.new and self.store.is_empty(self.run_id):
            self.store.delete_run(self.run_id)
            return True
        return False

    def finish(self, interrupted: bool, summary: dict) -> bool:
        """Record the end of the run and release it (and close a store opened here).

        A new run interrupted before any of its blocks was stored is removed instead: there
        is nothing in it to resume or to show (its command, run again, starts it anew, with
        the same numbers when it gives the seed); a finished run read again is left as it
        is. Returns whether the run is kept."""
        with sigint_deferred():          # a Ctrl-C now must not cut the clean-up in half
            return self._finish(interrupted, summary)

    def _finish(self, interrupted: bool, summary: dict) -> bool:
        try:
            if self.finished:
                return True
            if interrupted and self._drop_if_empty():
                return False
            self.store.finish_run(self.run_id, "interrupted" if interrupted else "done", summary)
            self.store.unlock(self.run_id)
            return True
        finally:
            if self.owned:
                self.store.close()

    def abort(self) -> None:
        """Release the run after an error or a Ctrl-C that stopped its rollout before it
        could :meth:`finish`: a new run with nothing stored is removed, any other is left as
        it is (status ``running``, listed as unfinished and resumable, as after ``kill
        -9``)."""
        with sigint_deferred():
            try:
                if not self.finished and not self._drop_if_empty():
                    self.store.unlock(self.run_id)
            finally:
                if self.owned:
                    self.store.close()


def open_run(store, run_id, kind: str, request: dict, settings: dict, block_size: int,
             parent: int | None = None, counts_shape: tuple | None = None) -> OpenRun | None:
    """Start a stored run, or continue one: what the rollout functions share.

    Parameters
    ----------
    store : ResultsStore, str, Path or None
        None: the run is not stored (then ``run_id`` must be None too); returns None.
    run_id : int or None
        None: a new run of ``kind`` (a row of table run ``parent`` if given); else the
        stored run to continue, which must be of ``kind`` with the same ``request`` and
        ``settings``, except ``games``, which may grow (extend), and the engine.
    kind : str
        ``"rollout"``, ``"plays"``, ...
    request : dict
        The arguments that determine the numbers (with ``position`` and ``games``).
    settings : dict
        :func:`fastbg.rollouts.settings.rollout_settings` of the run.
    block_size : int
        Games per block.
    parent : int, optional
        The table run a new run is a row of.
    counts_shape : tuple of int, optional
        The shape of a block's counts in this run: a stored block of another shape is
        refused as damaged (:meth:`ResultsStore.blocks`).

    Returns
    -------
    OpenRun or None
        The run, locked for this process, with its stored blocks of the present length;
        a finished run asked for the games it has is read in one snapshot and neither
        locked nor marked (:attr:`OpenRun.finished`): nothing of it is to be written.

    Raises
    ------
    ValueError
        No such run, a run of another kind or with other settings, fewer games than it
        asked for, more games for a run with a stop rule, a run locked by another process,
        a damaged block; nothing in the store is changed then.
    """
    if store is None:
        if run_id is not None or parent is not None:
            raise ValueError(f"{'run_id' if run_id is not None else 'table_run'} is for a "
                             "stored run: give its store too")
        return None
    st = store if isinstance(store, ResultsStore) else ResultsStore(store)
    games = request["games"]
    if run_id is None:
        run_id = st.create_run(kind, request["position"], request, settings, parent=parent)
        st.lock(run_id)
        return OpenRun(st, run_id, {}, st is not store, new=True)
    with st.snapshot():        # its status and its blocks as one state of the store
        old = st.run(run_id)
        if old.status == "done" and games == old.games:
            # Finished, and not extended: nothing to play or to write, so no lock and no
            # mark (a read-only file or directory serves). A process extending it meanwhile
            # changes nothing of this snapshot.
            stored = _check_resume(st, old, run_id, kind, request, settings, games,
                                   counts_shape)
            return OpenRun(st, run_id, _full_blocks(stored, games, block_size), st is not store,
                           finished=True)
    st.lock(run_id)
    try:
        stored = _check_resume(st, old, run_id, kind, request, settings, games, counts_shape)
    except ValueError:
        st.unlock(run_id)
        raise
    st.resume_run(run_id, games, settings)
    return OpenRun(st, run_id, _full_blocks(stored, games, block_size), st is not store)


def _full_blocks(stored: dict, games: int, block_size: int) -> dict:
    """The ``done`` of a run of ``games`` games: its stored blocks ``{k: (counts, sums)}``
    up to the first that is not a block of that length (the short last block of a run
    since extended, which is played in full)."""
    done = {}
    for k, (n, c, f) in stored.items():
        if n != block_size_of(k, games, block_size):
            break
        done[k] = (c, f)
    return done


def _check_resume(st, old, run_id, kind, request, settings, games, counts_shape=None) -> dict:
    """:func:`open_run`'s checks of a run to continue, before anything is written: its
    stored blocks (read here, so that a corrupted one is refused with the store as it was)."""
    if old.kind != kind:
        raise ValueError(f"run {run_id} is {kind_name(old.kind)}, not {kind_name(kind)}")
    for key in sorted(set(old.request) | set(request)):
        if key != "games" and old.request.get(key) != request.get(key):
            raise ValueError(f"run {run_id} was stored with {key} {old.request.get(key)!r}, "
                             f"not {request.get(key)!r}: a resumed run keeps its settings")
    for key in sorted(set(old.settings) | set(settings)):
        if key not in _FREE_SETTINGS and old.settings.get(key) != settings.get(key):
            raise ValueError(f"run {run_id} was stored with {key} "
                             f"{old.settings.get(key)!r}, now {settings.get(key)!r}: its "
                             "numbers could not be continued")
    if games < old.games:
        raise ValueError(f"run {run_id} asked for {old.games:,} games; a resumed run may "
                         f"ask for more (extend), not fewer ({games:,})")
    if games > old.games and request.get("until_se") is not None:
        raise ValueError(f"run {run_id} has a stop rule (until_se "
                         f"{request['until_se']:g}), which is not extended: where it met "
                         "the rule more games would stop again, and where its games ran out "
                         "first they were the most it asked for; start a run with more "
                         "games or a smaller until_se instead")
    return st.blocks(run_id, counts_shape)

"""Distributed runs on Dask: the numbers of threads, through a lost worker too.

One local cluster of two worker processes (one thread each, as ``--dask --workers 2``
starts) serves the module; the test that kills a worker comes last. The games are few: what
is tested is that every block lands where it belongs, which a handful of blocks shows.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from fastbg import cube_rollout, cubeful_rollout, rollout
from fastbg.cli import main
from fastbg.research import gammons_table, openings_table, race_table, replies_table
from fastbg.rollouts.blocks import BlockRecipe, _engine_block, run_blocks
from fastbg.rollouts.cluster import connect
from fastbg.rollouts.plays import rollout_plays
from fastbg.rollouts.store import ResultsStore
from fastbg.game import Position
from test_research import _cut

pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")

CONTACT = "4HPMwQCMz+AIIQ"
#: A race, 12 checkers a side, about 50 pips each: short games, so that the slow
#: variance-reduced and cubeful games stay quick.
RACE = "bWsDAKBtywAAAA"
#: A bear-off of 5 and 6 checkers, for the cube rollout.
BEAROFF = "ZgYAALIBAAAAAA"

#: Keys of a result that say how it was run, not what it found.
HOW = {"seconds", "games_per_second", "workers", "dask"}


def numbers(res) -> dict:
    """A result's JSON without how it was run: what two runs must agree on, to the bit."""
    return {k: v for k, v in res.to_dict().items() if k not in HOW}


@pytest.fixture(scope="module")
def cluster():
    """fastbg's own local cluster: two worker processes, one thread each."""
    cl = connect(True, workers=2)
    yield cl
    cl.close()


def test_the_local_cluster_is_two_warm_single_thread_processes(cluster):
    assert cluster.local and cluster.threads() == 2
    pids = cluster.client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    # the networks were loaded as each worker started (dask_setup), not in its first block
    loaded = cluster.client.run(_nets_loaded)
    assert list(loaded.values()) == [True, True]
    # the local cluster's settings reached the worker processes (LOCAL_CLUSTER_CONFIG)
    settings = cluster.client.run(_worker_settings)
    assert list(settings.values()) == [(False, None, "1")] * 2


def _worker_settings():
    import dask
    return (dask.config.get("distributed.worker.profile.enabled"),
            os.environ.get("MALLOC_TRIM_THRESHOLD_"), os.environ.get("FASTBG_LOCAL_DASK_WORKER"))


def _nets_loaded() -> bool:
    from fastbg.spec import nets
    return nets._DEFAULT is not None


@pytest.mark.parametrize("position, games, options", [
    ("start", 5500, dict(policy="pubeval")),              # plain counts, a short last block
    (RACE, 2500, dict(policy="nn", vr=True, by_first_roll=True)),   # float sums, merged exactly
    (CONTACT, 2000, dict(policy="nn", vr=False, truncate=6)),
])
def test_a_rollout_on_dask_equals_the_threaded_rollout(cluster, position, games, options):
    threads = rollout(position, games, seed=11, workers=2, **options)
    dask = rollout(position, games, seed=11, dask=cluster.client, **options)
    assert numbers(dask) == numbers(threads)
    assert np.array_equal(dask.counts, threads.counts) and dask.games == games
    assert dask.dask == cluster.address and dask.workers == 2 and threads.dask is None


def test_run_blocks_sums_on_dask_equal_the_threads(cluster):
    """The variance-reduction sums themselves (not only the estimates made from them)."""
    from fastbg.rollouts.cubeless import _cubeless_block
    from fastbg.rollouts.settings import RolloutSettings
    board = Position.parse(RACE).board
    # (a block recipe receives the settings' dict form, as the store records it)
    settings = RolloutSettings(seed=5, policy="nn", opening=False, vr=True).as_dict()
    recipe = BlockRecipe(_cubeless_block, dict(settings=settings, engine="cython", board=board,
                                               block_size=1000))
    a = run_blocks(board, 2300, 5, workers=2, block=recipe)
    b = run_blocks(board, 2300, 5, block=recipe, cluster=cluster)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.sums, b.sums)
    assert a.sums.shape == (2, 6) and b.games == 2300 and not b.interrupted


def test_a_second_run_of_a_kind_starts_with_tasks_of_several_blocks(cluster, monkeypatch):
    """The seconds a block takes are remembered for the cluster and the kind of run: the
    first run of a kind sends one single-block task per thread, later ones (another seed,
    another position, another call given the Client) size their first tasks at once. The
    numbers are those of threads all the same."""
    from collections import OrderedDict
    from fastbg.rollouts import cluster as cl
    monkeypatch.setattr(cl, "_SECONDS_PER_GAME", OrderedDict())    # nothing known yet
    tasks = []
    submit = cl.DaskBlocks.submit

    def recorded(self, k, nblocks):
        fut, m = submit(self, k, nblocks)
        tasks.append((k, m))
        return fut, m

    monkeypatch.setattr(cl.DaskBlocks, "submit", recorded)
    opts = dict(policy="pubeval", truncate=9)
    runs = []
    for position, seed in ((CONTACT, 6), (RACE, 7), (RACE, 7)):
        tasks.clear()
        runs.append((rollout(position, 12000, seed=seed, dask=cluster.client, **opts),
                     list(tasks)))
    (_, first), (second, again), (third, _) = runs
    assert first[:2] == [(0, 1), (1, 1)]           # one block a thread, its time unknown
    # 12 blocks, 2 threads: no task of more than 12 // 4 blocks, whatever a block's time
    assert again[0] == (0, 3) and again[1][0] == 3 and sum(m for _, m in again) == 12
    assert numbers(second) == numbers(third) == \
        numbers(rollout(RACE, 12000, seed=7, workers=2, **opts))
    # what the estimate is kept by: the settings of the blocks, not the seed nor the position
    board = Position.parse(CONTACT).board
    kind = dict(engine="cython", policy="pubeval", dice=None, opening=False)
    a = BlockRecipe(_engine_block, dict(kind, board=board))
    b = BlockRecipe(_engine_block, dict(kind, board=Position.parse(RACE).board))
    c = BlockRecipe(_engine_block, dict(kind, board=board, policy="nn"))
    assert cl.block_kind(a, 1000) == cl.block_kind(b, 1000) != cl.block_kind(c, 1000)
    assert cl.block_kind(a, 1000) != cl.block_kind(a, 500)
    assert cl.block_kind(_engine_block, 1000) is None


def test_candidate_plays_cubeful_and_cube_rollouts_on_dask_equal_threads(cluster):
    c = cluster.client
    a = rollout_plays(CONTACT, "31", 700, seed=3, workers=2, policy="pubeval", top=3,
                      prune_se=0.5, min_games=324)
    b = rollout_plays(CONTACT, "31", 700, seed=3, dask=c, policy="pubeval", top=3,
                      prune_se=0.5, min_games=324)
    assert numbers(a) == numbers(b) and b.dask == cluster.address
    a = cubeful_rollout(RACE, 2100, seed=4, workers=2, policy="pubeval", vr=True)
    b = cubeful_rollout(RACE, 2100, seed=4, dask=c, policy="pubeval", vr=True)
    assert numbers(a) == numbers(b) and "dask" not in a.to_dict()
    a = cube_rollout(BEAROFF, 1500, seed=5, workers=2, policy="pubeval")
    b = cube_rollout(BEAROFF, 1500, seed=5, dask=c, policy="pubeval")
    assert numbers(a) == numbers(b) and b.to_dict()["dask"] == cluster.address


#: Small tables of every kind (a few rows of a few blocks each, pubeval): candidate plays with
#: pruning (stages), replies, race positions (cubeless rollouts with variance reduction's
#: float sums and exact bear-offs), and the gammons table's own blocks (no rows).
TABLES = {
    "openings": lambda **kw: openings_table(648, seed=3, rolls="21,65", top=3, prune_se=1.0,
                                            min_games=324, policy="pubeval", **kw),
    "replies": lambda **kw: replies_table("8/5 6/5", 700, seed=3, rolls="11,62", top=2,
                                          policy="pubeval", **kw),
    "race": lambda **kw: race_table(pips=[40, 60], leads=[0, 12], positions=1, games=1300,
                                    seed=3, policy="pubeval", vr=True, **kw),
    "gammons": lambda **kw: gammons_table(1200, seed=3, policy="pubeval", **kw),
}


def table_numbers(t, rows_ids: bool = True) -> dict:
    """A table's JSON without how it was run (nor, with ``rows_ids=False``, the ids of its
    rows' runs and the games read from the store, which a resumed table has of its own)."""
    d = {k: v for k, v in t.to_dict().items() if k not in HOW}
    if not rows_ids:
        d["rows"] = [{k: v for k, v in r.items() if k != "run_id"} for r in d["rows"]]
        d.pop("stored_games", None)
    return d


def stored(path) -> list:
    """Everything a store holds, run by run and block by block, but when the runs were made
    and how (a table's summary is its result, with its seconds and cluster)."""
    out = []
    with ResultsStore(path) as st:
        for run in st.runs():
            d = run.to_dict()
            del d["created"], d["updated"]
            if d["summary"] is not None:
                d["summary"] = {k: v for k, v in d["summary"].items() if k not in HOW}
            out.append((d, [(k, n, c.tolist(), None if f is None else f.tolist())
                            for k, (n, c, f) in st.blocks(run.id).items()]))
    return out


@pytest.mark.parametrize("name", TABLES)
def test_a_table_on_dask_stores_the_numbers_of_threads_and_resumes_on_either(
        cluster, tmp_path, name):
    make = TABLES[name]
    on_threads, on_dask = tmp_path / "threads.sqlite", tmp_path / "dask.sqlite"
    threads = make(workers=2, store=on_threads)
    dask = make(dask=cluster.client, store=on_dask)
    assert dask.dask == cluster.address and threads.dask is None
    assert dask.to_dict()["dask"] == cluster.address and "dask" not in threads.to_dict()
    assert table_numbers(dask) == table_numbers(threads) and not dask.interrupted
    assert stored(on_dask) == stored(on_threads)
    # a table cut short on threads (a row half done, the next not started) and resumed on the
    # cluster, and the other way round: the numbers of one uninterrupted table
    for path, run, other in ((on_threads, threads, dict(dask=cluster.client)),
                             (on_dask, dask, dict(workers=2))):
        _cut(path, run.run_id, keep_rows=1, keep_blocks=1)
        resumed = make(store=path, run_id=run.run_id, **other)
        assert resumed.stored_games > 0
        assert table_numbers(resumed, rows_ids=False) == table_numbers(threads, rows_ids=False)
    assert stored(on_dask) == stored(on_threads)


def test_a_table_starts_one_local_cluster_for_all_its_rows(monkeypatch):
    import distributed
    started = []

    class Counted(distributed.LocalCluster):
        def __init__(self, *args, **kwargs):
            started.append(kwargs["n_workers"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(distributed, "LocalCluster", Counted)
    kw = dict(pips=[40], leads=[0, 10], positions=2, games=1500, seed=8, policy="pubeval")
    t = race_table(dask=True, workers=2, **kw)
    assert started == [2] and len(t.rows) == 4 and t.dask.startswith("tcp://127.0.0.1:")
    assert table_numbers(t) == table_numbers(race_table(workers=2, **kw))


def _fastbg(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "fastbg", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)


@pytest.mark.slow
def test_cli_dask_alone_starts_a_local_cluster_with_the_numbers_of_threads():
    common = ["rollout", "start", "-n", "3000", "--seed", "5", "--policy", "pubeval", "--json",
              "--no-progress", "--workers", "2"]
    threads = _fastbg(*common)
    dask = _fastbg(*common, "--dask")
    assert threads.returncode == 0 and dask.returncode == 0, dask.stderr
    t, d = json.loads(threads.stdout), json.loads(dask.stdout)
    assert d["dask"].startswith("tcp://127.0.0.1:") and "dask" not in t
    assert d["workers"] == t["workers"] == 2 and d["games"] == 3000
    assert {k: v for k, v in d.items() if k not in HOW} == \
           {k: v for k, v in t.items() if k not in HOW}
    assert dask.stderr == ""            # no log lines of the cluster


def test_cli_stored_run_resumed_and_extended_on_a_scheduler(cluster, tmp_path):
    path = tmp_path / "runs.sqlite"
    first = _fastbg("rollout", CONTACT, "-n", "1500", "--seed", "2", "--policy", "pubeval",
                    "--store", str(path), "--no-progress", "--dask", cluster.address)
    assert first.returncode == 0, first.stderr
    assert f"workers 2 on the Dask cluster at {cluster.address}" in first.stdout
    more = _fastbg("rollout", "--resume", "1", "--extend", "2500", "--store", str(path),
                   "--no-progress", "--json", "--dask", cluster.address)
    assert more.returncode == 0, more.stderr
    d = json.loads(more.stdout)
    full = rollout(CONTACT, 4000, seed=2, policy="pubeval", workers=2)
    # (the short last block of 500 games is played again, in full)
    assert d["games"] == 4000 and d["stored_games"] == 1000
    assert d["counts"] == full.counts.tolist() and d["equity"] == full.equity
    with ResultsStore(path) as st:
        assert st.run(1).status == "done" and len(st.blocks(1)) == 4


@pytest.mark.slow
def test_cli_table_on_a_scheduler_gives_the_json_of_threads(cluster, tmp_path):
    common = ["table", "race", "--pips", "40", "--leads", "0,10", "--positions", "1", "-n",
              "1100", "--seed", "4", "--policy", "pubeval", "--no-progress"]
    threads = _fastbg(*common, "--json", "--workers", "2")
    dask = _fastbg(*common, "--json", "--dask", cluster.address)
    assert threads.returncode == 0 and dask.returncode == 0, dask.stderr
    t, d = json.loads(threads.stdout), json.loads(dask.stdout)
    assert d["dask"] == cluster.address and "dask" not in t and dask.stderr == ""
    assert {k: v for k, v in d.items() if k not in HOW} == \
           {k: v for k, v in t.items() if k not in HOW}
    path = str(tmp_path / "runs.sqlite")
    text = _fastbg(*common, "--dask", cluster.address, "--store", path)
    assert text.returncode == 0 and f"on the Dask cluster at {cluster.address}" in text.stdout
    # resumed (here: read back whole) on threads, with its own settings
    again = _fastbg("table", "race", "--resume", "1", "--store", path, "--json", "--no-progress")
    assert again.returncode == 0, again.stderr
    a = json.loads(again.stdout)
    assert a["rows"] and [r["rollout"] for r in a["rows"]] == [r["rollout"] for r in t["rows"]]


def test_a_table_without_dask_does_not_import_it():
    out = subprocess.run([sys.executable, "-c", (
        "import sys; from fastbg.cli import main; "
        "code = main(['table', 'race', '--pips', '40', '--leads', '0', '--positions', '1', "
        "'-n', '100', '--policy', 'pubeval', '--no-progress', '--json']); "
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "0 []"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_scheduler_that_does_not_answer_is_one_line_and_leaves_the_store_alone(
        tmp_path, capsys):
    import dask
    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 1200, seed=1, policy="pubeval", store=path)     # run 1: 2 blocks
    before = _digest(path)
    address = f"tcp://127.0.0.1:{_free_port()}"
    want = "error: no Dask scheduler answers at " + address
    # Dask's own setting of how long to try (30 s unless configured): 1 s here
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="1s")
    out = _fastbg("rollout", "--resume", "1", "--extend", "1000", "--store", str(path),
                  "--no-progress", "--dask", address, env=env)
    assert out.returncode == 2 and out.stdout == "", out.stderr
    assert out.stderr.startswith("fastbg rollout: " + want) and out.stderr.count("\n") == 1
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        for args in (["rollout", CONTACT, "-n", "2000", "--store", str(path)],
                     ["rollout", CONTACT, "--cubeful"],
                     ["moves", CONTACT, "31", "--rollout"],
                     ["cube", CONTACT, "--method", "rollout"],
                     ["table", "race", "--pips", "40", "--leads", "0", "--store", str(path)]):
            assert main([*args, "--no-progress", "--dask", address]) == 2, args
            got = capsys.readouterr()
            command = " ".join(args[:2]) if args[0] == "table" else args[0]   # table race
            assert got.err.startswith(f"fastbg {command}: {want}"), got.err
            assert got.err.count("\n") == 1 and got.out == ""
    assert _digest(path) == before
    with ResultsStore(path) as st:
        assert len(st.runs()) == 1 and st.run(1).games == 1200 and len(st.blocks(1)) == 2


def test_a_scheduler_that_does_not_answer_leaves_no_new_store(tmp_path, capsys):
    # `rollout --dask tcp://... --store new.sqlite` said that no scheduler answers, status 2,
    # and left an empty new.sqlite (new-user trial): the command made the store before the
    # run connected; it connects first now, as the library functions do
    import dask
    address = f"tcp://127.0.0.1:{_free_port()}"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        for args in (["rollout", CONTACT, "-n", "2000", "--policy", "pubeval"],
                     ["table", "race", "--pips", "40", "--leads", "0", "--positions", "1"],
                     ["table", "openings", "--rolls", "31"], ["table", "gammons"]):
            path = tmp_path / "new.sqlite"
            assert main([*args, "--store", str(path), "--no-progress", "--dask", address]) == 2
            err = capsys.readouterr().err
            assert "error: no Dask scheduler answers at " + address in err, err
            assert not path.exists(), args


def test_a_new_store_run_on_a_local_cluster_has_the_numbers_of_threads(tmp_path):
    common = ["rollout", CONTACT, "-n", "1500", "--seed", "3", "--policy", "pubeval", "--json",
              "--no-progress", "--workers", "2"]
    threads = _fastbg(*common)
    dask = _fastbg(*common, "--dask", "--store", str(tmp_path / "new.sqlite"))
    assert threads.returncode == 0 and dask.returncode == 0, dask.stderr
    t, d = json.loads(threads.stdout), json.loads(dask.stdout)
    assert d["dask"].startswith("tcp://127.0.0.1:") and d["workers"] == t["workers"] == 2
    assert {k: v for k, v in d.items() if k not in HOW | {"run_id", "store", "stored_games"}} \
        == {k: v for k, v in t.items() if k not in HOW}
    with ResultsStore(tmp_path / "new.sqlite") as st:
        assert st.run(1).status == "done" and st.run(1).games_done == 1500


def _status(argv) -> int:
    """``main(argv)``'s exit status, whether it returns it or argparse exits with it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_bad_dask_arguments_are_one_line_errors(capsys, monkeypatch):
    for argv, why in ((["rollout", "--dask", "start"], "'start' is not a Dask scheduler address"),
                      (["rollout", "--dask", "tcp://127.0.0.1:1", "--workers", "2"],
                       "--workers is for threads or a local cluster"),
                      (["moves", "start", "31", "--dask"], "--dask is for --rollout"),
                      (["table", "race", "--dask", "tcp://127.0.0.1:1", "--workers", "2"],
                       "--workers is for threads or a local cluster"),
                      (["table", "openings", "--resume", "1", "--workers", "2", "--dask",
                        "tcp://127.0.0.1:1"], "--workers is for threads or a local cluster"),
                      (["table", "replies", "--dask", "31"],
                       "'31' is not a Dask scheduler address")):
        assert _status(argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1, (argv, err)
    with pytest.raises(ValueError, match="dask must be True, a scheduler address"):
        rollout("start", 10, dask=5)
    with pytest.raises(ValueError, match="workers is the number of worker processes"):
        rollout("start", 10, workers=2, dask="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="workers is the number of worker processes"):
        gammons_table(10, workers=2, dask="tcp://127.0.0.1:1")
    # dask.distributed not installed: the install hint, exit 2, before any game is played
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[dask\]'"):
        rollout("start", 10, dask=True)
    assert main(["rollout", "-n", "10", "--dask", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == ("fastbg rollout: error: distributed runs need dask.distributed, which is "
                   "not installed: pip install 'fastbg[dask]'\n")
    assert main(["table", "gammons", "-n", "10", "--dask", "--no-progress"]) == 2
    assert capsys.readouterr().err == err.replace("rollout", "table gammons", 1)


@pytest.mark.slow
def test_ctrl_c_of_a_local_cluster_run_keeps_its_blocks(tmp_path):
    """Ctrl-C reaches the whole process group, the cluster's workers included: they leave it
    to the rollout, which stops cleanly, stores the blocks it merged and exits 130; the
    run resumed on threads ends with the numbers of one run."""
    path = tmp_path / "runs.sqlite"
    games = 200_000
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastbg", "rollout", "start", "-n", str(games), "--seed", "9",
         "--policy", "pubeval", "--store", str(path), "--no-progress", "--dask", "--workers",
         "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:          # until a block is stored
        time.sleep(0.5)
        if path.exists():
            with ResultsStore(path) as st:
                if st.runs() and st.blocks(1):
                    break
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "INTERRUPTED" in out and err.startswith("fastbg: Ctrl-C: "), err
    assert "Traceback" not in err and err.count("\n") == 1, err
    with ResultsStore(path) as st:
        stored = st.run(1).games_done
        assert st.run(1).status == "interrupted" and 0 < stored < games
    # the rest on threads, with fewer games for the test's sake: extend needs the whole run,
    # so compare the stored prefix instead
    with ResultsStore(path) as st:
        counts = sum(c for _, c, _ in st.blocks(1).values())
    prefix = rollout("start", stored, seed=9, policy="pubeval", workers=2)
    assert counts.tolist() == prefix.counts.tolist()


@pytest.mark.slow
def test_a_worker_killed_in_the_run_costs_only_its_blocks(cluster):
    """SIGKILL of a worker process holding blocks: the nanny starts another, the scheduler
    plays the lost blocks again, and the numbers are those of threads."""
    c = cluster.client
    pids = c.run(os.getpid)
    killed = []

    def kill_a_busy_worker(_games):
        if killed:
            return
        busy = [w for w, keys in c.processing().items()
                if any(str(k).startswith("fastbg-blocks-") for k in keys)]
        if busy:
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(pids[busy[0]])

    res = rollout(CONTACT, 4000, seed=21, policy="nn", vr=False, dask=c,
                  progress=kill_a_busy_worker)
    assert killed, "no worker was playing a block when the first block was merged"
    want = rollout(CONTACT, 4000, seed=21, policy="nn", vr=False, workers=2)
    assert numbers(res) == numbers(want) and not res.interrupted
    # the nanny replaced the killed process
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(c.run(os.getpid)) < 2:
        time.sleep(0.2)
    now = set(c.run(os.getpid).values())
    assert killed[0] not in now and len(now) == 2


def test_a_local_workers_heartbeat_failure_at_close_is_not_logged():
    """Closing a local cluster can catch a worker's heartbeat on its way: the worker logged
    the closed connection with a traceback on the run's stderr (after a Ctrl-C under load).
    A local worker's filter drops that record, and only that one."""
    import logging

    from fastbg.rollouts.cluster import _closing_heartbeat

    def record(msg):
        return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1, msg, (), None)

    assert not _closing_heartbeat(record("Failed to communicate with scheduler during heartbeat."))
    assert _closing_heartbeat(record("Compute Failed"))


def test_a_refused_connection_is_known_at_once_and_a_listener_is_left_to_dask():
    # `--dask tcp://127.0.0.1:1` took Dask's 30-second connect time-out to say that no
    # scheduler answers (new-user trial); a refused connection is now said at once
    import socket

    from fastbg.rollouts.cluster import _refused

    assert _refused(f"tcp://127.0.0.1:{_free_port()}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert _refused(f"tcp://127.0.0.1:{port}") is None
        assert _refused(f"127.0.0.1:{port}") is None
    assert _refused("ucx://127.0.0.1:1") is None     # not over TCP: Dask decides

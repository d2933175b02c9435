"""What does Dask cost? Games per second of threaded rollouts and of the same rollouts on a
local Dask cluster, side by side.

Each case is rolled out with the same seed on ``--workers`` threads and on a ``LocalCluster``
of as many worker processes (one thread each, as ``fastbg rollout --dask`` starts it),
alternately ``--repeats`` times (the order swapped every repeat, so that a drift of the
machine's load hits both alike). The script reports the median games per second of each, the
median of the paired ratios dask / threads, and the overhead ``1 - that ratio``. The numbers
of both runs are checked to be identical. Issue 13's target: under 5% of a plain threaded
run's games per second (2 workers, 2 cores).

On a machine shared with other work the wall clock swings with their load, so the script
also counts the CPU seconds each run cost (this process's, and with Dask the workers'
too): ``cpu_ratio`` (threads / dask) compares two runs, which the load sways too (the same
blocks can cost 15% more CPU in one run than in the next when other processes crowd the
caches); ``dask_own_cpu`` is Dask's own work within one run, all the CPU of the run's
processes less that of the blocks (timed inside the tasks), as a share of the blocks':
what Dask costs, free of the run-to-run swings.

The cluster is started once, before the timings, and is not counted: its start-up (a few
seconds: two Python processes importing fastbg and loading the networks) is paid once per
``fastbg rollout --dask`` command, or once for many runs on a cluster started with
``dask scheduler`` / ``dask worker``. A rollout's ``seconds`` does not count it either.

Usage::

    python experiments/bench_dask.py                  # about 5 minutes on 2 idle cores
    python experiments/bench_dask.py --json experiments/results/bench_dask.json
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import sys
import time

import distributed

import fastbg
from fastbg.rollouts.cluster import connect

import record  # experiments/record.py: command, date and commit of a result

#: (name, position, policy, vr, games): the fastest policy, whose 1,000-game blocks take a few
#: hundredths of a second (where a per-task cost shows most), the default one, and the
#: default one with variance reduction (fastbg rollout's default), slowest per block.
CASES = [
    ("start, pubeval", "start", "pubeval", False, 100000),
    ("contact, nn (plain MC)", "4HPMwQCMz+AIIQ", "nn", False, 20000),
    ("contact, nn (VR)", "4HPMwQCMz+AIIQ", "nn", True, 4000),
]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _count_task_cpu() -> None:
    """On a worker: make the block tasks add up their threads' CPU seconds."""
    from fastbg.rollouts import cluster
    if hasattr(cluster, "_task_cpu"):
        return
    play = cluster._play
    cluster._task_cpu = [0.0]

    def counted(*args):
        c0 = time.thread_time()
        try:
            return play(*args)
        finally:
            cluster._task_cpu[0] += time.thread_time() - c0
    cluster._play = counted       # tasks name _play by module and name: they get this one


def _worker_cpu() -> tuple[float, float]:
    from fastbg.rollouts import cluster
    return _cpu(), cluster._task_cpu[0]


def _timed(run, client=None) -> tuple[float, float, float, object]:
    """Wall-clock seconds, CPU seconds (this process's, plus the workers' of ``client``'s
    cluster, read before and after the run, outside its wall clock), the CPU seconds of
    the block tasks on the workers, and the result."""
    workers = client.run(_worker_cpu) if client is not None else {}
    c0, t0 = _cpu(), time.perf_counter()
    res = run()
    wall, cpu, tasks = time.perf_counter() - t0, _cpu() - c0, 0.0
    if client is not None:
        after = client.run(_worker_cpu)
        cpu += sum(after[w][0] - workers.get(w, (0.0, 0.0))[0] for w in after)
        tasks = sum(after[w][1] - workers.get(w, (0.0, 0.0))[1] for w in after)
    return wall, cpu, tasks, res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the games of every case")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    cluster = connect(True, workers=args.workers)
    startup = time.perf_counter() - t0
    print(f"local cluster of {cluster.threads()} single-thread worker processes started in "
          f"{startup:.1f} s (not counted below)")
    cluster.client.run(_count_task_cpu)
    rows = []
    print(f"{'case':<24} {'games':>7} {'threads g/s':>12} {'dask g/s':>9} {'dask/threads':>13} "
          f"{'overhead':>9} {'CPU ratio':>10} {'CPU ovh.':>8} {'Dask own':>9}")
    try:
        for name, pos, policy, vr, games in CASES:
            games = max(1, int(games * args.scale))
            common = dict(seed=args.seed, policy=policy, vr=vr)
            threads, dask, ratios, cpu_ratios, own = [], [], [], [], []
            for i in range(args.repeats):
                runs = [("threads", lambda: _timed(lambda: fastbg.rollout(
                            pos, games, workers=args.workers, **common))),
                        ("dask", lambda: _timed(lambda: fastbg.rollout(
                            pos, games, dask=cluster.client, **common), cluster.client))]
                if i % 2:
                    runs.reverse()
                got = {how: run() for how, run in runs}
                (ta, ca, _, a), (tb, cb, tasks, b) = got["threads"], got["dask"]
                assert a.counts.tolist() == b.counts.tolist() and a.equity == b.equity \
                    and a.stderr == b.stderr
                threads.append(games / ta)
                dask.append(games / tb)
                ratios.append(ta / tb)
                cpu_ratios.append(ca / cb)
                own.append((cb - tasks) / tasks)
            t, d, r = statistics.median(threads), statistics.median(dask), statistics.median(ratios)
            rc, ro = statistics.median(cpu_ratios), statistics.median(own)
            rows.append(dict(case=name, position=pos, policy=policy, vr=vr, games=games,
                             blocks=-(-games // 1000), threads_games_per_s=t,
                             dask_games_per_s=d, ratio=r, overhead=1 - r, cpu_ratio=rc,
                             cpu_overhead=1 - rc, dask_own_cpu=ro, threads_runs=threads,
                             dask_runs=dask, ratios=ratios, cpu_ratios=cpu_ratios,
                             dask_own_cpus=own))
            print(f"{name:<24} {games:>7,} {t:>12,.0f} {d:>9,.0f} {r:>13.3f} {1 - r:>8.1%} "
                  f"{rc:>10.3f} {1 - rc:>8.1%} {ro:>9.1%}", flush=True)
    finally:
        cluster.close()
    out = dict(repeats=args.repeats, workers=args.workers, seed=args.seed,
               cluster="LocalCluster, one thread per worker process, started before the "
                       "timings (not counted)",
               cluster_startup_seconds=startup, timing="wall clock of fastbg.rollout() per run",
               fastbg_version=fastbg.__version__, distributed_version=distributed.__version__,
               cpus=os.cpu_count(), load_average=os.getloadavg(),
               machine=platform.machine(), python=platform.python_version(), rows=rows)
    if args.json:
        record.write_json(args.json, out)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

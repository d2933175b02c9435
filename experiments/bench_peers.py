"""fastbg against the peer libraries a researcher would pick instead, in one run.

The peers are installed from the package registry into this experiment's own
virtual environment, ``experiments/.venv-peers`` (created on the first run,
reused afterwards; gitignored), and each is measured by
``experiments/peer_worker.py`` running inside it, while the fastbg figures are
measured in the current environment in the same invocation (the machine is
shared and noisy: compare ratios measured side by side, not figures from
different runs).

Peers
-----
OpenSpiel (``open_spiel``)
    C++ backgammon behind pybind11. An action plays the two dice of a roll (two
    half-moves); a double is two decisions, so its legal actions are not
    distinct positions. Random play picks uniformly among legal actions. It
    has no loader for arbitrary positions, so its legal-play figure uses
    positions from its own seeded random games; a second figure expands every
    action (doubles over both decisions) to distinct resulting positions.
GNU Backgammon's evaluator bindings (``gnubg-nn``)
    GNU Backgammon's C move generation behind Python: ``moves(board, d1, d2)``
    gives one key per distinct resulting position (the same unit as fastbg;
    the counts are checked equal on the shared positions), ``pub_best_move``
    the pubeval choice. Games are driven by a Python loop around these calls.
``gym-backgammon``
    Pure Python. Plays are sets of move sequences, not de-duplicated by
    resulting position. Needs ``gym`` and ``pyglet`` (imported by its renderer).

Workloads, each a median of ``--repeat`` runs: random-policy games from the start
with the opening roll (games/s, one thread), pubeval games (games/s, where the
peer has pubeval), legal-play generation over the fixed set of 1,000 seeded
positions x 21 rolls of :func:`fastbg.rollouts.bench.bench_positions` ((position, roll)
pairs/s, one call per pair from Python).

Because the load of a shared machine drifts during a run, fastbg's random-game
figure is timed again right after each peer (``fastbg_random_adjacent`` in the
JSON, the last column of the table): that ratio compares measurements minutes
apart rather than one taken at the start of the run.

Usage
-----
    python experiments/bench_peers.py [--repeat 5] [--peer gnubg_nn ...] [--json]

Writes the Markdown table to stdout and everything to
``experiments/results/bench_peers.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record  # experiments/record.py: command, date and commit of a result

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv-peers"
WORKER = HERE / "peer_worker.py"
RESULTS = HERE / "results" / "bench_peers.json"

# peer -> (pip requirements, import name, label, games per timed run)
PEERS = {
    "openspiel": (["open_spiel"], "pyspiel", "OpenSpiel (C++ behind Python)", 200),
    "gnubg_nn": (["gnubg-nn"], "gnubg_nn", "gnubg-nn (GNU Backgammon C movegen, Python loop)", 500),
    "gym_backgammon": (["gym-backgammon", "gym", "pyglet"], "gym_backgammon.envs.backgammon_env",
                       "gym-backgammon (pure Python)", 50),
}

PLAYS_UNIT = {
    "cython": "distinct resulting positions",
    "python": "distinct resulting positions",
    "gnubg_nn": "distinct resulting positions",
    "openspiel": "actions = pairs of half-moves; a double is two decisions",
    "gym_backgammon": "move sequences, not de-duplicated",
}


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(log) -> str | None:
    """Create the peers' venv if needed; None, or why it cannot be used."""
    py = venv_python()
    if py.exists():
        return None
    log(f"creating {VENV}")
    r = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
    if r.returncode:
        return f"cannot create the venv: {r.stderr.strip()[-300:]}"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"], capture_output=True)
    return None


def ensure_peer(peer: str, log) -> str | None:
    """Install the peer into the venv if it does not import; None, or the reason it failed."""
    reqs, module, _, _ = PEERS[peer]
    py = str(venv_python())
    if subprocess.run([py, "-c", f"import {module}"], capture_output=True).returncode == 0:
        return None
    log(f"installing {' '.join(reqs)} into {VENV.name}")
    r = subprocess.run([py, "-m", "pip", "install", "-q", *reqs], capture_output=True, text=True)
    if r.returncode:
        lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("WARNING")]
        return f"pip install {' '.join(reqs)} failed: {' '.join(lines[-2:])[:300]}"
    r = subprocess.run([py, "-c", f"import {module}"], capture_output=True, text=True)
    if r.returncode:
        return f"installed but `import {module}` fails: {r.stderr.strip().splitlines()[-1][:300]}"
    return None


def run_peer(peer: str, positions_file: str, repeat: int, seed: int, timeout: float) -> dict:
    _, _, _, games = PEERS[peer]
    cmd = [str(venv_python()), str(WORKER), peer, "--positions", positions_file,
           "--games", str(games), "--repeat", str(repeat), "--seed", str(seed)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"worker timed out after {timeout:.0f} s"}
    if r.returncode:
        last = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
        return {"error": f"worker failed: {last[-1][:300] if last else r.returncode}"}
    return json.loads(r.stdout.strip().splitlines()[-1])


def fmt(x) -> str:
    return "n/a" if x is None else f"{x:,.0f}"


def table(report: dict) -> str:
    rows = report["engines"]
    cy = rows["cython"]
    base_random = cy["random"]["median"]
    lines = ["| engine | random games/s | pubeval games/s | legal plays, (position, roll)/s "
             "| plays counted as | fastbg Cython speed-up, random games "
             "| same, fastbg re-timed right after the peer |",
             "|---|---:|---:|---:|---|---:|---:|"]
    for key, r in rows.items():
        label = r["label"]
        if "error" in r:
            lines.append(f"| {label} | not run: {r['error']} | | | | | |")
            continue
        rnd = r.get("random", {}).get("median")
        pub = r.get("pubeval", {}).get("median")
        mg = r.get("movegen", {}).get("median")
        mg_s = fmt(mg)
        if key == "openspiel" and "movegen_distinct" in r:
            mg_s += f" (to distinct positions: {fmt(r['movegen_distinct']['median'])})"
        if key == "python" and mg is not None:
            mg_s += f" (first {r['movegen']['positions']} positions)"
        speed = f"{base_random / rnd:,.1f}x" if rnd else "n/a"
        adj = r.get("fastbg_random_adjacent", {}).get("median")
        adj_s = f"{adj / rnd:,.1f}x" if adj and rnd else ""
        lines.append(f"| {label} | {fmt(rnd)} | {fmt(pub)} | {mg_s} | {PLAYS_UNIT[key]} | {speed} "
                     f"| {adj_s} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per figure (median)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peer", choices=list(PEERS), action="append", default=None,
                    help="peer to run (repeatable; default all)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per peer worker")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    args = ap.parse_args(argv)
    log = lambda msg: print(f"[bench_peers] {msg}", file=sys.stderr, flush=True)  # noqa: E731

    from fastbg.rollouts.bench import DEFAULT_GAMES, bench_positions, run_bench, time_games

    cy_random_games = DEFAULT_GAMES[("cython", "random")]

    def games_rate(engine, policy, games, seed):
        return games / time_games(engine, policy, games, seed)

    t_start = time.time()
    positions = bench_positions(1000)
    report = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "repeat": args.repeat, "seed": args.seed,
        "positions": {"count": len(positions), "source": "fastbg.rollouts.bench.bench_positions(1000, seed=2026)"},
        "engines": {},
    }
    log("measuring fastbg (Cython and pure Python)")
    fb = run_bench(("cython", "python"), repeat=args.repeat, seed=args.seed, log=log)
    report["fastbg_config"] = fb["config"]
    report["engines"]["cython"] = {"label": "fastbg Cython (1 thread)", **fb["results"]["cython"]}
    report["engines"]["python"] = {"label": "fastbg pure Python", **fb["results"]["python"]}

    peers = list(dict.fromkeys(args.peer or PEERS))
    why = ensure_venv(log)
    with tempfile.TemporaryDirectory() as tmp:
        pos_file = os.path.join(tmp, "positions.json")
        with open(pos_file, "w") as fh:
            json.dump(positions.tolist(), fh)
        for peer in peers:
            label = PEERS[peer][2]
            err = why or ensure_peer(peer, log)
            if err:
                report["engines"][peer] = {"label": label, "error": err}
                log(f"{peer}: {err}")
                continue
            log(f"measuring {peer}")
            res = run_peer(peer, pos_file, args.repeat, args.seed, args.timeout)
            report["engines"][peer] = {"label": label, **res}
            if "error" in res:
                log(f"{peer}: {res['error']}")
                continue
            # The machine's load drifts: time fastbg's random games again right
            # after each peer, so each ratio also has a side-by-side version.
            cy_runs = [games_rate("cython", "random", cy_random_games, args.seed)
                       for _ in range(args.repeat)]
            report["engines"][peer]["fastbg_random_adjacent"] = {
                "median": statistics.median(cy_runs), "runs": cy_runs}

    # Same unit, same positions: gnubg-nn's distinct plays must match fastbg's.
    gn = report["engines"].get("gnubg_nn", {})
    if "movegen" in gn:
        from fastbg.rollouts.bench import time_movegen

        _, ours = time_movegen("cython", positions[: gn["movegen"]["positions"]])
        gn["movegen"]["plays_equal_fastbg"] = ours == gn["movegen"]["plays"]
        report["engines"]["cython"]["movegen"]["plays_on_peer_positions"] = ours
    cy_rnd = report["engines"]["cython"]["random"]["median"]
    report["ratios_random_games"] = {
        k: cy_rnd / v["random"]["median"] for k, v in report["engines"].items()
        if k != "cython" and "random" in v
    }
    report["ratios_random_games_adjacent"] = {
        k: v["fastbg_random_adjacent"]["median"] / v["random"]["median"]
        for k, v in report["engines"].items() if "fastbg_random_adjacent" in v
    }
    report["seconds"] = time.time() - t_start
    report["table"] = table(report)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    record.write_json(out, report, indent=2)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(report["table"])
    print()
    print(f"Median of {args.repeat} runs, one thread each, measured in one run on "
          f"{os.cpu_count()} CPUs ({report['date_utc']}). Games from the start with the opening "
          f"roll; legal plays over {len(positions)} seeded positions x 21 rolls, one call per "
          "(position, roll) from Python (OpenSpiel: positions of its own seeded games).")
    if "plays_equal_fastbg" in gn.get("movegen", {}):
        print(f"gnubg-nn finds the same number of distinct plays as fastbg on the same positions: "
              f"{'yes' if gn['movegen']['plays_equal_fastbg'] else 'NO'}")
    print(f"JSON: {out}")


if __name__ == "__main__":
    main()

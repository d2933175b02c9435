"""fastbg ``nn`` rollouts against GNU Backgammon's own 0-ply rollouts, side by side.

Issue 5's speed target: ``nn`` rollouts at least 5x GNU Backgammon's own 0-ply
rollout speed per core, on the same machine. This script measures, in one run and
interleaved (gnubg, then fastbg, position by position, repeat by repeat, so that a
drifting load on a shared machine hits both alike):

* GNU Backgammon (the ``gnubg`` program, e.g. Debian's package) rolling out each
  position cubeless, chequer play at 0 ply, one thread, a fixed number of trials
  and a fixed seed, played to the end (games/s);
* fastbg ``rollout(position, games, policy="nn", workers=1)`` on the same positions
  and the same number of games (games/s), and ``policy="pubeval"`` for reference;

and reports the ratio fastbg nn / gnubg per position, each figure the median of
``--repeat`` runs, as a Markdown table on stdout and as JSON in
``experiments/results/bench_gnubg_rollout.json`` (with gnubg's version, the exact
gnubg commands, both engines' rollout results and the machine's load average).

How gnubg is driven
-------------------
``gnubg -t -q -r -p SCRIPT.py``: text mode, no sound, no ``.gnubgrc``, and a
Python script (gnubg's embedded Python) that issues the ``set rollout ...``
commands of :data:`GNUBG_SETTINGS`, loads the position with ``set xgid`` (the dice
not yet rolled), checks gnubg's Position ID against fastbg's, and times
``gnubg.command("rollout")`` alone with ``time.perf_counter`` and
``time.process_time``: gnubg's start-up (loading its networks and bearoff
databases) is outside the timed interval. Every timed rollout runs in a fresh gnubg
process, so gnubg's evaluation cache never starts warm from an earlier repeat of
the same seeded rollout; likewise fastbg's memo of blot features (kept per thread when
the crashed net reads them) is emptied before each of its timed rollouts. gnubg prints its rollout result only when its standard
output is a terminal, so it runs on a pseudo-terminal; it then also redraws its
progress every 2 s (a negligible cost). ``HOME`` is a temporary directory, so the
user's gnubg settings are neither read nor written.

Differences in the work (read before quoting the ratio)
------------------------------------------------------
* gnubg evaluates with its own networks: contact, crashed and race nets of 128
  hidden units on 250 (214 for race) inputs, classified per position, plus
  exact bearoff databases (one-sided: all positions of up to 15 chequers on 6
  points; two-sided: up to 6 chequers), which decide its bear-off plays. With
  bearoff truncation off the games are still played to the end, but the bear-off
  plays are table look-ups, not network evaluations. fastbg ``nn`` is a contact net
  and a race net (their inputs and hidden units: ``fastbg/data/nn/nn2.json``, and in
  the JSON), the one-sided bear-off database and the small-race database.
* The Debian build of gnubg is compiled for SSE/SSE2 (``show buildinfo``), not AVX;
  a gnubg compiled with ``-march=native`` would be somewhat faster.
* At 0 ply gnubg's move filters do not apply (they prune candidates for deeper
  plies). Its "pruning neural nets" (``chequerplay prune``, on by default) also
  only select candidates for deeper plies; the script times the starting position
  once more with pruning off (``gnubg_noprune`` in the JSON) to show it.
* gnubg's quasi-random dice stratify the first rolls of the trials (hence trial
  counts that are multiples of 36 or 1296); fastbg draws independent dice from
  PCG64DXSM. Results differ by sampling and by the players' strength; both
  engines' probabilities are in the JSON.
* fastbg's ``start`` begins with the opening roll (no doubles on the first play);
  for the starting position gnubg is set to ``rollout initial on``, the same thing.
* gnubg's cube plays no part: the rollout is cubeless (``set rollout cubeful
  off``), chequer play is cubeless, and the cube-decision settings are unused.

Usage
-----
    python experiments/bench_gnubg_rollout.py [--trials 2592] [--repeat 3]
        [--seed 1] [--pubeval-games 50000] [--gnubg PATH] [--json]

If gnubg is missing: ``sudo apt-get install -y gnubg`` (Debian/Ubuntu; the program
is installed as ``/usr/games/gnubg``), or pass ``--gnubg PATH``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import pty
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fastbg
from fastbg._core.evaluator import clear_blot_memo

import record  # experiments/record.py: command, date and commit of a result

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "bench_gnubg_rollout.json"

INSTALL_HINT = (
    "gnubg (GNU Backgammon) was not found. On Debian or Ubuntu install it with\n"
    "    sudo apt-get install -y gnubg\n"
    "(the program goes to /usr/games/gnubg), or pass --gnubg /path/to/gnubg."
)

# name -> (Position ID, description). The board arrays behind the last two:
# contact = on roll 24:2 13:4 8:3 6:4 5:2, opponent 23:2 13:3 8:2 6:4 4:2 3:2;
# race = on roll 12:1 11:1 10:1 8:2 6:3 5:3 4:2 3:2 (96 pips), opponent
# 12:1 11:1 9:1 8:2 7:2 6:3 5:2 4:2 3:1 (101 pips).
POSITIONS = {
    "start": ("4HPwATDgc/ABMA", "starting position, opening roll"),
    "contact": ("bJ7BARiw5+ABMA", "middle game, 158 v 139 pips, both sides anchored (contact)"),
    "race": ("tN2WAgBsd6YCAA", "race, 96 v 101 pips (no contact)"),
}

# The gnubg commands issued before every rollout, in this order (the trials and
# seed, and `initial`, are appended per run).
GNUBG_SETTINGS = [
    "set threads 1",
    "set rollout cubeful off",                       # cubeless rollout
    "set rollout players-are-same on",
    "set rollout chequerplay plies 0",               # 0-ply chequer play
    "set rollout chequerplay cubeful off",           # cubeless chequer evaluations
    "set rollout chequerplay noise 0",
    "set rollout cubedecision plies 0",              # unused in a cubeless rollout
    "set rollout later enable off",                  # same settings for every ply
    "set rollout varredn off",                       # no variance reduction
    "set rollout truncation enable off",             # play every game to the end
    "set rollout bearofftruncation exact off",       # ... also in the bear-off
    "set rollout bearofftruncation onesided off",
    "set rollout limit enable off",                  # no early stop on SE
    "set rollout jsd stop off",                      # no early stop on JSD
    "set rollout log off",
    "set rollout quasirandom on",                    # gnubg's default
    "set rollout rng mersenne",                      # gnubg's default generator
    "set output digits 6",                           # standard errors below 5e-5 too
]

GNUBG_SCRIPT = r'''
import json, time
SPEC = json.loads(%(spec)r)
for c in ["set player 0 human", "set player 1 human", "set automatic roll off",
          "new game", "set xgid " + SPEC["xgid"]]:
    gnubg.command(c)
for c in SPEC["commands"]:
    gnubg.command(c)
pid = gnubg.positionid()
gnubg.command("show rollout")
w0, c0 = time.perf_counter(), time.process_time()
gnubg.command("rollout")
w1, c1 = time.perf_counter(), time.process_time()
print("\nFASTBG_BENCH " + json.dumps({"wall": w1 - w0, "cpu": c1 - c0, "position_id": pid}))
'''

RESULT_RE = re.compile(
    r"Rollout done\. Printing final results\.\s*Current Position:\s*"
    r"(?P<p>[-+0-9. ]+?)\s+CL\s+(?P<eq>[-+0-9.]+)\s*"
    r"\[(?P<se>[-+0-9. ]+?)\s+CL\s+(?P<eqse>[-+0-9.]+)\][^\n]*\n\s*"
    r"(?P<desc>[^\n]*)\n\s*(?P<games>\d+) games,(?P<rest>[^\n]*)\n\s*(?P<play>Play:[^\n]*)",
    re.S,
)


def find_gnubg(path: str | None) -> str | None:
    if path:
        return path if os.access(path, os.X_OK) else None
    found = shutil.which("gnubg")
    if found:
        return found
    if os.access("/usr/games/gnubg", os.X_OK):
        return "/usr/games/gnubg"
    return None


def cpu_times() -> dict | None:
    """Aggregate CPU times from /proc/stat (Linux), for the steal share of a VM."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
    return dict(zip(names, fields))


def gnubg_version(exe: str) -> str:
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    for line in (out.stdout + out.stderr).splitlines():
        if line.strip():
            return line.strip()
    return "unknown"


def gnubg_buildinfo(exe: str, home: str) -> list[str]:
    out = subprocess.run([exe, "-t", "-q", "-r"], input="show buildinfo\n", capture_output=True,
                         text=True, timeout=60, env={**os.environ, "HOME": home})
    return [line.strip() for line in out.stdout.splitlines() if line.strip().endswith("supported.")]


def run_on_pty(argv: list[str], env: dict, timeout: float) -> tuple[str, float]:
    """Run argv with stdout/stderr on a pseudo-terminal; return its output and wall time."""
    master, slave = pty.openpty()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                proc.kill()
                raise TimeoutError(f"gnubg ran for more than {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait()
    wall = time.perf_counter() - t0
    return b"".join(chunks).decode("utf-8", "replace").replace("\r", ""), wall


def gnubg_rollout(exe: str, home: str, xgid: str, trials: int, seed: int, initial: bool,
                  prune: bool = True, varredn: bool = False) -> dict:
    settings = [c if c != "set rollout varredn off" or not varredn else "set rollout varredn on"
                for c in GNUBG_SETTINGS]
    commands = settings + [
        f"set rollout chequerplay prune {'on' if prune else 'off'}",
        f"set rollout initial {'on' if initial else 'off'}",
        f"set rollout trials {trials}",
        f"set rollout seed {seed}",
    ]
    spec = json.dumps({"xgid": xgid, "commands": commands})
    with tempfile.NamedTemporaryFile("w", suffix=".py", dir=home, delete=False) as fh:
        fh.write(GNUBG_SCRIPT % {"spec": spec})
        script = fh.name
    try:
        out, process_wall = run_on_pty([exe, "-t", "-q", "-r", "-p", script],
                                       {**os.environ, "HOME": home}, timeout=3600)
    finally:
        os.unlink(script)
    marker = re.search(r"FASTBG_BENCH (\{.*\})", out)
    result = RESULT_RE.search(out)
    if not marker or not result:
        tail = "\n".join(out.splitlines()[-30:])
        raise RuntimeError(f"could not read gnubg's output; its last lines:\n{tail}")
    timing = json.loads(marker.group(1))
    games = int(result.group("games"))
    if games != trials:
        raise RuntimeError(f"gnubg played {games} trials, {trials} asked")
    p = [float(x) for x in result.group("p").replace("-", " ").split()]
    se = [float(x) for x in result.group("se").replace("-", " ").split()]
    keys = ["win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon"]
    return {
        "commands": commands,
        "position_id": timing["position_id"],
        "games": games,
        "seconds": timing["wall"],
        "cpu_seconds": timing["cpu"],
        "process_seconds": process_wall,
        "games_per_s": games / timing["wall"],
        "probabilities": dict(zip(keys, p)),
        "stderr": dict(zip(keys, se)),
        "equity": float(result.group("eq")),
        "equity_stderr": float(result.group("eqse")),
        # gnubg's own summary; its "Play:" line says "cubeful" whatever the chequer-play
        # setting (the setting does act: cubeful chequer play gives other games, slower)
        "description": " | ".join(" ".join(x.split()) for x in (
            result.group("desc"), result.group("games") + " games," + result.group("rest"),
            result.group("play"))),
    }


def fastbg_rollout(position: fastbg.Position, games: int, seed: int, policy: str) -> dict:
    # every timed rollout starts cold, as gnubg's in a fresh process: the memo of blot
    # features a blot-reading crashed net keeps per thread is emptied first
    clear_blot_memo()
    w0, c0 = time.perf_counter(), time.process_time()
    # like for like: gnubg's settings have variance reduction off and quasi-random dice on
    r = fastbg.rollout(position, games, seed=seed, policy=policy, workers=1, vr=False,
                       quasi_random=True)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {
        "games": r.games,
        "seconds": wall,
        "cpu_seconds": cpu,
        "games_per_s": r.games / wall,
        "probabilities": {"win": r.win, "win_gammon": r.win_gammon,
                          "win_backgammon": r.win_backgammon, "lose": 1.0 - r.win,
                          "lose_gammon": r.lose_gammon, "lose_backgammon": r.lose_backgammon},
        "equity": r.equity,
        "equity_stderr": r.stderr["equity"],
    }


def median(runs: list[dict], key: str = "games_per_s") -> float:
    return statistics.median(run[key] for run in runs)


def _fastbg_nets() -> str:
    """The shipped nets' sizes, from their metadata (nn2.json)."""
    from fastbg.reference.evaluator import DATA_DIR, NETS_META
    meta = json.loads((DATA_DIR / NETS_META).read_text())
    return " and ".join(f"a {kind} net ({n['inputs']} inputs, {n['hidden']} hidden)"
                        for kind, n in meta["nets"].items()) + f" (generation {meta['generation']})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=2592,
                    help="games per rollout for gnubg and fastbg nn (default 2592 = 2 x 1296)")
    ap.add_argument("--pubeval-games", type=int, default=50000,
                    help="games per fastbg pubeval rollout (default 50000; pubeval is fast)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure; medians reported")
    ap.add_argument("--seed", type=int, default=1, help="rollout seed for both engines")
    ap.add_argument("--positions", nargs="+", choices=list(POSITIONS), default=list(POSITIONS))
    ap.add_argument("--no-prune-check", action="store_true",
                    help="skip the extra gnubg run of the start with pruning nets off")
    ap.add_argument("--gnubg", help="path to the gnubg program (default: PATH, /usr/games)")
    ap.add_argument("--json", action="store_true", help="print the JSON instead of Markdown")
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.trials < 1 or args.repeat < 1 or args.pubeval_games < 1:
        ap.error("--trials, --repeat and --pubeval-games must be at least 1")
    if args.trials % 36:
        print(f"note: {args.trials} trials is not a multiple of 36; gnubg's quasi-random dice "
              "stratify whole multiples of 36", file=sys.stderr)

    exe = find_gnubg(args.gnubg)
    if exe is None:
        print(INSTALL_HINT, file=sys.stderr)
        return 2

    home = tempfile.mkdtemp(prefix="bench_gnubg_home_")
    try:
        version = gnubg_version(exe)
        build = gnubg_buildinfo(exe, home)
        positions = {name: fastbg.Position.from_position_id(POSITIONS[name][0])
                     for name in args.positions}
        # warm-up: the first nn call loads the shipped weights
        fastbg.rollout("start", 100, seed=0, policy="nn", workers=1, vr=False)
        load_before = os.getloadavg()
        stat_before = cpu_times()
        started = datetime.datetime.now(datetime.timezone.utc)
        runs: dict[str, dict[str, list]] = {
            name: {"gnubg": [], "fastbg_nn": [], "fastbg_pubeval": []} for name in positions}
        noprune: list[dict] = []
        loads = []
        for rep in range(args.repeat):
            for name, pos in positions.items():
                xgid = pos.to_xgid()

                def run_gnubg():
                    g = gnubg_rollout(exe, home, xgid, args.trials, args.seed,
                                      initial=(name == "start"))
                    if g["position_id"] != POSITIONS[name][0]:
                        raise RuntimeError(f"gnubg loaded {g['position_id']} for {name}, "
                                           f"expected {POSITIONS[name][0]}")
                    runs[name]["gnubg"].append(g)

                def run_nn():
                    runs[name]["fastbg_nn"].append(fastbg_rollout(pos, args.trials, args.seed, "nn"))

                # alternate which engine goes first, so a load that drifts within a
                # repeat does not always favour the same one
                for step in ((run_gnubg, run_nn) if rep % 2 == 0 else (run_nn, run_gnubg)):
                    step()
                g = runs[name]["gnubg"][-1]
                runs[name]["fastbg_pubeval"].append(
                    fastbg_rollout(pos, args.pubeval_games, args.seed, "pubeval"))
                loads.append(os.getloadavg())
                print(f"[{rep + 1}/{args.repeat}] {name}: gnubg {g['games_per_s']:.1f}, "
                      f"nn {runs[name]['fastbg_nn'][-1]['games_per_s']:.1f}, "
                      f"pubeval {runs[name]['fastbg_pubeval'][-1]['games_per_s']:.0f} games/s; "
                      f"load {loads[-1][0]:.2f}", file=sys.stderr, flush=True)
            if "start" in positions and not args.no_prune_check:
                noprune.append(gnubg_rollout(exe, home, positions["start"].to_xgid(), args.trials,
                                             args.seed, initial=True, prune=False))
    finally:
        shutil.rmtree(home, ignore_errors=True)

    stat_after = cpu_times()
    shares = None
    if stat_before and stat_after:
        delta = {k: stat_after[k] - stat_before[k] for k in stat_before}
        total = sum(delta.values()) or 1
        shares = {k: round(v / total, 4) for k, v in delta.items()}

    table = {}
    for name in positions:
        gn = median(runs[name]["gnubg"])
        nn = median(runs[name]["fastbg_nn"])
        paired = [f["games_per_s"] / g["games_per_s"]
                  for f, g in zip(runs[name]["fastbg_nn"], runs[name]["gnubg"])]
        pb = median(runs[name]["fastbg_pubeval"])
        table[name] = {
            "position_id": POSITIONS[name][0],
            "description": POSITIONS[name][1],
            "gnubg_0ply_games_per_s": gn,
            "fastbg_nn_games_per_s": nn,
            "fastbg_pubeval_games_per_s": pb,
            "ratio_nn_over_gnubg": nn / gn,
            "ratio_nn_over_gnubg_cpu": (median(runs[name]["gnubg"], "cpu_seconds")
                                        / median(runs[name]["fastbg_nn"], "cpu_seconds")),
            # runs of the same repeat were timed seconds apart: their ratios are paired
            "ratio_nn_over_gnubg_per_repeat": paired,
            "ratio_nn_over_gnubg_paired_median": statistics.median(paired),
            "ratio_pubeval_over_gnubg": pb / gn,
            "target_5x_met": nn / gn >= 5.0,
        }
    report = {
        "benchmark": "experiments/bench_gnubg_rollout.py",
        "command": record.command(None if argv is None else ["experiments/bench_gnubg_rollout.py", *argv]),
        "date_utc": started.isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(),
                    "loadavg_before": load_before, "loadavg_after_each_position": loads,
                    "loadavg_after": os.getloadavg(),
                    "cpu_time_shares_during_run": shares,
                    "note": "one thread per engine; a load above 1 means the other core (or this "
                            "one) was shared with other jobs during the run; 'steal' is time the "
                            "hypervisor gave to other guests"},
        "gnubg": {"program": exe, "version": version, "build": build,
                  "invocation": "gnubg -t -q -r -p SCRIPT.py on a pseudo-terminal, HOME=temp dir; "
                                "position by 'set xgid', dice not rolled; wall clock around "
                                "gnubg.command('rollout') only",
                  "settings": GNUBG_SETTINGS + ["set rollout chequerplay prune on",
                                                "set rollout initial on (start) / off (others)",
                                                f"set rollout trials {args.trials}",
                                                f"set rollout seed {args.seed}"]},
        "fastbg": {"version": getattr(fastbg, "__version__", None),
                   "call": f"fastbg.rollout(position, games, seed={args.seed}, policy=..., workers=1, "
                           "vr=False, quasi_random=True)",
                   "nn_games": args.trials, "pubeval_games": args.pubeval_games},
        "trials": args.trials, "repeat": args.repeat, "seed": args.seed,
        "results": table,
        "gnubg_start_prune_off": ({"games_per_s_median": median(noprune),
                                   "runs": noprune} if noprune else None),
        "runs": runs,
        "differences_in_work": [
            "gnubg: contact/crashed/race nets (128 hidden, 250 or 214 inputs) chosen per position, "
            "and exact one-sided (15 chequers on 6 points) and two-sided (6 chequers) bearoff "
            "databases for bear-off plays; fastbg nn: " + _fastbg_nets() + ", the one-sided "
            "bear-off database and the small-race database (docs/evaluator.md).",
            "Debian's gnubg is an SSE/SSE2 build, not AVX.",
            "At 0 ply gnubg's move filters and pruning nets play no part (see gnubg_start_prune_off).",
            "gnubg chequer play is set cubeless ('set rollout chequerplay cubeful off'); gnubg's "
            "default is cubeful, which gives other games and was about 20% slower in one check "
            "(contact, 1296 trials: 5.6 s v 4.6 s). gnubg's summary line prints 'Play: 0-ply "
            "cubeful' in either case.",
            "gnubg's dice are quasi-random on the first rolls (Mersenne Twister, seed fixed); "
            "fastbg's are PCG64DXSM blocks: the games are different, as are the players.",
        ],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    record.write_json(args.output, report, indent=2)

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"GNU Backgammon: {version} ({exe}); {args.trials} games per rollout, "
          f"median of {args.repeat}; one thread each; load average "
          f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after\n")
    print("| position | gnubg 0-ply games/s | fastbg nn games/s | nn / gnubg | "
          "paired per repeat: median [min, max] | nn / gnubg by CPU time | "
          "fastbg pubeval games/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, row in table.items():
        per = row["ratio_nn_over_gnubg_per_repeat"]
        print(f"| {name} (`{row['position_id']}`) | {row['gnubg_0ply_games_per_s']:,.1f} | "
              f"{row['fastbg_nn_games_per_s']:,.1f} | {row['ratio_nn_over_gnubg']:.2f}x | "
              f"{row['ratio_nn_over_gnubg_paired_median']:.2f}x [{min(per):.2f}, {max(per):.2f}] | "
              f"{row['ratio_nn_over_gnubg_cpu']:.2f}x | {row['fastbg_pubeval_games_per_s']:,.0f} |")
    if noprune:
        print(f"\ngnubg, start, pruning nets off: {median(noprune):,.1f} games/s")
    print(f"\nJSON: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Drive GNU Backgammon (the ``gnubg`` program) from Python, for measurement only.

GNU Backgammon is our measuring stick: its numbers are references for benchmarks,
never training labels, and none of its code is copied here. This module only runs
the installed program (Debian's package puts it at ``/usr/games/gnubg``) with its
embedded Python (``gnubg -t -q -r -p SCRIPT.py``: text mode, quiet, no ``.gnubgrc``)
and reads what it prints or writes. ``HOME`` is always a fresh temporary directory,
so the user's gnubg settings are neither read nor written.

Conventions (checked by :func:`check_conventions`):

* gnubg's Python board is a pair of 25-tuples ``(side not on roll, side on roll)``,
  each from its own point of view (index 0 = its ace point, 24 = its bar). A fastbg
  board ``b`` (row 0 on roll) is ``(b[1], b[0])`` for gnubg, and both programs give
  the same Position ID for it.
* ``gnubg.evaluate(board, cubeinfo, evalcontext)`` returns the side on roll's
  probabilities before it rolls, in the order win, win gammon, win backgammon,
  lose gammon, lose backgammon (gammons include backgammons; fastbg's DESIGN
  section 5), then a cubeless equity.

Only the public fastbg API is used (none), so this module survives reorganisations
of the ``fastbg`` package.
"""
from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterable

INSTALL_HINT = (
    "gnubg (GNU Backgammon) was not found. On Debian or Ubuntu install it with\n"
    "    sudo apt-get install -y gnubg\n"
    "(the program goes to /usr/games/gnubg), or pass --gnubg /path/to/gnubg."
)

# gnubg's position classes (the values gnubg.classifypos returns; checked on known
# positions by check_conventions) and the benchmark class each belongs to.
GNUBG_CLASSES = {
    0: "over", 1: "hypergammon1", 2: "hypergammon2", 3: "hypergammon3",
    4: "bearoff2", 5: "bearoff_ts", 6: "bearoff1", 7: "bearoff_os",
    8: "race", 9: "crashed", 10: "contact",
}
BENCH_CLASS = {4: "bearoff", 5: "bearoff", 6: "bearoff", 7: "bearoff",
               8: "race", 9: "crashed", 10: "contact"}


def find_gnubg(path: str | None = None) -> str | None:
    """The gnubg program: ``path`` if given and executable, else PATH, else /usr/games."""
    if path:
        return path if os.access(path, os.X_OK) else None
    found = shutil.which("gnubg")
    if found:
        return found
    if os.access("/usr/games/gnubg", os.X_OK):
        return "/usr/games/gnubg"
    return None


def require_gnubg(path: str | None = None) -> str:
    exe = find_gnubg(path)
    if exe is None:
        raise SystemExit(INSTALL_HINT)
    return exe


def gnubg_version(exe: str) -> str:
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    for line in (out.stdout + out.stderr).splitlines():
        if line.strip():
            return line.strip()
    return "unknown"


def to_gnubg_board(board) -> list[list[int]]:
    """A fastbg (2, 25) board (row 0 on roll) as gnubg's pair (not on roll, on roll)."""
    return [[int(x) for x in board[1]], [int(x) for x in board[0]]]


def equity(p: Iterable[float]) -> float:
    """Cubeless money equity of (win, wg, wbg, lg, lbg) (fastbg DESIGN section 5)."""
    w, wg, wbg, lg, lbg = list(p)[:5]
    return (2.0 * w - 1.0) + (wg - lg) + (wbg - lbg)


# ---------------------------------------------------------------------------
# running gnubg


def run_on_pty(argv: list[str], env: dict, timeout: float, log=None) -> tuple[str, float]:
    """Run argv with stdout/stderr on a pseudo-terminal; return its output and wall time.

    gnubg prints rollout results only when its output is a terminal. ``log``, if given,
    is a file object that receives the raw output as it arrives.
    """
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
            if log is not None:
                log.write(data.decode("utf-8", "replace"))
                log.flush()
    finally:
        os.close(master)
        proc.wait()
    wall = time.perf_counter() - t0
    return b"".join(chunks).decode("utf-8", "replace").replace("\r", ""), wall


def run_script(exe: str, script: str, *, use_pty: bool = False, timeout: float = 7 * 86400,
               nice: int | None = None, log=None) -> str:
    """Run a gnubg embedded-Python script in a fresh gnubg with a temporary HOME.

    Returns everything gnubg printed. Raises RuntimeError if gnubg fails, showing its
    last lines. ``nice`` lowers the gnubg process's priority (``os.nice`` in the child).
    """
    home = tempfile.mkdtemp(prefix="gnubg_home_")
    try:
        path = Path(home) / "script.py"
        path.write_text(script)
        argv = [exe, "-t", "-q", "-r", "-p", str(path)]
        if nice:
            argv = ["nice", "-n", str(nice)] + argv
        env = {**os.environ, "HOME": home}
        if use_pty:
            out, _ = run_on_pty(argv, env, timeout, log=log)
        else:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, env=env, timeout=timeout)
            out = proc.stdout + proc.stderr
            if proc.returncode != 0:
                tail = "\n".join(out.splitlines()[-30:])
                raise RuntimeError(f"gnubg exited with {proc.returncode}; last lines:\n{tail}")
        if "Traceback (most recent call last)" in out:
            tail = "\n".join(out.splitlines()[-30:])
            raise RuntimeError(f"gnubg's Python script failed; last lines:\n{tail}")
        return out
    finally:
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------------------
# batch evaluation and classification

# Evaluation contexts by name: (plies, prune). Cubeless, deterministic, no noise.
EVAL_CONTEXTS = {"0ply": (0, 1), "1ply": (1, 1), "2ply": (2, 1)}

_BATCH_SCRIPT = r'''
import json, time
SPEC = json.loads(%(spec)r)
gnubg.command("set threads 1")
# money game, centred cube; evaluate() is cubeless, the cube does not enter
CI = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
ECS = {name: gnubg.evalcontext(0, plies, 1, prune, 0.0)
       for name, (plies, prune) in SPEC["contexts"].items()}
with open(SPEC["tasks"]) as fin, open(SPEC["output"], "a") as fout:
    for line in fin:
        task = json.loads(line)
        out = {"key": task["key"]}
        t0 = time.process_time()
        if task.get("classify"):
            out["class"] = [gnubg.classifypos(gnubg.positionfromid(p), 0)
                            for p in task["classify"]]
        if task.get("evaluate"):
            ev = {name: [] for name in ECS}
            for p in task["evaluate"]:
                b = gnubg.positionfromid(p)
                for name, ec in ECS.items():
                    ev[name].append([round(x, 7) for x in gnubg.evaluate(b, CI, ec)])
            out["eval"] = ev
        out["cpu"] = round(time.process_time() - t0, 4)
        fout.write(json.dumps(out) + "\n")
        fout.flush()
print("FASTBG_BATCH_DONE")
'''


def batch(exe: str, tasks: list[dict], output: Path, contexts: Iterable[str] = (),
          nice: int | None = None) -> None:
    """Classify and/or evaluate positions in one gnubg process, appending to ``output``.

    Each task is ``{"key": ..., "classify": [position IDs], "evaluate": [position
    IDs]}``; gnubg appends one JSON line per task to ``output`` as soon as it is done
    (``{"key", "class": [gnubg classes], "eval": {context: [[win, wg, wbg, lg, lbg,
    equity], ...]}, "cpu": seconds}``), so an interrupted batch loses at most one
    task. Evaluations are of the side on roll of each position, before its roll,
    cubeless, with the contexts named in :data:`EVAL_CONTEXTS`.
    """
    if not tasks:
        return
    output = Path(output).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        for t in tasks:
            fh.write(json.dumps(t) + "\n")
        task_file = fh.name
    try:
        spec = json.dumps({"tasks": task_file, "output": str(output),
                           "contexts": {c: EVAL_CONTEXTS[c] for c in contexts}})
        out = run_script(exe, _BATCH_SCRIPT % {"spec": spec}, nice=nice)
        if "FASTBG_BATCH_DONE" not in out:
            tail = "\n".join(out.splitlines()[-30:])
            raise RuntimeError(f"gnubg stopped before the end of the batch:\n{tail}")
    finally:
        os.unlink(task_file)


_CHECK_SCRIPT = r'''
import json
SPEC = json.loads(%(spec)r)
CI = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
EC = gnubg.evalcontext(0, 0, 1, 1, 0.0)
out = []
for board in SPEC["boards"]:
    b = (tuple(board[0]), tuple(board[1]))
    out.append({"position_id": gnubg.positionid(b),
                "board_from_id": [list(x) for x in gnubg.positionfromid(gnubg.positionid(b))],
                "class": gnubg.classifypos(b, 0),
                "eval0": list(gnubg.evaluate(b, CI, EC))})
print("FASTBG_CHECK " + json.dumps(out))
'''


def check_conventions(exe: str) -> dict:
    """Check gnubg's board orientation, Position ID and evaluation sign against fastbg.

    Uses the starting position, the asymmetric DESIGN example ``4HPMwQCMz+AIIQ`` and
    races where the side on roll is far ahead or far behind. Raises AssertionError on
    any mismatch; returns what was checked.
    """
    import numpy as np

    import fastbg

    cases = {"start": fastbg.Position.parse("start").board,
             "asymmetric": fastbg.Position.parse("4HPMwQCMz+AIIQ").board}
    ahead = np.zeros((2, 25), dtype=np.int8)
    ahead[0, 0] = 15       # on roll: 15 on its ace point
    ahead[1, 12] = 15      # opponent: 15 on its 13-point
    cases["on_roll_far_ahead"] = ahead
    cases["on_roll_far_behind"] = ahead[::-1].copy()
    contact = np.zeros((2, 25), dtype=np.int8)
    contact[0, [23, 12, 7, 5]] = [2, 5, 3, 5]
    contact[1, [5, 4, 3, 2, 1]] = [3, 3, 3, 3, 3]  # opponent: a 5-point board
    cases["contact_crushed_home"] = contact
    spec = json.dumps({"boards": [to_gnubg_board(b) for b in cases.values()]})
    out = run_script(exe, _CHECK_SCRIPT % {"spec": spec})
    m = re.search(r"FASTBG_CHECK (\[.*\])", out)
    if not m:
        raise RuntimeError("could not read gnubg's convention check:\n" + out[-2000:])
    got = dict(zip(cases, json.loads(m.group(1))))
    report = {}
    for name, board in cases.items():
        g = got[name]
        fid = fastbg.Position.parse(board).to_position_id()
        assert g["position_id"] == fid, (name, g["position_id"], fid)
        assert g["board_from_id"] == to_gnubg_board(board), name
        assert abs(equity(g["eval0"]) - g["eval0"][5]) < 1e-4, (name, g["eval0"])
        report[name] = {"position_id": fid, "gnubg_class": g["class"],
                        "gnubg_0ply_equity_on_roll": round(g["eval0"][5], 4),
                        "fastbg_nn_equity_on_roll": round(fastbg.nn.evaluate(board)["equity"], 4)}
    assert got["start"]["position_id"] == "4HPwATDgc/ABMA"
    assert got["asymmetric"]["position_id"] == "4HPMwQCMz+AIIQ"
    assert got["on_roll_far_ahead"]["eval0"][0] > 0.99, got["on_roll_far_ahead"]
    assert got["on_roll_far_behind"]["eval0"][0] < 0.01, got["on_roll_far_behind"]
    assert got["start"]["class"] == 10 and got["on_roll_far_ahead"]["class"] == 8
    return report


# ---------------------------------------------------------------------------
# rollouts

ROLLOUT_RE = re.compile(
    r"Rollout done\. Printing final results\.\s*Current Position:\s*"
    r"(?P<p>[-+0-9. ]+?)\s+CL\s+(?P<eq>[-+0-9.]+)\s*"
    r"\[(?P<se>[-+0-9. ]+?)\s+CL\s+(?P<eqse>[-+0-9.]+)\][^\n]*\n\s*"
    r"(?P<desc>[^\n]*)\n\s*(?P<games>\d+) games,(?P<rest>[^\n]*)\n\s*(?P<play>Play:[^\n]*)",
    re.S,
)

_ROLLOUT_SCRIPT = r'''
import json, time
SPEC = json.loads(%(spec)r)
for c in ["set player 0 human", "set player 1 human", "set automatic roll off",
          "new game", "set xgid " + SPEC["xgid"]]:
    gnubg.command(c)
for c in SPEC["commands"]:
    gnubg.command(c)
pid = gnubg.positionid()
cls = gnubg.classifypos(gnubg.board(), 0)
gnubg.command("show rollout")
w0, c0 = time.perf_counter(), time.process_time()
gnubg.command("rollout")
w1, c1 = time.perf_counter(), time.process_time()
print("\nFASTBG_ROLLOUT " + json.dumps({"wall": w1 - w0, "cpu": c1 - c0, "position_id": pid,
                                        "class": cls}))
'''


def rollout(exe: str, xgid: str, commands: list[str], nice: int | None = None) -> dict:
    """A gnubg rollout of the position in ``xgid`` (dice not rolled) after ``commands``.

    Returns gnubg's probabilities and standard errors (keys win, win_gammon,
    win_backgammon, lose, lose_gammon, lose_backgammon), its cubeless equity and SE,
    the Position ID gnubg loaded, its class, the number of games and the times.
    """
    spec = json.dumps({"xgid": xgid, "commands": commands})
    out = run_script(exe, _ROLLOUT_SCRIPT % {"spec": spec}, use_pty=True, nice=nice)
    marker = re.search(r"FASTBG_ROLLOUT (\{.*\})", out)
    result = ROLLOUT_RE.search(out)
    if not marker or not result:
        tail = "\n".join(out.splitlines()[-30:])
        raise RuntimeError(f"could not read gnubg's rollout output; its last lines:\n{tail}")
    info = json.loads(marker.group(1))
    p = [float(x) for x in result.group("p").replace("-", " ").split()]
    se = [float(x) for x in result.group("se").replace("-", " ").split()]
    keys = ["win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon"]
    return {
        "position_id": info["position_id"],
        "gnubg_class": info["class"],
        "games": int(result.group("games")),
        "seconds": info["wall"],
        "cpu_seconds": info["cpu"],
        "probabilities": dict(zip(keys, p)),
        "stderr": dict(zip(keys, se)),
        "equity": float(result.group("eq")),
        "equity_stderr": float(result.group("eqse")),
        "description": " | ".join(" ".join(x.split()) for x in (
            result.group("desc"), result.group("games") + " games," + result.group("rest"),
            result.group("play"))),
    }

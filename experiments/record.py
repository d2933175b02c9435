"""What every result file under ``experiments/results`` records: its command, when, which fastbg.

A script that writes a result builds its report as before and writes it with
:func:`write_json` (or stamps it with :func:`stamp` when it writes it some other way, e.g.
beside a ``.jsonl.gz``). Three keys are added where the report lacks them:

* ``command``: the command line that made the file, as typed, interpreter flags and wrappers
  included (``sys.orig_argv``: ``python experiments/evaluator/with_nets.py NETS.npz
  experiments/rollout_bias.py compare ...`` stays that, not just the inner script's argv);
* ``date_utc``: when the report was written;
* ``fastbg``: which fastbg ran (:func:`provenance`): version, package path, git commit (and
  whether the checkout had uncommitted changes), the shipped nets' checksums, and the nets
  ``with_nets.py`` put in their place.

A report whose ``fastbg`` is a dict keeps its keys and gains the missing ones; one whose
``fastbg`` is the bare version string (older scripts wrote that) gets the dict, which holds
the version too. ``tests/test_experiment_records.py`` checks that every JSON file under
``experiments/results`` has a command and that files written since this module have the
commit. Result files written before it had their command added by hand, marked
``command_reconstructed_from`` (see ``experiments/README.md``).

Run from the repository's root: ``python experiments/SCRIPT.py ...``. Scripts in
``experiments/evaluator`` put ``experiments/`` on ``sys.path`` to import this module.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import fastbg

#: Set by ``evaluator/with_nets.py``: the nets it made the default ``nn`` evaluator
#: (``{"path": ..., "sha256": ...}``), recorded in :func:`provenance`.
NETS_OVERRIDE: dict | None = None


def command(argv: list[str] | None = None) -> str:
    """The command line of this process, shell-quoted: ``python`` and what followed it.

    ``argv`` (without the interpreter) overrides it, e.g. for a script's ``main(argv)``
    called from another script.
    """
    if argv is None:
        argv = list(getattr(sys, "orig_argv", [sys.executable, *sys.argv]))[1:]
    return shlex.join(["python", *argv])


def now() -> str:
    """The time in UTC, to the second: ``2026-12-07T16:59:55Z``."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def git_commit(where: Path) -> tuple[str | None, bool | None]:
    """The commit checked out at ``where`` and whether the work tree differs from it
    (tracked files only); ``(None, None)`` outside a git checkout."""
    try:
        head = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=30)
        if head.returncode != 0:
            return None, None
        status = subprocess.run(["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=60)
        return head.stdout.strip() or None, (bool(status.stdout.strip()) if status.returncode == 0 else None)
    except (OSError, subprocess.SubprocessError):
        return None, None


def provenance() -> dict:
    """Which fastbg ran: version, package path, git commit and the shipped nets' checksums.

    The commit is read from a ``SNAPSHOT_COMMIT`` file next to the package (a copy made with
    ``git archive``) or from git in the package's repository; ``dirty`` says whether tracked
    files differed from it. ``nn_npz_sha256`` is the first network's file, ``nn2_npz_sha256``
    the second evaluator's (the default ``nn`` policy); ``nets_override`` the nets
    ``with_nets.py`` used instead.
    """
    pkg = Path(fastbg.__file__).resolve().parent
    snap = pkg.parent / "SNAPSHOT_COMMIT"
    if snap.exists():
        commit, dirty = snap.read_text().strip(), None
    else:
        commit, dirty = git_commit(pkg)
    data = pkg / "data" / "nn"
    out = {"version": getattr(fastbg, "__version__", None), "path": str(pkg), "commit": commit,
           "dirty": dirty, "nn_npz_sha256": _sha256(data / "nn.npz"),
           "nn2_npz_sha256": _sha256(data / "nn2.npz")}
    if NETS_OVERRIDE is not None:
        out["nets_override"] = dict(NETS_OVERRIDE)
    return out


def header(argv: list[str] | None = None) -> dict:
    """``{"command", "date_utc", "fastbg"}`` for the top of a report."""
    return {"command": command(argv), "date_utc": now(), "fastbg": provenance()}


def stamp(report: dict, argv: list[str] | None = None) -> dict:
    """``report`` with ``command``, ``date_utc`` and ``fastbg`` (:func:`header`) added where missing.

    Keys already there are kept: a script that records its command in its own form keeps it.
    Returns ``report`` itself (changed in place).
    """
    head = header(argv)
    report.setdefault("command", head["command"])
    report.setdefault("date_utc", head["date_utc"])
    fb = report.get("fastbg")
    if isinstance(fb, dict):
        for k, v in head["fastbg"].items():
            if fb.get(k) is None:
                fb[k] = v
    else:
        report["fastbg"] = head["fastbg"]
    return report


def write_json(path, report: dict, *, indent: int | None = 1, argv: list[str] | None = None) -> dict:
    """Stamp ``report`` (:func:`stamp`) and write it to ``path`` as JSON with a final newline."""
    stamp(report, argv)
    Path(path).write_text(json.dumps(report, indent=indent) + "\n")
    return report

"""Re-run the ``$ fastbg ...`` console examples of README.md and docs/*.md and rewrite their
output (after a change of the shipped nets or of an output format).

A block whose output starts with a line ``...`` shows only the end of the output: it keeps
as many last lines as it showed. ``--help`` blocks are ``refresh_cli_help.py``'s; ``fastbg
bench`` (timings only) is left alone. Times and speeds in the outputs change from run to
run; the numbers that depend on the seed do not.

Usage: ``python docs/refresh_examples.py [FILE ...]`` (default: README.md and docs/*.md).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(r"```console\n(\$ fastbg .*?)```", re.S)
_SKIP = ("--help", "fastbg bench")


def run(command: str) -> str:
    env = {**os.environ, "COLUMNS": "100"}
    args = shlex.split(command)
    out = subprocess.run([sys.executable, "-m", "fastbg", *args[1:], "--no-progress"]
                         if args[1] in ("rollout", "cube") or "--rollout" in args
                         else [sys.executable, "-m", "fastbg", *args[1:]],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    return out.stdout + out.stderr


def _refresh_one(command: str, old: str) -> str:
    if any(s in command for s in _SKIP):
        return old
    new = run(command)
    lines = old.rstrip("\n").split("\n")
    if lines and lines[0] == "...":
        keep = len(lines) - 1
        new = "...\n" + "\n".join(new.rstrip("\n").split("\n")[-keep:]) + "\n"
    print(f"  {command}", file=sys.stderr)
    return new


def refresh(text: str) -> str:
    """``text`` with the output of every ``$ fastbg ...`` line of its console blocks
    rewritten (a block may hold several commands, each with its output, separated by a
    blank line)."""
    def sub(m):
        parts = re.split(r"^\$ (fastbg [^\n]*)\n", m.group(1), flags=re.M)
        out = []
        for command, old in zip(parts[1::2], parts[2::2]):
            sep = "\n" if old.endswith("\n\n") else ""
            body = old[:-1] if sep else old
            out.append(f"$ {command}\n{_refresh_one(command, body).rstrip(chr(10))}\n{sep}")
        return "```console\n" + "".join(out) + "```"
    return _BLOCK.sub(sub, text)


def main(argv=None) -> int:
    files = [Path(a) for a in (argv if argv is not None else sys.argv[1:])] or \
        [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in files:
        old = path.read_text()
        new = refresh(old)
        if new != old:
            path.write_text(new)
            print(f"{path}: refreshed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

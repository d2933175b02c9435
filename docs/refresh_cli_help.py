"""Refresh the ``fastbg COMMAND --help`` blocks of docs/cli.md from the installed CLI.

Usage: ``python docs/refresh_cli_help.py`` (rewrite) or ``--check`` (exit 1 if stale;
``tests/test_docs.py`` runs the check, so the CLI reference cannot drift from the CLI).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

CLI_MD = Path(__file__).resolve().parent / "cli.md"
_BLOCK = re.compile(r"(```console\n\$ fastbg (?:(\S+(?: \S+)?) )?--help\n)(.*?)(```)", re.S)


def help_text(command: str | None) -> str:
    """``fastbg COMMAND --help`` (``fastbg --help`` for ``None``; COMMAND may be two words,
    ``table openings``)."""
    env = {**os.environ, "COLUMNS": "100"}  # argparse wraps to the terminal width
    out = subprocess.run([sys.executable, "-m", "fastbg", *(command.split() if command else []),
                          "--help"],
                         capture_output=True, text=True, check=True, env=env)
    return out.stdout


def refreshed(text: str) -> str:
    return _BLOCK.sub(lambda m: m.group(1) + help_text(m.group(2)) + m.group(4), text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report whether cli.md is stale")
    args = ap.parse_args(argv)
    old = CLI_MD.read_text()
    new = refreshed(old)
    if args.check:
        if new != old:
            print(f"{CLI_MD} is stale: run python docs/refresh_cli_help.py", file=sys.stderr)
            return 1
        return 0
    CLI_MD.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())

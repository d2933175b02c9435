"""Re-run the ``$ fastbg ...`` console examples of README.md and docs/*.md and rewrite their
output (after a change of the shipped nets or of an output format).

A block whose output starts with a line ``...`` shows only the end of the output: it keeps
as many last lines as it showed. ``--help`` blocks are ``refresh_cli_help.py``'s; ``fastbg
bench`` (timings only) is left alone. Times and speeds in the outputs change from run to
run; the numbers that depend on the seed do not.

The ```python blocks with ``>>>`` examples (tests/test_docs_examples.py runs them as one
doctest session a file) get the output each example prints now, in the same session.

Usage: ``python docs/refresh_examples.py [FILE ...]`` (default: README.md and docs/*.md).
"""
from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
import tempfile
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


_PYBLOCK = re.compile(r"```python\n(.*?)```", re.S)


class _Recorder(doctest.DocTestRunner):
    """A doctest runner that keeps what each example printed."""

    def __init__(self):
        super().__init__(optionflags=doctest.NORMALIZE_WHITESPACE)
        self.got = {}

    def report_failure(self, out, test, example, got):
        self.got[id(example)] = got

    def report_unexpected_exception(self, out, test, example, exc_info):
        raise RuntimeError(f"example raised: {example.source.strip()}") from exc_info[1]


def refresh_python(text: str, name: str = "examples") -> str:
    """``text`` with the expected output of every ``>>>`` example of its ```python blocks
    replaced by what the example prints when the blocks run in order as one session."""
    parser = doctest.DocTestParser()
    blocks = [(m, parser.parse(m.group(1))) for m in _PYBLOCK.finditer(text)
              if ">>>" in m.group(1)]
    examples = [x for _, parts in blocks for x in parts if isinstance(x, doctest.Example)]
    runner = _Recorder()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:   # files the examples write (plots) go there
        os.chdir(tmp)
        try:
            runner.run(doctest.DocTest(examples, {}, name, name, 0, None), clear_globs=True)
        finally:
            os.chdir(here)
    out, last = [], 0
    for m, parts in blocks:
        body = []
        for x in parts:
            if not isinstance(x, doctest.Example):
                body.append(x)
                continue
            pad = " " * x.indent
            src = x.source.rstrip("\n").split("\n")
            body.append(pad + ">>> " + src[0] + "\n"
                        + "".join(pad + "... " + line + "\n" for line in src[1:]))
            want = runner.got.get(id(x), x.want)
            body.append("".join(pad + line + "\n" for line in want.rstrip("\n").split("\n"))
                        if want else "")
        out += [text[last:m.start(1)], "".join(body)]
        last = m.end(1)
    return "".join(out) + text[last:]


def main(argv=None) -> int:
    files = [Path(a) for a in (argv if argv is not None else sys.argv[1:])] or \
        [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in files:
        old = path.read_text()
        new = refresh_python(refresh(old), path.name)
        if new != old:
            path.write_text(new)
            print(f"{path}: refreshed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The Python examples of README.md and docs/python.md run and print what they show.

Each ```python block is a doctest session (blocks of one file share their names, in order).
They go stale when the shipped nets or an output change: rerun them with
``python -m doctest`` on the block's text and update the numbers (the console examples have
docs/refresh_examples.py).
"""
from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


@pytest.mark.slow      # (the examples' rollouts: 15 s each)
@pytest.mark.parametrize("name", ["README.md", "docs/python.md"])
def test_python_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)        # files the examples write stay out of the checkout
    text = (ROOT / name).read_text()
    blocks = [b for b in _BLOCK.findall(text) if ">>>" in b]
    assert blocks, f"no Python examples in {name}"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    test = parser.get_doctest("\n".join(blocks), {}, name, name, 0)   # one session
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= len(blocks)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} differ"

"""The luck adjustment's self-test as a pytest (not collected by the suite: run it by path).

    python -m pytest experiments/test_match_luck.py

Runs ``match_policies.py --selftest`` at a reduced match size (300 pairs of nn v
pubeval instead of 1,000); see that script's docstring for what each check does.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

pytest.importorskip("fastbg._core.nn")


def test_luck_selftest():
    import match_policies

    assert match_policies.main(["--selftest", "--pairs", "300", "--samples", "20000"]) == 0

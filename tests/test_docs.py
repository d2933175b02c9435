"""The documentation cannot drift from the code it quotes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_cli_reference_shows_the_current_help():
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "refresh_cli_help.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_the_readme_is_a_two_minute_read():
    assert len((ROOT / "README.md").read_text().splitlines()) < 200

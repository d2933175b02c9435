"""What a new user found on the command line: strict JSON, refused nonsense, Ctrl-C, messages."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from fastbg.cli import main


def run_status(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _no_constants(token):
    raise ValueError(f"non-standard JSON token {token}")


def strict_json(text):
    """``json.loads`` that refuses NaN and Infinity, as a strict parser does."""
    return json.loads(text, parse_constant=_no_constants)


@pytest.mark.parametrize("argv", [
    ["rollout", "start", "--games", "1", "--seed", "1", "--json", "--no-progress"],
    ["rollout", "start", "--games", "1", "--seed", "1", "--json", "--no-progress", "--cubeful"],
    ["rollout", "4HPwATDgc/ABMA", "-n", "1", "--seed", "2", "--json", "--no-progress",
     "--cubeful", "--match-length", "5"],
    ["cube", "start", "--games", "1", "--seed", "1", "--json", "--no-progress"],
    ["moves", "start", "31", "--json"],
    ["eval", "start", "--json"],
    ["perft", "start", "1", "--json"],
    ["met", "--length", "3", "--json"],
    ["takepoints", "--length", "3", "--json"],
    ["gammon-values", "--length", "3", "--json"],
])
def test_every_json_output_is_strict_json(capsys, argv):
    # a single game has no sample variance: its standard errors are null, not NaN
    code, out, _ = run_status(capsys, *argv)
    assert code == 0
    strict_json(out)


def test_a_single_game_rollout_reports_null_standard_errors(capsys):
    code, out, _ = run_status(capsys, "rollout", "start", "-n", "1", "--seed", "1", "--json",
                              "--no-progress")
    data = strict_json(out)
    assert code == 0 and data["games"] == 1 and data["stderr"]["equity"] is None

"""The documentation cannot drift from the code it quotes."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_cli_reference_shows_the_current_help():
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "refresh_cli_help.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_the_readme_is_a_two_minute_read():
    assert len((ROOT / "README.md").read_text().splitlines()) < 200


def test_the_readme_and_the_cli_reference_give_one_speed_of_pubeval_against_the_nn():
    # they said "about 20 times faster" and "about 10x slower" (new-user trial); measured:
    # 29x with one worker (pubeval 50,341 games/s, nn --no-vr 1,707), 20x before
    readme = " ".join((ROOT / "README.md").read_text().split())
    cli = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert "pubeval) plays about 20-30 times faster than the nn without variance" in readme
    assert "`nn` without variance reduction is about 20-30 times slower than pubeval" in cli
    assert "10x slower than pubeval" not in cli


def test_the_cube_example_of_too_few_trials_shows_what_the_command_prints(capsys, monkeypatch):
    # new-user trial: docs/cube.md showed it in a ```text block, which
    # docs/refresh_examples.py does not refresh, and it went stale ("leaning Double, take
    # (double by 0.6 SE, take by 0.1 SE)" where the command said "Double, pass"); a
    # console block now, whose last lines (after "...") are the command's last lines
    text = (ROOT / "docs" / "cube.md").read_text()
    block = re.search(r"```console\n\$ fastbg cube start --games 2 --seed 1\n\.\.\.\n(.*?)```",
                      text, re.S)
    assert block, "docs/cube.md has no console block of `fastbg cube start --games 2 --seed 1`"
    shown = block.group(1).rstrip("\n").split("\n")
    # in this process (no signal nor exit behaviour is tested): the command's main()
    from fastbg.cli import main

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    code = main(["cube", "start", "--games", "2", "--seed", "1", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.rstrip("\n").split("\n")[-len(shown):] == shown


def test_the_installation_page_explains_a_fastbg_folder_that_shadows_the_package(tmp_path):
    # new-user trial: Python started in the folder that holds the clone (named fastbg)
    # imported the clone as an empty namespace package, with errors that name nothing of
    # fastbg's; docs/installation.md quotes them and says what to do
    (tmp_path / "fastbg" / "fastbg").mkdir(parents=True)       # the clone, from its parent
    doc = (ROOT / "docs" / "installation.md").read_text()
    assert "Python from the folder that holds the clone" in doc
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for argv, error in (
            (["-c", "import fastbg; fastbg.rollout"],
             "AttributeError: module 'fastbg' has no attribute 'rollout'"),
            (["-c", "from fastbg import Position"],
             "ImportError: cannot import name 'Position' from 'fastbg' (unknown location)"),
            (["-m", "fastbg", "show", "start"],
             "ImportError: cannot import name '__version__' from 'fastbg' (unknown location)")):
        out = subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True,
                             text=True, env=env)
        assert out.returncode == 1 and out.stderr.rstrip().endswith(error), out.stderr
        assert error in doc, error
    # the check the page gives: which fastbg is imported (None: a folder, not the package)
    shown = subprocess.run([sys.executable, "-c", "import fastbg; print(fastbg.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, env=env).stdout
    assert shown.strip() == "None" and "print(fastbg.__file__)" in doc


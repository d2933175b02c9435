"""Make the match-file fixtures of tests/data/matches with GNU Backgammon itself.

The readers of :mod:`fastbg.game.matchfile` are tested on files written by the program whose
formats they read: this script runs Debian's ``gnubg`` (text mode, no ``.gnubgrc``, a fresh
temporary ``HOME``) on a few command scripts that play a match or a money session between
its players (and, for a beaver and a resignation, against scripted "human" commands), then
saves each one as Jellyfish ``.mat`` (``export match mat``) and as GNU Backgammon ``.sgf``
(``save match``). Seeds fix the dice, so a rerun with the same gnubg gives the same files.

The ``.sgf`` files keep only what the game needs: the analysis gnubg stores beside each of
its own moves (``A[...]``, ``DA[...]``, a hundred kilobytes a match) is cut out by a regular
expression, except in ``beaver.sgf``, kept whole so that the reader is tested on a file
exactly as gnubg wrote it (it skips properties it does not use).

With ``--check`` it makes nothing but tests fastbg's writers on GNU Backgammon: each fixture
is read by :func:`fastbg.read_match`, written again by :func:`fastbg.write_match` as ``.mat``
and ``.sgf``, imported by gnubg (``import mat``, ``load match``) and exported by it as
``.mat``, which fastbg reads back: every game must be the same, action by action.

With ``--many N`` it plays N more matches of ``--length`` points (seeds 1..N, gnubg against
itself, three at a time) into a temporary directory, reads each as ``.mat`` and ``.sgf``, and
reports how many were read, whether both formats gave the same games, and the reading time:
a wider test of the readers on gnubg's own output than the fixtures.

Usage (from the repository root; needs ``gnubg``, about a minute a fixture, mostly gnubg
waiting; one CPU)::

    python experiments/make_match_fixtures.py [--out tests/data/matches] [--gnubg PATH]
    python experiments/make_match_fixtures.py --check
    python experiments/make_match_fixtures.py --many 12 --length 7

Nothing of GNU Backgammon's code is used or copied: only the program is run.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: name -> (what it tests, gnubg commands before saving; {mat} and {sgf} are the outputs)
FIXTURES = {
    "match5": (
        "a 5-point match between gnubg's players: a double and a redouble taken, the Crawford "
        "game, post-Crawford doubles dropped and taken, a gammon resigned",
        """set seed {seed}
set player 0 gnubg
set player 1 gnubg
set player 0 name alice
set player 1 name bob
new match 5
""", 13),
    "match3": (
        "a 3-point match won in one game: a double and a redouble taken, the loser resigns",
        """set seed {seed}
set player 0 gnubg
set player 1 gnubg
set player 0 name alice
set player 1 name bob
new match 3
""", 42),
    "money": (
        "a money session of three games, Jacoby rule, beavers allowed: a drop, a take, "
        "resignations",
        """set seed {seed}
set player 0 gnubg
set player 1 gnubg
set player 0 name alice
set player 1 name bob
set jacoby on
set beavers 1
set automatic game off
new session
new game
new game
""", 7),
    "beaver": (
        "money, no Jacoby: 'bob' (commands) doubles after gnubg's opening, gnubg beavers, bob "
        "plays a 31, rolls and resigns before moving (the file keeps that last roll)",
        """set seed {seed}
set player 0 gnubg
set player 1 human
set player 0 name alice
set player 1 name bob
set jacoby off
set beavers 1
set automatic game off
new session
double
take
set dice 3 1
move 8/5 6/5
resign normal
""", 2),
}

#: gnubg's stored analysis of a move or a cube decision (property names A and DA, one or
#: more bracketed values; analysis values hold no ']')
_ANALYSIS = re.compile(r"(?<![A-Z])D?A(?:\[[^\]]*\])+")


def run(gnubg: str, name: str, out: Path) -> None:
    what, commands, seed = FIXTURES[name]
    with tempfile.TemporaryDirectory() as home:
        mat, sgf = Path(home) / f"{name}.mat", Path(home) / f"{name}.sgf"
        script = (commands.format(seed=seed)
                  + f"export match mat {mat}\nsave match {sgf}\n")
        subprocess.run([gnubg, "-t", "-q", "-r"], input=script, text=True, check=True,
                       capture_output=True, env={**os.environ, "HOME": home}, timeout=600)
        if not (mat.exists() and sgf.exists()):
            raise SystemExit(f"gnubg wrote no {name}.mat/.sgf (script:\n{script})")
        shutil.copy(mat, out / mat.name)
        text = sgf.read_text(encoding="utf-8")
        if name != "beaver":
            text = _ANALYSIS.sub("", text)
        (out / sgf.name).write_text(text, encoding="utf-8")
    print(f"{name}: {what}")


def check(gnubg: str, name: str, data: Path) -> bool:
    """fastbg writes the fixture ``name`` both ways, gnubg imports and exports each as .mat;
    True when fastbg reads the same games back."""
    import fastbg

    match = fastbg.read_match(data / f"{name}.sgf")
    same = True
    with tempfile.TemporaryDirectory() as home:
        h = Path(home)
        fastbg.write_match(match, h / "ours.mat")
        fastbg.write_match(match, h / "ours.sgf")
        script = (f"import mat {h / 'ours.mat'}\nexport match mat {h / 'via_mat.mat'}\n"
                  f"load match {h / 'ours.sgf'}\nexport match mat {h / 'via_sgf.mat'}\n")
        subprocess.run([gnubg, "-t", "-q", "-r"], input=script, text=True, check=True,
                       capture_output=True, env={**os.environ, "HOME": home}, timeout=600)
        for via in ("via_mat", "via_sgf"):
            try:
                back = fastbg.read_match(h / f"{via}.mat")
                ok = [g.key() for g in back.games] == [g.key() for g in match.games]
            except (fastbg.MatchFileError, OSError) as exc:
                ok = False
                print(f"  {exc}")
            print(f"{name}: fastbg's {via[4:]} through gnubg: {'same games' if ok else 'DIFFERENT'}")
            same = same and ok
    return same


def many(gnubg: str, n: int, length: int) -> bool:
    """Play ``n`` gnubg matches and read them both ways; True when all agree."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    import fastbg

    with tempfile.TemporaryDirectory() as home:
        h = Path(home)

        def play(seed):
            script = (f"set seed {seed}\nset player 0 gnubg\nset player 1 gnubg\n"
                      f"new match {length}\nexport match mat {h / f'm{seed}.mat'}\n"
                      f"save match {h / f'm{seed}.sgf'}\n")
            subprocess.run([gnubg, "-t", "-q", "-r"], input=script, text=True, check=True,
                           capture_output=True, env={**os.environ, "HOME": home}, timeout=1200)

        with ThreadPoolExecutor(3) as pool:
            list(pool.map(play, range(1, n + 1)))
        agree, seconds, games, actions, failures = 0, 0.0, 0, 0, []
        fastbg.read_match(Path(__file__).resolve().parent.parent / "tests" / "data" / "matches"
                          / "beaver.sgf")        # (the engine's start-up, not timed)
        for seed in range(1, n + 1):
            try:
                t = time.perf_counter()
                a = fastbg.read_match(h / f"m{seed}.mat")
                b = fastbg.read_match(h / f"m{seed}.sgf")
                seconds += time.perf_counter() - t
            except fastbg.MatchFileError as exc:
                failures.append(str(exc))
                continue
            agree += [g.key() for g in a.games] == [g.key() for g in b.games]
            games += len(a.games)
            actions += sum(len(g.actions) for g in a.games)
    print(f"{n} gnubg {length}-point matches ({games} games, {actions} actions): "
          f"{n - len(failures)} read both ways, {agree} with the same games in both formats; "
          f"{seconds / max(1, 2 * (n - len(failures))):.3f} s a file to read and check")
    for f in failures:
        print(f"  refused: {f}")
    return agree == n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "matches")
    ap.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg")
    ap.add_argument("--check", action="store_true",
                    help="test fastbg's writers through gnubg's import instead of making files")
    ap.add_argument("--many", type=int, default=0, metavar="N",
                    help="play N more gnubg matches and read them (nothing is kept)")
    ap.add_argument("--length", type=int, default=7, help="their length (default 7)")
    ap.add_argument("names", nargs="*", default=list(FIXTURES), help="fixtures to make")
    args = ap.parse_args(argv)
    if not Path(args.gnubg).exists():
        print(f"GNU Backgammon not found at {args.gnubg} (Debian: apt install gnubg)",
              file=sys.stderr)
        return 2
    if args.many:
        return 0 if many(args.gnubg, args.many, args.length) else 1
    if args.check:
        results = [check(args.gnubg, name, args.out) for name in args.names]
        return 0 if all(results) else 1
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        run(args.gnubg, name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

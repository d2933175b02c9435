"""The ``fastbg`` command line.

Commands
--------
``fastbg show POSITION``
    Board diagram, pip counts and IDs.
``fastbg moves POSITION DICE [--json] [--engine E]``
    Every legal play with its notation and resulting Position ID (turn passed).
``fastbg rollout [POSITION] [--games N] [--seed S] [--workers W] [--policy P]
[--engine E] [--dice D] [--json] [--cubeful [--x X] [cube and match options]]``
    Monte Carlo rollout: win, gammon and backgammon probabilities with standard
    errors (the network plays by default); with ``--cubeful`` the cube is played in
    every game and the cubeful equity (money) or match winning chance is reported.
``fastbg perft POSITION DEPTH [--engine E] [--json]``
    Leaves of the game tree over all 21 rolls at each ply, for depths 1..DEPTH,
    with the time and leaves per second of each: the move generator's
    correctness-and-speed benchmark.
``fastbg eval POSITION [--engine E] [--json]``
    The neural network's 0-ply probabilities and cubeless equity.
``fastbg bench [--repeat R] [--engine E ...] [--json]``
    Random-policy and pubeval games per second and legal-play generation rate of
    each engine, medians of repeated runs, as a Markdown table.
``fastbg cube POSITION [--games N] [--seed S] [--workers W] [--policy P] [--x X]
[--match-length N] [--score A-B] [--cube V] [--owner O] [--max-cube V] [--crawford]
[--jacoby] [--beaver] [--met M] [--json]``
    Cube decision from a cubeless rollout: ND / DT / DP equities (money) or MWC and
    EMG (match) with standard errors, the proper action and its margin in standard
    errors of the difference. Cube and score also come from an XGID or GNU ID pair.
``fastbg met [--met M] [--length N] [--post-crawford] [--csv | --json]``
    The match equity table: pre-Crawford MWC for away scores 1..N, post-Crawford row.
``fastbg takepoints --length N [--met M] [--csv | --json]``
    Dead and live take points at every score 1- to N-away for 1-, 2- and 4-cubes.
``fastbg gammon-values --length N [--cube V] [--met M] [--csv | --json]``
    Gammon values (win and loss) at every score 1- to N-away.
``fastbg match FILE... [--format F] [--games] [--engine E] [--json]``
    Read match files (Jellyfish .mat, GNU Backgammon .sgf), replaying every play and cube
    action against the rules: a summary of each (players, score, games, decisions), or one
    error line naming the file, game, move and problem (status 2 if any file is refused).

POSITION is ``start``, a GNU Backgammon Position ID, a GNU Backgammon
``PositionID:MatchID`` pair or an XGID (``XGID=...``). The dice of a pair or an XGID
are the first roll of ``rollout`` and must be DICE of ``moves``; ``eval``, ``cube`` and
``perft`` refuse a position with the dice rolled.
Bad arguments print one line naming the problem, after the full name of the command
(``fastbg table race: error: ...``), and exit with status 2; ``fastbg`` alone prints the
help (the commands) before its line. Ctrl-C exits with status 130
(128 + SIGINT) at any moment; during a rollout the first finishes the blocks in flight and
reports the games played, a second drops those blocks and reports at once. SIGTERM is
taken as a Ctrl-C, with status 143 (128 + SIGTERM).
"""
from __future__ import annotations

import os
import signal
import sys


def _interrupted_at_start(signum, frame):  # pragma: no cover - timing-dependent
    sys.stderr.write("fastbg: interrupted\n")
    os._exit(130)


# Ctrl-C while the command line is still importing numpy and the core (a few tenths of
# a second) ends it quietly, as later it does; main() then installs the command's
# handler. Only for the console script and python -m fastbg, never for a program
# importing fastbg.cli. Installed before any other import: under Python's handler a
# KeyboardInterrupt raised in an import gives a traceback, or, raised in importlib's
# module-lock callback, is printed as "Exception ignored" and lost (the command then ran
# to the end and exited 0); this handler raises nothing, so nothing can swallow it.
#: Run as the console script or ``python -m fastbg``, not imported by a program (nor by
#: another package's ``python -m``, e.g. ``python -m pytest``, whose ``argv[0]`` is its own
#: ``__main__.py``: that process keeps its own signal handlers and stderr).
_CONSOLE = os.path.basename(sys.argv[0]) == "fastbg" or os.path.normpath(sys.argv[0]).endswith(
    os.path.join("fastbg", "__main__.py"))
if _CONSOLE:
    signal.signal(signal.SIGINT, _interrupted_at_start)


class _StderrOrNothing:
    """The console script's stderr, whose failing writes are dropped: with stderr on a
    full device (`2>/dev/full`) a write raised OSError, and a line of bad input (or the
    progress bar) ended the command with a traceback nobody saw and status 1 instead of
    its result or status 2. Nothing can be said on such a stderr; the status still tells."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self):
        try:
            self._stream.flush()
        except (OSError, ValueError):
            pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _usable_stderr():
    """Set sys.stderr up for the console script: stderr closed (`2>&-`: Python gives it as
    None, and the progress bar, tqdm, raised AttributeError: status 1, no result) writes to
    os.devnull; an open one drops its failing writes (_StderrOrNothing)."""
    stream = sys.stderr
    try:
        if stream is not None:
            os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        stream = None
    sys.stderr = _StderrOrNothing(stream if stream is not None
                                  else open(os.devnull, "w", encoding="utf-8"))


if _CONSOLE:
    _usable_stderr()

import argparse  # noqa: E402  (after the handler, on purpose, as all that follows)
import re  # noqa: E402
import sqlite3  # noqa: E402

from .. import __version__  # noqa: E402
from . import bench, cube, matches, positions, research, rollouts, runs, tables  # noqa: E402
from .common import (EXIT_INTERRUPTED, EXIT_USAGE, cap_workers, ctrl_c_seen,  # noqa: E402
                     forget_ctrl_c, interrupt, looks_like_position, second_position, shorten,
                     stop_name, stopped_status, terminate)
from ..engine import get_engine  # noqa: E402
from ..formats import parse_dice  # noqa: E402

# The compiled core, and numpy.random with it, imported now, under the start-up handler,
# not lazily by the first run: Cython's module set-up registers its memoryview types with
# collections.abc inside a bare `except: pass`, which swallows a KeyboardInterrupt raised
# there (numpy.random._generator's does). A Ctrl-C landing in that import, after main()
# has put Python's handler back and before a run installs its own, was lost, and the run
# played to the end (a CI run of test_cli_robustness). A missing core is reported by the
# command that needs it, as before.
try:
    get_engine("cython")
except ImportError:  # pragma: no cover - depends on the build
    import numpy.random  # noqa: F401  (the reference engine's dice)

__all__ = ["main", "build_parser"]

_BARE_XGID = re.compile(r"^[-a-oA-O]{26}(:|$)")
# one move of a play as typed: 13/7, bar/20*, 8/2*/1, 6/off, 13/7(2)
_MOVE = re.compile(r"^(bar|\d{1,2})(/(\d{1,2}|off)\*?)+(\(\d\))?$", re.IGNORECASE)


#: The error of a command run with no standard output (`fastbg rollout ... >&-`: Python
#: gives it as sys.stdout None, and the flush after the command raised AttributeError, a
#: traceback and status 1): said before any work, as a write error would be said.
_STDOUT_CLOSED = "cannot write the output: standard output is closed"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2, no usage dump
        if sys.stderr is not None:
            sys.stderr.write(f"{self.prog}: error: {shorten(message)}\n")
        sys.exit(EXIT_USAGE)

    def _print_message(self, message, file=None):
        # --help and --version write to sys.stdout, None when it is closed (argparse would
        # then write them to stderr): the error of the command whose help it is
        if message and file is None and sys.stdout is None:
            self.error(_STDOUT_CLOSED)
        if message and file is not None and file is sys.stdout:
            # argparse drops a failing write, and --help or --version on a full disk
            # (`> /dev/full`) exited 0 with the text lost: the error a command has
            try:
                file.write(message)
                file.flush()
            except BrokenPipeError:  # the reader went away (`fastbg --help | head`), as main
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except OSError as exc:
                self.error(f"cannot write the output: {exc.strerror or exc}")
            return
        super()._print_message(message, file)


#: The command groups, one module each, in the order of ``fastbg --help``.
_GROUPS = (positions, rollouts, runs, research, bench, cube, tables, matches)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fastbg", description="Backgammon simulation engine: legal plays and Monte Carlo rollouts.")
    p.add_argument("--version", action="version", version=f"fastbg {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for group in _GROUPS:
        group.add_parsers(sub)
    p.commands = sub.choices  # the subcommands' parsers, by name
    p.command_action = sub
    return p


_COMMANDS = {name: cmd for group in _GROUPS for name, cmd in group.COMMANDS.items()}


#: An option value that argparse would take for an option because it starts with '-'
#: but which no option can be: '-' then a digit or a point ("-1-2", "-1e-3", "-.5").
_DASH_VALUE = re.compile(r"-[0-9.]")


def _join_dash_values(parser, argv: list[str]) -> list[str]:
    """``--opt VALUE`` as ``--opt=VALUE`` where VALUE starts with '-' and a digit.

    argparse reads such a VALUE as an option unless it is a plain negative number, and
    then reports the option as missing its argument ("--score -1-2": "expected one
    argument"). Joined, the value reaches the option's own check, whose message names
    the real problem. Only options of the subcommand that take one value are joined
    (abbreviations included, as argparse accepts them), and nothing after ``--``.
    """
    start = next((k for k, a in enumerate(argv) if a in parser.commands), None)
    if start is None:
        return argv
    sub = parser.commands[argv[start]]
    # a command with commands of its own (`fastbg table race ...`): the options are theirs
    nested = next((a.choices for a in sub._actions
                   if isinstance(a, argparse._SubParsersAction)), None)
    if nested and start + 1 < len(argv) and argv[start + 1] in nested:
        start += 1
        sub = nested[argv[start]]
    options = {o: a for a in sub._actions for o in a.option_strings}
    out = argv[: start + 1]
    k = start + 1
    while k < len(argv):
        tok = argv[k]
        if tok == "--":
            out += argv[k:]
            break
        action = options.get(tok)
        if action is None and tok.startswith("--") and "=" not in tok:
            found = {options[o] for o in options if o.startswith(tok)}
            action = found.pop() if len(found) == 1 else None
        if (action is not None and action.nargs is None and k + 1 < len(argv)
                and _DASH_VALUE.match(argv[k + 1])):
            out.append(f"{tok}={argv[k + 1]}")
            k += 2
            continue
        out.append(tok)
        k += 1
    return out


def _option_names(message: str, args) -> str:
    """An error of the Python layer in the CLI's words: a keyword argument that is also one
    of this command's options (``min_games``, ``until_se``...) is named as the option
    (``--min-games``), so the message says what to change on the command line."""
    names = sorted((k for k in vars(args) if "_" in k), key=len, reverse=True)
    if not names:
        return message
    return re.sub(r"(?<![\w-])(" + "|".join(map(re.escape, names)) + r")(?![\w(])",
                  lambda m: "--" + m.group(1).replace("_", "-"), message)


def _options(parser) -> set[str]:
    """The option strings of a command's parser (``--dice``, ``-n``...)."""
    return {o for a in parser._actions for o in a.option_strings}


def _rest_of_play(args, words: list[str]) -> bool:
    """Whether leftover ``words`` are the rest of an unquoted ``--play`` (``--play 8/5 6/5``:
    the shell split the play, and its second move is left over)."""
    return bool(getattr(args, "play", None)) and all(_MOVE.match(a) for a in words)


def _roll(words: list[str]):
    """The roll that command-line ``words`` write (``31``; ``3 1``), or None."""
    try:
        return parse_dice(" ".join(words))
    except ValueError:
        return None


def _roll_for_position(command, args) -> str:
    """A hint when POSITION is a roll (``rollout 31``) and the command takes one as
    ``--dice``, else ``""``."""
    pos = getattr(args, "position", None)
    d = _roll([pos]) if isinstance(pos, str) else None
    if d is None or "--dice" not in _options(command) or getattr(args, "cubeful", False):
        return ""
    return (f" (a roll is not a position: to fix the first roll, {command.prog} POSITION "
            f"--dice {d[0]}{d[1]}, e.g. {command.prog} start --dice {d[0]}{d[1]})")


def _command_parser(parser, args):
    """The parser of the command that ran, nested ones included (``fastbg table race``): its
    ``prog`` is the prefix of the command's errors, as argparse's own errors have it."""
    cmd = parser.commands[args.command]
    for action in cmd._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(getattr(args, action.dest, None), cmd)
    return cmd


def main(argv=None) -> int:
    """Entry point of the ``fastbg`` console script; returns the exit status."""
    forget_ctrl_c()
    previous = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted_at_start:
            # from here a Ctrl-C raises KeyboardInterrupt, so that a store or a run ends
            # cleanly, and is recorded: a library that swallows the exception (a bare
            # `except`) cannot make the command play on to status 0 (fastbg.cli.common)
            signal.signal(signal.SIGINT, interrupt)
            # SIGTERM (kill, a batch system's time limit) stops as a Ctrl-C does: the
            # finished blocks are kept and reported, status 143
            signal.signal(signal.SIGTERM, terminate)
        code = _main(argv)
        return stopped_status() if code == EXIT_INTERRUPTED else code
    except KeyboardInterrupt:          # (parsing included: no traceback at any moment)
        sys.stderr.write("fastbg: terminated\n" if ctrl_c_seen("term") else
                         "fastbg: interrupted\n")
        return stopped_status()
    finally:
        # the handlers main() installed end with it: SIGINT and SIGTERM are given back as
        # they were (the start-up handler: a Ctrl-C while the interpreter shuts down ends it
        # quietly, as at start-up)
        if previous[0] is _interrupted_at_start:
            signal.signal(signal.SIGINT, previous[0])
            signal.signal(signal.SIGTERM, previous[1])


def _main(argv) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # An XGID written without its prefix may start with '-' (an empty bar), which
    # argparse would read as an option: give it its prefix.
    argv = ["XGID=" + a if _BARE_XGID.match(a) else a for a in argv]
    argv = _join_dash_values(parser, argv)
    # COMMAND is checked here, not by argparse, which would say only that it is missing
    # when an unknown option stands in its place (`fastbg --bogus`)
    parser.command_action.required = False
    # `fastbg --json eval start`, `fastbg --workers 2 rollout`: a command's options before
    # it (argparse called them unrecognized, or the value an invalid COMMAND)
    at = next((k for k, a in enumerate(argv) if a in parser.commands), None)
    early = argv[:at] if at else []
    named = [a.split("=", 1)[0] for a in early if a.startswith("-")]
    if early and early[0].startswith("-") and not set(named) & {"-h", "--help", "--version"} \
            and set(named) <= _options(parser.commands[argv[at]]):
        parser.error(f"{' '.join(early)}: the options of a command go after it "
                     f"(fastbg {argv[at]} ... {' '.join(early)})")
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        # bare `fastbg`: a usage error (status 2), which shows what the commands are, as
        # `fastbg --help` does, with the one line of the problem after them
        sys.stderr.write(parser.format_help() + "\n")
        parser.error("the following arguments are required: COMMAND (one of those above)")
    # Every error of a command starts with its full name, as argparse's own do
    # ("fastbg table race: error: ..."), whether argparse or the command found it.
    command = _command_parser(parser, args)
    if extra and getattr(args, "dice", None) == []:
        # DICE of `moves` (any number of words, as it may be left out) gets none when an
        # option stands between it and POSITION (`moves XGID --json 31`: argparse matches
        # both before the option), and the roll is left over: it is DICE, but for the
        # second move of an unquoted --play, which is said below
        words = [a for a in extra if not a.startswith("-")]
        if words and not _rest_of_play(args, words):
            args.dice = words
            extra = [a for a in extra if a.startswith("-")]
    if extra:
        # `fastbg rollout start XGID=...`: 'start' is the POSITION, and the XGID, which was
        # meant as it, is left over; say so rather than call it unrecognized
        given = getattr(args, "position", None)
        second = next((a for a in extra if not a.startswith("-") and looks_like_position(a)),
                      None)
        # ... unless an unknown option is left over too: argparse gives the word after it
        # to POSITION (`fastbg cube --bogus x start`: 'x' taken as the POSITION, 'start'
        # left over), so the option is the problem to name
        options = [a for a in extra if a.startswith("-") and len(a) > 1
                   and not _DASH_VALUE.match(a)]
        if given is not None and second is not None and options:
            command.error(f"unrecognized arguments: {' '.join(options)}")
        if given is not None and second is not None:
            command.error(second_position(args.command, given, second))
        if _rest_of_play(args, extra):
            command.error(f"unrecognized arguments: {' '.join(extra)} (a play of several "
                          f"moves is one --play in quotes: --play '{args.play[-1]} "
                          f"{' '.join(extra)}')")
        # `rollout start 31`: a roll where the command takes none but as --dice
        roll = _roll(extra) if "--dice" in _options(command) else None
        if roll is not None and not getattr(args, "cubeful", False):
            command.error(f"unrecognized arguments: {' '.join(extra)} (to fix the first roll, "
                          f"--dice {roll[0]}{roll[1]})")
        # argparse reports a subcommand's unknown arguments as the main program's; name
        # the subcommand, whose usage they break.
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    if sys.stdout is None:    # after parsing, so that the error names the command
        command.error(_STDOUT_CLOSED)
    prog = command.prog
    cap_workers(args)
    try:
        code = _COMMANDS[args.command](args)
        sys.stdout.flush()  # a full disk or closed pipe is reported here, not at exit
        if code == 0 and ctrl_c_seen():
            # the Ctrl-C came as the run's last blocks were ending: they finished, so the
            # result is whole and not marked INTERRUPTED, but a Ctrl-C is status 130 (or
            # something swallowed its KeyboardInterrupt after the work was done)
            sys.stderr.write(f"fastbg: the {stop_name()} came as the run was ending: every "
                             "game finished, and the result is complete (not partial)\n"
                             if ctrl_c_seen("run") else
                             f"fastbg: the {stop_name()} came as the command was ending: its "
                             "output is complete\n")
            return EXIT_INTERRUPTED
        return code
    except ValueError as exc:
        sys.stderr.write(f"{prog}: error: {shorten(_option_names(str(exc), args))}"
                         f"{_roll_for_position(command, args)}\n")
        return EXIT_USAGE
    except ImportError as exc:
        sys.stderr.write(f"{prog}: error: {shorten(str(exc))}\n")
        return EXIT_USAGE
    except sqlite3.Error as exc:
        # the store could not be written or read past the checks of its own (a read-only
        # file, a full disk, a locked database): what is stored stays as it was
        sys.stderr.write(f"{prog}: error: the results store failed: {shorten(str(exc))}; "
                         "what it holds was left as it was\n")
        return EXIT_USAGE
    except OSError as exc:
        if not isinstance(exc, BrokenPipeError):
            # (a full disk, an I/O error: a problem of the environment, status 2 as for bad
            # input; a stored run's blocks are in its store already)
            sys.stderr.write(f"{prog}: error: cannot write the output: {exc.strerror or exc}\n")
            return EXIT_USAGE
        # The reader went away (`fastbg moves ... | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

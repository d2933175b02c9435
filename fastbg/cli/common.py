"""What the commands share: argument types, help texts, exit codes, MET loading."""
from __future__ import annotations

import argparse
import json
import math
import numbers
import os
import re
import signal
import sys


from ..rollouts.blocks import check_games
from ..cube import (load_met)
from ..formats import parse_dice
from ..game import parse_game
from ..rollouts import DEFAULT_POLICY, POLICIES
from ..rollouts.cubeless import stored_counts_shape
from ..research import plot_convergence


EXIT_USAGE = 2

EXIT_INTERRUPTED = 130

#: Status of a command stopped by SIGTERM (128 + 15), which it takes as a Ctrl-C
#: (:func:`terminate`): the run keeps its finished blocks and reports them.
EXIT_TERMINATED = 143

#: The Ctrl-Cs that reached the running command, by who saw them (:func:`note_ctrl_c`;
#: ``main`` clears them and reads them at the end): a run that notices one may still
#: finish whole (it came as the last blocks were ending), and a KeyboardInterrupt may be
#: swallowed by a library's bare ``except``; the command must exit 130 all the same.
_ctrl_c: list = []


def note_ctrl_c(by: str = "run") -> None:
    """Record that a Ctrl-C reached the command: ``"run"``, a run's ``on_interrupt``,
    ``"signal"``, the command's SIGINT handler (:func:`interrupt`), or ``"term"``, a
    SIGTERM taken as a Ctrl-C (:func:`terminate`)."""
    _ctrl_c.append(by)


def ctrl_c_seen(by: str | None = None) -> bool:
    """Whether a Ctrl-C reached the command since ``main`` started it (one that ``by``
    saw, if given)."""
    return by in _ctrl_c if by is not None else bool(_ctrl_c)


def forget_ctrl_c() -> None:
    """Start a command with no Ctrl-C recorded (``main`` may run several in one process)."""
    _ctrl_c.clear()


def interrupt(signum, frame):
    """The command's SIGINT handler outside its runs (a run installs its own): Python's,
    raising KeyboardInterrupt, which also records the Ctrl-C (:func:`note_ctrl_c`)."""
    note_ctrl_c("signal")
    raise KeyboardInterrupt


def terminate(signum, frame):
    """The console command's SIGTERM handler: a Ctrl-C (whatever SIGINT handler is in place:
    the command's, or a run's, which finishes the blocks in flight and keeps them), recorded
    as ``"term"`` so that the command says SIGTERM and exits with :data:`EXIT_TERMINATED`.
    By default SIGTERM ended a run at once, without a word, its finished blocks stored but
    its result lost."""
    note_ctrl_c("term")
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):        # (no Python handler for SIGINT: stop as Python would)
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def stop_name() -> str:
    """What stopped the command, for its messages: ``"SIGTERM"`` or ``"Ctrl-C"``."""
    return "SIGTERM" if ctrl_c_seen("term") else "Ctrl-C"


def stopped_status() -> int:
    """The status of a command stopped early: 143 after a SIGTERM, else 130."""
    return EXIT_TERMINATED if ctrl_c_seen("term") else EXIT_INTERRUPTED


def check_ctrl_c() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C reached the command and was swallowed on the
    way (by a bare ``except`` of a library, or importlib's module-lock callback, which
    prints it as "Exception ignored"): a run about to start must not play on."""
    if _ctrl_c:
        raise KeyboardInterrupt


_POSITION_HELP = "'start', a Position ID, a GNU PositionID:MatchID pair or an XGID"

_ENGINE_HELP = ("the compiled core (default) or the pure-Python reference: the same numbers, "
                "hundreds to thousands of times slower (for checking the core)")

#: What each policy of fastbg.rollouts.cubeless.POLICIES is, for the help; a policy missing here is
#: still offered, by its name.
_POLICY_TEXT = {
    "pubeval": "Tesauro's pubeval",
    "random": "a uniformly random legal play",
    "nn": "the shipped evaluator's best play at 0 ply (contact, crashed and race nets, the "
          "bear-off database in bear-offs)",
    "nn-1ply": "the evaluator's 8 best 0-ply plays, each scored by the average over the "
               "opponent's 21 rolls of its best 0-ply reply; about 100x slower than nn, "
               "run in blocks of 100 games",
    "nn1": "the first network (one 196-input net, TD self-play) at 0 ply, for comparisons",
}


def _policy_help(default: str = DEFAULT_POLICY) -> str:
    return "; ".join(f"{p} = {_POLICY_TEXT.get(p, 'see fastbg.rollout')}"
                     + (" (default)" if p == default else "") for p in POLICIES)


def ascii_number(text: str) -> str:
    """``text``, if it has only ASCII characters: int() and float() read the digits of any
    script as numbers ('３０００', '٣'), which an option's number is not; argparse's error
    naming the first other character otherwise."""
    other = next((c for c in text if not c.isascii()), None)
    if other is not None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number written with the digits "
                                         f"0-9 ({other!r} is not one of them)")
    return text


def _positive_int(text: str) -> int:
    ascii_number(text)
    try:
        v = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return v


def cap_workers(args) -> None:
    """Cap ``--workers`` at the CPU count, with a one-line note on stderr.

    More threads (or local cluster processes) than CPUs are not faster, and the numbers do
    not depend on the workers (DESIGN section 4); ``--workers 100000`` made the run start
    threads by the hundred and print ``workers 100000`` in its header, without a word.
    The CPU count is the default's (:func:`fastbg.rollouts.blocks.resolve_workers`).

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments; changed in place. Commands without ``--workers``, and
        ``--dask ADDRESS`` (which refuses ``--workers``), are left alone.
    """
    workers = getattr(args, "workers", None)
    cpus = max(1, os.cpu_count() or 1)
    if workers is None or workers <= cpus or isinstance(getattr(args, "dask", None), str):
        return          # (with a cluster's address, --workers is the command's error)
    args.workers = cpus
    sys.stderr.write(f"fastbg: --workers {workers:,} is more than the {plural(cpus, 'CPU')} "
                     f"here: using at most {cpus} (more are not faster, and the numbers do "
                     "not depend on them)\n")


#: Endings of a results store's file name (an SQLite database), for the hint of
#: :func:`store_hint`.
_STORE_ENDINGS = (".db", ".sqlite", ".sqlite3")


def store_hint(text: str) -> str:
    """``"; for the store PATH, write --store PATH"`` if a command-line word looks like a
    store's path (a file of that name exists, or it ends in .db, .sqlite or .sqlite3),
    else ``""``: ``fastbg runs list s.db`` meant ``--store s.db``."""
    t = text.strip()
    if t.lower().endswith(_STORE_ENDINGS) or os.path.isfile(t):
        return f"; for the store {t}, write --store {t}"
    return ""


def run_id_arg(text: str) -> int:
    """The argparse type of a RUN (``runs show RUN``, ``rollout --resume RUN``): a run's id,
    a positive whole number; the error says so, with :func:`store_hint` for a path."""
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a run's id (a whole number from 1, as `fastbg runs` lists "
            f"them){store_hint(text)}") from None


def _games(text: str) -> int:
    """A game count: a positive whole number, at most :data:`fastbg.rollouts.blocks.MAX_GAMES`."""
    v = _positive_int(text)
    try:
        return check_games(v)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: A Position ID, or a GNU Backgammon PositionID:MatchID pair, by its look (valid or not).
_GNU_ID = re.compile(r"[A-Za-z0-9+/]{14}(:[A-Za-z0-9+/]{12})?")


def looks_like_position(text: str) -> bool:
    """Whether a command-line word is meant as a POSITION: 'start', an XGID, a Position ID
    or an ID pair, by its look or because it reads as one."""
    t = text.strip()
    if t.lower() == "start" or t.upper().startswith("XGID=") or _GNU_ID.fullmatch(t):
        return True
    try:
        parse_game(t)
    except ValueError:
        return False
    return True


def second_position(command: str, given: str, second: str) -> str:
    """The error of a command given a second POSITION (``rollout start XGID=...``, ``moves
    start start 31``): it takes one, and the user says which."""
    return f"{command} takes one POSITION; got {given!r} and {second!r}: give the one to use"


def store_path_arg(bare_is_default: bool, takes_position: bool = True):
    """The argparse type of ``--store PATH``: the path as given, refusing an empty one (it
    named no file, and used to mean the default store without a word) and one that looks
    like a POSITION (:func:`looks_like_position`): ``--store`` takes an optional PATH, so
    ``rollout --store 4HPMwQCMz+AIIQ`` took the position for a store file and rolled out
    the start; a store file of such a name is written ``./NAME``. ``bare_is_default``:
    ``--store`` without a PATH is the default store (its ``const``, which must not be a
    str: argparse would pass it through this type). ``takes_position``: the command has a
    POSITION (``rollout``, ``table``), which the message then says goes before
    ``--store``."""
    hint = ("give --store without a PATH for the default store" if bare_is_default else
            "leave --store out for the default store")

    def store_path(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"the store's PATH {text!r} is empty; {hint}")
        if looks_like_position(text):
            where = ("a position goes before --store" if takes_position else
                     "this command takes no position")
            raise argparse.ArgumentTypeError(
                f"{text!r} is a position, not a store's PATH: {where} (for a store file "
                f"of that name, write ./{text.strip()})")
        return text
    return store_path


def add_no_progress_option(p, shows: str | None = None) -> None:
    """``--no-progress`` of a command. Every command takes it, so that a script can give it
    to any (``met``, ``perft`` and ``runs`` refused it as an unrecognized argument).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser.
    shows : str, optional
        The progress that the command shows on stderr and the option turns off (``"progress
        bar"``); None: the command shows none, and the option does nothing.
    """
    p.add_argument("--no-progress", action="store_true",
                   help=f"no {shows}" if shows else
                        "accepted, as by every command, for scripts (nothing to show here)")


def roll_text(dice) -> str:
    """A roll as the field writes it, the higher die first (``"3-1"``, whatever the
    order typed)."""
    return f"{max(dice)}-{min(dice)}"


def plural(n: int, word: str) -> str:
    """``"1 game"``, ``"2,000 games"``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def games_played(games: int, requested: int, interrupted: bool, word: str = "game") -> str:
    """The games of a rollout's text header: ``"2,000 games"``, and for a run that Ctrl-C
    stopped ``"2,000 games of 5,000 requested"`` (every rollout's header says it so:
    ``rollout``, ``rollout --cubeful``, ``moves --rollout``, ``cube``).

    Parameters
    ----------
    games : int
        Games (or trials) played.
    requested : int
        Games asked for.
    interrupted : bool
        Whether the run was stopped before ``requested``.
    word : str, default "game"
        What is counted (``"trial"`` for a cube rollout).
    """
    return plural(games, word) + (f" of {requested:,} requested" if interrupted else "")


def _seed(text: str) -> int:
    ascii_number(text)
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r} is not a whole number") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"seed {text!r} must be non-negative")
    return v


def _dice_arg(text: str):
    try:
        return parse_dice(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _whole_arg(text: str) -> int:
    ascii_number(text)
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _non_negative_int(text: str) -> int:
    v = _whole_arg(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 (money play) or more")
    return v


def _number_arg(text: str) -> float:
    ascii_number(text)
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def _score_arg(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(-?[0-9]+)\s*-\s*(-?[0-9]+)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"score {text!r} is not A-B (points won so far, the player on roll's first)")
    a, b = int(m.group(1)), int(m.group(2))
    negative = [v for v in (a, b) if v < 0]
    if negative:
        raise argparse.ArgumentTypeError(
            f"score {text!r} is invalid: {negative[0]} is negative; a score is the points "
            "each side has won so far, 0 or more, written A-B with the player on roll's "
            "first (e.g. 2-4)")
    return a, b


def _is_xgid(text: str) -> bool:
    return text.strip().upper().startswith("XGID=")


def json_seed(seed):
    """A seed as the command line's JSON writes it: a decimal string (``"1"``, and a fresh
    seed's 39 digits), None as None. Seeds are 128-bit integers, which JSON readers that
    hold numbers as doubles (jq, JavaScript) round (``4.5234735403628935e+36``), so every
    ``seed`` key of every command's JSON is a string, whatever its size: one type for the
    key. The Python API's seeds stay ints; the command line and the store read either form
    back (``--seed``, :class:`fastbg.rollouts.store.ResultsStore`)."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return str(int(seed))
    return seed


def _finite(obj):
    """NaN and infinities as None, so the JSON is standard; the value of every ``seed``
    key as :func:`json_seed` writes it."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_seed(v) if k == "seed" else _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


#: A quoted input long enough to drown the message around it (an ID is at most 60).
_LONG_QUOTED = re.compile(r"(['\"])([^'\"\n]{80,})\1")
#: The longest error message printed; the rest is cut.
MAX_MESSAGE = 600


def shorten(message: str) -> str:
    """An error message fit for one line: long quoted inputs cut to their start and
    length (``'AAAA...' (100,000 characters)``), and the whole at most
    :data:`MAX_MESSAGE` characters."""
    def cut(m):
        q, text = m.group(1), m.group(2)
        return f"{q}{text[:40]}...{q} ({len(text):,} characters)"

    if len(message) <= MAX_MESSAGE:
        return message
    message = _LONG_QUOTED.sub(cut, message)
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE] + f"... ({len(message):,} characters in all)"
    return message


def draw_after_run(draw) -> ValueError | None:
    """Draw a finished run's plot (``draw()``), returning the error instead of raising it:
    the file was tried before the run (:func:`fastbg.research.plots.check_plot_path`), but
    a disk can fill or a directory go while it runs, and the run's numbers must be printed
    all the same; the command then raises the error after its output (exit status 2)."""
    try:
        draw()
    except ValueError as exc:
        return exc
    return None


def print_json(obj, **kwargs) -> None:
    """Print ``obj`` as strict JSON: NaN and infinities become ``null`` (:func:`_finite`),
    seeds decimal strings (:func:`json_seed`), and anything else that JSON cannot hold is an
    error, not a non-standard token."""
    print(json.dumps(_finite(obj), allow_nan=False, **kwargs))


def _table_name(table) -> str:
    return table.name or table.source


def _load_met(name):
    """:func:`fastbg.cube.load_met`, with a file that cannot be read reported as bad input."""
    try:
        return load_met(name)
    except OSError as exc:
        raise ValueError(f"cannot read the match equity table {name!r}: "
                         f"{exc.strerror or exc}") from None


def _check_length(table, n: int) -> None:
    if n > table.length:
        raise ValueError(f"table {_table_name(table)!r} holds scores up to {table.length}-away; "
                         f"got --length {n}")


def games_rate(per_second: float) -> str:
    """A run's speed for its report: ``"35,288 games/s"``; below 10 games a second with a
    decimal (``"2.4 games/s"``), below one a second per minute (``"4.93 games/min"``, the
    pure-Python engine's speed), so that a slow run never reads "0 games/s"."""
    if not math.isfinite(per_second):
        return "- games/s"               # (no time measured)
    if per_second >= 10:
        return f"{per_second:,.0f} games/s"
    if per_second >= 1:
        return f"{per_second:.1f} games/s"
    return f"{per_second * 60:.3g} games/min"


def num(x, spec: str) -> str:
    """``format(x, spec)``, or ``n/a`` right-aligned to the spec's width when ``x`` is NaN
    (the standard error of a one-game run, and what follows from it)."""
    if not math.isnan(x):
        return format(x, spec)
    m = re.match(r"[+\- ]?(\d*)", spec)
    return format("n/a", f">{m.group(1) or 0}")


def stored_blocks(store, run) -> dict:
    """The stored blocks of ``run`` (a :class:`~fastbg.rollouts.store.StoredRun`), as
    :meth:`~fastbg.rollouts.store.ResultsStore.blocks` gives them, with each block's counts
    checked against the shape its run plays
    (:func:`fastbg.rollouts.cubeless.stored_counts_shape`, the rule the run itself checks
    them by when it resumes).

    Raises
    ------
    ValueError
        Naming the damaged block, if one is, or the missing one of a rollout marked done
        without all its games and no stop rule to end it early (the store is not changed).
    """
    blocks = store.blocks(run.id, stored_counts_shape(run.kind, run.request, run.settings))
    if (run.kind in ("rollout", "plays", "cubeful", "cube") and run.status == "done"
            and run.request.get("until_se") is None
            and sum(g for g, _, _ in blocks.values()) < run.games):
        raise ValueError(f"run {run.id} in {store.path} is marked done but block {len(blocks)} "
                         "of it is missing; the store was left as it is")
    return blocks


# ------------------------------------------------- a run's result: the tail every command prints
def resume_text(run_id: int, args, command: str = "rollout") -> str:
    """The command that continues stored run ``run_id`` (with the command's ``--store``):
    ``fastbg COMMAND --resume RUN``, ``command`` e.g. ``"cube"`` or ``"table race"``."""
    return f"fastbg {command} --resume {run_id}" + (f" --store {args.store}" if args.store
                                                     else "")


def nothing_stored(store, run_id, resume: str) -> str:
    """What a run stopped before its first block left in the store: nothing (a new run is
    removed then), or the resumed run, kept."""
    if store is None:
        return ""
    return "; nothing stored" if run_id is None else f" (run {run_id} kept; resume with: {resume})"


def print_stored(res, args, store, command: str = "rollout", kind: str = "run") -> None:
    """The line under a stored run's text: where it is kept (as ``kind``, e.g. ``"table
    run"``) and, if interrupted, the ``fastbg COMMAND --resume RUN`` that continues it
    (nothing without a store)."""
    if store is not None and res.run_id is None:
        # (a pure-Python block cut short hands over its finished games; a store keeps
        # whole blocks only)
        print(f"  nothing stored in {store.path}: the run stopped before its first "
              "block finished")
    elif store is not None:
        print(f"  stored as {kind} {res.run_id} in {store.path}"
              + (f"; resume with: {resume_text(res.run_id, args, command)}"
                 if res.interrupted else ""))


def convergence_plot(res, args, store, blocks, curve, title: str):
    """The ``plot`` of :func:`report_run` for a rollout's ``--plot`` (None without it): its
    convergence, ``curve(blocks)`` (:func:`fastbg.research.convergence`) drawn under
    ``title`` and the run's id. ``blocks`` are those the run played now (its ``on_block``);
    a run that read blocks from the store, which were not handed over, reads them all
    again from ``store``."""
    if args.plot is None:
        return None
    if res.stored_games:
        blocks = store.blocks(res.run_id).values()
    title += f" (run {res.run_id})" if res.run_id is not None else ""
    return lambda: plot_convergence(curve(blocks), args.plot, title)


def report_run(result, args, store, text, *, empty: bool, run=None, command: str = "rollout",
               kind: str = "run", what: str = "game", plot=None, csv=None) -> int:
    """Print a finished run's result and where it is kept; the command's exit status.

    The tail every run command shares: ``--json`` (the result's dict, with ``store``, the
    store's path), or the text with ``plot drawn into PATH`` and the stored-run line
    (:func:`print_stored`) under it; a run with nothing to report says so on stderr instead.

    Parameters
    ----------
    result
        What ``--json`` prints (its ``to_dict()``); its ``interrupted`` sets the status.
    args : argparse.Namespace
        The command's options (``json``, ``plot``, ``store``).
    store : ResultsStore or None
        The run's store.
    text : callable
        ``text()``: the result's text (not called with ``--json``).
    empty : bool
        Nothing finished (no game, no row): a line on stderr, status 130.
    run : optional
        The stored run's result, with ``run_id`` and ``interrupted`` (default ``result``).
    command : str
        ``fastbg COMMAND --resume RUN`` continues the run (:func:`resume_text`).
    kind : str
        What the stored-run line calls it (``"run"``, ``"table run"``).
    what : str
        What did not finish (``"game"``, ``"row"``).
    plot : callable, optional
        ``plot()`` draws ``args.plot`` (:func:`convergence_plot`); an error it raises is
        raised after the output (:func:`draw_after_run`).
    csv : callable, optional
        ``csv()`` prints the result as CSV, with ``--csv``.

    Returns
    -------
    int
        0, or :data:`EXIT_INTERRUPTED` for an interrupted run.
    """
    run = result if run is None else run
    if empty:
        print(f"interrupted before any {what} finished; nothing to report"
              + nothing_stored(store, run.run_id, resume_text(run.run_id, args, command)),
              file=sys.stderr)
        return EXIT_INTERRUPTED
    plot_error = None if plot is None else draw_after_run(plot)
    if args.json:
        d = result.to_dict()
        if store is not None:
            d["store"] = str(store.path)
        print_json(d, indent=2)
    elif csv is not None and getattr(args, "csv", False):
        csv()
    else:
        print(text())
        if plot is not None and plot_error is None:
            print(f"  plot drawn into {args.plot}")
        print_stored(run, args, store, command, kind)
    if plot_error is not None:         # the numbers first: a plot that failed loses nothing
        raise plot_error
    return EXIT_INTERRUPTED if result.interrupted else 0

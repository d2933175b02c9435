"""``fastbg cube``: a cube decision from a rollout, money or match, with standard errors."""
from __future__ import annotations

import argparse
import math
import sys

from ..cube import DEFAULT_MET
from ..cube.decision import EXACT_SOURCE
from ..cube.stats import CLOSE_Z, MIN_DECIDING_TRIALS
from ..engine import ENGINES
from ..game import PROBABILITY_KEYS
from ..rollouts import DEFAULT_POLICY, POLICIES
from ..rollouts.blocks import block_size_for, n_blocks
from ..rollouts.cubedecision import BIAS_NOTE, DEFAULT_GAMES, METHODS, cube_decision, cube_method
from ..rollouts.cubesettings import CubeDecisionSettings, CubeRolloutSettings
from ..rollouts.store import ResultsStore, describe_run

from .common import (_ENGINE_HELP, _games, games_played, _load_met, _number_arg, _policy_help,
                     _positive_int, _seed, _whole_arg, add_no_progress_option, plural, num,
                     print_json, report_run, stored_blocks)
from .state import (_STATE_OPTIONS, _add_state_options, _cube_state, _describe_state)
from .rollouts import (_VR_HELP, _WORKERS_HELP, _with_progress, add_dask_option, add_store_options,
                       check_dask_options, cluster_before_store, played_text, runner_of,
                       workers_text)


#: Games of a `fastbg cube --method janowski` unless --games says otherwise.
CUBE_GAMES = DEFAULT_GAMES["janowski"]
#: Trials of a cube rollout unless --games says.
CUBE_TRIALS = DEFAULT_GAMES["rollout"]

_CUBE_DESCRIPTION = (
    "The cube decision of the player on roll: No double, Double/take and Double/pass (money "
    "play: equity per unit of the current cube; match play: match winning chances from the "
    "match equity table), the proper action and how sure it is, in standard errors of the "
    "difference that decides it. By default (--method auto) a cube rollout: every trial is "
    "played as a cubeful game after No double and again after Double/take with the same "
    "dice, later cube decisions by Janowski's model on the network's probabilities; money "
    "play in a bear-off of at most 6 checkers a side (no beavers) is read exactly from the "
    "two-sided bear-off database instead. --method janowski rolls POSITION out cubelessly "
    "and values the three by Janowski's cubeful model (with EMG in match play); --method eval "
    "does the same on the evaluator's probabilities at --ply 0 to 3, no rollout (as GNU "
    "Backgammon's eval of a cube decision). "
    + BIAS_NOTE.replace("from a cubeless rollout", "from rollouts")
)

_CUBE_EPILOG = (
    "State: an XGID or a GNU Backgammon PositionID:MatchID pair carries cube, owner, score "
    "and rules; 'start' and a bare Position ID mean money play with a centred cube. Each "
    "option given replaces the corresponding field of POSITION's state (the state used is "
    "printed); --cube 1 alone also centres the cube, and switching between money and match "
    "play with --match-length drops the other kind's fields (score and Crawford, or Jacoby "
    "and beavers). The combined state must be possible, else one line names the problem "
    "and the status is 2; so is a --cube above the cube limit (an XGID's max cube field, "
    "else 1024), which only --max-cube raises. A POSITION with the dice already rolled is "
    "refused: the cube is turned before the roll. When the player on roll may not double "
    "(the opponent's cube, the Crawford game, a dead cube in a match, a cube at its limit) "
    "only No double is valued, and the output says why. A dead cube has x = 0 unless --x "
    "is given: a cube at its limit, or the last roll (a race in which the opponent bears "
    "off its last checkers with every roll on its next turn)."
)


def add_parsers(sub) -> None:
    """The ``cube`` command."""
    c = sub.add_parser(
        "cube", help="cube decision of a position by a cube rollout (money or match)",
        description=_CUBE_DESCRIPTION, epilog=_CUBE_EPILOG)
    # (optional only for --resume, whose run has its own)
    c.add_argument("position", metavar="POSITION", nargs="?", default=None,
                   help="'start', a Position ID, a GNU Backgammon PositionID:MatchID pair or "
                        "an XGID (cube and score are taken from the last two)")
    c.add_argument("--games", "-n", type=_games, default=None,
                   help=f"trials of the cube rollout (each played in both lines; default "
                        f"{CUBE_TRIALS:,}, about 20 s on 2 cores), or games of the cubeless "
                        f"rollout with --method janowski (default {CUBE_GAMES:,})")
    c.add_argument("--seed", type=_seed, default=None, help="root seed (default: fresh entropy, reported)")
    c.add_argument("--workers", "-w", type=_positive_int, default=None, help=_WORKERS_HELP)
    add_dask_option(c)
    c.add_argument("--policy", choices=POLICIES, default=DEFAULT_POLICY,
                   help="how both sides play in the cubeless rollout: " + _policy_help()
                        + "; the weaker the policy, the more biased the probabilities")
    c.add_argument("--engine", choices=ENGINES, default="cython",
                   help=_ENGINE_HELP)
    c.add_argument("--x", type=_number_arg, default=None, metavar="X",
                   help="cube efficiency in [0, 1] (0 dead cube, 1 fully live; default GNU "
                        "Backgammon's: 0.68 in contact, 0.6 in bear-offs, 0.6 to 0.7 by the "
                        "pip count of the player on roll in other races; 0 for a dead cube: "
                        "on the last roll and at the cube limit)")
    c.add_argument("--vr", action=argparse.BooleanOptionalAction, default=None,
                   help="with a cube rollout: " + _VR_HELP)
    c.add_argument("--quasi-random", action=argparse.BooleanOptionalAction, default=None,
                   help="with a cube rollout: quasi-random dice (default), each trial's first "
                        "two rolls stratified so that every 36 trials hold each first roll "
                        "once, the same in both lines; --no-quasi-random draws every roll")
    c.add_argument("--method", choices=METHODS, default="auto",
                   help="auto (default): exact from the two-sided bear-off database where it "
                        "applies (money play, 1 to 6 checkers a side, all home, no beavers), "
                        "else rollout; rollout: roll out No double and Double/take as cubeful "
                        "games with the same dice (--games trials, each played in both lines); "
                        "janowski: a cubeless rollout (plain Monte Carlo, its error model needs "
                        "the counts) and Janowski's model; exact: only the "
                        "database (an error elsewhere). On the database's positions rollout's "
                        "errors are 4-6x smaller than janowski's for the same time "
                        "(experiments/cube_methods.py); eval: the evaluator at --ply N and "
                        "Janowski's model, no rollout (no sampling error, the evaluator's bias)")
    c.add_argument("--ply", type=_whole_arg, choices=(0, 1, 2, 3), default=0,
                   help="with --method eval: the ply of the evaluation (GNU Backgammon's plies: "
                        "0 the evaluator alone, n the average over the 21 rolls of the (n-1)-ply "
                        "value after the best 0-ply play; default 0)")
    _add_state_options(c)
    add_store_options(c, "the cube rollout", "and extended later", "",
                      "cube rollout RUN from its first missing block (its own position and "
                      "settings; the numbers equal those of one uninterrupted run)")
    c.add_argument("--extend", type=_games, default=None, metavar="N",
                   help="with --resume: add N trials to the run (the same numbers as having "
                        "asked for the total at first)")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    add_no_progress_option(c, shows="progress bar")
    c.set_defaults(cube_parser=c)


#: A margin of a position whose trials cannot vary (every roll ends the game at once: no
#: standard error to count it in, and none needed).
_CERTAIN = "certain: the trials cannot vary"


def _z_parts(z: float, certain: bool = False, games: int | None = None,
             vr: bool = False) -> tuple[str, str]:
    """A margin in SE and the note on it (why there is no standard error to count it in;
    ``""`` if none), apart: :func:`_z_text` joins them."""
    if certain:
        return _CERTAIN, ""
    if z != z:
        if games is not None and games >= 2:
            # a tie without sampling error (0 / 0): no margin, as a tie has with any error
            return "0.0 SE", ""
        return "an unknown number of SE", "too few games for a standard error"
    if math.isinf(z):
        # a sampled standard error of 0: the trials did not vary, which a few games can do;
        # many that agree (a race the bear-off databases and variance reduction value
        # exactly) decide, as a finite margin beyond 1,000 SE does. With variance
        # reduction only the luck-adjusted values need agree: the games themselves differ
        # (the 3/36 race is won in 3 trials of 36)
        what = ("the trials' luck-adjusted values did not vary" if vr else
                "the trials did not vary")
        if games is not None and games >= MIN_DECIDING_TRIALS:
            return "more than 1,000 SE", what
        return "an unknown number of SE", f"{what}: play more games"
    if abs(z) >= 1000:
        return "more than 1,000 SE", ""
    return f"{z:.1f} SE", ""


def _z_text(z: float, certain: bool = False, games: int | None = None,
            vr: bool = False) -> str:
    return _with_note(*_z_parts(z, certain, games, vr))


def _with_note(text: str, note: str) -> str:
    """A margin and its note, as :func:`_z_text` words them: ``"text (note)"``."""
    return f"{text} ({note})" if note else text

def _proper_action(action: str, close: list, margins: str) -> str:
    """The decision line: the action, or only a leaning when a part is too close to call."""
    if close:
        return f"Proper action: too close to call, leaning {action}   ({margins})"
    return f"Proper action: {action}   ({margins})"


def _close_text(close: list, games: int, unit: str) -> str:
    """The line under an undecided action: why, and what narrows it."""
    if games < MIN_DECIDING_TRIALS:
        why = (f"{plural(games, unit)} {'decides' if games == 1 else 'decide'} nothing: at "
               f"least {MIN_DECIDING_TRIALS} are needed for a margin in SE to mean much")
    else:
        parts = " and ".join(f"the {p}" for p in close)
        why = f"{parts} {'is' if len(close) == 1 else 'are'} within {CLOSE_Z:g} SE"
    return f"  {why}; more {unit}s narrow it, and the bias below may be larger"


def _cmd_cube(args) -> int:
    if args.resume is not None:
        return _cmd_cube_resume(args)
    if args.extend is not None:
        raise ValueError("--extend is for a stored run: give --resume RUN too")
    if args.position is None:
        raise ValueError("give a POSITION ('start', a Position ID, a PositionID:MatchID pair "
                         "or an XGID), or --resume RUN")
    if args.ply and args.method != "eval":
        raise ValueError("--ply is for --method eval (the other methods roll out or read the "
                         "database)")
    pos, state = _cube_state(args)
    if args.method == "eval":
        return _cube_eval(pos, state, args)
    # (--method exact is checked below, in the command's words: which options it refuses)
    method = cube_method(pos, state, "auto" if args.method == "exact" else args.method)
    table = None if state.is_money else _load_met(args.met or DEFAULT_MET)
    unused = _rollout_options_given(args)
    if args.method == "exact":
        if unused:
            raise ValueError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not "
                             "apply to --method exact, which reads the two-sided bear-off "
                             "database (no rollout, no cube efficiency)")
        if method != "exact":
            raise ValueError("--method exact needs money play (no beavers, cube below its "
                             "limit) in a bear-off of 1 to 6 checkers a side, all home: the "
                             "two-sided bear-off database's positions")
    if method == "janowski" and (args.vr or args.quasi_random):
        raise ValueError("--vr and --quasi-random are for cube rollouts: --method janowski's "
                         "cubeless rollout is plain Monte Carlo (its error model reads the "
                         "outcome counts)")
    if args.store is not None and method == "exact":
        raise ValueError("--store keeps cube rollouts; --method exact reads the database: "
                         "nothing to keep")
    if args.store is not None and method != "rollout":
        # its cubeless rollout alone would be a plain rollout run: the store has no kind
        # that records the cube state and the model it is valued by, which a resume needs
        raise ValueError("--store keeps cube rollouts, not --method janowski: the store "
                         "would hold its cubeless rollout without the cube state and model "
                         "that value it, so `fastbg cube --resume` could not rebuild the "
                         "decision. Give --method rollout to keep a cube rollout, or drop "
                         "--store (the same --seed gives the same numbers again)")
    settings = cube_settings_of(args, state, table)
    if method == "exact":
        return _exact_bearoff(cube_decision(pos, settings=settings), args, unused)
    if args.games is None:
        args.games = DEFAULT_GAMES[method]      # the progress bar's total
    check_dask_options(args)
    with cluster_before_store(args, n_blocks(args.games, block_size_for(args.policy))) as run_on:
        store = None if args.store is None else ResultsStore(args.store or None)
        d = _with_progress(args, lambda **shown: cube_decision(
            pos, args.games, settings=settings,
            runner=runner_of(args, **shown).replace(store=store, **run_on)))
    return _report_cube(d, args, method, store)


def _cube_eval(pos, state, args) -> int:
    """``--method eval``: Janowski's model on the n-ply evaluation, no rollout."""
    unused = [o for o in _rollout_options_given(args) if o not in ("--engine", "--x")]
    if unused:
        raise ValueError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not "
                         "apply to --method eval, which evaluates the position at --ply N "
                         "(no rollout)")
    table = None if state.is_money else _load_met(args.met or DEFAULT_MET)
    d = cube_decision(pos, method="eval", ply=args.ply, state=state, met=table, x=args.x,
                      engine=args.engine)
    if args.json:
        print_json(d.to_dict(), indent=2)
    else:
        print(format_cube_eval(d))
    return 0


def _rows(state, can_double: bool):
    """The rows of a cube decision: key and name (Redouble wording for the player's own
    cube); No double alone when the player may not double."""
    dbl = "Redouble" if state.cube_owner == "player" else "Double"
    names = (("nd", f"No {dbl.lower()}"), ("dt", f"{dbl}, take"), ("dp", f"{dbl}, pass"))
    return names if can_double else names[:1]


def format_cube_eval(dec) -> str:
    """The text of ``--method eval`` (:func:`fastbg.rollouts.cubedecision.cube_decision`
    with ``method="eval"``): GNU Backgammon's layout of a cube decision (each value and its
    difference from the proper action's), money equity or MWC and EMG."""
    pos, state, d, ev = dec.position, dec.state, dec.decision, dec.probabilities
    label = {"win": "win", "win_gammon": "win gammon", "win_backgammon": "win backgammon",
             "lose_gammon": "lose gammon", "lose_backgammon": "lose backgammon"}
    lines = [f"Cube decision of {state.to_xgid(pos)} (Position ID {pos.to_position_id()})",
             _describe_state(state, dec.met),
             f"evaluation at {dec.ply} ply (GNU Backgammon's plies), {ev['evaluated_by']}, "
             f"engine {dec.engine}", ""]
    for key in PROBABILITY_KEYS:
        lines.append(f"  {label[key]:<18} {ev[key]:9.4f}")
    lines.append(f"  {'cubeless equity':<18} {ev['equity']:+9.4f}")
    if not state.is_money:
        lines.append(f"  {'cubeless MWC':<18} {d['cubeless_mwc']:9.4f}")
    lines.append("")
    rows = _rows(state, d["can_double"])
    x = f"x = {dec.x:.3g}, {dec.x_source}"
    if state.is_money:
        best = d["equity"]
        lines.append(f"Cubeful equity per unit of the current cube (Janowski, {x}):")
        for k, name in rows:
            diff = "" if d[k] == best else f"  ({d[k] - best:+.4f})"
            lines.append(f"  {name:<18} {d[k]:+9.4f}{diff}")
    else:
        best = d["mwc"]
        lines.append(f"Cubeful match winning chances (Janowski's model for match play, {x}) "
                     "and their money equivalents (EMG):")
        lines.append(f"  {'':<18} {'MWC':>9} {'EMG':>9}")
        for k, name in rows:
            diff = "" if d[k] == best else (f"  ({d[k] - best:+.4f} MWC, "
                                            f"{d[k + '_emg'] - max(d['nd_emg'], min(d['dt_emg'], d['dp_emg'])):+.4f} EMG)")
            lines.append(f"  {name:<18} {d[k]:9.4f} {d[k + '_emg']:+9.4f}{diff}")
    lines.append("")
    if not d["can_double"]:
        lines.append(f"No cube decision: {d['why_not']}.")
    else:
        tp = d["take_point"]
        lines.append(f"Proper action: {d['action']}")
        lines.append(f"  opponent's take point {tp:.1%} (dead cube {d['take_point_dead']:.1%}, "
                     f"live {d['take_point_live']:.1%}); the player's cash point {1 - tp:.1%}"
                     + (f"; W {d['W']:.3f}, L {d['L']:.3f}" if state.is_money else ""))
    lines.append("(Janowski's model on the evaluator's probabilities at this ply: no sampling "
                 "error, the evaluator's own error unmeasured; GNU Backgammon's deeper cube "
                 "evaluations average cubeful values over the rolls instead, docs/cube.md)")
    return "\n".join(lines)


def cube_settings_of(args, state, table=None) -> CubeDecisionSettings:
    """The one place where ``fastbg cube``'s options become the settings of
    :func:`~fastbg.rollouts.cubedecision.cube_decision`
    (:class:`~fastbg.rollouts.cubesettings.CubeDecisionSettings`; each option is named as its
    field): ``state`` made of POSITION and the cube options, ``table`` the match's table."""
    options = {name: getattr(args, name) for name in CubeDecisionSettings.fields()
               if name not in ("state", "met")}
    return CubeDecisionSettings(**options, state=state, met=table)


def _report_cube(d, args, method: str, store=None) -> int:
    """Print a rollout-based decision (text or ``--json``) and where it is stored."""
    text = (_format_cube_rollout if method == "rollout" else _format_cube)
    return report_run(d, args, store, lambda: text(d, args.workers), empty=d.decision is None,
                      run=d.result, command="cube")


#: Options of `fastbg cube` that a resumed cube rollout takes from its store.
_RUN_OPTIONS = ("position", "games", "seed", "policy", "x", "vr", "quasi_random", "method",
                *_STATE_OPTIONS)


def _cmd_cube_resume(args) -> int:
    """``fastbg cube --resume RUN [--extend N]``: the stored cube rollout's own settings."""
    defaults = vars(args.cube_parser.parse_args([]))
    given = [k for k in _RUN_OPTIONS if getattr(args, k) != defaults.get(k)]
    if given:
        opt = given[0].replace("_", "-")
        raise ValueError(f"{'POSITION' if opt == 'position' else '--' + opt} does not apply "
                         "with --resume: the run keeps its own settings (--extend N adds trials)")
    store = ResultsStore(args.store or None, create=False)
    run = store.run(args.resume)
    if run.kind != "cube":
        raise ValueError(f"run {run.id} is {describe_run(run)}; fastbg cube --resume continues "
                         "cube rollouts" + (f" (fastbg rollout --resume {run.id} continues it)"
                                            if run.kind in ("rollout", "cubeful") else ""))
    stored_blocks(store, run)          # a damaged block refused before anything is said
    args.games = run.games + (args.extend or 0)
    if run.status == "done" and not args.extend:
        print(f"run {run.id} is finished ({run.games_done:,} trials); --extend N adds trials",
              file=sys.stderr)
    st = CubeRolloutSettings.from_request(run.request)
    settings = CubeDecisionSettings(method="rollout", **{k: getattr(st, k) for k in st.fields()})
    d = _with_progress(args, lambda **shown: cube_decision(
        run.request["position"], args.games, settings=settings,
        runner=runner_of(args, **shown).replace(store=store, run_id=run.id)))
    return _report_cube(d, args, "rollout", store)


def _format_cube_rollout(d, workers_asked=None) -> str:
    """The text of ``--method rollout``: :func:`fastbg.rollouts.cuberollout.cube_rollout`."""
    res, pos, state = d.result, d.position, d.state
    close = d.too_close or []
    head = "INTERRUPTED: " if res.interrupted else ""
    unit = "equity per unit of the current cube" if state.is_money else "match winning chance"
    sign = "+" if state.is_money else ""
    redouble = state.cube_owner == "player"
    dbl = "Redouble" if redouble else "Double"
    lines = [f"{head}Cube decision of {state.to_xgid(pos)} (Position ID {res.position_id})",
             _describe_state(state, d.met),
             "cube rollout: "
             + games_played(res.games, res.settings["games"], res.interrupted, "trial") + ", "
             + (f"each played after No {dbl.lower()} and after {dbl}/take with the same dice"
                if res.why_not is None else f"of No {dbl.lower()} only (no double possible)")
             + f"; policy {d.policy}, later cube "
             f"decisions by Janowski's model; "
             + ("variance reduction (luck by the nn at 0 ply, valued at each line's cube); "
                if res.vr else "no variance reduction; ")
             + ("quasi-random dice; " if res.settings["dice"].startswith("quasi")
                else "pseudo-random dice; ")
             + f"{workers_text(res, workers_asked, 'trial')}, seed {res.seed}, "
               f"{res.seconds:.2f} s", "",
             f"{unit}:", f"  {'':<18} {'value':>9} {'std.err':>9}",
             f"  {'No ' + dbl.lower():<18} {res.nd:{sign}9.4f} {num(res.stderr['nd'], '9.4f')}"]
    if not math.isnan(res.dt):
        lines += [f"  {dbl + ', take':<18} {res.dt:{sign}9.4f} {num(res.stderr['dt'], '9.4f')}",
                  f"  {dbl + ', pass':<18} {res.dp:{sign}9.4f} {0.0:9.4f}",
                  f"  {'DT - ND':<18} {res.dt - res.nd:+9.4f} {num(res.stderr['dt_minus_nd'], '9.4f')}"
                  "   (paired: the same dice in both lines)", "",
                  _proper_action(res.action, close, _rollout_margins(res, d.valued_exactly))]
        if close:
            lines.append(_close_text(close, res.games, "trial"))
    else:
        lines += ["", f"No cube decision: {res.why_not}."]
    if res.certain:
        lines.append("(no bias either: every roll ends the game at once, whatever is played)")
    elif d.valued_exactly:
        lines.append("(no sampling error and no bias from the play: every trial's "
                     "luck-adjusted value was the same, the bear-off databases valuing every "
                     "position after the first roll exactly)")
    else:
        lines.append(("(" if res.vr else "(not variance-reduced; ")
                     + "biased by the policy's play and by the in-game cube decisions)")
    if res.stored_games:     # a resumed run: what it read from the store, as rollout's text
        lines += ["", played_text(res, "trial", rate=False)]
    return "\n".join(lines)


def _rollout_margins(res, exact: bool = False) -> str:
    """A cube rollout's two margins in SE, worded as its action chose (a margin without a
    standard error has no sign to go by); for trials that cannot vary, or valued exactly
    (``exact``: :attr:`fastbg.rollouts.cubedecision.CubeDecision.valued_exactly`), by how
    much."""
    if res.certain or exact:
        unit = "" if res.mode == "money" else " MWC"

        def by(diff: float) -> str:
            return "nothing (a tie)" if diff == 0 else f"{abs(diff):.4f}{unit}"
        double = "no double" if res.action.startswith(("No", "Too good")) else "double"
        take = "pass" if res.action.endswith("pass") else "take"
        takes = ("take and pass are worth the same" if res.dp == res.dt else
                 f"{take} by {by(res.dp - res.dt)}")
        return (f"{_CERTAIN if res.certain else 'exact'}; "
                f"{double} by {by(min(res.dt, res.dp) - res.nd)}, {takes}")
    if math.isnan(res.z["double"]) and math.isnan(res.z["take"]):
        return f"no standard error from {plural(res.games, 'trial')}"
    double = "no double" if res.action.startswith(("No", "Too good")) else "double"
    take = "pass" if res.action.endswith("pass") else "take"
    d, d_note = _z_parts(abs(res.z["double"]), games=res.games, vr=res.vr)
    t, t_note = _z_parts(abs(res.z["take"]), games=res.games, vr=res.vr)
    if d_note and d_note == t_note:
        # said once for both: "(the trials' luck-adjusted values did not vary)" came twice
        return f"{double} by {d}, {take} by {t}; {d_note}"
    return f"{double} by {_with_note(d, d_note)}, {take} by {_with_note(t, t_note)}"


def _rollout_options_given(args) -> list[str]:
    """The rollout options given on the command line (for a note when they go unused)."""
    return [opt for opt, given in (
        ("--games", args.games is not None), ("--seed", args.seed is not None),
        ("--workers", args.workers is not None), ("--dask", args.dask is not None),
        ("--policy", args.policy != DEFAULT_POLICY),
        ("--engine", args.engine != "cython"), ("--x", args.x is not None),
        ("--vr", args.vr is not None), ("--quasi-random", args.quasi_random is not None),
        ("--store", args.store is not None))
        if given]


def _exact_bearoff(d, args, unused=()) -> int:
    """Money play in the two-sided bear-off database: the exact decision, no rollout;
    ``unused``: the rollout options given, which it does not use."""
    if args.json:
        print_json({**d.to_dict(), "unused_options": list(unused)}, indent=2)
        return 0
    pos, state, v = d.position, d.state, d.decision
    nd, can = v["nd"], v["can_double"]
    win = d.win
    dbl = "Redouble" if state.cube_owner == "player" else "Double"
    lines = [f"Cube decision of {state.to_xgid(pos)} (Position ID {pos.to_position_id()})",
             _describe_state(state), EXACT_SOURCE, "",
             f"  {'win':<18} {win:9.4f}",
             f"  {'cubeless equity':<18} {2 * win - 1:+9.4f}", "",
             "Cubeful equity per unit of the current cube:",
             f"  {'No ' + dbl.lower():<18} {nd:+9.4f}"]
    if can:
        tie = "; take and pass are worth the same" if v["dt"] == 1.0 else ""
        lines += [f"  {dbl + ', take':<18} {v['dt']:+9.4f}", f"  {dbl + ', pass':<18} {1.0:+9.4f}",
                  "", f"Proper action: {v['action']}   (exact{tie})"]
    else:
        lines += ["", f"No cube decision: {v['why_not']}."]
    if unused:
        lines.append(f"(no rollout: {', '.join(unused)} unused; --method rollout rolls the "
                     "position out anyway)")
    print("\n".join(lines))
    return 0


def _format_cube(dec, workers_asked=None) -> str:
    """The text of ``--method janowski``; ``workers_asked``: the command's ``--workers``
    (:func:`~fastbg.cli.rollouts.workers_text`)."""
    res, pos, state, table, d = dec.result, dec.position, dec.state, dec.met, dec.decision
    x, x_source = dec.x, dec.x_source
    label = {"win": "win", "win_gammon": "win gammon", "win_backgammon": "win backgammon",
             "lose_gammon": "lose gammon", "lose_backgammon": "lose backgammon"}
    head = "INTERRUPTED: " if res.interrupted else ""
    lines = [f"{head}Cube decision of {state.to_xgid(pos)} (Position ID {res.position_id})",
             f"{_describe_state(state, table)}",
             "cubeless rollout: "
             + games_played(res.games, res.games_requested, res.interrupted)
             + f", policy {res.policy} for both sides, engine {res.engine}, "
               f"{workers_text(res, workers_asked)}, seed {res.seed}, {res.seconds:.2f} s",
             f"(biased by {res.policy}'s play and by Janowski's model of the cube: the "
             "standard errors cover only the dice)",
             "",
             f"  {'':<18} {'estimate':>9} {'std.err':>9}"]
    for key in PROBABILITY_KEYS:
        lines.append(f"  {label[key]:<18} {getattr(res, key):9.4f} {num(res.stderr[key], '9.4f')}")
    lines.append(f"  {'cubeless equity':<18} {res.equity:+9.4f} {num(res.stderr['equity'], '9.4f')}")
    se = d["stderr"]
    if not state.is_money:
        lines.append(f"  {'cubeless MWC':<18} {d['cubeless_mwc']:9.4f} {num(se['cubeless_mwc'], '9.4f')}")
    lines.append("")
    redouble = state.cube_owner == "player"
    dbl = "Redouble" if redouble else "Double"
    names = (("nd", f"No {dbl.lower()}"), ("dt", f"{dbl}, take"), ("dp", f"{dbl}, pass"))
    rows = names if d["can_double"] else names[:1]
    if state.is_money:
        lines.append(f"Cubeful equity per unit of the current cube (Janowski, x = {x:.3g}, "
                     f"{x_source}):")
        lines.append(f"  {'':<18} {'equity':>9} {'std.err':>9}")
        for k, name in rows:
            lines.append(f"  {name:<18} {d[k]:+9.4f} {num(se[k], '9.4f')}")
    else:
        lines.append(f"Cubeful match winning chances (Janowski's model for match play, "
                     f"x = {x:.3g}, {x_source}) and their money equivalents:")
        lines.append(f"  {'':<18} {'MWC':>9} {'std.err':>9} {'EMG':>9} {'std.err':>9}")
        for k, name in rows:
            lines.append(f"  {name:<18} {d[k]:9.4f} {num(se[k], '9.4f')} {d[k + '_emg']:+9.4f} "
                         f"{num(se[k + '_emg'], '9.4f')}")
    lines.append("")
    if not d["can_double"]:
        lines.append(f"No cube decision: {d['why_not']}.")
        return "\n".join(lines)
    m = d["margins"]
    unit = "" if state.is_money else " MWC"
    close = d["too_close"]
    certain = d.get("certain", False)
    lines.append(_proper_action(d["action"], close, _CERTAIN if certain else
                                f"{'only ' if close else ''}sure to "
                                f"{_z_text(d['z'], games=res.games, vr=res.vr)}"))
    for part in ("double", "take"):
        mm = m[part]
        choice, over = mm["choice"], mm["over"]
        if redouble:
            choice, over = (s.replace("double", "redouble") for s in (choice, over))
        lines.append(f"  {choice} rather than {over}: by {mm['difference']:.4f}{unit}"
                     + (" (a tie)" if certain and mm["difference"] == 0 else "") + ", "
                     + (_CERTAIN if certain else f"{_z_text(mm['z'], games=res.games, vr=res.vr)} (std.err of the "
                                                 f"difference {num(mm['stderr'], '.4f')})"))
    if close:
        lines.append(_close_text(close, res.games, "game").replace("the bias below", "the bias"))
    tp = d["take_point"]
    lines.append(f"  opponent's take point {tp:.1%} (dead cube {d['take_point_dead']:.1%}, "
                 f"live {d['take_point_live']:.1%}); the player's cash point {1 - tp:.1%}"
                 + (f"; W {d['W']:.3f}, L {d['L']:.3f}" if state.is_money else ""))
    return "\n".join(lines)


COMMANDS = {"cube": _cmd_cube}

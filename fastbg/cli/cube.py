"""``fastbg cube``: a cube decision from a rollout, money or match, with standard errors."""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from ..cube import (ACTIONS, DEFAULT_MET, LAST_ROLL_CUBE_EFFICIENCY, cubeful_equity, cubeful_mwc,
                    default_cube_efficiency, gammon_values, match_cube_decision,
                    is_last_roll, money_cube_decision,
                    probability_covariance)
from ..cube.money import cube_action
from ..engine import ENGINES, get_engine
from ..game import PROBABILITY_KEYS
from ..rollouts import DEFAULT_POLICY, POLICIES
from ..rollouts.cuberollout import cube_rollout, decided_by_first_roll

from .common import (_ENGINE_HELP, EXIT_INTERRUPTED, _games, games_played, _load_met, _number_arg, _policy_help,
                     _positive_int, _seed, _table_name, add_no_progress_option, plural, num,
                     print_json)
from .state import (_add_state_options, _cube_state, _describe_state)
from .rollouts import _VR_HELP, _WORKERS_HELP, _run_rollout, _with_progress, add_dask_option, workers_text


#: Games of a `fastbg cube` rollout unless --games says otherwise: about ten seconds on
#: two cores with the network, standard errors of about 0.0035 on the win probability.
CUBE_GAMES = 20_000
#: Trials of a cube rollout unless --games says: 4 x 1,296 (variance-reduced, each trial
#: played in both lines; about 20 s on 2 cores from the start).
CUBE_TRIALS = 5_184

#: The ways of ``fastbg cube`` to value a position (``--method``).
METHODS = ("auto", "exact", "janowski", "rollout")
#: A decision within this many standard errors of the difference is too close to call.
CLOSE_Z = 2.0
#: Fewer trials (games) than this decide nothing, whatever their margins: the margin in
#: standard errors of a few trials is no 95% call (Student's t with n - 1 degrees of freedom
#: needs 12.7 at 2 trials, 2.03 at 36, against CLOSE_Z = 2), and a standard error of 0 from
#: a few trials that agree says nothing. 36 trials also hold each first roll once with
#: quasi-random dice.
MIN_DECIDING_TRIALS = 36

#: Step of the numerical derivatives of the match-play equities (see _gradient).
_STEP = 1e-6

_BIAS_NOTE = (
    "The probabilities come from a cubeless rollout in which one policy plays both sides. "
    "The policy (the network, nn, by default) plays far from perfectly, so the probabilities, and "
    "the decision, carry its bias; the standard errors measure only the luck of the dice."
)

_CUBE_DESCRIPTION = (
    "The cube decision of the player on roll: No double, Double/take and Double/pass (money "
    "play: equity per unit of the current cube; match play: match winning chances from the "
    "match equity table), the proper action and how sure it is, in standard errors of the "
    "difference that decides it. By default (--method auto) a cube rollout: every trial is "
    "played as a cubeful game after No double and again after Double/take with the same "
    "dice, later cube decisions by Janowski's model on the network's probabilities; money "
    "play in a bear-off of at most 6 checkers a side (no beavers) is read exactly from the "
    "two-sided bear-off database instead. --method janowski rolls POSITION out cubelessly "
    "and values the three by Janowski's cubeful model (with EMG in match play). "
    + _BIAS_NOTE.replace("from a cubeless rollout", "from rollouts")
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
    c.add_argument("position", metavar="POSITION",
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
                        "(experiments/cube_methods.py)")
    _add_state_options(c)
    c.add_argument("--json", action="store_true", help="machine-readable output")
    add_no_progress_option(c, shows="progress bar")


def _efficiency(pos, x, state=None) -> tuple[float, str]:
    """Cube efficiency and how it was chosen: given, 0 for a dead cube (the last roll, see
    :func:`fastbg.cube.is_last_roll`, or a cube at its limit, which nobody may turn
    again), else GNU Backgammon's default for the position's class."""
    if x is not None:
        return x, "given"
    if state is not None and state.cube >= state.max_cube:
        return 0.0, f"cube at its limit ({state.max_cube}): dead cube"
    if not pos.is_race:
        kind = "contact"
    elif is_last_roll(pos):
        return LAST_ROLL_CUBE_EFFICIENCY, "last roll: dead cube"
    elif not pos.board[:, 6:].any():
        kind = "bear-off"
    else:
        kind = f"race, {pos.pip_counts[0]} pips"
    return default_cube_efficiency(pos), f"GNU Backgammon's default for {kind}"


def _gradient(f, q) -> np.ndarray:
    """Numerical gradient of ``f`` at the five probabilities ``q``.

    Central differences with step :data:`_STEP`; one-sided where a step would leave the
    valid probabilities (``f`` raises ValueError there), zero where neither side is valid
    (then the probability has no sampling variance in that direction either).
    """
    q = np.asarray(q, dtype=np.float64)
    f0 = f(q)
    g = np.zeros(5)
    for i in range(5):
        vals = {}
        for sign in (1, -1):
            v = q.copy()
            v[i] += sign * _STEP
            try:
                vals[sign] = f(v)
            except ValueError:
                pass
        if len(vals) == 2:
            g[i] = (vals[1] - vals[-1]) / (2 * _STEP)
        elif 1 in vals:
            g[i] = (vals[1] - f0) / _STEP
        elif -1 in vals:
            g[i] = (f0 - vals[-1]) / _STEP
    return g


def _se(g, cov) -> float:
    var = float(g @ cov @ g)
    if var != var:
        return float("nan")
    return math.sqrt(var) if var > 0 else 0.0


def _margin(better: str, worse: str, diff: float, se: float) -> dict:
    """How far the better of two alternatives is ahead, in standard errors of the difference."""
    if se != se:
        z = float("nan")
    elif se > 0:
        z = diff / se
    else:
        z = math.inf if diff > 0 else 0.0
    return {"choice": better, "over": worse, "difference": diff, "stderr": se, "z": z}


def _margins(nd, dt, dp, se_nd, se_dt, se_dt_minus_nd) -> dict:
    """The taker's choice (take if Double/take is worse for the doubler than Double/pass)
    and the doubler's (double if the double, answered that way, is worth at least No
    double), with the standard errors of the differences. Double/pass has no sampling
    error, so se(dp - dt) = se(dt) and se(dp - nd) = se(nd)."""
    take = (_margin("take", "pass", dp - dt, se_dt) if dt < dp
            else _margin("pass", "take", dt - dp, se_dt))
    doubled = min(dt, dp)
    se_diff = se_dt_minus_nd if dt < dp else se_nd
    double = (_margin("double", "no double", doubled - nd, se_diff) if nd <= doubled
              else _margin("no double", "double", nd - doubled, se_diff))
    return {"double": double, "take": take}


def _money_decision(q, cov, state, x) -> dict:
    if not state.may_double:
        def f(v):
            return cubeful_equity(v, x=x, cube_owner=state.cube_owner, jacoby=state.jacoby)

        W, L = gammon_values(q)
        nd = f(q)
        nan = float("nan")
        action = ACTIONS[0]
        if state.cube_owner == "player":
            action = action.replace("double", "redouble")
        return {"action": action, "can_double": False,
                "why_not": state.why_not_double, "nd": nd, "dt": nan, "dp": nan,
                "stderr": {"nd": _se(_gradient(f, q), cov), "dt": nan, "dp": nan},
                "equity": nd, "take_point": nan, "cash_point": nan, "take_point_dead": nan,
                "take_point_live": nan, "W": W, "L": L, "margins": None, "z": nan}
    d = money_cube_decision(q, x=x, cube_owner=state.cube_owner, jacoby=state.jacoby,
                            beaver=state.beaver, covariance=cov)
    se = d.stderr
    margins = _margins(d.nd, d.dt, d.dp, se["nd"], se["dt"], se["dt_minus_nd"])
    return {"action": d.action, "can_double": True, "why_not": None,
            "nd": d.nd, "dt": d.dt, "dp": d.dp,
            "stderr": {"nd": se["nd"], "dt": se["dt"], "dp": se["dp"]},
            "equity": d.equity, "take_point": d.take_point, "cash_point": d.cash_point,
            "take_point_dead": d.take_point_dead, "take_point_live": d.take_point_live,
            "W": d.W, "L": d.L, "margins": margins,
            "z": min(margins["double"]["z"], margins["take"]["z"])}


def _match_decision(q, cov, state, x, table) -> dict:
    a, b = state.away
    c, owner = state.cube, state.cube_owner
    d = match_cube_decision(q, state.match_length, state.score, cube=c, owner=owner,
                            crawford=state.crawford, met=table, x=x)

    def f_nd(v):
        return cubeful_mwc(v, a, b, cube=c, owner=owner, crawford=state.crawford, met=table, x=x)

    def f_dt(v):
        return cubeful_mwc(v, a, b, cube=2 * c, owner="opponent", met=table, x=x)

    def f_cubeless(v):
        return table.cubeless_mwc(v, a, b, c)

    g_nd = _gradient(f_nd, q)
    r = table.result_mwc(a, b, c)
    to_emg = 2.0 / (r[0] - r[3])  # EMG is linear in MWC: 2 (MWC - lose) / (win - lose) - 1
    nan = float("nan")
    se = {"nd": _se(g_nd, cov), "dt": nan, "dp": nan,
          "cubeless_mwc": _se(_gradient(f_cubeless, q), cov)}
    margins, z = None, nan
    # MatchState.may_double is matchcube's rule (no Crawford game, not the opponent's cube,
    # not a dead cube) plus the cube limit, which the match equity model does not know.
    can_double = state.may_double
    if can_double:
        g_dt = _gradient(f_dt, q)
        se.update(dt=_se(g_dt, cov), dp=0.0)
        margins = _margins(d.nd, d.dt, d.dp, se["nd"], se["dt"], _se(g_dt - g_nd, cov))
        z = min(margins["double"]["z"], margins["take"]["z"])
        values = {k: getattr(d, k) for k in ("action", "dt", "dp", "dt_emg", "dp_emg", "best",
                                             "take_point", "cash_point", "take_point_dead",
                                             "take_point_live")}
    else:
        action = ACTIONS[0].replace("double", "redouble") if owner == "player" else ACTIONS[0]
        values = {"action": action, "dt": nan, "dp": nan, "dt_emg": nan, "dp_emg": nan,
                  "best": d.nd, "take_point": nan, "cash_point": nan, "take_point_dead": nan,
                  "take_point_live": nan}
    for k in ("nd", "dt", "dp"):
        se[f"{k}_emg"] = se[k] * to_emg
    out = {"action": values["action"], "can_double": can_double,
           "why_not": state.why_not_double, "nd": d.nd, "dt": values["dt"], "dp": values["dp"],
           "nd_emg": d.nd_emg, "dt_emg": values["dt_emg"], "dp_emg": values["dp_emg"],
           "stderr": se, "mwc": values["best"], "cubeless_mwc": d.cubeless_mwc,
           "take_point": values["take_point"], "cash_point": values["cash_point"],
           "take_point_dead": values["take_point_dead"],
           "take_point_live": values["take_point_live"],
           "margins": margins, "z": z}
    for m in (margins or {}).values():  # the same margins in EMG, for readers of equities
        m["difference_emg"] = m["difference"] * to_emg
        m["stderr_emg"] = m["stderr"] * to_emg
    return out


def _decide(q, cov, state, x, table) -> dict:
    q = np.asarray(q, dtype=np.float64)
    if state.is_money:
        return _money_decision(q, cov, state, x)
    return _match_decision(q, cov, state, x, table)


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

def _too_close(z_double: float, z_take: float, games: int, certain: bool = False) -> list[str]:
    """The parts of a cube decision (``"double"``, ``"take"``) that ``games`` trials do not
    decide: margins within :data:`CLOSE_Z` standard errors or unknown (NaN: too few games
    for a standard error), or every part with fewer than :data:`MIN_DECIDING_TRIALS`
    trials. An infinite margin (no sampling error at all) decides, and so does any margin,
    a tie too, of a position whose trials cannot vary (``certain``)."""
    if certain:
        return []
    return [part for part, z in (("double", z_double), ("take", z_take))
            if games < MIN_DECIDING_TRIALS or not abs(z) >= CLOSE_Z]


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


_STDERR_METHOD = {
    "money": "delta method with the exact gradient of Janowski's formulas "
             "(fastbg.cube.money_cube_decision) and the rollout's covariance of the five "
             "probabilities",
    "match": "delta method with a numerical gradient (central differences, step 1e-6, "
             "one-sided at the edges of the valid probabilities) and the rollout's "
             "covariance of the five probabilities; EMG errors scaled from MWC errors",
}


def _cmd_cube(args) -> int:
    pos, state = _cube_state(args)
    pos.check_playable()   # before any game: over, or nobody can ever move
    table = None if state.is_money else _load_met(args.met or DEFAULT_MET)
    x, x_source = _efficiency(pos, args.x, state)
    # Check every option with the library's own errors before spending the rollout.
    _decide((0.5, 0.15, 0.01, 0.15, 0.01), np.eye(5) * 1e-6, state, x, table)

    if args.method == "exact":
        unused = _rollout_options_given(args)
        if unused:
            raise ValueError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not "
                             "apply to --method exact, which reads the two-sided bear-off "
                             "database (no rollout, no cube efficiency)")
    if args.method in ("auto", "exact"):
        exact = _two_sided(pos) if state.is_money and not state.beaver \
            and state.cube < state.max_cube else None
        if exact is not None:
            return _exact_bearoff(pos, state, exact, args, _rollout_options_given(args))
        if args.method == "exact":
            raise ValueError("--method exact needs money play (no beavers, cube below its "
                             "limit) in a bear-off of 1 to 6 checkers a side, all home: the "
                             "two-sided bear-off database's positions")
    if args.method in ("auto", "rollout"):
        if args.games is None:
            args.games = CUBE_TRIALS
        return _cube_by_rollout(pos, state, table, args)
    if args.games is None:
        args.games = CUBE_GAMES
    if args.vr or args.quasi_random:
        raise ValueError("--vr and --quasi-random are for cube rollouts: --method janowski's "
                         "cubeless rollout is plain Monte Carlo (its error model reads the "
                         "outcome counts)")
    # plain Monte Carlo: the covariance of the probabilities below is that of the counts
    res = _run_rollout(pos, args, opening=False, vr=False)
    if res.games == 0:
        print("interrupted before any game finished; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    q = [getattr(res, k) for k in PROBABILITY_KEYS]
    cov = probability_covariance(res.counts)
    d = _decide(q, cov, state, x, table)
    # (the cubeless rollout's counts, and so the probabilities, cannot vary either)
    d["certain"] = decided_by_first_roll(pos.board, args.engine)
    d["too_close"] = (None if not d["can_double"] else
                      _too_close(d["margins"]["double"]["z"], d["margins"]["take"]["z"],
                                 res.games, d["certain"]))
    mode = "money" if state.is_money else "match"
    if args.json:
        out = res.to_dict()
        out.update(
            mode=mode, method="janowski",
            xgid=state.to_xgid(pos),
            state=_state_json(state),
            x=x, x_source=x_source,
            met=None if table is None else (table.name or table.source),
            unit="equity per unit of the current cube" if state.is_money
                 else "match winning chance (EMG: equity per unit of the current cube)",
            decision=d, stderr_method=_STDERR_METHOD[mode], note=_BIAS_NOTE,
        )
        print_json(out, indent=2)
    else:
        print(_format_cube(res, pos, state, table, x, x_source, d, args.workers))
    return EXIT_INTERRUPTED if res.interrupted else 0


def _cube_by_rollout(pos, state, table, args) -> int:
    """``--method rollout``: :func:`fastbg.rollouts.cuberollout.cube_rollout`."""
    res = _with_progress(args, lambda **shown: cube_rollout(
        pos, args.games, seed=args.seed, workers=args.workers, policy=args.policy,
        engine=args.engine, state=state, x=args.x, met=table, vr=args.vr,
        quasi_random=args.quasi_random is not False, dask=args.dask, **shown))
    if res.games == 0:
        print("interrupted before any game finished; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    exact = _valued_exactly(res, pos)      # decides as the trials that cannot vary do
    close = [] if res.why_not is not None else _too_close(res.z["double"], res.z["take"],
                                                          res.games, res.certain or exact)
    if args.json:
        out = res.to_dict()
        out["decision"]["too_close"] = None if res.why_not is not None else close
        out.update(xgid=state.to_xgid(pos), policy=args.policy, engine=args.engine, x=args.x,
                   met=None if table is None else _table_name(table),
                   counts=[[[int(v) for v in row] for row in line] for line in res.counts],
                   state=_state_json(state),
                   unit="equity per unit of the current cube" if state.is_money
                   else "match winning chance")
        print_json(out, indent=2)
        return EXIT_INTERRUPTED if res.interrupted else 0
    head = "INTERRUPTED: " if res.interrupted else ""
    unit = "equity per unit of the current cube" if state.is_money else "match winning chance"
    sign = "+" if state.is_money else ""
    redouble = state.cube_owner == "player"
    dbl = "Redouble" if redouble else "Double"
    lines = [f"{head}Cube decision of {state.to_xgid(pos)} (Position ID {res.position_id})",
             _describe_state(state, table),
             "cube rollout: "
             + games_played(res.games, res.settings["games"], res.interrupted, "trial") + ", "
             + (f"each played after No {dbl.lower()} and after {dbl}/take with the same dice"
                if res.why_not is None else f"of No {dbl.lower()} only (no double possible)")
             + f"; policy {args.policy}, later cube "
             f"decisions by Janowski's model; "
             + ("variance reduction (luck by the nn at 0 ply, valued at each line's cube); "
                if res.vr else "no variance reduction; ")
             + ("quasi-random dice; " if res.settings["dice"].startswith("quasi")
                else "pseudo-random dice; ")
             + f"{workers_text(res, args.workers, 'trial')}, seed {res.seed}, "
               f"{res.seconds:.2f} s", "",
             f"{unit}:", f"  {'':<18} {'value':>9} {'std.err':>9}",
             f"  {'No ' + dbl.lower():<18} {res.nd:{sign}9.4f} {num(res.stderr['nd'], '9.4f')}"]
    if not math.isnan(res.dt):
        lines += [f"  {dbl + ', take':<18} {res.dt:{sign}9.4f} {num(res.stderr['dt'], '9.4f')}",
                  f"  {dbl + ', pass':<18} {res.dp:{sign}9.4f} {0.0:9.4f}",
                  f"  {'DT - ND':<18} {res.dt - res.nd:+9.4f} {num(res.stderr['dt_minus_nd'], '9.4f')}"
                  "   (paired: the same dice in both lines)", "",
                  _proper_action(res.action, close, _rollout_margins(res, exact))]
        if close:
            lines.append(_close_text(close, res.games, "trial"))
    else:
        lines += ["", f"No cube decision: {res.why_not}."]
    if res.certain:
        lines.append("(no bias either: every roll ends the game at once, whatever is played)")
    elif exact:
        lines.append("(no sampling error and no bias from the play: every trial's "
                     "luck-adjusted value was the same, the bear-off databases valuing every "
                     "position after the first roll exactly)")
    else:
        lines.append(("(" if res.vr else "(not variance-reduced; ")
                     + "biased by the policy's play and by the in-game cube decisions)")
    print("\n".join(lines))
    return EXIT_INTERRUPTED if res.interrupted else 0


def _valued_exactly(res, pos) -> bool:
    """Whether a cube rollout of the race ``pos`` valued both lines exactly: with variance
    reduction, many trials (:data:`MIN_DECIDING_TRIALS`) whose luck-adjusted values were
    all the same. The luck is valued by the evaluator, so that happens only where its
    values are exact along every game (the bear-off databases, from the first roll on)
    and the play and the cube decisions lose nothing by them: the policy's play and the
    in-game cube decisions then bias nothing either (the 3/36 race, new-user trial)."""
    return (res.vr and pos.is_race and res.games >= MIN_DECIDING_TRIALS
            and res.why_not is None
            and res.stderr["nd"] == 0 and res.stderr["dt"] == 0)


def _rollout_margins(res, exact: bool = False) -> str:
    """A cube rollout's two margins in SE, worded as its action chose (a margin without a
    standard error has no sign to go by); for trials that cannot vary, or valued exactly
    (``exact``: :func:`_valued_exactly`), by how much."""
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


def _state_json(state) -> dict:
    """The cube and match state of every ``fastbg cube --json``."""
    return {"match_length": state.match_length, "score": list(state.score),
            "away": list(state.away) if state.away else None, "cube": state.cube,
            "cube_owner": state.cube_owner, "crawford": state.crawford,
            "post_crawford": state.post_crawford, "jacoby": state.jacoby,
            "beaver": state.beaver, "holland": state.holland,
            "rolls_played": state.rolls_played}


def _two_sided(pos):
    """The two-sided database's values of ``pos`` (``bearoffdb.two_sided``), or None when
    it is not in the database or the compiled core is not built."""
    try:   # the rest of the command runs without the compiled core (--engine python)
        bearoffdb = get_engine("cython").bearoffdb
    except ImportError:
        return None
    if not bearoffdb.is_two_sided(pos.board):
        return None
    return bearoffdb.two_sided(pos.board[0, :6], pos.board[1, :6])


def _rollout_options_given(args) -> list[str]:
    """The rollout options given on the command line (for a note when they go unused)."""
    return [opt for opt, given in (
        ("--games", args.games is not None), ("--seed", args.seed is not None),
        ("--workers", args.workers is not None), ("--dask", args.dask is not None),
        ("--policy", args.policy != DEFAULT_POLICY),
        ("--engine", args.engine != "cython"), ("--x", args.x is not None),
        ("--vr", args.vr is not None), ("--quasi-random", args.quasi_random is not None))
        if given]


def _exact_bearoff(pos, state, v, args, unused=()) -> int:
    """Money play in the two-sided bear-off database: the exact decision, no rollout."""
    owner = state.cube_owner
    can = owner != "opponent"
    nd = v["nd_centred"] if owner == "centred" else v["nd_owned"] if owner == "player" \
        else v["opponent"]
    d = {"nd": nd, "can_double": can}
    if can:
        d.update(dt=v["dt"], dp=1.0,
                 action=cube_action(nd, v["dt"], 1.0, redouble=owner == "player"))
    else:
        d["why_not"] = "the opponent owns the cube"
    source = ("exact: the two-sided bear-off database (perfect checker and cube play, "
              "unlimited redoubles, no gammons possible)")
    if args.json:
        print_json({"position_id": pos.to_position_id(), "xgid": state.to_xgid(pos),
                    "mode": "money", "method": "exact", "exact": True, "source": source,
                    "win": v["win"],
                    "cubeless_equity": 2 * v["win"] - 1, "state": _state_json(state),
                    "unit": "equity per unit of the current cube", "decision": d,
                    "unused_options": list(unused)}, indent=2)
        return 0
    redouble = owner == "player"
    dbl = "Redouble" if redouble else "Double"
    lines = [f"Cube decision of {state.to_xgid(pos)} (Position ID {pos.to_position_id()})",
             _describe_state(state), source, "",
             f"  {'win':<18} {v['win']:9.4f}",
             f"  {'cubeless equity':<18} {2 * v['win'] - 1:+9.4f}", "",
             "Cubeful equity per unit of the current cube:",
             f"  {'No ' + dbl.lower():<18} {nd:+9.4f}"]
    if can:
        tie = "; take and pass are worth the same" if v["dt"] == 1.0 else ""
        lines += [f"  {dbl + ', take':<18} {v['dt']:+9.4f}", f"  {dbl + ', pass':<18} {1.0:+9.4f}",
                  "", f"Proper action: {d['action']}   (exact{tie})"]
    else:
        lines += ["", f"No cube decision: {d['why_not']}."]
    if unused:
        lines.append(f"(no rollout: {', '.join(unused)} unused; --method rollout rolls the "
                     "position out anyway)")
    print("\n".join(lines))
    return 0


def _format_cube(res, pos, state, table, x, x_source, d, workers_asked=None) -> str:
    """The text of ``--method janowski``; ``workers_asked``: the command's ``--workers``
    (:func:`~fastbg.cli.rollouts.workers_text`)."""
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

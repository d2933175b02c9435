"""Rollout API: reproducibility, engine agreement, interruption, bad input."""
from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from fastbg import Position, rollout
from fastbg.engine import get_engine
from fastbg.rollouts.blocks import abandoned, block_sizes, run_blocks
from fastbg.game import PROBABILITY_KEYS, START_BOARD
from fastbg.rollouts import outcome_statistics


MIDGAME = "4HPMwQCMz+AIIQ"


def _need_cython():
    pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")


@pytest.mark.parametrize("policy", ["pubeval", "random"])
def test_same_seed_same_numbers_for_any_worker_count(policy):
    _need_cython()
    runs = [rollout(MIDGAME, 5_500, seed=42, workers=w, policy=policy) for w in (1, 2, 3)]
    for r in runs[1:]:
        assert np.array_equal(r.counts, runs[0].counts)
        assert r.win == runs[0].win and r.equity == runs[0].equity
    assert runs[0].games == 5_500 and int(runs[0].counts.sum()) == 5_500
    other = rollout(MIDGAME, 5_500, seed=43, workers=2, policy=policy)
    assert not np.array_equal(other.counts, runs[0].counts)


@pytest.mark.parametrize("policy", ["pubeval", "random"])
@pytest.mark.parametrize("position, dice, opening", [
    ("start", None, True),
    ("start", (3, 1), False),
    (MIDGAME, None, False),
    ("4HPwATDgc/ABMA", (6, 6), False),
])
def test_engines_give_equal_counts_for_the_same_seed(policy, position, dice, opening):
    _need_cython()
    board = Position.parse(position).board
    kw = dict(policy=policy, dice=dice, opening=opening, block_size=40)
    py = run_blocks(board, 120, 7, engine="python", **kw)
    cy = run_blocks(board, 120, 7, engine="cython", workers=2, **kw)
    assert py.games == cy.games == 120
    assert np.array_equal(py.counts, cy.counts), (py.counts, cy.counts)


def test_rollout_api_python_equals_cython():
    _need_cython()
    a = rollout("start", 150, seed=3, engine="python", workers=1, policy="pubeval")
    b = rollout("start", 150, seed=3, engine="cython", workers=2, policy="pubeval")
    assert np.array_equal(a.counts, b.counts)
    assert a.opening and b.opening


def test_result_fields_and_json_keys():
    res = rollout(MIDGAME, 60, seed=11, engine="python", workers=1, policy="pubeval")
    d = res.to_dict()
    for k in (*PROBABILITY_KEYS, "equity", "games", "seed", "engine", "policy", "seconds",
              "games_per_second", "stderr"):
        assert k in d
    assert set(d["stderr"]) == {*PROBABILITY_KEYS, "equity"}
    assert d["seed"] == 11 and d["games"] == 60 and d["engine"] == "python"
    assert 0 <= res.win_backgammon <= res.win_gammon <= res.win <= 1
    assert 0 <= res.lose_backgammon <= res.lose_gammon <= res.lose <= 1
    lo, hi = res.confidence_interval("equity", 0.95)
    assert lo < res.equity < hi


def test_fresh_seed_is_reported_and_reproduces():
    _need_cython()
    # (pubeval: the seed is the point, not the policy; two blocks on two workers)
    a = rollout(MIDGAME, 2_000, workers=2, policy="pubeval")
    b = rollout(MIDGAME, 2_000, seed=a.seed, workers=1, policy="pubeval")
    assert np.array_equal(a.counts, b.counts)


def test_outcome_statistics_formulae():
    counts = np.array([50, 20, 5, 15, 8, 2])  # 100 games
    est, se = outcome_statistics(counts)
    assert est["win"] == 0.75 and est["win_gammon"] == 0.25 and est["win_backgammon"] == 0.05
    assert est["lose_gammon"] == 0.10 and est["lose_backgammon"] == 0.02
    # DESIGN 5: (2 win - 1) + (wg - lg) + (wbg - lbg) equals the mean points per game
    formula = (2 * 0.75 - 1) + (0.25 - 0.10) + (0.05 - 0.02)
    assert est["equity"] == pytest.approx(formula)
    pts = np.repeat([1, 2, 3, -1, -2, -3], counts)
    assert se["equity"] == pytest.approx(pts.std(ddof=1) / np.sqrt(100))
    assert se["win"] == pytest.approx(np.sqrt(0.75 * 0.25 / 99))


def test_interrupt_keeps_finished_blocks():
    _need_cython()
    seen = []

    def progress(n):
        seen.append(n)
        if len(seen) == 2:
            raise KeyboardInterrupt

    for workers in (1, 2):
        seen.clear()
        res = rollout(MIDGAME, 50_000, seed=5, workers=workers, progress=progress, policy="pubeval")
        assert res.interrupted
        assert 2_000 <= res.games < 50_000 and res.games % 1000 == 0
        assert int(res.counts.sum()) == res.games
        # The finished blocks are the first ones when run on one worker: compare.
        if workers == 1:
            full = rollout(MIDGAME, res.games, seed=5, workers=1, policy="pubeval")
            assert np.array_equal(full.counts, res.counts)


def test_ctrl_c_as_the_last_block_ends_is_still_reported():
    # Ctrl-C delivered while the last block is merged (here: from the on_block callback,
    # in the calling thread) sets the flag after the loop's last look at it; the run is
    # whole, but on_interrupt must still be told (with 0 blocks running), or a table or a
    # staged candidate rollout would play on past the user's Ctrl-C
    _need_cython()
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers are installed in the main thread only")
    told = []

    def on_block(k, n, c, f):
        if k == 2:                       # the last of 3 blocks
            os.kill(os.getpid(), signal.SIGINT)

    run = run_blocks(START_BOARD, 3000, 5, policy="pubeval", workers=1, on_block=on_block,
                     on_interrupt=told.append)
    assert run.games == 3000 and not run.interrupted and told == [0]
    # and a run left alone is told nothing
    told.clear()
    run_blocks(START_BOARD, 2000, 5, policy="pubeval", workers=1, on_interrupt=told.append)
    assert told == []


@pytest.mark.parametrize("kernel", ["rollout_block", "rollout_block_vr", "cubeful_block"])
def test_the_block_loops_stop_between_games_once_their_flag_is_set(engine, kernel):
    # the one way to stop a block in compiled code (no signal reaches it): a flag read
    # between games; set beforehand, no game is played, and a flag left at 0 changes nothing
    board = np.zeros((2, 25), dtype=np.int8)     # a short bear-off: quick in either engine
    board[0, [5, 4, 2]] = [2, 2, 1]
    board[1, [5, 3, 1]] = 2
    cub, make_policy, Evaluator = engine.cubeful, engine.make_policy, engine.evaluator.EvalPolicy

    def play(games, stop):
        bitgen = np.random.PCG64DXSM(5)
        if kernel == "rollout_block":
            return engine.rollout_block(board, games, bitgen, "pubeval", stop=stop)
        if kernel == "rollout_block_vr":
            return engine.rollout_block_vr(board, games, bitgen, "pubeval",
                                           engine.evaluator.EvalPolicy(), stop=stop)[0]
        return cub.cubeful_block(board, games, bitgen, make_policy("pubeval"), Evaluator(),
                                 stop=stop)

    assert play(3, np.ones(1, dtype=np.uint8)).sum() == 0
    assert np.array_equal(play(3, np.zeros(1, dtype=np.uint8)), play(3, None))
    assert play(3, None).sum() == 3
    with pytest.raises(ValueError, match="stop must be a uint8 array of shape"):
        play(3, np.zeros(2, dtype=np.uint8))


def test_a_compiled_block_stops_within_a_game_of_its_flag():
    _need_cython()
    eng = get_engine("cython")
    flag = np.zeros(1, dtype=np.uint8)
    got = {}

    def play():      # about a minute of pubeval games, left alone
        got["counts"] = eng.rollout_block(START_BOARD, 10**7, np.random.PCG64DXSM(1), "pubeval",
                                          stop=flag)

    t = threading.Thread(target=play)
    t.start()
    time.sleep(0.3)
    t0 = time.perf_counter()
    flag[0] = 1
    t.join(timeout=10)
    assert not t.is_alive() and time.perf_counter() - t0 < 2
    assert 0 < got["counts"].sum() < 10**7


def _slow_block(k, n, bitgen):
    """A block of ``n`` 'games' of 10 ms each in a Python loop that asks abandoned()
    between games, as the cube and candidate-play blocks do: 10 s a block left alone."""
    for _ in range(n):
        if abandoned():
            break
        time.sleep(0.01)
    return np.array([n, 0, 0, 0, 0, 0], dtype=np.int64)


def _ctrl_c_at(*seconds):
    """Send this process SIGINT after each of ``seconds`` (from now), from a timer thread
    (the signal is handled in the main thread, where run_blocks installed its handler)."""
    for s in seconds:
        threading.Timer(s, os.kill, (os.getpid(), signal.SIGINT)).start()


def test_a_second_ctrl_c_abandons_the_running_blocks():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers are installed in the main thread only")
    told, merged = [], []
    _ctrl_c_at(0.5, 1.2)
    t0 = time.perf_counter()
    run = run_blocks(START_BOARD, 20_000, 1, policy="pubeval", workers=2, block=_slow_block,
                     on_interrupt=told.append, on_block=lambda k, *_: merged.append(k))
    took = time.perf_counter() - t0
    # the first Ctrl-C would wait 10 s for the two running blocks; the second drops them
    assert took < 5, took
    assert told == [2, 0] and run.interrupted and run.games == 0 and merged == []
    assert run.counts.sum() == 0          # the partial blocks are never merged
    # the abandoned threads end after their 'game', on their own
    deadline = time.perf_counter() + 5
    while any(t.name.startswith("fastbg") for t in threading.enumerate()):
        assert time.perf_counter() < deadline, "the abandoned workers did not stop"
        time.sleep(0.05)


def test_a_second_ctrl_c_keeps_the_blocks_already_merged():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers are installed in the main thread only")

    def block(k, n, bitgen):           # block 0 quick, the others slow
        return _slow_block(k, 1 if k == 0 else n, bitgen) * (1 if k else n)

    told, merged = [], []
    _ctrl_c_at(1.0, 1.7)
    run = run_blocks(START_BOARD, 5000, 1, policy="pubeval", workers=1, block=block,
                     on_interrupt=told.append, on_block=lambda k, *_: merged.append(k))
    assert (merged, run.games, run.interrupted, told) == ([0], 1000, True, [1, 0])
    assert run.counts.tolist() == [1000, 0, 0, 0, 0, 0]


def test_block_sizes():
    assert block_sizes(2500, 1000) == [1000, 1000, 500]
    assert block_sizes(1000, 1000) == [1000]
    assert sum(block_sizes(1_234_567)) == 1_234_567


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(games=0), "games must be a positive integer"),
    (dict(games=10, policy="gnubg"), "unknown policy"),
    (dict(games=10, engine="rust"), "unknown engine"),
    (dict(games=10, dice=(7, 1)), "die 7 out of range"),
    (dict(games=10, dice=(0, 1)), "die 0 out of range"),
    (dict(games=10, seed=-1), "seed must be a non-negative integer"),
    (dict(games=10, workers=0), "workers must be a positive integer"),
])
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        rollout(MIDGAME, engine=kwargs.pop("engine", "python"), **kwargs)


def test_game_over_position_is_rejected():
    b = np.zeros((2, 25), dtype=np.int8)
    b[1, 5] = 15  # the player on roll has borne off everything
    with pytest.raises(ValueError, match="game is over"):
        rollout(b, 10, engine="python")


def test_a_start_where_nobody_can_ever_move_is_rejected(engine):
    # Both sides have a checker on the bar and a closed home board: the game
    # could never end, so both engines refuse it instead of looping.
    b = np.zeros((2, 25), dtype=np.int8)
    for row in b:
        row[:6] = 2
        row[7] = 2
        row[24] = 1
    with pytest.raises(ValueError, match="neither side can ever move"):
        engine.play_game(b, np.random.PCG64DXSM(1), engine.make_policy("pubeval"))


#: Both sides on the bar against closed boards (the new-user trial's position): no roll
#: ever has a legal play for either side, so a game from here never ends.
#:   X: 2 on each of its points 1-6, 1 on the bar; O the same (O's 12 and 13 hold the rest).
NOBODY_MOVES = "XGID=aBBBBBB-----bB-----bbbbbbA:0:0:1:00:0:0:0:0:10"


def _refused_at_once(call, timeout: float = 60.0) -> str:
    """The message of the ValueError ``call()`` raises, failing (instead of hanging the
    suite) when it is still running after ``timeout`` seconds: a game that cannot end
    runs forever, in compiled code no signal stops (the thread is a daemon)."""
    out = {}

    def work():
        try:
            call()
        except BaseException as exc:  # handed to the test
            out["error"] = exc

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "still playing: the position was not refused before its games"
    assert isinstance(out.get("error"), ValueError), out.get("error")
    return str(out["error"])


@pytest.mark.parametrize("engine_name", ["cython", "python"])
@pytest.mark.parametrize("entry", ["rollout", "cubeful_rollout", "cube_rollout",
                                   "cubeful_rollout match", "cube_rollout match",
                                   "rollout_plays"])
def test_every_rollout_refuses_a_position_where_nobody_can_ever_move(entry, engine_name):
    # cubeful_rollout and cube_rollout played it forever (new-user trial); every function
    # that plays games from a given position refuses it first, with the same message
    import fastbg
    from fastbg.rollouts.plays import rollout_plays

    if engine_name == "cython":
        _need_cython()
    name, _, mode = entry.partition(" ")
    state = fastbg.MatchState(match_length=7, score=(2, 3)) if mode else None
    calls = {
        "rollout": lambda: fastbg.rollout(NOBODY_MOVES, 36, seed=1, workers=1,
                                          engine=engine_name),
        "cubeful_rollout": lambda: fastbg.cubeful_rollout(
            NOBODY_MOVES, 36, seed=1, workers=1, engine=engine_name, state=state),
        "cube_rollout": lambda: fastbg.cube_rollout(
            NOBODY_MOVES, 36, seed=1, workers=1, engine=engine_name, state=state),
        "rollout_plays": lambda: rollout_plays(NOBODY_MOVES, (3, 1), 36, seed=1, workers=1,
                                               engine=engine_name),
    }
    msg = _refused_at_once(calls[name])
    assert "neither side can ever move" in msg


def test_the_cubeful_block_loops_and_match_games_refuse_it_too(engine):
    # the engines' own loops (each game loop starts with the one check), for a caller of
    # the engine functions that skips the rollout functions
    b = np.ascontiguousarray(Position.parse(NOBODY_MOVES).board)
    cubeful, ev = engine.cubeful, engine.evaluator.EvalPolicy()
    bitgen = np.random.PCG64DXSM(1)
    for call in (lambda: cubeful.cubeful_block(b, 3, bitgen, "pubeval", ev),
                 lambda: engine.rollout.match_game(b, bitgen, np.random.PCG64DXSM(2),
                                                   "pubeval", "random")):
        assert "neither side can ever move" in _refused_at_once(call)


def test_a_position_says_whether_it_can_be_played_from(engine):
    stuck = Position.parse(NOBODY_MOVES)
    assert stuck.no_side_can_move and engine.board.no_side_can_move(stuck.board)
    with pytest.raises(ValueError, match="neither side can ever move"):
        stuck.check_playable()
    with pytest.raises(ValueError, match="neither side can ever move"):
        engine.board.check_start(stuck.board)
    # one side blocked for ever is a game: the other moves (and must open its board)
    b = stuck.board.copy()
    b[1, 24] = 0
    b[1, 12] += 1
    assert not Position(b).no_side_can_move and not engine.board.no_side_can_move(b)
    Position(b).check_playable()
    engine.board.check_start(b)
    Position.start().check_playable()


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(dice=(3.5, 1)), "whole number"),
    (dict(dice=(True, 1)), "whole number"),
    (dict(opening="yes"), "opening must be"),
    (dict(progress=True), "progress must be a callable"),
])
def test_loose_arguments_are_rejected_not_coerced(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        rollout("start", 10, engine="python", **kwargs)


def test_workers_reported_are_the_threads_used():
    assert rollout(MIDGAME, 10, seed=1, engine="python", workers=2, policy="pubeval").workers == 1
    _need_cython()
    assert rollout(MIDGAME, 2_500, seed=1, workers=64, policy="pubeval").workers == 3  # three blocks


def test_the_default_policy_is_the_network():
    _need_cython()
    from fastbg.rollouts import DEFAULT_POLICY

    res = rollout(MIDGAME, 200, seed=4)
    assert res.policy == DEFAULT_POLICY == "nn"
    same = rollout(MIDGAME, 200, seed=4, policy="nn")
    assert (res.counts == same.counts).all()


def test_dice_rolled_in_an_xgid_fix_the_first_roll_as_in_the_cli():
    # fastbg.rollout used to drop the roll of an XGID (and roll the position out from a
    # fresh roll) while `fastbg rollout` played it: the API now does as the CLI.
    import fastbg

    rolled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    before = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    a = fastbg.rollout(rolled, 200, seed=4, policy="pubeval").counts
    b = fastbg.rollout(before, 200, seed=4, policy="pubeval", dice=(3, 1)).counts
    assert a.tolist() == b.tolist()
    assert fastbg.rollout(rolled, 200, seed=4, policy="pubeval", dice=(1, 3)).counts.tolist() \
        == a.tolist()
    with pytest.raises(ValueError, match="3-1 rolled but dice is 4-2"):
        fastbg.rollout(rolled, 200, seed=4, dice=(4, 2))


def test_ctrl_c_in_a_pure_python_block_keeps_the_finished_games(ctrl_c_after_games):
    # The pure-Python engine runs blocks in the calling thread; Ctrl-C lands inside a
    # block. The games that block finished must be kept, not thrown away with it.
    import fastbg

    board = np.zeros((2, 25), dtype=np.int8)     # a short bear-off: quick games
    board[:, 0] = 1
    board[:, 3] = 1
    ctrl_c_after_games(1230)
    res = fastbg.rollout(board, 3000, seed=3, policy="random", engine="python")
    ctrl_c_after_games.undo()
    assert res.interrupted and res.games == 1230 == int(res.counts.sum())
    # block 0 and the first 230 games of block 1: the same games as an uninterrupted
    # rollout of 1,230 games with that seed
    full = fastbg.rollout(board, 1230, seed=3, policy="random", engine="python")
    assert res.counts.tolist() == full.counts.tolist()

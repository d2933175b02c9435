"""The pieces of a run of blocks, each alone (issue 37, item 4): the ordered exact merge with
its stop rule, the Ctrl-C state machine, the thread executor, and seeding."""
import threading
from fractions import Fraction

import numpy as np
import pytest

from fastbg.rollouts import blocks
from fastbg.rollouts.executors import ThreadBlocks, abandoned, stop_flag
from fastbg.rollouts.interrupts import CtrlC
from fastbg.rollouts.merge import OrderedMerge
from fastbg.rollouts.seeding import block_bit_generator, stratified_rolls


def _merge(**kw):
    return OrderedMerge(lambda k: 10, (2,), **kw)


def test_blocks_are_merged_in_block_order_whatever_order_they_finish_in():
    seen = []
    m = _merge(on_block=lambda k, n, c, f: seen.append(k), progress=lambda n: seen.append(-n))
    m.add(2, np.array([1, 0]))
    m.add(1, np.array([0, 1]))
    assert m.merged == 0 and m.games == 0 and seen == []      # held: block 0 is missing
    m.add(0, np.array([5, 5]))
    assert m.merged == 3 and m.games == 30 and m.counts.tolist() == [6, 6]
    assert seen == [0, -10, 1, -10, 2, -10]


def test_float_sums_are_exact_whatever_the_order():
    values = [np.array([0.1]), np.array([1e16]), np.array([-1e16]), np.array([0.2])]
    exact = float(sum(Fraction(float(v[0])) for v in values))
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
        m = _merge()
        for k in order:
            m.add(k, np.zeros(2, dtype=np.int64), values[k])
        assert m.sums()[0] == exact
    assert 0.1 + 1e16 - 1e16 + 0.2 != exact                  # (float addition is not)


def test_the_stop_rule_sees_prefixes_and_drops_later_blocks():
    asked = []

    def until(counts, sums, n):
        asked.append((n, counts.tolist()))
        return n >= 20

    m = _merge(until=until)
    m.add(1, np.array([0, 1]))
    m.add(3, np.array([9, 9]))
    m.add(0, np.array([1, 0]))            # merges 0 and 1, then the rule is met
    m.add(2, np.array([7, 7]))            # past the stop: dropped
    assert m.met and m.games == 20 and m.counts.tolist() == [1, 1]
    assert asked == [(10, [1, 0]), (20, [1, 1])]
    run = m.result(interrupted=True)      # stopped by its rule: not interrupted
    assert run.games == 20 and not run.interrupted


def test_stored_blocks_are_merged_first_without_on_block():
    told = []
    m = _merge(on_block=lambda *a: told.append(a[0]))
    first = m.add_stored({0: ([1, 1], None), 1: ([2, 2], None)}, nblocks=5)
    assert first == 2 and m.games == 20 and told == []
    with pytest.raises(ValueError, match="blocks 0, 1, ..."):
        _merge().add_stored({1: ([1, 1], None)}, nblocks=5)


def test_ctrl_c_is_two_staged_and_ignores_an_echo():
    now = [0.0]
    c = CtrlC(clock=lambda: now[0], echo=0.5)
    assert c.state == "running" and not c.flag[0]
    c.press()
    assert c.state == "stopping" and not c.flag[0]
    now[0] = 0.2
    c.press()                              # the first one's echo (timeout -s INT)
    assert c.state == "stopping" and not c.flag[0]
    now[0] = 1.0
    c.press()                              # a second Ctrl-C
    assert c.state == "abandoning" and c.flag[0] == 1


def test_a_met_stop_rule_halts_without_abandoning():
    c = CtrlC()
    c.halt()
    assert c.stop.is_set() and c.flag[0] == 1 and not c.abandon.is_set()


def test_the_thread_executor_hands_its_blocks_the_run_s_stop_flag():
    flag = np.zeros(1, dtype=np.uint8)
    seen = []

    def play(k):
        seen.append((stop_flag() is flag, abandoned()))
        return k, np.zeros(6, dtype=np.int64), None

    ex = ThreadBlocks(play, 2, flag)
    try:
        futs = {ex.submit(k, 3)[0] for k in range(3)}
        done, pending = ex.wait(futs, 5.0)
        while pending:
            more, pending = ex.wait(pending, 5.0)
            done |= more
        assert sorted(ex.result(f)[0][0] for f in done) == [0, 1, 2]
    finally:
        ex.close()
    assert seen == [(True, False)] * 3
    assert stop_flag() is None and not abandoned()          # not in the calling thread


def test_run_blocks_with_a_stop_rule_stops_at_the_same_block_for_any_workers():
    def block(k, n, bitgen):
        return np.array([n, k], dtype=np.int64)

    until = lambda counts, sums, n: counts[1] >= 6           # noqa: E731 (after blocks 0..3)
    runs = [blocks.run_blocks(np.zeros((2, 25)), 10_000, 1, block=block, counts_shape=(2,),
                              workers=w, block_size=1000, until=until) for w in (1, 2, 3)]
    assert {(r.games, tuple(r.counts)) for r in runs} == {(4000, (4000, 6))}
    assert all(not r.interrupted for r in runs)
    assert threading.active_count() < 10                     # the pools were shut down


def test_seeding_depends_on_seed_block_and_game_only():
    a = block_bit_generator(5, 3).random_raw(4)
    assert (a == block_bit_generator(5, 3).random_raw(4)).all()
    assert not (a == block_bit_generator(5, 4).random_raw(4)).all()
    whole = stratified_rolls(9, 0, 100, False)
    assert (stratified_rolls(9, 40, 30, False) == whole[40:70]).all()
    first = sorted(whole[:36, 0].tolist())
    assert first == list(range(36))                           # each first roll once in 36


def test_a_ctrl_c_inside_sigint_deferred_waits_for_the_end_of_the_block():
    # a stored run's end (an empty new run removed) must not be cut in half by a second
    # Ctrl-C pressed as the rollout returned (it kept a table's 2 empty runs in CI)
    import os
    import signal

    from fastbg.rollouts.interrupts import sigint_deferred
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("after the Ctrl-C")       # not cut here
    assert steps == ["after the Ctrl-C"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # nested (a row's end inside the table's): the Ctrl-C comes out once, at the outer end
    with pytest.raises(KeyboardInterrupt):
        with sigint_deferred():
            with sigint_deferred():
                os.kill(os.getpid(), signal.SIGINT)
            steps.append("outer block goes on")
    assert steps[-1] == "outer block goes on"
    with sigint_deferred():         # no Ctrl-C: nothing raised
        pass

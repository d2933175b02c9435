"""Match equity tables: loading, lookups, Crawford handling, EMG, gammon values, take points,
free drop.

Published figures used (sources in each test):
- Kazaross-XG2 3-away/3-away, 1-cube, gammonless: dead take point 30.17%, live 22.65%, the
  figures of eXtreme Gammon's "Cube Information" (quoted, with the method "live = dead x cash
  point one cube level up", in L. H. Madsen's notes, github.com/lassehjorthmadsen/backgammon,
  data-raw/notes_xg_live_cube.R).
- Rockwell-Kazaross 2-away/4-away: "the leader's take point at 19.8 and the trailer's take
  point at 18.5" (Phil Simborg, "2away/4away Quiz", simborgbackgammonlessons.com).
- GNU Backgammon manual, "Live cube equities": Woolsey's table, score 3-0 to 7, live take
  points for Black/White 24.5%/27.3% (1-cube), 15%/38.5% (2-cube), 0%/41% (4-cube).
"""
from __future__ import annotations

import hashlib
import re
from importlib import resources

import numpy as np
import pytest

from fastbg.cube import load_met
from fastbg.cube.met import (DEFAULT_MET, OUTCOMES, SHIPPED_METS, MatchEquityTable, gammon_values,
                             outcome_probabilities)

KXG2 = load_met("Kazaross-XG2")
DATA = resources.files("fastbg").joinpath("data", "met")

# Kazaross-XG2 entries read off the XML (row = player's away, column = opponent's away).
M = {(1, 2): 0.67736, (1, 3): 0.75076, (1, 4): 0.81436, (2, 3): 0.59947, (2, 4): 0.66870,
     (3, 4): 0.57150}


def m(a, b):
    """Kazaross-XG2 pre-Crawford MWC from the dict above, by symmetry."""
    if a == b:
        return 0.5
    return M[(a, b)] if (a, b) in M else 1.0 - M[(b, a)]


# ----------------------------------------------------------------------------- the data

@pytest.mark.parametrize("name", SHIPPED_METS)
def test_shipped_tables_load(name):
    met = load_met(name)
    assert met.length >= 15 and met.post_crawford_length == met.length
    assert met.symmetric
    assert met.mwc(1, 1) == 0.5
    assert met.name and met.description


def test_default_is_kazaross_xg2():
    assert DEFAULT_MET == "Kazaross-XG2"
    assert load_met() is KXG2
    assert KXG2.name == "Kazaross XG2 25 point MET"
    assert KXG2.length == 25 and KXG2.declared_length == 25


def test_names_are_case_insensitive_and_accept_xml():
    assert load_met("kazaross-xg2") is KXG2
    assert load_met("Kazaross-XG2.xml") is KXG2
    assert load_met(KXG2) is KXG2


def test_load_by_path_equals_shipped():
    path = DATA.joinpath("Kazaross-XG2.xml")
    with resources.as_file(path) as p:
        met = load_met(p)
    np.testing.assert_array_equal(met.pre_crawford, KXG2.pre_crawford)
    np.testing.assert_array_equal(met.post_crawford, KXG2.post_crawford)


def test_shipped_files_match_readme_provenance():
    readme = DATA.joinpath("README.md").read_text(encoding="utf-8")
    assert "gnubg-data" in readme and "1.07.001-1" in readme
    sums = dict((f, h) for h, f in re.findall(r"^\s+([0-9a-f]{64})\s+(\S+)$", readme, re.M))
    assert set(sums) == {f"{n}.xml" for n in SHIPPED_METS} | {"met.dtd"}
    for f, h in sums.items():
        assert hashlib.sha256(DATA.joinpath(f).read_bytes()).hexdigest() == h
    header = DATA.joinpath("Kazaross-XG2.xml").read_text(encoding="utf-8")
    assert "Copyright (C) 2011 Neil Kazaross" in header


def test_tables_are_read_only():
    with pytest.raises(ValueError):
        KXG2.pre_crawford[0, 0] = 0.4


# ----------------------------------------------------------------------------- lookups

@pytest.mark.parametrize("name", SHIPPED_METS)
def test_symmetry(name):
    met = load_met(name)
    n = met.length
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            assert met.mwc(a, b) + met.mwc(b, a) == pytest.approx(1.0, abs=1e-12)
            assert (met.mwc(a, b, crawford=False) + met.mwc(b, a, crawford=False)
                    == pytest.approx(1.0, abs=1e-12))


def test_pre_crawford_entries():
    for (a, b), v in M.items():
        assert KXG2.mwc(a, b) == v
    assert KXG2.mwc(25, 1) == 0.00095  # first entry of the last row
    assert KXG2.mwc(1, 25) == 0.99905


def test_post_crawford_entries():
    # the file's post-Crawford row: 0.5, 0.48803, 0.32264, 0.31002, 0.19012, ...
    assert KXG2.post_crawford_mwc(1) == 0.5
    assert KXG2.post_crawford_mwc(2) == 0.48803
    assert KXG2.post_crawford_mwc(4) == 0.31002
    assert KXG2.mwc(2, 1, crawford=False) == 0.48803
    assert KXG2.mwc(1, 2, crawford=False) == pytest.approx(0.51197)
    assert KXG2.mwc(5, 1, crawford=False) == 0.19012
    # the Crawford game at 2-away/1-away is a different entry from post-Crawford
    assert KXG2.mwc(2, 1, crawford=True) == 0.32264
    assert KXG2.mwc(2, 1) == 0.32264
    # the trailer's post-Crawford MWC falls with the score; post-Crawford >= Crawford game
    post = KXG2.post_crawford[0]
    assert np.all(np.diff(post) < 0)
    for n in range(2, 26):
        assert KXG2.mwc(n, 1, crawford=False) >= KXG2.mwc(n, 1, crawford=True)


def test_won_and_lost_scores():
    assert KXG2.mwc(0, 5) == 1.0
    assert KXG2.mwc(-3, 5) == 1.0
    assert KXG2.mwc(5, 0) == 0.0
    assert KXG2.mwc(5, -1) == 0.0
    with pytest.raises(ValueError):
        KXG2.mwc(0, 0)


def test_beyond_the_table_and_bad_scores():
    with pytest.raises(ValueError, match="25-away"):
        KXG2.mwc(26, 3)
    with pytest.raises(ValueError):
        load_met("woolsey").mwc(16, 1, crawford=False)
    with pytest.raises(ValueError):
        KXG2.mwc(2.5, 3)
    with pytest.raises(ValueError):
        KXG2.mwc(True, 3)


@pytest.mark.parametrize("a, b, fragment", [
    (65, 65, "holds scores up to 25-away; got 65-away/65-away"),
    (26, 2, "holds scores up to 25-away; got 26-away/2-away"),
    (2, 26, "holds scores up to 25-away; got 2-away/26-away"),
    (1, 30, "holds post-Crawford scores up to 25-away; got 1-away/30-away"),
])
def test_a_score_beyond_the_table_is_named_as_given(a, b, fragment):
    # The results of a game are looked up at the scores after it; the message names the
    # score of the game itself (it named 64-away/65-away at 65-away/65-away).
    for call in (lambda: KXG2.result_mwc(a, b), lambda: KXG2.take_point(a, b),
                 lambda: KXG2.cubeless_mwc([0.5, 0.1, 0.0, 0.1, 0.0], a, b)):
        with pytest.raises(ValueError, match=re.escape(fragment) + "$"):
            call()


def test_result_mwc_and_crawford_transitions():
    # 3-away/3-away on a 1-cube: win 1 -> 2a3a, win 2 -> 1a3a (next game Crawford), win 3 -> won
    r = KXG2.result_mwc(3, 3, 1)
    np.testing.assert_allclose(r, [m(2, 3), m(1, 3), 1.0, m(3, 2), m(3, 1), 0.0])
    # a game at 3-away/1-away is post-Crawford or Crawford; either way the next one is post
    r = KXG2.result_mwc(3, 1, 1)
    assert r[0] == KXG2.post_crawford_mwc(2)            # trailer wins 1: 2a1a post-Crawford
    assert r[1] == 1.0 - 0.5 == 0.5                      # trailer wins 2: 1a1a
    assert r[3] == 0.0
    # 2-away/3-away, win 1: leader reaches 1-away for the first time -> Crawford game
    assert KXG2.result_mwc(2, 3, 1)[0] == m(1, 3) == 0.75076
    with pytest.raises(ValueError):
        KXG2.result_mwc(3, 3, 3)      # cube not a power of two
    with pytest.raises(ValueError):
        KXG2.result_mwc(0, 3, 1)


def test_outcome_probabilities_and_cubeless_mwc():
    probs = [0.6, 0.2, 0.05, 0.1, 0.02]
    cls = outcome_probabilities(probs)
    np.testing.assert_allclose(cls, [0.4, 0.15, 0.05, 0.3, 0.08, 0.02])
    assert len(OUTCOMES) == 6 and cls.sum() == pytest.approx(1.0)
    r = KXG2.result_mwc(3, 3, 1)
    assert KXG2.cubeless_mwc(probs, 3, 3) == pytest.approx(float(cls @ r))
    # by hand: 0.4*m(2,3) + 0.15*m(1,3) + 0.05*1 + 0.3*m(3,2) + 0.08*m(3,1) + 0.02*0
    hand = 0.4 * 0.59947 + 0.15 * 0.75076 + 0.05 + 0.3 * 0.40053 + 0.08 * 0.24924
    assert KXG2.cubeless_mwc(probs, 3, 3) == pytest.approx(hand, abs=1e-12)
    # batches of positions
    batch = np.array([probs, [0.5, 0, 0, 0, 0]])
    out = KXG2.cubeless_mwc(batch, 3, 3)
    assert out.shape == (2,)
    assert out[1] == pytest.approx(0.5)


@pytest.mark.parametrize("bad", [[0.5, 0.6, 0, 0, 0], [0.5, 0.1, 0.2, 0, 0],
                                 [0.5, 0, 0, 0.6, 0], [0.5, 0, 0, 0.1, 0.2],
                                 [1.2, 0, 0, 0, 0], [0.5, 0, 0, 0], [np.nan, 0, 0, 0, 0]])
def test_bad_probabilities(bad):
    with pytest.raises(ValueError):
        KXG2.cubeless_mwc(bad, 3, 3)


# ----------------------------------------------------------------------------- EMG

def test_emg_endpoints_and_round_trip():
    for a, b, c in [(3, 3, 1), (2, 4, 1), (7, 5, 2), (25, 25, 1)]:
        r = KXG2.result_mwc(a, b, c)
        assert KXG2.emg(r[0], a, b, c) == pytest.approx(1.0)
        assert KXG2.emg(r[3], a, b, c) == pytest.approx(-1.0)
        for e in (-1.7, -0.3, 0.0, 0.8):
            assert KXG2.emg(KXG2.mwc_from_emg(e, a, b, c), a, b, c) == pytest.approx(e)


def test_emg_is_close_to_money_early_in_a_long_match():
    probs = np.array([0.6, 0.2, 0.01, 0.12, 0.005])
    money = (2 * 0.6 - 1) + (0.2 - 0.12) + (0.01 - 0.005)
    emg = KXG2.emg(KXG2.cubeless_mwc(probs, 25, 25), 25, 25)
    assert emg == pytest.approx(money, abs=0.02)


# ----------------------------------------------------------------------------- gammon values

def test_gammon_values_money_are_one_half():
    assert gammon_values([1, 2, 3, -1, -2, -3]) == (0.5, 0.5)
    with pytest.raises(ValueError):
        gammon_values([1, 2, 3])


def test_gammon_values_at_scores():
    gw, gl = KXG2.gammon_values(25, 25)
    assert gw == pytest.approx(0.5, abs=0.02) and gl == pytest.approx(0.5, abs=0.02)
    # 3-away/3-away, 1-cube, by hand
    swing = m(2, 3) - m(3, 2)
    assert KXG2.gammon_values(3, 3) == pytest.approx(
        ((m(1, 3) - m(2, 3)) / swing, (m(3, 2) - m(3, 1)) / swing))
    # double match point and the leader post-Crawford: gammons are worthless to win
    assert KXG2.gammon_values(1, 1) == (0.0, 0.0)
    assert KXG2.gammon_values(1, 5)[0] == 0.0
    # 2-away/2-away, doubled cube: any result decides the match
    assert KXG2.gammon_values(2, 2, 2) == (0.0, 0.0)


# ----------------------------------------------------------------------------- take points

def test_take_point_3away_3away():
    # dead: pass -> 3a2a; take and lose 2 -> 3a1a (Crawford); take and win 2 -> 1a3a
    dead = (m(3, 2) - m(3, 1)) / (m(1, 3) - m(3, 1))
    assert KXG2.take_point(3, 3) == pytest.approx(dead, abs=1e-12)
    assert dead == pytest.approx(0.3017, abs=5e-5)            # XG: 30.17%
    # live: the taker's recube to 4 is the last useful one; the doubler then takes at
    # MWC(3a1a) = 24.92%, so the taker cashes at 75.08%
    live = dead * (1 - m(3, 1))
    assert KXG2.take_point(3, 3, live=True) == pytest.approx(live, abs=1e-12)
    assert live == pytest.approx(0.2265, abs=5e-5)            # XG: 22.65%


def test_take_point_2away_4away():
    # leader (2-away) doubled by the trailer: pass -> 2a3a, lose 2 -> 2a2a, win 2 -> won
    leader = (m(2, 3) - 0.5) / (1.0 - 0.5)
    assert KXG2.take_point(2, 4) == pytest.approx(leader, abs=1e-12)
    # his recube would be dead (a 2-cube win already wins): live == dead
    assert KXG2.take_point(2, 4, live=True) == KXG2.take_point(2, 4)
    # trailer (4-away) doubled by the leader: pass -> 4a1a (Crawford), lose 2 -> lost,
    # win 2 -> 2a2a; live: his recube to 4 is for the match, the leader takes at 50%
    trailer = (m(4, 1) - 0) / (0.5 - 0)
    assert KXG2.take_point(4, 2) == pytest.approx(trailer, abs=1e-12)
    assert KXG2.take_point(4, 2, live=True) == pytest.approx(trailer * 0.5, abs=1e-12)
    assert (round(leader, 4), round(trailer, 4), round(trailer * 0.5, 4)) == \
        (0.1989, 0.3713, 0.1856)
    # Simborg, Rockwell-Kazaross: leader 19.8, trailer 18.5 (live)
    rk = load_met("Rockwell-Kazaross")
    assert rk.take_point(2, 4) == pytest.approx(0.198, abs=5e-4)
    assert rk.take_point(4, 2, live=True) == pytest.approx(0.185, abs=2e-3)


def test_dead_take_point_tends_to_money_quarter():
    # money: pass -1, take -2/+2 -> 25% dead, 20% live; 25-away/25-away is close
    assert KXG2.take_point(25, 25) == pytest.approx(0.25, abs=0.005)
    assert KXG2.take_point(25, 25, live=True) == pytest.approx(0.20, abs=0.005)


def test_take_points_of_gnubg_manual_example():
    # GNU Backgammon manual, "Live cube equities": Woolsey's MET, White leads 3-0 to 7 (White
    # 4-away, Black 7-away), Black on roll with these cubeless probabilities
    woolsey = load_met("woolsey")
    black = [0.454, 0.103, 0.001, 0.106, 0.003]
    white = [0.546, 0.106, 0.003, 0.103, 0.001]
    expected = {1: (0.245, 0.273), 2: (0.15, 0.385), 4: (0.0, 0.41)}
    for cube, (tp_black, tp_white) in expected.items():
        # Black takes White's double: probabilities from the doubler's (White's) view
        assert woolsey.take_point(7, 4, cube, live=True, probabilities=white) == \
            pytest.approx(tp_black, abs=6e-4)
        assert woolsey.take_point(4, 7, cube, live=True, probabilities=black) == \
            pytest.approx(tp_white, abs=6e-4)
    # cash point = 1 - the other side's take point
    assert woolsey.cash_point(7, 4, 1, live=True, probabilities=black) == \
        pytest.approx(1 - woolsey.take_point(4, 7, 1, live=True, probabilities=black))


def test_gammons_raise_the_take_point():
    gammonish = [0.7, 0.3, 0.02, 0.05, 0.0]      # doubler's view
    assert KXG2.take_point(5, 5, probabilities=gammonish) > KXG2.take_point(5, 5)
    assert KXG2.take_point(5, 5, live=True, probabilities=gammonish) > KXG2.take_point(5, 5, live=True)


def test_take_point_when_passing_loses_the_match():
    # taker 2-away, doubler 2-away on a 2-cube: the double to 4 is for the match; passing
    # 2 points loses it, so any chance is a take
    assert KXG2.take_point(2, 2, 2) == 0.0


# ----------------------------------------------------------------------------- free drop

def test_free_drop_2away_post_crawford():
    # the leader facing the trailer's immediate double at 2-away/1-away post-Crawford:
    # pass -> double match point (0.5), take -> the game decides the match: he takes only
    # as the favourite (take point exactly 50%), so he can drop whenever he is an underdog
    assert KXG2.take_point(1, 2, 1) == 0.5
    assert KXG2.free_drop(2) == pytest.approx(0.5 - 0.48803, abs=1e-12)
    assert KXG2.free_drop(4) == pytest.approx(0.32264 - 0.31002, abs=1e-12)
    for n in (3, 5, 7):
        assert KXG2.free_drop(n) is None
    # the drop at an odd score costs a whole doubled game
    assert KXG2.post_crawford_mwc(2) - KXG2.post_crawford_mwc(3) > 10 * KXG2.free_drop(2)
    with pytest.raises(ValueError):
        KXG2.free_drop(1)
    with pytest.raises(ValueError):
        KXG2.free_drop(26)


# ----------------------------------------------------------------------------- bad input

MET_XML = """<?xml version="1.0"?>
<met>
  <info><name>t</name><description>d</description><length>2</length></info>
  <pre-crawford-table type="explicit">
    <row><me>0.5</me><me>0.7</me></row>
    <row><me>0.3</me><me>0.5</me></row>
  </pre-crawford-table>
  {post}
</met>
"""
POST_BOTH = ('<post-crawford-table type="explicit" player="both"><row><me>0.5</me>'
             '<me>0.48</me></row></post-crawford-table>')


def _write(tmp_path, text, name="t.xml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_minimal_table_loads(tmp_path):
    met = load_met(_write(tmp_path, MET_XML.format(post=POST_BOTH)))
    assert met.length == 2 and met.mwc(1, 2) == 0.7 and met.mwc(2, 1, crawford=False) == 0.48
    assert str(tmp_path) in met.source


def test_asymmetric_table(tmp_path):
    post = ('<post-crawford-table type="explicit" player="0"><row><me>0.52</me><me>0.5</me>'
            '</row></post-crawford-table><post-crawford-table type="explicit" player="1">'
            '<row><me>0.48</me><me>0.46</me></row></post-crawford-table>')
    met = load_met(_write(tmp_path, MET_XML.format(post=post)))
    assert met.mwc(2, 1, crawford=False) == 0.5      # player 0 trails
    assert met.mwc(1, 2, crawford=False) == pytest.approx(1 - 0.46)
    assert not met.symmetric


@pytest.mark.parametrize("text, message", [
    ("<met><info>", "well-formed"),
    ("<table/>", "root element"),
    (MET_XML.format(post=""), "post-crawford"),
    (MET_XML.format(post=POST_BOTH).replace("<me>0.7</me>", ""), "square"),
    (MET_XML.format(post=POST_BOTH).replace("0.7", "1.7"), r"\[0, 1\]"),
    (MET_XML.format(post=POST_BOTH).replace("0.7", "seven"), "not a number"),
    (MET_XML.format(post=POST_BOTH).replace('type="explicit">', 'type="mec">', 1), "mec"),
    (MET_XML.format(post=POST_BOTH).replace('player="both"', 'player="2"'), "player"),
    (MET_XML.format(post=POST_BOTH.replace('player="both"', 'player="0"')), "missing"),
    (MET_XML.format(post=POST_BOTH).replace("<length>2", "<length>two"), "length"),
])
def test_malformed_files_raise_value_error(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load_met(_write(tmp_path, text))


@pytest.mark.parametrize("edit, message", [
    # the last game of a match between equals is even
    (lambda t: t.replace("<row><me>0.5</me><me>0.7</me>", "<row><me>0.6</me><me>0.7</me>"),
     r"1-away/1-away is 0\.6, not 0\.5"),
    # complements: mwc(1, 2) + mwc(2, 1) = 0.7 + 0.35
    (lambda t: t.replace("<row><me>0.3</me>", "<row><me>0.35</me>"),
     r"mwc\(1-away, 2-away\) \+ mwc\(2-away, 1-away\) = 1\.05, not 1"),
    # a declared length that is not the table's
    (lambda t: t.replace("<length>2</length>", "<length>3</length>"),
     r"declared <length> is 3 but the pre-Crawford table has 2 rows"),
])
def test_tables_that_are_not_match_equity_tables_are_refused(tmp_path, edit, message):
    text = edit(MET_XML.format(post=POST_BOTH))
    with pytest.raises(ValueError, match=message):
        load_met(_write(tmp_path, text))


def test_rounded_tables_are_accepted(tmp_path):
    # published tables are rounded: a complement off by 1e-4 is not an error
    text = MET_XML.format(post=POST_BOTH).replace("<me>0.3</me>", "<me>0.3001</me>")
    assert load_met(_write(tmp_path, text)).mwc(2, 1) == 0.3001


def test_asymmetric_tables_need_no_even_last_game(tmp_path):
    # players of unequal strength (a post-Crawford table each): 1-away/1-away may be 0.55
    post = ('<post-crawford-table type="explicit" player="0"><row><me>0.55</me><me>0.5</me>'
            '</row></post-crawford-table><post-crawford-table type="explicit" player="1">'
            '<row><me>0.45</me><me>0.40</me></row></post-crawford-table>')
    text = MET_XML.format(post=post).replace("<row><me>0.5</me><me>0.7</me>",
                                             "<row><me>0.55</me><me>0.7</me>")
    assert load_met(_write(tmp_path, text)).mwc(1, 1) == 0.55


def test_unknown_name_raises_value_error():
    with pytest.raises(ValueError, match="unknown match equity table"):
        load_met("Kazaross-XG3")
    with pytest.raises(ValueError):
        load_met(42)


def test_a_directory_is_named_as_such(tmp_path):
    with pytest.raises(ValueError, match="is a directory, not a MET XML file"):
        load_met(tmp_path)
    with pytest.raises(ValueError, match="is a directory"):
        load_met(str(tmp_path))
    for empty in ("", " "):     # not the current directory
        with pytest.raises(ValueError, match="the match equity table's name is empty"):
            load_met(empty)


def test_direct_construction_validates():
    with pytest.raises(ValueError):
        MatchEquityTable([[0.5, 0.6]], [0.5])
    with pytest.raises(ValueError):
        MatchEquityTable([[0.5]], [[0.5], [0.5], [0.5]])

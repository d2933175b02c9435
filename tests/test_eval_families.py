"""fastbg eval names a position's families and warns where the shipped nets were measured
weaker than GNU Backgammon 0-ply (issue 36, item 4)."""
from __future__ import annotations

import json

import fastbg
from fastbg.cli import main
from fastbg.nn import weaker_families


def test_evaluate_returns_the_families_and_the_weaker_ones():
    ev = fastbg.nn.evaluate("AMWgmxv/gBKYAg")
    assert ev["families"] == {"backgame": 1, "crunched": 0}
    weak = weaker_families()
    assert ev["weaker_in"] == [f for f in ev["families"] if f in weak]
    assert fastbg.nn.evaluate("start")["families"] == {}


def test_eval_command_names_the_families_and_warns(capsys):
    assert main(["eval", "AMWgmxv/gBKYAg"]) == 0
    out = capsys.readouterr().out
    assert "position families: back game (the opponent), crunched board (the player on roll)" in out
    weak = weaker_families()
    for fam in ("backgame", "crunched"):
        assert (fam in weak) == (weak.get(fam, {}).get("summary", "\0") in out)
    assert ("fastbg rollout AMWgmxv/gBKYAg" in out) == bool(set(weak) & {"backgame", "crunched"})
    assert main(["eval", "AMWgmxv/gBKYAg", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["families"] == [{"family": "backgame", "subject": "opponent"},
                              {"family": "crunched", "subject": "player_on_roll"}]
    assert js["weaker_in"] == [f for f in ("backgame", "crunched") if f in weak]


def test_the_weaker_record_says_what_was_measured():
    for fam, rec in weaker_families().items():
        assert rec["weaker"] and "gnubg 0-ply" in rec["summary"] and rec["positions"] > 0

"""Instructions per game of the Cython core, counted by valgrind's callgrind.

Instruction counts do not depend on the machine's load, so they are the figure to
compare before and after a change of the core (timings on a shared 2-core machine
drift by tens of per cent). The script runs ``--games`` games from the start with
the opening roll in one block (seed fixed) under ``valgrind --tool=callgrind`` and
reports, from the call graph, the instructions spent inside the game loop
(``play_game_c``, inclusive) and in its main callees, per game and per call.

Usage
-----
    python experiments/callgrind_core.py [--policy random|pubeval|nn|nn-252-zero|nn-252-rand]
        [--nets NETS.npz] [--games 2000] [--position ID] [--json]

``nn-252-zero`` and ``nn-252-rand`` are the shipped nets with the contact net widened to
252 inputs (docs/evaluator.md's extra features), the 16 new rows zero (the same games as
``nn``: the difference is the cost of the extra features) or N(0, 0.05).

Needs ``valgrind`` and ``callgrind_annotate`` on the PATH (Debian: ``valgrind``).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The C functions of interest, by the suffix of their Cython-mangled names.
FUNCTIONS = {
    "play_game_c": "rollout_play_game_c",
    "generate": "movegen_generate",
    "gen_nondouble": "movegen_gen_nondouble",
    "choose_c": "RandomPolicy_choose_c",
    "pubeval choose_c": "PubevalPolicy_choose_c",
    "nn choose_c": "NNPolicy_choose_c",
    "nn q_play_equity": "q_play_equity",
    "nn q_outputs": "q_outputs",
    # the second evaluator (policy nn since issue 11)
    "evaluator choose_c": "EvalPolicy_choose_c",
    "contact_play_equity": "EvalPolicy_contact_play_equity",
    "contact_features_c": "contact_features_c",
    "contact_features_given_c (no hit)": "contact_features_given_c",
    "contact_features_ext_c (252 inputs)": "contact_features_ext_c",
    "fbg_q_delta (first-layer rows)": "fbg_q_delta",
    "fbg_q_hidden_out (hidden table, outputs)": "fbg_q_hidden_out",
    "q_pre_play (point rows)": "q_pre_play",
    "position_class_c": "position_class_c",
    "probabilities_c (race, bear-off)": "EvalPolicy_probabilities_c",
    # a crashed net that reads the blot features (docs/evaluator.md, "The blot rule")
    "rank_plays (the 0-ply ranking)": "EvalPolicy_rank_plays",
    "_side_blots_c (a side's blot features, memo)": "_side_blots_c",
    "fbgb_side (the search, memo misses)": "fbgb_side",
}

DRIVER = """
import sys, numpy as np
from fastbg import get_engine
from fastbg import Position
from fastbg.game import START_BOARD
eng = get_engine("cython")
pid = sys.argv[3]
board = START_BOARD if pid == "start" else Position.from_position_id(pid).board
name = sys.argv[1]
if name.startswith("nets="):          # a nets file of the second evaluator (--nets)
    from fastbg.reference.evaluator import load_nets
    policy = eng.evaluator.EvalPolicy(load_nets(name[5:]))
elif name.startswith("nn-252-"):         # the shipped nets, the contact net widened to 252
    from fastbg.reference.evaluator import default_nets
    nets = dict(default_nets())
    c = dict(nets["contact"])
    rows = np.random.default_rng(1).normal(0.0, 0.05, (16, c["w1"].shape[1]))
    c["w1"] = np.vstack([c["w1"], rows if name.endswith("rand") else 0 * rows])
    nets["contact"] = c
    policy = eng.evaluator.EvalPolicy(nets)
else:
    policy = eng.make_policy(name)
print(eng.rollout_block(board, int(sys.argv[2]), np.random.PCG64DXSM(1), policy,
                        opening=pid == "start").tolist())
"""


def count(policy: str, games: int, position: str = "start") -> dict:
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        raise SystemExit("callgrind_core: valgrind and callgrind_annotate are needed")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        driver = Path(tmp) / "driver.py"
        driver.write_text(DRIVER)
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
             str(driver), policy, str(games), position], capture_output=True, text=True, check=True)
        outcomes = json.loads(run.stdout.strip().splitlines()[-1])
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=calling", str(out)],
                              capture_output=True, text=True, check=True).stdout
    result = {"policy": policy, "games": games, "position": position, "outcomes": outcomes, "functions": {}}
    for name, suffix in FUNCTIONS.items():
        # Call-graph lines: "  IR (PCT%)  >   file:function (CALLSx) [object]"
        found = [(int(m.group(1).replace(",", "")), int(m.group(2).replace(",", "")))
                 for m in re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+>\s+\S*" + re.escape(suffix)
                                      + r"(?:\.\w+)? \(([\d,]+)x\)", text, re.M)]
        if found:
            ir, calls = max(found)
            result["functions"][name] = {"instructions": ir, "per_game": ir / games,
                                         "calls": calls, "per_call": ir / calls}
    return result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="random",
                    choices=("random", "pubeval", "nn", "nn-252-zero", "nn-252-rand"))
    ap.add_argument("--nets", help="play with this nets file (fastbg.reference.evaluator."
                    "save_nets) instead of --policy: e.g. a contact net of another width")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--position", default="start",
                    help="GNU Position ID of the position rolled out (side on roll "
                         "to play; default the start with the opening roll)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    res = count(f"nets={args.nets}" if args.nets else args.policy, args.games, args.position)
    if args.json:
        print(json.dumps(res, indent=2))
        return
    print(f"callgrind, {args.games} {args.policy} games from {args.position} (seed 1, one block)")
    print("| function | instructions | per game | calls | per call |")
    print("|---|---:|---:|---:|---:|")
    for name, f in res["functions"].items():
        print(f"| {name} | {f['instructions']:,} | {f['per_game']:,.0f} | {f['calls']:,} "
              f"| {f['per_call']:,.0f} |")


if __name__ == "__main__":
    main()

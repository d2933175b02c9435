"""Fingerprint fastbg's seeded numbers, to show that a refactor changed no behaviour.

Runs seeded rollouts (cubeless and cubeful, money and match), evaluations and legal
play lists over a few positions, every policy and both engines, and writes every
number exactly (floats by ``repr``, integer counts as lists) to a JSON file. Run it
before and after a change and compare the files::

    python experiments/check_bit_identity.py --out /tmp/before.json     # old tree
    python experiments/check_bit_identity.py --out /tmp/after.json      # new tree
    python experiments/check_bit_identity.py --compare /tmp/before.json /tmp/after.json

Only the public API is used (``fastbg.rollout``, ``fastbg.cubeful_rollout`` or its
older home ``fastbg.cubeful``, ``fastbg.nn.evaluate``, ``fastbg.legal_plays``), so
the same script runs on both sides of a package reorganisation. About two minutes on
two cores.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import fastbg

POSITIONS = {
    "start": "start",
    "contact": "bJ7BARiw5+ABMA",
    "race": "tN2WAgBsd6YCAA",
    "prime": "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10",
    "bearoff": "XGID=------AA---------------aa-:0:0:1:00:0:0:0:0:10",
}


def _cubeful():
    fn = getattr(fastbg, "cubeful_rollout", None)
    if fn is None:  # before the reorganisation it lived in fastbg.cubeful only
        from fastbg.cubeful import cubeful_rollout as fn
    return fn


def _plain(obj):
    """JSON-safe, exact: floats as repr strings, arrays as nested lists."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist"):
        return _plain(obj.tolist())
    if isinstance(obj, float):
        return repr(obj)
    return obj


def rollout_case(pos, games, policy, engine, seed=7):
    r = fastbg.rollout(POSITIONS[pos], games, seed=seed, workers=2, policy=policy, engine=engine)
    keys = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")
    return {"counts": _plain(r.counts), **{k: repr(getattr(r, k)) for k in keys},
            "stderr": _plain(r.stderr)}


def cubeful_case(pos, games, policy, engine, match=False, seed=11):
    kwargs = {}
    if match:
        kwargs["state"] = fastbg.MatchState.match(7, (2, 4))
    r = _cubeful()(POSITIONS[pos], games, seed=seed, workers=2, policy=policy, engine=engine,
                   **kwargs)
    d = r.to_dict()
    d.pop("seconds", None)
    d.pop("games_per_second", None)
    d.pop("workers", None)
    return _plain(d) | {"counts": _plain(r.counts)}


def run() -> dict:
    out: dict = {}
    # (name, positions, games, policies, engine)
    plan = [
        (["start", "contact", "race", "prime"], 3000, ["random", "pubeval", "nn"], "cython"),
        (["contact"], 40, ["nn-1ply"], "cython"),
        (["start", "race"], 150, ["random", "pubeval"], "python"),
        (["race", "bearoff"], 60, ["nn"], "python"),
    ]
    for positions, games, policies, engine in plan:
        for pos in positions:
            for pol in policies:
                key = f"rollout/{engine}/{pol}/{pos}/{games}"
                t = time.perf_counter()
                out[key] = rollout_case(pos, games, pol, engine)
                print(f"{key}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
    for engine, games in (("cython", 2000), ("python", 40)):
        for pos in ("contact", "race"):
            for match in (False, True):
                key = f"cubeful/{engine}/nn/{pos}/{'match' if match else 'money'}/{games}"
                t = time.perf_counter()
                out[key] = cubeful_case(pos, games, "nn", engine, match=match)
                print(f"{key}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
    for engine in ("cython", "python"):
        for pos in POSITIONS:
            out[f"eval/{engine}/{pos}"] = _plain(fastbg.nn.evaluate(POSITIONS[pos], engine=engine))
            out[f"plays/{engine}/{pos}/64"] = [
                [p.move, p.position_id] for p in fastbg.legal_plays(POSITIONS[pos], "64", engine=engine)
            ]
    return out


def compare(a_path: str, b_path: str) -> int:
    with open(a_path) as fa, open(b_path) as fb:
        a, b = json.load(fa), json.load(fb)
    bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    for k in bad:
        print(f"DIFFERENT: {k}")
    print(f"{len(a)} cases before, {len(b)} after, {len(bad)} different")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the fingerprint JSON here")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="compare two fingerprint files; exit 1 if any case differs")
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        ap.error("give --out FILE or --compare BEFORE AFTER")
    data = run()
    with open(args.out, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    print(f"{len(data)} cases written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

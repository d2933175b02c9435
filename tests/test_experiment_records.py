"""Every result under experiments/results says how it was made (issue 37, item 6).

A result file records the command that produced it and the commit it ran at:
``experiments/record.py`` stamps both (``command``, ``fastbg.commit``) on what the scripts
write. Files written before that helper existed had their command added by hand, marked
``command_reconstructed_from`` (a hand-assembled summary has ``command: null`` and says so
there), and the commit that first recorded them as ``recorded_in_commit``.
"""
from __future__ import annotations

import gzip
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
RESULTS = EXPERIMENTS / "results"

pytestmark = pytest.mark.skipif(not RESULTS.is_dir(), reason="experiments/ is not in this checkout")


def _records():
    """(file name, record) for every JSON object under experiments/results: each .json file,
    each line of a .jsonl file (the .jsonl.gz data files have a .meta.json beside them)."""
    out = []
    for path in sorted(RESULTS.rglob("*.json")):
        out.append((str(path.relative_to(RESULTS)), json.loads(path.read_text())))
    for path in sorted(RESULTS.rglob("*.jsonl")):
        for k, line in enumerate(path.read_text().splitlines()):
            if line.strip():
                out.append((f"{path.relative_to(RESULTS)}:{k + 1}", json.loads(line)))
    return out


RECORDS = _records() if RESULTS.is_dir() else []


def test_there_are_results():
    assert len(RECORDS) > 100


@pytest.mark.parametrize("name,rec", RECORDS, ids=[n for n, _ in RECORDS])
def test_every_result_records_its_command_and_commit(name, rec):
    assert isinstance(rec, dict), f"{name}: not a JSON object"
    assert "command" in rec, f"{name}: no 'command' (write it with experiments/record.py)"
    cmd = rec["command"]
    if cmd is None:
        assert rec.get("command_reconstructed_from"), f"{name}: command null without saying why"
    else:
        assert isinstance(cmd, str) and cmd.strip(), f"{name}: empty command"
    fb = rec.get("fastbg")
    commit = (fb.get("commit") if isinstance(fb, dict) else None) or rec.get("recorded_in_commit")
    assert commit and re.fullmatch(r"[0-9a-f]{7,40}", commit), \
        f"{name}: no commit (fastbg.commit, written by experiments/record.py, or recorded_in_commit)"


def test_every_meta_has_its_data_file():
    for meta in RESULTS.rglob("*.meta.json"):
        stem = meta.name[: -len(".meta.json")]
        assert (meta.parent / f"{stem}.jsonl.gz").exists(), f"{meta}: no {stem}.jsonl.gz beside it"
    for data in RESULTS.rglob("*.jsonl.gz"):
        with gzip.open(data, "rt") as fh:
            json.loads(fh.readline())
        assert data.with_name(data.name[: -len(".jsonl.gz")] + ".meta.json").exists(), f"{data}: no .meta.json"


@pytest.fixture()
def record_module(monkeypatch):
    spec = importlib.util.spec_from_file_location("record", EXPERIMENTS / "record.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_newly_written_result_has_its_command_and_commit(tmp_path, record_module, monkeypatch):
    monkeypatch.setattr(sys, "orig_argv", ["/usr/bin/python3", "experiments/x.py", "--seed", "1", "a b"])
    out = tmp_path / "r.json"
    record_module.write_json(out, {"rows": [1, 2], "fastbg": "0.1.0"})
    rec = json.loads(out.read_text())
    assert rec["command"] == "python experiments/x.py --seed 1 'a b'"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rec["date_utc"])
    assert rec["rows"] == [1, 2]
    fb = rec["fastbg"]
    assert fb["version"] and len(fb["nn2_npz_sha256"]) == 64
    head = subprocess.run(["git", "-C", fb["path"], "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("fastbg is not imported from a git checkout")
    assert fb["commit"] == head.stdout.strip()
    assert fb["dirty"] in (True, False)
    # a test's record is a record too: what the test itself says
    test_every_result_records_its_command_and_commit("new", rec)


def test_stamp_keeps_what_a_script_recorded(record_module):
    rec = record_module.stamp({"command": "python experiments/y.py", "fastbg": {"version": "9", "call": "x"}})
    assert rec["command"] == "python experiments/y.py"
    assert rec["fastbg"]["version"] == "9" and rec["fastbg"]["call"] == "x" and "commit" in rec["fastbg"]


#: Scripts that write JSON under experiments/results without experiments/record.py, and why.
WRITES_OTHERWISE = {
    "evaluator/labels.py": "training labels (experiments/labels/), not results; run by the lead's generation 19",
    "evaluator/family_positions.py": "reads a results set (--exclude-set) and writes training positions",
    "evaluator/ship.py": "reads evaluator_generations.jsonl and writes the package's nn2.json",
}


def test_scripts_that_write_results_use_the_record_helper():
    missing = []
    for path in sorted(EXPERIMENTS.glob("*.py")) + sorted((EXPERIMENTS / "evaluator").glob("*.py")):
        rel = str(path.relative_to(EXPERIMENTS))
        src = path.read_text()
        writes_json = re.search(r"json\.dump|write_text\(json", src)
        into_results = re.search(r"RESULTS|results/|\"results\"", src)
        if rel == "record.py" or not (writes_json and into_results) or rel in WRITES_OTHERWISE:
            continue
        if not re.search(r"^import record\b", src, re.M):
            missing.append(rel)
    assert not missing, f"scripts that write results without experiments/record.py: {missing}"


def test_the_index_names_every_script():
    index = (EXPERIMENTS / "README.md").read_text()
    scripts = sorted(EXPERIMENTS.glob("*.py")) + sorted((EXPERIMENTS / "evaluator").glob("*.py")) \
        + sorted((EXPERIMENTS / "evaluator").glob("*.sh"))
    missing = [str(p.relative_to(EXPERIMENTS)) for p in scripts if p.name not in index]
    assert not missing, f"experiments/README.md does not index {missing}"

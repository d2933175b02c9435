"""Importing the command line changes nothing in the importing process (issue 37).

``fastbg.cli`` installs its start-up Ctrl-C handler and a forgiving stderr only when the
process is the ``fastbg`` console script or ``python -m fastbg``; another package's
``python -m`` (``python -m pytest``, whose ``argv[0]`` is its own ``__main__.py``) keeps its
handlers and its stderr, and the handlers ``main()`` installs for a command end with it.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_import_under_another_packages_python_m_changes_no_handler_nor_stderr():
    r = _run("""
        import os, signal, sys
        sys.argv[0] = os.path.join("site-packages", "pytest", "__main__.py")
        before, err = signal.getsignal(signal.SIGINT), sys.stderr
        import fastbg.cli
        assert not fastbg.cli._CONSOLE
        assert signal.getsignal(signal.SIGINT) is before, signal.getsignal(signal.SIGINT)
        assert sys.stderr is err
        assert fastbg.cli.main(["show", "start"]) == 0
        assert signal.getsignal(signal.SIGINT) is before
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        print("ok")
    """)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr


def test_console_mode_gives_the_handlers_back_after_a_command():
    r = _run("""
        import os, signal, sys
        sys.argv[0] = os.path.join("somewhere", "fastbg", "__main__.py")
        import fastbg.cli
        assert fastbg.cli._CONSOLE
        start = signal.getsignal(signal.SIGINT)
        assert start is fastbg.cli._interrupted_at_start
        assert fastbg.cli.main(["show", "start"]) == 0
        assert signal.getsignal(signal.SIGINT) is start
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_a_sigterm_after_an_in_process_command_stops_the_process_not_a_later_run():
    # The flaky cross-engine test (issue 37): test_cubeful_vr's pure-Python run of
    # test_both_engines_give_the_same_bits[money Jacoby] once gave counts [0, 0, ...] where
    # the core's were [0, 2, ...], in a full `python -m pytest` run. The earlier in-process
    # CLI tests had left fastbg's handlers installed (SIGTERM taken as a Ctrl-C), so a
    # SIGTERM to pytest became a KeyboardInterrupt in the 30 s pure-Python run, which ends
    # such a run with the games finished so far (none: interrupted=True, all counts 0) and
    # pytest played on. The process's own SIGTERM must stay in force after a command.
    r = _run("""
        import os, signal, sys
        signal.signal(signal.SIGTERM, signal.SIG_DFL)   # the process's own
        sys.argv[0] = os.path.join("site-packages", "pytest", "__main__.py")
        import fastbg.cli
        assert fastbg.cli.main(["show", "start"]) == 0
        import fastbg
        from fastbg.reference import cubeful as rc
        real = rc.play_cubeful
        def play_cubeful(*args, **kwargs):      # a SIGTERM as the first game starts
            os.kill(os.getpid(), signal.SIGTERM)
            return real(*args, **kwargs)
        rc.play_cubeful = play_cubeful
        r = fastbg.cubeful_rollout("4HPMwQCMz+AIIQ", 3, seed=7, engine="python", vr=True,
                                   state=fastbg.MatchState.money(jacoby=True))
        print("played on:", r.games, "games, interrupted", r.interrupted)
    """)
    assert r.returncode == -signal.SIGTERM and "played on" not in r.stdout, (r.returncode, r.stdout[-200:])

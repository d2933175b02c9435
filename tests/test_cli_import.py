"""Importing the command line changes nothing in the importing process (issue 37).

``fastbg.cli`` installs its start-up Ctrl-C handler and a forgiving stderr only when the
process is the ``fastbg`` console script or ``python -m fastbg``; another package's
``python -m`` (``python -m pytest``, whose ``argv[0]`` is its own ``__main__.py``) keeps its
handlers and its stderr, and the handlers ``main()`` installs for a command end with it.
"""
from __future__ import annotations

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

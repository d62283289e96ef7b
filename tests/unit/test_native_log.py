"""A local llama.cpp server's C++ log goes to a file in the run folder, never to the user's terminal, while
Python's own progress lines still reach the terminal."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_native_writes_go_to_the_file_and_python_lines_to_the_terminal(tmp_path):
    log = tmp_path / "run" / "llama-server.log"
    script = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from automl_agent.agents.brains.local_llm import NativeLogToFile
        from automl_agent.console import Reporter
        reporter = Reporter()  # made before the redirect, as the CLI's is
        redirect = NativeLogToFile(Path({str(log)!r}))
        os.write(2, b"srv  slot launch_slot_: id 0 | task 0 | processing task\\n")  # what C++ code does
        reporter.say("> PLAN: the manager drafting plans ...")
        print("a warning from Python", file=sys.stderr)
        redirect.restore()
        os.write(2, b"after the server stopped\\n")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "slot launch_slot_" in log.read_text() and "PLAN" not in log.read_text()
    assert "slot" not in done.stderr
    assert "> PLAN: the manager drafting plans ..." in done.stderr and "a warning from Python" in done.stderr
    assert "after the server stopped" in done.stderr


def test_a_late_restore_leaves_what_others_installed_since_untouched(tmp_path):
    """The server may stop in a later test than the one that started it: the harness's stderr, installed since,
    must stay installed and open (CI once saw every later test fail on a closed capture file)."""
    script = textwrap.dedent(f"""
        import io, os, sys
        from pathlib import Path
        from automl_agent.agents.brains.local_llm import NativeLogToFile
        redirect = NativeLogToFile(Path({str(tmp_path / "llama-server.log")!r}))
        harness = io.StringIO()
        sys.stderr = harness                     # what pytest's capsys does for the next test
        saved = os.dup(2)
        other = os.open({str(tmp_path / "other.log")!r}, os.O_WRONLY | os.O_CREAT)
        os.dup2(other, 2)                        # someone else points descriptor 2 elsewhere too
        redirect.restore()
        assert sys.stderr is harness and not harness.closed
        os.write(2, b"still theirs\\n")
        os.dup2(saved, 2)
        print("ok", file=sys.__stdout__)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert (tmp_path / "other.log").read_text() == "still theirs\n"

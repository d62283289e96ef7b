"""Hostile training scripts: each is stopped or contained, says why, and leaves the machine and this process as
they were. The bubblewrap layer is installed by `make setup`; where it is missing the guard's own cases still run."""

from __future__ import annotations

import os
import socket
import textwrap
import threading
import time
from pathlib import Path

import pytest

from automl_agent.sandbox import bubblewrap, isolation_summary, run_script

ISOLATED = not bubblewrap.unavailable_reason()
needs_bwrap = pytest.mark.skipif(not ISOLATED, reason=f"bubblewrap unavailable: {bubblewrap.unavailable_reason()}")


def _run(tmp_path: Path, body: str, **kwargs):
    script = tmp_path / "hostile.py"
    script.write_text(textwrap.dedent(body))
    kwargs.setdefault("timeout_s", 60)
    result = run_script(script, tmp_path / "run", **kwargs)
    return result, result.log_path.read_text(errors="replace")


def _own_children() -> set[int]:
    return {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _ppid(p) == os.getpid()}


def _ppid(entry: Path) -> int:
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def _comm(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "comm").read_text().strip()
    except OSError:
        return ""


def _ours_or_escaped(pid: int) -> bool:
    """A sandboxed process this test must answer for: one of this process's descendants, or an orphan that got out
    of its bubblewrap (its parents lead to init without a bwrap on the way). Scripts that another test process runs
    at the same time (pytest -n 2) sit under that process's bwrap and are not this test's."""
    seen = 0
    while pid > 1 and seen < 64:
        if pid == os.getpid():
            return True
        if _comm(pid) == "bwrap":
            return _descends_from_me(pid)
        pid, seen = _ppid(Path("/proc") / str(pid)), seen + 1
    return True


def _descends_from_me(pid: int) -> bool:
    for _ in range(64):
        if pid == os.getpid():
            return True
        if pid <= 1:
            return False
        pid = _ppid(Path("/proc") / str(pid))
    return False


def _processes_of_uid_range() -> int:
    low, high = bubblewrap._SANDBOX_UID_RANGE
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if low <= entry.stat().st_uid <= high and _ours_or_escaped(int(entry.name)):
                    count += 1
            except OSError:
                pass
    return count


@pytest.fixture(autouse=True)
def _leaves_nothing_behind():
    before = _own_children()
    yield
    time.sleep(0.2)
    assert _own_children() <= before, "the sandbox left a child process behind"
    assert _processes_of_uid_range() == 0, "a sandboxed process outlived its script"


def test_the_run_says_which_layer_holds_the_script():
    assert isolation_summary().startswith("bubblewrap" if ISOLATED else "guard only")


def test_an_infinite_loop_is_stopped_at_the_time_limit(tmp_path):
    result, log = _run(tmp_path, "while True:\n    pass\n", timeout_s=3)
    assert result.timed_out and result.duration_s < 15
    assert "time limit" in result.stopped_because and "[sandbox] killed after the 3 s time limit" in log


def test_a_memory_hog_is_stopped_by_the_cap(tmp_path):
    result, log = _run(tmp_path, """
        chunks = []
        while True:
            chunks.append(bytearray(256 * 1024 ** 2))
            print("holding", len(chunks) * 256, "MB", flush=True)
    """, memory_mb=1024)
    assert result.returncode != 0 and "MemoryError" in log
    assert "holding 1024 MB" not in log


@needs_bwrap
def test_a_fork_bomb_hits_the_process_limit_and_dies_with_the_script(tmp_path):
    result, log = _run(tmp_path, """
        import os, time
        children = 0
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                children += 1
        except OSError as exc:
            print("FORK REFUSED after", children, type(exc).__name__, flush=True)
    """, threads=1)
    assert "FORK REFUSED" in log
    refused_after = int(log.split("FORK REFUSED after")[1].split()[0])
    assert refused_after < 1024


def test_a_shell_through_subprocess_is_refused(tmp_path):
    result, log = _run(tmp_path, """
        import subprocess
        subprocess.run(["sh", "-c", "echo SHELL_$((40 + 2))"])
    """)
    assert result.returncode != 0 and "SHELL_42" not in log
    assert "subprocess.Popen is not allowed in the training sandbox" in log


@needs_bwrap
def test_a_shell_through_ctypes_runs_unprivileged_and_writes_nothing(tmp_path):
    """The audit hook cannot see execv through ctypes; the namespace and the uid hold it."""
    target = Path.cwd() / "SANDBOX_ESCAPE"
    result, log = _run(tmp_path, f"""
        import ctypes
        libc = ctypes.CDLL(None)
        argv = (ctypes.c_char_p * 4)(b"/bin/sh", b"-c", b"echo uid=$(id -u); touch {target} 2>&1; ls /root", None)
        libc.execv(b"/bin/sh", argv)
    """)
    assert "uid=0" not in log and "uid=" in log
    assert not target.exists()
    assert "Read-only file system" in log or "Permission denied" in log  # read-only root, or a re-made parent


def test_the_parents_environment_and_secrets_are_out_of_reach(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak-1234")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL")
    (home / ".kaggle").mkdir()
    (home / ".kaggle" / "kaggle.json").write_text('{"username": "u", "key": "KAGGLE-KEY-MATERIAL"}')
    monkeypatch.setenv("HOME", str(home))
    result, log = _run(tmp_path, f"""
        import os, glob
        print("ENV", dict(os.environ))
        for path in glob.glob("/proc/*/environ"):
            try:
                print(path, open(path, "rb").read())
            except OSError as exc:
                print(path, "unreadable", exc.errno)
        try:
            print("PPID ENV", open(f"/proc/{{os.getppid()}}/environ", "rb").read())
        except OSError as exc:
            print("PPID ENV unreadable", exc.errno)
        for path in ["{home}/.ssh/id_ed25519", "{home}/.kaggle/kaggle.json", "/root/.ssh/id_rsa",
                     "/root/.kaggle/kaggle.json", "/root/.automl-agent/stack.json"]:
            try:
                print("READ", path, open(path).read())
            except OSError as exc:
                print("DENIED", path, type(exc).__name__)
    """)
    assert result.returncode == 0, log
    for secret in ("sk-do-not-leak-1234", "PRIVATE-KEY-MATERIAL", "KAGGLE-KEY-MATERIAL"):
        assert secret not in log
    if ISOLATED:
        assert "READ " not in log


@pytest.fixture
def loopback_server():
    """A TCP listener on 127.0.0.1 standing in for the Prefect and MLflow servers; it counts who got through."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    accepted: list[str] = []
    stop = threading.Event()

    def serve():
        deadline = time.time() + 120
        while not stop.is_set() and time.time() < deadline:
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            accepted.append("connection")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(timeout=5)
    server.close()


@needs_bwrap
def test_loopback_servers_are_unreachable_by_socket_urllib_and_ctypes(tmp_path, loopback_server):
    port, accepted = loopback_server
    result, log = _run(tmp_path, f"""
        import ctypes, socket, struct, urllib.request
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=3)
            print("SOCKET CONNECTED")
        except OSError as exc:
            print("socket refused:", exc)
        try:
            urllib.request.urlopen("http://127.0.0.1:{port}/api/health", timeout=3)
            print("URLLIB CONNECTED")
        except Exception as exc:
            print("urllib refused:", exc)
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.socket(2, 1, 0)
        address = struct.pack("=H", 2) + struct.pack("!H4s8x", {port}, bytes([127, 0, 0, 1]))
        print("ctypes connect returned", libc.connect(fd, address, len(address)), "errno", ctypes.get_errno())
    """)
    assert accepted == []
    assert "CONNECTED" not in log and "ctypes connect returned -1 errno 111" in log  # ECONNREFUSED: nobody there


@needs_bwrap
def test_outside_addresses_are_unreachable_even_through_ctypes(tmp_path):
    """192.0.2.1 is a documentation address; in the sandbox's network namespace there is no route to anything, so
    the attempt fails at once and no packet leaves this machine."""
    result, log = _run(tmp_path, """
        import ctypes, struct
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.socket(2, 1, 0)
        address = struct.pack("=H", 2) + struct.pack("!H4s8x", 80, bytes([192, 0, 2, 1]))
        print("ctypes connect returned", libc.connect(fd, address, len(address)), "errno", ctypes.get_errno())
    """)
    assert "ctypes connect returned -1 errno 101" in log  # ENETUNREACH


def test_outside_addresses_are_refused_by_the_guard(tmp_path):
    result, log = _run(tmp_path, """
        import socket
        socket.create_connection(("192.0.2.1", 80), timeout=2)
    """)
    assert result.returncode != 0 and "network access is not allowed in the training sandbox" in log


@needs_bwrap
def test_writes_outside_the_run_folder_fail(tmp_path):
    beside = tmp_path / "beside.txt"
    workspace_store = tmp_path / "workspace" / "mlflow.db"
    workspace_store.parent.mkdir()
    workspace_store.write_text("STORE")
    result, log = _run(tmp_path, f"""
        import os
        for path in ["{beside}", "{workspace_store}", "/etc/automl-escape", "{Path.cwd() / 'ESCAPE'}",
                     "/tmp/private-scratch", "results.json"]:
            try:
                with open(path, "w") as handle:
                    handle.write("overwritten")
                print("WROTE", path)
            except OSError as exc:
                print("DENIED", path, exc.strerror)
    """, hide=[tmp_path / "workspace"])
    assert result.returncode == 0, log
    assert not beside.exists() and workspace_store.read_text() == "STORE"
    assert not Path("/etc/automl-escape").exists() and not (Path.cwd() / "ESCAPE").exists()
    assert "WROTE results.json" in log and "WROTE /tmp/private-scratch" in log
    assert not Path("/tmp/private-scratch").exists()
    assert (tmp_path / "run" / "results.json").stat().st_uid == os.getuid()


def test_a_symlink_left_in_the_run_folder_cannot_lead_the_parent_to_a_secret(tmp_path):
    secret = tmp_path / "home" / ".ssh" / "id_ed25519"
    secret.parent.mkdir(parents=True)
    secret.write_text("PRIVATE-KEY-MATERIAL")
    result, log = _run(tmp_path, f"""
        import os
        os.symlink("{secret}", "results.json")
        os.makedirs("model", exist_ok=True)
        os.symlink("/etc/shadow", "model/model.joblib")
        print("LINKED")
    """)
    assert "LINKED" in log
    assert not (tmp_path / "run" / "results.json").exists() and not (tmp_path / "run" / "model" / "model.joblib").exists()


def test_gigabytes_of_output_are_cut_at_the_cap(tmp_path):
    result, log = _run(tmp_path, """
        import sys
        line = "x" * (1024 * 1024 - 1) + "\\n"
        for _ in range(4096):
            sys.stdout.write(line)
        sys.stdout.write("y" * (1024 ** 3))
    """, max_output_mb=8)
    assert result.stopped_because == "printed more than 8 MB"
    assert result.log_path.stat().st_size < 9 * 1024 * 1024 and not result.timed_out


def test_one_endless_line_without_newlines_is_cut_too(tmp_path):
    result, _ = _run(tmp_path, """
        import sys
        while True:
            sys.stdout.write("z" * 65536)
    """, max_output_mb=4)
    assert result.stopped_because == "printed more than 4 MB"


def test_a_gradio_launch_is_refused_instead_of_blocking(tmp_path):
    result, log = _run(tmp_path, """
        import gradio as gr
        gr.Interface(fn=lambda x: x, inputs="text", outputs="text").launch(prevent_thread_lock=False)
        print("DEMO SERVED")
    """, timeout_s=120)
    assert not result.timed_out and result.returncode != 0 and "DEMO SERVED" not in log
    assert "Cannot find empty port" in log  # gradio's own words for the refused bind


def test_the_parent_is_unharmed_after_all_of_it(tmp_path):
    """After a hostile script the same process runs an honest one normally."""
    _run(tmp_path, "import os\nos.kill(os.getppid(), 9)\n")
    result, log = _run(tmp_path, "print('HONEST WORK DONE')\n")
    assert result.returncode == 0 and "HONEST WORK DONE" in log

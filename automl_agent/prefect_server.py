"""A Prefect server that belongs to the workspace: started once in the background, reused by every later command.

Prefect's ephemeral mode starts a fresh API server inside every command (12-25 s on two cores). A workspace
server pays that once, gives the user the Prefect UI for their runs, and lets later commands start in seconds.
It binds 127.0.0.1 only and stops itself after an idle period (see `IDLE_MINUTES_DEFAULT`).

Layout: `<workdir>/prefect/server.json` records the URL and the supervisor's pid; `last_used` is touched by each
command that uses the server, and the supervisor stops the server when that file is older than the idle limit.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
from pydantic import BaseModel

from .errors import UserFacingError
from .sandbox import die_with_parent

IDLE_MINUTES_DEFAULT = 60.0
STARTUP_TIMEOUT_S = 180.0


class ServerInfo(BaseModel):
    url: str
    port: int
    pid: int
    prefect_home: str
    started_at: float
    idle_minutes: float

    @property
    def api_url(self) -> str:
        return f"{self.url}/api"


def _home(workdir: Path) -> Path:
    return workdir / "prefect"


def _info_path(workdir: Path) -> Path:
    return _home(workdir) / "server.json"


def _last_used_path(workdir: Path) -> Path:
    return _home(workdir) / "last_used"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_healthy(info: ServerInfo, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(f"{info.api_url}/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def read_info(workdir: Path) -> ServerInfo | None:
    """The recorded server, or None when none is recorded or its supervisor is gone."""
    path = _info_path(workdir)
    if not path.exists():
        return None
    try:
        info = ServerInfo.model_validate_json(path.read_text())
    except ValueError:
        return None
    return info if _alive(info.pid) else None


def touch(workdir: Path) -> None:
    path = _last_used_path(workdir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


@contextmanager
def _locked(workdir: Path):
    """One starter at a time, so two commands started together share one server."""
    _home(workdir).mkdir(parents=True, exist_ok=True)
    with open(_home(workdir) / "server.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start(workdir: Path, idle_minutes: float = IDLE_MINUTES_DEFAULT) -> tuple[ServerInfo, bool]:
    """Start the workspace server unless one is running. Returns (info, started_now) without waiting for health."""
    workdir = workdir.resolve()
    with _locked(workdir):
        info = read_info(workdir)
        if info is not None:
            touch(workdir)
            return info, False
        port = _free_port()
        touch(workdir)
        log = open(_home(workdir) / "server.log", "ab")
        proc = subprocess.Popen(
            [sys.executable, "-m", "automl_agent.prefect_server", "--workdir", str(workdir), "--port", str(port),
             "--idle-minutes", str(idle_minutes)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            env=_server_env(workdir))
        info = ServerInfo(url=f"http://127.0.0.1:{port}", port=port, pid=proc.pid, prefect_home=str(_home(workdir)),
                          started_at=time.time(), idle_minutes=idle_minutes)
        _info_path(workdir).write_text(info.model_dump_json(indent=2))
        return info, True


def wait_healthy(info: ServerInfo, timeout: float = STARTUP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if is_healthy(info):
            return
        if not _alive(info.pid):
            break
        time.sleep(0.25)
    log = Path(info.prefect_home) / "server.log"
    tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
    raise UserFacingError(
        f"The workspace Prefect server did not come up at {info.url}.",
        f"See {log} (last lines: {tail.strip()[-300:] or 'empty'}). "
        "Or run with `--prefect ephemeral`, or point PREFECT_API_URL at a running Prefect server.",
        status="failed")


def stop(workdir: Path, timeout: float = 15.0) -> bool:
    """Stop the workspace server; True if one was running."""
    workdir = workdir.resolve()
    info = read_info(workdir)
    _info_path(workdir).unlink(missing_ok=True)
    if info is None:
        return False
    try:
        os.killpg(info.pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(info.pid):
        time.sleep(0.2)
    if _alive(info.pid):
        os.killpg(info.pid, signal.SIGKILL)
    return True


def _server_env(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update({
        "PREFECT_HOME": str(_home(workdir)),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_ENABLED": "true",
        "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    })
    return env


def _supervise(workdir: Path, port: int, idle_minutes: float) -> int:
    """Run uvicorn with Prefect's app; stop it when the workspace has been idle too long or on SIGTERM."""
    import importlib.util

    prefect_dir = Path(importlib.util.find_spec("prefect").origin).parent  # without importing prefect (2 s)
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(prefect_dir.parent), "--factory",
         "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning", "--lifespan", "on"], preexec_fn=die_with_parent)
    stopping = False

    def _stop(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    last_used = _last_used_path(workdir)
    while not stopping and server.poll() is None:
        time.sleep(1.0)
        if idle_minutes > 0 and last_used.exists() and time.time() - last_used.stat().st_mtime > idle_minutes * 60:
            print(f"idle for {idle_minutes:g} min: stopping", flush=True)
            break
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    info = read_info(workdir)
    if info is not None and info.pid == os.getpid():
        _info_path(workdir).unlink(missing_ok=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Supervise the workspace Prefect server (started by automl-agent).")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--idle-minutes", type=float, default=IDLE_MINUTES_DEFAULT)
    args = parser.parse_args(argv)
    return _supervise(Path(args.workdir), args.port, args.idle_minutes)


if __name__ == "__main__":
    sys.exit(main())

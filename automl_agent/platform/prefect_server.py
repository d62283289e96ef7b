"""The user's Prefect server: started once in the background, reused by every command of every workspace.

Prefect's ephemeral mode starts a fresh API server inside every command (12-25 s on two cores). One server per
user (as Prefect's own ~/.prefect is per user) pays that and its database migrations once, gives the user the
Prefect UI for all their runs, and lets later commands, in any workspace, start in seconds. The machine holds at
most one idle server. It binds 127.0.0.1 only and stops itself after an idle period (`IDLE_MINUTES_DEFAULT`).

Layout: `<user home>/prefect/server.json` (see automl_agent.config.user_home) records the URL and the supervisor's pid;
`last_used` is touched by each command that uses the server, and the supervisor stops the server when that file
is older than the idle limit. `server stop` finds it there from any folder.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
from pydantic import BaseModel

from ..config import user_home
from ..errors import UserFacingError
from .processes import alive, free_port
from ..sandbox import die_with_parent

IDLE_MINUTES_DEFAULT = 60.0
STARTUP_TIMEOUT_S = 180.0


class ServerInfo(BaseModel):
    url: str
    port: int
    pid: int
    prefect_home: str
    started_at: float
    idle_minutes: float
    database: str = "sqlite"  # or "postgresql": what `stack up --db` chose (the URL itself holds a password)

    @property
    def api_url(self) -> str:
        return f"{self.url}/api"


def _home() -> Path:
    return user_home() / "prefect"


def _info_path() -> Path:
    return _home() / "server.json"


def _last_used_path() -> Path:
    return _home() / "last_used"


def is_healthy(info: ServerInfo, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(f"{info.api_url}/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def read_info() -> ServerInfo | None:
    """The recorded server, or None when none is recorded or its supervisor is gone."""
    path = _info_path()
    if not path.exists():
        return None
    try:
        info = ServerInfo.model_validate_json(path.read_text())
    except ValueError:
        return None
    return info if alive(info.pid) else None


def _pinned_path() -> Path:
    return _home() / "pinned"


def pin(pinned: bool) -> None:
    """A pinned server (the stack's: workers poll it) never stops for idleness."""
    _home().mkdir(parents=True, exist_ok=True)
    if pinned:
        _pinned_path().touch()
    else:
        _pinned_path().unlink(missing_ok=True)


def touch() -> None:
    path = _last_used_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


@contextmanager
def _locked():
    """One starter at a time, so two commands started together share one server."""
    _home().mkdir(parents=True, exist_ok=True)
    with open(_home() / "server.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start(idle_minutes: float = IDLE_MINUTES_DEFAULT, port: int | None = None,
          database_url: str | None = None) -> tuple[ServerInfo, bool]:
    """Start the user's server unless one is running. Returns (info, started_now) without waiting for health.
    `database_url`: Prefect's database (postgresql+asyncpg://...); None: SQLite in the Prefect home."""
    wanted = "postgresql" if database_url else "sqlite"
    with _locked():
        info = read_info()
        if info is not None:
            if info.database != wanted:
                raise UserFacingError(f"Your Prefect server runs already, on {info.database} (pid {info.pid}).",
                                      f"Stop it first (`automl-agent server stop`), then start again on {wanted}.")
            touch()
            return info, False
        port = port or free_port()
        touch()
        with open(_home() / "server.log", "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "automl_agent.platform.prefect_server", "--port", str(port),
                 "--idle-minutes", str(idle_minutes)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                env=_server_env(port, database_url))
        info = ServerInfo(url=f"http://127.0.0.1:{port}", port=port, pid=proc.pid, prefect_home=str(_home()),
                          started_at=time.time(), idle_minutes=idle_minutes, database=wanted)
        _info_path().write_text(info.model_dump_json(indent=2))
        return info, True


def wait_healthy(info: ServerInfo, timeout: float = STARTUP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if is_healthy(info):
            return
        if not alive(info.pid):
            break
        time.sleep(0.25)
    log = Path(info.prefect_home) / "server.log"
    tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
    raise UserFacingError(
        f"The Prefect server did not come up at {info.url}.",
        f"See {log} (last lines: {tail.strip()[-300:] or 'empty'}). "
        "Or run with `--prefect ephemeral`, or point PREFECT_API_URL at a running Prefect server.",
        status="failed")


def stop(timeout: float = 15.0) -> bool:
    """Stop the user's server; True if one was running."""
    info = read_info()
    _info_path().unlink(missing_ok=True)
    if info is None:
        return False
    try:
        os.killpg(info.pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive(info.pid):
        time.sleep(0.2)
    if alive(info.pid):
        os.killpg(info.pid, signal.SIGKILL)
    return True


def _server_env(port: int, database_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_API_DATABASE_CONNECTION_URL")}
    if database_url:
        env["PREFECT_API_DATABASE_CONNECTION_URL"] = database_url
    env.update({
        # the UI asks the server where its API is (/ui-settings); unset, it answers 127.0.0.1:4200
        "PREFECT_UI_API_URL": f"http://127.0.0.1:{port}/api",
        "PREFECT_HOME": str(_home()),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_ENABLED": "true",
        "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    })
    return env


def _supervise(port: int, idle_minutes: float) -> int:
    """Run uvicorn with Prefect's app; stop it when the workspace has been idle too long or on SIGTERM."""
    import importlib.util

    spec = importlib.util.find_spec("prefect")  # found without importing prefect (2 s)
    if spec is None or spec.origin is None:
        raise RuntimeError("prefect is not installed in this environment")
    prefect_dir = Path(spec.origin).parent
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
    last_used = _last_used_path()
    while not stopping and server.poll() is None:
        time.sleep(1.0)
        if (idle_minutes > 0 and last_used.exists() and not _pinned_path().exists()
                and time.time() - last_used.stat().st_mtime > idle_minutes * 60):
            print(f"idle for {idle_minutes:g} min: stopping", flush=True)
            break
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    info = read_info()
    if info is not None and info.pid == os.getpid():
        _info_path().unlink(missing_ok=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Supervise the user's Prefect server (started by automl-agent).")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--idle-minutes", type=float, default=IDLE_MINUTES_DEFAULT)
    args = parser.parse_args(argv)
    return _supervise(args.port, args.idle_minutes)


if __name__ == "__main__":
    sys.exit(main())

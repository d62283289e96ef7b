"""The team stack on one machine, as real processes: the Prefect server (the user's, with its UI), an MLflow
tracking server (registry, artifacts served through its proxy) and one Prefect worker per work pool.

`automl-agent stack up` starts what is not running and waits until each part is healthy; `stack status` checks
them; `stack down` stops the workers first, then the servers, each by its process group, and waits until every
process is gone. The processes are recorded in `<user home>/stack/stack.json`. A team runs the same parts on its
own machines (infra/compose.yaml, infra/kubernetes/) and points PREFECT_API_URL and MLFLOW_TRACKING_URI at them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from pydantic import BaseModel, Field

from . import prefect_server
from ..config import user_home
from ..errors import UserFacingError
from .processes import alive, free_port

POOLS = ("cpu", "gpu")
STARTUP_TIMEOUT_S = 180.0
# a worker asks for scheduled runs this often (Prefect's default is 10 s): dispatch latency, not load, matters here
WORKER_QUERY_SECONDS = "1"


class Component(BaseModel):
    name: str
    pid: int
    url: str | None = None
    pool: str | None = None
    log: str


class StackInfo(BaseModel):
    prefect_api_url: str
    prefect_ui_url: str
    mlflow_url: str
    workspace: str
    components: list[Component] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what the user should know, e.g. no GPU here")

    def exports(self) -> dict[str, str]:
        return {"PREFECT_API_URL": self.prefect_api_url, "MLFLOW_TRACKING_URI": self.mlflow_url}


def stack_dir() -> Path:
    path = user_home() / "stack"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _info_path() -> Path:
    return stack_dir() / "stack.json"


def read_info() -> StackInfo | None:
    path = _info_path()
    if not path.exists():
        return None
    try:
        return StackInfo.model_validate_json(path.read_text())
    except ValueError:
        return None


def _healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(url, timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _wait(check, what: str, component: Component, timeout: float = STARTUP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        if not alive(component.pid):
            break
        time.sleep(0.25)
    tail = Path(component.log).read_text(errors="replace")[-600:] if Path(component.log).exists() else ""
    raise UserFacingError(f"{what} did not become healthy (log {component.log}): {tail.strip()[-300:] or 'empty log'}",
                          "Fix what the log says, then `automl-agent stack down` and `automl-agent stack up` again.",
                          status="failed")


def _spawn(name: str, command: list[str], env: dict[str, str], **extra) -> Component:
    log = stack_dir() / f"{name}.log"
    with open(log, "ab") as handle:
        proc = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env)
    return Component(name=name, pid=proc.pid, log=str(log), **extra)


def _start_mlflow(port: int | None, database_url: str | None = None) -> Component:
    """`database_url`: the tracking store on PostgreSQL; None keeps it in SQLite beside the stack. The URL (it holds
    the password) goes through MLflow's environment variable, not the command line that `ps` shows."""
    folder = stack_dir()
    port = port or free_port()
    command = [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
               "--artifacts-destination", str(folder / "mlartifacts"), "--serve-artifacts"]
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["MLFLOW_BACKEND_STORE_URI"] = database_url or f"sqlite:///{folder / 'mlflow.db'}"
    return _spawn("mlflow", command, env, url=f"http://127.0.0.1:{port}")


def worker_env(prefect_api_url: str, mlflow_url: str, workspace: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "PREFECT_API_URL": prefect_api_url, "MLFLOW_TRACKING_URI": mlflow_url, "AUTOML_AGENT_WORKDIR": str(workspace),
        "PREFECT_WORKER_QUERY_SECONDS": WORKER_QUERY_SECONDS, "PREFECT_WORKER_PREFETCH_SECONDS": "0",
        "PREFECT_HOME": str(stack_dir() / "prefect-client"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "MLFLOW_DISABLE_TELEMETRY": "true",  # set before any flow run imports MLflow (see configure_environment)
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
        "PREFECT_LOCAL_STORAGE_PATH": str(workspace / "prefect" / "results"),
    })
    return env


def _start_worker(pool: str, env: dict[str, str]) -> Component:
    command = [sys.executable, "-m", "prefect", "worker", "start", "--pool", pool, "--type", "process",
               "--name", f"automl-agent-{pool}-{os.getpid()}"]
    return _spawn(f"worker-{pool}", command, env, pool=pool)


def _ensure_pools(api_url: str, pools: tuple[str, ...]) -> None:
    from .prefect_api import ensure_pool, prefect_client

    with prefect_client(api_url) as client:
        for pool in pools:
            ensure_pool(client, pool)


def _workers_online(api_url: str, pools: tuple[str, ...]) -> bool:
    from .prefect_api import prefect_client

    try:
        with prefect_client(api_url) as client:
            return all(any(w.status and w.status.value == "ONLINE" for w in client.read_workers_for_work_pool(pool))
                       for pool in pools)
    except Exception:  # not up yet
        return False


def _team_url(url: str, driver: str, option: str) -> str:
    if not url.startswith(("postgresql://", f"postgresql+{driver}://")):
        choices = ("sqlite (the default), postgres (a server started here from the machine's PostgreSQL), or "
                   if option == "--db" else "leave it out (the --db choice), or give ")
        raise UserFacingError(f"{option} {url!r} is not a database choice.",
                              f"Use {choices}a URL postgresql://USER:PASSWORD@HOST:PORT/DB.")
    return url.replace("postgresql://", f"postgresql+{driver}://", 1)


def _databases(db: str, mlflow_db: str | None) -> tuple[Component | None, str | None, str | None]:
    """(the PostgreSQL component started here, Prefect's database URL, MLflow's) for --db sqlite|postgres|URL and
    --mlflow-db URL; None is SQLite. A team's own URL serves Prefect alone: MLflow's tables need a database of their
    own (both keep an alembic_version table), which --mlflow-db names."""
    mlflow_url = _team_url(mlflow_db, "psycopg2", "--mlflow-db") if mlflow_db else None
    if db == "sqlite":
        return None, None, mlflow_url
    if db != "postgres":
        return None, _team_url(db, "asyncpg", "--db"), mlflow_url
    from . import postgres

    log = stack_dir() / "postgres.log"
    proc, urls = postgres.start(stack_dir(), log)
    return Component(name="postgres", pid=proc.pid, log=str(log)), urls.prefect, mlflow_url or urls.mlflow


def up(mlflow_port: int | None = None, prefect_port: int | None = None, pools: tuple[str, ...] = POOLS,
       db: str = "sqlite", mlflow_db: str | None = None) -> StackInfo:
    """Start whatever of the stack is not running; wait until all of it is healthy. `db`: the servers' database
    (sqlite, postgres or a team's URL for Prefect); `mlflow_db`: a team's URL for MLflow's tracking store."""
    existing = read_info()
    if existing is not None and all(alive(c.pid) for c in existing.components):
        prefect_server.pin(True)
        _check(existing)
        return existing
    if existing is not None:  # a part died: start clean rather than guess which state the rest is in
        down()
    workspace = stack_dir() / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    database, database_url, mlflow_database_url = _databases(db, mlflow_db)
    try:
        server, _ = prefect_server.start(idle_minutes=0, port=prefect_port, database_url=database_url)
    except UserFacingError:
        if database is not None:
            _terminate(database)
        raise
    prefect_server.pin(True)
    components = [Component(name="prefect-server", pid=server.pid, url=server.url,
                            log=str(Path(server.prefect_home) / "server.log"))]
    components += [database] if database else []
    mlflow_component = _start_mlflow(mlflow_port, mlflow_database_url)
    components.append(mlflow_component)
    mlflow_url = mlflow_component.url or ""  # the MLflow component always has its URL
    info = StackInfo(prefect_api_url=server.api_url, prefect_ui_url=server.url, mlflow_url=mlflow_url,
                     workspace=str(workspace), components=components)
    _info_path().write_text(info.model_dump_json(indent=2))
    _wait(lambda: prefect_server.is_healthy(server), "the Prefect server", components[0])
    _wait(lambda: _healthy(f"{mlflow_url}/health"), "the MLflow server", mlflow_component)
    _ensure_pools(server.api_url, pools)
    env = worker_env(server.api_url, mlflow_url, workspace)
    for pool in pools:
        info.components.append(_start_worker(pool, env))
        _info_path().write_text(info.model_dump_json(indent=2))
    workers = [c for c in info.components if c.pool]
    _wait(lambda: _workers_online(server.api_url, pools), "the work pools' workers", workers[0])
    if "gpu" in pools:
        from ..trainkit.devices import training_device

        if training_device() != "cuda":
            info.notes.append("this machine has no GPU torch can use: the gpu pool's worker trains on the CPU here "
                              "(start gpu workers on GPU machines: PREFECT_API_URL=... prefect worker start --pool gpu)")
        _info_path().write_text(info.model_dump_json(indent=2))
    return info


def _check(info: StackInfo) -> None:
    if not _healthy(f"{info.prefect_api_url}/health") or not _healthy(f"{info.mlflow_url}/health"):
        raise UserFacingError("The stack's processes run but a server does not answer.",
                              "Run `automl-agent stack down`, then `automl-agent stack up`.", status="failed")


def status() -> dict:
    """Each part: running (its process), healthy (its API answers, a worker is ONLINE in its pool)."""
    info = read_info()
    if info is None:
        return {"running": False, "components": [], "message": "no stack: start it with `automl-agent stack up`"}
    pools = tuple(c.pool for c in info.components if c.pool)
    online = _workers_online(info.prefect_api_url, pools) if pools else False
    rows = []
    for c in info.components:
        running = alive(c.pid)
        if c.name == "prefect-server":
            healthy = running and _healthy(f"{info.prefect_api_url}/health")
        elif c.name == "mlflow":
            healthy = running and _healthy(f"{c.url}/health")
        elif c.name == "postgres":  # its clients, the Prefect and MLflow servers, answer only when it does
            healthy = running
        else:
            healthy = running and online
        rows.append({**c.model_dump(), "alive": running, "healthy": healthy})
    return {"running": all(r["alive"] for r in rows), "healthy": all(r["healthy"] for r in rows),
            "prefect_ui_url": info.prefect_ui_url, "exports": info.exports(), "workspace": info.workspace,
            "components": rows}


def _descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _terminate(component: Component, timeout: float = 20.0) -> None:
    """SIGTERM the component's process group (a worker's flow runs with it), SIGKILL what outlives the timeout."""
    import psutil

    pids = [component.pid, *_descendants(component.pid)]
    try:
        os.killpg(component.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in pids[1:]:  # children that started their own session
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    _, still = psutil.wait_procs([p for p in map(_process, pids) if p is not None], timeout=timeout)
    for proc in still:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass


def _process(pid: int):
    import psutil

    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


def down() -> list[str]:
    """Workers first (no new flow runs start), then the MLflow and Prefect servers. Returns what was stopped."""
    info = read_info()
    stopped = []
    if info is not None:
        ordered = sorted(info.components, key=lambda c: (c.pool is None, c.name == "prefect-server"))
        for component in ordered:
            if component.name in ("prefect-server", "postgres"):  # the database goes last, after its clients
                continue
            if alive(component.pid):
                _terminate(component)
                stopped.append(component.name)
    prefect_server.pin(False)
    if prefect_server.stop():
        stopped.append("prefect-server")
    for component in (info.components if info else []):
        if component.name == "postgres" and alive(component.pid):
            _terminate(component)
            stopped.append(component.name)
    _info_path().unlink(missing_ok=True)
    return stopped

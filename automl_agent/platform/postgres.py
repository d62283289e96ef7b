"""A PostgreSQL server for the stack's Prefect and MLflow servers (`automl-agent stack up --db postgres`), started as
a real process from the machine's own PostgreSQL installation, bound to 127.0.0.1, with a generated password. Each
server gets a database of its own: both keep an `alembic_version` table, so they cannot share one.

SQLite serves one user well; with workers heartbeating and several runs at once Prefect's server logs "database is
locked" on it. PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres` account and
lives in /var/tmp (a root-only folder such as a test's tmp dir is not reachable by that account)."""

from __future__ import annotations

import glob
import hashlib
import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

from ..errors import UserFacingError
from .processes import free_port

PREFECT_DATABASE = "prefect"
MLFLOW_DATABASE = "mlflow"
ROLE = "automl"


class DatabaseUrls(NamedTuple):
    prefect: str  # asyncpg: Prefect's server is async
    mlflow: str  # psycopg2: MLflow's tracking store is synchronous SQLAlchemy


def binaries() -> Path | None:
    """The folder of initdb/postgres/pg_isready: on PATH, else Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("initdb") or shutil.which("postgres")
    if found:
        return Path(found).resolve().parent  # Debian links initdb and postgres alone into /usr/local/bin
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def _as_owner() -> dict:
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": "postgres"}


def data_dir(stack_folder: Path) -> Path:
    if os.geteuid() != 0:
        return stack_folder / "postgres"
    digest = hashlib.sha256(str(stack_folder.resolve()).encode()).hexdigest()[:12]
    return Path("/var/tmp/automl-agent-postgres") / digest


def _prepare(folder: Path, bin_dir: Path, password: str) -> None:
    owner = _as_owner()
    folder.mkdir(parents=True, exist_ok=True)
    if owner:
        shutil.chown(folder.parent, "postgres", "postgres")
        shutil.chown(folder, "postgres", "postgres")
    os.chmod(folder, 0o700)
    if (folder / "data" / "PG_VERSION").exists():
        return
    pwfile = folder / "pwfile"
    pwfile.write_text(password)
    if owner:
        shutil.chown(pwfile, "postgres", "postgres")
    done = subprocess.run([str(bin_dir / "initdb"), "-D", str(folder / "data"), "-U", ROLE, "--auth=scram-sha-256",
                           f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C"], capture_output=True, text=True,
                          timeout=120, **owner)
    pwfile.unlink(missing_ok=True)
    if done.returncode != 0:
        raise UserFacingError(f"initdb failed: {done.stderr.strip()[-400:]}",
                              "Check the PostgreSQL installation, or use the default SQLite (`stack up` without --db).",
                              status="failed")


def start(stack_folder: Path, log: Path, port: int | None = None) -> tuple[subprocess.Popen, DatabaseUrls]:
    """Start the server (initialising the cluster the first time); returns the process and the two databases' URLs."""
    bin_dir = binaries()
    if bin_dir is None:
        raise UserFacingError("No PostgreSQL installation found (initdb, postgres).",
                              "Install it (Debian: apt-get install postgresql), give your team's own with "
                              "--db postgresql+asyncpg://USER:PASSWORD@HOST:PORT/DB, or leave --db out for SQLite.")
    folder = data_dir(stack_folder)
    secret = stack_folder / "postgres.password"
    if not secret.exists() or not (folder / "data" / "PG_VERSION").exists():
        secret.write_text(secrets.token_urlsafe(24))
        os.chmod(secret, 0o600)
        shutil.rmtree(folder / "data", ignore_errors=True)
    password = secret.read_text().strip()
    _prepare(folder, bin_dir, password)
    port = port or free_port()
    with open(log, "ab") as handle:
        proc = subprocess.Popen([str(bin_dir / "postgres"), "-D", str(folder / "data"), "-p", str(port), "-k",
                                 str(folder), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
                                stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, **_as_owner())
    env = {**os.environ, "PGPASSWORD": password}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        ready = subprocess.run([str(bin_dir / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)], capture_output=True)
        if ready.returncode == 0:
            break
        time.sleep(0.3)
    if proc.poll() is not None:
        raise UserFacingError(f"PostgreSQL did not start: {log.read_text(errors='replace')[-400:]}",
                              "See the log; or leave --db out for SQLite.", status="failed")
    psql = shutil.which("psql") or str(bin_dir / "psql")
    for database in (PREFECT_DATABASE, MLFLOW_DATABASE):
        failure = _create_database(psql, port, env, database)
        if failure:
            proc.terminate()
            raise UserFacingError(f"Could not create the {database} database: {failure}", "See the PostgreSQL log.",
                                  status="failed")
    server = f"{ROLE}:{password}@127.0.0.1:{port}"
    return proc, DatabaseUrls(prefect=f"postgresql+asyncpg://{server}/{PREFECT_DATABASE}",
                              mlflow=f"postgresql+psycopg2://{server}/{MLFLOW_DATABASE}")


def _create_database(psql: str, port: int, env: dict, database: str) -> str | None:
    """None once `database` exists (created now or before); else what psql said."""
    connect = [psql, "-h", "127.0.0.1", "-p", str(port), "-U", ROLE, "-d", "postgres"]
    exists = subprocess.run([*connect, "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{database}'"],
                            capture_output=True, text=True, env=env, timeout=30)
    if exists.stdout.strip() == "1":
        return None
    created = subprocess.run([*connect, "-c", f"CREATE DATABASE {database}"], capture_output=True, text=True, env=env,
                             timeout=30)
    return None if created.returncode == 0 else created.stderr.strip()[-300:]

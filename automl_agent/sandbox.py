"""Runs generated (untrusted) code: a subprocess with a time limit, a memory cap, a scrubbed environment, no
network, and its working directory in the run folder. It never raises on the script's behalf and never hangs."""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

GUARD_DIR = Path(__file__).resolve().parent / "sandbox_guard"
# no secrets: the basics, and which GPU the worker may use (a gpu pool's worker sets these)
_PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "AUTOML_AGENT_DEVICE",
                 "LD_LIBRARY_PATH")


@dataclass
class SandboxResult:
    returncode: int
    duration_s: float
    timed_out: bool
    log_path: Path
    tail: str


def sandbox_env(cwd: Path, threads: int) -> dict[str, str]:
    """A fresh environment: nothing from the user's environment but the basics, so no key or token leaks in."""
    env = {k: os.environ[k] for k in _PASS_THROUGH if k in os.environ}
    env.update({
        "HOME": str(cwd), "TMPDIR": str(cwd), "PYTHONPATH": str(GUARD_DIR), "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": str(threads), "NO_PROXY": "*",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    })
    return env


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Linux: the kernel sends `sig` to this (child) process when its parent dies, so a crashed run leaves no
    orphan training, and a killed `serve` no orphan server."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, sig)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _limits(memory_mb: int) -> Callable[[], None]:
    def apply() -> None:
        os.setsid()
        die_with_parent()
        cap = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_script(script: Path, cwd: Path, *, timeout_s: float, memory_mb: int = 8192, threads: int | None = None,
               on_line: Callable[[str], None] | None = None) -> SandboxResult:
    cwd.mkdir(parents=True, exist_ok=True)
    log_path = cwd / f"{script.stem}.log"
    threads = threads or os.cpu_count() or 1
    started = time.perf_counter()
    timed_out = False
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, str(script)],
            cwd=cwd, env=sandbox_env(cwd, threads), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, text=True, preexec_fn=_limits(memory_mb),
        )
        timer = threading.Timer(timeout_s, lambda: _kill(proc))
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                log.flush()
                if on_line:
                    on_line(line.rstrip("\n"))
            proc.wait()
        finally:
            timed_out = not timer.is_alive() and proc.returncode in (-signal.SIGKILL, -signal.SIGTERM)
            timer.cancel()
            _kill(proc)
            if proc.stdout is not None:
                proc.stdout.close()
    if timed_out:
        with open(log_path, "a") as log:
            log.write(f"\n[sandbox] killed after the {timeout_s:.0f} s time limit\n")
    tail = "".join(log_path.read_text(errors="replace").splitlines(keepends=True)[-30:])
    return SandboxResult(proc.returncode, round(time.perf_counter() - started, 3), timed_out, log_path, tail)




def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

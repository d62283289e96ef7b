"""Runs generated (untrusted) code. Where bubblewrap works (Linux), the script gets no network, no view of other
processes, a read-only filesystem with the user's home and the workspace hidden, its own folder as the only writable
place, and limits on memory, CPU time, processes, file size and output; elsewhere, a subprocess with the same limits
and an audit-hook guard, and the result says which. It never raises on the script's behalf and never hangs."""

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
from typing import Callable, Sequence

from . import bubblewrap, paths

GUARD_DIR = Path(__file__).resolve().parent / "guard"
# no secrets: the basics, and which GPU the worker may use (a gpu pool's worker sets these)
_PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "AUTOML_AGENT_DEVICE",
                 "LD_LIBRARY_PATH")
MAX_OUTPUT_MB = 64
MAX_FILE_MB = 4096
_LINE_CHUNK = 64 * 1024


PEAK_MEMORY_FILE = ".peak_memory_mb"


@dataclass
class SandboxResult:
    returncode: int
    duration_s: float
    timed_out: bool
    log_path: Path
    tail: str
    isolation: str = ""
    stopped_because: str = ""
    peak_memory_mb: float | None = None  # the most resident memory the script (or any process it started) held


def isolation_summary() -> str:
    """One line for run.json and the run's output: which layer holds the scripts of this run."""
    reason = bubblewrap.unavailable_reason()
    if not reason:
        return "bubblewrap: no network, private PIDs, read-only filesystem except the run folder, home hidden"
    return f"guard only (audit hook and resource limits; {reason})"


def sandbox_env(cwd: Path, threads: int) -> dict[str, str]:
    """A fresh environment: nothing from the user's environment but the basics, so no key or token leaks in."""
    env = {k: os.environ[k] for k in _PASS_THROUGH if k in os.environ}
    env.update({
        "HOME": str(cwd), "TMPDIR": str(cwd), "PYTHONPATH": str(GUARD_DIR), "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": str(threads), "NO_PROXY": "*",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        # idle OpenMP threads sleep instead of spinning: on a machine whose cores other work holds, LightGBM's spinning
        # threads slowed a 100-round fit on 2,000 rows from a fraction of a second to minutes
        "OMP_WAIT_POLICY": "PASSIVE",
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


def _limits(memory_mb: int, cpu_s: int, max_processes: int) -> Callable[[], None]:
    def apply() -> None:
        os.setsid()
        die_with_parent()
        cap = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_MB * 2**20,) * 2)
        # per uid: holds for the sandbox's own uid under bubblewrap; root ignores it (the guard's case as root)
        resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
    return apply


def run_script(script: Path, cwd: Path, *, timeout_s: float, memory_mb: int = 8192, threads: int | None = None,
               on_line: Callable[[str], None] | None = None, read_only: Sequence[Path | str] = (),
               hide: Sequence[Path | str] = (), network: bool = False,
               max_output_mb: float = MAX_OUTPUT_MB) -> SandboxResult:
    """Run `script` with `cwd` as its folder. `read_only`: paths outside `cwd` it may read (the data); `hide`:
    folders it must not see beyond the defaults (the workspace); `network`: keep the machine's network."""
    cwd = cwd.resolve()
    cwd.mkdir(parents=True, exist_ok=True)
    log_path = cwd / f"{script.stem}.log"
    threads = threads or os.cpu_count() or 1
    argv = [sys.executable, str(script.resolve())]
    isolated = not bubblewrap.unavailable_reason()
    uid = bubblewrap.sandbox_uid()
    if isolated:
        argv = bubblewrap.command(argv, cwd, uid=uid, hide=hide, read_only=[script.resolve(), *read_only],
                                  network=network)
        bubblewrap.hand_over(cwd, uid)
    env = sandbox_env(cwd, threads)
    if not isolated:  # the guard hides what it can by path; bubblewrap's mounts make this unnecessary
        visible = [*paths.runtime(), *paths.existing([script, *read_only]), cwd]
        env["AUTOML_SANDBOX_HIDDEN"] = os.pathsep.join(map(str, paths.hidden(hide, scratch=False)))
        env["AUTOML_SANDBOX_VISIBLE"] = os.pathsep.join(map(str, visible))
    limits = _limits(memory_mb, cpu_s=int(timeout_s * threads) + 60, max_processes=max(512, 64 * threads))
    # (measured inside: bubblewrap's own process is what a wait on it reports)
    peak_file = cwd / PEAK_MEMORY_FILE
    peak_file.unlink(missing_ok=True)
    env["AUTOML_SANDBOX_PEAK_FILE"] = str(peak_file)
    started = time.perf_counter()
    stopped_because = ""
    log_path.unlink(missing_ok=True)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=limits)
        _RUNNING.add(proc)
        timer = threading.Timer(timeout_s, lambda: _kill(proc))
        timer.start()
        written, cap = 0, int(max_output_mb * 2**20)
        try:
            assert proc.stdout is not None
            while chunk := proc.stdout.readline(_LINE_CHUNK):
                written += len(chunk)
                if written > cap:
                    stopped_because = f"printed more than {max_output_mb:g} MB"
                    _kill(proc)
                    break
                log.write(chunk)
                log.flush()
                if on_line:
                    on_line(chunk.decode(errors="replace").rstrip("\n"))
            proc.wait()
        finally:
            timed_out = not timer.is_alive() and proc.returncode in (-signal.SIGKILL, -signal.SIGTERM) \
                and not stopped_because
            timer.cancel()
            _kill(proc)
            proc.wait()
            _RUNNING.discard(proc)
            if proc.stdout is not None:
                proc.stdout.close()
    bubblewrap.take_back(cwd)
    if timed_out:
        stopped_because = f"killed after the {timeout_s:.0f} s time limit"
    elif not stopped_because:
        stopped_because = _signal_reason(proc.returncode)
    if stopped_because:
        with open(log_path, "a") as log:
            log.write(f"\n[sandbox] {stopped_because}\n")
    tail = "".join(log_path.read_text(errors="replace").splitlines(keepends=True)[-30:])
    return SandboxResult(proc.returncode, round(time.perf_counter() - started, 3), timed_out, log_path, tail,
                         isolation="bubblewrap" if isolated else "guard", stopped_because=stopped_because,
                         peak_memory_mb=_peak_memory_mb(peak_file))


def _peak_memory_mb(peak_file: Path) -> float | None:
    """What the guard wrote as the script ended: its peak resident memory plus its largest worker's (none when it
    was killed)."""
    try:
        return round(float(peak_file.read_text().strip()), 1)
    except (OSError, ValueError):
        return None
    finally:
        peak_file.unlink(missing_ok=True)


# the scripts running now in this process's sandboxes: they live in sessions of their own, out of reach of the
# Ctrl-C that reaches the CLI's process group
_RUNNING: set[subprocess.Popen] = set()


def stop_running() -> None:
    """End every sandboxed script this process started that is still running (the user pressed Ctrl-C)."""
    for proc in list(_RUNNING):
        _kill(proc)


def _signal_reason(returncode: int) -> str:
    if returncode > 128:  # bubblewrap passes a signal on as 128 + its number
        returncode = 128 - returncode
    reasons = {-signal.SIGXCPU: "stopped at its CPU-time limit", -signal.SIGXFSZ: "stopped: it wrote a file over "
               f"{MAX_FILE_MB} MB", -signal.SIGKILL: "killed (SIGKILL)", -signal.SIGSEGV: "crashed (segmentation fault)"}
    return reasons.get(returncode, "")


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

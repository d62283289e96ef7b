"""Loaded first in every sandboxed script: forbids network access beyond loopback, listening servers, shell-outs
and child programs. Under bubblewrap this is a second layer; without it, the only one.

An audit hook cannot be removed once installed, so code in the script cannot switch it off. It does not see what
code does through ctypes; the namespaces of the bubblewrap layer do.
"""

import ipaddress
import os
import sys

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "", None}
_HIDDEN = tuple(p for p in os.environ.pop("AUTOML_SANDBOX_HIDDEN", "").split(os.pathsep) if p)
# popped, so only the script's own process writes it, not the workers it starts
_PEAK_FILE = os.environ.pop("AUTOML_SANDBOX_PEAK_FILE", "")
_VISIBLE = tuple(p for p in os.environ.pop("AUTOML_SANDBOX_VISIBLE", "").split(os.pathsep) if p)


def _under(path: str, folders) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def _hidden(path) -> bool:
    """Without bubblewrap's mounts: the user's home and the workspace by path, and other processes' environments."""
    if isinstance(path, int) or path is None:
        return False
    path = os.path.realpath(os.fsdecode(path))
    if path.startswith("/proc/") and path.endswith("/environ"):
        return path != f"/proc/{os.getpid()}/environ"
    return bool(_HIDDEN) and _under(path, _HIDDEN) and not _under(path, _VISIBLE)


def _is_loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="ignore")
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guard(event, args):
    if event in ("socket.connect", "socket.connect_ex", "socket.sendto"):
        address = args[1] if len(args) > 1 else None
        if isinstance(address, tuple) and not _is_loopback(address[0]):
            raise PermissionError(f"network access is not allowed in the training sandbox ({address[0]})")
    elif event == "socket.bind":
        if isinstance(args[1] if len(args) > 1 else None, tuple):
            raise PermissionError("starting a server (a demo's launch(), a listening socket) is not allowed in the "
                                  "training sandbox")
    elif event == "socket.getaddrinfo":
        if not _is_loopback(args[0]):
            raise PermissionError(f"network access is not allowed in the training sandbox ({args[0]})")
    elif event in ("os.system", "os.posix_spawn", "os.exec", "subprocess.Popen", "os.spawn"):
        raise PermissionError(f"{event} is not allowed in the training sandbox: a training script runs no other "
                              "program")
    elif event == "open":
        if _hidden(args[0]):
            raise PermissionError(f"reading {args[0]} is not allowed in the training sandbox")
    elif event in ("os.kill", "os.killpg"):
        if not _own(args[0]):
            raise PermissionError(f"{event}({args[0]}) is not allowed in the training sandbox: a script may signal "
                                  "only itself and its own children")


def _own(pid) -> bool:
    if pid == os.getpid():
        return True
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except (OSError, IndexError, ValueError):
        return False


def _write_peak_memory() -> None:
    """The most resident memory the script held, plus its largest reaped worker's, in MB, for a limit on memory."""
    import resource

    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        with open(_PEAK_FILE, "w") as out:
            out.write(f"{peak_kb / 1024:.1f}\n")
    except OSError:
        pass


if _PEAK_FILE:
    import atexit

    atexit.register(_write_peak_memory)

sys.addaudithook(_guard)

"""The isolation layer: bubblewrap (`bwrap`) puts the script in new network, PID, IPC and UTS namespaces, on a
read-only view of the filesystem where the user's home, the workspace's stores, /tmp and /run are hidden, and only
the run's own folder is writable. As root it also switches to an unused uid, so that the per-user process limit
holds (root is exempt from it) and nothing of root's is writable."""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from ..config import current_settings
from . import paths

_WORLD_WRITABLE = ("/tmp", "/var/tmp")  # private to the script, but writable as /tmp always is
_SANDBOX_UID_RANGE = (200_000, 299_999)


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@functools.cache
def unavailable_reason() -> str:
    """'' when bubblewrap works here, else why not (said in run.json and in the run's output)."""
    if current_settings().sandbox.lower() == "guard":
        return "AUTOML_AGENT_SANDBOX=guard"
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux (this is {sys.platform})"
    bwrap = bwrap_path()
    if bwrap is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = [bwrap, *_namespace_args(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", *_identity_args(0),
             "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not start: {exc}"
    if done.returncode != 0:
        return f"bubblewrap cannot create namespaces here: {done.stderr.strip()[:300]}"
    return ""


def _namespace_args(network: bool = False) -> list[str]:
    args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
            "--new-session"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    if not network:
        args.append("--unshare-net")
    return args


def sandbox_uid() -> int:
    """A uid no account uses, fresh per script, so parallel scripts do not share a process budget."""
    low, high = _SANDBOX_UID_RANGE
    return low + secrets.randbelow(high - low)


def _identity_args(uid: int) -> list[str]:
    """As root: drop to `uid` with no capabilities and no supplementary groups. Otherwise bwrap's user namespace
    already leaves the script without privileges."""
    if os.geteuid() != 0:
        return ["--"]
    return ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", "setpriv", f"--reuid={uid}",
            f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


def command(argv: Sequence[str], cwd: Path, *, uid: int, hide: Sequence[Path | str] = (),
            read_only: Sequence[Path | str] = (), network: bool = False) -> list[str]:
    """The bwrap command line that runs `argv` in `cwd`. Order matters: later mounts cover earlier ones, so the
    hidden folders come first and the paths the script needs are shown again on top of them."""
    bwrap = bwrap_path()
    assert bwrap is not None
    args = [bwrap, *_namespace_args(network), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--tmpfs", "/dev/shm"]  # shared memory for multiprocessing and data loaders
    hidden = paths.hidden(hide)
    for path in hidden:
        if path.is_dir():
            perms = "1777" if str(path) in _WORLD_WRITABLE else "0755"
            args += ["--perms", perms, "--tmpfs", str(path)]
    made: set[Path] = set()

    def show(path: Path, how: str) -> None:
        """Mount `path` again; inside a hidden folder its parents are made anew, searchable by the script."""
        roots = [h for h in hidden if h in path.parents]
        if how == "--ro-bind" and not roots and path != cwd:
            return  # visible already, through the read-only root
        for root in roots:
            for parent in reversed(path.parents):
                if root in parent.parents and parent not in made:
                    made.add(parent)
                    args.extend(["--perms", "0755", "--dir", str(parent)])
        args.extend([how, str(path), str(path)])

    for path in paths.existing([*paths.runtime(), *read_only]):
        if path in hidden:
            args.extend(["--ro-bind", str(path), str(path)])
        else:
            show(path, "--ro-bind")
    for device in sorted(Path("/dev").glob("nvidia*")):  # the GPU of a gpu pool's worker
        args += ["--dev-bind", str(device), str(device)]
    show(cwd, "--bind")
    args += ["--chdir", str(cwd)]
    return args + _identity_args(uid) + list(argv)


def hand_over(folder: Path, uid: int) -> None:
    """The run folder becomes the sandbox uid's, so the script can write there (only as root)."""
    if os.geteuid() == 0:
        _chown_tree(folder, uid, uid)


def take_back(folder: Path) -> None:
    """The folder back to its owner, without the symbolic links the script left there: read by this (more
    privileged) process they could lead it to files the script itself could not read."""
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            if os.path.islink(os.path.join(root, name)):
                os.unlink(os.path.join(root, name))
    if os.geteuid() == 0:
        _chown_tree(folder, os.getuid(), os.getgid())


def _chown_tree(folder: Path, uid: int, gid: int) -> None:
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            try:
                os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)
            except OSError:
                pass
    os.chown(folder, uid, gid)

"""Which folders a sandboxed script may not see, and which it needs to see even when they lie inside those."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable, Sequence

# where people keep keys, tokens and other runs; /tmp and /run too, where bubblewrap can give a private one
HOMES = ("/root", "/home")
SHARED_SCRATCH = ("/run", "/tmp", "/var/tmp", "/mnt", "/media")


def existing(paths: Iterable[Path | str]) -> list[Path]:
    seen: list[Path] = []
    for path in paths:
        resolved = Path(path).expanduser().resolve()
        if resolved.exists() and resolved not in seen:
            seen.append(resolved)
    return seen


def hidden(extra: Sequence[Path | str] = (), *, scratch: bool = True) -> list[Path]:
    from ..config import user_home

    folders = [Path.home(), *HOMES, user_home(), *(SHARED_SCRATCH if scratch else ()), *extra]
    return [p for p in existing(folders) if p != Path("/")]


def runtime() -> list[Path]:
    """What the interpreter needs: shown again when it lives under a hidden folder (a venv in the home)."""
    package = Path(__file__).resolve().parents[1]
    return existing([sys.prefix, sys.base_prefix, Path(sys.executable).resolve().parent, package])

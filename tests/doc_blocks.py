"""Examples in README.md and docs/howto/*.md that the tests run as written.

A fenced bash block right after `<!-- doc-test: NAME -->` is executed by a test (placeholders such as a port or a run
id replaced by what the test has), so an example that stops working fails CI instead of a user's first try."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "howto").glob("*.md"))]
_MARKED = re.compile(r"<!-- doc-test: (?P<name>[\w-]+) -->\s*\n```(?:bash|sh)\n(?P<body>.*?)\n```", re.S)


def marked_blocks() -> dict[str, tuple[Path, str]]:
    """Every marked block by its name: (the file, the block's text)."""
    found: dict[str, tuple[Path, str]] = {}
    for path in DOCS:
        for m in _MARKED.finditer(path.read_text(encoding="utf-8")):
            assert m.group("name") not in found, f"two doc-test blocks named {m.group('name')}"
            found[m.group("name")] = (path, m.group("body"))
    return found


def run_block(name: str, replace: dict[str, str], env: dict[str, str] | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess:
    """Run one marked block with bash (stopping at the first failing command), its placeholders replaced."""
    _, body = marked_blocks()[name]
    for placeholder, value in replace.items():
        assert placeholder in body, f"doc-test {name} no longer holds {placeholder!r}"
        body = body.replace(placeholder, value)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", body], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def json_values(output: str) -> list:
    """The JSON values a block printed one after another (curl ends a body without a newline)."""
    import json

    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(output.strip()):
        while output[at].isspace():
            at += 1
        value, at = decoder.raw_decode(output, at)
        values.append(value)
    return values

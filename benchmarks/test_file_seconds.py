"""Seconds each test file takes, from a full run's `--durations=0` report, written to tests/file_seconds.json.

`make test` hands whole files to its workers longest first (tests/conftest.py reads that file): a long file started
last keeps one worker busy while the others idle. Refresh it after a test file grows or splits:

    .venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=0 > /tmp/run.log
    .venv/bin/python benchmarks/test_file_seconds.py /tmp/run.log
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "file_seconds.json"
LINE = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(?:call|setup|teardown)\s+(tests/[^:\s]+\.py)::")


def file_seconds(report: str) -> dict[str, int]:
    seconds: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        m = LINE.match(line)
        if m:
            seconds[m.group(2)] += float(m.group(1))
    return {name: round(total) for name, total in sorted(seconds.items(), key=lambda kv: -kv[1]) if total >= 1}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print("usage: test_file_seconds.py REPORT  (a pytest log written with --durations=0)", file=sys.stderr)
        return 2
    found = file_seconds(Path(argv[0]).read_text(errors="replace"))
    if not found:
        print(f"{argv[0]} has no --durations=0 lines", file=sys.stderr)
        return 2
    OUT.write_text(json.dumps(found, indent=1) + "\n")
    print(f"{len(found)} files, {sum(found.values())} s in all -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

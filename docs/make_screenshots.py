"""Make the screenshots in docs/screenshots: the demo page and the report of each task type, as the e2e browser
test sees them (real runs, real servers, Debian's headless Chromium), shrunk to small PNGs.

    .venv/bin/python docs/make_screenshots.py          # about 10 minutes on 2 cores
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent
OUT = HERE / "screenshots"
WIDTH = {"demo": 900, "report": 760}
MAX_HEIGHT = {"demo": 1500, "report": 2600}  # the top of a long report: its metrics and main pictures


def shrink(source: Path, target: Path) -> None:
    kind = source.name.split("-")[0]
    with Image.open(source) as image:
        image = image.convert("RGB")
        scale = WIDTH[kind] / image.width
        image = image.resize((WIDTH[kind], round(image.height * scale)), Image.LANCZOS)
        image = image.crop((0, 0, image.width, min(image.height, MAX_HEIGHT[kind])))
        image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="automl-shots-") as raw:
        env = {**os.environ, "AUTOML_AGENT_SCREENSHOTS": raw}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/e2e/test_task_types.py", "-k", "chromium",
                               "-p", "no:cacheprovider"], cwd=HERE.parent, env=env)
        OUT.mkdir(exist_ok=True)
        for shot in sorted(Path(raw).glob("*.png")):
            shrink(shot, OUT / shot.name)
            print(f"{OUT / shot.name}: {(OUT / shot.name).stat().st_size // 1024} KB")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())

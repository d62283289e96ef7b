"""The data agent's search for data when a run has none: a dataset named in the instruction, found among those
bundled with automl-agent or shipped inside installed packages (offline), else on OpenML by name; or an explicit
`openml://`, `hf://` or `kaggle://` reference. The choice is snapshotted into the run folder and cited."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ..errors import UserFacingError
from ..workspace import DataSource
from .catalog import CatalogEntry, catalog, known_names

BUNDLED = Path(__file__).resolve().parents[1] / "datasets"
REMOTE_SCHEMES = ("openml://", "hf://", "kaggle://")


def _padded(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))) + " "


def _phrase(entry: CatalogEntry, text: str) -> str | None:
    """The longest of the entry's names in the text (whole words), unless an excluding word is there too."""
    if any(_padded(x) in text for x in entry.excludes):
        return None
    found = [n for n in entry.names if _padded(n) in text]
    return max(found, key=len) if found else None


def find_offline(instruction: str) -> list[tuple[CatalogEntry, str]]:
    text = _padded(instruction)
    return [(entry, phrase) for entry in catalog() if (phrase := _phrase(entry, text))]


def _data_lines(csv: Path) -> int:
    """Rows of a CSV file with a header line."""
    with open(csv, "rb") as f:
        return max(0, sum(1 for _ in f) - 1)


def _materialise(entry: CatalogEntry, folder: Path) -> tuple[Path, int | None]:
    folder.mkdir(parents=True, exist_ok=True)
    if entry.folder:
        target = folder / entry.folder
        if not target.exists():
            shutil.copytree(BUNDLED / entry.folder, target)
        return target, None
    if entry.file:
        target = folder / entry.file
        shutil.copyfile(BUNDLED / entry.file, target)
        return target, _data_lines(target)
    if entry.source == "torch_geometric":
        from .library_datasets import graph_folder

        graph = graph_folder(entry.name, folder)
        return graph, _data_lines(graph / "nodes.csv")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, entry.loader)(as_frame=True)
    frame = bunch.frame.rename(columns={"target": entry.target})
    names = getattr(bunch, "target_names", None)
    if names is not None and len(names) and frame[entry.target].dtype.kind in "iu":
        frame[entry.target] = [str(names[i]) for i in frame[entry.target]]
    target = folder / f"{entry.name}.csv"
    frame.to_csv(target, index=False)
    return target, len(frame)


OWN_DATA = re.compile(r"\b(?:my|our|these|those|attached|uploaded|this (?:data|dataset|table|file|spreadsheet|sheet|csv|"
                      r"export|dump)|the (?:data|file|table|spreadsheet|csv) (?:i|we)\b)\b", re.I)


def find_and_snapshot(instruction: str, run_dir: Path, allow_remote: bool = True) -> tuple[str, DataSource]:
    """The run's data when `--data` was not given, with where it came from and why it was chosen."""
    matches = find_offline(instruction)
    own = OWN_DATA.search(instruction)
    if own:  # 'predict churn for our customers': their data, which was not passed; a public lookalike is not it
        closest = f" The closest public dataset here is {matches[0][0].name!r} ({matches[0][0].about}); to use it, " \
                  f"name it without '{own.group(0)}'." if matches else ""
        raise UserFacingError(f"The instruction speaks of your own data ('{own.group(0)}'), but no --data was given."
                              + closest, "Pass your file with --data PATH (CSV, Parquet, a URL, openml://ID, ...).")
    names = {entry.name for entry, _ in matches}
    if len(names) > 1:
        shown = " and ".join(sorted(names))
        raise UserFacingError(f"No --data given, and the instruction names more than one dataset ({shown}).",
                              "Say which one, or pass --data (e.g. --data openml://61).")
    if matches:
        entry, phrase = matches[0]
        path, rows = _materialise(entry, run_dir / "inputs")
        return str(path), DataSource(name=entry.name, source=entry.source, url=entry.url, licence=entry.licence,
                                     rows=rows, reason=f"the instruction says '{phrase}': {entry.about}")
    if allow_remote:
        from .remote import openml_by_name

        for name in candidate_names(instruction):
            found = openml_by_name(name, run_dir / "inputs")
            if found is not None:
                return found
    raise UserFacingError(
        "No --data given, and the instruction names no dataset I can find.",
        f"Pass --data with a file, a URL, openml://ID, hf://OWNER/NAME or kaggle://OWNER/DATASET; or name a dataset "
        f"available offline: {known_names()}.")


def _named_offline(reference: str, run_dir: Path) -> tuple[str, DataSource] | None:
    if re.search(r"[/\\.:~]", reference) or Path(reference).exists():
        return None
    entry = next((e for e in catalog() if reference.strip().lower() in {e.name.lower(), *(n.lower() for n in e.names)}),
                 None)
    if entry is None:
        return None
    path, rows = _materialise(entry, run_dir / "inputs")
    return str(path), DataSource(name=entry.name, source=entry.source, url=entry.url, licence=entry.licence, rows=rows,
                                 reason=f"--data names the dataset available offline: {entry.about}")


STOP = {"the", "a", "an", "this", "that", "my", "our", "your", "their", "training", "whole", "public", "same", "new"}


def candidate_names(instruction: str) -> list[str]:
    """Names a person gives a public dataset: 'the titanic dataset', 'on adult data', "'credit-g'"."""
    found = re.findall(r"[\"'`“‘]([\w.-]{2,40})[\"'`”’]", instruction)
    found += re.findall(r"\b([\w.-]{2,40})\s+(?:dataset|data set|data|benchmark)\b", instruction, flags=re.I)
    out = []
    for name in found:
        if name.lower() not in STOP and name.lower() not in out:
            out.append(name.lower())
    return out[:3]


def resolve_reference(reference: str, run_dir: Path) -> tuple[str, DataSource] | None:
    """`openml://ID|NAME`, `hf://OWNER/NAME` or `kaggle://OWNER/DATASET`, fetched into the run folder; None for
    anything else (a path or an ordinary URL). A bare name that is no file here but a dataset available offline
    (`--data penguins`) is that dataset."""
    if not reference.startswith(REMOTE_SCHEMES):
        return _named_offline(reference, run_dir)
    from . import remote

    scheme, _, rest = reference.partition("://")
    rest = rest.strip("/")
    if scheme == "hf" and rest.startswith("datasets/"):
        return None  # a file inside a dataset repo (hf://datasets/OWNER/NAME/FILE): fsspec's HfFileSystem reads it
    if not rest:
        raise UserFacingError(f"{reference!r} names no dataset.",
                              "Write openml://61 (an id) or openml://iris, hf://OWNER/NAME, kaggle://OWNER/DATASET.")
    folder = run_dir / "inputs"
    if scheme == "openml":
        return remote.openml_dataset(rest, folder)
    if scheme == "hf":
        return remote.hf_dataset(rest, folder)
    return remote.kaggle_dataset(rest, folder)

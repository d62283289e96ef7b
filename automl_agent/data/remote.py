"""Datasets fetched from OpenML, the Hugging Face Hub and Kaggle into a run's folder (`--data openml://61`,
`hf://OWNER/NAME`, `kaggle://OWNER/DATASET`, or found by name), each with its citation. Endpoints are the
retrieval sources' (AUTOML_AGENT_OPENML_URL, HF_ENDPOINT, KAGGLE_API_ENDPOINT), so a mirror or a test server works."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import httpx
import pandas as pd

from ..errors import UserFacingError
from ..retrieval.http import SourceError, request_json
from ..retrieval.sources.base import clean
from ..retrieval.sources.hf_source import hf_endpoint
from ..retrieval.sources.kaggle_source import auth_headers, kaggle_credentials, kaggle_endpoint
from ..retrieval.sources.openml_source import NO_RESULTS, WEB_URL, openml_endpoint
from ..workspace import DataSource

TIMEOUT_S = 30.0
MAX_BYTES = 2 << 30
TABLE_SUFFIXES = (".csv", ".parquet", ".tsv")


def _download(url: str, headers: dict[str, str] | None = None, auth=None) -> bytes:
    try:
        with httpx.stream("GET", url, headers=headers, auth=auth, timeout=TIMEOUT_S, follow_redirects=True) as response:
            response.raise_for_status()
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_BYTES:
                    raise UserFacingError(f"{url} is larger than {MAX_BYTES >> 30} GB.",
                                          "Download a sample yourself and pass it with --data PATH.")
                chunks.append(chunk)
            return b"".join(chunks)
    except httpx.HTTPError as exc:
        raise UserFacingError(f"Could not download {url}: {type(exc).__name__}: {exc}",
                              "Check that this machine can reach it (or set the source's mirror endpoint), or pass "
                              "a local file with --data.") from None


def _save(frame: pd.DataFrame, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "data"
    path = folder / f"{safe}.csv"
    frame.to_csv(path, index=False)
    return path


def _json(url: str, what: str, **kwargs):
    try:
        return request_json("GET", url, timeout_s=TIMEOUT_S, deadline=time.monotonic() + TIMEOUT_S * 2, **kwargs)
    except SourceError as exc:
        raise UserFacingError(f"Could not read {what}: {exc}.",
                              "Check the name and the network (or the source's endpoint variable), or pass "
                              "--data PATH.") from None


# ---------------------------------------------------------------- OpenML
def openml_by_name(name: str, folder: Path) -> tuple[str, DataSource] | None:
    """The active OpenML dataset with exactly this name (its newest version), or None when there is none or
    OpenML cannot be reached."""
    try:
        answer = request_json("GET", f"{openml_endpoint()}/json/data/list/data_name/{name}/limit/5/status/active",
                              timeout_s=10.0, deadline=time.monotonic() + 15.0, empty_on=NO_RESULTS)
        if answer is None:
            return None
        rows = answer["data"]["dataset"]
    except (SourceError, KeyError, TypeError):
        return None
    rows = rows if isinstance(rows, list) else [rows]
    if not rows:
        return None
    newest = max(rows, key=lambda r: int(r.get("version", 0)))
    path, source = openml_dataset(str(newest["did"]), folder)
    source.reason = f"the instruction names '{name}', an OpenML dataset"
    return path, source


def openml_dataset(ref: str, folder: Path) -> tuple[str, DataSource]:
    if not ref.isdigit():
        found = openml_by_name(ref, folder)
        if found is None:
            raise UserFacingError(f"OpenML has no active dataset named {ref!r} (or OpenML is unreachable).",
                                  "Use its numeric id (openml://61) from openml.org, or pass --data PATH.")
        return found
    answer = _json(f"{openml_endpoint()}/json/data/{ref}", f"OpenML dataset {ref}")
    try:
        description = answer["data_set_description"]
    except (KeyError, TypeError):
        raise UserFacingError(f"OpenML's answer for dataset {ref} has no description.", "Check the id.") from None
    name = str(description.get("name", f"openml-{ref}"))
    parquet, arff_url = description.get("parquet_url"), description.get("url")
    if parquet:
        frame = pd.read_parquet(io.BytesIO(_download(parquet)))
    elif arff_url:
        frame = _read_arff(_download(arff_url))
    else:
        raise UserFacingError(f"OpenML dataset {ref} has no downloadable file.", "Pick another dataset or pass --data.")
    path = _save(frame, folder, name)
    return str(path), DataSource(name=name, source="openml", url=f"{WEB_URL}/d/{ref}",
                                 licence=str(description.get("licence") or "unknown"), rows=len(frame),
                                 reason=clean(f"OpenML dataset {ref} (version {description.get('version', '?')}); "
                                              f"default target {description.get('default_target_attribute', '?')}", 200))


def _read_arff(content: bytes) -> pd.DataFrame:
    try:
        import arff  # liac-arff, installed with the retrieval extra (openml)
    except ImportError:
        raise UserFacingError("This OpenML dataset is only available as ARFF, and reading ARFF needs liac-arff.",
                              "pip install 'automl-agent[retrieval]'") from None
    data = arff.loads(content.decode("utf-8", errors="replace"))
    return pd.DataFrame(data["data"], columns=[a[0] for a in data["attributes"]])


# ---------------------------------------------------------------- Hugging Face Hub
def hf_dataset(repo: str, folder: Path) -> tuple[str, DataSource]:
    """A dataset repository's table: its card (huggingface_hub's DatasetInfo, with the file list) from the Hub's
    API, then the train file (or the first CSV/Parquet) from its resolve URL. HF_TOKEN reaches gated datasets."""
    import os

    from huggingface_hub import DatasetInfo

    from ..retrieval.sources.hf_source import licence_of

    if repo.count("/") != 1:
        raise UserFacingError(f"hf://{repo} should be hf://OWNER/NAME (a dataset repository).",
                              "For one file inside it write hf://datasets/OWNER/NAME/PATH/TO/FILE.csv.")
    token = os.environ.get("HF_TOKEN", "").strip()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    card = _json(f"{hf_endpoint()}/api/datasets/{repo}", f"the Hugging Face dataset {repo!r}", headers=headers)
    if not isinstance(card, dict) or "id" not in card:
        raise UserFacingError(f"The Hugging Face Hub's answer for {repo!r} is not a dataset card.",
                              "Check HF_ENDPOINT (a mirror must speak the Hub's API), or pass --data PATH.")
    info = DatasetInfo(**card)
    files = [f.rfilename for f in (info.siblings or []) if f.rfilename.lower().endswith(TABLE_SUFFIXES)]
    if not files:
        raise UserFacingError(f"The Hugging Face dataset {repo!r} has no CSV or Parquet file.",
                              "Download it yourself and pass --data PATH.")
    chosen = sorted(files, key=lambda f: (0 if "train" in f.lower() else 1, len(f)))[0]
    raw = _download(f"{hf_endpoint()}/datasets/{repo}/resolve/main/{chosen}", headers=headers)
    frame = (pd.read_parquet(io.BytesIO(raw)) if chosen.endswith(".parquet")
             else pd.read_csv(io.BytesIO(raw), sep="\t" if chosen.endswith(".tsv") else ","))
    path = _save(frame, folder, repo.replace("/", "__"))
    return str(path), DataSource(name=repo, source="hf", url=f"{hf_endpoint()}/datasets/{repo}", licence=licence_of(info),
                                 rows=len(frame), reason=f"hf://{repo}, file {chosen}")


# ---------------------------------------------------------------- Kaggle
def kaggle_dataset(ref: str, folder: Path) -> tuple[str, DataSource]:
    if kaggle_credentials() is None:
        raise UserFacingError("Reading a Kaggle dataset needs Kaggle credentials.",
                              "Set KAGGLE_USERNAME and KAGGLE_KEY (or put kaggle.json in ~/.kaggle).")
    owner, _, slug = ref.partition("/")
    if not slug:
        raise UserFacingError(f"kaggle://{ref} should be kaggle://OWNER/DATASET.", "Copy OWNER/DATASET from the dataset's URL.")
    headers, auth = auth_headers()
    try:
        response = httpx.post(f"{kaggle_endpoint()}/v1/datasets.DatasetApiService/DownloadDataset",
                              json={"ownerSlug": owner, "datasetSlug": slug}, headers=headers, auth=auth,
                              timeout=TIMEOUT_S, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise UserFacingError(f"Could not download kaggle://{ref}: {type(exc).__name__}: {exc}",
                              "Check the name, the credentials and that you accepted the dataset's rules on kaggle.com.") from None
    content = response.content
    if zipfile.is_zipfile(io.BytesIO(content)):
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            tables = sorted((n for n in archive.namelist() if n.lower().endswith(TABLE_SUFFIXES)), key=len)
            if not tables:
                raise UserFacingError(f"kaggle://{ref} has no CSV or Parquet file.", "Pass a file with --data PATH.")
            raw, chosen = archive.read(tables[0]), tables[0]
    else:
        raw, chosen = content, f"{slug}.csv"
    frame = pd.read_parquet(io.BytesIO(raw)) if chosen.endswith(".parquet") else pd.read_csv(io.BytesIO(raw))
    path = _save(frame, folder, f"{owner}__{slug}")
    return str(path), DataSource(name=ref, source="kaggle", url=f"https://www.kaggle.com/datasets/{ref}",
                                 rows=len(frame), reason=f"kaggle://{ref}, file {chosen}")

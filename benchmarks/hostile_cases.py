"""The pieces every batch of hostile inputs shares: the bundled tables, the Case record, the builders of input
files and the checks of what a run did (see hostile_inputs.py for the scoring and the runner)."""

from __future__ import annotations

import math
import sqlite3
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from xml.sax.saxutils import escape as xml_escape

import numpy as np
import pandas as pd

def _col_letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def write_xlsx_rows(rows: list[list[Any]], path: Path) -> None:
    """A minimal valid .xlsx (one sheet, inline strings) from rows of cells, blank rows allowed."""
    def cell(ref, v):
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            return ""
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return f'<c r="{ref}"><v>{v}</v></c>'
        return f'<c r="{ref}" t="inlineStr"><is><t>{xml_escape(str(v))}</t></is></c>'

    xml_rows = []
    for i, row in enumerate(rows, start=1):
        xml_rows.append(f'<row r="{i}">' + "".join(cell(f"{_col_letter(j)}{i}", v) for j, v in enumerate(row)) + "</row>")
    sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
             '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             + "".join(xml_rows) + "</sheetData></worksheet>")
    files = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": sheet,
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text)


@dataclass
class Case:
    id: str
    cls: str
    desc: str
    expect: str  # refuse | train | either
    build: Callable[[dict], None] | None = None  # writes files, sets ctx['data'] (str) and ctx['df']
    instruction: str = "Predict customer churn"
    extra: list[str] | Callable[[dict], list[str]] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)  # a clear refusal contains one of these
    checks: list[Callable[[dict, dict], str | None]] = field(default_factory=list)
    ask_keywords: list[str] | None = None  # train cases: exit 2 containing one of these counts as 'ask'
    timeout: int | None = None
    budget: str | None = None  # overrides --budget (None: the script's --budget); "" leaves it out
    argv: Callable[[dict], list[str]] | None = None  # the whole argv after the CLI, for non-`run` cases
    runner: str = "standard"  # standard | interrupt | concurrent
    post: Callable[[dict, dict], tuple[str, str] | None] | None = None  # side-effect checks, any exit
    setup: Callable[[dict], None] | None = None  # servers, sockets (stopped by teardown)
    teardown: Callable[[dict], None] | None = None
    note: str = ""


def _inputs(info: dict) -> list[str]:
    return list(info.get("inputs") or [])


def target_is(*names: str):
    def chk(info, ctx):
        t = (info.get("run") or {}).get("target")
        return None if t in names else f"target is {t!r}, expected {' or '.join(map(repr, names))}"
    return chk


def task_is(task: str):
    def chk(info, ctx):
        t = (info.get("run") or {}).get("task_type")
        return None if t == task else f"task_type is {t!r}, expected {task!r}"
    return chk


def inputs_exclude(*names: str, prefix: bool = False):
    def chk(info, ctx):
        ins = _inputs(info)
        bad = [c for c in ins if any((c.startswith(n) if prefix and n else c == n) for n in names)]  # "" is an empty name, not a prefix of every name
        return f"model takes {bad} (should not be an input)" if bad else None
    return chk


def inputs_include(*names: str):
    def chk(info, ctx):
        ins = _inputs(info)
        miss = [n for n in names if n not in ins]
        return f"model does not take {miss} (inputs: {ins[:25]})" if miss else None
    return chk


def n_inputs(n: int):
    def chk(info, ctx):
        ins = _inputs(info)
        return None if len(ins) == n else f"model takes {len(ins)} inputs, expected {n}: {ins[:30]}"
    return chk


def numeric(*names: str):
    def chk(info, ctx):
        cols = info.get("schema_cols") or {}
        bad = [f"{n}={cols[n].get('type')}" for n in names if n in cols and cols[n].get("type") != "number"]
        gone = [n for n in names if n not in cols]
        if bad:
            return f"read as non-numeric: {bad}"
        if gone:
            return f"numeric column(s) missing from the model's inputs: {gone}"
        return None
    return chk


def n_classes(*ns: int):
    def chk(info, ctx):
        cl = info.get("classes")
        if cl is None:
            return "no class list found (evidence.json)"
        return None if len(cl) in ns else f"{len(cl)} classes {cl[:12]}, expected {' or '.join(map(str, ns))}"
    return chk


def metric_between(name: str, lo: float, hi: float):
    def chk(info, ctx):
        m = (info.get("run") or {}).get("metrics") or {}
        v = m.get(name)
        if v is None:
            return f"metric {name!r} missing from run.json metrics {sorted(m)}"
        try:
            v = float(v)
        except (TypeError, ValueError):
            return f"metric {name}={v!r} is not a number"
        if not math.isfinite(v) or not (lo <= v <= hi):
            return f"metric {name}={v:.4g} outside the plausible range [{lo}, {hi}]"
        return None
    return chk


def rows_used(n: int, tol: int = 0):
    def chk(info, ctx):
        r = info.get("results") or {}
        if "n_train" not in r:
            return "results.json lacks n_train/n_test"
        got = int(r["n_train"]) + int(r.get("n_test", 0)) + int(r.get("n_val", 0) or 0)
        return None if abs(got - n) <= tol else f"trained+tested on {got} rows, the file has {n}"
    return chk


def levels_contain(col: str, value: str):
    def chk(info, ctx):
        c = (info.get("schema_cols") or {}).get(col)
        if c is None:
            return f"column {col!r} not among the model's inputs"
        lv = c.get("levels") or []
        return None if value in lv else f"{col} levels {lv[:8]} lack {value!r} (misread text)"
    return chk


def succeeded(info, ctx):
    st = (info.get("run") or {}).get("status")
    return None if st == "succeeded" else f"run status {st!r}"


CHURN_OK = [succeeded, target_is("churn"), task_is("tabular_classification"), n_classes(2),
            inputs_include("tenure", "contract", "monthly_charges"), metric_between("accuracy", 0.55, 0.97)]


def churn_df(ctx, n=500, salt=0) -> pd.DataFrame:
    return ctx["tables"].slice("churn", n, salt)


def save(ctx, df: pd.DataFrame | None, name: str, writer: Callable[[Path], None] | None = None, **kw) -> Path:
    p = ctx["sc"] / name
    if writer is not None:
        writer(p)
    else:
        kw.setdefault("index", False)
        df.to_csv(p, **kw)
    ctx["data"] = name
    ctx["df"] = df
    return p


def b_csv(table: str, n: int, name="data.csv", mutate: Callable[[pd.DataFrame, np.random.Generator], pd.DataFrame] | None = None, **kw):
    def build(ctx):
        df = ctx["tables"].slice(table, n)
        if mutate is not None:
            df = mutate(df, ctx["rng"])
        save(ctx, df, name, **kw)
    return build


def b_bytes(name: str, payload: Callable[[dict], bytes]):
    def build(ctx):
        (ctx["sc"] / name).write_bytes(payload(ctx))
        ctx["data"] = name
    return build


def post_refused_before_training(ctx, res):
    ws = ctx["ws"]
    trained = list(Path(ws).glob("runs/*/attempt_v*/results.json")) if Path(ws).is_dir() else []
    reg = registered_versions(ws)
    if reg:
        return "silent_wrong", f"a model was registered despite the bad --model-name: {reg}"
    if trained:
        return "unclear", f"refused only after training ({res['seconds']:.0f} s; {trained[0].parent.name} exists)"
    if res["rc"] == 2 and res["seconds"] > 60:
        return "unclear", f"refused, but only after {res['seconds']:.0f} s"
    return None


CLEAR_BUDGET = ["budget"]


ASK_LABELS = ["spell", "inconsistent", "labels", "variants", "same class"]


def test_rows_seen_in_training(info, ctx, ignore: tuple[str, ...] = ()) -> float | str:
    """The share of the test rows that repeat a training row (columns in `ignore` left aside), or why it is unknown."""
    df = ctx.get("df")
    split = info.get("split") or {}
    tr, te = split.get("train_index"), split.get("test_index")
    if df is None or tr is None or te is None:
        return "no split.json to check the overlap"
    rest = df.drop(columns=[c for c in ignore if c in df.columns])
    key = rest.astype(object).where(rest.notna(), "").astype(str).agg("|".join, axis=1)  # NaN stays NaN in astype(str)
    try:
        train_keys = set(key.iloc[tr])
        test_keys = key.iloc[te]
    except IndexError:
        return "split indices do not match the file's rows"
    return float(test_keys.isin(train_keys).mean()) if len(test_keys) else 0.0


def registered_versions(ws: str | Path) -> list[str]:
    db = Path(ws) / "mlflow.db"
    if not db.is_file():
        return []
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        rows = con.execute("select name, version from model_versions").fetchall()
        con.close()
    except sqlite3.Error:
        return []
    return [f"{n}/v{v}" for n, v in rows if not str(n).startswith("automl-agent.")]

"""Batch 2 of hostile but ordinary inputs (see hostile_inputs.py for the scoring).

Written from the outside like batch 1 (README, docs/*.md, `--help`, the bundled tables' header rows), never from
the product's source or tests, and not tuned to pass: each case is what a user plausibly brings, with the outcome
a careful tool should give. Different files from batch 1: other bundled tables (credit, attrition, ames, crabs,
smokeban, penguins, concrete, diamonds, churn), other exporters (R write.csv2, SAS, Stata, Google Sheets, German
Excel, Excel for Mac, LibreOffice quote-all), other encodings (Windows-1250, Mac Roman), report preambles,
footers, summary rows, comment lines, repeated headers, other value spellings, other leaks and other slips.

    python benchmarks/hostile_inputs.py --cli .venv/bin/automl-agent --label batch2 --batch 2
"""
from __future__ import annotations

import csv
import gzip
import json
import math
import re
import sqlite3
import uuid
import zipfile
from typing import Any
from xml.sax.saxutils import escape as xml_escape

import numpy as np
import pandas as pd

from hostile_cases import (ASK_LABELS, CHURN_OK, CLEAR_BUDGET, Case, b_bytes, b_csv, churn_df, inputs_exclude,
                            inputs_include, levels_contain, metric_between, n_classes, n_inputs,
                            numeric, post_refused_before_training, rows_used, save, succeeded, target_is, task_is,
                            test_rows_seen_in_training, write_xlsx_rows)

CLS = "tabular_classification"
REG = "tabular_regression"

CREDIT_INPUTS = ["Seniority", "Home", "Time", "Age", "Marital", "Records", "Job", "Expenses", "Income", "Assets",
                 "Debt", "Amount", "Price"]
CONCRETE_INPUTS = ["cement", "blast_furnace_slag", "fly_ash", "water", "superplasticizer", "coarse_aggregate",
                   "fine_aggregate", "age"]
CRABS_INPUTS = ["frontal_lobe_mm", "rear_width_mm", "carapace_length_mm", "carapace_width_mm", "body_depth_mm"]

I_CREDIT = "Predict the credit Status of an applicant (good or bad)"
I_ATTRITION = "Predict employee attrition: who will leave the company?"
I_AMES = "Predict the sale price of a house"
I_CONCRETE = "Predict the compressive strength of the concrete"
I_DIAMONDS = "Predict the price of a diamond"
I_PENGUINS = "Classify the penguin species"
I_SMOKE = "Predict whether a worker is a smoker"

REFUSE_WAIT = 150  # refusals should come before training; a little room for the Prefect server's first start


# ----------------------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------------------

def _n_rows(info: dict) -> int | None:
    r = info.get("results") or {}
    if "n_train" not in r:
        return None
    return int(r["n_train"]) + int(r.get("n_test", 0) or 0) + int(r.get("n_val", 0) or 0)


def rows_at_most(n: int):
    """Summary/footer/comment/header rows must not be trained on: at most the file's n real data rows."""
    def chk(info, ctx):
        got = _n_rows(info)
        if got is None:
            return "results.json lacks n_train/n_test"
        return None if got <= n else f"trained+tested on {got} rows, the file has only {n} data rows (junk rows kept)"
    return chk


def rows_at_least(n: int):
    def chk(info, ctx):
        got = _n_rows(info)
        if got is None:
            return "results.json lacks n_train/n_test"
        return None if got >= n else f"trained+tested on only {got} rows, expected at least {n} (rows dropped)"
    return chk


def target_like(pattern: str):
    rx = re.compile(pattern)

    def chk(info, ctx):
        t = (info.get("run") or {}).get("target")
        return None if isinstance(t, str) and rx.search(t) else f"target is {t!r}, expected a column matching /{pattern}/"
    return chk


def input_like(pattern: str, want_numeric: bool = False):
    """Some input's name matches the pattern (names may be tidied), and it is a number when asked."""
    rx = re.compile(pattern)

    def chk(info, ctx):
        ins = list(info.get("inputs") or [])
        hit = [c for c in ins if isinstance(c, str) and rx.search(c)]
        if not hit:
            return f"no input matches /{pattern}/ (inputs: {ins[:25]})"
        if want_numeric:
            cols = info.get("schema_cols") or {}
            bad = [f"{h}={cols[h].get('type')}" for h in hit if h in cols and cols[h].get("type") != "number"]
            if bad:
                return f"read as non-numeric: {bad}"
        return None
    return chk


def inputs_include_stripped(*names: str):
    def chk(info, ctx):
        ins = {str(c).strip().lower() for c in (info.get("inputs") or [])}
        miss = [n for n in names if n.lower() not in ins]
        return f"model does not take {miss} (inputs: {sorted(ins)[:25]})" if miss else None
    return chk


def inputs_exclude_like(pattern: str, what: str):
    rx = re.compile(pattern)

    def chk(info, ctx):
        bad = [c for c in (info.get("inputs") or []) if isinstance(c, str) and rx.search(c)]
        return f"{what}: the model takes {bad}" if bad else None
    return chk


def classes_include(*labels: str):
    """The class list holds these labels (compared without case and outer spaces)."""
    def chk(info, ctx):
        cl = info.get("classes")
        if cl is None:
            return "no class list found (evidence.json)"
        have = {str(c).strip().lower() for c in cl}
        miss = [x for x in labels if x.lower() not in have]
        return f"classes {list(cl)[:10]} lack {miss}: another column was predicted" if miss else None
    return chk


def y_true_never(value: float, what: str):
    def chk(info, ctx):
        yt = info.get("y_true")
        if not yt:
            return None  # nothing to check; other checks carry the case
        bad = [v for v in yt if v is not None and isinstance(v, (int, float)) and abs(float(v) - value) < 1e-9]
        return f"{len(bad)} held-out truths are {value:g} ({what}): scored against placeholders" if bad else None
    return chk


def y_true_within(lo: float, hi: float, what: str):
    def chk(info, ctx):
        yt = info.get("y_true")
        if not yt:
            return None
        bad = [v for v in yt if isinstance(v, (int, float)) and not (lo <= float(v) <= hi)]
        return f"{len(bad)} held-out truths outside [{lo:g}, {hi:g}] (e.g. {bad[0]!r}): {what}" if bad else None
    return chk


def dup_overlap_ignoring(*cols: str):
    """Rows repeated with only an id differing must not sit on both sides of the split."""
    def chk(info, ctx):
        frac = test_rows_seen_in_training(info, ctx, cols)
        if isinstance(frac, str):
            return frac
        return (f"{frac:.0%} of the test rows repeat training rows (only the id differs): the score is inflated"
                if frac > 0.2 else None)
    return chk


def credit_ok(target: str = "Status", lo: float = 0.6, hi: float = 0.97) -> list:
    return [succeeded, target_is(target), task_is(CLS), n_classes(2), metric_between("accuracy", lo, hi)]


def penguins_ok(target: str = "species") -> list:
    return [succeeded, target_is(target), task_is(CLS), n_classes(3), metric_between("accuracy", 0.7, 1.0)]


SMOKE_OK = [succeeded, target_is("smoker"), task_is(CLS), n_classes(2), metric_between("accuracy", 0.55, 0.95),
            inputs_include("age", "education")]
ATTRITION_OK = [succeeded, target_is("Attrition"), task_is(CLS), n_classes(2), metric_between("accuracy", 0.6, 0.97)]
AMES_OK = [succeeded, target_is("Sale_Price"), task_is(REG), metric_between("r2", 0.55, 0.999)]
CONCRETE_OK = [succeeded, target_is("compressive_strength"), task_is(REG), metric_between("r2", 0.4, 0.999)]
DIAMOND_OK = [succeeded, target_is("price"), task_is(REG), inputs_include("carat", "cut", "clarity"),
              metric_between("r2", 0.7, 0.9995)]


# ----------------------------------------------------------------------------------------------------------
# writers and builders
# ----------------------------------------------------------------------------------------------------------

def _tbl(ctx, name: str, n: int, salt: int = 0) -> pd.DataFrame:
    return ctx["tables"].slice(name, n, salt)


def _write_text(ctx, name: str, text: str, df: pd.DataFrame | None = None, encoding: str = "utf-8", newline: str = "\n"):
    if newline != "\n":
        text = text.replace("\n", newline)
    (ctx["sc"] / name).write_bytes(text.encode(encoding))
    ctx["data"] = name
    ctx["df"] = df


def _obj(df: pd.DataFrame) -> pd.DataFrame:
    return df.astype(object)


def r_num(v: Any, dec: str = ",") -> str:
    """A number as R's write.csv2 writes it: 15 significant digits, scientific when shorter (3e+05), NA."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NA"
    v = float(v)
    fixed = f"{v:.15g}"
    if "e" in fixed:
        fixed = f"{v:.15f}".rstrip("0").rstrip(".")
    sci = None
    for d in range(0, 15):
        s = f"{v:.{d}e}"
        if float(s) == float(f"{v:.15g}"):
            m, e = s.split("e")
            sci = f"{m}e{e[0]}{int(e[1:]):02d}"
            break
    out = sci if sci is not None and len(sci) < len(fixed) else fixed
    return out.replace(".", dec)


def build_r_write_csv2(ctx):
    df = _tbl(ctx, "credit", 597)
    big = ctx["tables"].full("credit").query("Assets >= 100000").head(3)  # R writes these as 1e+05, 3e+05
    df = pd.concat([df, big], ignore_index=True).sample(frac=1.0, random_state=ctx["seed"]).reset_index(drop=True)
    lines = ['"";' + ";".join(f'"{c}"' for c in df.columns)]
    for i, rec in enumerate(df.itertuples(index=False), start=1):
        cells = [f'"{i}"']
        for c, v in zip(df.columns, rec):
            if pd.api.types.is_numeric_dtype(df[c]):
                cells.append(r_num(v))
            else:
                cells.append("NA" if pd.isna(v) else f'"{v}"')
        lines.append(";".join(cells))
    _write_text(ctx, "credit.csv", "\n".join(lines) + "\n", df)


def czech_values(df, rng):
    df = _obj(df)
    df["education"] = df["education"].map({
        "hs": "střední škola", "some college": "vyšší odborná škola", "college": "vysoká škola",
        "master": "magisterské studium", "hs drop out": "základní vzdělání"})
    df["gender"] = df["gender"].map({"female": "žena", "male": "muž"})
    return df


def build_macroman_cr(ctx):
    df = _obj(_tbl(ctx, "attrition", 600))
    df["Department"] = df["Department"].map({"Research_Development": "Recherche & Développement", "Sales": "Ventes",
                                             "Human_Resources": "Ressources humaines"})
    df["BusinessTravel"] = df["BusinessTravel"].map({"Travel_Rarely": "Déplacements rares",
                                                     "Travel_Frequently": "Déplacements fréquents",
                                                     "Non-Travel": "Aucun déplacement"})
    text = df.to_csv(index=False)
    _write_text(ctx, "attrition.csv", text, df, encoding="mac_roman", newline="\r")


def build_pipe_preamble(ctx):
    df = churn_df(ctx, 500, salt=11)
    pre = ("CUSTOMER RETENTION REPORT\n"
           "Source: CRM nightly extract | generated 2024-03-04 06:00 | user: jdoe\n"
           "Filter: all regions | all segments\n"
           "\n")
    _write_text(ctx, "retention_report.csv", pre + df.to_csv(index=False, sep="|"), df)


def build_footer_lines(ctx):
    df = churn_df(ctx, 500, salt=12)
    text = df.to_csv(index=False) + "\nTotal rows: 500\nExported by CRM v4.2 on 2024-03-04 06:00\n"
    _write_text(ctx, "data.csv", text, df)


def build_total_row(ctx):
    df = _tbl(ctx, "concrete", 600)
    tot = {c: round(float(df[c].sum()), 2) for c in df.columns}
    tot["cement"] = "Total"
    out = pd.concat([_obj(df), pd.DataFrame([tot], dtype=object)], ignore_index=True)
    save(ctx, out, "concrete_mixes.csv")
    ctx["df"] = df


def build_comment_lines(ctx):
    df = _tbl(ctx, "penguins", 344)
    lines = df.to_csv(index=False).splitlines()
    head = ["# Palmer penguins, field seasons 2007-2009", "# units: mm and g; NA = not measured"]
    body = lines[1:]
    body.insert(250, "# --- Biscoe sheet (second observer) ---")
    body.insert(120, "# --- Dream island sheet ---")
    _write_text(ctx, "penguins.csv", "\n".join(head + [lines[0]] + body) + "\n", df)


def build_repeated_headers(ctx):
    df = churn_df(ctx, 600, salt=13)
    parts = [df.iloc[:200], df.iloc[200:400], df.iloc[400:]]
    text = "".join(p.to_csv(index=False) for p in parts)  # each part with its header: `cat a.csv b.csv c.csv`
    _write_text(ctx, "all_regions.csv", text, df)


def build_google_sheets(ctx):
    df = _obj(churn_df(ctx, 500, salt=14))
    for c in ["female", "senior_citizen", "partner", "dependents", "phone_service", "paperless_billing"]:
        df[c] = ["TRUE" if int(v) == 1 else "FALSE" for v in df[c]]
    df["monthly_charges"] = [f"${float(v):,.2f}" for v in df["monthly_charges"]]
    df["total_charges"] = ["" if pd.isna(v) else f"${float(v):,.2f}" for v in df["total_charges"]]
    save(ctx, df, "Churn - Sheet1.csv", lineterminator="\r\n")


def build_sas_export(ctx):
    df = _obj(_tbl(ctx, "credit", 600, salt=3))
    df.columns = [c.upper() for c in df.columns]
    for c in ["INCOME", "ASSETS", "DEBT"]:
        df[c] = ["." if pd.isna(v) else f"{float(v):g}" for v in df[c]]
    save(ctx, df, "CREDIT_EXPORT.csv", na_rep="")


def build_german_excel(ctx):
    df = _tbl(ctx, "ames", 800)
    text = df.to_csv(index=False, sep=";", decimal=",")
    _write_text(ctx, "Hauspreise.csv", "\ufeff" + text, df, encoding="utf-8", newline="\r\n")


def build_sep_hint(ctx):
    df = _tbl(ctx, "diamonds", 500, salt=5)
    _write_text(ctx, "diamonds.csv", "sep=;\n" + df.to_csv(index=False, sep=";"), df)


def build_trailing_empty_rows(ctx):
    df = _tbl(ctx, "credit", 500, salt=4)
    text = df.to_csv(index=False) + ("," * (df.shape[1] - 1) + "\n") * 300
    _write_text(ctx, "credit.csv", text, df)


def build_zip_one(ctx):
    df = _tbl(ctx, "diamonds", 500, salt=6)
    with zipfile.ZipFile(ctx["sc"] / "diamonds.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("diamonds.csv", df.to_csv(index=False))
    ctx["data"], ctx["df"] = "diamonds.zip", df


APPLEDOUBLE = (b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02\x00\x00\x00\x09\x00\x00\x00\x32"
               b"\x00\x00\x0e\xb0\x00\x00\x00\x02\x00\x00\x0e\xe2\x00\x00\x01\x1e" + b"\x00" * 200
               + b"ATTR\x00\x00\x00\x00com.apple.quarantine\x00" + b"0081;65e5c3a1;Safari;" + b"\x00" * 120)


def build_zip_macosx(ctx):
    df = churn_df(ctx, 500, salt=15)
    with zipfile.ZipFile(ctx["sc"] / "customers.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("__MACOSX/._customers.csv", APPLEDOUBLE)  # what macOS 'Compress' adds, listed first
        z.writestr("customers.csv", df.to_csv(index=False))
    ctx["data"], ctx["df"] = "customers.zip", df


def build_gzip_named_csv(ctx):
    df = _tbl(ctx, "concrete", 600, salt=2)
    (ctx["sc"] / "concrete.csv").write_bytes(gzip.compress(df.to_csv(index=False).encode()))
    ctx["data"], ctx["df"] = "concrete.csv", df


def build_xlsx_title_rows(ctx):
    df = _tbl(ctx, "credit", 500, salt=7)
    rows: list[list[Any]] = [["Credit applications - Q1 2024 (confidential)"], [],
                             ["Prepared by Risk Analytics, 2024-04-02"], [], list(df.columns)]
    for rec in df.itertuples(index=False):
        rows.append([None if (isinstance(v, float) and math.isnan(v)) or v is pd.NA else
                     (v.item() if hasattr(v, "item") else v) for v in rec])
    write_xlsx_rows(rows, ctx["sc"] / "applications.xlsx")
    ctx["data"], ctx["df"] = "applications.xlsx", df


FR_NAMES = {"Age": "Âge", "Attrition": "Départ", "Department": "Département", "Education": "Niveau_d'études",
            "MonthlyIncome": "Salaire_mensuel", "YearsAtCompany": "Ancienneté", "DistanceFromHome": "Distance_domicile",
            "JobSatisfaction": "Satisfaction_au_travail", "OverTime": "Heures_supplémentaires"}


def build_latin1_names(ctx):
    df = _tbl(ctx, "attrition", 600, salt=8).rename(columns=FR_NAMES)
    save(ctx, df, "employés.csv", encoding="latin-1")


def build_parquet_nullable(ctx):
    df = _tbl(ctx, "credit", 600, salt=9)
    df["Status"] = df["Status"].astype("category")
    df["Home"] = df["Home"].astype("category")
    df["Records"] = df["Records"].map({"yes": True, "no": False}).astype("boolean")
    sen = df["Seniority"].astype("Int64")
    sen.iloc[ctx["rng"].choice(len(df), 15, replace=False)] = pd.NA
    df["Seniority"] = sen
    df["Income"] = df["Income"].astype("Float64")
    df.to_parquet(ctx["sc"] / "credit.parquet", index=False)
    ctx["data"], ctx["df"] = "credit.parquet", df


def build_json_nested(ctx):
    df = _tbl(ctx, "penguins", 344)
    recs = json.loads(df.to_json(orient="records"))
    payload = {"meta": {"source": "field-db API", "count": len(recs), "page": 1, "pages": 1}, "data": recs}
    (ctx["sc"] / "penguins.json").write_text(json.dumps(payload, indent=2))
    ctx["data"], ctx["df"] = "penguins.json", df


def build_stata(ctx):
    df = _tbl(ctx, "smokeban", 800)
    df = df.astype({c: object for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])})
    df.to_stata(ctx["sc"] / "smokeban.dta", write_index=False)
    ctx["data"], ctx["df"] = "smokeban.dta", df


# ---- not a table ----

def pdf_bytes(ctx) -> bytes:
    rng = ctx["rng"]
    return (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
            b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
            b"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>\nendobj\n"
            b"4 0 obj\n<< /Length 4096 /Filter /FlateDecode >>\nstream\n" + rng.bytes(4096)
            + b"\nendstream\nendobj\nxref\n0 5\ntrailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n4500\n%%EOF\n")


def build_sqlite(ctx):
    df = churn_df(ctx, 500, salt=16)
    con = sqlite3.connect(ctx["sc"] / "customers.db")
    df.to_sql("customers", con, index=False)
    con.close()
    ctx["data"], ctx["df"] = "customers.db", df


def lfs_pointer(ctx) -> bytes:
    return (b"version https://git-lfs.github.com/spec/v1\n"
            b"oid sha256:4d7a2146f9f0a3c5b8a1c0e7f1d2b3a4c5d6e7f8091a2b3c4d5e6f708192a3b4\n"
            b"size 2480911\n")


def build_markdown_table(ctx):
    df = _tbl(ctx, "penguins", 200, salt=3)
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for rec in df.itertuples(index=False):
        lines.append("| " + " | ".join("" if pd.isna(v) else str(v) for v in rec) + " |")
    _write_text(ctx, "penguins.csv", "\n".join(lines) + "\n", df)


def build_fixed_width(ctx):
    df = _tbl(ctx, "penguins", 344)
    _write_text(ctx, "penguins.txt", df.to_string() + "\n", df)  # print(df) pasted into a file


def build_whole_line_quoted(ctx):
    df = _tbl(ctx, "smokeban", 600, salt=2)
    lines = ['"' + ln + '"' for ln in df.to_csv(index=False).splitlines()]
    _write_text(ctx, "smokeban.csv", "\n".join(lines) + "\n", df)


def build_spreadsheetml(ctx):
    df = churn_df(ctx, 300, salt=17)

    def cell(v):
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            if isinstance(v, float) and math.isnan(v):
                return "<Cell/>"
            return f'<Cell><Data ss:Type="Number">{v}</Data></Cell>'
        return f'<Cell><Data ss:Type="String">{xml_escape(str(v))}</Data></Cell>'

    rows = ["<Row>" + "".join(cell(c) for c in df.columns) + "</Row>"]
    rows += ["<Row>" + "".join(cell(v) for v in rec) + "</Row>" for rec in df.itertuples(index=False)]
    xml = ('<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n'
           '<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" '
           'xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">\n<Worksheet ss:Name="customers"><Table>\n'
           + "\n".join(rows) + "\n</Table></Worksheet>\n</Workbook>\n")
    _write_text(ctx, "customers.xls", xml, df)


# ---- values ----

def jn_values(df, rng):
    df = _obj(df)
    for c in ["smoker", "ban", "afam", "hispanic"]:
        df[c] = df[c].map({"yes": "J", "no": "N"})
    return df


def oui_non(df, rng):
    df = _obj(df)
    m = {"Yes": "Oui", "No": "Non", "No internet service": "Pas de service internet",
         "No phone service": "Pas de ligne fixe"}
    for c in ["churn", "multiple_lines", "online_security", "online_backup", "device_protection", "tech_support",
              "streaming_tv", "streaming_movies"]:
        df[c] = df[c].map(lambda v: m.get(v, v))
    return df


def excel_serial_dates(df, rng):
    df.insert(1, "contract_start", rng.integers(40179, 45292, len(df)))  # 2010-01-01 .. 2023-12-31 as Excel serials
    df["last_payment"] = np.round(45292 + rng.integers(0, 90, len(df)) + rng.random(len(df)), 4)
    return df


def space_thousands(ctx):
    df = _obj(_tbl(ctx, "ames", 800, salt=5))
    seps = ["\u00a0", "\u202f", " "]
    rng = ctx["rng"]

    def fmt(v, dec=0):
        s = f"{float(v):,.{dec}f}".replace(",", "X").replace(".", ",")
        return s.replace("X", seps[rng.integers(3)])

    for c in ["Lot_Area", "Gr_Liv_Area", "Total_Bsmt_SF", "Sale_Price"]:
        df[c] = [fmt(v) for v in df[c]]
    for c in ["Longitude", "Latitude"]:
        df[c] = [f"{float(v):.6f}".replace(".", ",") for v in df[c]]
    save(ctx, df, "ventes_maisons.csv", sep=";")


def apostrophe_thousands(df, rng):
    marks = ["'", "\u2019"]
    df = _obj(df)
    df["price"] = [f"{int(v):,}".replace(",", marks[rng.integers(2)]) for v in df["price"]]
    return df


def sci_notation(df, rng):
    df = _obj(df)
    for c, fmt in [("cement", "{:.4E}"), ("water", "{:.3e}"), ("age", "{:.1E}"), ("fine_aggregate", "{:E}")]:
        df[c] = [fmt.format(float(v)) if rng.random() < 0.5 else v for v in df[c]]
    return df


def label_case_spaces(df, rng):
    df = _obj(df)
    out = []
    for v in df["species"]:
        if isinstance(v, str):
            w = [v, v.lower(), v.upper(), " " + v, v + " ", v.lower() + "  "][rng.integers(6)]
        else:
            w = v
        out.append(w)
    df["species"] = out
    return df


NA_SPELLINGS = ["NA", "N/A", "", "?", "unknown", "-", "null", "n.a.", "(blank)"]


def target_mixed_na(df, rng):
    df = _obj(df)
    idx = rng.choice(len(df), int(0.07 * len(df)), replace=False)
    for k, i in enumerate(idx):
        df.iloc[i, df.columns.get_loc("Status")] = NA_SPELLINGS[k % len(NA_SPELLINGS)]
    return df


def units_target(df, rng):
    df = _obj(df)
    df["body_mass"] = ["" if pd.isna(v) else f"{float(v) / 1000:.2f} kg" for v in df["body_mass_g"]]
    return df.drop(columns=["body_mass_g"])


def units_inputs(df, rng):
    df = _obj(df)
    df["age"] = [f"{int(v)} days" for v in df["age"]]
    df["water"] = [f"{float(v):g} kg/m³" for v in df["water"]]
    df["cement"] = [f"{float(v):g} kg/m3" for v in df["cement"]]
    return df


def sentinel_target(df, rng):
    df = df.copy()
    idx = rng.choice(len(df), 12, replace=False)
    df.loc[idx, "compressive_strength"] = -999.0
    return df


def excel_errors(df, rng):
    df = _obj(df)
    errs = ["#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!"]
    for c in ["Income", "Assets", "Debt"]:
        for i in rng.choice(len(df), int(0.05 * len(df)), replace=False):
            df.iloc[i, df.columns.get_loc(c)] = errs[rng.integers(len(errs))]
    return df


def ibm_constants(df, rng):
    df.insert(5, "EmployeeCount", 1)
    df.insert(9, "EmployeeNumber", rng.permutation(np.arange(1, 2 * len(df), 2))[: len(df)])
    df["Over18"] = "Y"
    df["StandardHours"] = 80
    return df


def forty_pct_empty(df, rng):
    df = _obj(df)
    for c in df.columns:
        if c == "smoker":
            continue
        mask = rng.random(len(df)) < 0.4
        df.loc[mask, c] = None
    return df


def padded_names(df, rng):
    return df.rename(columns={"carat": " carat", "cut": "cut ", "price": " price ", "clarity": "clarity  ",
                              "depth": "\tdepth"})


# ---- leakage ----

def uuid_id(df, rng):
    df.insert(0, "customer_id", [str(uuid.UUID(int=int(rng.integers(0, 2**62)) << 64 | int(rng.integers(0, 2**62)), version=4))
                                 for _ in range(len(df))])
    return df


def innocuous_copy(df, rng):
    df.insert(6, "segment", df["Status"].map({"good": "A", "bad": "B"}).values)
    return df


def other_units(df, rng):
    df.insert(20, "Sale_Price_kEUR", np.round(df["Sale_Price"].astype(float) * 0.92 / 1000, 1))
    return df


def ratio_leak(df, rng):
    df.insert(4, "price_per_carat", np.round(df["price"] / df["carat"], 2))
    return df


def build_dupes_distinct_ids(ctx):
    base = _tbl(ctx, "credit", 120, salt=10)
    df = pd.concat([base] * 5, ignore_index=True).sample(frac=1.0, random_state=ctx["seed"] + 3).reset_index(drop=True)
    ids = ctx["rng"].choice(np.arange(100000, 999999), len(df), replace=False)
    df.insert(0, "application_id", [f"APP-{i}" for i in ids])
    save(ctx, df, "applications.csv")


def sorted_hash_rownum(df, rng):
    df = df.sort_values("smoker", kind="stable").reset_index(drop=True)
    df.insert(0, "#", np.arange(1, len(df) + 1))
    return df


# ---- target ----

def build_two_row_class(ctx):
    df = ctx["tables"].full("crabs")
    rare = df[df["group"] == "orange female"].sample(2, random_state=ctx["seed"])
    df = pd.concat([df[df["group"] != "orange female"], rare]).sample(frac=1.0, random_state=ctx["seed"]).reset_index(drop=True)
    save(ctx, df, "crabs.csv")


def build_15_rows(ctx):
    df = ctx["tables"].full("penguins").dropna()
    df = df.groupby("species").sample(5, random_state=ctx["seed"])
    df = df.sample(frac=1.0, random_state=ctx["seed"]).reset_index(drop=True)
    save(ctx, df, "penguins_pilot.csv")


def species_codes(df, rng):
    df.insert(0, "species_code", df["species"].map({"Adelie": 1, "Gentoo": 2, "Chinstrap": 3}).values)
    return df.drop(columns=["species"])


def float_binary_target(df, rng):
    y = (df["Status"] == "bad").astype(float).to_numpy().copy()
    y[rng.choice(len(y), 3, replace=False)] = np.nan
    df = df.drop(columns=["Status"])
    df.insert(0, "defaulted", y)
    return df


def build_dup_income(ctx):
    df = _tbl(ctx, "credit", 600, salt=11)
    annual = (df["Income"] * 12).round(0)
    df.insert(10, "Income_dup", annual)
    text = df.to_csv(index=False)
    head, rest = text.split("\n", 1)
    head = head.replace("Income_dup", "Income")  # what a report tool writes: two columns called Income
    _write_text(ctx, "credit.csv", head + "\n" + rest, df)


def build_dup_status(ctx):
    df = _tbl(ctx, "credit", 600, salt=12)
    state = ctx["rng"].choice(["approved", "pending", "closed"], len(df))
    df.insert(1, "Status_app", state)
    text = df.to_csv(index=False)
    head, rest = text.split("\n", 1)
    head = head.replace("Status_app", "Status")
    _write_text(ctx, "credit.csv", head + "\n" + rest, df)


def case_only_names(df, rng):
    df.insert(1, "status", rng.choice(["open", "closed"], len(df)))
    return df


def emoji_names(df, rng):
    return df.rename(columns={"MonthlyIncome": "Monthly\nIncome (USD)", "Attrition": "Left? 🚪",
                              "JobRole": "Job 👔 role", "Age": "Âge 🎂"})


# ---- command line ----

def build_churn_named(name: str, n: int = 400, salt: int = 20):
    def build(ctx):
        df = churn_df(ctx, n, salt)
        save(ctx, df, name)
    return build


def build_close_name(ctx):
    df = churn_df(ctx, 400, 21)
    df.to_csv(ctx["sc"] / "churn-data.csv", index=False)
    ctx["data"], ctx["df"] = "churn_data.csv", df


def build_dir_one_csv(ctx):
    d = ctx["sc"] / "export"
    d.mkdir()
    df = churn_df(ctx, 400, 22)
    df.to_csv(d / "churn.csv", index=False)
    ctx["data"], ctx["df"] = "export", df


def build_trailing_space(ctx):
    build_churn_named("data.csv", salt=23)(ctx)
    ctx["data"] = "data.csv "


def build_file_url(ctx):
    build_churn_named("data.csv", salt=24)(ctx)
    ctx["data"] = f"file://{ctx['sc'] / 'data.csv'}"


def build_glob(ctx):
    df = churn_df(ctx, 400, 25)
    df.iloc[:200].to_csv(ctx["sc"] / "part-1.csv", index=False)
    df.iloc[200:].to_csv(ctx["sc"] / "part-2.csv", index=False)
    ctx["data"], ctx["df"] = "part-*.csv", df


def setup_unicode_workdir(ctx):
    parent = ctx["sc"] / "Mes essais (été) – v2"
    parent.mkdir()
    ctx["ws"] = str(parent / "espace de travail")


def build_stdin_dash(ctx):
    build_churn_named("data.csv", salt=26)(ctx)
    ctx["data"] = "-"


def build_credit_only(ctx):
    df = _tbl(ctx, "credit", 400, salt=13)
    save(ctx, df, "applicants.csv")


def argv_instruction_is_path(ctx):
    return ["run", "applicants.csv", "--workdir", str(ctx["ws"]), "--budget", ctx["budget"]]


def argv_reuse_finished_run(ctx):
    fx = ctx["fixture"]()  # one ordinary finished churn run, built by the harness
    ctx["ws"] = fx["ws"]  # the checks read what this command leaves in that workspace
    return ["--workdir", fx["ws"], "run", I_DIAMONDS, "--data", str(ctx["sc"] / "diamonds.csv"),
            "--run-id", fx["run_id"], "--budget", ctx["budget"]]


def build_diamonds_for_reuse(ctx):
    df = _tbl(ctx, "diamonds", 500, salt=8)
    save(ctx, df, "diamonds.csv")
    ctx["data"] = None


# ----------------------------------------------------------------------------------------------------------
# batch 2
# ----------------------------------------------------------------------------------------------------------

def batch2() -> list[Case]:
    C: list[Case] = []

    # 1. exporters, delimiters, encodings -------------------------------------------------------------------
    C.append(Case("enc_r_write_csv2", "encoding",
                  "credit as R write.csv2 writes it: ';', decimal comma, quoted strings, NA, a row-name column with an empty header, 3e+05",
                  "train", build_r_write_csv2, I_CREDIT,
                  checks=credit_ok() + [n_inputs(13), numeric("Income", "Assets", "Debt", "Amount", "Price", "Seniority"),
                                        inputs_exclude("", "Unnamed: 0", "X", "rownames", "row.names", "column_1")]))
    C.append(Case("enc_cp1250_czech", "encoding", "smokeban: Windows-1250 file with Czech category values (ř, ů)",
                  "train", b_csv("smokeban", 800, name="koureni.csv", mutate=czech_values, encoding="cp1250"), I_SMOKE,
                  checks=SMOKE_OK + [levels_contain("education", "střední škola"), levels_contain("gender", "žena")]))
    C.append(Case("enc_macroman_cr", "encoding",
                  "attrition as Excel for Mac 'CSV (Macintosh)': Mac Roman, CR-only line endings, French accented values",
                  "either", build_macroman_cr, I_ATTRITION, keywords=["encoding", "mac", "line ending", "utf-8"],
                  checks=ATTRITION_OK + [rows_used(600), numeric("MonthlyIncome", "Age"),
                                         levels_contain("Department", "Recherche & Développement"),
                                         levels_contain("BusinessTravel", "Déplacements fréquents")]))
    C.append(Case("enc_quote_all_decimal_comma", "encoding",
                  "concrete from LibreOffice 'quote all': ';' separator, every field quoted, decimal comma in quotes",
                  "train", b_csv("concrete", 600, name="beton.csv", sep=";", decimal=",", quoting=csv.QUOTE_ALL),
                  I_CONCRETE, checks=CONCRETE_OK + [n_inputs(8), numeric(*CONCRETE_INPUTS)]))
    C.append(Case("enc_pipe_report_preamble", "encoding",
                  "churn '|'-separated under a 3-line report preamble (one preamble line holds '|' too) and a blank line",
                  "train", build_pipe_preamble,
                  checks=CHURN_OK + [n_inputs(19), rows_used(500), numeric("tenure", "total_charges")]))
    C.append(Case("enc_footer_lines", "encoding", "churn followed by 'Total rows: 500' and 'Exported by ...' footer lines",
                  "train", build_footer_lines,
                  checks=CHURN_OK + [rows_at_most(500), rows_at_least(480), numeric("tenure", "total_charges")]))
    C.append(Case("enc_comment_lines_midfile", "encoding",
                  "penguins with '#' comment lines above the header and two '# --- sheet ---' lines mid-file",
                  "train", build_comment_lines, I_PENGUINS,
                  checks=penguins_ok() + [rows_at_most(344), numeric("bill_length_mm", "body_mass_g", "flipper_length_mm"),
                                          inputs_include("island")]))
    C.append(Case("enc_repeated_header_rows", "encoding", "three churn exports concatenated: the header repeats at rows 201 and 401",
                  "train", build_repeated_headers,
                  checks=CHURN_OK + [rows_at_most(600), rows_at_least(590),
                                     numeric("tenure", "monthly_charges", "total_charges")]))
    C.append(Case("enc_google_sheets_formatted", "encoding",
                  "churn from Google Sheets: CRLF, 0/1 columns as TRUE/FALSE, charges as '$1,889.50', a space in the file name",
                  "train", build_google_sheets,
                  checks=CHURN_OK + [n_inputs(19), numeric("tenure", "monthly_charges", "total_charges")]))
    C.append(Case("enc_sas_export", "encoding", "credit from SAS PROC EXPORT: UPPERCASE names, numeric missing written '.'",
                  "train", build_sas_export, "Predict the credit STATUS of an applicant (good or bad)",
                  checks=credit_ok("STATUS") + [n_inputs(13), numeric("INCOME", "ASSETS", "DEBT", "AMOUNT")]))
    C.append(Case("enc_german_excel", "encoding", "ames from German Excel: UTF-8 BOM, ';', decimal comma (coordinates), CRLF",
                  "train", build_german_excel, I_AMES,
                  checks=AMES_OK + [numeric("Longitude", "Latitude", "Lot_Area", "Gr_Liv_Area"), n_inputs(73)]))
    C.append(Case("enc_excel_sep_hint", "encoding", "diamonds with Excel's 'sep=;' hint as the first line",
                  "train", build_sep_hint, I_DIAMONDS,
                  checks=DIAMOND_OK + [n_inputs(9), numeric("carat", "depth", "table", "x"),
                                       inputs_exclude_like(r"sep=", "the hint line taken as the header")]))
    C.append(Case("enc_trailing_empty_rows", "encoding", "credit followed by 300 rows of bare commas (formatted but empty Excel rows)",
                  "train", build_trailing_empty_rows, I_CREDIT,
                  checks=credit_ok() + [rows_at_most(500), numeric("Income", "Amount")]))
    C.append(Case("enc_zip_one_csv", "encoding", "diamonds.zip holding one CSV", "either", build_zip_one, I_DIAMONDS,
                  keywords=["zip"], checks=DIAMOND_OK + [n_inputs(9)]))
    C.append(Case("enc_zip_macosx", "encoding", "a macOS 'Compress' zip: __MACOSX/._customers.csv listed before customers.csv",
                  "either", build_zip_macosx, keywords=["zip", "__macosx", "several files", "more than one"],
                  checks=CHURN_OK + [n_inputs(19), rows_used(500)]))
    C.append(Case("enc_gzip_named_csv", "encoding", "gzip bytes saved as concrete.csv (a server's Content-Encoding kept)",
                  "either", build_gzip_named_csv, I_CONCRETE, keywords=["gzip", "compressed"],
                  checks=CONCRETE_OK + [n_inputs(8)]))
    C.append(Case("enc_xlsx_title_rows", "encoding", "credit .xlsx with a title, a 'prepared by' line and blank rows above the header",
                  "either", build_xlsx_title_rows, I_CREDIT, keywords=["xlsx", "excel", "openpyxl", "header"],
                  checks=credit_ok() + [n_inputs(13), numeric("Income", "Amount"), rows_used(500)]))
    C.append(Case("enc_latin1_header_names", "encoding",
                  "attrition with French column names in Latin-1 (Âge, Départ, Ancienneté); --target 'Départ' typed in UTF-8",
                  "train", build_latin1_names, "Predict which employees will leave", extra=["--target", "Départ"],
                  checks=[succeeded, target_is("Départ"), task_is(CLS), n_classes(2), numeric("Âge", "Ancienneté", "Salaire_mensuel"),
                          inputs_include("Département"), metric_between("accuracy", 0.6, 0.97)]))
    C.append(Case("enc_parquet_nullable", "encoding",
                  "credit Parquet with pandas nullable types: category target, Int64 with <NA>, boolean, Float64",
                  "train", build_parquet_nullable, I_CREDIT,
                  checks=credit_ok() + [n_inputs(13), numeric("Seniority", "Income", "Amount"), rows_used(600)]))
    C.append(Case("enc_json_nested_key", "encoding", "penguins as an API response: {'meta': {...}, 'data': [records]}",
                  "either", build_json_nested, I_PENGUINS, keywords=["json"],
                  checks=penguins_ok() + [numeric("bill_length_mm", "body_mass_g"), inputs_exclude_like(r"^meta|^data$", "the envelope")]))
    C.append(Case("enc_stata_dta", "encoding", "smokeban as a Stata .dta file", "either", build_stata, I_SMOKE,
                  keywords=[".dta", "stata", "unsupported", "not supported"], checks=SMOKE_OK))

    # 2. not a table ----------------------------------------------------------------------------------------
    C.append(Case("nt_pdf_report", "not_a_table", "a PDF report given as --data customers.pdf", "refuse",
                  b_bytes("customers.pdf", pdf_bytes), keywords=["pdf", "unsupported", "binary", "not a table"],
                  timeout=REFUSE_WAIT))
    C.append(Case("nt_sqlite_db", "not_a_table", "a SQLite database file (customers.db)", "refuse", build_sqlite,
                  keywords=["sqlite", "database", "unsupported", ".db", "binary"], timeout=REFUSE_WAIT))
    C.append(Case("nt_git_lfs_pointer", "not_a_table", "a Git LFS pointer file checked out as data.csv (no `git lfs pull`)",
                  "refuse", b_bytes("data.csv", lfs_pointer),
                  keywords=["lfs", "pointer", "one column", "too few", "only 2 row", "only 3 row", "no data rows"],
                  timeout=REFUSE_WAIT))
    C.append(Case("nt_markdown_table", "not_a_table", "penguins as a Markdown table (| a | b |, |---|) saved as .csv",
                  "either", build_markdown_table, I_PENGUINS, keywords=["markdown", "delimiter", "one column"],
                  checks=penguins_ok() + [numeric("bill_length_mm", "body_mass_g"), rows_at_most(200),
                                          inputs_exclude_like(r"^\s*$|^Unnamed|^column_", "an empty edge column")]))
    C.append(Case("nt_fixed_width_print", "not_a_table", "print(df) of penguins pasted into penguins.txt (fixed width, index column)",
                  "either", build_fixed_width, I_PENGUINS,
                  keywords=["fixed-width", "fixed width", "delimiter", "unsupported", ".txt", "one column"],
                  checks=penguins_ok() + [n_inputs(7), numeric("bill_length_mm", "body_mass_g")]))
    C.append(Case("nt_whole_line_quoted", "not_a_table", "smokeban with each whole line wrapped in quotes (\"smoker,ban,...\")",
                  "either", build_whole_line_quoted, I_SMOKE, keywords=["one column", "quoted", "quote", "delimiter"],
                  checks=SMOKE_OK + [n_inputs(6), numeric("age")]))
    C.append(Case("nt_only_commas", "not_a_table", "a .csv of 50 lines of bare commas (an empty sheet with formatting)",
                  "refuse", b_bytes("data.csv", lambda ctx: (",,,,,,,,\n" * 50).encode()),
                  keywords=["empty", "no data", "no column", "no rows", "0 rows", "header"], timeout=REFUSE_WAIT))
    C.append(Case("nt_spreadsheetml_xls", "not_a_table", "an Excel 2003 XML spreadsheet saved as customers.xls", "either",
                  build_spreadsheetml, keywords=["xml", "xls", "excel", "unsupported"],
                  checks=CHURN_OK + [n_inputs(19)]))

    # 3. values ---------------------------------------------------------------------------------------------
    C.append(Case("val_jn_target", "values", "smokeban: yes/no written J/N (German) in the target and three inputs", "train",
                  b_csv("smokeban", 800, mutate=jn_values), I_SMOKE, checks=SMOKE_OK,
                  ask_keywords=ASK_LABELS + ["J/N", "'J'"]))
    C.append(Case("val_oui_non", "values", "churn: target and service columns written Oui/Non", "train",
                  b_csv("churn", 500, mutate=oui_non), "Predict customer churn (the churn column: Oui or Non)",
                  checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("val_excel_serial_dates", "values",
                  "churn with contract_start and last_payment as Excel serial day numbers (not a forecast)", "train",
                  b_csv("churn", 500, mutate=excel_serial_dates), checks=CHURN_OK))
    C.append(Case("val_space_thousands", "values",
                  "ames ';' file, French style: '31 770' with NBSP / narrow NBSP / space thousands, decimal comma, in the target too",
                  "train", space_thousands, I_AMES,
                  checks=AMES_OK + [numeric("Lot_Area", "Gr_Liv_Area", "Total_Bsmt_SF", "Longitude", "Latitude")]))
    C.append(Case("val_apostrophe_thousands", "values", "diamonds: price as 5'919 and 5’919 (Swiss thousands separators)",
                  "train", b_csv("diamonds", 500, mutate=apostrophe_thousands), I_DIAMONDS, checks=DIAMOND_OK))
    C.append(Case("val_scientific_notation", "values", "concrete: half the cells of 4 columns in E notation (5.4000E+02, 2.8E+01)",
                  "train", b_csv("concrete", 600, mutate=sci_notation), I_CONCRETE,
                  checks=CONCRETE_OK + [numeric("cement", "water", "age", "fine_aggregate")]))
    C.append(Case("val_label_case_spaces", "values", "penguins: species as 'Adelie', 'adelie  ', ' ADELIE', 'Gentoo ' ...",
                  "train", b_csv("penguins", 344, mutate=label_case_spaces), I_PENGUINS,
                  checks=[succeeded, target_is("species"), task_is(CLS), n_classes(3)], ask_keywords=ASK_LABELS))
    C.append(Case("val_target_mixed_na", "values",
                  "credit: 7% of Status is NA, N/A, '', ?, unknown, -, null, n.a., (blank)", "train",
                  b_csv("credit", 800, mutate=target_mixed_na), I_CREDIT,
                  checks=credit_ok() + [classes_include("good", "bad"), rows_at_most(800 - int(0.07 * 800))],
                  ask_keywords=["missing", "unknown", "labels"]))
    C.append(Case("val_units_target", "values", "penguins: regression target body_mass written '3.75 kg'", "either",
                  b_csv("penguins", 344, mutate=units_target), "Predict the body mass of a penguin",
                  keywords=["kg", "unit", "text", "not a number", "numbers"],
                  checks=[succeeded, target_is("body_mass"), task_is(REG), metric_between("r2", 0.5, 0.99)]))
    C.append(Case("val_units_inputs", "values", "concrete: age as '28 days', water and cement as '162 kg/m³'", "either",
                  b_csv("concrete", 600, mutate=units_inputs), I_CONCRETE, keywords=["unit", "days", "kg"],
                  checks=CONCRETE_OK + [numeric("age", "water", "cement")]))
    C.append(Case("val_sentinel_target", "values", "concrete: 12 target values are -999 (the lab's 'not measured' code)", "either",
                  b_csv("concrete", 600, mutate=sentinel_target), I_CONCRETE, keywords=["-999", "sentinel", "negative"],
                  checks=CONCRETE_OK + [y_true_never(-999.0, "the missing-value code"), metric_between("rmse", 0.0, 25.0)]))
    C.append(Case("val_total_summary_row", "values", "concrete with a last 'Total' row: 'Total' in cement, column sums elsewhere",
                  "either", build_total_row, I_CONCRETE, keywords=["total", "summary"],
                  checks=CONCRETE_OK + [numeric("cement"), rows_at_most(600), y_true_within(0, 100, "the Total row scored")]))
    C.append(Case("val_excel_errors", "values", "credit: #DIV/0!, #VALUE!, #REF!, #NAME?, #NUM! in 5% of Income, Assets, Debt",
                  "train", b_csv("credit", 600, mutate=excel_errors), I_CREDIT,
                  checks=credit_ok() + [numeric("Income", "Assets", "Debt")]))
    C.append(Case("val_constant_columns", "values",
                  "attrition as IBM ships it: constant EmployeeCount=1, Over18='Y', StandardHours=80, plus EmployeeNumber",
                  "train", b_csv("attrition", 800, mutate=ibm_constants), I_ATTRITION,
                  checks=ATTRITION_OK + [numeric("MonthlyIncome", "Age")]))
    C.append(Case("val_40pct_empty", "values", "smokeban: 40% of every input's cells empty (target complete)", "train",
                  b_csv("smokeban", 800, mutate=forty_pct_empty), I_SMOKE,
                  checks=[succeeded, target_is("smoker"), task_is(CLS), n_classes(2), rows_used(800),
                          metric_between("accuracy", 0.5, 0.95)]))
    C.append(Case("val_padded_column_names", "values", "diamonds with spaces/tab around names (' price ', 'cut ', '\\tdepth')",
                  "train", b_csv("diamonds", 500, mutate=padded_names), I_DIAMONDS,
                  checks=[succeeded, target_like(r"^\s*price\s*$"), task_is(REG), inputs_include_stripped("carat", "cut", "clarity"),
                          metric_between("r2", 0.7, 0.9995)]))

    # 4. leakage --------------------------------------------------------------------------------------------
    C.append(Case("leak_uuid_id", "leakage", "churn with a customer_id column of UUID strings", "train",
                  b_csv("churn", 500, mutate=uuid_id), checks=CHURN_OK + [inputs_exclude("customer_id"), n_inputs(19)]))
    C.append(Case("leak_innocuous_copy", "leakage", "credit: 'segment' A/B is Status recoded under a harmless name", "either",
                  b_csv("credit", 600, mutate=innocuous_copy), I_CREDIT, keywords=["segment"],
                  checks=credit_ok() + [inputs_exclude("segment")]))
    C.append(Case("leak_other_units", "leakage", "ames: Sale_Price_kEUR = the target in thousands of euros", "either",
                  b_csv("ames", 800, mutate=other_units), I_AMES, keywords=["sale_price_keur"],
                  checks=[succeeded, target_is("Sale_Price", "Sale_Price_kEUR"), task_is(REG),
                          inputs_exclude("Sale_Price", "Sale_Price_kEUR"), metric_between("r2", 0.55, 0.999)]))
    C.append(Case("leak_price_per_carat", "leakage", "diamonds: price_per_carat = price / carat (the target, derived)", "either",
                  b_csv("diamonds", 600, mutate=ratio_leak), I_DIAMONDS, keywords=["price_per_carat"],
                  checks=DIAMOND_OK + [inputs_exclude("price_per_carat")]))
    C.append(Case("leak_dupes_distinct_ids", "leakage", "credit: 120 applications each repeated 5 times, each copy with its own id",
                  "either", build_dupes_distinct_ids, I_CREDIT, keywords=["duplicate", "repeated"],
                  checks=[succeeded, target_is("Status"), n_classes(2), inputs_exclude("application_id"),
                          dup_overlap_ignoring("application_id")]))
    C.append(Case("leak_hash_rownum_header", "leakage", "smokeban sorted by smoker, first column '#' numbering the rows",
                  "train", b_csv("smokeban", 600, mutate=sorted_hash_rownum), I_SMOKE,
                  checks=SMOKE_OK + [inputs_exclude("#"), n_inputs(6), rows_used(600)]))

    # 5. target ---------------------------------------------------------------------------------------------
    C.append(Case("tgt_two_row_class", "target", "crabs: 'orange female' reduced to 2 rows", "either", build_two_row_class,
                  "Classify each crab's group (species and sex) from its measurements",
                  keywords=["orange female", "2 rows", "two rows"],
                  checks=[succeeded, target_is("group"), task_is(CLS), n_classes(3, 4), numeric(*CRABS_INPUTS)]))
    C.append(Case("tgt_15_rows", "target", "a 15-row pilot table of penguins (5 per species)", "either", build_15_rows,
                  I_PENGUINS, keywords=["15 rows", "too few"],
                  checks=[succeeded, target_is("species"), task_is(CLS), n_classes(2, 3)], timeout=REFUSE_WAIT + 60))
    C.append(Case("tgt_numeric_class_codes", "target", "penguins: species coded 1/2/3 in 'species_code' (a classification)",
                  "train", b_csv("penguins", 344, mutate=species_codes), "Classify the penguin species (species_code: 1, 2 or 3)",
                  checks=penguins_ok("species_code")))
    C.append(Case("tgt_float_binary_target", "target", "credit: target 'defaulted' as 1.0/0.0 floats with 3 empty cells",
                  "train", b_csv("credit", 600, mutate=float_binary_target), "Predict whether an applicant defaulted",
                  checks=credit_ok("defaulted")))
    C.append(Case("tgt_duplicate_column_names", "target", "credit with two columns named 'Income' (monthly and annual)",
                  "either", build_dup_income, I_CREDIT, keywords=["same name", "duplicate", "income"],
                  checks=credit_ok()))
    C.append(Case("tgt_duplicate_target_name", "target",
                  "credit with two columns named 'Status': application state and good/bad", "either", build_dup_status, I_CREDIT,
                  keywords=["same name", "duplicate"], checks=credit_ok() + [classes_include("good", "bad")]))
    C.append(Case("tgt_case_only_names", "target", "credit with 'status' (open/closed) beside 'Status' (good/bad)", "train",
                  b_csv("credit", 600, mutate=case_only_names), I_CREDIT,
                  checks=credit_ok() + [classes_include("good", "bad")], ask_keywords=["status"]))
    C.append(Case("tgt_newline_emoji_names", "target",
                  "attrition with names holding a newline and emoji ('Monthly\\nIncome (USD)', 'Left? 🚪', 'Job 👔 role')",
                  "train", b_csv("attrition", 600, mutate=emoji_names), "Predict which employees left the company",
                  checks=[succeeded, target_like(r"Left"), task_is(CLS), n_classes(2),
                          input_like(r"Monthly\s*Income", want_numeric=True), input_like(r"Job.*role")],
                  ask_keywords=["left"]))

    # 6. command-line slips ---------------------------------------------------------------------------------
    C.append(Case("cli_data_close_name", "cli", "--data churn_data.csv when the file is churn-data.csv", "refuse",
                  build_close_name, keywords=["not found", "no such", "did you mean"], timeout=REFUSE_WAIT))
    C.append(Case("cli_data_dir_one_csv", "cli", "--data names a folder holding a single CSV", "either", build_dir_one_csv,
                  keywords=["folder", "directory"], checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("cli_target_not_a_column", "cli", "--target is_smoker (the column is 'smoker')", "refuse",
                  b_csv("smokeban", 500), I_SMOKE, extra=["--target", "is_smoker"],
                  keywords=["not a column", "columns are", "did you mean"], timeout=REFUSE_WAIT))
    C.append(Case("cli_target_contradicts_instruction", "cli", "'Predict the price of a diamond' with --target carat", "either",
                  b_csv("diamonds", 500), I_DIAMONDS, extra=["--target", "carat"],
                  keywords=["conflict", "contradict", "instruction", "price"],
                  checks=[succeeded, target_is("carat"), task_is(REG), inputs_exclude("carat"), metric_between("r2", 0.5, 0.9995)]))
    C.append(Case("cli_budget_2", "cli", "--budget 2", "either", build_churn_named("data.csv"), budget="2",
                  keywords=CLEAR_BUDGET, checks=CHURN_OK, timeout=240))
    C.append(Case("cli_budget_with_unit", "cli", "--budget 30s", "either", build_churn_named("data.csv"), budget="30s",
                  keywords=CLEAR_BUDGET, checks=CHURN_OK, timeout=240))
    C.append(Case("cli_data_trailing_space", "cli", "--data 'data.csv ' (a space pasted after the name)", "either",
                  build_trailing_space, keywords=["not found", "no such"], checks=CHURN_OK))
    C.append(Case("cli_data_file_url", "cli", "--data file:///abs/path/data.csv", "either", build_file_url,
                  keywords=["file://", "url", "scheme", "not found"], checks=CHURN_OK))
    C.append(Case("cli_data_quoted_glob", "cli", "--data 'part-*.csv' (a quoted glob; part-1.csv and part-2.csv exist)", "refuse",
                  build_glob, keywords=["not found", "no such", "wildcard", "glob"], timeout=REFUSE_WAIT))
    C.append(Case("cli_workdir_unicode_spaces", "cli", "--workdir under 'Mes essais (été) – v2/espace de travail'", "train",
                  build_churn_named("data.csv"), checks=CHURN_OK, setup=setup_unicode_workdir))
    C.append(Case("cli_model_name_too_long", "cli", "--model-name of 80 characters (refuse before training)", "refuse",
                  build_churn_named("data.csv"), extra=["--model-name", "churn-model-" + "x" * 68],
                  keywords=["model-name", "model name"], post=post_refused_before_training, timeout=REFUSE_WAIT + 60))
    C.append(Case("cli_data_stdin_dash", "cli", "--data - (stdin, which is empty here)", "refuse", build_stdin_dash,
                  keywords=["stdin", "standard input", "not found", "empty", "no such"], timeout=REFUSE_WAIT))
    C.append(Case("cli_target_empty", "cli", "--target '' (an empty shell variable)", "either", build_churn_named("data.csv"),
                  extra=["--target", ""], keywords=["target"], checks=CHURN_OK))
    C.append(Case("cli_instruction_is_path", "cli", "`run applicants.csv` (the file as the instruction, no --data)", "refuse",
                  build_credit_only, argv=argv_instruction_is_path,
                  keywords=["--data", "instruction", "rephrase", "dataset", "not a machine-learning"], timeout=REFUSE_WAIT))
    C.append(Case("cli_run_id_reuse_finished", "cli",
                  "--run-id of a finished churn run, reused for a diamonds task in the same workspace (last case: it adds to the fixture)",
                  "either", build_diamonds_for_reuse, argv=argv_reuse_finished_run,
                  keywords=["run id", "run-id", "already", "exists", "finished", "different"],
                  checks=[succeeded, target_is("price"), task_is(REG), inputs_include("carat")], timeout=420))

    # 7. interruption ---------------------------------------------------------------------------------------
    C.append(Case("int_sigint_diamonds", "interrupt", "Ctrl-C during a diamonds regression search (3000 rows)", "stop",
                  b_csv("diamonds", 3000), I_DIAMONDS, budget="60", runner="interrupt", timeout=240, note="SIGINT"))
    C.append(Case("int_sigterm_credit", "interrupt", "SIGTERM during training on the full credit table", "stop",
                  b_csv("credit", 4454), I_CREDIT, budget="60", runner="interrupt", timeout=240, note="SIGTERM"))

    # 8. concurrency ----------------------------------------------------------------------------------------
    C.append(Case("conc_same_run_id", "concurrency", "two runs started together with the same --run-id in one workspace", "train",
                  b_csv("churn", 400), extra=["--run-id", "nightly"], runner="concurrent", timeout=420,
                  keywords=["another run", "in use", "already", "lock", "running"]))
    C.append(Case("conc_same_model_name", "concurrency", "two runs started together registering the same --model-name", "train",
                  b_csv("churn", 400), extra=["--model-name", "team-churn"], runner="concurrent", timeout=420,
                  keywords=["another run", "in use", "lock", "busy"]))

    # the case that reuses the harness's fixture workspace goes last
    C.sort(key=lambda c: c.id == "cli_run_id_reuse_finished")
    return C

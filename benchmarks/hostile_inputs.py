"""Hostile but ordinary inputs: first-contact robustness of the `automl-agent` CLI.

Written from the outside: the cases were designed from the README, docs/*.md, `--help` and what a run
writes into its workspace, never from the product's source or tests. Every input file is generated here
from the bundled example tables (small slices), the CLI is run on it as a user would run it, and the
first-contact outcome is scored:

    handled       the outcome matches the case's expectation
    traceback     a Python traceback or 'internal error' in the output, or an exit code other than 0/2
    hang          did not finish within the case's timeout (its whole process group is killed)
    silent_wrong  exit 0 but a check on what was trained failed (wrong target, leaking/index/id column
                  used, wrong classes, data misread), or a side effect that must not happen happened
    unclear       refused or failed with a message that does not say what is wrong

Expectations: `refuse` (exit 2 with a message containing one of the case's keywords), `train` (exit 0
and the checks pass; some cases also accept a question, exit 2 naming the ambiguity), `either` (a correct
model or a clear refusal), `stop` (interruption: a non-zero exit within 30 s of the signal, no traceback,
no model registered, no process of the run left behind).

Where the checks look (found by one ordinary run): `<workdir>/runs/<id>/run.json` (status, target,
task_type, metrics), `bento/schema.json` (the columns the delivered model takes, with their types and
category levels), `attempt_vN/results.json` (n_train, n_test), `attempt_vN/split.json` (features,
train/test row indices), `evidence.json` (classes), and the workspace's `mlflow.db` (registered versions).

Usage:
    python benchmarks/hostile_inputs.py --cli /path/to/automl-agent --label first_contact
    python benchmarks/hostile_inputs.py --cli ... --label x --only enc_gzip,nt_fifo
    python benchmarks/hostile_inputs.py --cli ... --label later --batch 2

Each case gets a fresh scratch folder and a fresh --workdir under /tmp/hostile_<label>/, deleted after
scoring (--keep keeps them). Results: benchmarks/results/hostile_inputs_<label>.{json,md}, rewritten
after every case. Servers started here (for URL and port cases) bind 127.0.0.1 only and are stopped at the
end of their case; processes a case leaves behind (other than the product's per-user Prefect server) are
recorded and then ended by pid.
"""
from __future__ import annotations

import argparse
import gzip
import http.server
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from hostile_cases import (ASK_LABELS, b_bytes, b_csv, Case, churn_df, CHURN_OK, CLEAR_BUDGET, inputs_exclude, inputs_include,
                          levels_contain, metric_between, n_classes, n_inputs, numeric,
                          post_refused_before_training, registered_versions, rows_used, save, succeeded,
                          target_is, task_is, test_rows_seen_in_training, write_xlsx_rows)

HERE = Path(__file__).resolve().parent
DEFAULT_DATASETS = HERE.parent / "automl_agent" / "datasets"
RESULTS = HERE / "results"

OUTCOMES = ["handled", "traceback", "hang", "silent_wrong", "unclear"]
PREFECT_SERVER_PATTERNS = ("automl_agent.platform.prefect_server", "prefect.server.api.server")
MEMORY_CAP_MB = 6000  # a case whose process group holds more is killed (e.g. reading /dev/zero)


# ----------------------------------------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------------------------------------

class Tables:
    def __init__(self, folder: Path, seed: int):
        self.folder = folder
        self.seed = seed
        self._cache: dict[str, pd.DataFrame] = {}

    def full(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            self._cache[name] = pd.read_csv(self.folder / f"{name}.csv")
        return self._cache[name].copy()

    def slice(self, name: str, n: int, salt: int = 0) -> pd.DataFrame:
        df = self.full(name)
        if n < len(df):
            df = df.sample(n, random_state=self.seed + salt)
        return df.reset_index(drop=True)


CHURN_INPUTS = ["female", "senior_citizen", "partner", "dependents", "tenure", "phone_service",
                "multiple_lines", "internet_service", "online_security", "online_backup", "device_protection",
                "tech_support", "streaming_tv", "streaming_movies", "contract", "paperless_billing",
                "payment_method", "monthly_charges", "total_charges"]


def write_xlsx(df: pd.DataFrame, path: Path) -> None:
    """A minimal but valid .xlsx of a table (header row, then its rows), without openpyxl."""
    write_xlsx_rows([list(df.columns)] + [list(r) for r in df.itertuples(index=False)], path)


LOGIN_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Reports Portal</title>
<link rel="stylesheet" href="/static/app.css"></head>
<body><div class="login"><h1>Sign in to continue</h1>
<form method="post" action="/login"><label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password"></label>
<input type="hidden" name="next" value="/exports/customers.csv">
<button type="submit">Sign in</button></form>
<p>Your session has expired. Please sign in again to download the export.</p></div>
<script src="/static/app.js"></script></body></html>
"""


# ----------------------------------------------------------------------------------------------------------
# the case model
# ----------------------------------------------------------------------------------------------------------


# ---- checks on what was trained ---------------------------------------------------------------------------


def metrics_finite(info, ctx):
    m = (info.get("run") or {}).get("metrics") or {}
    bad = {k: v for k, v in m.items() if isinstance(v, (int, float)) and not math.isfinite(v)}
    return f"non-finite metrics {bad}" if bad else (None if m else "no metrics in run.json")


def no_level_matches(pattern: str, what: str):
    rx = re.compile(pattern)

    def chk(info, ctx):
        bad = []
        for name, c in (info.get("schema_cols") or {}).items():
            if rx.search(name):
                bad.append(f"column name {name!r}")
            for lv in c.get("levels") or []:
                if isinstance(lv, str) and rx.search(lv):
                    bad.append(f"{name}={lv!r}")
        return f"{what}: {bad[:6]}" if bad else None
    return chk


# ---- builders -------------------------------------------------------------------------------------------


# ---- mutations --------------------------------------------------------------------------------------------

def mixed_bool_target(df, rng):
    yes = ["TRUE", "yes", "1", "Y", "True"]
    no = ["false", "No", "0", "N", "FALSE"]
    df["churn"] = [yes[rng.integers(len(yes))] if v == "Yes" else no[rng.integers(len(no))] for v in df["churn"]]
    return df


def whitespace_labels(df, rng):
    yes = [" Yes", "Yes ", "yes", "Yes"]
    no = ["No", " No", "no", "No "]
    df["churn"] = [yes[rng.integers(4)] if v == "Yes" else no[rng.integers(4)] for v in df["churn"]]
    return df


def thousands_input(df, rng):
    df["total_charges"] = [f"{v:,.2f}" if pd.notna(v) else "" for v in df["total_charges"]]
    return df


def thousands_target(df, rng):
    df["price"] = [f"{v:,.2f}" for v in df["price"]]
    return df


def currency_target(df, rng):
    df["price"] = [f"${v:,}" for v in df["price"]]
    return df


def percent_input(df, rng):
    df["PercentSalaryHike"] = [f"{v + (0.5 if rng.random() < 0.5 else 0.0):g}%" for v in df["PercentSalaryHike"]]
    return df


PLACEHOLDERS = ["n/a", "-", "?", "NULL", "missing", "#N/A", "inf", "Infinity"]


def placeholders(df, rng):
    for c in ["cement", "water", "superplasticizer", "age"]:
        s = df[c].astype(object)
        idx = rng.choice(len(df), size=int(0.06 * len(df)), replace=False)
        for i in idx:
            s.iloc[i] = PLACEHOLDERS[rng.integers(len(PLACEHOLDERS))]
        df[c] = s
    return df


def inf_target(df, rng):
    s = df["compressive_strength"].astype(object)
    for i, tok in zip(rng.choice(len(df), 8, replace=False), ["Infinity", "inf", "-inf", "Inf", "Infinity", "inf", "INF", "infinity"]):
        s.iloc[i] = tok
    df["compressive_strength"] = s
    return df


def nul_control(df, rng):
    for i in rng.choice(len(df), 6, replace=False):
        df.loc[i, "contract"] = df.loc[i, "contract"] + "\x00"
    for i in rng.choice(len(df), 6, replace=False):
        df.loc[i, "payment_method"] = "\x01" + df.loc[i, "payment_method"] + "\x1b[0m"
    for i in rng.choice(len(df), 4, replace=False):
        df.loc[i, "internet_service"] = df.loc[i, "internet_service"] + "\x07\x08"
    return df


def mixed_dates(df, rng):
    base = pd.Timestamp("2019-01-01")
    out = []
    for k in range(len(df)):
        d = base + pd.Timedelta(days=int(rng.integers(0, 1500)))
        f = k % 5
        out.append([d.strftime("%Y-%m-%d"), d.strftime("%d/%m/%Y"), d.strftime("%B %d, %Y"),
                    f"{d.day}.{d.month}.{d.year}", d.strftime("%m/%d/%y")][f])
    df.insert(1, "signup_date", out)
    return df


def huge_cell(df, rng):
    notes = [""] * len(df)
    notes[7] = ("Customer called about billing; " * 40000)[:1_000_000]
    df["notes"] = notes
    return df


def french_latin1(df, rng):
    df["payment_method"] = df["payment_method"].map({
        "Electronic check": "Chèque électronique", "Mailed check": "Chèque postal",
        "Bank transfer (automatic)": "Virement (automatique)", "Credit card (automatic)": "Carte de crédit (automatique)"})
    return df


def cp1252_values(df, rng):
    df["internet_service"] = df["internet_service"].map({"Fiber optic": "Fibre – 1 Gb/s", "DSL": "ADSL – 20 €", "No": "Aucun"})
    return df


def quoted_multiline(df, rng):
    df["payment_method"] = df["payment_method"].map({
        "Electronic check": "Electronic check", "Mailed check": "Mailed check",
        "Bank transfer (automatic)": "Bank transfer, automatic", "Credit card (automatic)": "Credit card, automatic"})
    notes = ["", "called, no answer", 'asked about "fiber"\nsent brochure', "line 1\r\nline 2, see ticket"]
    df["note"] = [notes[rng.integers(4)] for _ in range(len(df))]
    return df


def sort_by_target_with(col: str | None):
    def m(df, rng):
        df = df.sort_values("churn", kind="stable").reset_index(drop=True)
        if col is not None:
            df.insert(0, col, np.arange(1, len(df) + 1))
        return df
    return m


# ---- builders with custom file formats -------------------------------------------------------------------

def build_trailing_delim(ctx):
    df = churn_df(ctx)
    text = df.to_csv(index=False)
    lines = [ln + "," for ln in text.splitlines()]
    (ctx["sc"] / "data.csv").write_text("\n".join(lines) + "\n")
    ctx["data"], ctx["df"] = "data.csv", df


def build_no_header(ctx):
    df = ctx["tables"].slice("concrete", 500)
    df.to_csv(ctx["sc"] / "concrete_export.csv", index=False, header=False)
    ctx["data"], ctx["df"] = "concrete_export.csv", df


def build_utf16(name: str):
    def build(ctx):
        df = churn_df(ctx)
        df.to_csv(ctx["sc"] / name, index=False, sep="\t", encoding="utf-16")
        ctx["data"], ctx["df"] = name, df
    return build


def build_gzip(ctx):
    df = churn_df(ctx)
    with gzip.open(ctx["sc"] / "data.csv.gz", "wt", encoding="utf-8") as f:
        df.to_csv(f, index=False)
    ctx["data"], ctx["df"] = "data.csv.gz", df


def build_xlsx(name: str):
    def build(ctx):
        df = churn_df(ctx)
        write_xlsx(df, ctx["sc"] / name)
        ctx["data"], ctx["df"] = name, df
    return build


def build_jsonl(ctx):
    df = churn_df(ctx)
    df.to_json(ctx["sc"] / "data.jsonl", orient="records", lines=True)
    ctx["data"], ctx["df"] = "data.jsonl", df


def build_json_array(ctx):
    df = churn_df(ctx)
    df.to_json(ctx["sc"] / "data.json", orient="records", indent=1)
    ctx["data"], ctx["df"] = "data.json", df


def build_parquet(ctx):
    df = ctx["tables"].full("churn").sample(500, random_state=ctx["seed"])  # keeps a non-default index
    df.to_parquet(ctx["sc"] / "data.parquet")  # the index is saved (as __index_level_0__)
    ctx["data"], ctx["df"] = "data.parquet", df


def build_fifo(ctx):
    os.mkfifo(ctx["sc"] / "data.csv")
    ctx["data"] = "data.csv"


def build_dir_of_csvs(ctx):
    d = ctx["sc"] / "exports"
    d.mkdir()
    df = churn_df(ctx)
    df.iloc[:250].to_csv(d / "part-0001.csv", index=False)
    df.iloc[250:].to_csv(d / "part-0002.csv", index=False)
    ctx["data"] = "exports"


def build_single(col: str):
    def build(ctx):
        df = churn_df(ctx)[[col]]
        save(ctx, df, "data.csv")
    return build


def build_dupes(ctx):
    base = churn_df(ctx, n=100)
    df = pd.concat([base] * 8, ignore_index=True).sample(frac=1.0, random_state=ctx["seed"]).reset_index(drop=True)
    save(ctx, df, "data.csv")


def build_one_row_class(ctx):
    df = ctx["tables"].full("penguins")
    extra = df.iloc[[0]].copy()
    extra["species"] = "Emperor"
    extra["body_mass_g"] = 22000.0
    df = pd.concat([df, extra], ignore_index=True).sample(frac=1.0, random_state=ctx["seed"]).reset_index(drop=True)
    save(ctx, df, "penguins.csv")


def build_target_mostly_missing(ctx):
    df = churn_df(ctx)
    keep = ctx["rng"].choice(len(df), 12, replace=False)
    df["churn"] = [v if i in set(keep) else "" for i, v in enumerate(df["churn"])]
    save(ctx, df, "data.csv")


def build_only_id(ctx):
    df = churn_df(ctx)
    df = pd.DataFrame({"customer_id": [f"CUST-{i:05d}" for i in ctx["rng"].permutation(len(df))], "churn": df["churn"]})
    save(ctx, df, "data.csv")


def build_wide(ctx):
    rng = ctx["rng"]
    x = rng.normal(size=(400, 2000)).round(4)
    df = pd.DataFrame(x, columns=[f"f{i:04d}" for i in range(2000)])
    df.insert(0, "label", np.where(x[:, 3] + x[:, 10] > 0, "pos", "neg"))
    save(ctx, df, "wide.csv")


def churn_plus(col: str, fn: Callable[[pd.DataFrame, np.random.Generator], Any], at: int = 5):
    def build(ctx):
        df = churn_df(ctx)
        df.insert(at, col, fn(df, ctx["rng"]))
        save(ctx, df, "data.csv")
    return build


def near_map(df, rng):
    s = np.where(df["churn"] == "Yes", "closed", "active")
    flip = rng.random(len(s)) < 0.03
    return np.where(flip, np.where(s == "closed", "active", "closed"), s)


# ---- post checks (side effects) --------------------------------------------------------------------------

def _snapshot_escape(ctx):
    sc = ctx["sc"]
    ctx["escape_before"] = {
        "scratch": set(os.listdir(sc)),
        "parent": set(os.listdir(sc.parent)),
        "tmp": set(os.listdir("/tmp")),
    }


def post_no_escape(ctx, res):
    before = ctx.get("escape_before")
    if before is None:
        return None
    sc = ctx["sc"]
    new = []
    new += [str(sc / n) for n in set(os.listdir(sc)) - before["scratch"] - {"ws"} if not n.startswith("console")]
    new += [str(sc.parent / n) for n in set(os.listdir(sc.parent)) - before["parent"] if not n.startswith(("_", "case_"))]
    new += [f"/tmp/{n}" for n in set(os.listdir("/tmp")) - before["tmp"] if n in ("x", "my run", "v2")]
    if new:
        return "silent_wrong", f"wrote outside the workspace: {new}"
    return None


# ---- servers for the URL and port cases ------------------------------------------------------------------

class BlackHole:
    """Accepts TCP connections on 127.0.0.1 and never answers."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.stop = False
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.conns.append(c)
            except (socket.timeout, OSError):
                continue

    def close(self):
        self.stop = True
        self.t.join(2)
        for c in self.conns:
            try:
                c.close()
            except OSError:
                pass
        self.sock.close()


class LocalHTTP:
    """http.server on 127.0.0.1: /login-export.csv answers an HTML login page, anything else 404."""

    def __init__(self):
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/login-export.csv"):
                    body = LOGIN_PAGE.encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                else:
                    body = b"<html><body><h1>404 Not Found</h1></body></html>"
                    self.send_response(404)
                    self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_HEAD = do_GET

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.srv.server_address[1]
        self.t = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.t.start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def setup_blackhole(ctx):
    ctx["server"] = BlackHole()
    ctx["data"] = f"http://127.0.0.1:{ctx['server'].port}/exports/churn.csv"


def setup_http(path: str):
    def setup(ctx):
        ctx["server"] = LocalHTTP()
        ctx["data"] = f"http://127.0.0.1:{ctx['server'].port}{path}"
    return setup


def teardown_server(ctx):
    s = ctx.pop("server", None)
    if s is not None:
        s.close()


def setup_busy_port(ctx):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    ctx["busy"] = s
    ctx["port"] = s.getsockname()[1]


def teardown_busy_port(ctx):
    s = ctx.pop("busy", None)
    if s is not None:
        s.close()


def fixture_argv(sub: str, port: Callable[[dict], str]):
    def argv(ctx):
        fx = ctx["fixture"]()
        return ["--workdir", fx["ws"], sub, fx["run_id"], "--host", "127.0.0.1", "--port", port(ctx)]
    return argv


# ----------------------------------------------------------------------------------------------------------
# batch 1
# ----------------------------------------------------------------------------------------------------------

DIAMOND_OK = [succeeded, target_is("price"), task_is("tabular_regression"), inputs_include("carat", "cut", "clarity"),
              metric_between("r2", 0.7, 0.9995)]
CONCRETE_OK = [succeeded, target_is("compressive_strength"), task_is("tabular_regression"), metric_between("r2", 0.4, 0.999)]
REFUSE_NOT_TABLE = ["not a table", "HTML", "web page"]
CLEAR_RUN_ID = ["run-id", "run id"]
CLEAR_WORKDIR = ["workdir", "workspace"]
CLEAR_PORT = ["port"]
CLEAR_BUSY = ["in use", "already", "busy", "taken"]


def batch1() -> list[Case]:
    C = []

    # 1. delimiters, encodings, exports ---------------------------------------------------------------------
    C.append(Case("enc_semicolon_decimal_comma", "encoding", "diamonds: ';' separator and decimal comma (European Excel)",
                  "train", b_csv("diamonds", 500, sep=";", decimal=","), "Predict the price of a diamond",
                  checks=DIAMOND_OK + [numeric("carat", "depth", "table", "x", "y", "z")]))
    C.append(Case("enc_tab_in_csv", "encoding", "churn: tab-separated but named .csv", "train",
                  b_csv("churn", 500, sep="\t"), checks=CHURN_OK + [n_inputs(19), numeric("tenure", "total_charges")]))
    C.append(Case("enc_pipe", "encoding", "penguins: '|' separated", "train", b_csv("penguins", 344, sep="|"),
                  "Classify the penguin species",
                  checks=[succeeded, target_is("species"), n_classes(3), numeric("bill_length_mm", "body_mass_g"), inputs_include("island")]))
    C.append(Case("enc_latin1_accents", "encoding", "churn: Latin-1 file with French accented values", "train",
                  b_csv("churn", 500, mutate=french_latin1, encoding="latin-1"),
                  checks=CHURN_OK + [levels_contain("payment_method", "Chèque électronique")]))
    C.append(Case("enc_cp1252", "encoding", "churn: Windows-1252 file with '€' and en dash in values", "train",
                  b_csv("churn", 500, mutate=cp1252_values, encoding="cp1252"),
                  checks=CHURN_OK + [levels_contain("internet_service", "ADSL – 20 €")]))
    C.append(Case("enc_utf8_bom", "encoding", "churn: UTF-8 with BOM, target is the first column", "train",
                  b_csv("churn", 500, encoding="utf-8-sig"),
                  checks=CHURN_OK + [n_inputs(19), no_level_matches("\ufeff|ï»¿", "BOM left in names")]))
    C.append(Case("enc_utf16_csv", "encoding", "churn: UTF-16 tab-separated (Excel 'Unicode text') named .csv", "train",
                  build_utf16("data.csv"), checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("enc_utf16_txt", "encoding", "churn: Excel 'Unicode text' export as saved (.txt, UTF-16, tabs)", "either",
                  build_utf16("customers.txt"), keywords=[".txt", "CSV"], checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("enc_quoted_multiline", "encoding", "churn: quoted fields with commas, quotes and newlines", "train",
                  b_csv("churn", 500, mutate=quoted_multiline),
                  checks=CHURN_OK + [rows_used(500), levels_contain("payment_method", "Bank transfer, automatic")]))
    C.append(Case("enc_crlf", "encoding", "churn: CRLF line endings", "train", b_csv("churn", 500, lineterminator="\r\n"),
                  checks=CHURN_OK + [numeric("total_charges"), no_level_matches(r"\r", "carriage return left in values")]))
    C.append(Case("enc_trailing_delimiter", "encoding", "churn: every line ends with ',' (empty trailing column)", "train",
                  build_trailing_delim, checks=CHURN_OK + [n_inputs(19), inputs_exclude("Unnamed", "", prefix=True)]))
    C.append(Case("enc_no_header", "encoding", "concrete: no header row; instruction names the last column", "either",
                  build_no_header, "Predict the compressive strength of the concrete: it is the last column (the file has no header row)",
                  keywords=["header"], checks=[succeeded, task_is("tabular_regression"), rows_used(500), n_inputs(8),
                                                         y_true_from("compressive_strength")]))
    C.append(Case("enc_gzip", "encoding", "churn: gzip-compressed .csv.gz", "either", build_gzip, keywords=[".gz", "gzip", "CSV"],
                  checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("enc_xlsx", "encoding", "churn: Excel .xlsx workbook", "either", build_xlsx("customers.xlsx"),
                  keywords=["xlsx", "Excel", "CSV"], checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("enc_jsonl", "encoding", "churn: JSON lines (.jsonl)", "either", build_jsonl,
                  keywords=["jsonl", "JSON", "CSV"], checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("enc_json_array", "encoding", "churn: a .json array of records", "either", build_json_array,
                  keywords=["json", "CSV"], checks=CHURN_OK + [n_inputs(19)]))
    C.append(Case("enc_parquet_index", "encoding", "churn: Parquet with a saved non-default pandas index", "train", build_parquet,
                  checks=CHURN_OK + [n_inputs(19), inputs_exclude("__index_level_0__", "index", "Unnamed: 0")]))

    # 2. not a table ----------------------------------------------------------------------------------------
    C.append(Case("nt_html_login_page", "not_a_table", "an HTML login page saved as customers.csv", "refuse",
                  b_bytes("customers.csv", lambda ctx: LOGIN_PAGE.encode()), keywords=["HTML", "web page"]))
    C.append(Case("nt_binary", "not_a_table", "random binary bytes named data.csv", "refuse",
                  b_bytes("data.csv", lambda ctx: ctx["rng"].bytes(50_000)), keywords=["binary", "not a table"]))
    C.append(Case("nt_empty_file", "not_a_table", "an empty data.csv", "refuse", b_bytes("data.csv", lambda ctx: b""),
                  keywords=["empty"]))
    C.append(Case("nt_single_column_target", "not_a_table", "one column: the target alone", "refuse", build_single("churn"),
                  keywords=["nothing to learn", "no column besides", "only one column", "single column"]))
    C.append(Case("nt_single_column_other", "not_a_table", "one column (tenure); the target named does not exist", "refuse",
                  build_single("tenure"), keywords=["not a column", "no column", "only one column", "nothing to learn", "does not have", "no 'churn'"]))
    C.append(Case("nt_fifo", "not_a_table", "a FIFO (named pipe) given as --data, nobody writing to it", "refuse", build_fifo,
                  keywords=["FIFO", "pipe", "not a regular file", "not a file"], timeout=45))
    C.append(Case("nt_dev_zero", "not_a_table", "--data /dev/zero", "refuse",
                  lambda ctx: ctx.__setitem__("data", "/dev/zero"),
                  keywords=["not a regular file", "device", "special file", "not a file"], timeout=45))
    C.append(Case("nt_dev_null", "not_a_table", "--data /dev/null", "refuse", lambda ctx: ctx.__setitem__("data", "/dev/null"),
                  keywords=["empty", "not a regular file", "device", "not a file"], timeout=45))
    C.append(Case("nt_directory_of_csvs", "not_a_table", "a folder holding two CSV parts", "refuse", build_dir_of_csvs,
                  keywords=["folder", "directory"]))
    C.append(Case("nt_xlsx_named_csv", "not_a_table", "an .xlsx workbook renamed to data.csv", "either", build_xlsx("data.csv"),
                  keywords=["Excel", "xlsx", "spreadsheet", "workbook", "zip"], checks=CHURN_OK + [n_inputs(19)]))

    # 3. values ---------------------------------------------------------------------------------------------
    C.append(Case("val_bool_target_mixed", "values", "target spelled TRUE/false/yes/No/1/0/Y/N (2 classes)", "train",
                  b_csv("churn", 500, mutate=mixed_bool_target),
                  checks=[succeeded, target_is("churn"), n_classes(2), inputs_include("tenure", "contract")],
                  ask_keywords=ASK_LABELS, note="asking about the spellings is acceptable"))
    C.append(Case("val_thousands_input", "values", "total_charges as '1,889.50' (thousands separators) in an input", "train",
                  b_csv("churn", 500, mutate=thousands_input), checks=CHURN_OK + [numeric("total_charges", "monthly_charges")]))
    C.append(Case("val_thousands_target", "values", "price as '1,234.00' in the regression target", "train",
                  b_csv("diamonds", 500, mutate=thousands_target), "Predict the price of a diamond", checks=DIAMOND_OK))
    C.append(Case("val_currency_target", "values", "price as '$5,919' in the regression target", "train",
                  b_csv("diamonds", 500, mutate=currency_target), "Predict the price of a diamond", checks=DIAMOND_OK))
    C.append(Case("val_percent_input", "values", "attrition: PercentSalaryHike as '12.5%'", "train",
                  b_csv("attrition", 600, mutate=percent_input), "Predict employee attrition: who will leave the company?",
                  checks=[succeeded, target_is("Attrition"), n_classes(2), numeric("PercentSalaryHike", "MonthlyIncome")]))
    C.append(Case("val_placeholders_numeric", "values", "concrete: 'n/a','-','?','NULL','missing','#N/A','inf','Infinity' in 4 numeric inputs", "train",
                  b_csv("concrete", 600, mutate=placeholders), "Predict the compressive strength of the concrete",
                  checks=CONCRETE_OK + [numeric("cement", "water", "superplasticizer", "age")]))
    C.append(Case("val_inf_target", "values", "concrete: 8 target cells are Infinity/inf/-inf", "either",
                  b_csv("concrete", 600, mutate=inf_target), "Predict the compressive strength of the concrete",
                  keywords=["inf"], checks=CONCRETE_OK + [metrics_finite]))
    C.append(Case("val_whitespace_labels", "values", "target labels ' Yes', 'Yes ', 'yes', 'No ', 'no' (2 classes)", "train",
                  b_csv("churn", 500, mutate=whitespace_labels),
                  checks=[succeeded, target_is("churn"), n_classes(2), inputs_include("tenure", "contract")],
                  ask_keywords=ASK_LABELS, note="asking about the spellings is acceptable"))
    C.append(Case("val_nul_control_chars", "values", "NUL, bell, ANSI escape bytes inside a few category cells", "either",
                  b_csv("churn", 500, mutate=nul_control), keywords=["NUL", "null byte", "control char"],
                  checks=CHURN_OK))
    C.append(Case("val_mixed_dates", "values", "a signup_date column in 5 date formats (not a forecast)", "train",
                  b_csv("churn", 500, mutate=mixed_dates), checks=CHURN_OK))
    C.append(Case("val_huge_cell", "values", "a notes column empty except one 1 MB cell", "train",
                  b_csv("churn", 500, mutate=huge_cell), checks=CHURN_OK))

    # 4. leakage and target sanity --------------------------------------------------------------------------
    C.append(Case("leak_target_copy", "leakage", "'status' copies the target (Yes/No) under another name", "either",
                  churn_plus("status", lambda df, rng: df["churn"].values), keywords=["status"],
                  checks=CHURN_OK + [inputs_exclude("status")]))
    C.append(Case("leak_target_recode", "leakage", "'churn_flag' = 1/0 recoding of the target", "either",
                  churn_plus("churn_flag", lambda df, rng: (df["churn"] == "Yes").astype(int).values), keywords=["churn_flag"],
                  checks=[succeeded, target_is("churn", "churn_flag"), n_classes(2), inputs_exclude("churn", "churn_flag"),
                          metric_between("accuracy", 0.55, 0.97)]))
    C.append(Case("leak_near_map", "leakage", "'account_status' closed/active agrees with the target on 97% of rows", "either",
                  churn_plus("account_status", near_map), keywords=["account_status"],
                  checks=CHURN_OK + [inputs_exclude("account_status")], note="strict: a near-copy of the target"))
    C.append(Case("leak_unnamed_index_sorted", "leakage", "table sorted by target, saved with its index ('Unnamed: 0')", "train",
                  b_csv("churn", 500, mutate=sort_by_target_with(None), index=True),
                  checks=CHURN_OK + [inputs_exclude("Unnamed", prefix=True)]))
    C.append(Case("leak_row_id_sorted", "leakage", "table sorted by target with a row_id 1..n", "train",
                  b_csv("churn", 500, mutate=sort_by_target_with("row_id")), checks=CHURN_OK + [inputs_exclude("row_id")]))
    C.append(Case("leak_id_sorted", "leakage", "table sorted by target with an integer 'id' column", "train",
                  b_csv("churn", 500, mutate=sort_by_target_with("id")), checks=CHURN_OK + [inputs_exclude("id")]))
    C.append(Case("leak_duplicated_rows", "leakage", "100 rows each repeated 8 times (train/test overlap)", "either",
                  build_dupes, keywords=["duplicate"], checks=[succeeded, target_is("churn"), n_classes(2),
                                                             lambda info, ctx: _dup_overlap(info, ctx)]))
    C.append(Case("leak_one_row_class", "target", "penguins + one row of a 4th species", "either", build_one_row_class,
                  "Classify the penguin species", keywords=["Emperor", "one row", "1 row"],
                  checks=[succeeded, target_is("species"), n_classes(3, 4)]))
    C.append(Case("leak_target_mostly_missing", "target", "target empty except 12 of 500 rows", "refuse",
                  build_target_mostly_missing, keywords=["labelled", "have a value", "has a value", "missing"]))
    C.append(Case("leak_only_id_and_target", "target", "only customer_id and churn", "refuse", build_only_id,
                  keywords=["identif", "nothing to learn", "no usable", "no column besides", "id column"]))
    C.append(Case("leak_2000_columns", "target", "400 rows x 2000 numeric columns, label from 2 of them", "either", build_wide,
                  "Predict the label", keywords=["columns", "wide"], timeout=360,
                  checks=[succeeded, target_is("label"), n_classes(2), metric_between("accuracy", 0.55, 1.0)]))

    # 5. command-line slips -----------------------------------------------------------------------------------
    churn_build = b_csv("churn", 400)
    C.append(Case("cli_run_id_traversal", "cli", "--run-id ../../x", "either", churn_build, extra=["--run-id", "../../x"],
                  keywords=CLEAR_RUN_ID, checks=CHURN_OK, setup=_snapshot_escape, post=post_no_escape))
    C.append(Case("cli_run_id_space_slash", "cli", "--run-id 'my run/v2'", "either", churn_build, extra=["--run-id", "my run/v2"],
                  keywords=CLEAR_RUN_ID, checks=CHURN_OK, setup=_snapshot_escape, post=post_no_escape))
    C.append(Case("cli_model_name_bad", "cli", "--model-name 'bad name!/x' (refuse before training)", "refuse", churn_build,
                  extra=["--model-name", "bad name!/x"], keywords=["model-name", "model name"], post=post_refused_before_training))
    C.append(Case("cli_budget_zero", "cli", "--budget 0", "refuse", churn_build, budget="0", keywords=CLEAR_BUDGET))
    C.append(Case("cli_budget_negative", "cli", "--budget -5", "refuse", churn_build, budget="-5", keywords=CLEAR_BUDGET))
    C.append(Case("cli_budget_huge", "cli", "--budget 1e9", "either", churn_build, budget="1e9", keywords=CLEAR_BUDGET,
                  checks=CHURN_OK, timeout=240))
    C.append(Case("cli_budget_abc", "cli", "--budget abc", "refuse", churn_build, budget="abc", keywords=CLEAR_BUDGET))
    C.append(Case("cli_workdir_is_file", "cli", "--workdir names an existing regular file", "refuse", churn_build,
                  keywords=CLEAR_WORKDIR + ["not a folder", "not a directory"], setup=lambda ctx: _workdir_file(ctx)))
    C.append(Case("cli_workdir_proc", "cli", "--workdir /proc/x (cannot be created)", "refuse", churn_build,
                  keywords=CLEAR_WORKDIR, setup=lambda ctx: ctx.__setitem__("ws", "/proc/x")))
    C.append(Case("cli_swapped_arguments", "cli", "instruction and --data swapped", "refuse", churn_build,
                  argv=lambda ctx: ["run", ctx["data"], "--data", "Predict customer churn", "--workdir", ctx["ws"], "--budget", ctx["budget"]],
                  keywords=["not found", "no such"]))
    C.append(Case("cli_flag_typo", "cli", "--taget churn (misspelt flag)", "refuse", churn_build, extra=["--taget", "churn"],
                  keywords=["unrecognized", "taget"]))
    C.append(Case("cli_target_wrong_case", "cli", "--target Churn (the column is 'churn')", "either", churn_build,
                  extra=["--target", "Churn"], keywords=["not a column", "columns are", "did you mean"], checks=CHURN_OK))
    C.append(Case("cli_serve_port_70000", "cli", "serve RUN --port 70000", "refuse", None,
                  argv=fixture_argv("serve", lambda ctx: "70000"), keywords=CLEAR_PORT, timeout=60))
    C.append(Case("cli_demo_port_70000", "cli", "demo RUN --port 70000", "refuse", None,
                  argv=fixture_argv("demo", lambda ctx: "70000"), keywords=CLEAR_PORT, timeout=60))
    C.append(Case("cli_serve_port_busy", "cli", "serve RUN on a port already bound", "refuse", None,
                  argv=fixture_argv("serve", lambda ctx: str(ctx["port"])), keywords=CLEAR_BUSY, timeout=75,
                  setup=setup_busy_port, teardown=teardown_busy_port))
    C.append(Case("cli_demo_port_busy", "cli", "demo RUN on a port already bound", "refuse", None,
                  argv=fixture_argv("demo", lambda ctx: str(ctx["port"])), keywords=CLEAR_BUSY, timeout=75,
                  setup=setup_busy_port, teardown=teardown_busy_port))
    C.append(Case("cli_url_never_answers", "cli", "--data http URL whose server accepts and never replies", "refuse", None,
                  keywords=["timed out", "timeout", "did not answer", "no answer", "not respond"], timeout=150,
                  setup=setup_blackhole, teardown=teardown_server))
    C.append(Case("cli_url_404", "cli", "--data http URL answering 404", "refuse", None, keywords=["404", "not found"],
                  timeout=120, setup=setup_http("/exports/missing.csv"), teardown=teardown_server))
    C.append(Case("cli_url_html", "cli", "--data http URL answering 200 with an HTML login page", "refuse", None,
                  keywords=["HTML", "web page", "login"], timeout=120, setup=setup_http("/login-export.csv"), teardown=teardown_server))

    # 6. interruption ---------------------------------------------------------------------------------------
    C.append(Case("int_sigint_training", "interrupt", "Ctrl-C (SIGINT to the process group) during training", "stop",
                  b_csv("churn", 800), budget="60", runner="interrupt", timeout=240, note="SIGINT"))
    C.append(Case("int_sigterm_training", "interrupt", "SIGTERM to the CLI process during training", "stop",
                  b_csv("churn", 800), budget="60", runner="interrupt", timeout=240, note="SIGTERM"))

    # 7. concurrency ----------------------------------------------------------------------------------------
    C.append(Case("conc_two_runs_new_workspace", "concurrency", "two runs started together in one brand-new --workdir",
                  "train", b_csv("churn", 400), runner="concurrent", timeout=420,
                  keywords=["another run", "lock", "busy", "in use", "wait"]))
    return C


def _workdir_file(ctx):
    p = ctx["sc"] / "workspace.txt"
    p.write_text("not a folder\n")
    ctx["ws"] = str(p)


def y_true_from(col: str):
    """The held-out truths the run reports (evidence.json y_true) must be values of this column of the file."""
    def chk(info, ctx):
        df = ctx.get("df")
        yt = info.get("y_true")
        if df is None or not yt:
            return "no held-out truths (evidence.json y_true) to compare"
        have = set(np.round(pd.to_numeric(df[col], errors="coerce").dropna().astype(float), 2))
        vals = [round(float(v), 2) for v in yt if v is not None]
        frac = sum(v in have for v in vals) / max(1, len(vals))
        return None if frac >= 0.95 else f"only {frac:.0%} of the held-out truths are values of {col!r}: another column was predicted"
    return chk


def _dup_overlap(info, ctx):
    r = info.get("results") or {}
    n = int(r.get("n_train", 0)) + int(r.get("n_test", 0))
    if n and n <= 110:
        return None  # deduplicated
    frac = test_rows_seen_in_training(info, ctx)
    if isinstance(frac, str):
        return frac
    return (f"{frac:.0%} of the test rows also appear in training: the reported score is inflated, and nothing says so"
            if frac > 0.2 else None)


# ----------------------------------------------------------------------------------------------------------
# running and scoring
# ----------------------------------------------------------------------------------------------------------

def read_text(p: Path) -> str:
    try:
        return p.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def tail(text: str, n: int = 15) -> list[str]:
    return [ln[:400] for ln in text.rstrip().splitlines()[-n:]]


SUMMARY_PREFIXES = ("report ", "Prefect UI", "run ", "serve ", "demo ", "task ", "model ", "registered ", "bento ")


def final_message(text: str, ctx: dict) -> str:
    """The run's own message (run.json) when this case made a run record, else the last meaningful lines."""
    try:
        infos = run_infos(ctx["ws"]) if ctx.get("ws") and Path(ctx["ws"]).is_dir() else []
    except OSError:
        infos = []
    if infos:
        m = str((infos[-1].get("run") or {}).get("message") or "").strip()
        if m:
            return " ".join(m.split())[:300]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith(SUMMARY_PREFIXES)]
    return " | ".join(lines[-3:])[:300]


def message_text(text: str, last: str, ctx: dict) -> str:
    """What the keywords are matched against: the run's message and the last output lines that are not the
    summary, with this case's own folder names (which hold the case id) taken out."""
    lines = [ln for ln in tail(text, 15) if not ln.strip().startswith(SUMMARY_PREFIXES)]
    out = "\n".join(lines) + "\n" + last
    for p in sorted({str(ctx.get("sc", "")), str(ctx.get("ws", ""))}, key=len, reverse=True):
        if p:
            out = out.replace(p, "<case folder>")
    return re.sub(r"/tmp/hostile_[^\s'\"]*", "<case folder>", out).lower()


def has_traceback(text: str) -> bool:
    return "Traceback (most recent call last)" in text or "internal error" in text.lower()


def proc_stat(pid: str) -> tuple[int, int] | None:
    """(pgid, sid) of a process."""
    try:
        s = Path(f"/proc/{pid}/stat").read_text()
        f = s[s.rindex(")") + 2:].split()
        return int(f[2]), int(f[3])
    except (OSError, ValueError, IndexError):
        return None


def group_rss_mb(pgid: int) -> float:
    tot = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        st = proc_stat(pid)
        if st is None or st[0] != pgid:
            continue
        try:
            for ln in Path(f"/proc/{pid}/status").read_text().splitlines():
                if ln.startswith("VmRSS:"):
                    tot += int(ln.split()[1])
        except OSError:
            pass
    return tot / 1024


def kill_group(pgid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        time.sleep(2)


def case_processes(token: str, sids: set[int], markers: list[str], before: set[str]) -> list[dict]:
    """Processes this case started that are still alive (the product's per-user Prefect server excluded)."""
    out = []
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me or pid in before:
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        if not cmd or any(p in cmd for p in PREFECT_SERVER_PATTERNS):
            continue
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            env = b""
        st = proc_stat(pid)
        hit = (token.encode() in env) or (st is not None and st[1] in sids) or any(m and m in cmd for m in markers)
        if hit:
            out.append({"pid": int(pid), "cmd": cmd[:200]})
    return out


def run_infos(ws: str | Path) -> list[dict]:
    """What each run in the workspace says about what it trained (newest last)."""
    infos = []
    ws = Path(ws)
    if not ws.is_dir():
        return infos
    for rj in sorted(ws.glob("runs/*/run.json"), key=lambda p: p.stat().st_mtime):
        d = rj.parent
        info: dict[str, Any] = {"run_dir": str(d)}
        try:
            info["run"] = json.loads(rj.read_text())
        except (OSError, ValueError):
            info["run"] = {}
        schema = None
        for p in [d / "bento" / "schema.json"]:
            if p.is_file():
                try:
                    schema = json.loads(p.read_text())
                except ValueError:
                    pass
        if schema is None and (d / "demo_config.json").is_file():
            try:
                schema = json.loads((d / "demo_config.json").read_text()).get("schema")
            except ValueError:
                pass
        attempts = sorted(d.glob("attempt_v*"), key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
        for name in ("results", "split"):
            for a in reversed(attempts):
                if (a / f"{name}.json").is_file():
                    try:
                        info[name] = json.loads((a / f"{name}.json").read_text())
                    except ValueError:
                        pass
                    break
        if schema and isinstance(schema.get("columns"), list):
            info["schema_cols"] = {c.get("name"): c for c in schema["columns"]}
            info["inputs"] = [c.get("name") for c in schema["columns"]]
        elif info.get("split"):
            info["inputs"] = list(info["split"].get("features") or [])
            info["schema_cols"] = {}
        if (d / "evidence.json").is_file():
            try:
                ev = json.loads((d / "evidence.json").read_text())
                info["classes"] = ev.get("classes")
                info["y_true"] = ev.get("y_true")
            except ValueError:
                pass
        infos.append(info)
    return infos


class Runner:
    def __init__(self, args):
        self.cli = args.cli
        self.label = args.label
        self.timeout = args.timeout
        self.budget = str(args.budget)
        self.keep = args.keep
        self.root = Path(f"/tmp/hostile_{re.sub(r'[^A-Za-z0-9_.-]', '_', args.label)}")
        self.tables = Tables(Path(args.datasets), seed=args.seed)
        self.seed = args.seed
        self._fixture: dict | None = None

    # ---- the fixture for serve/demo cases: one ordinary trained run ----
    def fixture(self) -> dict:
        if self._fixture is None:
            d = self.root / "_fixture"
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            self.tables.slice("churn", 400).to_csv(d / "churn.csv", index=False)
            ws = d / "ws"
            print("  (building the serve/demo fixture: one ordinary run)", flush=True)
            r = subprocess.run([self.cli, "run", "Predict customer churn", "--data", "churn.csv", "--workdir", str(ws),
                                "--budget", "10", "--quiet"], cwd=d, capture_output=True, text=True, timeout=400)
            infos = run_infos(ws)
            if r.returncode != 0 or not infos:
                raise RuntimeError(f"fixture run failed (exit {r.returncode}): {r.stdout[-800:]} {r.stderr[-800:]}")
            self._fixture = {"ws": str(ws), "run_id": infos[-1]["run"]["run_id"]}
        return self._fixture

    def env(self, token: str) -> dict:
        e = dict(os.environ)
        e["HOSTILE_CASE_TOKEN"] = token
        e["PYTHONUNBUFFERED"] = "1"
        return e

    def argv_for(self, case: Case, ctx: dict) -> list[str]:
        if case.argv is not None:
            return [self.cli] + case.argv(ctx)
        extra = case.extra(ctx) if callable(case.extra) else list(case.extra)
        argv = [self.cli, "run", case.instruction, "--workdir", str(ctx["ws"])]
        if ctx.get("data") is not None:
            argv += ["--data", str(ctx["data"])]
        b = case.budget if case.budget is not None else self.budget
        if b != "":
            argv += ["--budget", b]
        return argv + extra

    def spawn(self, argv, ctx, out: Path, token: str) -> subprocess.Popen:
        f = open(out, "wb")
        p = subprocess.Popen(argv, cwd=ctx["sc"], env=self.env(token), stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        f.close()
        return p

    def wait(self, p: subprocess.Popen, timeout: float) -> tuple[int | None, str]:
        """Wait with a timeout and a memory cap on the process group; None = killed."""
        t0 = time.time()
        while True:
            rc = p.poll()
            if rc is not None:
                return rc, ""
            if time.time() - t0 > timeout:
                kill_group(p.pid)
                p.wait(10)
                return None, f"no exit after {timeout:.0f} s"
            if group_rss_mb(p.pid) > MEMORY_CAP_MB:
                kill_group(p.pid)
                p.wait(10)
                return None, f"memory runaway: process group above {MEMORY_CAP_MB} MB after {time.time() - t0:.0f} s"
            time.sleep(0.3)

    # ---- one case ----
    def run_case(self, case: Case) -> dict:
        sc = self.root / f"case_{case.id}"
        shutil.rmtree(sc, ignore_errors=True)
        sc.mkdir(parents=True)
        token = uuid.uuid4().hex
        ctx: dict[str, Any] = {"sc": sc, "ws": str(sc / "ws"), "tables": self.tables, "seed": self.seed,
                               "rng": np.random.default_rng(self.seed + sum(map(ord, case.id))),
                               "budget": self.budget, "fixture": self.fixture, "data": None}
        rec: dict[str, Any] = {"id": case.id, "class": case.cls, "description": case.desc, "expectation": case.expect,
                               "ask_allowed": bool(case.ask_keywords), "note": case.note}
        before = set(p for p in os.listdir("/proc") if p.isdigit())
        try:
            if case.build is not None:
                case.build(ctx)
            if case.setup is not None:
                case.setup(ctx)
            if case.runner == "interrupt":
                res = self.run_interrupt(case, ctx, token)
            elif case.runner == "concurrent":
                res = self.run_concurrent(case, ctx, token)
            else:
                res = self.run_standard(case, ctx, token)
        except Exception as e:  # a harness problem, not the product's
            res = {"outcome": "harness_error", "reason": f"{type(e).__name__}: {e}", "rc": None, "seconds": 0.0,
                   "tail": [], "failed_checks": [], "sids": set(), "markers": []}
        finally:
            if case.teardown is not None:
                try:
                    case.teardown(ctx)
                except Exception:
                    pass
        time.sleep(1.5)
        left = case_processes(token, res.pop("sids", set()), res.pop("markers", []), before)
        for lp in left:
            try:
                os.kill(lp["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
        if left and case.runner == "interrupt" and res["outcome"] == "handled":
            res["outcome"] = "silent_wrong"
            res["reason"] = f"left {len(left)} process(es) running after the interrupt: {left[0]['cmd'][:120]}"
        rec.update(res)
        rec["left_processes"] = left
        if not self.keep:
            shutil.rmtree(sc, ignore_errors=True)
        return rec

    def score(self, case: Case, ctx: dict, rc: int | None, text: str, killed: str, seconds: float) -> dict:
        res: dict[str, Any] = {"rc": rc, "seconds": round(seconds, 1), "tail": tail(text), "failed_checks": [],
                               "output": text[-6000:]}
        last = final_message(text, ctx)
        low = message_text(text, last, ctx)
        kw_hit = [k for k in case.keywords if k.lower() in low]
        if rc is None:
            res["outcome"], res["reason"] = "hang", killed
        elif has_traceback(text) or rc not in (0, 2):
            tb = [ln.strip() for ln in text.splitlines() if re.match(r"^\w*(Error|Exception|Interrupt)\b", ln.strip())]
            res["outcome"] = "traceback"
            res["reason"] = f"exit {rc}; " + (f"traceback: {tb[-1][:200]}" if has_traceback(text) and tb else last)
        elif rc == 0:
            if case.expect == "refuse":
                res["outcome"], res["reason"] = "silent_wrong", "exit 0: trained (or served) where a refusal was expected"
            else:
                infos = run_infos(ctx["ws"])
                info = infos[-1] if infos else {}
                fails = [f for f in (c(info, ctx) for c in case.checks) if f]
                res["failed_checks"] = fails
                res["trained"] = _summary(info)
                if fails:
                    res["outcome"], res["reason"] = "silent_wrong", "; ".join(fails)[:400]
                else:
                    res["outcome"], res["reason"] = "handled", "trained; checks passed: " + _summary_line(info)
        else:  # rc == 2
            if case.expect in ("refuse", "either"):
                if kw_hit:
                    res["outcome"], res["reason"] = "handled", f"refused (exit 2): {last}"
                else:
                    res["outcome"], res["reason"] = "unclear", f"exit 2 without any of {case.keywords}: {last}"
            else:  # train
                ask = [k for k in (case.ask_keywords or []) if k.lower() in low]
                if ask:
                    res["outcome"], res["reason"] = "handled", f"asked (exit 2, allowed here): {last}"
                else:
                    res["outcome"], res["reason"] = "unclear", f"refused a table it should train on: {last}"
        if case.post is not None:
            over = case.post(ctx, res)
            if over is not None and (res["outcome"] == "handled" or over[0] == "silent_wrong"):
                res["outcome"], res["reason"] = over[0], over[1] + " | " + res["reason"][:200]
        return res

    def run_standard(self, case: Case, ctx: dict, token: str) -> dict:
        argv = self.argv_for(case, ctx)
        out = ctx["sc"] / "console.txt"
        t0 = time.time()
        p = self.spawn(argv, ctx, out, token)
        rc, killed = self.wait(p, case.timeout or self.timeout)
        seconds = time.time() - t0
        text = read_text(out)
        res = self.score(case, ctx, rc, text, killed, seconds)
        res["argv"] = [a if len(a) < 200 else a[:200] + "..." for a in argv[1:]]
        res["sids"] = {p.pid}
        res["markers"] = [str(ctx["sc"])]
        return res

    def run_interrupt(self, case: Case, ctx: dict, token: str) -> dict:
        argv = self.argv_for(case, ctx)
        out = ctx["sc"] / "console.txt"
        t0 = time.time()
        p = self.spawn(argv, ctx, out, token)
        seen = None
        while time.time() - t0 < 150 and p.poll() is None:
            text = read_text(out)
            if re.search(r"training in the sandbox|trial\s+\d", text):
                seen = time.time() - t0
                break
            time.sleep(0.3)
        res: dict[str, Any] = {"sids": {p.pid}, "markers": [str(ctx["sc"])], "failed_checks": []}
        if p.poll() is not None:
            text = read_text(out)
            res.update(rc=p.returncode, seconds=round(time.time() - t0, 1), tail=tail(text), output=text[-6000:],
                       outcome="traceback" if has_traceback(text) or p.returncode not in (0, 2) else "unclear",
                       reason=f"ended (exit {p.returncode}) before training could be interrupted")
            return res
        time.sleep(4)
        t_sig = time.time()
        if case.note == "SIGINT":
            os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        else:
            os.kill(p.pid, signal.SIGTERM)  # what `kill PID` or a supervisor does
        try:
            rc = p.wait(30)
        except subprocess.TimeoutExpired:
            rc = None
        waited = time.time() - t_sig
        if rc is None:
            kill_group(p.pid)
        text = read_text(out)
        time.sleep(3)
        reg = registered_versions(ctx["ws"])
        infos = run_infos(ctx["ws"])
        status = infos[-1]["run"].get("status") if infos else None
        res.update(rc=rc, seconds=round(time.time() - t0, 1), tail=tail(text), output=text[-6000:],
                   signal_sent_after_s=round(t_sig - t0, 1), training_line_seen_after_s=seen,
                   exit_after_signal_s=round(waited, 1), registered=reg, run_status=status)
        if rc is None:
            res["outcome"], res["reason"] = "hang", f"still running 30 s after {case.note}"
        elif has_traceback(text):
            tb = [ln.strip() for ln in text.splitlines() if re.match(r"^\w*(Error|Exception|Interrupt)\b", ln.strip())]
            res["outcome"], res["reason"] = "traceback", f"exit {rc} after {waited:.1f} s with a traceback: {(tb or ['?'])[-1][:150]}"
        elif rc == 0:
            res["outcome"], res["reason"] = "silent_wrong", f"exit 0 after {case.note}: the signal was ignored"
        elif reg:
            res["outcome"], res["reason"] = "silent_wrong", f"exit {rc} but a model was registered: {reg}"
        else:
            last = " | ".join(ln.strip() for ln in text.strip().splitlines()[-2:])[:200]
            res["outcome"], res["reason"] = "handled", f"exit {rc} {waited:.1f} s after {case.note}; nothing registered; run status {status!r}: {last}"
        if seen is None:
            res["reason"] += " (no training line seen)"
        return res

    def run_concurrent(self, case: Case, ctx: dict, token: str) -> dict:
        argv = self.argv_for(case, ctx)
        outs = [ctx["sc"] / "console_a.txt", ctx["sc"] / "console_b.txt"]
        t0 = time.time()
        ps = [self.spawn(argv, ctx, o, token) for o in outs]
        rcs = []
        for p in ps:
            rc, _ = self.wait(p, max(10, (case.timeout or self.timeout) - (time.time() - t0)))
            rcs.append(rc)
        seconds = time.time() - t0
        texts = [read_text(o) for o in outs]
        infos = run_infos(ctx["ws"])
        reg = registered_versions(ctx["ws"])
        res: dict[str, Any] = {"rc": rcs, "seconds": round(seconds, 1), "sids": {p.pid for p in ps},
                               "markers": [str(ctx["sc"])], "failed_checks": [], "registered": reg,
                               "tail": tail(texts[0], 8) + ["--- second run ---"] + tail(texts[1], 8),
                               "output": (texts[0][-3000:] + "\n--- second run ---\n" + texts[1][-3000:])}
        statuses = [i["run"].get("status") for i in infos]
        if any(rc is None for rc in rcs):
            res["outcome"], res["reason"] = "hang", f"exit codes {rcs}"
        elif any(has_traceback(t) for t in texts) or any(rc not in (0, 2) for rc in rcs):
            bad = [i for i, t in enumerate(texts) if has_traceback(t) or rcs[i] not in (0, 2)]
            tb = [ln.strip() for ln in texts[bad[0]].splitlines() if re.match(r"^\w*(Error|Exception)\b", ln.strip())]
            last = " | ".join(texts[bad[0]].strip().splitlines()[-2:])[:200]
            res["outcome"], res["reason"] = "traceback", f"exit codes {rcs}; run {'ab'[bad[0]]}: {(tb or [last])[-1][:200]}"
        elif rcs == [0, 0]:
            fails = []
            if len(infos) != 2 or statuses != ["succeeded", "succeeded"]:
                fails.append(f"run records: {statuses}")
            if len(reg) != 2:
                fails.append(f"registered versions {reg}")
            for i, info in enumerate(infos):
                for c in CHURN_OK:
                    f = c(info, ctx)
                    if f:
                        fails.append(f"run {'ab'[i]}: {f}")
            res["failed_checks"] = fails
            res["outcome"] = "silent_wrong" if fails else "handled"
            res["reason"] = "; ".join(fails) if fails else f"both succeeded; registered {reg}"
        else:
            i = rcs.index(2)
            low = message_text(texts[i], "", ctx)
            last = " | ".join(texts[i].strip().splitlines()[-2:])[:200]
            if any(k in low for k in case.keywords):
                res["outcome"], res["reason"] = "handled", f"exit codes {rcs}; one refused clearly: {last}"
            else:
                res["outcome"], res["reason"] = "unclear", f"exit codes {rcs}; run {'ab'[i]}: {last}"
        return res

    def cleanup(self):
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


def _summary(info: dict) -> dict:
    run = info.get("run") or {}
    return {"target": run.get("target"), "task_type": run.get("task_type"), "status": run.get("status"),
            "metrics": run.get("metrics"), "inputs": info.get("inputs"), "classes": info.get("classes"),
            "n_train": (info.get("results") or {}).get("n_train"), "n_test": (info.get("results") or {}).get("n_test")}


def _summary_line(info: dict) -> str:
    s = _summary(info)
    m = s.get("metrics") or {}
    key = next((k for k in ("f1", "accuracy", "r2", "rmse") if k in m), None)
    ml = f"{key}={m[key]:.3f}" if key and isinstance(m[key], (int, float)) else ""
    ncl = f", {len(s['classes'])} classes" if s.get("classes") else ""
    return f"target {s['target']!r} ({s['task_type']}), {len(s.get('inputs') or [])} inputs{ncl}, {ml}"


# ----------------------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------------------

ERROR_LINE = re.compile(r"^\s*(\w+\.)*\w*(Error|Exception|Interrupt)\b.*")


def error_hint(text: str) -> str:
    """The last exception line in the output (e.g. of a training script that failed), for the reason column."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ERROR_LINE.match(ln)]
    return lines[-1][:160] if lines else ""


def _with_hint(r: dict) -> str:
    reason = str(r.get("reason", ""))
    if r.get("outcome") == "traceback":
        h = error_hint(r.get("output", ""))
        if h and h not in reason:
            reason += f" [last error: {h}]"
    return reason


def write_results(records: list[dict], args, started: float, done: bool, meta_extra: dict | None = None) -> tuple[Path, Path]:
    RESULTS.mkdir(parents=True, exist_ok=True)
    for r in records:
        r["reason"] = _with_hint(r)
    counts = {o: sum(1 for r in records if r["outcome"] == o) for o in OUTCOMES}
    other = sum(1 for r in records if r["outcome"] not in OUTCOMES)
    left = [r["id"] for r in records if r.get("left_processes")]
    meta = {"label": args.label, "cli": args.cli, "batch": args.batch, "budget": args.budget, "timeout": args.timeout,
            "seed": args.seed, "cases": len(records), "complete": done, "wall_seconds": round(time.time() - started, 1),
            "counts": counts, "harness_errors": other, "cases_leaving_processes": left,
            "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started))}
    if meta_extra:
        meta.update(meta_extra)
    jp = RESULTS / f"hostile_inputs_{args.label}.json"
    jp.write_text(json.dumps({"meta": meta, "cases": records}, indent=1, default=str))
    lines = [f"# Hostile but ordinary inputs: `{args.label}`", "",
             f"CLI `{args.cli}`, batch {args.batch}, `--budget {args.budget}`, per-case timeout {args.timeout} s "
             f"(shorter for FIFO, devices, ports; interruption: exit expected within 30 s of the signal). "
             f"{len(records)} cases, {meta['wall_seconds'] / 60:.1f} min{'' if done else ' (incomplete)'}"
             f"{' for the cases run again' if meta.get('started_from') else ''}. "
             f"Generated by `benchmarks/hostile_inputs.py`; details and console tails in the .json.", "",
             "| handled | traceback | hang | silent_wrong | unclear |", "|---|---|---|---|---|",
             "| " + " | ".join(str(counts[o]) for o in OUTCOMES) + " |", ""]
    if other:
        lines += [f"Harness errors (not scored): {other}.", ""]
    again = [r["id"] for r in records if r.get("run_again")]
    if again:
        first = f" in `hostile_inputs_{meta['started_from']}`" if meta.get("started_from") else ""
        lines += [f"Run again after the fixes ({len(again)} cases; the others as first scored{first}): "
                  f"{', '.join(again)}.", ""]
    lines += [f"Cases that left processes running (Prefect server excluded): {', '.join(left) if left else 'none'}.", "",
              "| id | class | description | expect | outcome | exit | s | reason |", "|---|---|---|---|---|---|---|---|"]
    for r in records:
        exp = r["expectation"] + (" (ask ok)" if r.get("ask_allowed") else "")
        reason = str(r.get("reason", "")).replace("|", "/").replace("\n", " ")[:260]
        lines.append(f"| {r['id']} | {r['class']} | {r['description'].replace('|', '/')} | {exp} | **{r['outcome']}** | "
                     f"{r.get('rc')} | {r.get('seconds')} | {reason} |")
    mp = RESULTS / f"hostile_inputs_{args.label}.md"
    mp.write_text("\n".join(lines) + "\n")
    return jp, mp


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", help="path of the automl-agent executable to test (required unless --report-only)")
    ap.add_argument("--label", required=True, help="names the results: results/hostile_inputs_<label>.{json,md}")
    ap.add_argument("--only", default="", help="comma-separated case ids")
    ap.add_argument("--batch", type=int, choices=[1, 2], default=1)
    ap.add_argument("--timeout", type=int, default=300, help="per-case wall-clock limit (s)")
    ap.add_argument("--budget", type=int, default=15, help="--budget passed to training runs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--datasets", default=str(DEFAULT_DATASETS), help="folder of the bundled example tables")
    ap.add_argument("--keep", action="store_true", help="keep scratch folders and workspaces")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--start-from", default="", metavar="LABEL",
                    help="begin with the cases of results/hostile_inputs_LABEL.json and replace those run now "
                         "(with --only: run the failures again after a fix, keeping the rest as they were scored)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite results/hostile_inputs_<label>.md (and the reasons in the .json) from the .json; runs nothing")
    args = ap.parse_args(argv)
    if args.report_only:
        saved = json.loads((RESULTS / f"hostile_inputs_{args.label}.json").read_text())
        m = saved["meta"]
        for k in ("cli", "batch", "budget", "timeout", "seed"):
            setattr(args, k, m.get(k, getattr(args, k, None)))
        started = time.mktime(time.strptime(m["started"], "%Y-%m-%d %H:%M:%S"))
        write_results(saved["cases"], args, started, done=m.get("complete", True),
                      meta_extra={"wall_seconds": m.get("wall_seconds"), "started_from": m.get("started_from", "")})
        print(RESULTS / f"hostile_inputs_{args.label}.md")
        return 0
    if not args.cli:
        ap.error("--cli is required")
    args.cli = str(Path(args.cli).resolve()) if os.path.exists(args.cli) else args.cli

    if args.batch == 1:
        cases = batch1()
    else:
        sys.path.insert(0, str(HERE))
        from hostile_inputs_batch2 import batch2  # written after the fixes, by someone who had not read the code
        cases = batch2()
    if args.only:
        want = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [w for w in want if w not in {c.id for c in cases}]
        if unknown:
            print(f"unknown case ids: {unknown}")
            return 1
        cases = [c for c in cases if c.id in want]
    if args.list:
        for c in cases:
            print(f"{c.id:34s} {c.cls:12s} {c.expect:7s} {c.desc}")
        return 0

    runner = Runner(args)
    runner.root.mkdir(parents=True, exist_ok=True)
    started = time.time()
    records: list[dict] = []
    if args.start_from:
        records = json.loads((RESULTS / f"hostile_inputs_{args.start_from}.json").read_text())["cases"]
        for r in records:
            r.setdefault("run_again", False)
    try:
        for i, case in enumerate(cases, 1):
            print(f"[{i}/{len(cases)}] {case.id} ({case.expect}) ...", flush=True)
            rec = runner.run_case(case)
            if args.start_from:
                rec["run_again"] = True
                records = [rec if r["id"] == case.id else r for r in records]
                if not any(r is rec for r in records):
                    records.append(rec)
            else:
                records.append(rec)
            lp = f"  LEFT {len(rec['left_processes'])} PROCESS(ES)" if rec.get("left_processes") else ""
            print(f"    -> {rec['outcome']} (exit {rec.get('rc')}, {rec.get('seconds')} s): {str(rec.get('reason'))[:220]}{lp}", flush=True)
            write_results(records, args, started, done=False,
                          meta_extra={"started_from": args.start_from} if args.start_from else None)
    finally:
        runner.cleanup()
    jp, mp = write_results(records, args, started, done=True,
                           meta_extra={"started_from": args.start_from} if args.start_from else None)
    counts = {o: sum(1 for r in records if r["outcome"] == o) for o in OUTCOMES}
    print(f"\n{len(records)} cases in {(time.time() - started) / 60:.1f} min: {counts}\n{mp}\n{jp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

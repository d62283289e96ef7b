"""The one reader: files as real exports write them, read once and right, or refused with what was found."""

from __future__ import annotations

import gzip
import json
import os
import zipfile

import numpy as np
import pandas as pd
import pytest

from automl_agent.data import sanity, snapshot
from automl_agent.data.io import read_as_the_scripts_do, read_table_with_notes
from automl_agent.data.values import normalize_column
from automl_agent.errors import UserFacingError


@pytest.fixture(scope="module")
def churn(churn_frame) -> pd.DataFrame:
    return churn_frame.head(300).copy()


@pytest.fixture(scope="module")
def diamonds() -> pd.DataFrame:
    from tests.conftest import DATASETS

    return pd.read_csv(DATASETS / "diamonds.csv").head(300)


def _same_as(frame: pd.DataFrame, original: pd.DataFrame) -> None:
    assert list(frame.columns) == list(original.columns)
    for column in original.columns:
        if pd.api.types.is_numeric_dtype(original[column]):
            assert pd.api.types.is_numeric_dtype(frame[column]), column
            np.testing.assert_allclose(frame[column].to_numpy(float), original[column].to_numpy(float), err_msg=column)
        else:
            assert frame[column].astype(str).tolist() == original[column].astype(str).tolist(), column


@pytest.mark.parametrize("write, expect_in_summary", [
    (lambda f, p: f.to_csv(p, sep=";", decimal=",", index=False, encoding="cp1252"), ["';'-separated", "decimal comma"]),
    (lambda f, p: f.to_csv(p, sep="\t", index=False, encoding="utf-16"), ["tab-separated", "utf-16"]),
    (lambda f, p: f.to_csv(p, sep="|", index=False), ["'|'-separated"]),
    (lambda f, p: f.to_csv(p, index=False, encoding="utf-8-sig"), ["csv"]),
    (lambda f, p: f.to_csv(p, index=False, lineterminator="\r\n"), ["csv"]),
    (lambda f, p: p.write_bytes(gzip.compress(f.to_csv(index=False).encode())), ["gzip-compressed"]),
    (lambda f, p: f.to_json(p, orient="records", lines=True), ["json lines"]),
    (lambda f, p: f.to_json(p, orient="records"), ["json"]),
    (lambda f, p: f.to_parquet(p), ["parquet"]),
    (lambda f, p: p.write_text("Export from the CRM\nCreated 2024-01-01 by ops\n\n" + f.to_csv(index=False)),
     ["3 line(s) above the table skipped"]),
    (lambda f, p: p.write_text("# customers\n# one row per customer\n" + f.to_csv(index=False)),
     ["2 line(s) above the table skipped"]),
], ids=["semicolon-decimal-comma-cp1252", "utf16-tab", "pipe", "bom", "crlf", "gzip", "jsonl", "json", "parquet",
        "preamble", "comments"])
def test_exports_are_read_as_the_table_they_hold(tmp_path, diamonds, write, expect_in_summary):
    path = tmp_path / "data.csv"
    write(diamonds, path)
    frame, reading = read_table_with_notes(path)
    _same_as(frame, diamonds)
    for part in expect_in_summary:
        assert part in reading.summary()


def test_a_latin1_label_and_a_zip_with_one_csv(tmp_path, churn):
    frame = churn.assign(payment_method=churn.payment_method.replace({"Mailed check": "Mailed chèque"}))
    path = tmp_path / "data.csv"
    frame.to_csv(path, sep=";", index=False, encoding="latin-1")
    read, reading = read_table_with_notes(path)
    assert "Mailed chèque" in set(read.payment_method) and reading.encoding == "cp1252"
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("customers.csv", churn.to_csv(index=False))
    read, reading = read_table_with_notes(archive)
    _same_as(read, churn)
    assert reading.compression == "zip"


@pytest.mark.parametrize("encoding, words", [
    ("cp1250", ["střední škola", "vyšší odborná škola", "základní vzdělání"]),  # Czech: cp1252 reads 'støední'
    ("cp1250", ["Łódź", "Wrocław", "Gdańsk"]),  # Polish: cp1252 reads 'Wroc³aw'
    ("mac_roman", ["Recherche & Développement", "Déplacements fréquents"]),  # Excel for Mac: 'frŽquents'
    ("cp1252", ["Chèque électronique", "ADSL – 20 €", "Prélèvement"]),
    ("latin-1", ["Größe", "Übergröße", "Straße"]),
], ids=["czech-cp1250", "polish-cp1250", "french-mac-roman", "french-cp1252", "german-latin1"])
def test_single_byte_encodings_are_told_apart_by_the_letters_they_make(tmp_path, churn, encoding, words):
    """Every single-byte encoding decodes every byte without an error: the one chosen is the one whose letters fit."""
    frame = churn.assign(payment_method=[words[i % len(words)] for i in range(len(churn))])
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False, encoding=encoding)
    read, _ = read_table_with_notes(path)
    assert set(read.payment_method) == set(words)


def test_a_file_without_a_header_gets_named_columns(tmp_path, diamonds):
    path = tmp_path / "data.csv"
    diamonds.to_csv(path, index=False, header=False)
    frame, reading = read_table_with_notes(path)
    assert not reading.header and list(frame.columns)[:2] == ["column_1", "column_2"] and len(frame) == len(diamonds)


def test_values_people_write_become_the_values_they_mean(tmp_path, churn):
    rng = np.random.default_rng(0)
    frame = churn.copy()
    frame["churn"] = [rng.choice(["Yes", "yes", "TRUE", "1", "Y"]) if v == "Yes" else rng.choice(["No", "no", "false", "0"])
                      for v in churn.churn]
    frame["monthly_charges"] = [f"${v * 100:,.2f}" for v in churn.monthly_charges]
    frame["tenure"] = frame["tenure"].astype(str)
    frame.loc[3, "tenure"] = "n/a"
    frame.loc[4, "tenure"] = "?"
    frame["contract"] = [f" {v} " for v in churn.contract]
    frame.to_csv(tmp_path / "data.csv")  # with pandas' saved index as the first column
    read, reading = read_table_with_notes(tmp_path / "data.csv")
    assert set(read.churn) == {"Yes", "No"} and (read.churn == churn.churn).all()
    assert read.monthly_charges.dtype == float and np.allclose(read.monthly_charges, churn.monthly_charges * 100)
    assert read.tenure.isna().sum() == 2 and pd.api.types.is_numeric_dtype(read.tenure)
    assert (read.contract == churn.contract).all()
    assert "Unnamed: 0" not in read.columns
    notes = " | ".join(reading.notes)
    for said in ("2 spellings" if False else "spellings", "thousands separators", "currency", "placeholder",
                 "saved row number"):
        assert said in notes


@pytest.mark.parametrize("values, expected", [
    (["1.234,5", "2,25", "-3"], [1234.5, 2.25, -3.0]),
    (["12.5%", "7%", "100%"], [12.5, 7.0, 100.0]),
    (["(1,200)", "300", "inf"], [-1200.0, 300.0, np.nan]),
    (["Infinity", "4", "-"], [np.nan, 4.0, np.nan]),
    (["5'919", "5’919", "1'234.5"], [5919.0, 5919.0, 1234.5]),  # Swiss thousands
    (["3.75 kg", "4.1 kg", "3 kg"], [3.75, 4.1, 3.0]),  # one unit after every number
    (["162 kg/m3", "200 kg/m3", "540 kg/m3"], [162.0, 200.0, 540.0]),
])
def test_numbers_in_their_written_forms(values, expected):
    decimal = "," if "2,25" in values else "."
    read, _ = normalize_column(pd.Series(values, name="x"), decimal)
    np.testing.assert_allclose(read.to_numpy(float), expected)


def test_a_code_for_not_measured_is_read_as_missing():
    values = pd.Series([str(v) for v in [12.5, 30.1, -999, 44.0, 18.2, -999, 25.0] * 4], name="strength")
    read, notes = normalize_column(values)
    assert read.isna().sum() == 8 and read.min() > 0 and "-999" in " ".join(notes)
    read, notes = normalize_column(pd.Series([str(v) for v in [-5.0, 3.0, -999, 2.0, -999] * 5], name="delta"))
    assert read.isna().sum() == 0 and not notes  # negatives are real values there: -999 may be one too


def test_codes_and_addresses_that_hold_digits_stay_text():
    for values in (["5A", "12A"] * 15, ["A12", "B5"] * 15, ["12 Main St", "5 Oak Ave"] * 15, ["INV-500000", "INV-7"] * 15):
        read, _ = normalize_column(pd.Series(values, name="x"))
        assert read.tolist() == values


@pytest.mark.parametrize("write, rows, said", [
    (lambda f: f.to_csv(index=False) + "Total rows: 300\nExported by CRM v2 on 2024-05-01\n", 300, "single value"),
    (lambda f: f.head(150).to_csv(index=False) + f.iloc[150:].to_csv(index=False), 300, "repeat the header"),
    (lambda f: f.head(100).to_csv(index=False) + "# --- part 2 ---\n" + f.iloc[100:].to_csv(index=False, header=False),
     300, "single value"),
    (lambda f: f.to_csv(index=False) + "Total," + ",".join(str(round(f[c].sum(), 1)) for c in f.columns[1:]) + "\n",
     300, "summary row"),
    (lambda f: "|" + "|".join(f.columns) + "|\n|" + "|".join("---" for _ in f.columns) + "|\n"
     + "".join("|" + "|".join(map(str, r)) + "|\n" for r in f.itertuples(index=False)), 300, "ruled line"),
], ids=["footer", "header-repeated", "comment-mid-file", "total-row", "markdown"])
def test_lines_that_are_not_rows_of_the_table_are_left_out_and_said(tmp_path, diamonds, write, rows, said):
    frame = diamonds[["cut", "carat", "depth", "price"]]
    path = tmp_path / "data.csv"
    path.write_text(write(frame))
    read, reading = read_table_with_notes(path)
    assert len(read) == rows and pd.api.types.is_numeric_dtype(read["price"])
    assert read["price"].max() == frame["price"].max() and said in " ".join(reading.notes)


def test_a_header_with_a_line_break_in_a_quoted_name_is_still_the_header(tmp_path, churn):
    frame = churn.rename(columns={"monthly_charges": "Monthly\nCharges (USD)", "churn": "Left? 🚪"})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    read, reading = read_table_with_notes(path)
    assert len(read) == len(churn) and reading.header and "Left? 🚪" in read.columns


def test_a_sheet_with_a_title_above_its_header(tmp_path, churn):
    pytest.importorskip("openpyxl")
    path = tmp_path / "customers.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame([["Customer export - Q1 (confidential)"], [None], ["Prepared by ops"]]).to_excel(
            writer, index=False, header=False)
        churn.to_excel(writer, index=False, startrow=4)
    read, reading = read_table_with_notes(path)
    assert list(read.columns) == list(churn.columns) and len(read) == len(churn)
    assert "above the table" in " ".join(reading.notes)


def test_a_first_column_counting_the_rows_is_left_out_whatever_its_name(tmp_path, churn):
    frame = churn.sort_values("churn")
    frame.insert(0, "#", range(1, len(frame) + 1))
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    read, _ = read_table_with_notes(path)
    assert "#" not in read.columns


def test_words_and_categories_stay_text():
    read, notes = normalize_column(pd.Series(["None", "DSL", "Fiber optic", "None"], name="internet"))
    assert read.tolist() == ["None", "DSL", "Fiber optic", "None"] and not notes
    read, _ = normalize_column(pd.Series(["0", "1", "1", "0"], name="flag"))
    assert pd.api.types.is_integer_dtype(read)
    read, _ = normalize_column(pd.Series(["yes", "Yes", "no", "No"], name="x"))
    assert set(read) == {"Yes", "No"}


@pytest.mark.parametrize("content, said", [
    (b"<!DOCTYPE html><html><head><title>Sign in</title></head><body></body></html>", "web page (HTML titled 'Sign in')"),
    (b"\x89PNG\r\n\x1a\n" + bytes(200), "PNG image"),
    (bytes(range(256)) * 20, "binary data"),
    (b"", "is empty"),
    # (one column of words; one of numbers is a series a forecast reads in row order)
    (b"only\n" + b"\n".join(f"word {i}".encode() for i in range(40)), "table of one column"),
])
def test_what_is_no_table_is_refused_with_what_was_found(tmp_path, content, said):
    path = tmp_path / "data.csv"
    path.write_bytes(content)
    with pytest.raises(UserFacingError, match="") as caught:
        read_table_with_notes(path)
    assert said in str(caught.value)


def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(UserFacingError, match="named pipe"):
        read_table_with_notes(fifo)


def test_a_column_that_reproduces_the_target_is_left_out(churn):
    frame = churn.assign(churn_flag=(churn.churn == "Yes").astype(int), churned_copy=churn.churn)
    kept, report = sanity.check(frame, "churn", classification=True)
    assert set(report.left_out) == {"churn_flag", "churned_copy"} and len(kept) == len(frame)
    assert "tenure" not in report.left_out and "contract" not in report.left_out
    _, report = sanity.check(frame, "churn", classification=True, allowed_inputs=["churn_flag", "tenure"])
    assert "churn_flag" not in report.left_out and any("kept because the instruction" in n for n in report.notes)


def test_a_target_in_other_units_is_left_out(diamonds):
    frame = diamonds.assign(price_eur=diamonds.price * 0.92, price_thousands=(diamonds.price / 1000).round(3))
    _, report = sanity.check(frame, "price", classification=False)
    assert set(report.left_out) == {"price_eur", "price_thousands"}


@pytest.mark.parametrize("copies", [1, 3], ids=["54k-rows", "162k-rows"])  # large tables are screened on a sample
def test_a_column_derived_from_the_target_with_another_is_left_out(diamonds, copies):
    diamonds = pd.concat([diamonds] * copies, ignore_index=True)
    frame = diamonds.assign(price_per_carat=(diamonds.price / diamonds.carat).round(2), price_eur=diamonds.price * 0.92)
    assert "price_eur" in sanity.leaking_columns(frame, "price", classification=False)
    frame = frame.drop(columns="price_eur")
    leaks = sanity.leaking_columns(frame, "price", classification=False)
    assert list(leaks) == ["price_per_carat"] and "'carat'" in leaks["price_per_carat"]
    assert sanity.leaking_columns(diamonds, "price", classification=False) == {}


def test_placeholders_in_a_label_column_are_no_class(churn):
    labels = churn.churn.where(churn.index % 10 != 3, "?").where(churn.index % 10 != 7, "(blank)")
    frame, report = sanity.check(churn.assign(churn=labels), "churn", classification=True)
    assert set(frame.churn.dropna()) == {"Yes", "No"} and report.rows_left_out["no target value"] == 60
    assert "placeholder" in " ".join(report.notes)


def test_a_class_with_one_row_is_left_out_and_counted(churn):
    frame = churn.copy()
    frame.loc[0, "churn"] = "Maybe"
    kept, report = sanity.check(frame, "churn", classification=True)
    assert "Maybe" not in set(kept.churn) and list(report.rows_left_out.values()) == [1]
    frame.loc[:, "churn"] = ["A"] + ["B"] * (len(frame) - 1)
    with pytest.raises(UserFacingError, match="only 1 of them"):
        sanity.check(frame, "churn", classification=True)


def test_too_good_a_score_and_repeated_rows_are_said():
    warnings = sanity.score_warnings({"metrics": {"accuracy": 1.0, "f1": 0.9995}}, "tabular_classification")
    assert len(warnings) == 1 and "too good to be true" in warnings[0]
    assert sanity.score_warnings({"metrics": {"accuracy": 1.0}}, "node_classification") == []
    assert "same side" in sanity.split_notes({"repeated_rows_kept_on_one_side": 12, "n_test": 80})[0]


def test_the_snapshot_is_what_every_later_stage_reads(tmp_path, churn):
    path = tmp_path / "data.csv"
    churn.to_csv(path, sep=";", index=False, encoding="cp1252")
    frame, reading = read_table_with_notes(path)
    frame = frame.drop(index=[5, 6])
    written = snapshot.write(frame, reading, sanity.SanityReport(), tmp_path / "run", "data")
    again = read_as_the_scripts_do(written)
    assert again.index.tolist() == frame.index.tolist()  # split.json's row labels still point at the same rows
    _same_as(again, frame)
    beside = json.loads((written.parent / snapshot.READING_FILE).read_text())
    assert beside["reading"]["delimiter"] == ";" and beside["rows"] == len(frame)


def test_a_column_of_uuids_is_an_identifier_not_free_text():
    import uuid

    from automl_agent.data.profile import _kind

    ids = pd.Series([str(uuid.UUID(int=i * 7919 + 12345)) for i in range(300)], name="ref")
    assert _kind(ids, 300) == "identifier"
    reviews = pd.Series([f"the parcel number {i} came late and the box was torn" for i in range(300)], name="review")
    assert _kind(reviews, 300) == "text"


def test_a_column_that_nearly_maps_onto_the_target_is_left_out(churn):
    status = np.where(churn.churn == "Yes", "closed", "active")
    status[:9] = np.where(status[:9] == "closed", "active", "closed")  # 97% agreement
    leaks = sanity.leaking_columns(churn.assign(account_status=status), "churn", classification=True)
    assert list(leaks) == ["account_status"]
    assert sanity.leaking_columns(churn, "churn", classification=True) == {}

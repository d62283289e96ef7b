"""The one reader of the user's table: a file as real exports write it, read once into typed columns, with every
decision (format, compression, encoding, delimiter, decimal mark, header, lines skipped, values normalized) kept in
a TableReading that the run shows and records.

What it recognizes: CSV in its dialects (`,` `;` tab `|`, quoting, a decimal comma) as found by clevercsv, the
encoding (UTF-8 with or without BOM, UTF-16, Latin-1/cp1252) as found by charset-normalizer, gzip/bz2/xz/zip
compression, a missing header row, title or comment lines above the table, JSON lines, a JSON list of records,
Parquet, and Excel when openpyxl is installed. What it refuses, saying what it found: an HTML or XML page, binary
data, a file that is not a regular file (a FIFO, a device), an empty file, a table of one column.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import re
import stat
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..agents.contracts import TableReading
from ..errors import UserFacingError
from .values import normalize_column

SAMPLE_BYTES = 256 * 1024
DELIMITERS = [",", ";", "\t", "|"]
_EXPORT_HINT = "Export the data as CSV (in a spreadsheet: Save As > CSV) or Parquet, and pass that file."
_COMPRESSED = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz"}
_NOT_TABLES = {b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"GIF8": "a GIF image",
               b"%PDF": "a PDF document", b"\xd0\xcf\x11\xe0": "an old Excel/Word file (.xls/.doc)",
               b"SQLite format 3": "an SQLite database", b"\x7fELF": "a program (an executable)",
               b"RIFF": "a media file", b"ID3": "an audio file", b"OggS": "an audio file"}


def check_regular_file(path: Path) -> None:
    """Refuse before opening what is not a plain file: opening a FIFO blocks forever, a device never ends."""
    mode = path.stat().st_mode
    if stat.S_ISREG(mode):
        return
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise UserFacingError(f"{path} is {kind}, not a regular file: it cannot be read as a table.",
                          "Save the data to a file (CSV or Parquet) and pass its path.")


def read(path: Path) -> tuple[pd.DataFrame, TableReading]:
    """The table in `path` with typed columns, and how it was read. Raises UserFacingError for what is no table."""
    raw_head = _head(path)
    _check_named_format(path, raw_head)
    compression, head = _decompressed_head(path, raw_head)
    if head[:4] == b"PAR1":
        frame, notes = _normalized(pd.read_parquet(path), ".", [])
        return _finish(frame, TableReading(file=path.name, format="parquet", notes=notes))
    if head[:4] == b"PK\x03\x04" and compression is None:
        return _read_zip(path)
    kind = next((what for magic, what in _NOT_TABLES.items() if head.startswith(magic)), None)
    if kind:
        raise UserFacingError(f"{path.name} is not a table: it holds {kind}.", _EXPORT_HINT)
    encoding = _encoding(head)
    text = head.decode(encoding, errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    _refuse_markup(path, text)
    if _binary(head, encoding):
        raise UserFacingError(f"{path.name} is not a table: it holds binary data, not text.", _EXPORT_HINT)
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        frame, fmt = _read_json(path, compression, encoding, stripped)
        frame, notes = _normalized(frame, ".", [])
        return _finish(frame, TableReading(file=path.name, format=fmt, compression=compression, encoding=encoding,
                                           notes=notes))
    return _read_delimited(path, compression, encoding, text)


# ---------------------------------------------------------------- bytes
_BINARY_FORMATS = {".xlsx": (b"PK\x03\x04", "an Excel workbook"), ".xlsm": (b"PK\x03\x04", "an Excel workbook"),
                   ".parquet": (b"PAR1", "a Parquet file"), ".pq": (b"PAR1", "a Parquet file"),
                   ".gz": (b"\x1f\x8b", "a gzip archive"), ".zip": (b"PK\x03\x04", "a ZIP archive")}


def _check_named_format(path: Path, head: bytes) -> None:
    """A file whose name promises a binary format it does not hold (a renamed or half-downloaded file)."""
    expected = _BINARY_FORMATS.get(path.suffix.lower())
    if expected and not head.startswith(expected[0]):
        raise UserFacingError(f"{path.name} is named like {expected[1]} but does not hold one (it may be renamed, or "
                              "only partly downloaded).",
                              "Open it in the program that made it and export it again, or pass it as CSV.")


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(SAMPLE_BYTES)


def _opener(compression: str | None):
    return {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(compression or "", open)


def _decompressed_head(path: Path, head: bytes) -> tuple[str | None, bytes]:
    compression = next((name for magic, name in _COMPRESSED.items() if head.startswith(magic)), None)
    if compression is None:
        return None, head
    try:
        with _opener(compression)(path, "rb") as handle:
            return compression, handle.read(SAMPLE_BYTES)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise UserFacingError(f"{path.name} is a {compression} archive that cannot be opened: {exc}.",
                              "Check the file is complete (download it again), or pass it uncompressed.") from None


def _encoding(head: bytes) -> str:
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if len(head) >= 4 and head[1:4:2] == b"\x00\x00" and head[0:4:2] != b"\x00\x00":
        return "utf-16-le"  # UTF-16 without its byte-order mark: every other byte of ASCII text is zero
    if len(head) >= 4 and head[0:4:2] == b"\x00\x00" and head[1:4:2] != b"\x00\x00":
        return "utf-16-be"
    try:
        head.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # the sample cut a character in two
            return "utf-8"
    return _single_byte_encoding(head)


# Windows' Western text is what most spreadsheets outside UTF-8 save; Central European Windows and the old Mac text
# decode the same bytes without an error but into other letters, so the three are weighed, not tried in turn.
_SINGLE_BYTE = ["cp1252", "cp1250", "mac_roman"]
_CLEARER = 0.03  # how much more coherent (charset-normalizer's language fit) another encoding must read than cp1252
# one accented word in English text ('Mailed chèque') fits a language no better as cp1250's 'chčque': cp1250 wins a
# tie only where the text reads as a language written in it
_LANGUAGES = {"cp1250": {"Czech", "Slovak", "Polish", "Hungarian", "Croatian", "Slovene", "Romanian", "Serbian",
                         "Bosnian", "Albanian"}}
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _single_byte_encoding(head: bytes) -> str:
    """cp1252 unless another single-byte encoding reads the sample better: first by fewer characters out of place
    inside words (Polish 'Wrocław' is 'Wroc³aw' in cp1252, a Mac's 'fréquents' is 'frŽquents'), then, where both
    read as letters (Czech 'střední' is 'støední'), by charset-normalizer's fit to a language."""
    texts = {}
    for encoding in _SINGLE_BYTE:
        try:
            texts[encoding] = head.decode(encoding)
        except UnicodeDecodeError:
            continue
    if not texts:
        return "latin_1"  # decodes any byte; what is left is binary data, refused after this
    readings = {encoding: _out_of_place(text) for encoding, text in texts.items()}
    fewest = min(readings.values())
    tied = [encoding for encoding, odd in readings.items() if odd == fewest]
    if len(tied) > 1:
        mixing = {encoding: _mixed_alphabets(texts[encoding]) for encoding in tied}
        tied = [encoding for encoding in tied if mixing[encoding] == min(mixing.values())]
    if len(tied) == 1:
        return tied[0]
    from charset_normalizer import from_bytes

    matches = list(from_bytes(head, cp_isolation=tied))
    # encodings that decode the sample to the same text are one match; cp1252 may hide behind another's name
    western = next((m for m in matches if "cp1252" in m.could_be_from_charset), None)
    others = sorted((m for m in matches if m is not western), key=lambda m: (m.chaos, -m.coherence))
    if western is None:
        return others[0].encoding if others else tied[0]
    for other in others:
        speaks = other.encoding not in _LANGUAGES or bool(set(other.languages[:1]) & _LANGUAGES[other.encoding])
        if speaks and (other.chaos < western.chaos - 0.01
                       or (other.chaos <= western.chaos and other.coherence > western.coherence + _CLEARER)):
            return other.encoding
    return "cp1252"


# letters typical of the languages each code page was made for (letters both use, such as é, ö and ß, are in neither)
_CENTRAL_LETTERS = set("ąćęłńśźżčďěňřšťůžĺľŕőűăşţĄĆĘŁŃŚŹŻČĎĚŇŘŠŤŮŽĹĽŔŐŰĂŞŢ")
_WESTERN_LETTERS = set("àèìòùâêîôûëïÿçñøåæœãõÀÈÌÒÙÂÊÎÔÛËÏŸÇÑØÅÆŒÃÕ")


def _mixed_alphabets(text: str) -> int:
    """How far the accented letters mix Western and Central European alphabets: a right reading of Czech text keeps
    to one ('převodem', 'šekem'), a wrong one mixes them ('pøevodem', 'šekem')."""
    letters = Counter(char for char in _NON_ASCII.findall(text) if char in _CENTRAL_LETTERS or char in _WESTERN_LETTERS)
    central = sum(n for char, n in letters.items() if char in _CENTRAL_LETTERS)
    return min(central, sum(letters.values()) - central)


def _out_of_place(text: str) -> int:
    """Non-ASCII characters a real text would not hold there: a symbol or digit between two letters ('Wroc³aw'), a
    capital after a small letter ('frŽquents'), a control code."""
    odd = 0
    for found in _NON_ASCII.finditer(text):
        at, char = found.start(), found.group()
        before = text[at - 1] if at else " "
        after = text[at + 1] if at + 1 < len(text) else " "
        if (not char.isalpha() and before.isalpha() and after.isalpha()) or (char.isupper() and before.islower()) \
                or ord(char) < 0xA0:
            odd += 1
    return odd


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13)) + b"\x7f"


def _binary(head: bytes, encoding: str) -> bool:
    """Binary data, not text with a stray NUL or control character in a cell (those are cleaned from the values)."""
    if "16" in encoding or not head:
        return False
    control = sum(head.count(bytes([b])) for b in _CONTROL_BYTES)
    return control > 0.05 * len(head)


def _refuse_markup(path: Path, text: str) -> None:
    start = text.lstrip()[:2048].lower()
    if start.startswith(("<!doctype html", "<html", "<head", "<body")) or "<html" in start[:512]:
        title = re.search(r"<title[^>]*>(.*?)</title>", text[:20000], re.I | re.S)
        what = f" titled '{title.group(1).strip()[:80]}'" if title and title.group(1).strip() else ""
        raise UserFacingError(
            f"{path.name} is a web page (HTML{what}), not a table: a link that led to a login, error or preview page "
            "saves such a page instead of the data.",
            "Download the file itself (the raw CSV or the export link), open it to check it holds rows of data, and "
            "pass that file.")
    if start.startswith("<?xml") or start.startswith("<"):
        raise UserFacingError(f"{path.name} holds XML or another markup, not a table.", _EXPORT_HINT)


# ---------------------------------------------------------------- formats
def _read_zip(path: Path) -> tuple[pd.DataFrame, TableReading]:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise UserFacingError(f"{path.name} looks like a ZIP archive but cannot be opened.",
                              "Check the file is complete, or pass the table inside it.") from None
    names = archive.namelist()
    if "[Content_Types].xml" in names and any(n.startswith("xl/") for n in names):
        try:
            frame = pd.read_excel(path, sheet_name=0, header=None)
        except ImportError:
            raise UserFacingError(f"{path.name} is an Excel workbook, and reading it needs openpyxl.",
                                  "pip install openpyxl, or save the sheet as CSV (Save As > CSV) and pass that.") from None
        notes = []
        sheets = [n for n in names if n.startswith("xl/worksheets/sheet")]
        if len(sheets) > 1:
            notes.append(f"the workbook has {len(sheets)} sheets; the first one was read")
        frame = _sheet_below_its_title(frame, notes)
        frame = _without_stray_rows(frame, notes)
        frame, value_notes = _normalized(frame.astype(object).where(frame.notna(), None).astype("string"), ".", [])
        return _finish(frame, TableReading(file=path.name, format="excel", notes=notes + value_notes))
    if any(n.startswith("word/") for n in names):
        raise UserFacingError(f"{path.name} is not a table: it holds a Word document.", _EXPORT_HINT)
    tables = [n for n in names if not n.endswith("/") and Path(n).suffix.lower() in {".csv", ".tsv", ".txt"}
              and not n.startswith("__MACOSX")]
    if len(tables) != 1:
        raise UserFacingError(f"{path.name} is a ZIP archive with {len(tables)} CSV files in it "
                              f"({', '.join(tables[:5]) or 'none'}): which one is the table is not clear.",
                              "Unpack it and pass the one table with --data.")
    data = archive.read(tables[0])
    encoding = _encoding(data[:SAMPLE_BYTES])
    text = data[:SAMPLE_BYTES].decode(encoding, errors="replace").lstrip("\ufeff")
    frame, reading = _read_delimited(io.BytesIO(data), None, encoding, text, name=path.name)
    reading.compression = "zip"
    reading.notes.insert(0, f"read {tables[0]} from the archive")
    return frame, reading


def _sheet_below_its_title(sheet: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """A sheet read without a header: its header is the first row from which the rows stay as wide as most rows
    (title, 'prepared by' and blank rows above it are left out)."""
    widths = sheet.head(200).notna().sum(axis=1).tolist()
    width = max(widths, default=0)
    start = next((i for i, w in enumerate(widths)  # a data row may leave cells empty; a title fills one or two
                  if w >= 0.8 * width and all(x >= 0.5 * width or x == 0 for x in widths[i:i + 5])), 0)
    start = start if width >= 2 and start <= 50 else 0
    header = [str(v) if pd.notna(v) else f"Unnamed: {j}" for j, v in enumerate(sheet.iloc[start])]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sheet.iloc[start].dropna()):
        header = [f"column_{j + 1}" for j in range(sheet.shape[1])]  # the first row is data
        body = sheet.iloc[start:]
        notes.append(f"the first row holds data, not column names: columns named column_1 ... column_{sheet.shape[1]}")
    else:
        body = sheet.iloc[start + 1:]
    if start:
        notes.append(f"{start} row(s) above the table left out ({' '.join(map(str, sheet.iloc[0].dropna()))[:60]!r} ...)")
    body = body.copy()
    body.columns = header
    return body.reset_index(drop=True)


def _read_json(path: Path, compression: str | None, encoding: str, text: str) -> tuple[pd.DataFrame, str]:
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    try:
        if text.startswith("{") and len(lines) > 1 and all(_is_json_object(line) for line in lines[:-1]):
            return pd.read_json(path, lines=True, compression=compression, encoding=encoding, dtype=False), "json lines"
        with _opener(compression)(path, "rt", encoding=encoding) as handle:
            data = json.load(handle)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserFacingError(f"{path.name} starts like JSON but is not valid JSON: {str(exc).splitlines()[0]}.",
                              "Give a JSON list of records ([{\"col\": value, ...}, ...]), JSON lines (one record "
                              "per line), or a CSV file.") from None
    if isinstance(data, dict):  # {"data": [...]} or {"col": [values]} or {"col": {"row": value}}
        lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        data = lists[0] if len(lists) == 1 else data
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data[:100]):
        return pd.json_normalize(data), "json"
    if isinstance(data, dict) and data and all(isinstance(v, (list, dict)) for v in data.values()):
        return pd.DataFrame(data), "json"
    raise UserFacingError(f"{path.name} is JSON but not a table of records.",
                          "Give a JSON list of records ([{\"col\": value, ...}, ...]) or JSON lines.")


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _read_delimited(source, compression: str | None, encoding: str, text: str,
                    name: str | None = None) -> tuple[pd.DataFrame, TableReading]:
    name = name or Path(source).name
    lines = text.splitlines()
    if len(text.encode("utf-8", errors="ignore")) >= SAMPLE_BYTES - 8 and len(lines) > 1:
        lines = lines[:-1]  # the sample's last line may be cut short
    delimiter, quote = _dialect("\n".join(lines))
    skip = _lines_above_table(lines, delimiter, quote)
    body = lines[skip:]
    if not body or not any(line.strip() for line in body):
        raise UserFacingError(f"{name} is empty.", "Give a table with a header row and at least a few dozen data rows.")
    header = _has_header(body, delimiter, quote)
    try:
        frame = pd.read_csv(source, sep=delimiter, quotechar=quote or '"', encoding=encoding, compression=compression,
                            header=0 if header else None, skiprows=skip, dtype=str, keep_default_na=False,
                            skip_blank_lines=True, engine="c", on_bad_lines="error", encoding_errors="strict")
    except UnicodeDecodeError:
        encoding = "cp1252" if encoding.startswith("utf-8") else "latin-1"
        if hasattr(source, "seek"):
            source.seek(0)
        frame = pd.read_csv(source, sep=delimiter, quotechar=quote or '"', encoding=encoding, compression=compression,
                            header=0 if header else None, skiprows=skip, dtype=str, keep_default_na=False,
                            skip_blank_lines=True, engine="c", on_bad_lines="error", encoding_errors="replace")
    except pd.errors.EmptyDataError:
        raise UserFacingError(f"{name} is empty.", "Give a table with a header row and at least a few dozen data rows.") from None
    except pd.errors.ParserError as exc:
        raise UserFacingError(
            f"{name} could not be read as a table: {str(exc).splitlines()[0]} (read as "
            f"{_delimiter_name(delimiter)}-separated{', after ' + str(skip) + ' line(s) above the table' if skip else ''}).",
            "Check that every row has the same number of fields (a field that contains the delimiter must be in "
            "quotes), or save the data again as CSV from the program that made it.") from None
    notes = []
    if not header:
        frame.columns = [f"column_{i + 1}" for i in range(frame.shape[1])]
        notes.append(f"the first row holds data, not column names: columns named column_1 ... column_{frame.shape[1]}")
    if skip:
        notes.append(f"{skip} line(s) above the table left out ({lines[0][:60]!r} ...)")
    frame = _without_stray_rows(frame, notes)
    decimal = _decimal_mark(frame, delimiter)
    frame, value_notes = _normalized(frame, decimal, notes)
    return _finish(frame, TableReading(file=name, format="csv", compression=compression, encoding=encoding,
                                       delimiter=delimiter, decimal=decimal, header=header, skipped_lines=skip,
                                       notes=notes + value_notes), name=name)


def _dialect(sample: str) -> tuple[str, str]:
    """The delimiter and quote character, as clevercsv detects them; a plain comma when the sample has one column."""
    import clevercsv

    try:
        found = clevercsv.Detector().detect(sample[:65536], delimiters=DELIMITERS + [":", " "])
    except Exception:  # clevercsv raises plain errors on odd input; the counting fallback below decides then
        found = None
    delimiter = found.delimiter if found is not None and found.delimiter else ""
    if delimiter not in DELIMITERS:
        delimiter = _most_consistent_delimiter(sample.splitlines()[:200]) or ","
    quote = found.quotechar if found is not None and found.quotechar in {'"', "'"} else '"'
    return delimiter, quote


def _most_consistent_delimiter(lines: list[str]) -> str | None:
    best, best_score = None, 0
    for delimiter in DELIMITERS:
        counts = Counter(line.count(delimiter) for line in lines if line.strip())
        if not counts:
            continue
        fields, rows = counts.most_common(1)[0]
        if fields and rows > best_score:
            best, best_score = delimiter, rows
    return best


def _records(lines: list[str], delimiter: str, quote: str, limit: int = 200) -> list[tuple[int, list[str]]]:
    """The first records of the sample with the physical line each starts on: a quoted field may hold a line break
    (a header 'Monthly\nIncome' spans two lines)."""
    import csv

    records: list[tuple[int, list[str]]] = []
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter, quotechar=quote or '"')
    start = 0
    try:
        for fields in reader:
            records.append((start, fields))
            start = reader.line_num
            if len(records) >= limit:
                break
    except csv.Error:  # an unbalanced quote: fall back to one record a line
        return [(i, line.split(delimiter)) for i, line in enumerate(lines[:limit])]
    return records


def _lines_above_table(lines: list[str], delimiter: str, quote: str) -> int:
    """Title, note or comment lines before the header: the table starts at the first record from which the number of
    fields stays what most records have. Counted in physical lines, as the CSV parser skips them."""
    records = _records(lines, delimiter, quote)
    widths = [len(fields) if any(f.strip() for f in fields) else 0 for _, fields in records]
    common = Counter(w for w in widths if w).most_common(1)
    if not common or common[0][0] < 2:
        return 0
    width = common[0][0]
    for index, w in enumerate(widths):
        if w == width and all(x in (width, 0) for x in widths[index:index + 5]):
            start = records[index][0]
            return start if start <= 50 else 0
    return 0


_RULE = re.compile(r"^:?-{3,}:?$|^=+$")  # a Markdown table's |---|---| line, or an underline of '=' signs
_SUMMARY = re.compile(r"^(grand\s+)?(total|totals|sub-?total|sum|summe|gesamt|insgesamt|total g[ée]n[ée]ral|totale|"
                      r"suma|somme)\b.*$", re.I)


def _without_stray_rows(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """Rows of the file that are not rows of the table, read while every cell is still text: the header repeated
    (exports pasted one after another), lines holding one value in a table of several columns (a comment, a section
    title, a footer such as 'Total rows: 500'), a Markdown rule line, and a summary row ('Total', 'Sum') at the end.
    Each kind is left out and counted in the notes."""
    if frame.shape[1] < 2 or frame.empty:
        return frame
    text = frame.fillna("").astype(str).apply(lambda column: column.str.strip())
    filled = text.ne("").sum(axis=1)
    names = [str(c).strip() for c in frame.columns]
    header_again = text.eq(names).sum(axis=1) >= max(2, int(0.8 * len(names)))
    lone_value = (filled <= 1) & (filled > 0) if frame.shape[1] >= 3 else pd.Series(False, index=frame.index)
    rule = text.apply(lambda column: column.str.fullmatch(_RULE)).sum(axis=1).eq(filled) & filled.gt(0)
    tail = frame.index[-3:]
    summary = pd.Series(False, index=frame.index)
    summary.loc[tail] = text.loc[tail].apply(lambda column: column.str.fullmatch(_SUMMARY)).any(axis=1)
    kinds = [(header_again, "repeat the header (files joined one after another)"),
             (lone_value, "hold a single value in a table of several columns (a comment, title or footer line)"),
             (rule, "are a ruled line ('---'), not data"),
             (summary, "are a summary row at the end of the table ('Total', 'Sum')")]
    drop = pd.Series(False, index=frame.index)
    for mask, why in kinds:  # each row is counted under the first kind it fits
        mask = mask & ~drop
        if mask.any():
            example = " ".join(v for v in text.loc[mask].iloc[0] if v)[:60]
            notes.append(f"{int(mask.sum())} row(s) {why}: left out (e.g. {example!r})")
            drop |= mask
    return frame[~drop] if drop.any() else frame


def _looks_numeric(value: str) -> bool:
    return bool(re.fullmatch(r"[+-]?[$€£]?\d[\d,. ]*%?", value.strip()))


def _has_header(lines: list[str], delimiter: str, quote: str) -> bool:
    """A first row is data, not names, when it has a number where the rows below have numbers, or it repeats a
    value that the rows below hold in the same column; names are never empty numbers."""
    rows = [fields for _, fields in _records(lines, delimiter, quote, limit=60) if any(f.strip() for f in fields)]
    if len(rows) < 3:
        return True
    first, rest = rows[0], rows[1:]
    numeric_cols = [j for j in range(len(first))
                    if sum(_looks_numeric(r[j]) for r in rest if j < len(r)) >= 0.9 * len(rest)]
    if any(_looks_numeric(first[j]) for j in numeric_cols):
        return False
    if numeric_cols or len(first) < 2:
        return True
    # an all-text table: a first row whose values recur below is data
    repeats = sum(first[j] in {r[j] for r in rest if j < len(r)} for j in range(len(first)) if first[j].strip())
    return repeats < max(1, len(first) // 2)


def _delimiter_name(delimiter: str) -> str:
    return {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(delimiter, repr(delimiter))


def _decimal_mark(frame: pd.DataFrame, delimiter: str) -> str:
    """A comma is the decimal mark where the file's numbers say so: values like 3,14 and none like 3.14 (Excel in
    most of Europe writes them with a ';' delimiter)."""
    if delimiter == ",":
        return "."
    sample = frame.head(500)
    comma = point = 0
    for column in sample.columns:
        values = sample[column].dropna().astype(str).str.strip()
        comma += int(values.str.fullmatch(r"[+-]?\d+(\.\d{3})*,\d+").sum())
        point += int(values.str.fullmatch(r"[+-]?\d+\.\d+").sum() - values.str.fullmatch(r"[+-]?\d{1,3}\.\d{3}").sum())
    return "," if comma > max(point, 0) else "."


# ---------------------------------------------------------------- columns
def _normalized(frame: pd.DataFrame, decimal: str, structural_notes: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """Each text column as the values it holds; fully empty columns and rows left out; notes for every change."""
    notes: list[str] = []
    frame = frame.copy()
    frame.columns = _column_names(frame.columns)
    # a column with no name and no value is an export's artefact (a delimiter at the end of each line); a named empty
    # column stays, so that a target left empty is said as such
    empty = [c for c in frame.columns if _unnamed(c) and (frame[c].isna().all()
                                                         or frame[c].astype(str).str.strip().eq("").all())]
    if empty:
        frame = frame.drop(columns=empty)
        notes.append(f"{len(empty)} empty column(s) left out ({', '.join(map(repr, empty[:5]))})")
    converted = {}
    for name in frame.columns:
        column = frame[name]
        if column.dtype == object or pd.api.types.is_string_dtype(column):
            converted[name], column_notes = normalize_column(column, decimal)
            notes.extend(column_notes)
        else:
            converted[name] = column.replace([np.inf, -np.inf], np.nan) if pd.api.types.is_float_dtype(column) else column
    frame = pd.DataFrame(converted, index=frame.index)
    blank = frame.isna().all(axis=1)
    if blank.any():
        frame = frame[~blank]
        notes.append(f"{int(blank.sum())} empty row(s) left out")
    index_like = _saved_index(frame)
    if index_like:
        frame = frame.drop(columns=[index_like])
        notes.append(f"'{index_like}' is a saved row number (an index written with the table), not data: left out")
    return frame.reset_index(drop=True), notes


def _unnamed(name: str) -> bool:
    return name.startswith(("Unnamed:", "column_")) or not name.strip()


def _column_names(columns) -> list[str]:
    names = []
    for i, c in enumerate(columns):
        name = re.sub(r"[\x00-\x1f\x7f]", "", str(c)).strip().lstrip("\ufeff")
        names.append(name or f"column_{i + 1}")
    return names


_ROW_NUMBER_NAMES = {"index", "rownames", "x", "column_1", "row", "row_number", "rownum", "row_no", "row no", "#", "no",
                     "nr", "n°", "№", "num", "idx", "sno", "s.no", "sr.no", "sr", "lfd. nr", "lfd.nr"}


def _saved_index(frame: pd.DataFrame) -> str | None:
    """The first column, when it is a row number written out by a tool (pandas' 'Unnamed: 0', R's row names): an
    input made of it would learn the row order, and the table's order often follows the target. A nameless first
    column of distinct integers is one even when the rows were sorted before saving; one named as tools and people
    name row numbers ('#', 'index', 'rownames', 'No.') only when it counts 0, 1, 2, ... (or from 1) in order."""
    if frame.shape[1] < 2:
        return None
    name = str(frame.columns[0])
    values = frame.iloc[:, 0]
    if not pd.api.types.is_integer_dtype(values) or not len(values):
        return None
    if name.lower().startswith("unnamed") or name in {"", "...1"}:
        return name if values.is_unique else None
    if name.lower().strip(" .") not in _ROW_NUMBER_NAMES:
        return None  # a named count may be a real input (a time step): only the names tools give row numbers
    start = int(values.iloc[0])
    return name if start in (0, 1) and (values.to_numpy() == np.arange(start, start + len(values))).all() else None


def _finish(frame: pd.DataFrame, reading: TableReading, name: str | None = None) -> tuple[pd.DataFrame, TableReading]:
    name = name or reading.file
    # (one column of numbers is a series in the order of its rows, which a forecast reads; one column of text is a file
    # split on the wrong delimiter, or a list with nothing to learn from)
    if frame.shape[1] == 1 and frame.shape[0] > 0 and not pd.api.types.is_numeric_dtype(frame.iloc[:, 0]):
        raise UserFacingError(
            f"{name} was read as a table of one column ({str(frame.columns[0])[:60]!r}): there is nothing to learn "
            f"from besides it (read as {reading.summary()}).",
            "Check the file's delimiter (comma, semicolon, tab or |) and that it has one column per field; "
            "a model needs a column to predict and at least one to predict it from.")
    frame = _time_from_labels(frame, reading.notes)
    frame = _time_from_parts(frame, reading.notes)
    return frame, reading


_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
# period labels that R (tsibble's yearmonth, yearquarter, yearweek), spreadsheets and statistics offices write, which
# pandas does not read as dates: each -> a function of the match giving the period's first day
_PERIOD_LABELS: list[tuple[re.Pattern, object]] = [
    (re.compile(rf"^(\d{{4}})[ -]?({_MONTHS})[a-z]*\.?$", re.I), lambda m: f"{m[1]}-{_month(m[2])}-01"),
    (re.compile(rf"^({_MONTHS})[a-z]*\.?[ -]?(\d{{4}})$", re.I), lambda m: f"{m[2]}-{_month(m[1])}-01"),
    (re.compile(r"^(\d{4})[ -]?Q([1-4])$", re.I), lambda m: f"{m[1]}-{3 * int(m[2]) - 2:02d}-01"),
    (re.compile(r"^Q([1-4])[ -]?(\d{4})$", re.I), lambda m: f"{m[2]}-{3 * int(m[1]) - 2:02d}-01"),
    (re.compile(r"^(\d{4})[ -]?M(\d{2})$", re.I), lambda m: f"{m[1]}-{m[2]}-01"),
    (re.compile(r"^(\d{4})[ -]?W(\d{1,2})$", re.I), lambda m: f"{m[1]}-W{int(m[2]):02d}-1"),
]


def _month(name: str) -> str:
    return f"{_MONTHS.split('|').index(name[:3].lower()) + 1:02d}"


def _period_start(label: str) -> str | None:
    for pattern, start in _PERIOD_LABELS:
        m = pattern.match(label.strip())
        if m:
            return start(m)
    return None


def _time_from_labels(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """A text column whose every value is a period label ('1960 Jan', 'Q3 2021', '2020M07', '2019 W05') is read as the
    period's first day, so a forecast can order its rows by it and calendar windows ('next quarter') convert."""
    converted = frame
    for column in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_datetime64_any_dtype(frame[column]):
            continue
        values = frame[column].dropna().astype(str)
        if values.empty or _period_start(values.iloc[0]) is None:
            continue
        starts = values.map(_period_start)
        if starts.isna().any():
            continue
        weekly = starts.str.contains("W").any()
        parsed = pd.to_datetime(starts, format="%G-W%V-%u" if weekly else "%Y-%m-%d", errors="coerce")
        if parsed.isna().any():
            continue
        if converted is frame:
            converted = frame.copy()
        converted[column] = parsed.reindex(frame.index)
        notes.append(f"'{column}' read as dates from period labels like {values.iloc[0]!r} (each period's first day)")
    return converted


_PARTS = {"year": (1000, 3000), "month": (1, 12), "day": (1, 31), "hour": (0, 23)}


def _time_from_parts(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """A table that writes its time as separate year, month (and day, hour) columns, with no date column, gets one
    assembled from them ('date'), so a forecast can order its rows; the part columns stay as they were. Only whole
    numbers in each part's range count; a table with a month and a day but no year is placed in one year (2000) and
    says so."""
    from .profile import looks_like_dates

    if any(pd.api.types.is_datetime64_any_dtype(frame[c]) or (not pd.api.types.is_numeric_dtype(frame[c]) and looks_like_dates(
            frame[c].dropna().astype(str))) for c in frame.columns):
        return frame  # the table has its own time column
    found: dict[str, str] = {}
    for column in frame.columns:
        part = str(column).strip().lower()
        if part in _PARTS and part not in found and pd.api.types.is_numeric_dtype(frame[column]):
            values = frame[column].dropna()
            low, high = _PARTS[part]
            if len(values) and (values == values.round()).all() and values.between(low, high).all():
                found[part] = column
    if "month" not in found or not ({"year", "day"} & set(found)):
        return frame
    name = next(n for n in ("date", "time", "timestamp", "period") if n not in frame.columns)
    parts = {p: frame[c] for p, c in found.items()}
    parts.setdefault("year", pd.Series(2000, index=frame.index))
    parts.setdefault("day", pd.Series(1, index=frame.index))
    assembled = pd.to_datetime(pd.DataFrame(parts), errors="coerce")
    if assembled.isna().mean() > 0.05:
        return frame
    frame = frame.copy()
    frame[name] = assembled
    used = ", ".join(str(found[p]) for p in ("year", "month", "day", "hour") if p in found)
    notes.append(f"'{name}' assembled from {used}" + ("" if "year" in found else " (no year column: placed in one year)")
                 + ": the time a forecast orders its rows by")
    return frame

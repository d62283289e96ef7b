"""A report as a list of sections, written twice: markdown beside its PNGs, and one self-contained HTML file with
the pictures inlined (it can be mailed, or opened from MLflow's artifact view, without the folder)."""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass
class Picture:
    path: Path
    caption: str


@dataclass
class Section:
    title: str
    blocks: list[str | Table | Picture | list[str]] = field(default_factory=list)


def to_markdown(title: str, lead: list[str], sections: list[Section]) -> str:
    lines = [f"# {title}", ""] + [line for item in lead for line in (item, "")]
    for section in sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            if isinstance(block, Table):
                lines += ["| " + " | ".join(block.header) + " |", "|" + "---|" * len(block.header)]
                lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in block.rows]
            elif isinstance(block, Picture):
                lines += [f"![{block.path.stem.removeprefix('report_')}]({block.path.name})", "", f"*{block.caption}*"]
            elif isinstance(block, list):
                lines += [f"- {item}" for item in block]
            else:
                lines.append(block)
            lines.append("")
    return "\n".join(lines) + "\n"


CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#1f2733;line-height:1.45}h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #e3e6ea;
padding-bottom:.2em;margin-top:1.8em}table{border-collapse:collapse;margin:.6em 0;font-size:.92em}th,td{border:1px solid
#dde1e6;padding:.3em .7em;text-align:left}th{background:#f4f6f8}figure{margin:1em 0}img{max-width:100%;border:1px solid
#eef0f2}figcaption{color:#5c6675;font-size:.88em}.lead{color:#39424e}.status-succeeded{color:#2f7d4a;font-weight:600}
.status-failed,.status-rejected{color:#b3402a;font-weight:600}code{background:#f4f6f8;padding:0 .25em;border-radius:3px}
blockquote{margin:.8em 0;padding:.4em 1em;border-left:4px solid #3b7dd8;background:#f6f9fd;font-size:1.05em}"""


def _inline(text: str) -> str:
    """Markdown's `code` and **bold** in a line of HTML-escaped text."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", escaped)


def to_html(title: str, lead: list[str], sections: list[Section], status: str = "") -> str:
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
             f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    for i, item in enumerate(lead):
        if item.startswith("> "):
            parts.append(f"<blockquote>{_inline(item[2:])}</blockquote>")
        else:
            parts.append(f"<p class='lead{f' status-{html.escape(status)}' if i == 0 and status else ''}'>{_inline(item)}</p>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        for block in section.blocks:
            if isinstance(block, Table):
                parts.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in block.header) + "</tr>")
                parts += ["<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in block.rows]
                parts.append("</table>")
            elif isinstance(block, Picture):
                data = base64.b64encode(block.path.read_bytes()).decode()
                parts.append(f"<figure><img alt='{html.escape(block.caption)}' src='data:image/png;base64,{data}'>"
                             f"<figcaption>{html.escape(block.caption)}</figcaption></figure>")
            elif isinstance(block, list):
                parts.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block) + "</ul>")
            else:
                parts.append(f"<p>{_inline(block)}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)

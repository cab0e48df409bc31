"""The runbook as self-contained HTML pages, readable offline.

The pages are converted from the Markdown runbook (the subset it writes:
headings, paragraphs, lists, tables, fenced blocks, code spans, links, bold),
so both formats always say the same. A mermaid block becomes an inline SVG
drawing, with the mermaid text kept under it; styles are inline; nothing is
fetched from the network.
"""

from __future__ import annotations

import re
from html import escape, unescape

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.runbook.svg import scenario_svg

_STYLE = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:62rem;
margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}
h1,h2,h3,h4{line-height:1.25;margin:1.6em 0 .6em}h1{font-size:1.7em}
h2{font-size:1.35em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
code{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#f2f4f6;
padding:.1em .3em;border-radius:4px}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;border-radius:6px}pre code{padding:0}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #d0d7de;
padding:.3em .6em;text-align:left;vertical-align:top}a{color:#0969da}
.diagram{overflow-x:auto;border:1px solid #d0d7de;border-radius:6px;padding:.5em}
svg.sequence{font:12px system-ui,sans-serif}svg .line{stroke:#1f2328;stroke-width:1.3}
svg .life{stroke:#8c959f;stroke-dasharray:3,4}svg .head{fill:#eaeef2;stroke:#57606a}
svg .name{font-weight:600}svg .note{fill:#fff8c5;stroke:#d4a72c}
svg .frame{fill:none;stroke:#8250df}svg .split{stroke:#8250df;stroke-dasharray:6,4}
svg .block{fill:#8250df;font-weight:600}
"""
_INLINE = re.compile(r"(`+)(.+?)\1|\[([^\]]+)\]\(([^)\s]+)\)|\*\*(.+?)\*\*")
_FENCE = re.compile(r"^(`{3,})(\w*)$")
_ANCHOR = re.compile(r'^<a id="([\w.\-]+)"></a>$')


def _href(target: str) -> str:
    path, _, frag = target.partition("#")
    if path.endswith(".md"):
        path = path[:-3] + ".html"
    return escape(path + (f"#{frag}" if frag else ""), quote=True)


def _plain(text: str) -> str:
    """Markdown text outside code spans: its entities read, then HTML-escaped."""
    return escape(unescape(text.replace("\\|", "|")), quote=False)


def inline(text: str) -> str:
    """Markdown inline text to HTML, code spans included."""
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(_plain(text[pos : m.start()]))
        if m.group(1):
            body = m.group(2)
            if body.startswith(" ") and body.endswith(" ") and body.strip():
                body = body[1:-1]
            out.append(f"<code>{escape(body, quote=False)}</code>")
        elif m.group(3):
            out.append(f'<a href="{_href(m.group(4))}">{inline(m.group(3))}</a>')
        else:
            out.append(f"<strong>{inline(m.group(5))}</strong>")
        pos = m.end()
    out.append(_plain(text[pos:]))
    return "".join(out)


def _cells(row: str) -> list[str]:
    cells, current, i = [], "", 0
    body = row.strip()[1:-1]
    while i < len(body):
        if body[i] == "\\" and body[i + 1 : i + 2] == "|":
            current += "\\|"
            i += 2
            continue
        if body[i] == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += body[i]
        i += 1
    cells.append(current.strip())
    return cells


def markdown_to_html(markdown: str, title: str, svg: str | None = None) -> str:
    """One runbook page; ``svg`` replaces its mermaid block's drawing."""
    lines = markdown.split("\n")
    body: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and lines[end] != fence.group(1):
                end += 1
            content = escape("\n".join(lines[i + 1 : end]), quote=False)
            if fence.group(2) == "mermaid":
                if svg is not None:
                    body.append(f'<div class="diagram">{svg}</div>')
                body.append(
                    "<details><summary>mermaid source</summary>"
                    f'<pre><code class="language-mermaid">{content}</code></pre>'
                    "</details>"
                )
            else:
                body.append(f"<pre><code>{content}</code></pre>")
            i = end + 1
            continue
        if not line.strip() or line.startswith("<!--"):
            i += 1
            continue
        anchor = _ANCHOR.match(line)
        if anchor:
            body.append(f'<a id="{anchor.group(1)}"></a>')
            i += 1
            continue
        heading = re.match(r"^(#{1,6}) (.*)$", line)
        if heading:
            level = len(heading.group(1))
            body.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            head = "".join(f"<th>{inline(c)}</th>" for c in _cells(rows[0]))
            trs = "".join(
                "<tr>" + "".join(f"<td>{inline(c)}</td>" for c in _cells(r)) + "</tr>"
                for r in rows[2:]
            )
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{trs}</tbody></table>")
            continue
        item = re.match(r"^(- |\d+\. )(.*)$", line)
        if item:
            tag = "ul" if item.group(1) == "- " else "ol"
            items = []
            while i < len(lines):
                m = re.match(r"^(- |\d+\. )(.*)$", lines[i])
                if not m:
                    break
                items.append(f"<li>{inline(m.group(2))}</li>")
                i += 1
            body.append(f"<{tag}>{''.join(items)}</{tag}>")
            continue
        para = []
        while (
            i < len(lines)
            and lines[i].strip()
            and not _FENCE.match(lines[i])
            and not lines[i].startswith(("#", "|", "- ", "<a "))
        ):
            para.append(lines[i])
            i += 1
        body.append(f"<p>{inline(' '.join(para))}</p>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="osdoctor runbook">'
        f"<title>{escape(title)}</title><style>{_STYLE.strip()}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def markdown_site_to_html(kb: KnowledgeBase, pages: dict[str, str]) -> dict[str, str]:
    """Every Markdown page as an HTML page at the same place (``.md`` -> ``.html``)."""
    out: dict[str, str] = {}
    for path, page in pages.items():
        first = next((ln[2:] for ln in page.split("\n") if ln.startswith("# ")), "osdoctor")
        title = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", first).replace("`", "")
        title = title.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        svg = None
        if path.startswith("scenarios/"):
            scenario = kb.scenarios.get(path.removeprefix("scenarios/").removesuffix(".md"))
            svg = scenario_svg(scenario) if scenario is not None else None
        out[path.removesuffix(".md") + ".html"] = markdown_to_html(page, title, svg)
    return out

"""A scenario's sequence diagram drawn as inline SVG, for the offline HTML runbook.

Mermaid renders diagrams in a browser with a 3 MB script: the HTML runbook
must read offline with nothing fetched, so it carries this static drawing of
the same participants, messages, notes and blocks (and the mermaid text).
"""

from __future__ import annotations

import textwrap
from html import escape

from osdoctor.kb.schema import DiagramItem, Scenario

_CHAR = 6.6
"""Average width of a character at the font size used, in pixels."""
_LINE = 15
_GAP = 210
_MARGIN = 20
_BOX_H = 34


class _Canvas:
    def __init__(self, scenario: Scenario) -> None:
        self.ids = [p.id for p in scenario.participants]
        widths = [max(90.0, len(p.label) * _CHAR + 24) for p in scenario.participants]
        self.x: dict[str, float] = {}
        left = float(_MARGIN)
        for p, w in zip(scenario.participants, widths, strict=True):
            self.x[p.id] = left + max(w, _GAP) / 2
            left += max(w, _GAP)
        self.width = left + _MARGIN
        self.y = float(_MARGIN + _BOX_H + 20)
        self.parts: list[str] = []
        self.frames: list[str] = []

    def text(
        self, x: float, y: float, lines: list[str], anchor: str = "middle", cls: str = ""
    ) -> None:
        attrs = f' class="{cls}"' if cls else ""
        spans = "".join(
            f'<tspan x="{x:.0f}" dy="{0 if i == 0 else _LINE}">{escape(t)}</tspan>'
            for i, t in enumerate(lines)
        )
        self.parts.append(
            f'<text x="{x:.0f}" y="{y:.0f}" text-anchor="{anchor}"{attrs}>{spans}</text>'
        )

    def wrap(self, text: str, pixels: float) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), max(12, int(pixels / _CHAR))) or [""]

    def message(self, item: DiagramItem) -> None:
        x1, x2 = self.x.get(item.source, _MARGIN), self.x.get(item.target, _MARGIN)
        dash = ' stroke-dasharray="5,4"' if item.reply else ""
        if item.source == item.target:
            lines = self.wrap(item.text, _GAP - 50)
            self.text(x1 + 10, self.y, lines, "start")
            top = self.y + (len(lines) - 1) * _LINE + 8
            self.parts.append(
                f'<path d="M{x1:.0f},{top:.0f} h40 v18 h-36" fill="none" '
                f'class="line"{dash} marker-end="url(#arrow)"/>'
            )
            self.y = top + 34
            return
        lines = self.wrap(item.text, abs(x2 - x1) - 20)
        self.text((x1 + x2) / 2, self.y, lines)
        arrow_y = self.y + (len(lines) - 1) * _LINE + 8
        end = x2 - 4 if x2 > x1 else x2 + 4
        self.parts.append(
            f'<line x1="{x1:.0f}" y1="{arrow_y:.0f}" x2="{end:.0f}" '
            f'y2="{arrow_y:.0f}" class="line"{dash} marker-end="url(#arrow)"/>'
        )
        self.y = arrow_y + 26

    def note(self, item: DiagramItem) -> None:
        xs = [self.x[p] for p in item.over if p in self.x] or [_MARGIN + _GAP / 2]
        left, right = min(xs) - _GAP / 2 + 15, max(xs) + _GAP / 2 - 15
        lines = self.wrap(item.text, right - left - 16)
        height = len(lines) * _LINE + 10
        self.parts.append(
            f'<rect x="{left:.0f}" y="{self.y - 12:.0f}" width="{right - left:.0f}"'
            f' height="{height:.0f}" class="note"/>'
        )
        self.text((left + right) / 2, self.y + 2, lines)
        self.y += height + 12

    def block(self, item: DiagramItem, depth: int) -> None:
        left, right = _MARGIN / 2 + depth * 8, self.width - _MARGIN / 2 - depth * 8
        top = self.y - 14
        for i, block in enumerate(item.blocks):
            label = (
                f"{item.kind if i == 0 else 'else'} [{block.label}]"
                if block.label
                else (item.kind if i == 0 else "else")
            )
            if i > 0:
                self.frames.append(
                    f'<line x1="{left:.0f}" y1="{self.y - 14:.0f}" '
                    f'x2="{right:.0f}" y2="{self.y - 14:.0f}" class="split"/>'
                )
            self.text(left + 6, self.y, [label], "start", "block")
            self.y += _LINE + 10
            self.items(block.items, depth + 1)
        self.frames.append(
            f'<rect x="{left:.0f}" y="{top:.0f}" width="{right - left:.0f}" '
            f'height="{self.y - top - 8:.0f}" class="frame"/>'
        )
        self.y += 8

    def items(self, items: list[DiagramItem], depth: int = 0) -> None:
        for item in items:
            if item.kind == "message":
                self.message(item)
            elif item.kind == "note":
                self.note(item)
            else:
                self.block(item, depth)


def scenario_svg(scenario: Scenario) -> str:
    """The diagram as one ``<svg>`` element, sized to its content."""
    c = _Canvas(scenario)
    c.items(scenario.diagram)
    bottom = c.y + 6
    heads: list[str] = []
    for p in scenario.participants:
        x = c.x[p.id]
        w = max(90.0, len(p.label) * _CHAR + 24)
        heads.append(
            f'<line x1="{x:.0f}" y1="{_MARGIN + _BOX_H}" x2="{x:.0f}" '
            f'y2="{bottom:.0f}" class="life"/>'
        )
        for y in (_MARGIN, bottom):
            heads.append(
                f'<rect x="{x - w / 2:.0f}" y="{y:.0f}" width="{w:.0f}" '
                f'height="{_BOX_H}" rx="{14 if p.actor else 3}" class="head"/>'
            )
            heads.append(
                f'<text x="{x:.0f}" y="{y + 21:.0f}" text-anchor="middle" '
                f'class="name">{escape(p.label)}</text>'
            )
    height = bottom + _BOX_H + _MARGIN
    title = escape(f"Sequence diagram of {scenario.id}: {scenario.title}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sequence" role="img" '
        f'width="{c.width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {c.width:.0f} {height:.0f}"><title>{title}</title>'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
        'markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/>'
        "</marker></defs>" + "".join(c.frames + heads + c.parts) + "</svg>"
    )

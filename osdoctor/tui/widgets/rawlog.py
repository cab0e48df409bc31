"""The raw log, virtualised: line numbers, stream colours, evidence lines
highlighted, and search. Also used, filtered, for the command's own stdout."""

from __future__ import annotations

from rich.text import Text

from osdoctor.tui.linestore import LineStore
from osdoctor.tui.widgets.linelist import LineList


class RawLog(LineList):
    """Every line as read, or only ``numbers`` when filtered (stdout)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: LineStore | None = None
        self.numbers: list[int] | None = None
        self.evidence: set[int] = set()
        self.search = ""
        self.live = False

    def show(self, lines: LineStore, numbers: list[int] | None = None, live: bool = False) -> None:
        self.lines, self.numbers, self.live = lines, numbers, live
        self.cursor = 0
        self.sync()

    def sync(self, numbers: list[int] | None = None) -> None:
        if numbers is not None:
            self.numbers = numbers
        count = 0
        if self.numbers is not None:
            count = len(self.numbers)
        elif self.lines is not None:
            count = len(self.lines)
        self.set_row_count(count, follow_end=self.live)

    def number_at(self, row: int) -> int:
        if self.numbers is not None:
            return self.numbers[row] if 0 <= row < len(self.numbers) else 0
        return row + 1

    def row_of(self, number: int) -> int:
        if self.numbers is None:
            return number - 1
        import bisect

        return max(0, bisect.bisect_left(self.numbers, number))

    def goto_line(self, number: int) -> None:
        self.move_to(self.row_of(number), center=True)

    def render_row(self, row: int, width: int) -> Text:
        number = self.number_at(row)
        text = Text(no_wrap=True)
        lines = self.lines
        if lines is None:
            return text
        content = lines.text(number)
        fd = lines.fd(number)
        mark = "▌" if number in self.evidence else " "
        text.append(f"{number:>7}", "dim")
        text.append(mark, "bold yellow")
        style = "yellow" if number in self.evidence else ("" if fd != 2 else "")
        if fd == 1:
            style = style or "bold"
        elif content.startswith("#"):
            style = style or "dim italic"
        line = Text(content[:4000], style=style)
        if self.search:
            line.highlight_words([self.search], "reverse", case_sensitive=False)
        if number in self.evidence:
            line.stylize("on #3a3000")
        text.append_text(line)
        return text

    def find(self, pattern: str, backwards: bool = False) -> bool:
        """Move to the next line holding ``pattern``; False when there is none."""
        self.search = pattern
        lines = self.lines
        if lines is None or not pattern:
            self.refresh()
            return False
        start = self.number_at(self.cursor)
        if self.numbers is None:
            found = lines.find(pattern, start, backwards)
        else:
            found = self._find_in_numbers(pattern, backwards)
        self.refresh()
        if found is None:
            return False
        self.goto_line(found)
        return True

    def _find_in_numbers(self, pattern: str, backwards: bool) -> int | None:
        assert self.lines is not None and self.numbers is not None
        needle = pattern.lower()
        total = len(self.numbers)
        for step in range(1, total + 1):
            row = (self.cursor - step if backwards else self.cursor + step) % total
            number = self.numbers[row]
            if needle in self.lines.text(number).lower():
                return number
        return None

    def next_evidence(self, backwards: bool = False) -> bool:
        """Move to the next (or previous) evidence line, wrapping."""
        if not self.evidence:
            return False
        here = self.number_at(self.cursor)
        ordered = sorted(self.evidence)
        after = [n for n in ordered if (n < here if backwards else n > here)]
        target = (
            (after[-1] if backwards else after[0])
            if after
            else (ordered[-1] if backwards else ordered[0])
        )
        self.goto_line(target)
        return True

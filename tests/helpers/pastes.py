"""What a terminal, a ticket or a chat does to a log: folded at a width, cut at a
width; and a log whose lines all have one length (an access log), the worst
case for finding a fold width. Shared by the tests and the wrap benchmark."""

from __future__ import annotations


def fold(text: str, width: int) -> str:
    """Each line cut into pieces of ``width`` characters, as a terminal wraps."""
    return "\n".join(
        line[i : i + width] if line else line
        for line in text.split("\n")
        for i in range(0, max(len(line), 1), width)
    )


def cut(text: str, width: int) -> str:
    """Each line kept to its first ``width`` characters, as a chat truncates."""
    return "\n".join(line[:width] for line in text.split("\n"))


def one_length_log(lines: int) -> bytes:
    """An nginx-style access log whose lines are all 121 characters long."""
    out = []
    for i in range(lines):
        line = (
            f"10.0.{i % 250}.{i % 200} - - [01/Dec/2026:10:{i % 60:02d}:{i % 60:02d} +0000] "
            f'"GET /api/v1/items/{i:06d} HTTP/1.1" 200 {1000 + i % 9000:05d} "-" "curl/8.0"'
        )
        out.append(line.ljust(120, " ") + "x")
    return ("\n".join(out) + "\n").encode()

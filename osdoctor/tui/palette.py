"""Text colours that depend on the theme's background.

ANSI yellow reads well on a dark background and hardly at all on a light one
(contrast under 2:1): a 4xx status or an evidence line would fade out.
"""

from __future__ import annotations

#: Warning-coloured text: ANSI yellow on dark themes, a dark amber (5:1 on
#: textual-light's background) on light ones.
WARN = {True: "yellow", False: "#8a5000"}


def warn(dark: bool) -> str:
    return WARN[dark]

"""Proper-name mentions in text and name keys (entity links between passages, claims in questions)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold_name", "name_mentions", "name_spans"]

_WORD = r"[A-Z0-9][\w'’\-]*"
_NAME = re.compile(_WORD + r"(?:\s+(?:(?:of|the|de|da|del|van|von|der|la|le|di|du|to)\s+)*" + _WORD + r")*")
_STOP_START = {"The", "A", "An", "It", "He", "She", "They", "His", "Her", "Its", "Their", "This", "That", "In", "On",
               "At", "By", "Both", "After", "Before", "When", "Was", "Is", "Who", "What", "Which", "Where", "How"}


def fold_name(text: str) -> str:
    """A name as a lookup key: lower case, accents stripped, words only."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.findall(r"\w+", text))


def name_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of every proper-name mention (see :func:`name_mentions`)."""
    out: list[tuple[int, int, str]] = []
    for m in _NAME.finditer(text):
        start, words = m.start(), m.group(0).split()
        while words and words[0] in _STOP_START:
            start = text.index(words[1], start + len(words[0])) if len(words) > 1 else m.end()
            words = words[1:]
        name = " ".join(words).strip(".,;:'’")
        if name and not name.replace(".", "").isdigit() and len(name) > 2:
            out.append((start, start + len(name), name))
    return out


def name_mentions(text: str) -> list[str]:
    """Proper-name mentions: runs of capitalized words (``Night Ferry to Kestrin``), a leading
    sentence word such as ``The`` dropped; numbers alone are not names."""
    return [name for _, _, name in name_spans(text)]

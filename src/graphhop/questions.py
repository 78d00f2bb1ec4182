"""Input bounds for questions, shared by the CLI, the server and the library.

:func:`check_question` rejects what no retriever can answer: an empty or whitespace-only question,
one without a single letter or digit (only punctuation or symbols), and one longer than the limit
(2,000 characters by default; ``GRAPHHOP_MAX_QUESTION_CHARS`` or ``max_chars`` change it). The error
never echoes the question back, so a huge input gives a short line.
"""

from __future__ import annotations

import os
import re
from typing import Iterable

from graphhop.core import InputError

__all__ = ["DEFAULT_MAX_QUESTION_CHARS", "max_question_chars", "check_question", "check_questions"]

DEFAULT_MAX_QUESTION_CHARS = 2000
_WORD = re.compile(r"[^\W_]")  # a letter or digit in any script


def max_question_chars() -> int:
    """The question length limit: ``GRAPHHOP_MAX_QUESTION_CHARS`` or 2,000."""
    raw = os.environ.get("GRAPHHOP_MAX_QUESTION_CHARS", "").strip()
    if not raw:
        return DEFAULT_MAX_QUESTION_CHARS
    try:
        value = int(raw)
    except ValueError:
        raise InputError(f"GRAPHHOP_MAX_QUESTION_CHARS: expected a whole number, got {raw[:40]!r}") from None
    if value < 1:
        raise InputError(f"GRAPHHOP_MAX_QUESTION_CHARS: must be at least 1, got {value}")
    return value


def check_question(question: object, max_chars: int | None = None, what: str = "question") -> str:
    """The question with surrounding whitespace removed, or a one-line :class:`InputError`."""
    if not isinstance(question, str):
        raise InputError(f"{what}: expected text, got {type(question).__name__}")
    text = question.strip()
    limit = max_question_chars() if max_chars is None else max_chars
    if not text:
        raise InputError(f"{what} is empty; ask something, e.g. \"who directed Alien?\"")
    if len(text) > limit:
        raise InputError(f"{what} is {len(text):,} characters long; the limit is {limit:,} "
                         "(raise it with --max-question-chars or GRAPHHOP_MAX_QUESTION_CHARS)")
    if not _WORD.search(text):
        raise InputError(f"{what} has no words (only punctuation or symbols): nothing to search for")
    return text


def check_questions(questions: Iterable[object], max_chars: int | None = None) -> list[str]:
    """:func:`check_question` on each; the error names which one (``question 2``) when there are several."""
    items = list(questions)
    if not items:
        raise InputError("no question given")
    if len(items) == 1:
        return [check_question(items[0], max_chars)]
    return [check_question(q, max_chars, what=f"question {i}") for i, q in enumerate(items, start=1)]

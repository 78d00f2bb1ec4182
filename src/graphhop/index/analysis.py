"""BM25 text analysis close to Lucene's ``StandardAnalyzer`` + ``EnglishPossessiveFilter``.

Words are runs of letters and digits (underscores split words, as entity names like
``tasha_tudor`` need) with inner apostrophes kept (``don't``, ``o'neil``); tokens are lowercased
and ASCII-folded (``Zürich`` -> ``zurich``); the English possessive is removed, both attached
(``tudor's`` -> ``tudor``) and detached as PathQuestion writes it (``tasha_tudor 's`` -> ``tasha
tudor``: the lone ``s`` would otherwise match middle initials such as "ulysses s grant"); and the
English stop words of Lucene (the list bm25s uses) are dropped where asked. Unlike bm25s's
``\\w\\w+`` pattern, one-letter words and digits are kept, as Lucene keeps them.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["ENGLISH_STOPWORDS", "analyze", "analyze_bm25s", "fold"]

#: Lucene's English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``; bm25s ``STOPWORDS_EN``).
ENGLISH_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there "
    "these they this to was will with".split()
)
_BM25S_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_LONE_POSSESSIVE = re.compile(r"(?<![^\W_])['\u2019][sS](?![^\W_])")
_FOLD_EXTRA = str.maketrans({"ß": "ss", "ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe",
                             "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "þ": "th", "ð": "d", "ı": "i", "\u2019": "'"})


def fold(word: str) -> str:
    """Lowercase and strip accents (``Zürich`` -> ``zurich``); non-Latin letters are kept."""
    word = word.translate(_FOLD_EXTRA).lower()
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def analyze(text: str, stopwords: bool = True) -> list[str]:
    """The BM25 terms of ``text`` in order (see the module docstring)."""
    text = _LONE_POSSESSIVE.sub(" ", text)
    out = []
    for match in _TOKEN.finditer(text):
        token = fold(match.group())
        if token.endswith("'s"):
            token = token[:-2]
        if token and not (stopwords and token in ENGLISH_STOPWORDS):
            out.append(token)
    return out


def analyze_bm25s(text: str, stopwords: bool = True) -> list[str]:
    """bm25s's own analysis (scikit-learn's ``\\w\\w+`` words, lowercased, same stop words): for parity checks."""
    words = _BM25S_TOKEN.findall(text.lower())
    return [w for w in words if not (stopwords and w in ENGLISH_STOPWORDS)]

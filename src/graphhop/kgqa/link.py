"""Topic-entity linking: which KB entities a question names, and where.

A question and every entity name are reduced to the same folded word tokens (lower case, no
accents, underscores and punctuation as spaces: ``sylvia_brett 's`` and ``Sylvia Brett's`` both
give ``sylvia brett s``), so a possessive leaves its ``s`` token behind and still matches. MetaQA's
``[bracketed]`` entity is used when present (only the entities named exactly so, case included,
when there are any: MetaQA's tag ``robert pattinson`` is not the actor ``Robert Pattinson``). Otherwise every question n-gram is looked up among
the entity names, longest first, without overlaps; a name's leading article is optional
(``Glass Orchard`` finds ``The Glass Orchard``). When no name matches exactly, a fuzzy pass compares
the question's n-grams with the names that share a rare word (``difflib`` ratio >= 0.85), so a
typo or a missing word still links.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

__all__ = ["Mention", "EntityLinker", "tokens", "STOPWORDS", "drop_role_nouns"]

_BRACKET = re.compile(r"\[([^\]]+)\]")
_WORD = re.compile(r"\w+")
#: Words that never form a one-word mention on their own.
STOPWORDS = frozenset("""a an the of in on at to for from by with and or not is was are were be been do does did has have
had who whom whose what which where when why how many much that this these those it its he she they his her their there
as s than then film films movie movies one two""".split())
_ARTICLES = ("the", "a", "an")


def tokens(text: str) -> list[str]:
    """Folded word tokens: lower case, accents stripped, ``_`` and punctuation as separators."""
    text = unicodedata.normalize("NFKD", text.replace("_", " ").lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _WORD.findall(text)


@dataclass(frozen=True)
class Mention:
    """A linked span: question tokens ``[start, end)``, the entity ids it names, how it matched."""

    start: int
    end: int
    entities: tuple[int, ...]
    text: str
    how: str = "exact"  # exact | bracket | fuzzy


class EntityLinker:
    """Finds entity mentions in questions over a fixed list of entity names (ids = list positions)."""

    def __init__(self, names: Sequence[str], max_len: int = 12) -> None:
        self.names = names
        self.max_len = max_len
        self._keys: dict[tuple[str, ...], list[int]] = {}
        for i, name in enumerate(names):
            key = tuple(tokens(name))
            if not key:
                continue
            self._keys.setdefault(key, []).append(i)
            if len(key) > 1 and key[0] in _ARTICLES:
                self._keys.setdefault(key[1:], []).append(i)
        self._by_word: dict[str, list[tuple[str, ...]]] | None = None

    def lookup(self, text: str) -> tuple[int, ...]:
        """Entity ids whose folded name equals ``text``'s (exact names first)."""
        exact = [i for i in self._keys.get(tuple(tokens(text)), []) if self.names[i] == text.strip()]
        return tuple(dict.fromkeys(exact + self._keys.get(tuple(tokens(text)), [])))

    def link(self, question: str) -> list[Mention]:
        """Mentions in order of appearance: the bracketed one(s) if any link, else n-gram matches."""
        toks = tokens(question.replace("[", " ").replace("]", " "))
        marked = []
        for m in _BRACKET.finditer(question):
            ids = self.lookup(m.group(1))
            exact = tuple(i for i in ids if self.names[i] == m.group(1).strip())
            ids = exact or ids  # a marked name is exact: `[sleeping beauty]` is the tag, not the film
            if ids:
                start = len(tokens(question[: m.start()]))
                marked.append(Mention(start, start + len(tokens(m.group(1))), ids, m.group(1), "bracket"))
        if marked:
            return marked
        found = self._exact(toks)
        if any(m.end - m.start > 1 for m in found):
            return drop_role_nouns(toks, found)
        fuzzy = self._fuzzy(toks)
        if fuzzy and (not found or fuzzy[0].end - fuzzy[0].start > 1):
            f = fuzzy[0]
            found = [m for m in found if m.end <= f.start or m.start >= f.end] + [f]
        return drop_role_nouns(toks, sorted(found, key=lambda m: m.start))

    def _exact(self, toks: list[str]) -> list[Mention]:
        spans: list[Mention] = []
        taken = [False] * len(toks)
        for n in range(min(self.max_len, len(toks)), 0, -1):
            for i in range(len(toks) - n + 1):
                if any(taken[i : i + n]):
                    continue
                key = tuple(toks[i : i + n])
                if n == 1 and (key[0] in STOPWORDS or len(key[0]) < 2):
                    continue
                ids = self._keys.get(key)
                if ids:
                    spans.append(Mention(i, i + n, tuple(ids), " ".join(key)))
                    taken[i : i + n] = [True] * n
        return sorted(spans, key=lambda m: m.start)

    def _fuzzy(self, toks: list[str], cutoff: float = 0.85) -> list[Mention]:
        if self._by_word is None:
            self._by_word = {}
            for key in self._keys:
                for w in set(key):
                    if w not in STOPWORDS:
                        self._by_word.setdefault(w, []).append(key)
        best: tuple[float, int, int, tuple[str, ...]] | None = None
        for n in range(min(6, len(toks)), 0, -1):
            for i in range(len(toks) - n + 1):
                gram = toks[i : i + n]
                if all(w in STOPWORDS for w in gram):
                    continue
                text = " ".join(gram)
                pool = {k for w in gram if len(self._by_word.get(w, ())) < 200 for k in self._by_word.get(w, ())}
                for key in pool:
                    if abs(len(key) - n) > 1:
                        continue
                    ratio = difflib.SequenceMatcher(None, text, " ".join(key)).ratio()
                    if ratio >= cutoff and (best is None or ratio > best[0]):
                        best = (ratio, i, i + n, key)
            if best is not None:
                break  # the longest fuzzy span wins
        if best is None:
            return []
        _, a, z, key = best
        return [Mention(a, z, tuple(self._keys[key]), " ".join(key), "fuzzy")]


def drop_role_nouns(toks: Sequence[str], mentions: Sequence[Mention]) -> list[Mention]:
    """``mentions`` without one-word ones used as the head noun of a description (``the composer
    of X``: a KB may hold ``composer`` as an occupation, but here it names a role of X's), unless
    nothing else would be left."""
    def role(m: Mention) -> bool:
        return (m.end - m.start == 1 and m.start > 0 and toks[m.start - 1] in _ARTICLES
                and m.end < len(toks) and toks[m.end] == "of")

    kept = [m for m in mentions if not role(m)]
    return kept or list(mentions)


def masked(question: str, mentions: Sequence[Mention], placeholder: str = "X") -> str:
    """The question's folded tokens with each mention replaced by ``placeholder`` (what the scorer reads)."""
    toks = tokens(question.replace("[", " ").replace("]", " "))
    out: list[str] = []
    spans = sorted(mentions, key=lambda m: m.start)
    i = 0
    for m in spans:
        out += toks[i : m.start] + [placeholder]
        i = max(i, m.end)
    return " ".join(out + toks[i:])


__all__.append("masked")

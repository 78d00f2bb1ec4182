"""Entity links by name mentions: which passages of an index mention which entities (built once).

Builder-set sentences are verbalized KB facts, so each one names its subject and object entities.
:class:`MentionIndex` finds those names in the text with a **gazetteer** (the KB's entity names: for a
builder DB, the entity names of the facts its sentences verbalize; see :func:`gazetteer`) — greedy
longest match over the folded words, left to right, so ``nero claudius drusus`` is one mention, not
``claudius`` too — and keeps ``name -> passages`` and ``passage -> names``.

The open retriever (:class:`graphhop.retrieve.texthop.HopSearch`) uses it as hop candidates:

* hop 1: the passages that mention an entity named in the question (the question's linked entities);
* hop t+1: the passages that mention an entity of the path's last passage; first those by a **bridge**
  entity (a name that neither the question nor an earlier passage of the path mentions: a chain moves on
  from ``claudius`` to ``aelia paetina``), then those by an old one (chains come back: "claudius 's
  husband 's wife").

Names held by more than ``max_df`` passages (hubs: ``male``, ``english``) are not followed, except from
the question when it names nothing rarer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from graphhop.kb.names import fold_name

__all__ = ["MentionIndex", "gazetteer", "fold_entity"]


def fold_entity(name: str) -> str:
    """An entity id or name as a lookup key (``Chelsea_FC`` -> ``chelsea fc``)."""
    return fold_name(name.replace("_", " "))


def gazetteer(records: Iterable[dict[str, Any]]) -> set[str]:
    """The entity names (folded) of every fact the records' evidence sentences verbalize."""
    names: set[str] = set()
    for r in records:
        for e in r.get("evidence", []):
            for f in e.get("facts", []):
                if len(f) == 3:
                    names.update((fold_entity(str(f[0])), fold_entity(str(f[2]))))
    return {n for n in names if len(n) > 1}


class MentionIndex:
    """``name -> passage ids`` and ``passage id -> names`` of a text index, by gazetteer matching."""

    def __init__(self, names: Iterable[str], doc_names: dict[str, tuple[str, ...]], max_df: int = 100,
                 old_weight: float = 0.5) -> None:
        self.old_weight = old_weight
        self.lexicon = {n for n in names if n}
        self.longest: dict[str, int] = {}  # first word -> the most words a name starting with it has
        for n in self.lexicon:
            w = n.split()
            self.longest[w[0]] = max(self.longest.get(w[0], 0), len(w))
        self.max_df = max_df
        self.doc_names = doc_names
        self.docs_of: dict[str, list[str]] = {}
        for doc_id, found in doc_names.items():
            for n in found:
                self.docs_of.setdefault(n, []).append(doc_id)

    @classmethod
    def build(cls, docs: Iterable[tuple[str, str]], names: Iterable[str], max_df: int = 100,
              progress: bool = False) -> "MentionIndex":
        """Match ``names`` in every ``(id, text)`` of ``docs``."""
        from tqdm.auto import tqdm

        probe = cls(names, {}, max_df)
        doc_names = {d: tuple(probe.mentioned(t)) for d, t in tqdm(docs, desc="mentions", unit="doc",
                                                                    disable=not progress, mininterval=2)}
        return cls(probe.lexicon, doc_names, max_df)

    @classmethod
    def for_index(cls, index: Any, names: Iterable[str], cache: Path | None = None, max_df: int = 100,
                  progress: bool = False) -> "MentionIndex":
        """:meth:`build` over a :class:`~graphhop.index.directory.KnowledgeIndex`'s passages, stored at
        ``cache`` (JSON) and read back from there when it exists."""
        names = set(names)
        if cache is not None and Path(cache).exists():
            data = json.loads(Path(cache).read_text(encoding="utf-8"))
            return cls(names, {d: tuple(v) for d, v in data.items()}, max_df)
        out = cls.build(((d.id, d.text) for d in index.docs.docs), names, max_df, progress)
        if cache is not None:
            from graphhop.io import atomic_write_text

            atomic_write_text(Path(cache), json.dumps({d: list(v) for d, v in out.doc_names.items() if v}))
        return out

    def _scan(self, text: str) -> tuple[list[str], list[str], int]:
        """``(names, other words, how many other words precede the first name)`` of ``text``: greedy
        longest gazetteer match, left to right, no overlaps."""
        words = fold_name(text).split()
        names: list[str] = []
        rest: list[str] = []
        first = -1
        i = 0
        while i < len(words):
            for n in range(min(self.longest.get(words[i], 0), len(words) - i), 0, -1):
                key = " ".join(words[i : i + n])
                if key in self.lexicon:
                    names.append(key)
                    first = len(rest) if first < 0 else first
                    i += n
                    break
            else:
                rest.append(words[i])
                i += 1
        return names, rest, first if first >= 0 else len(rest)

    def mentioned(self, text: str) -> list[str]:
        """Gazetteer names in ``text``: greedy longest match, left to right, no overlaps; in order."""
        return list(dict.fromkeys(self._scan(text)[0]))

    def outside(self, text: str) -> list[str]:
        """The (folded) words of ``text`` outside every gazetteer name it mentions, in order (for a
        verbalized fact: its relation words, ``has a child named``)."""
        return self._scan(text)[1]

    def around(self, text: str) -> tuple[list[str], list[str]]:
        """``(before, after)``: the words of ``text`` outside its names, before and after its first name."""
        _, rest, first = self._scan(text)
        return rest[:first], rest[first:]

    def df(self, name: str) -> int:
        """How many passages mention ``name``."""
        return len(self.docs_of.get(name, ()))

    def question_names(self, question: str) -> list[str]:
        """The question's linked entities: its mentions held by at most ``max_df`` passages (the rarest
        one when every mention is a hub)."""
        found = [n for n in self.mentioned(question) if self.df(n)]
        kept = [n for n in found if self.df(n) <= self.max_df]
        return kept or sorted(found, key=self.df)[:1]

    def bridge_names(self, question: str, path: Sequence[str]) -> tuple[list[str], list[str]]:
        """The names of the path's last passage, hubs left out, as ``(new, old)``: new = neither the
        question nor an earlier passage of the path mentions it (the bridge the chain moves on by); old =
        the rest (chains may come back: a child's mother is often the question's entity)."""
        last = [n for n in self.doc_names.get(path[-1], ()) if self.df(n) <= self.max_df]
        seen = set(self.mentioned(question)).union(*(self.doc_names.get(d, ()) for d in path[:-1]))
        return [n for n in last if n not in seen], [n for n in last if n in seen]

    def neighbourhood(self, question: str, reach: int = 1, limit: int = 5000) -> dict[str, int]:
        """``passage -> distance``: the passages naming the question's entities (0) and those reached from
        them by up to ``reach`` entity links (a non-hub name of a passage at distance d names the passages
        at d + 1); at most ``limit`` passages, nearest first. Where a chain from the question may end:
        backward BGR's first-step candidates (:meth:`graphhop.retrieve.texthop.HopSearch.answer_candidates`)."""
        names = set(self.question_names(question))
        frontier = list(dict.fromkeys(d for n in names for d in self.docs_of.get(n, ())))
        out = dict.fromkeys(frontier[:limit], 0)
        for dist in range(1, reach + 1):
            fresh = {n for d in frontier for n in self.doc_names.get(d, ()) if self.df(n) <= self.max_df} - names
            names |= fresh
            frontier = [d for n in sorted(fresh) for d in self.docs_of.get(n, ()) if d not in out]
            for d in frontier:
                if len(out) >= limit:
                    return out
                out.setdefault(d, dist)
        return out

    def linked(self, question: str, path: Sequence[str]) -> dict[str, float]:
        """Hop candidates by entity links, each with a weight: passages mentioning the question's entities
        (empty path; weight 1) or the path's last passage's names (weight 1 by a new name, ``old_weight``
        by an old one only); never a passage already on the path."""
        on_path = set(path)
        if not path:
            groups = [(self.question_names(question), 1.0)]
        else:
            new, old = self.bridge_names(question, path)
            groups = [(new, 1.0), (old, self.old_weight)]
        out: dict[str, float] = {}
        for names, weight in groups:
            for n in names:
                for d in self.docs_of.get(n, ()):
                    if d not in on_path and d not in out:
                        out[d] = weight
        return out

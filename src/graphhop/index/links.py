"""Entity links between the passages of an index (GRR's edges): a passage links to the passages
whose *title* it mentions; in an index without titles, to the sentences that share a proper-name
mention with it (names held by more than ``max_df`` sentences are not links). Used by the open-setting
retrievers (:mod:`graphhop.retrieve.texthop`) and the walk reader (:mod:`graphhop.read.walk`)."""

from __future__ import annotations

from graphhop.index.directory import KnowledgeIndex
from graphhop.kb.names import fold_name, name_mentions

__all__ = ["EntityLinks"]


class EntityLinks:
    """Entity-link edges between passages of an index (see the module docstring)."""

    def __init__(self, index: KnowledgeIndex, max_df: int = 50, max_name_words: int = 8) -> None:
        self.index = index
        self.max_df = max_df
        self.max_name_words = max_name_words
        docs = index.docs.docs
        self.titled = any(d.title for d in docs)
        self._names: dict[str, list[str]] = {}
        if self.titled:
            for d in docs:
                if d.title:
                    self._names.setdefault(fold_name(d.title), []).append(d.id)
        else:
            for d in docs:
                for name in dict.fromkeys(fold_name(n) for n in name_mentions(d.text)):
                    self._names.setdefault(name, []).append(d.id)
            self._names = {k: v for k, v in self._names.items() if len(v) <= max_df}

    def mentioned(self, text: str) -> list[str]:
        """Names of the index (titles, or shared mentions) found in ``text``, longest first."""
        words = fold_name(text).split()
        found: dict[str, None] = {}
        for n in range(min(self.max_name_words, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                key = " ".join(words[i : i + n])
                if key in self._names and len(key) > 2:
                    found[key] = None
        return list(found)

    def links(self, doc_id: str) -> list[str]:
        """Passages an entity link leads to from ``doc_id`` (never itself)."""
        doc = self.index.docs[doc_id]
        own = fold_name(doc.title) if doc.title else None
        out: dict[str, None] = {}
        for name in self.mentioned(doc.text):
            if name == own:
                continue
            for target in self._names[name]:
                if target != doc_id:
                    out[target] = None
        return list(out)

"""BM25 with tantivy: title/text fields (+ bigram copies), Elasticsearch best-fields multi-match.

The query is a disjunction-max over per-field queries, as Elasticsearch ``multi_match`` with
``best_fields`` (the best field plus ``tie_breaker`` times the others; 0.7 by default, 0 in indexes
built before the option), with title fields boosted (1.25 by default,
GoldEn's setting). Each field query is a BM25 OR over the analyzed query terms. The ``standard``
tokenizer (the default; :mod:`graphhop.index.analysis`) analyzes in Python like Lucene's standard
analyzer with English possessives removed, and the terms are indexed with tantivy's whitespace
tokenizer; ``simple`` (indexes built before it) is tantivy's simple tokenizer. Text is lowercased,
ASCII-folded and stripped of English stop words; titles keep stop words. Bigram fields hold
``w1_w2`` tokens computed here (tantivy has no shingle filter), indexed with the whitespace tokenizer.
Ties are broken by document position (earlier first), so rankings are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

import tantivy

from graphhop.index.analysis import analyze, analyze_bm25s

__all__ = ["SparseOptions", "SparseIndex", "bigrams", "TOKENIZERS"]

#: ``standard``: Lucene-like words, possessives removed (default); ``simple``: tantivy's simple
#: tokenizer (indexes built before ``standard``); ``bm25s``: bm25s's ``\w\w+`` words (parity checks).
TOKENIZERS = ("standard", "simple", "bm25s")

_TEXT = "gh_text"
_TITLE = "gh_title"


@dataclass(frozen=True)
class SparseOptions:
    """Index/query options (persisted in the manifest)."""

    title_boost: float = 1.25
    bigrams: bool = False  # measured on the train splits: they hurt facts and MuSiQue (docs/RESULTS.md, issue 16)
    stem: bool = False
    tokenizer: str = "standard"
    #: Elasticsearch multi_match ``tie_breaker``: 0 = best field only (GoldEn), 1 = sum of the fields;
    #: 0.7 chosen on the HotpotQA/MuSiQue train samples (docs/RESULTS.md, issue 16). Facts have one field.
    tie_breaker: float = 0.7

    def __post_init__(self) -> None:
        if self.tokenizer not in TOKENIZERS:
            from graphhop.core import InputError

            raise InputError(f"unknown BM25 tokenizer {self.tokenizer!r}; choose one of {', '.join(TOKENIZERS)}")

    def to_dict(self) -> dict[str, object]:
        return {"title_boost": self.title_boost, "bigrams": self.bigrams, "stem": self.stem, "tokenizer": self.tokenizer,
                "tie_breaker": self.tie_breaker}

    @classmethod
    def from_dict(cls, d: dict) -> "SparseOptions":
        """Options from a manifest; indexes written before ``tokenizer`` existed used ``simple``."""
        return cls(float(d.get("title_boost", 1.25)), bool(d.get("bigrams", True)), bool(d.get("stem", False)),
                   str(d.get("tokenizer", "simple")), float(d.get("tie_breaker", 0.0)))


def _analyzer(stopwords: bool, stem: bool, tokenizer: str = "simple") -> tantivy.TextAnalyzer:
    if tokenizer in ("standard", "bm25s"):  # terms come pre-analyzed (graphhop.index.analysis), one per word
        builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
        return (builder.filter(tantivy.Filter.stemmer("english")) if stem else builder).build()
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase())
    builder = builder.filter(tantivy.Filter.ascii_fold())
    if stopwords:
        builder = builder.filter(tantivy.Filter.stopword("english"))
    if stem:
        builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.build()


_PLAIN = _analyzer(stopwords=False, stem=False)


def bigrams(text: str, tokenizer: str = "simple") -> list[str]:
    """``"The Big Apple"`` -> ``["the_big", "big_apple"]`` (lowercased, ASCII-folded words)."""
    if tokenizer == "simple":
        words = _PLAIN.analyze(text)
    else:
        words = (analyze if tokenizer == "standard" else analyze_bm25s)(text, stopwords=False)
    return [f"{a}_{b}" for a, b in zip(words, words[1:])]


def _prepare(options: "SparseOptions") -> Callable[[str, bool], str]:
    """What is handed to tantivy for a field's text: pre-analyzed terms (``standard``) or the raw text."""
    if options.tokenizer in ("standard", "bm25s"):
        fn = analyze if options.tokenizer == "standard" else analyze_bm25s
        return lambda text, stopwords: " ".join(fn(text, stopwords))
    return lambda text, stopwords: text


class SparseIndex:
    """A tantivy BM25 index over documents identified by their position (0..n-1)."""

    def __init__(self, index: tantivy.Index, options: SparseOptions) -> None:
        self.options = options
        self._index = index
        self._text = _analyzer(stopwords=True, stem=options.stem, tokenizer=options.tokenizer)
        self._title = _analyzer(stopwords=False, stem=options.stem, tokenizer=options.tokenizer)
        self._prep = _prepare(options)
        index.register_tokenizer(_TEXT, self._text)
        index.register_tokenizer(_TITLE, self._title)
        index.reload()
        self._searcher = index.searcher()
        self._schema = index.schema

    @staticmethod
    def _schema_for(options: SparseOptions) -> tantivy.Schema:
        sb = tantivy.SchemaBuilder()
        sb.add_unsigned_field("pos", stored=False, indexed=False, fast=True)
        sb.add_text_field("title", stored=False, tokenizer_name=_TITLE, index_option="freq")
        sb.add_text_field("text", stored=False, tokenizer_name=_TEXT, index_option="freq")
        if options.bigrams:
            sb.add_text_field("title_bigram", stored=False, tokenizer_name="whitespace", index_option="freq")
            sb.add_text_field("text_bigram", stored=False, tokenizer_name="whitespace", index_option="freq")
        return sb.build()

    @classmethod
    def build(
        cls, path: str | Path | None, docs: Iterable[tuple[str, str]], options: SparseOptions = SparseOptions()
    ) -> "SparseIndex":
        """Index ``(title, text)`` pairs; the i-th pair is document ``i``. ``path`` must be empty
        (``None``: the index lives in memory, as a candidate pool's does)."""
        if path is None:
            index = tantivy.Index(cls._schema_for(options))
        else:
            Path(path).mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(cls._schema_for(options), path=str(path))
        index.register_tokenizer(_TEXT, _analyzer(True, options.stem, options.tokenizer))
        index.register_tokenizer(_TITLE, _analyzer(False, options.stem, options.tokenizer))
        prep = _prepare(options)
        writer = index.writer(heap_size=128_000_000, num_threads=1)
        for pos, (title, text) in enumerate(docs):
            doc = tantivy.Document()
            doc.add_unsigned("pos", pos)
            doc.add_text("title", prep(title or "", False))
            doc.add_text("text", prep(text, True))
            if options.bigrams:
                doc.add_text("title_bigram", " ".join(bigrams(title or "", options.tokenizer)))
                doc.add_text("text_bigram", " ".join(bigrams(text, options.tokenizer)))
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        return cls(index, options)

    @classmethod
    def open(cls, path: str | Path, options: SparseOptions) -> "SparseIndex":
        """Open an index built by :meth:`build` with the same options."""
        return cls(tantivy.Index.open(str(path)), options)

    def __len__(self) -> int:
        return self._searcher.num_docs

    def _field_query(self, field: str, terms: Sequence[str]) -> tantivy.Query | None:
        if not terms:
            return None
        subs = [(tantivy.Occur.Should, tantivy.Query.term_query(self._schema, field, t)) for t in terms]
        return tantivy.Query.boolean_query(subs)

    def query(self, text: str) -> tantivy.Query | None:
        """The best-fields query for ``text`` (``None`` when no term survives analysis)."""
        parts = []
        boost = self.options.title_boost
        title_q = self._field_query("title", self._title.analyze(self._prep(text, False)))
        if title_q is not None:
            parts.append(tantivy.Query.boost_query(title_q, boost) if boost != 1.0 else title_q)
        text_q = self._field_query("text", self._text.analyze(self._prep(text, True)))
        if text_q is not None:
            parts.append(text_q)
        if self.options.bigrams:
            grams = bigrams(text, self.options.tokenizer)
            tb = self._field_query("title_bigram", grams)
            if tb is not None:
                parts.append(tantivy.Query.boost_query(tb, boost) if boost != 1.0 else tb)
            xb = self._field_query("text_bigram", grams)
            if xb is not None:
                parts.append(xb)
        if not parts:
            return None
        return tantivy.Query.disjunction_max_query(parts, self.options.tie_breaker)

    def search(self, queries: Sequence[str], k: int = 10) -> list[list[tuple[int, float]]]:
        """Top ``k`` ``(position, score)`` pairs per query, best first, ties by position."""
        out: list[list[tuple[int, float]]] = []
        for text in queries:
            query = self.query(text)
            if query is None or k <= 0:
                out.append([])
                continue
            hits = self._searcher.search(query, limit=k, count=False).hits
            positions = self._searcher.fast_field_values("pos", [addr for _, addr in hits])
            pairs = sorted(zip(positions, (float(s) for s, _ in hits)), key=lambda p: (-p[1], p[0]))
            out.append(pairs)
        return out

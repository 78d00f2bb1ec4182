"""GoldEn Retriever (Qi et al., 2019): iterative natural-language queries over a BM25 engine.

Per hop a *query generator* picks a span of the current context (hop 1: the question; later hops:
the question + the previous hop's top passages) as the next search query; the search is BM25
(best-fields multi-match, title ×1.25, bigram fields; :mod:`graphhop.index.sparse`) over at least
50 candidates, re-ranked by :func:`title_match_factor`. The hits of every hop are merged.

Pieces, each usable on its own:

- :func:`title_match_factor` / :class:`GoldEnSearch`: the appendix-A search recipe.
- :func:`candidate_spans` / :func:`oracle_query` / :func:`oracle_trajectory`: appendix-B oracle
  queries (the training targets of the query generator, and the retrieval ceiling).
- :class:`GoldEnRetriever`: the hop loop with a stop criterion (``fixed``: always ``max_hops`` as
  in the paper; ``learned``: the span selector's null span wins; ``rule``: the new hop finds nothing
  new or repeats a query).
- :func:`passage_recall`: paragraph Recall@k, both-gold-found and at-least-one-found.

Deviations from the reference code, on purpose: the "contains the title" tests match whole words
(the reference tested raw substrings, so title "Ra" matched "Sarah"); a leading "The " is stripped
from the title as well as the query; hits are merged by passage id (HotpotQA ids are titles, so
this is GoldEn's dedup by title there; MuSiQue reuses titles for different paragraphs).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, Protocol, Sequence

from graphhop.core import Hit, InputError, Ranking, Stage
from graphhop.index.directory import Document, KnowledgeIndex

__all__ = [
    "STOPWORDS",
    "title_match_factor",
    "core_title",
    "GoldEnSearch",
    "build_context",
    "HopInput",
    "GeneratedQuery",
    "QueryGenerator",
    "QuestionQueryGenerator",
    "PathQueryGenerator",
    "SpanQueryGenerator",
    "HopRecord",
    "GoldEnTrace",
    "GoldEnRetriever",
    "merge_hops",
    "passage_recall",
]

#: Stop words ignored by the overlap rate (a common English list, lowercased).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own same she
    should so some such than that the their theirs them then there these they this those through to
    too under until up very was we were what when where which while who whom why will with would you
    your yours s t""".split()
)

_WORD = re.compile(r"\w+", re.UNICODE)
_PAREN = re.compile(r"\s*\([^()]*\)\s*$")
#: Separator between the question and the passages of a context.
SEP = " || "


def _fold(text: str) -> str:
    """Lowercase and strip accents (ASCII folding of Latin letters)."""
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def _strip_the(text: str) -> str:
    return text[4:] if text[:4].lower() == "the " else text


def core_title(title: str) -> str:
    """The title without a trailing parenthetical: ``"Lilu (mythology)"`` -> ``"Lilu"``."""
    return _PAREN.sub("", title).strip() or title


def _contains_words(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` as whole words (case-insensitive)."""
    if not needle.strip():
        return False
    return re.search(r"(?<!\w)" + re.escape(needle.lower()) + r"(?!\w)", haystack.lower()) is not None


def title_match_factor(query: str, title: str | None) -> float:
    """GoldEn's title-match boost of a hit's score (the first rule that applies wins).

    ==========================================================  ======
    the query equals the title                                   ×1.5
    the query equals the title ignoring case                     ×1.2
    the query contains the title (whole words, any case)         ×1.1
    the title without its parenthetical equals the query         ×1.2
    … equals it ignoring case                                    ×1.1
    … is contained in the query (whole words, any case)          ×1.05
    ==========================================================  ======

    A leading "The " is stripped (query and title) before the equality tests.
    """
    if not title:
        return 1.0
    q = query.strip()
    queries = {q, _strip_the(q)}
    lowered = {x.lower() for x in queries}
    # the title's rules first, then the same three for the title without its parenthetical
    for name, factors in ((title, (1.5, 1.2, 1.1)), (core_title(title), (1.2, 1.1, 1.05))):
        names = {name, _strip_the(name)}
        if queries & names:
            return factors[0]
        if lowered & {n.lower() for n in names}:
            return factors[1]
        if _contains_words(q, name):
            return factors[2]
    return 1.0


class GoldEnSearch(Stage):
    """BM25 over a knowledge index's sparse part, ``candidates`` (≥50) hits re-ranked by title match.

    Ties after re-ranking keep the BM25 order. Implements the :class:`~graphhop.core.Retriever`
    protocol; queries are used as given (no KG-style normalization).
    """

    name = "golden-search"

    def __init__(self, index: KnowledgeIndex, candidates: int = 50, rerank: bool = True) -> None:
        if candidates < 1:
            raise InputError(f"candidates must be positive, got {candidates}")
        self.index = index
        self.candidates = candidates
        self.rerank = rerank
        self._sparse = index.sparse
        self._docs = index.docs.docs

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` passages per query after the title-match re-rank of the top ``max(candidates, k)``."""
        depth = max(self.candidates, k)
        out: list[Ranking] = []
        for query, hits in zip(queries, self._sparse.search(list(queries), depth)):
            scored = []
            for order, (pos, score) in enumerate(hits):
                doc = self._docs[pos]
                factor = title_match_factor(query, doc.title) if self.rerank else 1.0
                scored.append((score * factor, order, doc.id))
            scored.sort(key=lambda s: (-s[0], s[1]))
            out.append([Hit(doc_id, score) for score, _, doc_id in scored[:k]])
        return out


def build_context(question: str, passages: Iterable[Document], max_words: int = 50) -> str:
    """``question || title: text || …`` with each passage text cut to its first ``max_words`` words."""
    parts = [question.strip()]
    for doc in passages:
        words = doc.text.split()
        text = " ".join(words[:max_words])
        parts.append(f"{doc.title}: {text}" if doc.title else text)
    return SEP.join(parts)


# --- query generation and the hop loop -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HopInput:
    """What a query generator sees at one hop."""

    question: str
    context: str
    hop: int


@dataclass(frozen=True, slots=True)
class GeneratedQuery:
    """A generated query; ``stop_score`` > 0 means the generator would rather stop (null span)."""

    query: str
    score: float = 0.0
    stop_score: float = float("-inf")


class QueryGenerator(Protocol):
    """Turns hop inputs into search queries (batch first)."""

    def generate(self, inputs: Sequence[HopInput]) -> list[GeneratedQuery]:
        """One query per input, in order."""
        ...


class QuestionQueryGenerator:
    """Baseline generator: the query is always the question (never asks to stop)."""

    def generate(self, inputs: Sequence[HopInput]) -> list[GeneratedQuery]:
        return [GeneratedQuery(i.question) for i in inputs]


class PathQueryGenerator:
    """Untrained generator conditioned on the path so far: hop 1 queries the question; hop ``h`` > 1
    queries the question plus the previous hop's best passage (``title: text``, the first segment of the
    context after the question), so each hop searches the whole index again with the path as the query
    (MDR's query, in BM25 form). Never asks to stop."""

    def generate(self, inputs: Sequence[HopInput]) -> list[GeneratedQuery]:
        return [GeneratedQuery(" ".join(i.context.split(SEP)[:2]) if i.hop > 1 else i.question) for i in inputs]


def hop_prompt(hop: int) -> str:
    """The first segment the span selector sees (the context is the second)."""
    return f"hop {hop}"


class SpanQueryGenerator:
    """A trained span selector (:class:`graphhop.models.span.SpanSelector`) picks the query span."""

    def __init__(self, selector, max_answer_tokens: int = 30, batch_size: int = 16) -> None:
        self.selector = selector
        self.max_answer_tokens = max_answer_tokens
        self.batch_size = batch_size

    def generate(self, inputs: Sequence[HopInput]) -> list[GeneratedQuery]:
        preds = self.selector.predict(
            [(hop_prompt(i.hop), i.context) for i in inputs],
            max_answer_tokens=self.max_answer_tokens,
            batch_size=self.batch_size,
        )
        out = []
        for inp, p in zip(inputs, preds):
            query = p.text.strip() or inp.question
            out.append(GeneratedQuery(query, p.score, p.null_score - p.score))
        return out


@dataclass(slots=True)
class HopRecord:
    """One executed hop: its number, the query, and the hits (best first)."""

    hop: int
    query: str
    hits: Ranking
    stop_score: float = float("-inf")


@dataclass(slots=True)
class GoldEnTrace:
    """The explanation of one retrieval: each hop's query and hits, why it stopped, the merged ranking."""

    question: str
    hops: list[HopRecord]
    stopped_by: str
    ranking: Ranking


def merge_hops(hop_rankings: Sequence[Ranking], k: int, key: Mapping[str, str] | None = None) -> Ranking:
    """Interleave hop rankings rank by rank (hop 1's 1st, hop 2's 1st, hop 1's 2nd …), dropping
    repeats (by ``key[id]`` when given, e.g. the title, else by id); the top ``k`` are kept.

    So the top 2 of a 2-hop run are each hop's best hit, and its top 10 the union of each hop's top 5.
    """
    out: Ranking = []
    seen: set[str] = set()
    depth = max((len(r) for r in hop_rankings), default=0)
    for rank in range(depth):
        for ranking in hop_rankings:
            if rank < len(ranking):
                hit = ranking[rank]
                ident = key.get(hit.id, hit.id) if key else hit.id
                if ident not in seen:
                    seen.add(ident)
                    out.append(hit)
                    if len(out) >= k:
                        return out
    return out


StopCriterion = Literal["fixed", "learned", "rule"]


class GoldEnRetriever(Stage):
    """The GoldEn hop loop; implements the :class:`~graphhop.core.Retriever` protocol.

    Per hop: generate a query from the context, search (``GoldEnSearch``), keep the top ``per_hop``
    as the next context. ``stop``:

    - ``fixed``: always ``max_hops`` hops (the paper: 2);
    - ``learned``: after hop ``min_hops``, stop when the generator's ``stop_score`` (null-span score
      minus best-span score) exceeds ``stop_threshold``;
    - ``rule``: after hop ``min_hops``, stop when a query repeats an earlier one or its top
      ``per_hop`` hits are all already retrieved.

    ``dedup_by="title"`` merges hits with the same title (GoldEn's rule; on HotpotQA id = title).
    """

    name = "golden"

    def __init__(
        self,
        search: GoldEnSearch,
        generator: QueryGenerator,
        max_hops: int = 2,
        per_hop: int = 5,
        stop: StopCriterion = "fixed",
        min_hops: int = 1,
        stop_threshold: float = 0.0,
        max_words: int = 50,
        dedup_by: Literal["id", "title"] = "id",
    ) -> None:
        if not 1 <= min_hops <= max_hops:
            raise InputError(f"need 1 <= min_hops <= max_hops, got min_hops={min_hops}, max_hops={max_hops}")
        if stop not in ("fixed", "learned", "rule"):
            raise InputError(f"unknown stop criterion {stop!r}; choose fixed, learned or rule")
        self.search_engine = search
        self.generator = generator
        self.max_hops = max_hops
        self.per_hop = per_hop
        self.stop = stop
        self.min_hops = min_hops
        self.stop_threshold = stop_threshold
        self.max_words = max_words
        self.dedup_by = dedup_by

    def retrieve(self, questions: Sequence[str], k: int = 10) -> list[GoldEnTrace]:
        """Run the hop loop for a batch of questions; one trace (with the merged ranking) each."""
        docs = self.search_engine.index.docs
        depth = max(k, self.per_hop)
        traces = [GoldEnTrace(q, [], "", []) for q in questions]
        contexts = [q.strip() for q in questions]
        active = list(range(len(questions)))
        for hop in range(1, self.max_hops + 1):
            if not active:
                break
            gens = self.generator.generate([HopInput(questions[i], contexts[i], hop) for i in active])
            still = []
            if self.stop == "learned" and hop > self.min_hops:
                keep = []
                for i, g in zip(active, gens):
                    if g.stop_score > self.stop_threshold:
                        traces[i].stopped_by = f"learned stop before hop {hop}"
                    else:
                        keep.append((i, g))
                pairs = keep
            else:
                pairs = list(zip(active, gens))
            rankings = self.search_engine.search([g.query for _, g in pairs], depth) if pairs else []
            for (i, g), ranking in zip(pairs, rankings):
                trace = traces[i]
                if self.stop == "rule" and hop > self.min_hops:
                    seen = {h.id for rec in trace.hops for h in rec.hits[: self.per_hop]}
                    repeated = any(rec.query.lower() == g.query.lower() for rec in trace.hops)
                    new = [h for h in ranking[: self.per_hop] if h.id not in seen]
                    if repeated or not new:
                        trace.stopped_by = f"rule stop before hop {hop} ({'repeated query' if repeated else 'nothing new'})"
                        continue
                trace.hops.append(HopRecord(hop, g.query, ranking, g.stop_score))
                contexts[i] = build_context(
                    questions[i], (docs[h.id] for h in ranking[: self.per_hop]), self.max_words
                )
                still.append(i)
            active = still
        key = None
        if self.dedup_by == "title":
            key = {d.id: d.title or d.id for d in docs.docs}
        for trace in traces:
            if not trace.stopped_by:
                trace.stopped_by = f"max hops ({self.max_hops})"
            trace.ranking = merge_hops([rec.hits for rec in trace.hops], k, key)
        return traces

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Merged multi-hop ranking per question (see :func:`merge_hops`)."""
        return [t.ranking for t in self.retrieve(queries, k)]


# --- metrics -------------------------------------------------------------------------------------


def passage_recall(
    rankings: Sequence[Ranking], golds: Sequence[Sequence[str]], ks: Sequence[int] = (2, 5, 10)
) -> dict[str, float]:
    """Mean over questions of, for each ``k``: ``R@k`` (share of gold passages in the top k),
    ``all@k`` (every gold passage found) and ``any@k`` (at least one found). Questions without gold
    passages count 0. Keys look like ``"R@2"``, ``"all@10"``.
    """
    if len(rankings) != len(golds):
        raise ValueError(f"{len(rankings)} rankings for {len(golds)} gold sets")
    out = {f"{m}@{k}": 0.0 for k in ks for m in ("R", "all", "any")}
    n = len(rankings)
    if not n:
        return out
    for ranking, gold in zip(rankings, golds):
        gold_set = set(gold)
        if not gold_set:
            continue
        for k in ks:
            top = {h.id for h in ranking[:k]}
            found = len(gold_set & top)
            out[f"R@{k}"] += found / len(gold_set)
            out[f"all@{k}"] += float(found == len(gold_set))
            out[f"any@{k}"] += float(found > 0)
    return {key: value / n for key, value in out.items()}


"""The ReasonGraphQA-style dataset builder (Graph-hop paper, Sec. 3): from a KG plus question
paths (or programs), build questions with an evidence pool and a gold reasoning graph.

For each question:

1. **Gold paths** come from the dataset (PathQuestion, WC2014; WC-C has two chains), are derived
   by walking the question type's relation chain in the KB (MetaQA), or come from a grounded
   KQA Pro program template (:mod:`graphhop.datasets.kqapro`).
2. **Evidence**: each gold triple is grouped with 0-2 other KB triples of the same head (sizes drawn
   with ``group_probs``; no triple is in two groups of one question and no gold triple, in either
   direction, is an extra) and the group becomes one sentence through a :class:`DataToText`
   (relation templates by default, or a seq2seq model). A sentence is kept only if it contains
   every entity of its triples (case-insensitive string match); a gold group whose sentence fails
   is retried as the gold triple alone, and the question is dropped if that fails too.
3. **Distractors**, one third each (the remainder goes to ``random``): ``dense`` (the corpus
   sentences most similar to the question by the dense encoder), ``same-head`` (a gold triple's
   head with a different relation), ``random`` (uniform over the corpus). A kind that runs out of
   candidates is topped up with ``random``; each item records the kind it really is. No
   distractor states a gold triple (either direction) or repeats a pool sentence.
   The corpus is the whole KB grouped the same way (1-3 triples of one head per sentence); the
   dense search runs over a seeded sample of ``corpus_size`` of its sentences.
4. The **reasoning graph** follows the paths: root -> evidence of the first triple -> ... ->
   evidence of the last triple (answer-bearing); paths sharing a triple share its node. It is
   validated (:meth:`graphhop.graph.EvidenceGraph.validate`); invalid graphs drop the question.
5. **Split**: 8:1:1 (configurable) by ``md5(seed:smallest gold path)``, so paraphrases of one path
   stay in one part.

Output (JSONL, one question per line; see :func:`record_schema` and ``docs/RESULTS.md (issue 4)``)::

    {"id", "source", "split", "question", "answers", "qtype", "hops", "graph_type",
     "topic_entities", "evidence": [{"id", "text", "facts": [[h, r, t], ...], "gold",
     "distractor_kind"}], "graph": EvidenceGraph.to_json()}

Everything is deterministic for a given seed: each question draws from its own
``random.Random(f"{seed}|{id}")``, so results do not depend on chunking or on other questions.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

import numpy as np

from graphhop.core import GraphhopError, InputError, QAExample, Triple
from graphhop.graph import GRAPH_TYPES, EvidenceGraph, GraphConstraintError, StructureCounter
from graphhop.kb.loaders import iter_jsonl
from graphhop.kb.store import TripleStore
from graphhop.datasets.splits import assign_split, canonical_path, grouped_splits
from graphhop.kb.verbalize import INVERSE_SUFFIX, clean_entity, clean_relation, normalize_question

__all__ = [
    "Triple",
    "RELATION_TEMPLATES",
    "DataToText",
    "TemplateDataToText",
    "Seq2SeqDataToText",
    "mentions_all_entities",
    "BuildConfig",
    "Dropped",
    "DatasetBuilder",
    "DISTRACTOR_KINDS",
    "assign_split",
    "read_records",
    "DatasetStats",
    "stats_table",
    "write_dataset",
    "build_named_dataset",
    "stats_of_files",
    "record_schema",
]

DISTRACTOR_KINDS = ("dense", "same-head", "random")

#: Predicate phrases per relation (the subject is the head); ``{tail}`` is the tail entity.
RELATION_TEMPLATES: dict[str, str] = {
    # PathQuestion (PQ)
    "gender": "is of gender {tail}",
    "children": "has a child named {tail}",
    "parents": "has a parent named {tail}",
    "spouse": "is married to {tail}",
    "nationality": "has the nationality {tail}",
    "profession": "works as {tail}",
    "cause_of_death": "died of {tail}",
    "religion": "follows the religion {tail}",
    "place_of_death": "died in {tail}",
    "place_of_birth": "was born in {tail}",
    "institution": "studied at {tail}",
    "location": "is located in {tail}",
    "ethnicity": "is of {tail} ethnicity",
    # WorldCup2014
    "wears_number": "wears number {tail}",
    "plays_position": "plays in the position {tail}",
    "plays_position_inverse": "is the position of {tail}",
    "plays_in_club": "plays for the club {tail}",
    "plays_in_club_inverse": "is the club of {tail}",
    "plays_for_country": "plays for the national team of {tail}",
    "plays_for_country_inverse": "is the country of the player {tail}",
    "is_aged": "is {tail} years old",
    "is_in_country": "is located in {tail}",
    "is_in_country_inverse": "is the country of the club {tail}",
    # MetaQA (WikiMovies)
    "directed_by": "was directed by {tail}",
    "written_by": "was written by {tail}",
    "starred_actors": "stars {tail}",
    "release_year": "was released in {tail}",
    "in_language": "is in the language {tail}",
    "has_tags": "is tagged with {tail}",
    "has_genre": "has the genre {tail}",
    "has_imdb_votes": "has {tail} IMDb votes",
    "has_imdb_rating": "has an IMDb rating of {tail}",
}


def _generic_predicate(relation: str) -> str:
    """A template for an unknown relation: Freebase ``__people__person__gender`` -> ``has gender {tail}``."""
    inverse = relation.endswith(INVERSE_SUFFIX)
    name = relation.rsplit("__", 1)[-1] if "__" in relation.strip("_") else relation
    words = clean_relation(name + (INVERSE_SUFFIX if inverse else "")) or clean_relation(relation)
    return f"is the {words} of {{tail}}" if inverse else f"has {words} {{tail}}"


class DataToText(Protocol):
    """Turns groups of triples (one group = one sentence, all with the same head) into sentences."""

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        """One sentence per group, in order."""
        ...


@dataclass
class TemplateDataToText:
    """Relation templates: ``(m, directed_by, d) + (m, release_year, 1999)`` ->
    ``m was directed by d and was released in 1999.`` Names are cleaned (:func:`clean_entity`)."""

    templates: dict[str, str] = field(default_factory=lambda: dict(RELATION_TEMPLATES))

    def predicate(self, relation: str) -> str:
        """The predicate template of ``relation`` (a generic one when unknown)."""
        return self.templates.get(relation) or _generic_predicate(relation)

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        out = []
        for group in groups:
            if not group:
                raise GraphhopError("cannot verbalize an empty triple group")
            preds = [self.predicate(r).format(tail=clean_entity(t)) for _, r, t in group]
            body = preds[0] if len(preds) == 1 else ", ".join(preds[:-1]) + " and " + preds[-1]
            out.append(f"{clean_entity(group[0][0])} {body}.")
        return out


class Seq2SeqDataToText:
    """A data-to-text seq2seq model by Hugging Face name or local path (e.g. a T5 fine-tuned on
    WebNLG). Input per group: ``prompt + "<H> h <R> r <T> t <H> ..."`` with cleaned names.
    Loaded lazily on first use; offline unless the model is cached or local. :meth:`candidates` gives
    ``num_candidates`` beams per group (for :class:`graphhop.datasets.selection.SelectingDataToText`)."""

    def __init__(self, model: str, batch_size: int = 16, max_new_tokens: int = 96,
                 prompt: str = "translate Graph to English: ", num_beams: int = 1, num_candidates: int = 1) -> None:
        self.model_name = model
        self.num_candidates = num_candidates
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.prompt = prompt
        self.num_beams = num_beams
        self._tok: Any = None
        self._model: Any = None

    @staticmethod
    def linearize(group: Sequence[Triple]) -> str:
        """``<H> head <R> relation <T> tail`` for each triple (WebNLG style)."""
        return " ".join(f"<H> {clean_entity(h)} <R> {clean_relation(r)} <T> {clean_entity(t)}" for h, r, t in group)

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        try:
            self._tok = AutoTokenizer.from_pretrained(self.model_name)
            self._model = AutoModelForSeq2SeqLM.from_pretrained(self.model_name).eval()
        except OSError as exc:
            raise GraphhopError(f"cannot load data-to-text model {self.model_name!r}: {str(exc).splitlines()[0]}") from None

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        return [c[0] for c in self.candidates(groups, 1)]

    def candidates(self, groups: Sequence[Sequence[Triple]], n: int | None = None) -> list[list[str]]:
        """The ``n`` best beams per group (default ``num_candidates``; beam width at least ``n``), best first."""
        import torch

        n = n or self.num_candidates
        self._load()
        out: list[list[str]] = []
        for i in range(0, len(groups), self.batch_size):
            batch = [self.prompt + self.linearize(g) for g in groups[i : i + self.batch_size]]
            enc = self._tok(batch, return_tensors="pt", padding=True, truncation=True)
            with torch.no_grad():
                # only ids and mask: some tokenizers add token_type_ids, which seq2seq models reject
                ids = self._model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                           max_new_tokens=self.max_new_tokens, num_beams=max(self.num_beams, n),
                                           num_return_sequences=n, do_sample=False)
            texts = [s.strip() for s in self._tok.batch_decode(ids, skip_special_tokens=True)]
            out.extend(texts[j : j + n] for j in range(0, len(texts), n))
        return out


def mentions_all_entities(sentence: str, group: Sequence[Triple]) -> bool:
    """True when every (cleaned) head and tail of ``group`` occurs in ``sentence``, case-insensitively."""
    text = " ".join(sentence.lower().split())
    return all(clean_entity(e).lower() in text for h, _, t in group for e in (h, t))


def _equivalents(triple: Triple) -> tuple[Triple, Triple]:
    h, r, t = triple
    inverse = r[: -len(INVERSE_SUFFIX)] if r.endswith(INVERSE_SUFFIX) else r + INVERSE_SUFFIX
    return triple, (t, inverse, h)


@dataclass
class BuildConfig:
    """Builder options (the CLI exposes each one)."""

    seed: int = 13
    distractors: int = 12
    group_probs: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3)
    corpus_size: int = 10_000
    max_paths: int = 10
    split_ratios: tuple[int, int, int] = (8, 1, 1)
    chunk_size: int = 256
    dense_candidates: int = 64

    def check(self) -> None:
        """Raise :class:`InputError` on inconsistent values."""
        if self.distractors < 0:
            raise InputError(f"--distractors must be >= 0, got {self.distractors}")
        if len(self.group_probs) != 3 or any(p < 0 for p in self.group_probs) or sum(self.group_probs) <= 0:
            raise InputError(f"--group-probs needs 3 non-negative weights for 0/1/2 extra triples, got {self.group_probs}")
        if len(self.split_ratios) != 3 or any(r < 0 for r in self.split_ratios) or sum(self.split_ratios) <= 0:
            raise InputError(f"--split needs 3 non-negative integers, got {self.split_ratios}")
        if self.max_paths < 1:
            raise InputError(f"--max-paths must be >= 1, got {self.max_paths}")


@dataclass
class Dropped:
    """A question the builder could not turn into a valid example, and why."""

    id: str
    reason: str


class _Encoder(Protocol):
    def encode(self, sentences: list[str], **kwargs: Any) -> Any: ...


class DatasetBuilder:
    """Builds ReasonGraphQA-style examples over one KB (see the module docstring).

    ``encoder`` is a sentence-transformers-like object (``encode(texts, normalize_embeddings=True)``);
    ``None`` turns the dense third into random distractors (recorded as ``random``).
    ``path_source`` maps a question without gold paths to its paths (e.g. MetaQA's chain walk).
    """

    def __init__(
        self,
        store: TripleStore,
        config: BuildConfig | None = None,
        data_to_text: DataToText | None = None,
        encoder: _Encoder | None = None,
        path_source: Callable[[QAExample], list[list[Triple]]] | None = None,
    ) -> None:
        self.store = store
        self.config = config or BuildConfig()
        self.config.check()
        self.d2t = data_to_text or TemplateDataToText()
        self.encoder = encoder
        self.path_source = path_source
        self._texts: dict[tuple[Triple, ...], str | None] = {}
        self._corpus: list[tuple[Triple, ...]] | None = None
        self._dense_groups: list[tuple[Triple, ...]] = []
        self._dense_emb: np.ndarray | None = None
        self._paths: dict[int, tuple[QAExample, list[list[Triple]]]] = {}
        #: ``(source, example id) -> split`` from :meth:`assign_splits` (grouped, leak-free)
        self.splits: dict[tuple[str, str], str] = {}

    # ------------------------------------------------------------------ sentences
    def sentences(self, groups: Sequence[tuple[Triple, ...]]) -> list[str | None]:
        """Verbalize groups (cached); ``None`` for a sentence that misses one of its entities."""
        todo = [g for g in dict.fromkeys(groups) if g not in self._texts]
        if todo:
            for g, s in zip(todo, self.d2t.verbalize(todo)):
                self._texts[g] = s if mentions_all_entities(s, g) else None
        return [self._texts[g] for g in groups]

    def _group_sizes(self, rng: random.Random, n: int) -> Iterator[int]:
        while n > 0:
            k = 1 + rng.choices((0, 1, 2), weights=self.config.group_probs)[0]
            k = min(k, n)
            n -= k
            yield k

    # ------------------------------------------------------------------ corpus
    def corpus(self) -> list[tuple[Triple, ...]]:
        """The distractor corpus: every KB fact, each head's facts cut into seeded groups of 1-3."""
        if self._corpus is None:
            rng = random.Random(f"{self.config.seed}|corpus")
            groups: list[tuple[Triple, ...]] = []
            for head in sorted(self.store.entities()):
                facts = list(dict.fromkeys(f.triple for f in self.store.out_edges(head)))
                if not facts:
                    continue
                rng.shuffle(facts)
                i = 0
                for k in self._group_sizes(rng, len(facts)):
                    groups.append(tuple(facts[i : i + k]))
                    i += k
            self._corpus = groups
        return self._corpus

    def _prepare_dense(self) -> None:
        if self.encoder is None or self._dense_emb is not None:
            return
        corpus = self.corpus()
        rng = random.Random(f"{self.config.seed}|dense")
        idx = sorted(rng.sample(range(len(corpus)), min(self.config.corpus_size, len(corpus))))
        groups = [corpus[i] for i in idx]
        texts = self.sentences(groups)
        self._dense_groups = [g for g, t in zip(groups, texts) if t is not None]
        sents = [t for t in texts if t is not None]
        self._dense_emb = np.asarray(self._encode(sents), dtype=np.float32)

    def _encode(self, texts: list[str]) -> np.ndarray:
        assert self.encoder is not None
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        emb = self.encoder.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True,
                                  show_progress_bar=False)
        return np.asarray(emb, dtype=np.float32).reshape(len(texts), -1)

    # ------------------------------------------------------------------ building
    def gold_paths(self, example: QAExample) -> list[list[Triple]]:
        """The example's gold paths, or those of ``path_source`` (at most ``max_paths + 1``)."""
        if example.gold_paths:
            return [list(map(tuple, p)) for p in example.gold_paths]  # type: ignore[misc]
        if self.path_source is None:
            return []
        cached = self._paths.get(id(example))
        if cached is None or cached[0] is not example:
            cached = self._paths[id(example)] = (example, self.path_source(example))
        return cached[1]

    def assign_splits(self, sources: Sequence[tuple[str, Sequence[QAExample]]]) -> None:
        """Choose every example's split at once: examples sharing a question or any gold path (in
        either direction) share a split (:func:`graphhop.datasets.splits.grouped_splits`)."""
        items = [((source, ex.id), ex.question, self.gold_paths(ex)) for source, examples in sources for ex in examples]
        self.splits = grouped_splits(items, self.config.seed, self.config.split_ratios)

    def build(self, examples: Iterable[QAExample], source: str = "") -> Iterator[dict[str, Any] | Dropped]:
        """Yield one record (a JSON-ready dict) or :class:`Dropped` per example, in input order."""
        self._prepare_dense()
        chunk: list[QAExample] = []
        for ex in examples:
            chunk.append(ex)
            if len(chunk) >= self.config.chunk_size:
                yield from self._build_chunk(chunk, source)
                chunk = []
        if chunk:
            yield from self._build_chunk(chunk, source)

    def _build_chunk(self, chunk: list[QAExample], source: str) -> Iterator[dict[str, Any] | Dropped]:
        dense: list[list[int]] = [[] for _ in chunk]
        if self._dense_emb is not None and len(self._dense_emb):
            q = self._encode([normalize_question(ex.question) for ex in chunk])
            sims = q @ self._dense_emb.T
            k = min(self.config.dense_candidates, sims.shape[1])
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            for i in range(len(chunk)):
                # stable order: score descending, then corpus index
                row = top[i]
                dense[i] = sorted(row.tolist(), key=lambda j: (-float(sims[i, j]), j))
        for ex, cand in zip(chunk, dense):
            yield self.build_one(ex, source, cand)

    def build_one(self, ex: QAExample, source: str = "", dense_candidates: Sequence[int] = ()) -> dict[str, Any] | Dropped:
        """Build the record of one example; ``dense_candidates`` index the dense corpus sample."""
        cfg = self.config
        rng = random.Random(f"{cfg.seed}|{source}|{ex.id}")
        paths = self.gold_paths(ex)
        if not paths:
            return Dropped(ex.id, "no gold path in the KB")
        if len(paths) > cfg.max_paths:
            return Dropped(ex.id, f"more than {cfg.max_paths} gold paths")
        for p in paths:
            if len(set(p)) != len(p):
                dup = next(t for t in p if p.count(t) > 1)
                return Dropped(ex.id, f"evidence repeats on a root path: {'|'.join(dup)} twice in one path")
        gold = list(dict.fromkeys(t for p in paths for t in p))
        blocked = {e for t in gold for e in _equivalents(t)}
        used: set[Triple] = set(gold)

        # 1. gold evidence: each gold triple + 0-2 other triples of its head
        groups: list[tuple[Triple, ...]] = []
        for triple in gold:
            k = rng.choices((0, 1, 2), weights=cfg.group_probs)[0]
            extras = [f.triple for f in self.store.out_edges(triple[0])]
            extras = [t for t in dict.fromkeys(extras) if t not in used and t not in blocked]
            chosen = rng.sample(extras, min(k, len(extras)))
            used.update(chosen)
            groups.append((triple, *chosen))
        texts = self.sentences(groups)
        for i, (group, text) in enumerate(zip(groups, texts)):
            if text is None and len(group) > 1:
                groups[i] = (group[0],)
                text = self.sentences([groups[i]])[0]
            if text is None:
                return Dropped(ex.id, f"gold sentence misses an entity of {group[0]}")
            texts[i] = text

        pool: list[dict[str, Any]] = [
            {"text": t, "facts": [list(x) for x in g], "gold": True, "distractor_kind": None}
            for g, t in zip(groups, texts)
        ]
        seen_text = {t for t in texts if t}

        def usable(group: Sequence[Triple]) -> bool:
            return not any(t in blocked or t in used for t in group)

        def take(cands: Iterable[tuple[Triple, ...]], n: int, kind: str) -> int:
            got = 0
            for group in cands:
                if got >= n:
                    break
                if not usable(group):
                    continue
                text = self.sentences([group])[0]
                if text is None or text in seen_text:
                    continue
                seen_text.add(text)
                used.update(group)
                pool.append({"text": text, "facts": [list(x) for x in group], "gold": False, "distractor_kind": kind})
                got += 1
            return got

        # 2. distractors: one third each; shortfalls are filled with random sentences
        n_total = cfg.distractors
        n_dense = n_total // 3 if self._dense_emb is not None else 0
        n_head = n_total // 3
        short = n_dense - take((self._dense_groups[j] for j in dense_candidates), n_dense, "dense")
        short += n_head - take(self._same_head_groups(gold, rng), n_head, "same-head")
        n_random = n_total - n_dense - n_head + short
        corpus = self.corpus()
        tries = 0
        while n_random > 0 and corpus and tries < 20:
            batch = [corpus[rng.randrange(len(corpus))] for _ in range(n_random * 3)]
            n_random -= take(batch, n_random, "random")
            tries += 1

        # 3. shuffle, name, and build the graph
        rng.shuffle(pool)
        ids: dict[tuple[str, str, str], str] = {}
        evidence: dict[str, dict[str, Any]] = {}
        for i, item in enumerate(pool):
            item["id"] = f"e{i}"
            if item["gold"]:
                ids[tuple(item["facts"][0])] = item["id"]  # type: ignore[index]
                evidence[item["id"]] = {"text": item["text"], "facts": item["facts"]}
        chains = [[ids[t] for t in path] for path in paths]
        graph = EvidenceGraph.from_chains(ex.question, chains, evidence)
        try:
            graph.validate()
        except GraphConstraintError as exc:
            return Dropped(ex.id, str(exc))
        split = self.splits.get((source, ex.id)) or assign_split(min(canonical_path(p) for p in paths), cfg.seed, cfg.split_ratios)
        return {
            "id": f"{source}/{ex.id}" if source else ex.id,
            "source": source,
            "split": split,
            "question": ex.question,
            "answers": list(ex.answers),
            "qtype": ex.qtype,
            "hops": ex.hops or graph.depth(),
            "graph_type": graph.graph_type(),
            "topic_entities": list(ex.topic_entities),
            "evidence": [{k: item[k] for k in ("id", "text", "facts", "gold", "distractor_kind")} for item in pool],
            "graph": graph.to_json(),
        }

    def _same_head_groups(self, gold: list[Triple], rng: random.Random) -> list[tuple[Triple, ...]]:
        groups: list[tuple[Triple, ...]] = []
        for head in dict.fromkeys(t[0] for t in gold):
            gold_rel = {t[1] for t in gold if t[0] == head}
            facts = [f.triple for f in self.store.out_edges(head) if f.relation not in gold_rel]
            facts = list(dict.fromkeys(facts))
            rng.shuffle(facts)
            i = 0
            for k in self._group_sizes(rng, len(facts)):
                groups.append(tuple(facts[i : i + k]))
                i += k
        rng.shuffle(groups)
        return groups


# ---------------------------------------------------------------------- reading and statistics
def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream builder records from a JSONL file (errors name the file and line)."""
    path = Path(path)
    for lineno, rec in iter_jsonl(path):
        for key in ("id", "question", "evidence", "graph"):
            if key not in rec:
                raise InputError(f"{path}:{lineno}: missing field {key!r}")
        yield rec


@dataclass
class DatasetStats:
    """Table-2-style statistics, accumulated one record at a time."""

    name: str = ""
    n: int = 0
    nodes: int = 0
    edges: int = 0
    depth: int = 0
    max_depth: int = 0
    pool: int = 0
    gold: int = 0
    types: Counter = field(default_factory=Counter)
    qtypes: Counter = field(default_factory=Counter)
    distractor_kinds: Counter = field(default_factory=Counter)
    structures: StructureCounter = field(default_factory=StructureCounter)
    dropped: Counter = field(default_factory=Counter)

    def add(self, rec: dict[str, Any], where: str = "record") -> None:
        """Count one record."""
        graph = EvidenceGraph.from_json(rec["graph"], where)
        self.n += 1
        self.nodes += len(graph)
        self.edges += graph.g.number_of_edges()
        d = graph.depth()
        self.depth += d
        self.max_depth = max(self.max_depth, d)
        self.pool += len(rec["evidence"])
        self.gold += sum(1 for e in rec["evidence"] if e.get("gold"))
        self.types[rec.get("graph_type") or graph.graph_type()] += 1
        self.qtypes[rec.get("qtype", "")] += 1
        self.distractor_kinds.update(e.get("distractor_kind") for e in rec["evidence"] if not e.get("gold"))
        self.structures.add(graph)

    def drop(self, reason: str) -> None:
        """Count one dropped question (reasons are shortened to their first clause)."""
        self.dropped[re.sub(r"\(.*", "", reason.split(":")[0]).strip()] += 1

    def row(self) -> dict[str, Any]:
        """The statistics as a flat dict (means over questions; shares in percent)."""
        n = max(self.n, 1)
        row: dict[str, Any] = {
            "name": self.name,
            "questions": self.n,
            "nodes": round(self.nodes / n, 2),
            "edges": round(self.edges / n, 2),
            "depth": round(self.depth / n, 2),
            "max_depth": self.max_depth,
            "pool": round(self.pool / n, 2),
            "gold_evidence": round(self.gold / n, 2),
            "structures": len(self.structures),
            "qtypes": len(self.qtypes),
            "dropped": sum(self.dropped.values()),
        }
        for t in GRAPH_TYPES:
            row[t] = round(100 * self.types[t] / n, 1)
        return row


_COLUMNS = [
    ("name", "dataset"), ("questions", "questions"), ("nodes", "nodes"), ("edges", "edges"),
    ("depth", "depth"), ("max_depth", "max depth"), ("pool", "pool"), ("gold_evidence", "gold ev."),
    ("single-chain single-hop", "SC-SH %"), ("single-chain multi-hop", "SC-MH %"),
    ("multi-chain single-hop", "MC-SH %"), ("multi-chain multi-hop", "MC-MH %"),
    ("structures", "structures"), ("qtypes", "q. types"), ("dropped", "dropped"),
]


def stats_table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table of :meth:`DatasetStats.row` dicts."""
    head = "| " + " | ".join(title for _, title in _COLUMNS) + " |"
    sep = "|" + "|".join("---" if k == "name" else "---:" for k, _ in _COLUMNS) + "|"
    lines = [head, sep]
    for row in rows:
        lines.append("| " + " | ".join(str(row.get(k, "")) for k, _ in _COLUMNS) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------- whole datasets
SPLITS = ("train", "dev", "test")


def write_dataset(
    records: Iterable[dict[str, Any] | Dropped],
    out_dir: str | Path,
    name: str = "",
    total: int | None = None,
    progress: bool = False,
) -> dict[str, DatasetStats]:
    """Stream records into ``out_dir/{train,dev,test}.jsonl``; write ``stats.json`` and ``stats.md``.

    Returns the statistics per split plus ``all`` (which also counts dropped questions). The folder
    is written atomically and replaces only an earlier dataset folder (one with ``stats.json``).
    """
    from graphhop.io import atomic_dir

    stats = {s: DatasetStats(f"{name} {s}".strip()) for s in SPLITS}
    stats["all"] = DatasetStats(f"{name} all".strip())
    with atomic_dir(out_dir, overwrite=True, replace_if=("stats.json",)) as tmp:
        _write_records(records, tmp, stats, name, total, progress)
        _rewrite_stats(tmp, stats)
    return stats


def _write_records(records: Iterable[dict[str, Any] | Dropped], out: Path, stats: dict[str, DatasetStats],
                   name: str, total: int | None, progress: bool) -> None:
    handles = {s: (out / f"{s}.jsonl").open("w", encoding="utf-8") for s in SPLITS}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc=f"build {name}".strip(), unit="q", mininterval=1.0)
    try:
        for rec in records:
            if bar is not None:
                bar.update(1)
            if isinstance(rec, Dropped):
                stats["all"].drop(rec.reason)
                continue
            handles[rec["split"]].write(json.dumps(rec, ensure_ascii=False) + "\n")
            stats[rec["split"]].add(rec)
            stats["all"].add(rec)
    finally:
        for fh in handles.values():
            fh.close()
        if bar is not None:
            bar.close()


def record_schema() -> dict[str, str]:
    """The fields of one builder record and what they hold (printed by ``graphhop dataset-stats --schema``)."""
    return {
        "id": "unique id: <source>/<dataset example id>",
        "source": "dataset name and source split it came from, e.g. pq-2h/train",
        "split": "train | dev | test (seeded 8:1:1 by the smallest gold path)",
        "question": "question text as published",
        "answers": "gold answers (raw KB strings)",
        "qtype": "question type (MetaQA type, KQA Pro template, or the dataset name)",
        "hops": "length of the longest gold path",
        "graph_type": "one of " + ", ".join(GRAPH_TYPES),
        "topic_entities": "topic entities (raw KB strings)",
        "evidence": "pool: [{id, text, facts: [[h, r, t], ...], gold: bool, distractor_kind: null|dense|same-head|random}]",
        "graph": "gold reasoning graph, EvidenceGraph.to_json(): {root, question, text_evidence, nodes, edges}",
    }


# ---------------------------------------------------------------------- named sources (the CLI)
KQAPRO_PROGRAMS = "kqapro-sample/sampled/sampled_200.json"


def build_named_dataset(
    name: str,
    out_dir: str | Path,
    data_root: str | Path | None = None,
    splits: Sequence[str] = ("train", "dev"),
    limit: int | None = None,
    config: BuildConfig | None = None,
    encoder: _Encoder | None = None,
    data_to_text: DataToText | None = None,
    kb: str | None = None,
    programs: str | Path | None = None,
    progress: bool = False,
) -> dict[str, DatasetStats]:
    """Build a dataset from a named source and write it (see :func:`write_dataset`).

    ``name`` is a :data:`graphhop.datasets.kgqa.DATASETS` name (``pq-2h``, ``wc-c``,
    ``metaqa-2h``, ...; its source ``splits`` are read and re-split 8:1:1), or ``kqapro``: the
    KQA Pro sample programs (``programs``, default the 200-question sample) grounded in the KB of
    dataset ``kb`` (e.g. ``wc-c``) or a triple file path. ``limit`` caps the questions read per
    source split (the first ``limit``, in file order).
    """
    from graphhop.datasets import kgqa
    from graphhop.kb.loaders import iter_triples

    config = config or BuildConfig()
    config.check()
    if name.lower() == "kqapro":
        from graphhop.datasets.kqapro import ground_programs, load_programs

        root = kgqa.data_root(data_root)
        if not kb:
            raise InputError("kqapro needs --kb: a dataset name whose KB to ground in (e.g. wc-c) or a triple file")
        kb_file = Path(kb) if Path(kb).exists() else kgqa.kb_path(kb, root)
        store = TripleStore.from_facts(iter_triples(kb_file))
        progs = load_programs(Path(programs) if programs else root / KQAPRO_PROGRAMS)
        examples, skipped = ground_programs(progs, store, seed=config.seed, max_paths=config.max_paths)
        examples = examples[:limit] if limit else examples
        builder = DatasetBuilder(store, config, data_to_text, encoder)
        builder.assign_splits([(f"kqapro/{kb_file.stem}", examples)])
        stats = write_dataset(builder.build(examples, source=f"kqapro/{kb_file.stem}"), out_dir, name,
                              total=len(examples), progress=progress)
        for reason, n in skipped.items():
            stats["all"].dropped[f"program {reason}"] += n
        _rewrite_stats(out_dir, stats)
        return stats
    spec = kgqa.DATASETS.get(name.lower())
    if spec is None:
        raise InputError(f"unknown dataset {name!r}; choose kqapro or one of {', '.join(kgqa.DATASETS)}")
    root = kgqa.data_root(data_root)
    store = TripleStore.from_facts(iter_triples(kgqa.kb_path(name, root)))
    path_source = None
    if spec.family == "metaqa":
        def path_source(ex: QAExample) -> list[list[Triple]]:
            return kgqa.metaqa_gold_paths(ex, store, max_paths=config.max_paths + 1)

    sources: list[tuple[str, list[QAExample]]] = []
    for split in splits:
        if not (root / spec.questions.format(split=split)).exists():
            raise InputError(f"{root / spec.questions.format(split=split)}: no such file (split {split!r} of {name})")
        examples = kgqa.load_dataset(name, split, root)
        sources.append((split, examples[:limit] if limit else examples))
    builder = DatasetBuilder(store, config, data_to_text, encoder, path_source)
    builder.assign_splits([(f"{spec.name}/{split}", examples) for split, examples in sources])

    def records() -> Iterator[dict[str, Any] | Dropped]:
        for split, examples in sources:
            yield from builder.build(examples, source=f"{spec.name}/{split}")

    return write_dataset(records(), out_dir, spec.name, total=sum(len(e) for _, e in sources), progress=progress)


def _rewrite_stats(out_dir: str | Path, stats: dict[str, DatasetStats]) -> None:
    out = Path(out_dir)
    summary = {k: {**v.row(), "dropped_reasons": dict(v.dropped), "distractor_kinds": dict(v.distractor_kinds)}
               for k, v in stats.items()}
    from graphhop.io import atomic_write_text

    atomic_write_text(out / "stats.json", json.dumps(summary, indent=2) + "\n")
    atomic_write_text(out / "stats.md", stats_table([stats[k].row() for k in ("all", *SPLITS)]) + "\n")


def stats_of_files(paths: Iterable[str | Path], name: str = "") -> DatasetStats:
    """Statistics of builder (or EntailmentBank) JSONL files."""
    stats = DatasetStats(name)
    for path in paths:
        for i, rec in enumerate(read_records(path), start=1):
            stats.add(rec, where=f"{path}:{i}")
    return stats

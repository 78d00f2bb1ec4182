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

import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

import numpy as np

from graphhop.core import InputError, QAExample, Triple
from graphhop.datasets.d2t import (
    RELATION_TEMPLATES,
    DataToText,
    Seq2SeqDataToText,
    TemplateDataToText,
    mentions_all_entities,
)
from graphhop.datasets.records import (
    SPLITS,
    DatasetStats,
    Dropped,
    read_records,
    record_schema,
    rewrite_stats,
    stats_of_files,
    stats_table,
    write_dataset,
)
from graphhop.datasets.splits import assign_split, canonical_path, grouped_splits
from graphhop.graph import EvidenceGraph, GraphConstraintError
from graphhop.kb.store import TripleStore
from graphhop.kb.verbalize import INVERSE_SUFFIX, normalize_question

# The data-to-text (graphhop.datasets.d2t) and record (graphhop.datasets.records) names are
# re-exported: this module is the builder's one entry point.
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
    "SPLITS",
    "assign_split",
    "read_records",
    "DatasetStats",
    "stats_table",
    "write_dataset",
    "build_named_dataset",
    "kqapro_splits",
    "stats_of_files",
    "record_schema",
]

DISTRACTOR_KINDS = ("dense", "same-head", "random")


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




class _Encoder(Protocol):
    def encode(self, sentences: list[str], **kwargs: Any) -> Any: ...


class _Pool:
    """One question's evidence pool while it is built: its items, their sentences, and the triples
    no further item may state (the gold ones in either direction, and every triple already used)."""

    def __init__(self, sentences: Callable[[Sequence[tuple[Triple, ...]]], list[str | None]], gold: list[Triple]) -> None:
        self.sentences = sentences
        self.blocked = {e for t in gold for e in _equivalents(t)}
        self.used: set[Triple] = set(gold)
        self.items: list[dict[str, Any]] = []
        self.seen_text: set[str] = set()

    def usable(self, group: Sequence[Triple]) -> bool:
        """No triple of ``group`` is blocked or already used."""
        return not any(t in self.blocked or t in self.used for t in group)

    def add(self, group: tuple[Triple, ...], text: str, kind: str | None) -> None:
        """Add one item: gold when ``kind`` is ``None``, else a distractor of that kind."""
        self.seen_text.add(text)
        self.used.update(group)
        self.items.append({"text": text, "facts": [list(x) for x in group], "gold": kind is None,
                           "distractor_kind": kind})

    def take(self, cands: Iterable[tuple[Triple, ...]], n: int, kind: str) -> int:
        """Add up to ``n`` usable candidates whose sentence is new; returns how many were added."""
        got = 0
        for group in cands:
            if got >= n:
                break
            if not self.usable(group):
                continue
            text = self.sentences([group])[0]
            if text is None or text in self.seen_text:
                continue
            self.add(group, text, kind)
            got += 1
        return got


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

    def _cut(self, facts: list[Triple], rng: random.Random) -> list[tuple[Triple, ...]]:
        """Shuffle ``facts`` and cut them into groups of 1-3 (sizes drawn with ``group_probs``)."""
        rng.shuffle(facts)
        groups: list[tuple[Triple, ...]] = []
        i = 0
        while i < len(facts):
            k = min(1 + rng.choices((0, 1, 2), weights=self.config.group_probs)[0], len(facts) - i)
            groups.append(tuple(facts[i : i + k]))
            i += k
        return groups

    # ------------------------------------------------------------------ corpus
    def corpus(self) -> list[tuple[Triple, ...]]:
        """The distractor corpus: every KB fact, each head's facts cut into seeded groups of 1-3."""
        if self._corpus is None:
            rng = random.Random(f"{self.config.seed}|corpus")
            groups: list[tuple[Triple, ...]] = []
            for head in sorted(self.store.entities()):
                facts = list(dict.fromkeys(f.triple for f in self.store.out_edges(head)))
                groups.extend(self._cut(facts, rng))
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
        rng = random.Random(f"{self.config.seed}|{source}|{ex.id}")
        paths = self.gold_paths(ex)
        problem = self._path_problem(paths)
        if problem:
            return Dropped(ex.id, problem)
        gold = list(dict.fromkeys(t for p in paths for t in p))
        pool = _Pool(self.sentences, gold)
        problem = self._add_gold(pool, gold, rng)
        if problem:
            return Dropped(ex.id, problem)
        self._add_distractors(pool, gold, rng, dense_candidates)
        rng.shuffle(pool.items)
        return self._record(ex, source, paths, pool.items)

    def _path_problem(self, paths: list[list[Triple]]) -> str | None:
        """Why ``paths`` cannot make a question (``None`` when they can)."""
        if not paths:
            return "no gold path in the KB"
        if len(paths) > self.config.max_paths:
            return f"more than {self.config.max_paths} gold paths"
        for p in paths:
            if len(set(p)) != len(p):
                dup = next(t for t in p if p.count(t) > 1)
                return f"evidence repeats on a root path: {'|'.join(dup)} twice in one path"
        return None

    def _add_gold(self, pool: _Pool, gold: list[Triple], rng: random.Random) -> str | None:
        """Step 1: each gold triple + 0-2 other triples of its head, one sentence each; a group whose
        sentence misses an entity falls back to the gold triple alone. Returns why it failed, if it did."""
        groups: list[tuple[Triple, ...]] = []
        for triple in gold:
            k = rng.choices((0, 1, 2), weights=self.config.group_probs)[0]
            extras = [f.triple for f in self.store.out_edges(triple[0])]
            extras = [t for t in dict.fromkeys(extras) if pool.usable((t,))]
            chosen = rng.sample(extras, min(k, len(extras)))
            pool.used.update(chosen)
            groups.append((triple, *chosen))
        texts = self.sentences(groups)
        for i, (group, text) in enumerate(zip(groups, texts)):
            if text is None and len(group) > 1:
                groups[i] = (group[0],)
                text = self.sentences([groups[i]])[0]
            if text is None:
                return f"gold sentence misses an entity of {group[0]}"
            texts[i] = text
        for group, text in zip(groups, texts):
            pool.add(group, text, None)
        return None

    def _add_distractors(self, pool: _Pool, gold: list[Triple], rng: random.Random,
                         dense_candidates: Sequence[int]) -> None:
        """Step 2: one third each of dense, same-head and random distractors; shortfalls are random."""
        n_total = self.config.distractors
        n_dense = n_total // 3 if self._dense_emb is not None else 0
        n_head = n_total // 3
        short = n_dense - pool.take((self._dense_groups[j] for j in dense_candidates), n_dense, "dense")
        short += n_head - pool.take(self._same_head_groups(gold, rng), n_head, "same-head")
        n_random = n_total - n_dense - n_head + short
        corpus = self.corpus()
        tries = 0
        while n_random > 0 and corpus and tries < 20:
            batch = [corpus[rng.randrange(len(corpus))] for _ in range(n_random * 3)]
            n_random -= pool.take(batch, n_random, "random")
            tries += 1

    def _record(self, ex: QAExample, source: str, paths: list[list[Triple]],
                pool: list[dict[str, Any]]) -> dict[str, Any] | Dropped:
        """Step 3: name the (shuffled) pool items, build and validate the graph, and choose the split."""
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
        cfg = self.config
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
            groups.extend(self._cut(list(dict.fromkeys(facts)), rng))
        rng.shuffle(groups)
        return groups


# ---------------------------------------------------------------------- named sources (the CLI)
KQAPRO_PROGRAMS = "kqapro-sample/sampled/sampled_200.json"


def _ground_kqapro(kb: str | None, data_root: str | Path | None, config: BuildConfig,
                   programs: str | Path | None = None) -> tuple[TripleStore, str, list[QAExample], Any]:
    """The KB store, source name, grounded examples and skip counts of ``build-dataset kqapro --kb kb``."""
    from graphhop.datasets import kgqa
    from graphhop.datasets.kqapro import ground_programs, load_programs
    from graphhop.kb.loaders import iter_triples

    root = kgqa.data_root(data_root)
    if not kb:
        raise InputError("kqapro needs --kb: a dataset name whose KB to ground in (e.g. wc-c) or a triple file")
    kb_file = Path(kb) if Path(kb).exists() else kgqa.kb_path(kb, root)
    store = TripleStore.from_facts(iter_triples(kb_file))
    progs = load_programs(Path(programs) if programs else root / KQAPRO_PROGRAMS)
    examples, skipped = ground_programs(progs, store, seed=config.seed, max_paths=config.max_paths)
    return store, f"kqapro/{kb_file.stem}", examples, skipped


def kqapro_splits(kb: str = "wc-c", data_root: str | Path | None = None, config: BuildConfig | None = None,
                  programs: str | Path | None = None) -> dict[str, str]:
    """``{program id: split}`` as ``build-dataset kqapro --kb kb`` assigns them (ungrounded programs: none)."""
    store, source, examples, _ = _ground_kqapro(kb, data_root, config := config or BuildConfig(), programs)
    builder = DatasetBuilder(store, config)
    builder.assign_splits([(source, examples)])
    return {ex.id[len("kqapro-"):].rsplit("-", 1)[0]: builder.splits[(source, ex.id)] for ex in examples}


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
        store, source, examples, skipped = _ground_kqapro(kb, data_root, config, programs)
        examples = examples[:limit] if limit else examples
        builder = DatasetBuilder(store, config, data_to_text, encoder)
        builder.assign_splits([(source, examples)])
        stats = write_dataset(builder.build(examples, source=source), out_dir, name, total=len(examples), progress=progress)
        for reason, n in skipped.items():
            stats["all"].dropped[f"program {reason}"] += n
        rewrite_stats(out_dir, stats)
        return stats
    spec = kgqa.DATASETS.get(name.lower())
    if spec is None:
        raise InputError(f"unknown dataset {name!r}; choose kqapro or one of {', '.join(kgqa.DATASETS)}")
    root = kgqa.data_root(data_root)
    store = TripleStore.from_facts(iter_triples(kgqa.kb_path(name, root)))
    path_source = None
    if spec.family == "metaqa":  # MetaQA has no gold paths: walk the question type's relation chain
        path_source = partial(kgqa.metaqa_gold_paths, store=store, max_paths=config.max_paths + 1)

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


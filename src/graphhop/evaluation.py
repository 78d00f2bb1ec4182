"""Evaluate retrievers on KGQA datasets: fact-level and answer-level MRR / Hits@1 / Hits@10.

* Fact level: a hit is any gold fact (a gold path triple, in either stored direction).
* Answer level: a hit is a fact whose head or tail is a gold answer entity (compared after name
  cleaning, case-insensitively). Hits@1 at answer level is "the top fact contains an answer".
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from graphhop.core import QAExample, Ranking, Retriever
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import DocStore, KnowledgeIndex, build_index, documents_from_facts
from graphhop.index.sparse import SparseOptions
from graphhop.kb.loaders import iter_triples
from graphhop.kb.verbalize import clean_entity
from graphhop.metrics.ranking import ranking_metrics

__all__ = [
    "MethodResult",
    "fact_qrels",
    "answer_qrels",
    "run_retriever",
    "evaluate_rankings",
    "evaluate_retrievers",
    "tie_share",
    "cache_dir",
    "dataset_index",
]


def _norm(name: str) -> str:
    return clean_entity(name).casefold()


def fact_qrels(examples: Sequence[QAExample], docs: DocStore) -> dict[str, set[str]]:
    """Gold fact ids per question; a gold triple also matches its stored inverse reading."""
    from graphhop.datasets.kgqa import equivalent_triples

    by_triple: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for d in docs.docs:
        if d.fact is not None:
            by_triple[d.fact.triple].append(d.id)
    out = {}
    for ex in examples:
        ids: set[str] = set()
        for triple in ex.gold_facts:
            for t in equivalent_triples(triple):
                ids.update(by_triple.get(t, ()))
        out[ex.id] = ids
    return out


def answer_qrels(examples: Sequence[QAExample], rankings: Mapping[str, Ranking], docs: DocStore) -> dict[str, set[str]]:
    """Per question, the retrieved fact ids whose head or tail is a gold answer."""
    out = {}
    for ex in examples:
        answers = {_norm(a) for a in ex.answers}
        hits = set()
        for hit in rankings.get(ex.id, ()):
            fact = docs[hit.id].fact
            if fact is not None and (_norm(fact.head) in answers or _norm(fact.tail) in answers):
                hits.add(hit.id)
        out[ex.id] = hits
    return out


def run_retriever(
    retriever: Retriever, examples: Sequence[QAExample], k: int = 1000, batch_size: int = 256, progress: bool = True, desc: str = ""
) -> tuple[dict[str, Ranking], float]:
    """Rankings per question id, and the wall time in seconds."""
    from tqdm.auto import tqdm

    rankings: dict[str, Ranking] = {}
    start = time.perf_counter()
    bar = tqdm(total=len(examples), desc=desc or getattr(retriever, "name", "retrieve"), unit="q", disable=not progress)
    for i in range(0, len(examples), batch_size):
        batch = examples[i : i + batch_size]
        for ex, ranking in zip(batch, retriever.search([e.question for e in batch], k)):
            rankings[ex.id] = ranking
        bar.update(len(batch))
    bar.close()
    return rankings, time.perf_counter() - start


@dataclass
class MethodResult:
    """Metrics of one method on one dataset."""

    method: str
    fact: dict[str, float] | None
    answer: dict[str, float]
    questions: int
    seconds: float
    extra: dict[str, float] = field(default_factory=dict)

    def row(self) -> dict[str, object]:
        """Flat dict for tables and JSON."""
        row: dict[str, object] = {"method": self.method, "questions": self.questions}
        for level, metrics in (("fact", self.fact), ("answer", self.answer)):
            for name, value in (metrics or {}).items():
                row[f"{level} {name}"] = round(value, 4)
        row["q/s"] = round(self.questions / self.seconds, 1) if self.seconds > 0 else None
        row.update(self.extra)
        return row


def evaluate_rankings(
    method: str, examples: Sequence[QAExample], rankings: Mapping[str, Ranking], docs: DocStore, seconds: float = 0.0
) -> MethodResult:
    """Fact-level metrics (when the examples have gold facts) and answer-level metrics."""
    has_gold = any(ex.gold_facts for ex in examples)
    fact = ranking_metrics(rankings, fact_qrels(examples, docs)) if has_gold else None
    answer = ranking_metrics(rankings, answer_qrels(examples, rankings, docs))
    return MethodResult(method, fact, answer, len(examples), seconds)


def evaluate_retrievers(
    examples: Sequence[QAExample],
    retrievers: Mapping[str, Retriever],
    docs: DocStore,
    k: int = 1000,
    progress: bool = True,
) -> list[MethodResult]:
    """Run every retriever at depth ``k`` and score it."""
    results = []
    for name, retriever in retrievers.items():
        rankings, seconds = run_retriever(retriever, examples, k=k, progress=progress, desc=name)
        result = evaluate_rankings(name, examples, rankings, docs, seconds)
        result.extra["ties@1"] = round(tie_share(rankings.values()), 4)
        results.append(result)
    return results


def tie_share(rankings) -> float:
    """Share of rankings whose first two hits have the same score (ties are broken by KB order)."""
    rankings = list(rankings)
    if not rankings:
        return 0.0
    return sum(1 for r in rankings if len(r) > 1 and r[0].score == r[1].score) / len(rankings)


def cache_dir() -> Path:
    """Where derived artefacts (dataset indexes) are kept: ``$GRAPHHOP_CACHE`` or ``~/.cache/graphhop``."""
    return Path(os.environ.get("GRAPHHOP_CACHE") or Path.home() / ".cache" / "graphhop")


def dataset_index(
    kb_file: Path,
    dense: DenseOptions | None = DenseOptions("flat"),
    model: str | None = None,
    root: Path | None = None,
    progress: bool = True,
) -> KnowledgeIndex:
    """Build once, then reuse, the index of a KB file (keyed by its path and *content*, the model and the
    options: a file copied again with the same bytes, e.g. data re-materialized with a new mtime, keeps its index)."""
    from graphhop.index.manifest import sha256_file
    from graphhop.models.encoder import canonical_model_name

    key = "|".join(
        [str(kb_file.resolve()), sha256_file(kb_file), canonical_model_name(model), str(dense and dense.cache_key()),
         str(SparseOptions().to_dict())]
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    path = (root or cache_dir() / "indexes") / f"{kb_file.stem}-{dense.kind if dense else 'sparse'}-{digest}"
    from graphhop.core import InputError
    from graphhop.index.cache import open_or_build, prune_cache
    from graphhop.index.encode import EncodingOptions

    def build(resume: bool) -> KnowledgeIndex:
        index = build_index(documents_from_facts(iter_triples(kb_file)), path, sparse=SparseOptions(), dense=dense,
                            model=model, overwrite=True, progress=progress, sources=[str(kb_file.resolve())],
                            encoding=EncodingOptions(resume=resume))
        try:  # indexes of deleted KB files (e.g. temp files); a failure here never fails the build
            prune_cache(path.parent, gone_only=True, min_age_s=600)
        except OSError:
            pass
        return index

    def build_resuming() -> KnowledgeIndex:
        """An interrupted encoding (e.g. the 129k-fact MetaQA KB) resumes from its checkpointed chunks."""
        try:
            return build(True)
        except InputError as exc:  # a checkpoint of another build (backend, chunk size): start over
            if "checkpoint" not in str(exc):
                raise
            return build(False)

    return open_or_build(path, build_resuming)

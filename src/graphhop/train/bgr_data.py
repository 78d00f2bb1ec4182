"""BGR's examples: builder/EntailmentBank records with candidate pools, gold graphs and cached encoder vectors."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from graphhop.graph import EvidenceGraph
from graphhop.retrieve.graphhop import CandidatePool, retrievable_graph, token_set

__all__ = ["BGRExample", "EmbeddingCache", "query_text", "load_examples", "add_other_positives"]


@dataclass
class BGRExample:
    """One question: its query text, candidate pool (with vectors) and retrievable gold graph."""

    id: str
    question: str
    query: str
    pool: CandidatePool
    question_vec: np.ndarray
    gold: EvidenceGraph
    depth: int
    graph_type: str
    source: str = ""
    _q_tokens: frozenset[str] | None = None
    #: open training: each teacher-forced prefix's retrieved candidate ids (:mod:`graphhop.train.bgr_open`)
    prefix_cands: dict[tuple[str, ...], list[str]] | None = None
    #: open training: each prefix's entity-link weight of its candidates (the matcher's ``link_feature``)
    prefix_links: dict[tuple[str, ...], dict[str, float]] | None = None

    @property
    def q_tokens(self) -> frozenset[str]:
        """Word set of the query (pair features)."""
        if self._q_tokens is None:
            self._q_tokens = token_set(self.query)
        return self._q_tokens


# ---------------------------------------------------------------------- encoding cache
class EmbeddingCache:
    """Text -> frozen encoder vector, persisted as ``<dir>/<model-hash>.npz`` (texts + matrix).
    ``backend`` (:data:`graphhop.models.backends.BACKENDS`): ``static`` gives the model2vec vectors
    the index's static backend writes (another vector space, cached under another key)."""

    def __init__(self, cache_dir: str | Path | None, model: str | None = None, batch_size: int = 64,
                 backend: str = "torch") -> None:
        from graphhop.models.backends import BACKENDS
        from graphhop.models.encoder import canonical_model_name

        if backend not in BACKENDS:
            from graphhop.core import InputError

            raise InputError(f"unknown encoder backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        self.model_name = canonical_model_name(model)
        self.model = model
        self.backend = backend
        self.batch_size = batch_size
        self.path = None
        self._vec: dict[str, np.ndarray] = {}
        if cache_dir is not None:
            key = hashlib.md5((self.model_name + ("" if backend == "torch" else f"|{backend}")).encode()).hexdigest()[:10]
            self.path = Path(cache_dir) / f"emb-{key}.npz"
            if self.path.exists():
                try:
                    data = np.load(self.path, allow_pickle=False)
                    texts = json.loads(str(data["texts"]))
                    mat = data["vectors"]
                    self._vec = {t: mat[i] for i, t in enumerate(texts)}
                except (OSError, ValueError, KeyError):  # a damaged cache is only a cache: re-encode
                    self._vec = {}
        self._dirty = False

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Vectors of ``texts`` (normalized), encoding only texts not seen before."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._vec))
        if todo:
            from graphhop.models.backends import load_backend

            enc = load_backend(self.backend, self.model)
            mat = enc.encode(todo, batch_size=self.batch_size, convert_to_numpy=True, normalize_embeddings=True,
                             show_progress_bar=progress)
            for t, v in zip(todo, np.asarray(mat, dtype=np.float32)):
                self._vec[t] = v
            self._dirty = True
        if not texts:
            return np.zeros((0, next(iter(self._vec.values())).shape[0] if self._vec else 384), dtype=np.float32)
        return np.stack([self._vec[t] for t in texts]).astype(np.float32)

    def save(self) -> None:
        """Persist new vectors (atomic replace), merged with what another process saved meanwhile."""
        if self.path is None or not self._dirty:
            return
        from graphhop.io import atomic_file

        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            try:
                data = np.load(self.path, allow_pickle=False)
                mat = data["vectors"]
                for i, t in enumerate(json.loads(str(data["texts"]))):
                    if t not in self._vec:
                        self._vec[t] = mat[i]
            except (OSError, ValueError, KeyError):
                pass
        texts = list(self._vec)
        with atomic_file(self.path, "wb") as fh:
            np.savez(fh, texts=np.array(json.dumps(texts)), vectors=np.stack([self._vec[t] for t in texts]))
        self._dirty = False


# ---------------------------------------------------------------------- examples
def query_text(rec: dict[str, Any]) -> str:
    """The text encoded as the question: the normalized question; for EntailmentBank the
    hypothesis (a task input there) followed by the question."""
    from graphhop.kb.verbalize import normalize_question

    if str(rec.get("source", "")).startswith("entailmentbank"):
        hyp = next((n.get("text", "") for n in rec["graph"].get("nodes", []) if n.get("kind") == "hypothesis"), "")
        return f"{hyp} {rec['question']}".strip()
    return normalize_question(rec["question"])


def load_examples(records: Iterable[dict[str, Any]], cache: EmbeddingCache, limit: int | None = None,
                  progress: bool = False) -> list[BGRExample]:
    """Builder/EntailmentBank records -> :class:`BGRExample` (vectors from ``cache``)."""
    recs = []
    for rec in records:
        if limit is not None and len(recs) >= limit:
            break
        if rec.get("evidence"):
            recs.append(rec)
    texts = [query_text(r) for r in recs] + [e["text"] for r in recs for e in r["evidence"]]
    cache.encode(texts, progress=progress)
    cache.save()
    out = []
    for rec in recs:
        ev = rec["evidence"]
        pool = CandidatePool([e["id"] for e in ev], [e["text"] for e in ev], cache.encode([e["text"] for e in ev]),
                             [e.get("facts", []) for e in ev])
        gold = retrievable_graph(EvidenceGraph.from_json(rec["graph"], rec["id"]), pool.ids)
        depth = int(rec.get("hops") or 0) or gold.depth()
        q = query_text(rec)
        out.append(BGRExample(rec["id"], rec["question"], q, pool, cache.encode([q])[0], gold, depth,
                              gold.graph_type() if len(gold) else "empty", str(rec.get("source", ""))))
    return out


def add_other_positives(examples: Sequence[BGRExample], n: int, seed: int = 13) -> list[BGRExample]:
    """Training pools with ``n`` more distractors each: gold evidence of *other* questions (seeded),
    so a sentence that is a positive somewhere is also a negative elsewhere and the matcher cannot
    learn which sentences tend to be positives. Texts already in the pool are not added twice."""
    golds = [(i, e) for i, ex in enumerate(examples) for e in ex.gold.evidence_ids if e in ex.pool.ids]
    out = []
    for i, ex in enumerate(examples):
        if n <= 0 or len(golds) < 2:
            out.append(ex)
            continue
        rng = random.Random(f"{seed}|{ex.id}")
        have = set(ex.pool.texts)
        ids, texts, vecs, facts = list(ex.pool.ids), list(ex.pool.texts), [ex.pool.vectors], list(ex.pool.facts)
        for j, e in rng.sample(golds, min(len(golds), 4 * n)):
            other = examples[j].pool
            k = other.ids.index(e)
            if j == i or other.texts[k] in have or len(ids) - len(ex.pool.ids) >= n:
                continue
            have.add(other.texts[k])
            ids.append(f"other:{examples[j].id}:{e}"), texts.append(other.texts[k]), facts.append(other.facts[k])
            vecs.append(other.vectors[k : k + 1])
        pool = CandidatePool(ids, texts, np.concatenate(vecs), facts)
        added = ids[len(ex.pool.ids):]  # open pools: the added sentences are candidates of every prefix
        cands = None if ex.prefix_cands is None else {p: c + added for p, c in ex.prefix_cands.items()}
        out.append(BGRExample(ex.id, ex.question, ex.query, pool, ex.question_vec, ex.gold, ex.depth, ex.graph_type,
                              ex.source, prefix_cands=cands, prefix_links=ex.prefix_links))
    return out

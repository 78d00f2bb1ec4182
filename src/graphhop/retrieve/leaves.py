"""Leaf retrieval from a whole sentence corpus, conditioned on the leaves found so far (EntailmentBank task 3).

Task 3 of EntailmentBank gives a hypothesis (question + answer as a statement) and asks for the leaf
sentences of its entailment tree out of the whole WorldTree corpus (11,940 sentences). Many leaves share
few words with the hypothesis: they are reached through another leaf ("leo is a kind of constellation" ->
"a constellation contains stars"). :class:`LeafRetriever` therefore selects leaves greedily, one per step:

1. candidates come from the **whole index** at every step: dense top ``pool`` of the query (MiniLM, and
   MiniLM through the head's trained linear adapters), BM25 top ``pool`` of the query, and dense top
   ``pool`` of the query vector plus the mean vector of the leaves selected so far (the path so far, as
   MDR's query, in vector form);
2. each candidate gets :func:`leaf_features` (encoder cosines to the query and to the selected leaves,
   BM25 and ranks, word overlaps: query words it covers that no selected leaf covers yet, "bridge" words it
   shares with the selected leaves but not with the query, how often it was a gold leaf in training);
3. a small learned scorer (:class:`LeafHead`: an MLP over those features, trained by
   :mod:`graphhop.train.leaves` on EntailmentBank train trees) gives each a probability; the best is added
   unless its probability is below the head's threshold (chosen on a carve of train), up to ``max_leaves``.

So the set size is learned (the stop), not given. The shipped head is in ``graphhop/weights/eb-leaves``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import Hit, InputError, Ranking, Stage

__all__ = ["FEATURES", "LeafHead", "LeafSearch", "LeafRetriever", "content_words", "leaf_features", "DEFAULT_HEAD",
           "FINE_TUNED_HEAD", "default_head", "leaf_graphs"]

#: The shipped head (trained on EntailmentBank train trees; see RESULTS, issue 13, session 3).
DEFAULT_HEAD = Path(__file__).resolve().parent.parent / "weights" / "eb-leaves"
#: The head trained over the index of the fine-tuned encoder (:mod:`graphhop.train.leaf_encoder`; session 4).
FINE_TUNED_HEAD = Path(__file__).resolve().parent.parent / "weights" / "eb-leaves-ft"


def default_head(index: Any) -> Path:
    """The shipped head that goes with ``index``'s encoder: the fine-tuned one's head for an index encoded by
    a fine-tuned leaf encoder (a cache dir named ``eb-leaves-*``), else the frozen MiniLM's."""
    model = Path(str(index.model or "")).name
    return FINE_TUNED_HEAD if model.startswith("eb-leaves-") and FINE_TUNED_HEAD.is_dir() else DEFAULT_HEAD

#: Feature names, in the order of :func:`leaf_features`' columns.
FEATURES = ("cos_query", "cos_path", "max_cos_selected", "bm25_norm", "dense_rrank", "bm25_rrank", "prior",
            "share_in_query", "new_query_cover", "bridge_share", "step", "first_step", "inv_length", "cos_adapted",
            "adapted_rrank")


def content_words(text: str) -> frozenset[str]:
    """Stemmed content words of ``text`` (the index's analyzer, stop words dropped, Snowball stems)."""
    import snowballstemmer

    from graphhop.index.analysis import analyze

    stem = _STEMMER.setdefault("en", snowballstemmer.stemmer("english"))
    return frozenset(stem.stemWord(w) for w in analyze(text) if len(w) > 1)


_STEMMER: dict[str, Any] = {}


@dataclass
class LeafHead:
    """The learned part: an MLP over :data:`FEATURES` (weights as numpy arrays), the leaf counts of the
    training trees (``prior``: corpus id -> times a gold leaf), the stop threshold and the step cap, and
    the linear adapters of the query and sentence vectors (``adapter_q``, ``adapter_d``: 384 x 384, trained
    contrastively over the whole corpus; identity when absent)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    prior: dict[str, float] = field(default_factory=dict)
    threshold: float = 0.5
    max_leaves: int = 8
    card: dict[str, Any] = field(default_factory=dict)
    adapter_q: np.ndarray | None = None
    adapter_d: np.ndarray | None = None
    mode: str = "greedy"

    def prob(self, feats: np.ndarray) -> np.ndarray:
        """Match probability of each feature row."""
        hidden = np.maximum(feats @ self.w1 + self.b1, 0.0)
        return 1.0 / (1.0 + np.exp(-(hidden @ self.w2 + self.b2)))

    def save(self, out: str | Path) -> Path:
        """Write ``head.npz`` (float16 weights) and ``head.json`` (prior, threshold, card) atomically."""
        from graphhop.io import atomic_write_text

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / "head.tmp.npz"
        adapters = {} if self.adapter_q is None else {"adapter_q": self.adapter_q.astype(np.float16),
                                                      "adapter_d": self.adapter_d.astype(np.float16)}
        np.savez_compressed(tmp, w1=self.w1.astype(np.float16), b1=self.b1.astype(np.float16),
                            w2=self.w2.astype(np.float16), b2=np.float16(self.b2), **adapters)
        tmp.replace(out / "head.npz")
        meta = {"features": list(FEATURES), "threshold": self.threshold, "max_leaves": self.max_leaves, "mode": self.mode,
                "card": self.card, "prior": {k: round(v, 3) for k, v in sorted(self.prior.items())}}
        atomic_write_text(out / "head.json", json.dumps(meta, ensure_ascii=False, indent=0))
        return out

    @classmethod
    def load(cls, path: str | Path | None = None) -> "LeafHead":
        """Load a head dir (default: the shipped one); a missing or foreign dir is an error."""
        path = Path(path) if path is not None else DEFAULT_HEAD
        if not (path / "head.npz").exists() or not (path / "head.json").exists():
            raise InputError(f"{path}: no leaf head there (head.npz + head.json; see `graphhop train leaves`)")
        meta = json.loads((path / "head.json").read_text(encoding="utf-8"))
        if meta.get("features") != list(FEATURES):
            raise InputError(f"{path}: the head was trained on other features ({meta.get('features')})")
        arr = np.load(path / "head.npz")
        adapter = {k: arr[k].astype(np.float32) for k in ("adapter_q", "adapter_d") if k in arr}
        return cls(arr["w1"].astype(np.float32), arr["b1"].astype(np.float32), arr["w2"].astype(np.float32),
                   float(arr["b2"]), {k: float(v) for k, v in meta.get("prior", {}).items()},
                   float(meta["threshold"]), int(meta["max_leaves"]), meta.get("card", {}), **adapter,
                   mode=str(meta.get("mode", "greedy")))


def _unit(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(norm, 1e-12)).astype(np.float32)


class LeafSearch:
    """Candidates and features over a sentence index (BM25 + flat dense part, e.g. WorldTree's)."""

    def __init__(self, index: Any, pool: int = 30, adapter_q: np.ndarray | None = None,
                 adapter_d: np.ndarray | None = None) -> None:
        from graphhop.retrieve.bm25 import BM25Retriever
        from graphhop.retrieve.dense import DenseRetriever

        if not (index.has_sparse and index.has_dense):
            raise InputError(f"{index.path}: leaf retrieval needs an index with BM25 and dense parts")
        self.index, self.pool = index, pool
        self.bm25 = BM25Retriever(index)
        self.dense = DenseRetriever(index)
        faiss_index = index.dense.index
        vecs = np.asarray(faiss_index.reconstruct_n(0, faiss_index.ntotal), dtype=np.float32)
        self.vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        self.adapter_q = adapter_q
        self.adapted = self.vecs if adapter_d is None else _unit(self.vecs @ adapter_d)
        self.ids = [d.id for d in index.docs.docs]
        self.pos = {d: i for i, d in enumerate(self.ids)}
        self._words: dict[int, frozenset[str]] = {}

    def with_adapters(self, adapter_q: np.ndarray | None, adapter_d: np.ndarray | None) -> "LeafSearch":
        """The same search through other adapters, sharing the corpus vectors and word cache (no reload)."""
        import copy

        other = copy.copy(self)
        other.adapter_q = adapter_q
        other.adapted = self.vecs if adapter_d is None else _unit(self.vecs @ adapter_d)
        return other

    def words(self, i: int) -> frozenset[str]:
        """Content words of corpus row ``i`` (cached)."""
        if i not in self._words:
            self._words[i] = content_words(self.index.docs.docs[i].text)
        return self._words[i]

    def encode(self, queries: Sequence[str]) -> np.ndarray:
        """Normalized query vectors (the index's encoder)."""
        vecs = np.asarray(self.dense.encode_queries(list(queries)), dtype=np.float32)
        return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)

    def first_stage(self, queries: Sequence[str], qvecs: np.ndarray) -> list[dict[str, Any]]:
        """Per query: dense and BM25 top ``pool`` (corpus rows, ranks, BM25 scores)."""
        out = []
        bm = self.bm25.search(list(queries), self.pool)
        for q, qv, hits in zip(queries, qvecs, bm):
            dense = np.argsort(-(self.vecs @ qv), kind="stable")[: self.pool]
            aq = qv if self.adapter_q is None else _unit(qv @ self.adapter_q)
            adapted = np.argsort(-(self.adapted @ aq), kind="stable")[: self.pool]
            bm_rows = [self.pos[h.id] for h in hits if h.id in self.pos]
            top = max((h.score for h in hits), default=1.0) or 1.0
            out.append({"query": q, "qvec": qv, "words": content_words(q), "aqvec": aq,
                        "dense_rank": {int(r): k for k, r in enumerate(dense)},
                        "adapted_rank": {int(r): k for k, r in enumerate(adapted)},
                        "bm25_rank": {r: k for k, r in enumerate(bm_rows)},
                        "bm25": {self.pos[h.id]: h.score / top for h in hits if h.id in self.pos}})
        return out

    def candidates(self, state: dict[str, Any], selected: Sequence[int]) -> tuple[list[int], np.ndarray]:
        """Candidate rows for the next leaf (never a selected one) and the path query vector."""
        path_vec = state["qvec"] + (self.vecs[list(selected)].mean(0) if selected else 0.0)
        path_vec = path_vec / max(float(np.linalg.norm(path_vec)), 1e-12)
        rows = list(state["dense_rank"]) + list(state["bm25_rank"]) + list(state["adapted_rank"])
        if selected:
            rows += [int(r) for r in np.argsort(-(self.vecs @ path_vec), kind="stable")[: self.pool]]
        chosen = set(selected)
        return [r for r in dict.fromkeys(rows) if r not in chosen], path_vec


def leaf_features(search: LeafSearch, state: dict[str, Any], rows: Sequence[int], selected: Sequence[int],
                  path_vec: np.ndarray, prior: dict[str, float]) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate ``rows`` given the ``selected`` leaves (see the module doc)."""
    if not rows:
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    cand = search.vecs[list(rows)]
    qwords = state["words"]
    covered = frozenset().union(*(search.words(s) for s in selected)) if selected else frozenset()
    sel_words = covered - qwords
    max_sel = (cand @ search.vecs[list(selected)].T).max(1) if selected else np.zeros(len(rows), dtype=np.float32)
    out = np.zeros((len(rows), len(FEATURES)), dtype=np.float32)
    out[:, 0] = cand @ state["qvec"]
    out[:, 1] = cand @ path_vec
    out[:, 2] = max_sel
    out[:, 13] = search.adapted[list(rows)] @ state["aqvec"]
    for j, r in enumerate(rows):
        words = search.words(r)
        n = max(1, len(words))
        dr, br = state["dense_rank"].get(r), state["bm25_rank"].get(r)
        out[j, 3] = state["bm25"].get(r, 0.0)
        out[j, 4] = 0.0 if dr is None else 1.0 / (1.0 + dr)
        out[j, 5] = 0.0 if br is None else 1.0 / (1.0 + br)
        out[j, 6] = math.log1p(prior.get(search.ids[r], 0.0))
        out[j, 7] = len(words & qwords) / n
        out[j, 8] = len((words & qwords) - covered) / max(1, len(qwords))
        out[j, 9] = len(words & sel_words) / n
        out[j, 12] = 1.0 / n
        ar = state["adapted_rank"].get(r)
        out[j, 14] = 0.0 if ar is None else 1.0 / (1.0 + ar)
    out[:, 10] = len(selected) / 8.0
    out[:, 11] = float(not selected)
    return out


class LeafRetriever(Stage):
    """Greedy leaf selection over the whole index with a :class:`LeafHead` (see the module doc);
    ``mode="ranked"`` (an ablation the head's selection may choose) keeps the first step's ranking instead.

    :meth:`select` returns the chosen leaves (best first, with their probabilities); :meth:`search`
    ranks them first, then the rest of the first step's candidates; :meth:`retrieve_graph` gives the
    evidence graph ``question -> leaf`` (EntailmentBank's leaf set: the tree's intermediate conclusions
    are generated, not retrieved)."""

    name = "leaves"

    def __init__(self, index: Any, head: LeafHead | str | Path | None = None, pool: int = 30,
                 threshold: float | None = None, max_leaves: int | None = None, mode: str | None = None,
                 search: LeafSearch | None = None) -> None:
        self.head = head if isinstance(head, LeafHead) else LeafHead.load(head or default_head(index))
        trained_over = self.head.card.get("encoder")
        if trained_over and trained_over != Path(str(index.model or "")).name:
            import warnings

            warnings.warn(f"the leaf head was trained over encoder {trained_over}, the index is encoded by "
                          f"{index.model}: its cosine features will be off", stacklevel=2)
        self.search_engine = (LeafSearch(index, pool, self.head.adapter_q, self.head.adapter_d) if search is None
                              else search.with_adapters(self.head.adapter_q, self.head.adapter_d))
        self.threshold = self.head.threshold if threshold is None else threshold
        self.max_leaves = self.head.max_leaves if max_leaves is None else max_leaves
        self.mode = self.head.mode if mode is None else mode
        if self.mode not in ("greedy", "ranked"):
            raise InputError(f"leaf selection mode must be greedy or ranked, not {self.mode!r}")

    def rescore(self, state: dict[str, Any], rows: list[int], probs: np.ndarray) -> np.ndarray:
        """The step's scores of the candidate ``rows`` from the head's probabilities (here: unchanged; a subclass
        mixes in another scorer, e.g. :class:`graphhop.retrieve.leaves_fused.FusedLeafRetriever`)."""
        return probs

    def select_states(self, states: Sequence[dict[str, Any]]) -> list[tuple[list[Hit], Ranking]]:
        """For each first-stage state: (selected leaves, the first step's ranking of every candidate)."""
        s, out = self.search_engine, []
        for state in states:
            selected: list[int] = []
            hits: list[Hit] = []
            first: Ranking = []
            while len(selected) < self.max_leaves:
                rows, path_vec = s.candidates(state, selected)
                if not rows:
                    break
                probs = self.rescore(state, rows, self.head.prob(leaf_features(s, state, rows, selected, path_vec,
                                                                               self.head.prior)))
                order = np.argsort(-probs, kind="stable")
                if not selected:
                    first = [Hit(s.ids[rows[i]], float(probs[i])) for i in order]
                    if self.mode == "ranked":  # no conditioning: the first step's ranking, cut by the stop
                        hits = first[:1] + [h for h in first[1:self.max_leaves] if h.score >= self.threshold]
                        break
                best = int(order[0])
                if selected and probs[best] < self.threshold:
                    break
                selected.append(rows[best])
                hits.append(Hit(s.ids[rows[best]], float(probs[best])))
            out.append((hits, first))
        return out

    def select(self, queries: Sequence[str]) -> list[tuple[list[Hit], Ranking]]:
        """Selected leaves and first-step ranking per query (the query: hypothesis and/or question)."""
        queries = list(queries)
        return self.select_states(self.search_engine.first_stage(queries, self.search_engine.encode(queries)))

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The selected leaves first, then the first step's other candidates, ``k`` in all."""
        out = []
        for hits, first in self.select(queries):
            chosen = {h.id for h in hits}
            out.append((hits + [h for h in first if h.id not in chosen])[:k])
        return out

    def retrieve_graph(self, questions: Sequence[str]) -> list[Any]:
        """Per question, the selected leaves as an evidence graph ``question -> leaf`` (node score = probability)."""
        questions = list(questions)
        return leaf_graphs(questions, [hits for hits, _ in self.select(questions)], self.search_engine.index.docs)


def leaf_graphs(questions: Sequence[str], leaf_sets: Sequence[Sequence[Hit]], docs: Any) -> list[Any]:
    """One evidence graph ``question -> leaf`` per question (EntailmentBank's leaf set: the tree's intermediate
    conclusions are generated, not retrieved); node score = the leaf's score; ``docs``: id -> document."""
    from graphhop.graph import EvidenceGraph

    out = []
    for question, hits in zip(questions, leaf_sets):
        graph = EvidenceGraph(question, text_evidence=True)
        for h in hits:
            graph.add_evidence(h.id, docs[h.id].text)
            graph.g.nodes[h.id]["score"] = h.score
            graph.add_edge(graph.root, h.id)
        out.append(graph)
    return out

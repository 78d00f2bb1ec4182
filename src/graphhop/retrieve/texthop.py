"""Evidence graphs over a whole text index, hop by hop (the open setting: no candidate pool).

At every hop the candidates for the next evidence node come from the **full index**:

* dense and BM25 search with ``question [SEP] evidence_1 [SEP] ...`` (the path so far) as the query,
  fused by reciprocal rank (MDR's query, GoldEn's sparse search), and
* **entity links** (GRR's edges): the passages whose *title* the path's last passage mentions; in an
  index without titles, the sentences that share a proper-name mention with it (names held by more
  than ``max_df`` sentences are not links).

Candidates are scored by the cosine between the path query and the candidate (``title: text``, the
bundled encoder; vectors cached per passage), plus ``link_bonus`` for a linked one. A beam of
``beam`` paths per depth is kept (score = the sum of its hops' scores, as MDR); the evidence graph is
the union of every depth's beam (paths sharing a prefix share its nodes), so a reader can read a path
of any length. :class:`HopSearch` (candidates) and :class:`EntityLinks` are reused by the graph
retrievers (BGR, GoldEn, MDR, GRR) in the open setting.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from graphhop.core import Hit, Ranking, ranked_ids
from graphhop.graph import EvidenceGraph, TextPath
from graphhop.index.directory import KnowledgeIndex
from graphhop.index.links import EntityLinks

__all__ = ["EntityLinks", "HopSearch", "TextPath", "TextHopRetriever", "ChainPaths", "mdr_paths", "golden_paths"]

class HopSearch:
    """Next-hop candidates from the whole index: dense + BM25 (RRF) with the path as the query, plus
    entity links; scored by the encoder cosine to the path query (+ ``link_bonus``). With
    ``links_only`` every hop after the first follows entity links alone: the GRR-style baseline
    (Asai et al. 2020 walk Wikipedia's hyperlinks from a TF-IDF first hop; here the links are title
    mentions and the scorer is the untrained cosine, not GRR's trained recurrent retriever)."""

    def __init__(self, index: KnowledgeIndex, depth: int = 10, link_bonus: float = 0.1, links: bool = True,
                 max_words: int = 100, links_only: bool = False, mentions: Any = None) -> None:
        from graphhop.core import InputError
        from graphhop.models.encoder import canonical_model_name, load_encoder
        from graphhop.retrieve.bm25 import BM25Retriever
        from graphhop.retrieve.dense import DenseRetriever

        if not index.has_sparse and not index.has_dense:
            raise InputError(f"{index.path}: has neither a BM25 nor a dense index")
        self.index = index
        self.depth = depth
        self.link_bonus = link_bonus
        self.max_words = max_words
        self.bm25 = BM25Retriever(index) if index.has_sparse else None
        self.dense = DenseRetriever(index) if index.has_dense else None
        model = index.model if index.has_dense else None
        self.encoder = self.dense.encoder if self.dense else load_encoder(
            None if model in (None, canonical_model_name(None)) else model)
        self.entity_links = EntityLinks(index) if (links or links_only) and mentions is None else None
        self.links_only = links_only
        # a MentionIndex: gazetteer entity links, also from the question (hop 1); with links_only, a hop
        # that has linked passages takes them alone (dense + BM25 only where nothing is linked)
        self.mentions = mentions
        self._vecs: dict[str, np.ndarray] = {}

    def text(self, doc_id: str) -> str:
        """``title: text`` (first ``max_words`` words): what a path adds to the next query."""
        doc = self.index.docs[doc_id]
        body = " ".join(doc.text.replace("[SEP]", " ").split()[: self.max_words])
        return f"{doc.title}: {body}" if doc.title else body

    def query(self, question: str, path: Sequence[str]) -> str:
        """``question [SEP] evidence_1 [SEP] ...``."""
        return " [SEP] ".join([question, *(self.text(d) for d in path)])

    def vectors(self, doc_ids: Sequence[str]) -> np.ndarray:
        """Normalized vectors of passages: the dense index's own (FAISS ``reconstruct``), else encoded; cached."""
        missing = [d for d in dict.fromkeys(doc_ids) if d not in self._vecs]
        if missing and self.dense is not None:
            faiss_index = self.index.dense.index
            for d in missing:
                v = np.asarray(faiss_index.reconstruct(self.index.docs.position(d)), dtype=np.float32)
                self._vecs[d] = v / max(float(np.linalg.norm(v)), 1e-12)
        elif missing:
            vecs = self.encoder.encode([self.text(d) for d in missing], convert_to_numpy=True, normalize_embeddings=True)
            self._vecs.update(zip(missing, np.asarray(vecs, dtype=np.float32)))
        return np.stack([self._vecs[d] for d in doc_ids]) if doc_ids else np.zeros((0, 1), dtype=np.float32)

    def encode_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Normalized query vectors (the question normalized as the dense retriever does)."""
        from graphhop.kb.verbalize import normalize_question

        vecs = np.asarray(self.encoder.encode([normalize_question(q) for q in queries], convert_to_numpy=True),
                          dtype=np.float32)
        return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)

    def first_stage(self, queries: Sequence[str], qvecs: np.ndarray) -> list[Ranking]:
        """Dense and BM25 top ``depth`` of each query, fused by reciprocal rank."""
        from graphhop.pipeline.ops import rrf

        sources = []
        if self.bm25 is not None:
            sources.append(self.bm25.search(list(queries), self.depth))
        if self.dense is not None:
            sources.append(self.dense.search_vectors(qvecs, self.depth))
        return [rrf([src[i] for src in sources], self.depth) for i in range(len(queries))]

    def linked(self, question: str, path: Sequence[str]) -> dict[str, float]:
        """Entity-link candidates of ``path``: with a :class:`~graphhop.retrieve.mention_links.MentionIndex`,
        the passages naming the question's entities (hop 1) or the last passage's bridge entities; else the
        title / proper-name links of the last passage (none at hop 1); each with its weight (of ``link_bonus``)."""
        if self.mentions is not None:
            return self.mentions.linked(question, path)
        return dict.fromkeys(self.entity_links.links(path[-1]), 1.0) if path and self.entity_links is not None else {}

    def answer_candidates(self, question: str, k: int, reach: int = 1) -> Ranking:
        """Where the answer may be stated (backward BGR's first step): the question's **relation words**
        (its words outside entity names, :func:`~graphhop.retrieve.bgr_relation.relation_words`: the asked
        relations, not the unnamed answer) as the dense + BM25 query, plus the passages within ``reach``
        entity links of the question's entities (:meth:`MentionIndex.neighbourhood
        <graphhop.retrieve.mention_links.MentionIndex.neighbourhood>`, + ``link_bonus``); scored by the
        cosine to the relation-word query; the top ``k``. Without mention links: the question's first stage."""
        from graphhop.retrieve.bgr_relation import relation_words

        words = relation_words(self.mentions, question) if self.mentions is not None else ()
        query = " ".join(words) or question
        qv = self.encode_queries([query])[0]
        near = self.mentions.neighbourhood(question, reach) if self.mentions is not None else {}
        ids = list(dict.fromkeys([h.id for h in self.first_stage([query], qv[None, :])[0]] + list(near)))
        if not ids:
            return []
        scores = self.vectors(ids) @ qv + self.link_bonus * np.array([d in near for d in ids], dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:k]
        return [Hit(ids[i], float(scores[i])) for i in order]

    def candidates(self, question: str, paths: Sequence[Sequence[str]], k: int) -> list[Ranking]:
        """The top ``k`` next nodes of each path (never a node already on it), best first."""
        queries = [self.query(question, p) for p in paths]
        qvecs = self.encode_queries(queries)
        out: list[Ranking] = []
        for path, ranking, qv in zip(paths, self.first_stage(queries, qvecs), qvecs):
            linked = self.linked(question, path)
            only = self.links_only and (bool(path) if self.mentions is None else bool(linked))
            found = [] if only else [h.id for h in ranking]
            ids = [d for d in dict.fromkeys(found + sorted(linked)) if d not in path]
            if not ids:
                out.append([])
                continue
            scores = self.vectors(ids) @ qv + np.array([self.link_bonus * linked.get(d, 0.0) for d in ids])
            order = np.argsort(-scores, kind="stable")[:k]
            out.append([Hit(ids[i], float(scores[i])) for i in order])
        return out


class TextHopRetriever:
    """Beam search over paths, hop by hop over the whole index; implements ``retrieve_graph``."""

    name = "texthop"

    def __init__(self, search: HopSearch, hops: int = 3, beam: int = 5, branch: int = 4) -> None:
        self.search = search
        self.hops = hops
        self.beam = beam
        self.branch = branch

    def text(self, doc_id: str) -> str:
        """What a reader reads of a passage (``title: text``)."""
        return self.search.text(doc_id)

    def title(self, doc_id: str) -> str:
        """A passage's title ("" when it has none)."""
        return self.search.index.docs[doc_id].title

    def retrieve_paths(self, question: str) -> list[list[TextPath]]:
        """The beam at every depth (``[depth 1 paths, depth 2 paths, ...]``), best first."""
        first = self.search.candidates(question, [()], self.beam)[0]
        beams = [[TextPath((h.id,), h.score) for h in first]]
        for _ in range(1, self.hops):
            prev = beams[-1]
            if not prev:
                break
            grown: dict[tuple[str, ...], TextPath] = {}
            for path, ranking in zip(prev, self.search.candidates(question, [p.ids for p in prev], self.branch)):
                for h in ranking:
                    ids = path.ids + (h.id,)
                    grown[ids] = TextPath(ids, path.score + h.score)
            beams.append(sorted(grown.values(), key=lambda p: -p.score)[: self.beam])
        return beams

    def graph_from_paths(self, question: str, paths: Sequence[TextPath]) -> EvidenceGraph:
        """The union of ``paths`` as an evidence graph (node score = best hop score seen)."""
        graph = EvidenceGraph(question, text_evidence=True)
        for path in paths:
            prev = graph.root
            for doc_id in path.ids:
                if doc_id not in graph.g:
                    doc = self.search.index.docs[doc_id]
                    graph.add_evidence(doc_id, self.search.text(doc_id))
                    graph.g.nodes[doc_id]["title"] = doc.title
                if prev != doc_id and not _reaches(graph, doc_id, prev):
                    graph.add_edge(prev, doc_id)
                prev = doc_id
        return graph

    def rank(self, questions: Sequence[str], k: int = 10) -> list[Ranking]:
        """Passages ranked by the paths they lie on (every depth's beam, best path first, each path's
        passages in order), then the first stage's hits of the question to fill ``k``."""
        out = []
        for q in questions:
            paths = sorted((p for beam in self.retrieve_paths(q) for p in beam), key=lambda p: -p.score)
            fill = self.search.first_stage([q], self.search.encode_queries([q]))[0]
            out.append(ranked_ids([d for p in paths for d in p.ids] + [h.id for h in fill], k))
        return out

    def retrieve_graph(self, question: str) -> EvidenceGraph:
        """The evidence graph of ``question`` (every depth's beam)."""
        return self.graph_from_paths(question, [p for beam in self.retrieve_paths(question) for p in beam])


class ChainPaths(TextHopRetriever):
    """A chain retriever that searches the whole index at every hop (MDR's beam of dense chains, GoldEn's
    hop loop) seen as reader paths: ``chains(question)`` gives its :class:`TextPath` list, best first; the
    graph and the passage texts are :class:`TextHopRetriever`'s."""

    def __init__(self, search: HopSearch, chains: Any, name: str) -> None:
        super().__init__(search, hops=1)
        self.chains = chains
        self.name = name

    def retrieve_paths(self, question: str) -> list[list[TextPath]]:
        """One beam: the retriever's paths."""
        return [list(self.chains(question))]


def mdr_paths(mdr: Any) -> Any:
    """``question -> paths`` of an :class:`~graphhop.retrieve.mdr.MDRRetriever`: its final beam of chains
    (each hop a dense search of the whole index with ``question [SEP] chain so far``)."""
    return lambda question: [TextPath(c.ids, c.score) for c in mdr.retrieve_chains([question])[0]]


def golden_paths(golden: Any, branch: int = 4) -> Any:
    """``question -> paths`` of a :class:`~graphhop.retrieve.golden.GoldEnRetriever`: hop 1's top
    ``branch`` hits, and hop 1's best hit followed by each of the next hop's top ``branch`` (the passage
    the next query was conditioned on, with :class:`~graphhop.retrieve.golden.PathQueryGenerator`)."""

    def paths(question: str) -> list[TextPath]:
        trace = golden.retrieve([question], branch)[0]
        if not trace.hops:
            return []
        first = trace.hops[0].hits[:branch]
        out = [TextPath((h.id,), h.score) for h in first]
        prefix = (first[0].id,) if first else ()
        for rec in trace.hops[1:]:
            fresh = [h for h in rec.hits if h.id not in prefix][:branch]
            out += [TextPath(prefix + (h.id,), first[0].score + h.score) for h in fresh]
            prefix = prefix + (fresh[0].id,) if fresh else prefix
        return sorted(out, key=lambda p: -p.score)

    return paths


def _reaches(graph: EvidenceGraph, source: str, target: str) -> bool:
    import networkx as nx

    return source in graph.g and target in graph.g and nx.has_path(graph.g, source, target)


def path_text(search: HopSearch, path: Sequence[str]) -> str:
    """A path's passages joined (what the reader reads)."""
    return " ".join(search.text(d) if search.text(d).endswith((".", "!", "?")) else search.text(d) + "." for d in path)


def describe(paths: Sequence[TextPath]) -> list[dict[str, Any]]:
    """Paths as JSON-ready dicts (for traces)."""
    return [{"ids": list(p.ids), "score": round(p.score, 4)} for p in paths]

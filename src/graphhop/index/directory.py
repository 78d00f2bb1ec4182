"""One knowledge index on disk: documents, a BM25 index and/or a dense index, and a manifest.

Layout of an index directory::

    manifest.json   format version, kind, model, dim, counts, options, sha256 of every file
    docs.jsonl      one document per line: id, title, text (+ head/relation/tail for facts)
    sparse/         tantivy BM25 index (optional)
    dense.faiss     FAISS index (optional)

The directory is written atomically (temp dir + rename) and verified when opened.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from graphhop.core import Fact, Hit, InputError, Passage
from graphhop.index.dense import DENSE_KINDS, DenseIndex, DenseOptions
from graphhop.index.encode import EncodingOptions
from graphhop.index.manifest import (check_index_fields, read_manifest, sha256_file, source_digests, verify_checksums,
                                     write_manifest)
from graphhop.io import atomic_dir
from graphhop.index.sparse import SparseIndex, SparseOptions
from graphhop.kb.verbalize import Verbalizer

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.index.milvus import MilvusTarget

__all__ = [
    "Document", "DocStore", "KnowledgeIndex", "EncodingOptions", "build_index", "dense_text", "documents_from_facts",
    "documents_from_passages",
]

INDEX_KIND = "graphhop-knowledge-index"


@dataclass(frozen=True, slots=True)
class Document:
    """What an index stores per item: the text that is encoded, plus the fact when it is one."""

    id: str
    text: str
    title: str = ""
    fact: Fact | None = None

    def hit(self, score: float) -> Hit:
        """This document as a search hit with ``score`` (its text and fact carried along)."""
        return Hit(self.id, float(score), self.text, self.fact)

    @property
    def sparse_text(self) -> str:
        """What BM25 indexes: for a fact, head, relation and tail as plain words."""
        return self.text.replace("[SEP]", " ") if self.fact is not None else self.text

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.id, "title": self.title, "text": self.text}
        if self.fact is not None:
            row.update(head=self.fact.head, relation=self.fact.relation, tail=self.fact.tail)
        return row

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "Document":
        fact = Fact(row["head"], row["relation"], row["tail"], row["id"]) if "head" in row else None
        return cls(row["id"], row["text"], row.get("title", ""), fact)


def documents_from_facts(facts: Iterable[Fact], verbalizer: Verbalizer = Verbalizer()) -> Iterator[Document]:
    """Facts -> documents whose text is the verbalized fact."""
    for fact in facts:
        yield Document(fact.id, verbalizer(fact), "", fact)


def documents_from_passages(passages: Iterable[Passage]) -> Iterator[Document]:
    """Passages -> documents (title kept as its own field)."""
    for p in passages:
        yield Document(p.id, p.text, p.title or "")


class DocStore:
    """The documents of an index, by position and by id."""

    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs
        self._pos = {d.id: i for i, d in enumerate(docs)}

    @classmethod
    def load(cls, path: Path) -> "DocStore":
        docs = []
        with path.open("rb") as fh:
            for lineno, line in enumerate(fh, start=1):
                try:
                    docs.append(Document.from_json(json.loads(line)))
                except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
                    raise InputError(f"{path}:{lineno}: corrupted document ({exc})") from None
        return cls(docs)

    def __len__(self) -> int:
        return len(self.docs)

    def __getitem__(self, doc_id: str) -> Document:
        return self.docs[self._pos[doc_id]]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._pos

    def position(self, doc_id: str) -> int:
        return self._pos[doc_id]


def _write_docs(docs: Iterable[Document], path: Path) -> tuple[int, bool]:
    n, facts, seen = 0, True, set()
    with path.open("w", encoding="utf-8") as fh:
        for d in docs:
            if d.id in seen:
                raise InputError(f"document id {d.id!r} appears twice; ids must be unique")
            seen.add(d.id)
            fh.write(json.dumps(d.to_json(), ensure_ascii=False) + "\n")
            facts = facts and d.fact is not None
            n += 1
    if n == 0:
        raise InputError("nothing to index: the input has no facts or passages")
    return n, facts


def _iter_docs(path: Path) -> Iterator[Document]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            yield Document.from_json(json.loads(line))


def build_index(
    docs: Iterable[Document],
    out: str | Path,
    *,
    sparse: SparseOptions | None = SparseOptions(),
    dense: DenseOptions | None = DenseOptions(),
    model: str | None = None,
    verbalizer: Verbalizer | None = None,
    batch_size: int = 128,
    chunk: int = 16384,
    overwrite: bool = False,
    progress: bool = True,
    sources: list[str] | None = None,
    encoding: EncodingOptions = EncodingOptions(),
    milvus: "MilvusTarget | None" = None,
) -> "KnowledgeIndex":
    """Build an index directory from documents (streamed to disk first, then indexed in chunks).

    Only the parts asked for are built (``dense=None``: BM25 only, no encoder is loaded). Encoded
    vectors are checkpointed per chunk (see :mod:`graphhop.index.encode`); ``encoding.resume``
    continues an interrupted build of the same documents with the same encoder. ``milvus`` also
    writes every vector (and text, for Milvus BM25) to that Milvus collection.
    """
    from tqdm.auto import tqdm

    if sparse is None and dense is None:
        raise InputError("nothing to build: enable the sparse and/or the dense index")
    if milvus is not None and dense is None:
        raise InputError("a Milvus collection holds the dense vectors: build a dense index (--dense flat|hnsw-sq)")
    if dense is not None and dense.kind not in DENSE_KINDS:
        raise InputError(f"unknown dense index kind {dense.kind!r}; choose one of {', '.join(DENSE_KINDS)}")
    encoding.check()
    timings: dict[str, float] = {}
    with atomic_dir(out, overwrite=overwrite) as tmp:
        t0 = time.perf_counter()
        n, all_facts = _write_docs(docs, tmp / "docs.jsonl")
        timings["docs_s"] = time.perf_counter() - t0
        info: dict[str, Any] = {
            "kind": INDEX_KIND,
            "count": n,
            "doc_type": "facts" if all_facts else "passages",
            "sources": sources or [],
            "source_sha256": source_digests(sources or []),
            "verbalizer": (verbalizer or Verbalizer()).to_dict() if all_facts else None,
            "sparse": None,
            "dense": None,
        }
        if sparse is not None:
            t0 = time.perf_counter()
            docs_iter = ((d.title, d.sparse_text) for d in _iter_docs(tmp / "docs.jsonl"))
            if progress:
                docs_iter = tqdm(docs_iter, total=n, desc="BM25 index", unit="doc")
            SparseIndex.build(tmp / "sparse", docs_iter, sparse)
            timings["sparse_s"] = time.perf_counter() - t0
            info["sparse"] = {"options": sparse.to_dict()}
        checkpoint = None
        if dense is not None:
            t0 = time.perf_counter()
            info["dense"], checkpoint = _build_dense(tmp, out, n, dense, model, batch_size, chunk, progress, encoding,
                                                      milvus)
            timings["dense_s"] = time.perf_counter() - t0
        info["build_timings"] = timings
        write_manifest(tmp, info)
    if checkpoint is not None:
        checkpoint.remove()
    return KnowledgeIndex.open(out, verify=False)


def _build_dense(tmp: Path, out: str | Path, n: int, dense: DenseOptions, model: str | None, batch_size: int,
                 chunk: int, progress: bool, encoding: EncodingOptions, milvus: "MilvusTarget | None" = None):
    """Encode ``tmp/docs.jsonl`` chunk by chunk (checkpointed) into ``tmp/dense.faiss``; manifest part."""
    from tqdm.auto import tqdm

    from graphhop.index.encode import Checkpoint, chunked, encode_chunks, fit_length
    from graphhop.models.encoder import canonical_model_name

    step, requested = max(1, n // 5000), encoding.max_length
    encoding, length_fit = fit_length(encoding, model, (dense_text(d) for i, d in enumerate(_iter_docs(tmp / "docs.jsonl"))
                                                        if i % step == 0))
    texts = (dense_text(d) for d in _iter_docs(tmp / "docs.jsonl"))
    fingerprint = {"docs_sha256": sha256_file(tmp / "docs.jsonl"), "count": n, "chunk": chunk,
                   "model": canonical_model_name(model), "backend": encoding.backend,
                   "max_length": requested}  # a fitted length follows from the documents (docs_sha256): same fingerprint
    checkpoint = Checkpoint.open(out, fingerprint, encoding.resume)
    encode, dim = encoding.encoder(model, batch_size)
    index = DenseIndex.create(dim, dense, count=n)
    reused = min(checkpoint.done() * chunk, n)
    bar = tqdm(total=n, desc=f"encode+index ({encoding.backend}, {dense.kind})", unit="doc", disable=not progress,
               initial=0)
    if reused and progress:
        bar.write(f"resuming: {reused} of {n} documents already encoded in {checkpoint.root}")
    sink = None
    if milvus is not None:
        from graphhop.index.milvus import MilvusIndex

        sink = MilvusIndex.create(milvus, dim, keep=encoding.resume)
    sparse_texts = chunked((d.sparse_text for d in _iter_docs(tmp / "docs.jsonl")), chunk)
    start = 0
    for vecs in encode_chunks(texts, encode, checkpoint, chunk, on_chunk=lambda rows, _: bar.update(rows)):
        index.add(vecs)
        if sink is not None:
            sink.add(start, vecs, next(sparse_texts))
        start += len(vecs)
    bar.close()
    index.save(tmp / "dense.faiss")
    meta = {"options": index.options.to_dict(), "model": canonical_model_name(model), "dim": int(dim),
            "backend": encoding.backend, "engine": encoding.engine}
    if sink is not None:
        sink.flush()
        meta["milvus"] = milvus.to_dict()
    meta["max_length"] = encoding.max_length
    if length_fit is not None:
        meta["max_length_fit"] = length_fit
    return meta, checkpoint


def dense_text(doc: Document) -> str:
    """What the bi-encoder sees: ``title: text`` for titled passages, the text otherwise."""
    return f"{doc.title}: {doc.text}" if doc.title else doc.text


_dense_text = dense_text  # former private name, still imported by retrieve/rerank.py


class KnowledgeIndex:
    """An opened index directory: ``docs``, and ``sparse`` / ``dense`` when built."""

    def __init__(self, path: Path, manifest: dict[str, Any], docs: DocStore) -> None:
        self.path = path
        self.manifest = manifest
        self.docs = docs
        self._sparse: SparseIndex | None = None
        self._dense: DenseIndex | None = None

    @classmethod
    def open(cls, path: str | Path, verify: bool = True) -> "KnowledgeIndex":
        """Open and (by default) verify the checksums of an index directory."""
        path = Path(path)
        manifest = read_manifest(path, kind=INDEX_KIND)
        check_index_fields(path, manifest)
        if verify:
            verify_checksums(path, manifest)
        docs = DocStore.load(path / "docs.jsonl")
        if len(docs) != manifest["count"]:
            raise InputError(f"{path}/docs.jsonl: {len(docs)} documents, manifest says {manifest['count']}")
        if (manifest["doc_type"] == "facts") != all(d.fact is not None for d in docs.docs):
            raise InputError(f"{path}/docs.jsonl: documents do not match the manifest's doc_type {manifest['doc_type']!r}")
        return cls(path, manifest, docs)

    @property
    def has_sparse(self) -> bool:
        return bool(self.manifest.get("sparse"))

    @property
    def has_dense(self) -> bool:
        return bool(self.manifest.get("dense"))

    @property
    def model(self) -> str | None:
        """The encoder the dense index was built with."""
        return self.manifest["dense"]["model"] if self.has_dense else None

    @property
    def sparse(self) -> SparseIndex:
        if not self.has_sparse:
            raise InputError(f"{self.path}: built without a BM25 index (rebuild without --no-sparse)")
        if self._sparse is None:
            self._sparse = SparseIndex.open(self.path / "sparse", SparseOptions.from_dict(self.manifest["sparse"]["options"]))
        return self._sparse

    @property
    def dense(self) -> DenseIndex:
        if not self.has_dense:
            raise InputError(f"{self.path}: built without a dense index (rebuild with --dense flat|hnsw-sq|ivf-pq)")
        if self._dense is None:
            meta = self.manifest["dense"]
            index = DenseIndex.load(self.path / "dense.faiss", DenseOptions.from_dict(meta["options"]))
            if index.dim != meta["dim"] or len(index) != self.manifest["count"]:
                raise InputError(
                    f"{self.path}/dense.faiss: {len(index)} vectors of dimension {index.dim}, manifest says "
                    f"{self.manifest['count']} of dimension {meta['dim']}"
                )
            self._dense = index
        return self._dense

    def set_ef_search(self, ef: int) -> None:
        """Change HNSW's search breadth for this session (no effect on ``flat``)."""
        self.set_search_options(ef_search=ef)

    def set_search_options(self, **changes: object) -> None:
        """Change search-time options for this session: ``ef_search`` (HNSW), ``nprobe``/``k_factor`` (IVF)."""
        self._dense = self.dense.with_options(**changes)

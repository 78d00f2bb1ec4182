"""The span reader: an HF encoder with a start/end head over ``(question, linearized evidence)``.

It reuses :class:`graphhop.models.span.SpanSelector` (first = the question, second = the evidence
graph's texts in graph order) and adds what a reader needs: linearization
(:func:`linearize`: breadth-first from the root, each node once, children in insertion order),
training examples from builder records (:func:`examples_from_records`: the first mention of a gold
answer, preferring answer-bearing sink nodes), and the supporting nodes of a predicted span.

Evidence longer than ``max_length`` word pieces is truncated (the selector has no document
stride), so put the most relevant evidence first (graph order does: chains start at the root).
"""

from __future__ import annotations

import random
import re
from collections import deque
from pathlib import Path
from typing import Any, Sequence

from graphhop.core import Answer, InputError
from graphhop.graph import EvidenceGraph
from graphhop.kb.verbalize import clean_entity
from graphhop.models.span import SpanExample, SpanPrediction, SpanSelector

__all__ = ["linearize", "graph_order", "find_answer_span", "examples_from_records", "SpanReader"]


def graph_order(evidence: EvidenceGraph) -> list[str]:
    """Evidence ids breadth-first from the root (each once), then any unreachable ones."""
    seen: dict[str, None] = {}
    queue = deque([evidence.root])
    while queue:
        node = queue.popleft()
        for nxt in evidence.g.successors(node):
            if nxt not in seen:
                seen[nxt] = None
                queue.append(nxt)
    return list(seen) + [n for n in evidence.evidence_ids if n not in seen]


def _node_text(evidence: EvidenceGraph, node: str) -> str:
    data = evidence.g.nodes[node]
    text = str(data.get("text") or "").strip()
    if not text:
        text = "; ".join(" ".join(clean_entity(x) for x in f) for f in data.get("facts", []))
    return text if text.endswith((".", "!", "?")) else text + "."


def linearize(evidence: EvidenceGraph, order: Sequence[str] | None = None) -> tuple[str, list[tuple[str, int, int]]]:
    """The evidence texts joined in graph order, and each node's ``(id, start, end)`` char range."""
    parts: list[str] = []
    spans: list[tuple[str, int, int]] = []
    pos = 0
    for node in order or graph_order(evidence):
        text = _node_text(evidence, node)
        spans.append((node, pos, pos + len(text)))
        parts.append(text)
        pos += len(text) + 1
    return " ".join(parts), spans


def find_answer_span(text: str, answers: Sequence[str], prefer: Sequence[tuple[int, int]] = ()) -> tuple[int, int] | None:
    """Char range of a gold answer in ``text`` (case-insensitive, whole words, names cleaned like
    entities); occurrences inside ``prefer`` ranges win, then the earliest."""
    found: list[tuple[int, int]] = []
    for ans in answers:
        for form in dict.fromkeys([ans, clean_entity(ans)]):
            if not form.strip():
                continue
            pat = re.compile(r"(?<!\w)" + re.escape(form.strip()) + r"(?!\w)", re.I)
            found += [(m.start(), m.end()) for m in pat.finditer(text)]
    if not found:
        return None
    inside = [s for s in found if any(a <= s[0] and s[1] <= z for a, z in prefer)]
    return min(inside or found)


def examples_from_records(path: str | Path, evidence: str = "gold", limit: int | None = None,
                          seed: int = 0) -> tuple[list[SpanExample], int]:
    """Span examples from a builder JSONL file and the number of questions skipped (no answer
    mention in their evidence). ``evidence``: ``gold`` (the gold graph, graph order) or ``pool``
    (the gold evidence and the distractors together, in a seeded shuffle: position tells nothing)."""
    from graphhop.datasets.builder import read_records

    if evidence not in ("gold", "pool"):
        raise InputError(f"evidence must be gold or pool, not {evidence!r}")
    out: list[SpanExample] = []
    skipped = 0
    for i, rec in enumerate(read_records(path)):
        if limit is not None and i >= limit:
            break
        graph = EvidenceGraph.from_json(rec["graph"], where=f"{path}: {rec.get('id')}")
        order = graph_order(graph)
        if evidence == "pool":
            extra = [e for e in rec.get("evidence", []) if e["id"] not in graph.g]
            for e in extra:
                graph.add_evidence(e["id"], e.get("text", ""), e.get("facts", []))
            order = order + [e["id"] for e in extra]
            random.Random(f"{seed}|{rec.get('id')}").shuffle(order)
        text, spans = linearize(graph, order)
        sinks = set(graph.sinks())
        span = find_answer_span(text, rec["answers"], [(a, z) for n, a, z in spans if n in sinks])
        if span is None:
            skipped += 1
            continue
        out.append(SpanExample(rec["question"], text, span[0], span[1], str(rec.get("id", i))))
    return out, skipped


class SpanReader:
    """Extractive reader over an evidence graph; implements :class:`graphhop.core.Reader`."""

    def __init__(self, selector: SpanSelector, max_answer_tokens: int = 20) -> None:
        self.selector = selector
        self.max_answer_tokens = max_answer_tokens

    @classmethod
    def from_pretrained(cls, name: str | None = None, max_length: int = 256) -> "SpanReader":
        """A saved reader directory, or any HF encoder (``None``: the bundled MiniLM) with a fresh head."""
        return cls(SpanSelector.from_pretrained(name, max_length=max_length))

    load = from_pretrained

    def save(self, path: str | Path, card: dict[str, Any] | None = None) -> Path:
        """Save atomically (model, tokenizer, card with ``task: span-reader``)."""
        return self.selector.save(path, {"task": "span-reader", **(card or {})})

    def predict(self, questions: Sequence[str], evidences: Sequence[EvidenceGraph], batch_size: int = 16) -> list[Answer]:
        """Answers for a batch; ``support`` = the nodes the predicted span falls in."""
        texts = [linearize(g) for g in evidences]
        preds: list[SpanPrediction] = self.selector.predict(
            [(q, t) for q, (t, _) in zip(questions, texts)], max_answer_tokens=self.max_answer_tokens, batch_size=batch_size
        )
        out = []
        for p, (_, spans) in zip(preds, texts):
            support = tuple(n for n, a, z in spans if a < p.end and p.start < z)
            out.append(Answer(p.text.strip(), p.score, support))
        return out

    def answer(self, question: str, evidence: EvidenceGraph) -> Answer:
        return self.predict([question], [evidence])[0]

"""Evidence scored by the facts its sentences state, beside the sentence-level scores.

A builder dataset's DB (every distinct evidence sentence of its splits) states many facts more than
once: the builder verbalizes a question's facts into sentences that aggregate a few of an entity's
facts, so ``Liverpool FC is located in England.`` and ``Liverpool FC is located in England and is the
club of Glen JOHNSON.`` are both in the DB, and a question's gold names one of them. In a closed pool
(gold + 12 distractors) the others are rarely present; over the whole DB a retriever meets them all,
and nothing in the question says which one the builder picked. Sentence-level evidence P/R/F1 counts
the other one as wrong. These measures score the same predictions by the builder facts (triples) of
their sentences — ``fact P`` = |predicted facts ∩ gold facts| / |predicted facts|, etc. — the same way
for the closed pool and the open setting, so the two can be compared on what was stated;
:func:`restatements` counts how often a set's DB restates a gold sentence's facts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Iterable, Sequence

from graphhop.eval.bgr_bench import normalize_text
from graphhop.eval.measures import Gold, Measure, Prediction

__all__ = ["FACT_MEASURES", "fact_measures", "restatements", "statement_facts"]

#: The names of :func:`fact_measures`.
FACT_MEASURES = ("fact P", "fact R", "fact F1")

Fact = tuple[str, ...]


def statement_facts(records: Iterable[dict[str, Any]]) -> dict[str, frozenset[Fact]]:
    """Normalized sentence text -> the builder facts it states, over every evidence sentence of ``records``
    (the first record naming a text wins; a builder states one text's facts the same way everywhere)."""
    out: dict[str, frozenset[Fact]] = {}
    for r in records:
        for e in r.get("evidence", []):
            out.setdefault(normalize_text(e["text"]), frozenset(tuple(f) for f in e.get("facts", [])))
    return out


def _graph_facts(graph: Any, facts: dict[str, frozenset[Fact]]) -> set[Fact]:
    """The union of the facts of a graph's evidence sentences (a text not in ``facts``: its node's own facts)."""
    out: set[Fact] = set()
    if graph is None:
        return out
    for n in graph.evidence_ids:
        attrs = graph.g.nodes[n]
        known = facts.get(normalize_text(attrs.get("text", "")))
        out |= known if known is not None else {tuple(f) for f in attrs.get("facts", [])}
    return out


def _fact_score(kind: str, facts: dict[str, frozenset[Fact]]):
    def score(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
        from graphhop.metrics.graph import set_scores

        field = {"P": "precision", "R": "recall", "F1": "f1"}[kind]
        return [getattr(set_scores(_graph_facts(p.graph, facts), _graph_facts(g.graph, facts)), field)
                for p, g in zip(preds, golds)]

    return score


def fact_measures(facts: dict[str, frozenset[Fact]]) -> list[Measure]:
    """``fact P``, ``fact R``, ``fact F1`` (see the module): pass them to an Experiment beside :data:`GRAPH`;
    ``facts`` from :func:`statement_facts` over every split of the set (the DB's sentences)."""
    docs = {"P": "|predicted facts ∩ gold facts| / |predicted facts|, facts = the builder triples of the evidence sentences",
            "R": "|predicted facts ∩ gold facts| / |gold facts|",
            "F1": "harmonic mean of fact P and fact R"}
    return [Measure(f"fact {k}", "graph", d, _fact_score(k, facts)) for k, d in docs.items()]


def restatements(facts: dict[str, frozenset[Fact]], gold_texts: Iterable[str]) -> dict[str, float]:
    """How often the DB (``facts``' sentences) restates a gold sentence: ``twin`` = share of the gold sentences
    whose exact fact set another DB sentence states too, ``variant`` = share of those with another DB
    sentence stating at least one of their facts; ``db_twins`` = DB sentences sharing their fact set. A sentence
    with no facts is no twin of another (the empty set is no fact set); it still counts in ``db`` and ``gold``."""
    by_set = Counter(fs for fs in facts.values() if fs)
    by_fact: dict[Fact, set[str]] = defaultdict(set)
    for text, fs in facts.items():
        for f in fs:
            by_fact[f].add(text)
    golds = [t for t in map(normalize_text, gold_texts) if t in facts]
    twin = sum(by_set[facts[t]] > 1 for t in golds)
    variant = sum(any(s != t for f in facts[t] for s in by_fact[f]) for t in golds)
    n = max(1, len(golds))
    return {"db": len(facts), "db_twins": sum(by_set[fs] > 1 for fs in facts.values()), "gold": len(golds),
            "twin": round(twin / n, 4), "variant": round(variant / n, 4)}

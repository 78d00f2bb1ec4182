"""Typed, named measures: ranking (via ir_measures), evidence set, graph and QA, in one registry.

A :class:`Measure` scores each question's :class:`Prediction` against its :class:`Gold`; the
:class:`~graphhop.eval.experiment.Experiment` averages over questions. Each measure states what it
counts (``doc``) and what the prediction must hold (``needs``: ``ranking``, ``graph`` or ``answer``).

- Ranking (ir_measures; Hits@k is its ``Success@k``, MRR its ``RR@1000``): ``fact MRR``,
  ``fact Hits@1``, ``fact Hits@10`` (relevant: the gold evidence ids) and ``answer MRR``,
  ``answer Hits@1``, ``answer Hits@10`` (relevant: hits whose fact's head or tail is a gold answer).
  ``ties@1``: 1 when the top two hits have the same score. Passage recall for multi-hop text: ``R@k``, ``all@k`` (every gold passage in the top k) and
  ``any@k`` for k = 2, 5, 10. Questions without relevant items count 0.
- Evidence set (predicted graph's evidence ids vs the gold graph's; precision = |P∩G|/|P|):
  ``EM``, ``P``, ``R``, ``F1``; ``evidence P`` / ``R`` / ``F1`` score the same against the gold's evidence
  ids alone (no gold graph, no GED: leaf retrieval, where gold leaves a corpus lacks count as misses). Graph: ``GM`` (same labelled nodes and edges), ``GS`` (isomorphic),
  ``GED`` (graph edit distance with labels; an upper bound when its search timed out).
- QA: ``QA EM`` and ``QA F1`` (SQuAD-normalised top answer, best over gold answers) and
  ``set F1`` (the predicted answer set against the gold set); ``answer in graph`` (a gold answer is
  an entity of the evidence graph's facts: the retrieval ceiling of a reader) and ``qtype acc``
  (the question was read as its gold operation, group ``op``, default a plain query). ``right``: the
  hand-written suites' measure (right answer with every gold passage in the support).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from graphhop.core import InputError, Ranking

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["Prediction", "Gold", "Measure", "register_measure", "get_measure", "measure_names", "RANKING", "GRAPH",
           "graph_measures", "QA", "PASSAGE_RECALL", "ANSWER_IN_GRAPH", "QTYPE_ACC", "EVIDENCE_SIZE", "RIGHT",
           "EVIDENCE_SET"]


@dataclass
class Prediction:
    """What a pipeline returned for one question (the parts its measures need)."""

    ranking: Ranking | None = None
    graph: "EvidenceGraph | None" = None
    answer: str | None = None
    answers: list[str] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)


@dataclass
class Gold:
    """One question's gold: its id, answers, relevant evidence ids, gold graph, and group labels."""

    id: str
    answers: list[str] = field(default_factory=list)
    evidence: set[str] = field(default_factory=set)
    graph: "EvidenceGraph | None" = None
    groups: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Measure:
    """A named measure: ``score(predictions, golds)`` gives one value per question."""

    name: str
    needs: str
    doc: str
    score: Callable[[Sequence[Prediction], Sequence[Gold]], list[float]]


_MEASURES: dict[str, Measure] = {}


def register_measure(measure: Measure) -> Measure:
    """Add ``measure`` under its name (a name is registered once)."""
    if measure.name in _MEASURES and _MEASURES[measure.name] is not measure:
        raise InputError(f"measure {measure.name!r} is already registered")
    _MEASURES[measure.name] = measure
    return measure


def get_measure(name: str) -> Measure:
    """The measure ``name``; an unknown name lists the known ones."""
    if name not in _MEASURES:
        raise InputError(f"unknown measure {name!r}; choose from {', '.join(_MEASURES)}")
    return _MEASURES[name]


def measure_names(needs: str | None = None) -> list[str]:
    """Registered measure names (those reading ``needs`` when given)."""
    return [n for n, m in _MEASURES.items() if needs is None or m.needs == needs]


# ------------------------------------------------------------------------ ranking
def _answer_relevant(ranking: Ranking, answers: Sequence[str]) -> set[str]:
    from graphhop.kb.verbalize import clean_entity

    gold = {clean_entity(a).casefold() for a in answers}
    return {h.id for h in ranking if h.fact is not None
            and (clean_entity(h.fact.head).casefold() in gold or clean_entity(h.fact.tail).casefold() in gold)}


def _ir(measure: Any, label: str, level: str) -> Callable[[Sequence[Prediction], Sequence[Gold]], list[float]]:
    def score(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
        from graphhop.metrics.ranking import per_query_metrics

        rankings = {str(i): p.ranking or [] for i, p in enumerate(preds)}
        if level == "fact":
            qrels = {str(i): g.evidence for i, g in enumerate(golds)}
        else:
            qrels = {str(i): _answer_relevant(p.ranking or [], g.answers) for i, (p, g) in enumerate(zip(preds, golds))}
        per_q = per_query_metrics(rankings, qrels, [measure])
        return [next(iter(per_q[str(i)].values())) for i in range(len(preds))]

    return score


def _recall(kind: str, k: int) -> Callable[[Sequence[Prediction], Sequence[Gold]], list[float]]:
    def score(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
        out = []
        for p, g in zip(preds, golds):
            found = len(g.evidence & {h.id for h in (p.ranking or [])[:k]})
            if not g.evidence:
                out.append(0.0)
            elif kind == "R":
                out.append(found / len(g.evidence))
            else:
                out.append(float(found == len(g.evidence)) if kind == "all" else float(found > 0))
        return out

    return score


def _ranking_measures() -> list[str]:
    from ir_measures import RR, Success

    names = []
    for level, what in (("fact", "a gold evidence id"), ("answer", "a fact whose head or tail is a gold answer")):
        for label, m, doc in (("MRR", RR @ 1000, "reciprocal rank of the first hit that is {} (top 1000)"),
                              ("Hits@1", Success @ 1, "1 if the top hit is {}"),
                              ("Hits@10", Success @ 10, "1 if a top-10 hit is {}")):
            names.append(register_measure(Measure(f"{level} {label}", "ranking", doc.format(what), _ir(m, label, level))).name)
    return names


def _passage_measures() -> list[str]:
    names = []
    for k in (2, 5, 10):
        for kind, doc in (("R", "share of gold passages in the top {k}"), ("all", "1 if every gold passage is in the top {k}"),
                          ("any", "1 if a gold passage is in the top {k}")):
            names.append(register_measure(Measure(f"{kind}@{k}", "ranking", doc.format(k=k), _recall(kind, k))).name)
    return names


# ------------------------------------------------------------------------ graphs
def graph_scores(pred: Prediction, gold: Gold, ged_timeout: float = 1.0) -> Any:
    """:func:`graphhop.metrics.graph.score_graph` of one prediction, computed once."""
    from graphhop.graph import EvidenceGraph
    from graphhop.metrics.graph import score_graph

    if "graph_scores" not in pred.cache:
        if gold.graph is None:
            raise InputError(f"{gold.id}: graph measures need a gold graph")
        pred.cache["graph_scores"] = score_graph(pred.graph or EvidenceGraph(gold.graph.question), gold.graph, ged_timeout)
    return pred.cache["graph_scores"]


def _graph_field(name: str, ged_timeout: float = 1.0) -> Callable[[Sequence[Prediction], Sequence[Gold]], list[float]]:
    def score(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
        return [float(getattr(graph_scores(p, g, ged_timeout), name)) for p, g in zip(preds, golds)]

    return score


def graph_measures(ged_timeout: float = 1.0) -> list[Measure]:
    """The evidence-set and graph measures (``EM`` ... ``GED``), GED searched for at most ``ged_timeout``
    seconds per question; :data:`GRAPH` names the registered ones (1 s). Pass these to an Experiment
    for another timeout."""
    docs = {"EM": ("em", "1 if the predicted evidence set equals the gold set"),
            "P": ("precision", "|predicted ∩ gold| / |predicted| over evidence ids"),
            "R": ("recall", "|predicted ∩ gold| / |gold| over evidence ids"),
            "F1": ("f1", "harmonic mean of the evidence-set P and R"),
            "GM": ("gm", "1 if the graphs have the same labelled nodes and edges"),
            "GS": ("gs", "1 if the graphs are isomorphic (unlabelled)"),
            "GED": ("ged", "graph edit distance with node labels (upper bound on timeout)")}
    return [Measure(n, "graph", d, _graph_field(f, ged_timeout)) for n, (f, d) in docs.items()]


# ------------------------------------------------------------------------ QA
def _qa(kind: str) -> Callable[[Sequence[Prediction], Sequence[Gold]], list[float]]:
    def score(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
        from graphhop.metrics.qa import exact_match, token_f1

        if kind == "set":
            out = []
            for p, g in zip(preds, golds):
                ps, gs = set(p.answers), set(g.answers)
                out.append(float(ps == gs) if not ps or not gs else 2 * len(ps & gs) / (len(ps) + len(gs)))
            return out
        fn = exact_match if kind == "em" else token_f1
        return [float(fn(p.answer or "", g.answers)) for p, g in zip(preds, golds)]

    return score


def _ties(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
    return [float(p.ranking is not None and len(p.ranking) > 1 and p.ranking[0].score == p.ranking[1].score) for p in preds]


RANKING = tuple(_ranking_measures())
TIES = register_measure(Measure("ties@1", "ranking", "1 if the top two hits have the same score (ties broken by KB order)",
                                _ties)).name
PASSAGE_RECALL = tuple(_passage_measures())
GRAPH = tuple(register_measure(m).name for m in graph_measures())
QA = tuple(register_measure(Measure(n, "answer", d, _qa(kind))).name for n, kind, d in (
    ("QA EM", "em", "1 if the top answer equals a gold answer (SQuAD-normalised)"),
    ("QA F1", "f1", "token F1 of the top answer, best over gold answers"),
    ("set F1", "set", "F1 of the predicted answer set against the gold set")))


def _answer_in_graph(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
    out = []
    for p, g in zip(preds, golds):
        graph = p.graph
        ents = set() if graph is None else {e for n in graph.evidence_ids for f in graph.g.nodes[n].get("facts", [])
                                            for e in (f[0], f[2])}
        out.append(float(bool(ents & set(g.answers))))
    return out


ANSWER_IN_GRAPH = register_measure(Measure("answer in graph", "graph", "1 if a gold answer is an entity of the evidence graph's facts",
                                           _answer_in_graph)).name
QTYPE_ACC = register_measure(Measure("qtype acc", "answer", "1 if the question was read as its gold operation "
                                     "(the gold's group 'op', default a plain query; the prediction's cache['qtype'])",
                                     lambda preds, golds: [float(p.cache.get("qtype") == g.groups.get("op", "query"))
                                                           for p, g in zip(preds, golds)])).name


def _right_for_right_reason(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
    from graphhop.metrics.qa import right_for_right_reason

    return [float(right_for_right_reason(p.answer or "", p.answers, p.cache.get("support", ()), p.cache.get("supported", False),
                                         g.groups.get("type", ""), g.answers, g.evidence)) for p, g in zip(preds, golds)]


RIGHT = register_measure(Measure("right", "answer", "1 if the answer is right and every gold passage is in its support "
                                 "(the hand-written suites' measure; the gold's group 'type', the prediction's "
                                 "cache['support'] and cache['supported'])", _right_for_right_reason)).name
EVIDENCE_SIZE = register_measure(Measure("size", "graph", "how many evidence nodes the predicted graph has",
                                         lambda preds, golds: [float(len(p.graph.evidence_ids)) if p.graph is not None else 0.0
                                                               for p in preds])).name


def _evidence_set(name: str) -> Callable[[Sequence[Prediction], Sequence[Gold]], list[float]]:
    def score(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
        from graphhop.metrics.graph import set_scores

        return [float(getattr(set_scores(p.graph.evidence_ids if p.graph is not None else [], g.evidence), name))
                for p, g in zip(preds, golds)]

    return score


#: Evidence-set scores against the gold's evidence ids (no gold graph, no GED): for leaf retrieval, where
#: gold ids a corpus lacks (EntailmentBank's unmapped leaves) are in ``Gold.evidence`` and count as misses.
EVIDENCE_SET = tuple(register_measure(Measure(n, "graph", d, _evidence_set(f))).name for n, f, d in (
    ("evidence P", "precision", "|predicted evidence ∩ gold evidence ids| / |predicted| (no gold graph needed)"),
    ("evidence R", "recall", "|predicted evidence ∩ gold evidence ids| / |gold evidence ids|"),
    ("evidence F1", "f1", "harmonic mean of evidence P and evidence R"),
))

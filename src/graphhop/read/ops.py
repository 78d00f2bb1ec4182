"""Question types and the operations that answer them over an evidence graph.

ReasonGraphQA's question types reduce to five operations on the fact reader's output
(:class:`graphhop.read.facts.Reading`):

``query``
    the answer entities of the best relation path (``What currency is used in ...?``);
``count``
    how many distinct answers that relation path reaches (``How many countries border X?``); with
    ``A or B`` naming entities on both sides, the size of the union of both sides' answers;
``boolean`` (verify)
    the question's last-mentioned entity is the *claimed value* (``Was the composer of The Magic
    Flute born in Vienna?`` claims ``Vienna``). Its mention is masked and walks are scored from the
    other question entities; the answer is ``yes`` when the best walk reaching the claim scores at
    least as high as every *sibling* walk (same prefix, another last fact: ``born_in Salzburg``
    beats ``died_in Vienna``), else ``no`` (also when no walk reaches the claim). The KB is
    incomplete, so ``no`` means "not supported";
``comparison``
    ``..., A or B?``: for each option, the best walk from the option's entities to a numeric value
    (a year, a number); the answer is the entity holding the value (the walk's last entity before
    it), chosen by the comparative's direction (``earlier``/``smaller``/``fewer`` -> minimum;
    ``later``/``greater``/``more`` -> maximum; ``older``/``younger`` flip for year/date attributes).
``relation``
    ``How is A related to B?`` (KQA Pro's ``QueryRelation``), ``What is the relationship between A
    and B?``, ``How are A and B related?``: the relation of the fact(s) linking A's entity to B's
    entity on the graph, cleaned as the KB builder writes it (``plays_in_club_inverse`` -> ``plays in
    club``; facts from A to B first). A side that names its entity (``Belgium (whose ...)``) stands
    for its first mention; one that describes it (``the composer of X``) for the answers of reading
    that side from its mentions.

:func:`detect_qtype` is rule-based (word cues, listed in :data:`CUES`); its accuracy is measured in
``docs/RESULTS.md (issue 7)`` on the demo questions and on builder datasets with types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from graphhop.core import Answer
from graphhop.graph import EvidenceGraph
from graphhop.kb.verbalize import clean_relation
from graphhop.read.facts import Candidate, FactReader, Reading, Triple, bracket_entities, find_entities, fold

__all__ = [
    "gives_dates",
    "QTYPES",
    "CUES",
    "detect_qtype",
    "split_options",
    "parse_number",
    "comparison_direction",
    "OperationResult",
    "run_query",
    "run_count",
    "run_boolean",
    "run_comparison",
    "relation_sides",
    "run_relation",
    "OperationReader",
]

QTYPES = ("query", "count", "boolean", "comparison", "relation")

_AUX = {"is", "was", "are", "were", "does", "do", "did", "has", "have", "had", "can", "could", "will", "would", "should"}
_MIN = {"earlier", "earliest", "first", "before", "smaller", "smallest", "fewer", "fewest", "less", "least", "lower",
        "lowest", "shorter", "shortest", "older", "oldest", "elder", "eldest", "slower", "slowest", "lighter", "lightest",
        "narrower", "narrowest", "shallower", "shallowest", "cheaper", "cheapest"}
_MAX = {"later", "latest", "last", "after", "bigger", "biggest", "larger", "largest", "greater", "greatest", "more",
        "most", "higher", "highest", "longer", "longest", "taller", "tallest", "younger", "youngest", "faster", "fastest",
        "heavier", "heaviest", "wider", "widest", "deeper", "deepest"}
_AGE = {"older", "oldest", "elder", "eldest", "younger", "youngest"}
_DATE_REL = re.compile(r"year|date|born|birth|founded|established|inception|start|release", re.I)


def gives_dates(relation: str, values: list[float | None]) -> bool:
    """Whether a relation's values are dates: its name says so (``year founded``, ``birth date``, ``inception``), or
    there are values and every one is a whole number from 1000 to 2100 (``point in time``, ``launched``)."""
    if _DATE_REL.search(relation):
        return True
    return bool(values) and all(v is not None and v == int(v) and 1000 <= v <= 2100 for v in values)

#: The word cues of :func:`detect_qtype`, for the docs.
CUES = {
    "relation": "'how is/are A related to B', 'how are A and B related', or 'what is the relation(ship) between A and B'",
    "count": "contains 'how many', or starts with '(what is) (the) number of' or 'count'",
    "comparison": "contains ' or ' and a comparative/superlative word (earlier, greater, more, older, ...)",
    "boolean": "starts with an auxiliary verb (is, was, are, were, does, do, did, has, have, can, ...) and has no ' or ', "
               "unless it is a request ('can you name / tell me / describe ...', not followed by 'if' or 'whether')",
    "query": "anything else",
}


#: ``Can you name a film directed by X?``, ``could you tell me who ...``: a request for an answer, not a yes/no
#: question (``can you tell me whether ...`` stays yes/no).
_REQUEST = re.compile(r"^(?:can|could|would|will) you (?:please )?(?:name|tell|give|list|describe|identify|mention|"
                      r"provide|say|show|find|suggest|recommend|think of|point)\b(?!.*\b(?:if|whether)\b)")
_COUNT_NUMBER = re.compile(r"^(?:what is |what's )?(?:the )?(?:total )?number of\b")
_RELATED_TO = re.compile(r"^how (?:is|are|was|were) (?P<a>.+?) (?:related|connected) to (?P<b>.+?)[\s?.!]*$", re.I)
_RELATED = re.compile(r"^how (?:are|were) (?P<ab>.+?) (?:related|connected)[\s?.!]*$", re.I)
_BETWEEN = re.compile(r"^(?:what|which) (?:is|was|are|were) the (?:relation|relationship|connection|link)s? between "
                      r"(?P<ab>.+?)[\s?.!]*$", re.I)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def detect_qtype(question: str) -> str:
    """``relation``, ``count``, ``comparison``, ``boolean`` or ``query`` by word cues (see :data:`CUES`)."""
    q = question.strip().lower()
    words = _words(q)
    if not words:
        return "query"
    if relation_sides(question):
        return "relation"
    if " how many " in f" {q}" or _COUNT_NUMBER.match(q) or words[0] == "count":
        return "count"
    if " or " in q and (set(words) & (_MIN | _MAX)):
        return "comparison"
    if words[0] in _AUX and " or " not in q and not _REQUEST.match(" ".join(words)):  # "is X a man or a woman?": a choice
        return "boolean"
    return "query"


def relation_sides(question: str) -> list[tuple[str, str]]:
    """The ways to read a relation question as its two sides, ``[]`` for another question.

    ``"How is A related to B?"`` -> ``[("A", "B")]``; ``"... between A and B?"`` and ``"How are A
    and B related?"`` give one reading per `` and `` (an entity name may hold one: ``Bosnia and
    Herzegovina``), first split first."""
    q = " ".join(question.split())
    m = _RELATED_TO.match(q)
    if m:
        return [(m["a"], m["b"])]
    m = _BETWEEN.match(q) or _RELATED.match(q)
    if not m:
        return []
    ab = m["ab"]
    cuts = [i.start() for i in re.finditer(r" and ", ab, re.I)]
    return [(ab[:c].strip(), ab[c + 5 :].strip()) for c in cuts if ab[:c].strip() and ab[c + 5 :].strip()]


def split_options(question: str) -> tuple[str, list[str]]:
    """``"Who was born earlier, A or B?"`` -> ``("Who was born earlier", ["A", "B"])``.

    The options are split at the last `` or ``; the first option starts after the last comma
    before it (or is everything before `` or `` when there is no comma, with an empty prefix)."""
    q = question.strip().rstrip("?").strip()
    low = q.lower()
    cut = low.rfind(" or ")
    if cut < 0:
        return q, []
    before, second = q[:cut], q[cut + 4 :]
    comma = before.rfind(",")
    if comma >= 0:
        return before[:comma].strip(), [before[comma + 1 :].strip(), second.strip()]
    return "", [before.strip(), second.strip()]


_NUM = re.compile(r"^[+-]?\d+(?:[.,]\d+)?")


def parse_number(text: str) -> float | None:
    """A leading number of an entity name (``1756``, ``3.5 km``, ``1756-01-27`` -> 1756), else None."""
    m = _NUM.match(text.strip().replace("_", " "))
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", "."))
    except ValueError:  # pragma: no cover
        return None


def comparison_direction(question: str, relation: str = "", dates: bool = False) -> str:
    """``min`` or ``max`` from the comparative in ``question`` (``max`` when none is found).
    ``older``/``younger`` compare ages: on a year/date ``relation`` (or when the caller knows the values are
    dates, ``dates``: :func:`gives_dates`) older means the smaller value."""
    words = _words(question)
    for w in words:
        if w in _AGE:
            is_date = dates or bool(_DATE_REL.search(relation)) or "born" in words
            older = w in {"older", "oldest", "elder", "eldest"}
            return "min" if older == is_date else "max"
        if w in _MIN:
            return "min"
        if w in _MAX:
            return "max"
    return "max"


@dataclass
class OperationResult:
    """An operation's answer with its type, the reader's evidence, and the operation's trace."""

    qtype: str
    answer: Answer
    answers: list[str]
    trace: dict


def _support(cands: Sequence[Candidate], limit: int = 20) -> tuple[str, ...]:
    out: list[str] = []
    for c in cands[:limit]:
        for n in (c.walks[0].nodes if c.walks else ()):
            if n not in out:
                out.append(n)
    return tuple(out)


def run_query(reader: FactReader, question: str, evidence: EvidenceGraph, topic_entities: Sequence[str] | None = None) -> OperationResult:
    """Plain query: the answers of the best relation path."""
    reading = reader.read(question, evidence, topic_entities)
    top = reading.top
    answers = [c.entity for c in reading.answers]
    ans = Answer(top.entity, top.score, _support(reading.answers[:1])) if top else Answer("", float("-inf"))
    return OperationResult("query", ans, answers, {"starts": reading.starts, "relation_path": list(reading.best_path)})


def run_count(reader: FactReader, question: str, evidence: EvidenceGraph, topic_entities: Sequence[str] | None = None) -> OperationResult:
    """Count: the number of distinct answers of the best relation path. ``How many ... A or B?``
    (each side naming its own entities) counts the union of both sides' answers."""
    prefix, options = split_options(question) if " or " in question.lower() else ("", [])
    if len(options) == 2:
        ents = _graph_entities(evidence)
        sides = []
        for opt in options:
            found = [e for e in bracket_entities(opt) if e in ents] or find_entities(opt, ents)
            if found:
                sides.append(reader.read(f"{prefix} {opt}".strip(), evidence, starts=found))
        if len(sides) == 2 and all(r.answers for r in sides):
            union = list(dict.fromkeys(c.entity for r in sides for c in r.answers))
            score = min(r.answers[0].score for r in sides)
            cands = [c for r in sides for c in r.answers]
            return OperationResult(
                "count", Answer(str(len(union)), score, _support(cands, limit=1000)), [str(len(union))],
                {"join": "or", "relation_paths": [list(r.best_path) for r in sides], "counted": union},
            )
    reading = reader.read(question, evidence, topic_entities)
    n = len(reading.answers)
    score = reading.top.score if reading.top else float("-inf")
    return OperationResult(
        "count", Answer(str(n), score, _support(reading.answers, limit=1000)), [str(n)],
        {"starts": reading.starts, "relation_path": list(reading.best_path), "counted": [c.entity for c in reading.answers]},
    )


def _graph_entities(evidence: EvidenceGraph) -> set[str]:
    return {e for n in evidence.evidence_ids for f in evidence.g.nodes[n].get("facts", []) for e in (f[0], f[2])}


def _mask(question: str, entity: str) -> str:
    """The question with the mention of ``entity`` removed (case-insensitive, by whole words;
    the question is folded to plain lower-case words when only the folded form matches)."""
    words = re.findall(r"\w+", entity.replace("_", " "))
    if not words:
        return question
    pattern = re.compile(r"\b" + r"[\W_]+".join(map(re.escape, words)) + r"\b", re.I)
    text = question.replace("[", " ").replace("]", " ")
    if pattern.search(text):
        return " ".join(pattern.sub(" ", text).split())
    folded = fold(text)
    target = fold(entity)
    return " ".join(folded.replace(target, " ").split())


def run_boolean(reader: FactReader, question: str, evidence: EvidenceGraph, topic_entities: Sequence[str] | None = None) -> OperationResult:
    """Verify: does the best walk to the claimed value beat its siblings (same prefix, other last fact)?"""
    starts = reader.starts(question, evidence, topic_entities)
    if len(starts) < 2:
        return OperationResult("boolean", Answer("no", 0.0), ["no"], {"starts": starts, "reason": "no claimed value found"})
    claim, sources = starts[-1], starts[:-1]
    masked = _mask(question, claim)
    reading = reader.read(question, evidence, scoring_question=masked, starts=sources)
    to_claim = [(w, s) for w, s in reading.scored if w.end == claim]
    trace = {"claim": claim, "starts": sources, "masked_question": masked}
    if not to_claim:
        return OperationResult("boolean", Answer("no", 0.0), ["no"], {**trace, "reason": "no walk reaches the claim"})
    walk, score = max(to_claim, key=lambda ws: ws[1])
    siblings = [(w, s) for w, s in reading.scored
                if w.start == walk.start and len(w.steps) == len(walk.steps) and w.steps[:-1] == walk.steps[:-1]]
    rival = max(siblings, key=lambda ws: ws[1])
    verdict = "yes" if rival[1] <= score else "no"
    return OperationResult(
        "boolean", Answer(verdict, score, walk.nodes), [verdict],
        {**trace, "claim_path": list(walk.relation_path), "claim_score": score,
         "best_sibling": rival[0].end, "best_sibling_path": list(rival[0].relation_path), "best_sibling_score": rival[1]},
    )


def run_comparison(reader: FactReader, question: str, evidence: EvidenceGraph, topic_entities: Sequence[str] | None = None) -> OperationResult:
    """Compare: for each option the best walk to a number; pick the holder by the comparative."""
    prefix, options = split_options(question)
    graph_entities = _graph_entities(evidence)
    picks: list[dict] = []
    for opt in options:
        ents = [e for e in bracket_entities(opt) if e in graph_entities] or find_entities(opt, graph_entities)
        if not ents:
            continue
        reading: Reading = reader.read(f"{prefix} {opt}".strip(), evidence, starts=ents)
        numeric = [c for c in reading.candidates if parse_number(c.entity) is not None]
        if not numeric:
            continue
        best = numeric[0]
        walk = best.walks[0]
        holder = walk.entities[-2]
        picks.append({"option": opt, "holder": holder, "value": parse_number(best.entity), "relation": walk.steps[-1].fact[1],
                      "score": best.score, "nodes": walk.nodes})
    if len(picks) < 2:
        return OperationResult("comparison", Answer("", float("-inf")), [], {"options": options, "picks": picks,
                                                                             "reason": "fewer than two options with a value"})
    direction = comparison_direction(question, picks[0]["relation"])
    chosen = (min if direction == "min" else max)(picks, key=lambda p: p["value"])
    support = tuple(n for p in picks for n in p["nodes"])
    score = min(p["score"] for p in picks)
    return OperationResult("comparison", Answer(chosen["holder"], score, support), [chosen["holder"]],
                           {"options": options, "direction": direction,
                            "picks": [{k: v for k, v in p.items() if k != "nodes"} for p in picks]})


def _side_entities(reader: FactReader, side: str, evidence: EvidenceGraph, entities: set[str]) -> tuple[list[str], tuple[str, ...]]:
    """The entities one side of a relation question stands for, best first, and the evidence nodes
    used to reach them: its first mention when the side starts with it, else the answers of reading
    the side from its mentions (``the composer of X``), then the mentions themselves."""
    found = [e for e in bracket_entities(side) if e in entities] or find_entities(side, entities)
    if not found:
        return [], ()
    text = fold(side)
    head = fold(found[0])
    if text.startswith(head) or text.startswith(f"the {head}"):
        return found, ()
    reading = reader.read(side, evidence, starts=found)
    resolved = [c.entity for c in reading.answers]
    return list(dict.fromkeys(resolved + found)), _support(reading.answers[:1])


def run_relation(reader: FactReader, question: str, evidence: EvidenceGraph, topic_entities: Sequence[str] | None = None) -> OperationResult:
    """Relation: the relation of the fact(s) linking the two sides' entities (A -> B facts first)."""
    links: dict[tuple[str, str], list[tuple[str, Triple]]] = {}  # (head, tail) -> [(node, fact)]
    for n in evidence.evidence_ids:
        for h, r, t in evidence.g.nodes[n].get("facts", []):
            links.setdefault((h, t), []).append((n, (h, r, t)))
    entities = {e for pair in links for e in pair}
    tried: list[list[str]] = []
    for side_a, side_b in relation_sides(question):
        (ents_a, via_a), (ents_b, via_b) = (_side_entities(reader, s, evidence, entities) for s in (side_a, side_b))
        if not ents_a or not ents_b:
            continue
        tried.append([side_a, side_b])
        for a in ents_a:
            for b in ents_b:
                found = links.get((a, b), []) + links.get((b, a), []) if a != b else []
                if not found:
                    continue
                labels = list(dict.fromkeys(clean_relation(f[1]) for _, f in found))
                support = tuple(dict.fromkeys(via_a + via_b + tuple(n for n, _ in found)))
                return OperationResult("relation", Answer(labels[0], 1.0, support), labels,
                                       {"sides": [side_a, side_b], "entities": [a, b], "facts": [list(f) for _, f in found]})
    reason = "no fact links the two sides" if tried else "no entity found on both sides"
    return OperationResult("relation", Answer("", float("-inf")), [], {"sides": tried, "reason": reason})


_OPS = {"query": run_query, "count": run_count, "boolean": run_boolean, "comparison": run_comparison,
        "relation": run_relation}


class OperationReader:
    """Detects the question type and runs its operation with a :class:`FactReader`; implements
    :class:`graphhop.core.Reader`. ``qtype`` forces a type (skip detection)."""

    def __init__(self, reader: FactReader | None = None) -> None:
        self.reader = reader or FactReader()

    def run(self, question: str, evidence: EvidenceGraph, qtype: str | None = None,
            topic_entities: Sequence[str] | None = None) -> OperationResult:
        """Answer with the full :class:`OperationResult` (type, answers, trace)."""
        kind = qtype or detect_qtype(question)
        if kind not in _OPS:
            raise ValueError(f"unknown question type {kind!r}; choose one of {', '.join(QTYPES)}")
        return _OPS[kind](self.reader, question, evidence, topic_entities)

    def answer(self, question: str, evidence: EvidenceGraph) -> Answer:
        return self.run(question, evidence).answer

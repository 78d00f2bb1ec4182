"""KQA Pro programs as reasoning-graph templates, grounded in a KG we have.

KQA Pro's KB is not available, but its KoPL programs are the structure templates ReasonGraphQA
was built from. :func:`program_template` reads a program (``[{function, dependencies, inputs}]``)
into a :class:`ProgramTemplate`: one **chain** per ``Find``/``FindAll`` branch, each a list of
operations ``hop`` (``Relate``) and ``filter`` (``FilterStr``/``FilterNum``/``FilterYear``/
``FilterDate``: a fact ``(entity, attribute, value)`` that the entity must have), a **join** of
the chains (``And``/``Or``) and a **terminal** (``What``, ``Count``, ``QueryAttr``,
``QueryRelation``, ``SelectBetween``, or ``verify``: a ``QueryAttr`` followed by ``VerifyStr``/
``VerifyNum``/``VerifyYear``/``VerifyDate``). ``FilterConcept`` is dropped (our KGs have no concept
hierarchy); programs using anything else (qualifiers, ``SelectAmong``,
``QueryAttrUnderCondition``) are reported as unsupported.

:func:`ground_template` instantiates a template in a :class:`~graphhop.kb.store.TripleStore` by
seeded random walks (all triples forward, head -> tail), then *executes* it over the KG, so the
answers are complete and the gold paths are every walk that yields an answer (capped). Questions
are realized by simple English templates (``What is the plays in club of Abel HERNANDEZ?``):
good enough for retrieval structure, not fluent text.

A ``verify`` template becomes a yes/no question about one entity's attribute (``Is the plays in
club of Abel HERNANDEZ Palermo?``): the claimed value is one of the entity's own values (answer
``yes``) or a value of the same relation that the entity lacks, drawn (seeded) from the other
entities of the KG (answer ``no``); :func:`ground_programs` alternates the two. KoPL's comparison
operators (``>``, ``<``, ``!=`` of ``VerifyNum``/``VerifyYear``/``VerifyDate``) are all grounded
as equality claims. The gold paths lead to every fact of the entity with that relation: the
evidence that decides the claim.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from graphhop.core import InputError, QAExample, Triple
from graphhop.kb.loaders import read_json
from graphhop.kb.store import TripleStore
from graphhop.kb.verbalize import clean_entity, clean_relation

__all__ = [
    "KQAProgram",
    "ProgramTemplate",
    "UnsupportedProgram",
    "load_programs",
    "program_template",
    "ground_template",
    "ground_programs",
]

_FILTERS = {"FilterStr", "FilterNum", "FilterYear", "FilterDate"}
_TERMINALS = {"What": "what", "Count": "count", "QueryAttr": "attr", "QueryRelation": "relation",
              "SelectBetween": "select"}
_VERIFY = {"VerifyStr", "VerifyNum", "VerifyYear", "VerifyDate"}  # after a QueryAttr: terminal "verify"


class UnsupportedProgram(ValueError):
    """A KoPL program outside the supported subset (the message names the function)."""


@dataclass
class KQAProgram:
    """One KQA Pro question with its KoPL program."""

    id: str
    question: str
    answer: str
    program: list[dict[str, Any]]


@dataclass(frozen=True)
class ProgramTemplate:
    """The structure of a program: chains of ``hop``/``filter`` ops, a join, a terminal."""

    chains: tuple[tuple[str, ...], ...]
    join: str | None
    terminal: str
    starts: tuple[str, ...] = ()  # "entity" (Find) or "all" (FindAll) per chain

    @property
    def signature(self) -> str:
        """A short name, e.g. ``hop+filter & hop -> what``."""
        sep = f" {'&' if self.join == 'and' else '|' if self.join == 'or' else ','} "
        body = sep.join("+".join(c) or "entity" for c in self.chains)
        return f"{body} -> {self.terminal}"


def load_programs(path: str | Path) -> list[KQAProgram]:
    """Load a KQA Pro JSON list with ``question``, ``program`` and ``answer`` fields."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of questions")
    out = []
    for i, obj in enumerate(data):
        if not isinstance(obj, dict) or not isinstance(obj.get("program"), list) or "question" not in obj:
            raise InputError(f"{path}: item {i}: expected an object with 'question' and a 'program' list")
        out.append(KQAProgram(str(obj.get("sample_id", i)), str(obj["question"]), str(obj.get("answer", "")), obj["program"]))
    return out


def program_template(program: list[dict[str, Any]]) -> ProgramTemplate:
    """Read a KoPL program into a :class:`ProgramTemplate`; raise :class:`UnsupportedProgram`."""
    chains: dict[int, list[str]] = {}  # step index -> ops of the chain ending at that step
    starts: dict[int, str] = {}
    branch: dict[int, int] = {}  # step index -> chain id
    order: list[int] = []
    join: str | None = None
    terminal: str | None = None
    for i, step in enumerate(program):
        fn = step.get("function")
        deps = step.get("dependencies", [])
        if fn in ("Find", "FindAll"):
            chains[i] = []
            starts[i] = "entity" if fn == "Find" else "all"
            branch[i] = i
            order.append(i)
        elif fn == "Relate":
            chains[branch[deps[0]]].append("hop")
            branch[i] = branch[deps[0]]
        elif fn in _FILTERS:
            chains[branch[deps[0]]].append("filter")
            branch[i] = branch[deps[0]]
        elif fn == "FilterConcept":
            branch[i] = branch[deps[0]]
        elif fn in ("And", "Or"):
            if join is not None:
                raise UnsupportedProgram(f"{fn}: only one join per program is supported")
            join = fn.lower()
            branch[i] = branch[deps[0]]
        elif fn in _VERIFY:
            if terminal != "attr" or i != len(program) - 1:
                raise UnsupportedProgram(f"{fn}: supported only as the last step, after QueryAttr")
            terminal = "verify"
        elif fn in _TERMINALS:
            terminal = _TERMINALS[fn]
            verified = fn == "QueryAttr" and i == len(program) - 2 and program[-1].get("function") in _VERIFY
            if i != len(program) - 1 and not verified:
                raise UnsupportedProgram(f"{fn} followed by {program[-1].get('function')}: not supported")
        else:
            raise UnsupportedProgram(f"{fn}: not in the supported KoPL subset")
    if terminal is None:
        raise UnsupportedProgram("no terminal step")
    if terminal in ("relation", "select") and (len(order) != 2 or join is not None):
        raise UnsupportedProgram(f"{terminal}: needs exactly two unjoined chains")
    if terminal not in ("relation", "select") and len(order) != (2 if join else 1):
        raise UnsupportedProgram(f"{len(order)} chains with join {join}")
    if any(starts[i] == "all" and (not chains[i] or chains[i][0] != "filter") for i in order):
        raise UnsupportedProgram("FindAll must be followed by an attribute filter")
    return ProgramTemplate(tuple(tuple(chains[i]) for i in order), join, terminal, tuple(starts[i] for i in order))


# ---------------------------------------------------------------------- grounding
@dataclass
class _Chain:
    ops: list[tuple[str, str, str]] = field(default_factory=list)  # (op, relation, value-or-"")
    start: str = ""  # an entity, or "" for FindAll
    all_start: bool = False


def _execute(store: TripleStore, chain: _Chain, limit: int = 2000) -> list[tuple[str, list[Triple]]]:
    """All (end entity, path) of a grounded chain, at most ``limit`` partial paths per step."""
    if chain.all_start:
        op, rel, value = chain.ops[0]
        frontier = [(f.head, [f.triple]) for f in store.in_edges(value, rel)][:limit]
        ops = chain.ops[1:]
    else:
        frontier = [(chain.start, [])]
        ops = chain.ops
    for op, rel, value in ops:
        nxt: list[tuple[str, list[Triple]]] = []
        for ent, path in frontier:
            if op == "hop":
                nxt.extend((f.tail, path + [f.triple]) for f in store.out_edges(ent, rel) if f.triple not in path)
            else:
                nxt.extend((ent, path + [f.triple]) for f in store.out_edges(ent, rel) if f.tail == value)
        frontier = nxt[:limit]
    return frontier


def _np(chain: _Chain) -> str:
    if chain.all_start:
        _, rel, value = chain.ops[0]
        text = f"the entity whose {clean_relation(rel)} is {clean_entity(value)}"
        ops = chain.ops[1:]
    else:
        text = clean_entity(chain.start)
        ops = chain.ops
    for op, rel, value in ops:
        if op == "hop":
            text = f"the {clean_relation(rel)} of {text}"
        else:
            text = f"{text} (whose {clean_relation(rel)} is {clean_entity(value)})"
    return text


def _walk(store: TripleStore, rng: random.Random, start: str, ops: Iterable[str]) -> _Chain | None:
    chain = _Chain(start=start)
    cur = start
    for op in ops:
        facts = store.out_edges(cur)
        if not facts:
            return None
        f = facts[rng.randrange(len(facts))]
        if op == "hop":
            chain.ops.append(("hop", f.relation, ""))
            cur = f.tail
        else:
            chain.ops.append(("filter", f.relation, f.tail))
    return chain


def ground_template(
    template: ProgramTemplate,
    store: TripleStore,
    rng: random.Random,
    heads: list[str] | None = None,
    max_answers: int = 10,
    max_paths: int = 10,
    tries: int = 50,
    truth: bool | None = None,
) -> QAExample | None:
    """Instantiate ``template`` in ``store``: a question with complete answers and gold paths.

    ``truth`` (``verify`` templates): ground a true (``yes``) or a false (``no``) claim; ``None``
    draws it from ``rng``. Returns ``None`` when ``tries`` random walks found no instance with
    1..``max_answers`` answers and at most ``max_paths`` gold paths.
    """
    heads = heads if heads is not None else sorted({f.head for e in store.entities() for f in store.out_edges(e)})
    for _ in range(tries):
        start = heads[rng.randrange(len(heads))]
        first_ops = template.chains[0]
        if template.starts and template.starts[0] == "all":
            facts = store.out_edges(start)
            if not facts:
                continue
            f = facts[rng.randrange(len(facts))]
            rest = _walk(store, rng, start, first_ops[1:])
            if rest is None:
                continue
            c1 = _Chain(ops=[("filter", f.relation, f.tail)] + rest.ops, all_start=True)
        else:
            c1 = _walk(store, rng, start, first_ops)
        if c1 is None:
            continue
        runs1 = _execute(store, c1)
        if not runs1:
            continue
        chains = [c1]
        if len(template.chains) == 2:
            c2 = _second_chain(template, store, rng, heads, runs1)
            if c2 is None:
                continue
            chains.append(c2)
        example = _finish(template, store, rng, chains, max_answers, max_paths, truth)
        if example is not None:
            return example
    return None


def _second_chain(template: ProgramTemplate, store: TripleStore, rng: random.Random, heads: list[str],
                  runs1: list[tuple[str, list[Triple]]]) -> _Chain | None:
    ops2 = template.chains[1]
    all_start = len(template.starts) > 1 and template.starts[1] == "all"
    if template.join != "and":
        if all_start:
            start = heads[rng.randrange(len(heads))]
            facts = store.out_edges(start)
            if not facts:
                return None
            f = facts[rng.randrange(len(facts))]
            rest = _walk(store, rng, start, ops2[1:])
            return None if rest is None else _Chain(ops=[("filter", f.relation, f.tail)] + rest.ops, all_start=True)
        return _walk(store, rng, heads[rng.randrange(len(heads))], ops2)
    # a conjunction: walk backwards from an answer of chain 1 so that the two chains meet
    cur = runs1[rng.randrange(len(runs1))][0]
    ops: list[tuple[str, str, str]] = []
    for op in reversed(ops2):
        if op == "hop":
            facts = store.in_edges(cur)
            if not facts:
                return None
            f = facts[rng.randrange(len(facts))]
            ops.append(("hop", f.relation, ""))
            cur = f.head
        else:
            facts = store.out_edges(cur)
            if not facts:
                return None
            f = facts[rng.randrange(len(facts))]
            ops.append(("filter", f.relation, f.tail))
    ops.reverse()
    return _Chain(ops=ops, all_start=True) if all_start else _Chain(ops=ops, start=cur)


def _claim(store: TripleStore, rng: random.Random, relation: str, values: list[str], truth: bool) -> str | None:
    """A value to verify: one of ``values`` when ``truth``, else a value of ``relation`` held by
    another entity of ``store`` and not in ``values`` (``None`` when there is none)."""
    if truth:
        return values[rng.randrange(len(values))]
    others = sorted({f.tail for e in store.entities() for f in store.out_edges(e, relation)} - set(values))
    return others[rng.randrange(len(others))] if others else None


_Grounded = tuple[str, list[str], list[list[Triple]]]  # question, answers, gold paths


def _relation_terminal(store: TripleStore, runs: list[list], nps: list[str]) -> _Grounded | None:
    """``How is A related to B?``: the relations linking the single entities of two chains."""
    a, b = runs[0], runs[1]
    if len(a) != 1 or len(b) != 1:
        return None
    links = [f for f in store.out_edges(a[0][0]) if f.tail == b[0][0]]
    if not links:
        return None
    answers = sorted({clean_relation(f.relation) for f in links})
    return f"How is {nps[0]} related to {nps[1]}?", answers, [a[0][1] + [f.triple] for f in links]


def _select_terminal(store: TripleStore, rng: random.Random, runs: list[list], nps: list[str]) -> _Grounded | None:
    """``Which has the greater/smaller R, A or B?`` over a numeric attribute both entities hold."""
    attr_facts = []
    for run in runs:
        if len(run) != 1:
            return None
        attr_facts.append(store.out_edges(run[0][0]))
    common = sorted({f.relation for f in attr_facts[0]} & {f.relation for f in attr_facts[1]})
    values = []
    for rel in common:
        v = [next(f for f in facts if f.relation == rel) for facts in attr_facts]
        try:
            values.append((rel, v, float(v[0].tail), float(v[1].tail)))
        except ValueError:
            continue
    values = [x for x in values if x[2] != x[3]]
    if not values:
        return None
    rel, facts, x0, x1 = values[rng.randrange(len(values))]
    more = rng.random() < 0.5
    winner = 0 if (x0 > x1) == more else 1
    question = f"Which has the {'greater' if more else 'smaller'} {clean_relation(rel)}, {nps[0]} or {nps[1]}?"
    return question, [runs[winner][0][0]], [runs[0][0][1] + [facts[0].triple], runs[1][0][1] + [facts[1].triple]]


def _attribute_terminal(template: ProgramTemplate, store: TripleStore, rng: random.Random, chains: list[_Chain],
                        kept: list[tuple[str, list[Triple]]], final: set[str], nps: list[str],
                        truth: bool | None) -> _Grounded | None:
    """``What is the R of X?`` (``attr``), or ``Is the R of X v?`` (``verify``, one entity; a true or
    false claim) for an attribute the chains did not use."""
    if template.terminal == "verify" and len(final) != 1:
        return None  # a claim about one entity
    used_rel = {rel for c in chains for _, rel, _ in c.ops}
    facts = [f for f in store.out_edges(sorted(final)[0]) if f.relation not in used_rel]
    if not facts:
        return None
    rel = facts[rng.randrange(len(facts))].relation
    paths = [p + [f.triple] for e, p in kept for f in store.out_edges(e, rel)]
    answers = sorted({t for *_, t in (p[-1] for p in paths)})
    subject = nps[0] if len(nps) == 1 else f"the entity that is {nps[0]} {template.join} {nps[1]}"
    if template.terminal != "verify":
        return f"What is the {clean_relation(rel)} of {subject}?", answers, paths
    claim = _claim(store, rng, rel, answers, rng.random() < 0.5 if truth is None else truth)
    if claim is None:
        return None
    return f"Is the {clean_relation(rel)} of {subject} {clean_entity(claim)}?", ["yes" if claim in answers else "no"], paths


def _set_terminal(template: ProgramTemplate, store: TripleStore, rng: random.Random, chains: list[_Chain],
                  runs: list[list], nps: list[str], truth: bool | None) -> _Grounded | None:
    """The chains' end entities (joined by ``and``/``or``), then an attribute, a claim, a count or the set."""
    ends = [{e for e, _ in r} for r in runs]
    if template.join == "and":
        final = ends[0] & ends[1]
    elif template.join == "or":
        final = ends[0] | ends[1]
    else:
        final = ends[0]
    if not final:
        return None
    kept = [(e, p) for r in runs for e, p in r if e in final]
    if template.terminal in ("attr", "verify"):
        return _attribute_terminal(template, store, rng, chains, kept, final, nps, truth)
    paths = [p for _, p in kept]
    subject = nps[0] if len(nps) == 1 else f"{nps[0]} {template.join} {nps[1]}"
    if template.terminal == "count":
        return f"How many entities are {subject}?", [str(len(final))], paths
    return f"What is {subject}?", sorted(final), paths


def _finish(template: ProgramTemplate, store: TripleStore, rng: random.Random, chains: list[_Chain],
            max_answers: int, max_paths: int, truth: bool | None = None) -> QAExample | None:
    runs = [_execute(store, c) for c in chains]
    nps = [_np(c) for c in chains]
    topics = [c.start or c.ops[0][2] for c in chains]
    if template.terminal == "relation":
        grounded = _relation_terminal(store, runs, nps)
    elif template.terminal == "select":
        grounded = _select_terminal(store, rng, runs, nps)
    else:
        grounded = _set_terminal(template, store, rng, chains, runs, nps, truth)
    if grounded is None:
        return None
    question, answers, paths = grounded
    paths = [p for p in paths if p]
    uniq = list(dict.fromkeys(tuple(p) for p in paths))
    if not uniq or len(uniq) > max_paths or not answers or len(answers) > max_answers:
        return None
    gold_paths = [list(p) for p in uniq]
    gold_facts = list(dict.fromkeys(t for p in gold_paths for t in p))
    return QAExample("", question, answers, gold_facts=gold_facts, gold_paths=gold_paths,
                     hops=max(len(p) for p in gold_paths), qtype=template.signature,
                     topic_entities=list(dict.fromkeys(t for t in topics if t)))


def ground_programs(
    programs: Iterable[KQAProgram], store: TripleStore, seed: int = 13, per_program: int = 1,
    max_answers: int = 10, max_paths: int = 10,
) -> tuple[list[QAExample], Counter]:
    """Ground each supported program's template ``per_program`` times; also return a
    :class:`~collections.Counter` of why programs were skipped (unsupported function, no instance).
    ``verify`` questions alternate between true and false claims (``yes``, ``no``, ``yes``, ...)."""
    heads = sorted(e for e in store.entities() if store.out_edges(e))
    out: list[QAExample] = []
    skipped: Counter = Counter()
    verified = 0
    for prog in programs:
        try:
            template = program_template(prog.program)
        except (UnsupportedProgram, KeyError, IndexError) as exc:
            skipped[f"unsupported: {str(exc).split(':')[0]}"] += 1
            continue
        for k in range(per_program):
            rng = random.Random(f"{seed}|{prog.id}|{k}")
            truth = verified % 2 == 0 if template.terminal == "verify" else None
            ex = ground_template(template, store, rng, heads, max_answers, max_paths, truth=truth)
            if ex is None:
                skipped["no instance in the KG"] += 1
                continue
            verified += template.terminal == "verify"
            ex.id = f"kqapro-{prog.id}-{k}"
            out.append(ex)
    return out, skipped

"""Validate the hand-written regression data (tests/regression/kg_* and text_*), not any model.

A wrong gold label would mislead every accuracy figure computed on these files, so each question
is re-derived from its knowledge base where the format allows it:

- KG plain/list/count: walk the gold chain's relation sequence from the question's entity over the
  WHOLE kb.tsv; the entities reached must be the answers (or their number), and the facts on the
  paths to them must be exactly the gold facts (no missing fact, no hidden extra answer).
- KG comparison (and yes/no comparisons): two disjoint chains ending in values of the SAME numeric
  relation; the question's direction word (earlier/later, more/fewer, ...) picks the winner.
- Text: gold passage ids exist, and every (plain: some) answer occurs in a gold passage.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).parent
KG_DIRS = sorted(p for p in ROOT.glob("kg_*") if p.is_dir())
TEXT_DIRS = sorted(p for p in ROOT.glob("text_*") if p.is_dir())
TYPES = {"plain", "list", "yes/no", "count", "comparison"}
KG_KEYS = {"id", "question", "answers", "type", "hops", "gold_facts"}
TEXT_KEYS = {"id", "question", "answers", "type", "hops", "gold_passages"}
MIN_WORDS = {"earlier", "earliest", "older", "oldest", "first", "before", "fewer", "fewest",
             "less", "least", "smaller", "smallest", "lower", "lowest"}
MAX_WORDS = {"later", "latest", "younger", "youngest", "newer", "newest", "after", "more", "most",
             "larger", "largest", "bigger", "biggest", "higher", "highest", "recent", "recently"}

Triple = tuple[str, str, str]


def load_jsonl(path: Path) -> list[dict]:
    """Every non-blank line of ``path`` as a JSON object (the project's reader: errors name the bad line)."""
    from graphhop.kb.loaders import iter_jsonl

    return [obj for _, obj in iter_jsonl(path)]


def check_questions(questions: list[dict], check, *context) -> None:
    """``check(question, *context)`` on every question; fails listing every question that does not pass."""
    errors = []
    for q in questions:
        try:
            check(q, *context)
        except AssertionError as exc:
            errors.append(f"{q.get('id')}: {exc}")
    assert not errors, "\n".join(errors)


def load_kb(path: Path) -> list[Triple]:
    """The triples of a ``head<TAB>relation<TAB>tail`` file, checked for shape and duplicates."""
    triples = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split("\t")
        assert len(parts) == 3, f"{path.name}:{lineno}: expected 3 tab-separated fields"
        assert all(p == p.strip() and p for p in parts), f"{path.name}:{lineno}: empty/padded field"
        triples.append((parts[0], parts[1], parts[2]))
    dup = [t for t, n in Counter(triples).items() if n > 1]
    assert not dup, f"{path.name}: duplicate triples {dup[:3]}"
    return triples


def norm(text: str) -> str:
    """Case- and whitespace-insensitive form used for answer matching."""
    return " ".join(text.lower().split())


def is_number(text: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", text) is not None


def mentions(question: str, names: set[str]) -> list[tuple[int, str]]:
    """Names occurring in the question as whole words (longest first), with their positions."""
    masked, found = question.lower(), []
    for name in sorted(names, key=len, reverse=True):
        pattern = r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)"
        for m in re.finditer(pattern, masked):
            found.append((m.start(), name))
            masked = masked[: m.start()] + "#" * len(name) + masked[m.end():]
    return sorted(found)


def entities(facts: list[Triple]) -> set[str]:
    return {f[0] for f in facts} | {f[2] for f in facts}


def components(facts: list[Triple]) -> list[list[Triple]]:
    """Connected components of the fact graph (undirected), as fact lists."""
    comps: list[list[Triple]] = []
    for fact in facts:
        touching = [c for c in comps if entities(c) & {fact[0], fact[2]}]
        merged = [fact] + [f for c in touching for f in c]
        comps = [c for c in comps if c not in touching] + [merged]
    return comps


def chain_steps(topics: set[str], gold: list[Triple], hops: int) -> list[tuple[str, bool]]:
    """The (relation, forward) of each hop of a gold chain, read breadth-first from the topics.

    Fails when the gold facts are not exactly ``hops`` layers with one relation per layer.
    """
    seen, frontier, remaining, steps = set(topics), set(topics), set(gold), []
    for i in range(hops):
        step = {f for f in remaining if f[0] in frontier or f[2] in frontier}
        signature = {(f[1], f[0] in frontier) for f in step}
        assert len(signature) == 1, f"hop {i + 1}: expected one relation, found {signature}"
        nxt = {f[2] if f[0] in frontier else f[0] for f in step}
        assert not nxt & seen, f"hop {i + 1}: gold chain loops back to {nxt & seen}"
        seen |= nxt
        frontier, remaining = nxt, remaining - step
        steps.append(signature.pop())
    assert not remaining, f"gold facts off the {hops}-hop chain: {sorted(remaining)}"
    return steps


def walk_kb(kb: list[Triple], topics: set[str], steps: list[tuple[str, bool]]):
    """Follow the steps over the whole KB; return (final entities, facts on paths to them)."""
    layers, edges = [set(topics)], []
    for rel, forward in steps:
        hop = [f for f in kb if f[1] == rel and (f[0] if forward else f[2]) in layers[-1]]
        edges.append(hop)
        layers.append({f[2] if forward else f[0] for f in hop})
    keep, used = layers[-1], set()
    for (rel, forward), hop in zip(reversed(steps), reversed(edges)):
        on_path = [f for f in hop if (f[2] if forward else f[0]) in keep]
        used |= set(on_path)
        keep = {f[0] if forward else f[2] for f in on_path}
    return layers[-1], used


def direction(question: str) -> str:
    """``min`` or ``max``, from the question's comparison word (exactly one direction allowed)."""
    words = set(re.findall(r"[a-z]+", question.lower()))
    found = {d for d, vocab in (("min", MIN_WORDS), ("max", MAX_WORDS)) if words & vocab}
    assert len(found) == 1, f"cannot tell the comparison direction from {question!r}: {found}"
    return found.pop()


def comparison_winner(q: dict, kb: list[Triple], names: set[str]):
    """Check a two-chain numeric comparison; return (winner chain, loser chain)."""
    gold = [tuple(f) for f in q["gold_facts"]]
    values = [f for f in gold if is_number(f[2])]
    assert len(values) == 2, "a comparison needs exactly two numeric value facts"
    assert values[0][1] == values[1][1], f"values of different relations compared: {values}"
    assert float(values[0][2]) != float(values[1][2]), "tied values: no answer"
    comps = components(gold)
    assert len(comps) == 2, "a comparison needs two disjoint chains"
    assert max(len(c) for c in comps) == q["hops"], "hops must be the longer chain's length"
    for comp in comps:
        value = next(f for f in comp if f in values)
        topics = {n for _, n in mentions(q["question"], entities(comp) & names)}
        assert topics, f"no entity of the chain to {value} is named in the question"
        steps = chain_steps(topics, comp, len(comp))
        ends, _ = walk_kb(kb, topics, steps)
        assert ends == {value[2]}, f"chain to {value} is ambiguous in the KB: reaches {ends}"
    pick = min if direction(q["question"]) == "min" else max
    best = pick(values, key=lambda f: float(f[2]))
    win = next(c for c in comps if best in c)
    return win, next(c for c in comps if c is not win)


def check_kg_question(q: dict, kb: list[Triple]) -> None:
    """Fail with a message if the question's answers do not follow from its gold facts + KB."""
    assert set(q) == KG_KEYS, f"keys {sorted(q)}"
    check_common(q)
    gold = [tuple(f) for f in q["gold_facts"]]
    assert gold and all(len(f) == 3 for f in gold), "gold_facts must be [h, r, t] triples"
    missing = [f for f in gold if f not in set(kb)]
    assert not missing, f"gold facts not in kb.tsv: {missing}"
    assert len(set(gold)) == len(gold), "duplicate gold facts"
    names = entities(kb)
    topics = {n for _, n in mentions(q["question"], entities(gold))}
    assert topics, "no entity of the gold facts is named in the question"
    answers = {norm(a) for a in q["answers"]}
    numeric = [f for f in gold if is_number(f[2])]
    is_cmp = len(numeric) == 2 and numeric[0][1] == numeric[1][1] and len(components(gold)) == 2
    if q["type"] == "comparison" or (q["type"] == "yes/no" and is_cmp):
        win, lose = comparison_winner(q, kb, names)
        if q["type"] == "comparison":
            assert answers <= {norm(e) for e in entities(win)}, "answer is not on the winning chain"
            assert not answers & {norm(e) for e in entities(lose)}, "answer on the losing chain"
        else:
            first = mentions(q["question"], entities(gold))[0][1]
            expected = "yes" if first in entities(win) else "no"
            assert answers == {expected}, f"the values say {expected!r}"
        return
    if q["type"] == "yes/no":
        assert len(components(gold)) <= 2, "a yes/no question has one chain (or two compared)"
        assert q["hops"] <= len(gold), "more hops than gold facts"
        return
    steps = chain_steps(topics, gold, q["hops"])
    ends, used = walk_kb(kb, topics, steps)
    assert used == set(gold), f"the KB walk uses other facts: extra {sorted(used - set(gold))}"
    if q["type"] == "count":
        assert q["answers"] == [str(len(ends))], f"counted {len(ends)}: {sorted(ends)}"
    elif q["type"] == "list":
        assert answers == {norm(e) for e in ends}, f"the KB walk gives {sorted(ends)}"
        assert len(ends) >= 2, "a list question needs at least two answers"
    else:
        assert len(ends) == 1, f"a plain question with several answers {sorted(ends)}: use list"
        assert norm(ends.pop()) in answers, "the KB walk gives another answer"


def check_common(q: dict) -> None:
    """Fields shared by KG and text questions."""
    assert isinstance(q["id"], str) and q["id"], "id must be a non-empty string"
    assert isinstance(q["question"], str) and len(q["question"].split()) >= 3, "question text"
    assert q["type"] in TYPES, f"type {q['type']!r} not in {sorted(TYPES)}"
    assert isinstance(q["hops"], int) and 1 <= q["hops"] <= 4, "hops must be an int in 1..4"
    ans = q["answers"]
    assert isinstance(ans, list) and ans and all(isinstance(a, str) and a.strip() for a in ans)
    if q["type"] == "yes/no":
        assert ans in (["yes"], ["no"]), "yes/no answers are ['yes'] or ['no']"
    if q["type"] == "count":
        assert len(ans) == 1 and ans[0].isdigit(), "count answers are one integer string"


def check_mix(questions: list[dict], depths: set[int]) -> None:
    """Every question type, both yes and no, and the multi-hop depths are present."""
    types = Counter(q["type"] for q in questions)
    assert set(types) == TYPES, f"missing types: {TYPES - set(types)}"
    yes_no = {q["answers"][0] for q in questions if q["type"] == "yes/no"}
    assert yes_no == {"yes", "no"}, "yes/no questions need both answers"
    missing = depths - {q["hops"] for q in questions}
    assert not missing, f"no question of {sorted(missing)} hops"
    assert sum(len(q["answers"]) > 1 for q in questions if q["type"] == "list") >= 2


@pytest.mark.parametrize("domain", KG_DIRS, ids=lambda p: p.name)
def test_kg_domain(domain: Path) -> None:
    """Sizes, the mix of question types, and each question's answers against its KB."""
    kb = load_kb(domain / "kb.tsv")
    assert 60 <= len(kb) <= 150, f"{len(kb)} triples (want 60-150)"
    questions = load_jsonl(domain / "questions.jsonl")
    assert 25 <= len(questions) <= 35, f"{len(questions)} questions (want 25-35)"
    check_questions(questions, check_kg_question, kb)
    check_mix(questions, {2, 3, 4})


@pytest.mark.parametrize("domain", KG_DIRS, ids=lambda p: p.name)
def test_kb_loads_with_the_project_loader(domain: Path) -> None:
    """kb.tsv reads through graphhop's own triple loader as the same triples."""
    from graphhop.kb.loaders import iter_triples

    loaded = [(f.head, f.relation, f.tail) for f in iter_triples(domain / "kb.tsv")]
    assert loaded == load_kb(domain / "kb.tsv")


def check_text_question(q: dict, passages: dict[str, dict]) -> None:
    """Gold passages exist and contain the answers (yes/no and count: shape only)."""
    assert set(q) == TEXT_KEYS, f"keys {sorted(q)}"
    check_common(q)
    gold = q["gold_passages"]
    assert isinstance(gold, list) and gold and len(set(gold)) == len(gold), "gold_passages"
    unknown = [g for g in gold if g not in passages]
    assert not unknown, f"unknown passage ids {unknown}"
    text = norm(" ".join(passages[g]["title"] + ". " + passages[g]["text"] for g in gold))
    found = [a for a in q["answers"] if norm(a) in text]
    if q["type"] in ("list", "comparison"):
        assert len(found) == len(q["answers"]), f"answers not in gold passages: {q['answers']}"
    elif q["type"] == "plain":
        assert found, f"no alias of {q['answers']} occurs in the gold passages"
    if q["type"] == "list":
        assert len(q["answers"]) >= 2, "a list question needs at least two answers"
    assert q["hops"] <= max(len(gold), 1) + 1, "more hops than gold passages can carry"


@pytest.mark.parametrize("domain", TEXT_DIRS, ids=lambda p: p.name)
def test_text_domain(domain: Path) -> None:
    """Passages are well formed; questions point at real passages that hold their answers."""
    rows = load_jsonl(domain / "passages.jsonl")
    assert 10 <= len(rows) <= 20, f"{len(rows)} passages (want 10-20)"
    for p in rows:
        assert set(p) == {"id", "title", "text"}, f"passage keys {sorted(p)}"
        assert len(re.findall(r"[.!?](\s|$)", p["text"])) >= 2, f"{p['id']}: one sentence only"
    passages = {p["id"]: p for p in rows}
    assert len(passages) == len(rows), "duplicate passage ids"
    questions = load_jsonl(domain / "questions.jsonl")
    assert 15 <= len(questions) <= 25, f"{len(questions)} questions (want 15-25)"
    check_questions(questions, check_text_question, passages)
    check_mix(questions, {2, 3})


def test_suite_layout_and_unique_ids() -> None:
    """Two KG domains and two text domains; question ids unique across the whole suite."""
    assert len(KG_DIRS) >= 2, f"want two kg_* domains, found {[d.name for d in KG_DIRS]}"
    assert len(TEXT_DIRS) >= 2, f"want two text_* domains, found {[d.name for d in TEXT_DIRS]}"
    ids = [q["id"] for d in KG_DIRS + TEXT_DIRS for q in load_jsonl(d / "questions.jsonl")]
    dup = [i for i, n in Counter(ids).items() if n > 1]
    assert not dup, f"duplicate question ids: {dup}"


MINI_KB = [
    ("Acme", "founded by", "Ann"), ("Bolt", "founded by", "Ann"), ("Cogs", "founded by", "Bo"),
    ("Ann", "born in", "Tollen"), ("Bo", "born in", "Ruse"), ("Tollen", "located in", "Karn"),
    ("Ruse", "located in", "Karn"), ("Ann", "birth year", "1950"), ("Bo", "birth year", "1960"),
    ("Acme", "year founded", "1990"), ("Cogs", "year founded", "1970"),
]
GOOD = {"id": "m", "question": "Which country was the founder of Cogs born in?",
        "answers": ["Karn"], "type": "plain", "hops": 3,
        "gold_facts": [["Cogs", "founded by", "Bo"], ["Bo", "born in", "Ruse"],
                       ["Ruse", "located in", "Karn"]]}
BAD = {
    "answer is the city": {"answers": ["Ruse"]},
    "fact not in the KB": {"gold_facts": [["Cogs", "founded by", "Bo"], ["Bo", "born in", "Ruse"],
                                          ["Ruse", "located in", "Tollen"]]},
    "gold fact missing": {"hops": 2, "gold_facts": [["Cogs", "founded by", "Bo"],
                                                    ["Bo", "born in", "Ruse"]]},
    "wrong count": {"question": "How many companies did Ann found?", "type": "count",
                    "answers": ["1"], "hops": 1, "gold_facts": [["Acme", "founded by", "Ann"]]},
    "incomplete list": {"question": "Which companies did Ann found?", "type": "list",
                        "answers": ["Acme"], "hops": 1, "gold_facts": [["Acme", "founded by", "Ann"]]},
    "comparison of two relations": {
        "question": "Which is older, Acme or Bo?", "type": "comparison", "answers": ["Bo"],
        "hops": 1, "gold_facts": [["Acme", "year founded", "1990"], ["Bo", "birth year", "1960"]]},
    "comparison loser": {
        "question": "Which was founded earlier, Acme or Cogs?", "type": "comparison",
        "answers": ["Acme"], "hops": 1,
        "gold_facts": [["Acme", "year founded", "1990"], ["Cogs", "year founded", "1970"]]},
    "yes/no against the values": {
        "question": "Was Acme founded before Cogs?", "type": "yes/no", "answers": ["yes"],
        "hops": 1, "gold_facts": [["Acme", "year founded", "1990"], ["Cogs", "year founded", "1970"]]},
    "unknown type": {"type": "fact"},
}


def test_checker_accepts_a_right_label() -> None:
    check_kg_question(dict(GOOD), MINI_KB)


@pytest.mark.parametrize("case", sorted(BAD))
def test_checker_rejects_wrong_labels(case: str) -> None:
    """The validator is not vacuous: each seeded labelling error is caught."""
    with pytest.raises(AssertionError):
        check_kg_question({**GOOD, **BAD[case]}, MINI_KB)

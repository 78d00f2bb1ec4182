"""Two-sided questions of the ``kgqa`` pipeline: comparisons and yes/no questions about two sides.

A *side* is an entity named (``Halvex Motors``, ``Torrena Athletic's``) or described (``the
founder of Sarrow Shipping``, ``the one Caspar Threlk was born in``). :func:`resolve` turns a
side into its entity: a bare name links directly; a description is answered as a query (its
mention masked) and its best answer is the side's entity, the chain to it part of the support.

:func:`compare_sides` reads, from both sides' entities, the relation paths that end at numeric
values (years, counts) against the attribute text (``who was born earlier X``); the path shared by
both sides with the highest joint probability is used, among those that give each side one value when
there are such (a publisher's founding year, not the years of the books it published), so a birth year is compared with a birth
year, never with a founding year; its probability on each side is taken among the paths both sides
share (the only ones a comparison can use; those with one value per side when there are such). The comparative's direction (earlier/before/fewer/lower ->
minimum, later/after/more/higher -> maximum; ``older``/``younger`` flip on dates) picks the winner.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from graphhop.kgqa.end_type import singular
from graphhop.kgqa.link import Mention, tokens
from graphhop.read.ops import comparison_direction, gives_dates, parse_number

__all__ = ["COMPARATIVES", "split_choice", "split_comparative", "split_same", "read_options", "names_entity", "resolve", "compare_sides",
           "same_value"]

_FILLER = {"the", "a", "an", "s", "one"}
#: comparative words (a word ending in -er is not one by itself: river, other, upper, water, summer)
COMPARATIVES = frozenset("""earlier later before after older younger elder more less fewer bigger larger smaller higher
lower greater longer shorter taller first last newer faster slower heavier lighter wider narrower deeper shallower cheaper""".split())
_SEPARATORS = re.compile(r"\s(than|before|after)\s", re.I)


def split_choice(question: str) -> tuple[str, list[str]]:
    """``"Which was founded first: A or B?"`` -> ``("Which was founded first", ["A", "B"])``.

    The prefix ends at the last ``:``, ``,`` or spaced dash (``Which mill is older - A or B``) before the first
    option. A question that opens with its options puts the asked part after them, past the same marks: ``A or B:
    who is younger?`` / ``A or B - which one has more staff?`` -> ``("who is younger", ["A", "B"])``."""
    q = question.strip().rstrip("?").strip()
    cut = q.lower().rfind(" or ")
    if cut < 0:
        return q, []
    before, second = q[:cut].rstrip(" ,;"), q[cut + 4 :].strip()
    split = max([before.rfind(":"), before.rfind(",")] + [m.start() for m in _DASH.finditer(before)])
    if split < 0:
        tail = _ASKED_AFTER.search(second)
        if tail is not None:
            return tail.group(2).strip(), [before.strip(), second[: tail.start()].strip()]
        return "", [before.strip(), second]
    mark = _DASH.match(before, split)
    return before[:split].strip(), [before[split + (mark.end() - mark.start() if mark else 1) :].strip(), second]


#: A spaced dash between a choice's parts (``Which mill is older - A or B``); a hyphen inside a word is not one.
_DASH = re.compile(r"\s+[-\u2013\u2014]+\s+")
#: The asked part after the options (``A or B: who is younger``): a mark, then a question word.
_ASKED_AFTER = re.compile(r"(\s*[:,]\s*|\s+[-\u2013\u2014]+\s+)((?:which|who|whom|what|whose)\b.*)$", re.I)


_ONE = re.compile(r"^((?:the|that|this)\s+)?one\b", re.I)
#: ``one`` followed by one of these is the pronoun (``the one at X``), not a name (``One Direction``)
_ONE_PRONOUN = re.compile(r"^(?:(?:the|that|this)\s+)?one\s+(?:at|in|on|of|by|from|with|for|under|behind|near|who|whom|"
                          r"whose|that|which|where|founded|based|born|made|run|owned|led)\b", re.I)
#: ``Whose creative director was born later``: the owned noun phrase runs up to the first verb or comparative
_WHOSE = re.compile(r"^whose\s+((?:[a-z-]+\s+){0,3}?[a-z-]+)\s+((?:is|was|were|are|has|had|have|did|does|do|holds|"
                    r"plays|runs|employs|[a-z]+ed|" + "|".join(sorted(COMPARATIVES)) + r")\b.*)$", re.I)
_WHOSE_ONE = re.compile(r"^whose\s+([a-z]+)\s+(.+)$", re.I)
_POSSESSIVE = re.compile(r"(?:'s|s')$", re.I)
#: ``which airline is based in the bigger city``: (verb phrase ending in a preposition, comparative, noun) of a
#: value held by a related entity (``which city has a larger population`` compares the cities themselves)
#: the asked noun may take two words (``which fashion house``); the second is never a verb
_RELATED = re.compile(r"^(?:which|what)\s+[a-z]+(?:\s+(?!(?:is|are|was|were|has|have|had|does|do|did|plays|operates|"
                      r"flies|runs|sits|lies|stands|serves)\b)(?![a-z]+ed\b)[a-z]+)?"
                      r"\s+(.+?\s(?:in|at|on|for|into|from|of|by|near|with|to))\s+(?:the|a)\s+([a-z]+)\s+([a-z]+)$", re.I)


def _is_pronoun(option: str, names: Callable[[str], bool] | None) -> bool:
    """Whether the option's leading ``one`` is the pronoun: followed by a preposition or relative (``the one at
    X``), or the option as written names no entity (``One Direction`` is left alone when it links)."""
    if not _ONE.match(option):
        return False
    return bool(_ONE_PRONOUN.match(option)) or (names is not None and not names(option))


def read_options(prefix: str, options: list[str], noun: str | None,
                 names: Callable[[str], bool] | None = None) -> tuple[str, list[str], str | None, bool]:
    """The options of a choice as sides :func:`resolve` can read: ``(prefix, sides, noun, by_owner)``.

    * ``the one at X`` stands for the asked noun (``Which winemaker is younger: the one at X or the one at
      Y?`` -> ``the winemaker at X``): the pronoun ``one`` is replaced by ``noun`` when a preposition or
      relative follows it, or when ``names`` (whether a text names a KB entity) says the option names none;
    * ``Whose founder was born later, A's or B's?`` compares the founders (sides ``A's founder``, prefix
      ``which was born later``, noun ``founder``) and answers with their owner (``by_owner``: the
      entity the option names, not the founder);
    * ``Which team was founded earlier, A's or B's?`` elides the asked noun after the possessives: the sides are
      ``A's team`` and ``B's team`` (the teams answer);
    * ``Which airline is based in the bigger city, A or B?`` compares the cities (sides ``the city A is based
      in``, prefix ``which is bigger``), answering with their owner too."""
    whose = _WHOSE.match(prefix.strip()) or _WHOSE_ONE.match(prefix.strip())
    if whose is not None:
        owned = whose.group(1).lower()
        sides = [f"{o}{'' if _POSSESSIVE.search(o) else chr(39) + 's'} {owned}" for o in options]
        return f"which {whose.group(2)}", sides, owned, True
    related = _RELATED.match(prefix.strip())
    if related is not None and related.group(2).lower() in COMPARATIVES:
        verb, comparative, held = related.group(1), related.group(2).lower(), related.group(3).lower()
        return f"which is {comparative}", [f"the {held} {o} {verb}" for o in options], held, True
    if noun is not None and all(_POSSESSIVE.search(o) for o in options):  # "which team ..., A's or B's": A's team
        return _without_type(prefix), [f"{o} {noun}" for o in options], noun, False
    if noun is not None and any(_is_pronoun(o, names) for o in options):
        options = [_ONE.sub(lambda m: f"{m.group(1) or 'the '}{noun}", o) if _is_pronoun(o, names) else o
                   for o in options]
        return _without_type(prefix), options, noun, False
    return prefix, options, noun, False


def _without_type(prefix: str) -> str:
    """The prefix without the phrase naming the compared entities' type (``which winemaker is younger`` ->
    ``which is younger``): the sides are already of that type, and the noun would lead the scorer back to
    what describes them."""
    from graphhop.kgqa.end_type import type_phrase

    got = type_phrase(prefix)
    if got is None or got.end <= got.start:
        return prefix
    return " ".join(got.tokens[: got.start] + got.tokens[got.end :])


def split_comparative(question: str) -> tuple[str, str, str] | None:
    """``"Was Lumisk Labs founded after Nimbal Robotics?"`` -> ``("Was", "Lumisk Labs founded", "Nimbal
    Robotics")`` with the separator kept in the middle part (``... founded after``); None when
    the question compares nothing."""
    q = question.strip().rstrip("?").strip()
    m = None
    for m in _SEPARATORS.finditer(q):
        pass
    if m is None:
        return None
    head, tail = q[: m.start()], q[m.end() :]
    words = head.split(maxsplit=1)
    if len(words) < 2 or not tail.strip():
        return None
    return words[0], f"{words[1]} {m.group(1)}", tail.strip()


def split_same(question: str) -> list[tuple[str, str, str]]:
    """``"Do A and B play in the same league?"`` -> ``[("A", "B", "play in the league"), ...]``:
    every split of the words between ``and`` and ``same`` into side B and predicate, side B
    longest first (the caller prefers a side B that is just an entity's name)."""
    q = question.strip().rstrip("?").strip()
    m = re.match(r"^(?:do|does|did|are|were|is|was|have|has)\s+(.+?)\s+and\s+(.+?\bsame\b.*)$", q, re.I)
    if not m:
        return []
    words = m.group(2).split()
    cut = next(i for i, w in enumerate(words) if re.match(r"same\b", w, re.I))
    return [(m.group(1), " ".join(words[:k]), re.sub(r"\bsame\s+", "", " ".join(words[k:]), flags=re.I))
            for k in range(cut - 1, 0, -1)]


def _side_mention(kgqa: Any, text: str) -> tuple[Mention | None, bool]:
    """The side's main mention and whether the side is just that name (bare)."""
    found = kgqa.linker.link(text)
    if not found:
        return None, False
    m = max(found, key=lambda x: (x.end - x.start, -x.start))
    toks = tokens(text)
    rest = [w for i, w in enumerate(toks) if not m.start <= i < m.end and w not in _FILLER]
    return m, not rest


def names_entity(kgqa: Any, text: str) -> bool:
    """Whether ``text`` is just the name of a KB entity (fillers such as ``the`` aside)."""
    return _side_mention(kgqa, text)[1]


def resolve(kgqa: Any, text: str, noun: str | None = None) -> dict[str, Any] | None:
    """The entity a side stands for, with the chains that resolve a description; with ``noun`` (the type
    the comparison asks: ``person`` for "who was born earlier, the author of X or ...") a description's
    answer is typed by it among the reading's paths that ask as much of the side's words
    (:func:`graphhop.kgqa.end_type.retype` with :func:`graphhop.kgqa.cover.rivals`, no continuation), so
    "the author of X" is not its publisher. A description is read by its best path that ends at things, not
    values: a side is compared by a value, it is not one. A side that names its own type right before its entity ("the **drug**
    Orrisk Medica makes", a clause without ``of``) is typed by that noun instead."""
    mention, bare = _side_mention(kgqa, text)
    if mention is None:
        return None
    if bare:
        return {"entity": mention.entities[0], "chains": [], "mention": mention, "prob": 1.0, "text": text}
    toks = tokens(text)
    if mention.start == 2 and toks[0] in ("the", "a", "an") and toks[1].isalpha():
        noun = singular(toks[1])  # "the drug X makes": the side names its own type, right before its entity
    reading = kgqa.read(text, mention)
    things = [(p, float(pr)) for p, pr in zip(reading.paths, reading.probs) if not kgqa.is_value(p)]
    if not things:
        return None
    path, prob = things[0]  # a side is a thing compared by a value, never a value itself ("the mill supplying X")
    typer = getattr(kgqa, "typer", None)
    if noun is not None and typer is not None:
        from graphhop.kgqa.cover import rivals
        from graphhop.kgqa.end_type import retype

        path = retype(typer, path, noun, kgqa.max_hops, extra=0, numeric=kgqa.is_value,
                      rivals=rivals(kgqa, reading, loose=True)).path
        prob = float(reading.probs[reading.paths.index(path)]) if path in reading.paths else prob
    ans = kgqa.answers(path, mention.entities)[:1]
    return {"entity": ans[0], "chains": kgqa.support(path, ans, limit=10)[:1], "mention": mention,
            "prob": prob, "text": text, "noun": noun, "path": kgqa.describe(reading, path)["relation_path"] if path in reading.paths
            else kgqa.describe(reading)["relation_path"]}


def _numeric(kgqa: Any, path: Any) -> list[tuple[float, int]]:
    vals = []
    for e in path.ends.tolist():
        v = parse_number(kgqa.store.entities[e])
        if v is None:
            return []
        vals.append((v, e))
    return vals


def _side_reading(kgqa: Any, side: dict[str, Any], attribute: str) -> Any:
    entity = side["entity"]
    mention = Mention(0, 0, (entity,), kgqa.store.entities[entity])
    text = " ".join(tokens(attribute.replace("X", " xplaceholderx "))).replace("xplaceholderx", "X")
    return kgqa.read(attribute, mention, text=text, typed=False)


def compare_sides(kgqa: Any, question: str, sides: list[dict[str, Any]], attribute: str) -> dict[str, Any] | None:
    """Winner of two resolved sides on the numeric path both share (see the module docstring)."""
    readings = [_side_reading(kgqa, s, attribute) for s in sides]
    numeric = [{p.steps: (p, float(pr)) for p, pr in zip(r.paths, r.probs) if _numeric(kgqa, p)} for r in readings]
    shared = [s for s in numeric[0] if s in numeric[1]]
    if not shared:
        return None
    shared = [s for s in shared if all(len(_numeric(kgqa, t[s][0])) == 1 for t in numeric)] or shared
    shared = _dated(kgqa, question, shared, numeric)
    steps = max(shared, key=lambda s: (numeric[0][s][1] * numeric[1][s][1], -len(s)))
    picks = []
    for side, reading, table in zip(sides, readings, numeric):
        path, prob = table[steps]
        value, entity = min(_numeric(kgqa, path))
        among = [table[s][0] for s in shared]  # a comparison can only use a path both sides have
        prob = prob / max(1e-12, sum(table[s][1] for s in shared))
        picks.append({"side": side, "value": value, "prob": prob, "path": path, "reading": reading, "among": among,
                      "chains": side["chains"] + kgqa.support(path, [entity], limit=10)[:1]})
    relation = kgqa.store.relations[steps[-1][0]]
    direction = comparison_direction(question, relation, gives_dates(relation, [p["value"] for p in picks]))
    a, b = picks
    winner = a if (a["value"] < b["value"]) == (direction == "min") else b
    weakest = min(picks, key=lambda p: p["prob"] * p["side"]["prob"])
    return {"winner": winner, "picks": picks, "direction": direction, "weakest": weakest,
            "relation_path": kgqa.describe(a["reading"], a["path"])["relation_path"]}


#: Comparatives that compare dates: "which hospital is **older**" asks the founding year, not the number of beds.
_TIME_WORDS = frozenset("older oldest elder eldest younger youngest earlier earliest later latest before after newer "
                        "newest".split())


def _dated(kgqa: Any, question: str, shared: list[Any], numeric: list[dict[Any, Any]]) -> list[Any]:
    """The shared numeric paths that give dates when the comparative compares dates (:data:`_TIME_WORDS`) and
    some do; else ``shared``. A path gives dates when its last relation names one (``year founded``, ``birth
    date``) or every value on both sides is a whole number from 1000 to 2100 (``point in time``, ``launched``):
    :func:`graphhop.read.ops.gives_dates`. Session 11 (kgc12: hs24, where the scorer put ``number of beds`` and
    ``year founded`` level)."""
    if not _TIME_WORDS & set(tokens(question)):
        return shared
    names = kgqa.store.relations

    def dates(steps: Any) -> bool:
        values = [v for table in numeric for v, _ in _numeric(kgqa, table[steps][0])]
        return not values or gives_dates(names[steps[-1][0]], values)
    return [s for s in shared if dates(s)] or shared


def same_value(kgqa: Any, sides: list[dict[str, Any]], attribute: str) -> dict[str, Any] | None:
    """Whether both sides reach a common entity along the best relation path they share."""
    readings = [_side_reading(kgqa, s, attribute) for s in sides]
    tables = [{p.steps: (p, float(pr)) for p, pr in zip(r.paths, r.probs)} for r in readings]
    shared = [s for s in tables[0] if s in tables[1]]
    if not shared:
        return None
    steps = max(shared, key=lambda s: (tables[0][s][1] * tables[1][s][1], -len(s)))
    (pa, qa), (pb, qb) = tables[0][steps], tables[1][steps]
    ends_a, ends_b = set(kgqa.answers(pa)), set(kgqa.answers(pb))
    common = sorted(ends_a & ends_b)
    chains = []
    for side, path, ends in ((sides[0], pa, ends_a), (sides[1], pb, ends_b)):
        targets = common[:1] or sorted(ends)[:1]
        chains += side["chains"] + kgqa.support(path, targets, limit=10)[:1]
    weakest = readings[0] if qa <= qb else readings[1]
    return {"same": bool(common), "chains": chains, "reading": weakest, "path": pa if qa <= qb else pb,
            "relation_path": kgqa.describe(readings[0], pa)["relation_path"]}

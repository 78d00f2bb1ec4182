"""Answering over a text index: the span reader reads evidence paths; question types over text.

The retriever (:class:`graphhop.retrieve.texthop.TextHopRetriever`, or any object with
``retrieve_paths``, ``graph_from_paths``, ``text`` and ``title``) gives paths of passages from the
question (every depth's beam). :class:`PathReader` reads each path — its passages joined, as the span
head was trained on linearized chains — and keeps the ``n_best`` spans with their *margin* (span
score minus the null score; > 0 means the reader finds an answer there). A span is snapped to the
proper names it overlaps (:func:`snap`). Then, by question type (:func:`graphhop.read.ops.detect_qtype`):

``query``
    the span with the highest margin over all paths; support = its path up to the passage that holds
    it (the path with the highest retrieval score among those giving the same answer). ``answers``
    also lists the items of a list span (``A and B``) and the other answers within ``list_margin``.
    No path with a margin above ``min_margin``: **no supported answer** (empty answer, ``supported``
    false).
``boolean``
    ``Was A released before B?`` (a comparative and two names) compares A's and B's values (below);
    otherwise the claimed value is the question's last name or number (``... born in Castelvane?``)
    and the question is read with it replaced by ``what``: ``yes`` when the answer found is the claim,
    or its sentence names the claim after it (``Vinci, a town in Italy``) or the first sentence of its
    own passage does (``Vinci is a town in Italy``); ``no`` when a
    supported answer says otherwise (its evidence is the support); no supported answer when nothing
    is found.
``count``
    a number read for the question is the count (not a year); otherwise the question is read as
    ``Which ...?`` and the distinct answers within ``count_margin`` of the best (list spans split into
    items) are counted.
``comparison``
    ``..., A or B?``: each option is retrieved and read on its own with the question's prefix; its
    value is the best span that parses as a number on a path that names the option; the comparative's
    direction picks the option (the answer is the option as written, or the title of the passage
    holding the value when the option describes its entity: ``the director of X``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from graphhop.graph import EvidenceGraph
from graphhop.models.span_head import FrozenSpanReaderModel
from graphhop.kb.names import fold_name, name_mentions, name_spans
from graphhop.read.numbers import is_number, parse_value
from graphhop.read.ops import _AGE
from graphhop.read.text_lists import _same, asks_list, asks_people, list_items, margin_items, split_list
from graphhop.read.text_forms import (asks_amount, denied_item, is_entity_name, is_time_span, negated_question,
                                       titled_name)

__all__ = ["asks_list", "Reading", "PathReader", "TextAnswer", "TextQA", "split_list", "parse_value"]

_ASKS_NAME = re.compile(r"^\s*(?:who|whom|where)\b|^\s*in (?:which|what) (?!year|decade|century|month|date)", re.I)
@dataclass(frozen=True)
class Reading:
    """One span read on one path: its text, margin over the null span, and the path ids up to it."""

    text: str
    margin: float
    path: tuple[str, ...]
    path_score: float
    sentence: str = ""
    holder: str = ""  # the entity the value was read of (walk reader), when known
    type_fit: float = 0.0  # how well the answer fits the asked type (walk reader; 1 = named so by the text)
    hops: int = 0  # sentence edges walked to it (walk reader)


@dataclass
class TextAnswer:
    """What :class:`TextQA` returns for one question."""

    qtype: str
    answer: str
    score: float
    answers: list[str]
    supported: bool
    support: tuple[str, ...]
    graph: EvidenceGraph
    trace: dict[str, Any] = field(default_factory=dict)


#: Comparatives read as the adjective a passage writes (``longer`` -> ``long``: ``214 kilometres long``).
_POSITIVE = {"longer": "long", "shorter": "short", "taller": "tall", "higher": "high", "lower": "low", "bigger": "big",
             "smaller": "small", "larger": "large", "wider": "wide", "deeper": "deep", "heavier": "heavy"}


def _positive(question: str) -> str:
    """``question`` with its comparatives as plain adjectives (what the text says of each option)."""
    return re.sub(r"\b(" + "|".join(_POSITIVE) + r")\b", lambda m: _POSITIVE[m.group(1).lower()], question, flags=re.I)


#: ``the club that organised X``, ``the city Matthias Orrel was born in``, ``the one Ilse Marrow directed``: an option
#: that describes its entity by a noun and a clause (a relative pronoun, or a name right after the noun).
_CLAUSE = re.compile(r"^(?:[Tt]he|[Aa]n?)\s+([a-z]+)\s+(?:(?:that|which|who|whom|where)\s+(.+)|(?=[A-Z])(.+))$")


def question_numbers(question: str) -> set[float]:
    """The values of the numbers a question writes in digits (``Which had more inhabitants in 1500, A or B?``: 1500): a
    condition on the value asked, never the value."""
    return {v for m in re.finditer(r"\b\d[\d,.]*\d\b|\b\d\b", question) if (v := parse_value(m[0])) is not None}


def _age_question(question: str, name: str) -> list[str]:
    """How the text dates an entity whose age a comparison asks (``Who was older``, ``born earlier``, ``Is the
    body ... older than``): ``When was <name> born?`` for a person (a ``who`` question, or ``born``), ``When was
    <name> founded?`` for anything else asked ``older``; ``[]`` when the question asks no age."""
    words = set(re.findall(r"[a-z]+", question.lower()))
    if "born" in words or (words & _AGE and re.match(r"^\s*(?:who|whose)\b", question, re.I)):
        return [f"When was {name} born?"]
    return [f"When was {name} founded?"] if words & _AGE else []


class PathReader:
    """Reads evidence paths with the span head (default: the shipped one)."""

    def __init__(self, model: FrozenSpanReaderModel | None = None, n_best: int = 5, batch_size: int = 16) -> None:
        self.model = model or FrozenSpanReaderModel.load()
        self.n_best = n_best
        self.batch_size = batch_size

    def read(self, question: str, retriever: Any, paths: Sequence[Any]) -> list[Reading]:
        """Every path's ``n_best`` spans, each with the path prefix up to the passage holding it."""
        texts = [_joined(retriever, p.ids) for p in paths]
        preds = self.model.predict([(question, t) for t, _ in texts], n_best=self.n_best, batch_size=self.batch_size)
        out: list[Reading] = []
        for path, (joined, spans), n_best in zip(paths, texts, preds):
            names = name_spans(joined)
            for p in n_best:
                if not p.text.strip():
                    continue
                a, z = snap(joined, p.start, p.end, names)
                upto = [i for i, (s, e) in enumerate(spans) if s < z and a < e]
                last = upto[-1] if upto else len(path.ids) - 1
                out.append(Reading(_clean(joined[a:z]), p.score - p.null_score, path.ids[: last + 1], path.score,
                                   _sentence(joined, a, z)))
        return out


def _joined(retriever: Any, ids: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    parts, spans, pos = [], [], 0
    for d in ids:
        text = retriever.text(d)
        text = text if text.endswith((".", "!", "?")) else text + "."
        parts.append(text)
        spans.append((pos, pos + len(text)))
        pos += len(text) + 1
    return " ".join(parts), spans


def snap(text: str, start: int, end: int, names: Sequence[tuple[int, int, str]]) -> tuple[int, int]:
    """Snap a predicted span to the proper names it overlaps: one name -> that name (a ``The``
    the span began with is kept); several -> a list when only ``,``/``and`` separate them (``A, B and
    C``), else the first; none -> as is.
    A span that overlaps no name but holds a number is cut to the number (``born in 1452`` -> ``1452``)."""
    hit = [(a, z) for a, z, _ in names if a < end and start < z]
    if hit:
        listed = all(re.fullmatch(r",?\s*(?:and|or|&)?\s*", text[z1:a2]) for (_, z1), (a2, _) in zip(hit, hit[1:]))
        a, z = hit[0][0], (hit[-1][1] if listed else hit[0][1])
        lead = text[max(0, a - 4) : a]
        if lead.lower() == "the " and start <= a - 4:
            a -= 4
        return a, z
    m = re.search(r"\d[\d,.]*\d|\d", text[start:end])
    if m:
        return start + m.start(), start + m.end()
    return start, end


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` around ``[start, end)``."""
    a = max(text.rfind(". ", 0, start), text.rfind(": ", 0, start))
    z = text.find(". ", end)
    return text[a + 2 if a >= 0 else 0 : z + 1 if z >= 0 else len(text)]


def _clean(text: str) -> str:
    return text.strip(" \t\n.,;:()\"'")


def _mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name`` (whole words, folded)."""
    return bool(name.strip()) and f" {fold_name(name)} " in f" {fold_name(text)} "


def _is_name(option: str) -> bool:
    """Whether a comparison's option is a name itself (``the Ashfield Arena``), not a description of its
    entity (``the director of The Salt Road``)."""
    names = name_mentions(option)
    bare = [fold_name(re.sub(r"^the\s+", "", t.strip(" ?."), flags=re.I)) for t in (option, *names[:1])]
    return len(names) == 1 and bare[0] == bare[1]


def _mentions_option(reading: Reading, option: str, qa: "TextQA") -> bool:
    """Whether the reading's path is about ``option``: a passage of it mentions the option's name
    (an option that describes its entity, ``the director of X``, needs its name ``X``)."""
    names = name_mentions(option) or [option]
    return any(_mentions(qa.retriever.text(d), n) for d in reading.path for n in names)


class TextQA:
    """Retrieval over a text index + the path reader + question-type operations (module docstring)."""

    def __init__(self, retriever: Any, reader: PathReader | None = None, min_margin: float = 0.0,
                 count_margin: float = 2.0, list_margin: float = 1.0, typed_margin: float = 1.2,
                 sibling_margin: float = 0.35, sibling_fit: float = 0.25, bridges: bool = False) -> None:
        self.retriever = retriever
        self.bridges = bridges  # support completion (:meth:`bridged`)
        self.reader = reader or PathReader()
        self.min_margin = min_margin
        self.count_margin = count_margin
        self.list_margin = list_margin
        self.typed_margin = typed_margin
        self.sibling_margin = sibling_margin
        self.sibling_fit = sibling_fit

    def _read(self, question: str, query: str | None = None) -> tuple[list[Any], list[Reading]]:
        if hasattr(self.reader, "walk"):  # the walk reader finds its own paths (graphhop.read.walk)
            return self.reader.read(question, query)
        beams = self.retriever.retrieve_paths(query or question)
        paths = [p for beam in beams for p in beam]
        return paths, self.reader.read(question, self.retriever, paths)

    def _best(self, readings: Sequence[Reading]) -> Reading | None:
        """The best reading; its support is the best-scored path giving the same answer."""
        if not readings:
            return None
        top = max(readings, key=lambda r: r.margin)
        same = [r for r in readings if _same(r.text, top.text) and r.margin > self.min_margin]
        return max(same, key=lambda r: (r.path_score, r.margin)) if same else top

    def answer(self, question: str, qtype: str | None = None) -> TextAnswer:
        """Answer ``question`` (type detected unless given)."""
        from graphhop.read.ops import detect_qtype

        kind = qtype or detect_qtype(question)
        if kind == "boolean":
            from graphhop.read.text_yesno import answer_yes_no

            return answer_yes_no(self, question)
        if kind == "count":
            from graphhop.read.text_counts import answer_count

            return answer_count(self, question)
        if kind == "comparison":
            return self._comparison(question)
        res = self._query(question, kind)
        return self.bridged(res) if self.bridges else res

    def bridged(self, res: TextAnswer) -> TextAnswer:
        """``res`` with its support completed by the bridge passages of its answer: the own passage (titled with it)
        of an entity a support passage names, when that passage names an answer too. It states the link from the
        entity the chain went through to the answer itself (``Hedda Gorrinsen`` kept ``Skerrow Rock``; the
        lighthouse's own passage says ``Mirela Vosk`` designed it), so it belongs to the answer's evidence even when
        the walk read the answer elsewhere. Numbers (no entity) and unsupported answers are left as they are."""
        items = [a for a in (res.answers or [res.answer]) if a and not is_number(a)]
        if not (res.supported and items):
            return res
        support = list(res.support)
        for doc in res.support:
            for name in name_mentions(self.retriever.text(doc)):
                own = self._own(re.sub(r"['’]s?$", "", name))[:1]
                if own and own[0] not in support and any(_mentions(self.retriever.text(own[0]), a) for a in items):
                    support.append(own[0])
        return replace(res, support=tuple(support)) if len(support) > len(res.support) else res

    def _own(self, name: str) -> list[str]:
        """The passages titled with ``name``: the walk reader's sentence graph's (which reads a shortened name:
        ``Skerrow Rock`` for ``Skerrow Rock Lighthouse``), else the retriever's entity links."""
        graph = getattr(self.reader, "graph", None)
        return list(graph.own(name)) if graph is not None and hasattr(graph, "own") else self._titled(name)

    def _result(self, qtype: str, paths: Sequence[Any], best: Reading | None, question: str,
                trace: dict[str, Any], text: str | None = None, answers: list[str] | None = None,
                support: Sequence[str] | None = None) -> TextAnswer:
        graph = self.retriever.graph_from_paths(question, paths)
        ok = best is not None and best.margin > self.min_margin
        ans = (text if text is not None else best.text) if ok else ""
        sup = tuple(support if support is not None else best.path) if ok else ()
        return TextAnswer(qtype, ans, best.margin if best else float("-inf"), answers if answers is not None else ([ans] if ans else []),
                          ok, sup, graph, trace)

    def _query(self, question: str, kind: str = "query", listing: bool = False, query: str | None = None,
               names: bool = False) -> TextAnswer:
        """The best answer (and a list's items: ``listing``, or a question that asks a list); ``query`` as
        :meth:`_read` takes it; ``names``: only answers that are names (an entity, not a number nor a common noun)."""
        paths, readings = self._read(question, query)
        listing = listing or asks_list(question) or asks_people(question)
        if names:
            readings = [r for r in readings if is_entity_name(r.text)]
        if listing and not negated_question(question):  # ``..., but none of its boats reached X``: no item X
            readings = [r for r in readings if not denied_item(r.sentence, r.text)]
        if _ASKS_NAME.match(question):  # ``who`` / ``where`` / ``in which country`` ask for a name, never a number
            readings = [r for r in readings if not is_number(r.text)]
        best = self._best(readings)
        if best is None or best.margin <= self.min_margin:
            return self._result(kind, paths, best, question, {"paths": len(paths)})
        if listing:
            best, items, support = list_items(self, question, readings, best)
        else:
            items, support = margin_items(self, readings, best, self.list_margin)
        return self._result(kind, paths, best, question, {"paths": len(paths), "items": items}, answers=items,
                            support=support if len(items) > 1 else None)

    def _titled(self, name: str) -> list[str]:
        """Passages titled ``name`` (via the retriever's entity links, when it has them)."""
        links = getattr(getattr(self.retriever, "search", None), "entity_links", None)
        if links is None or not links.titled:
            return []
        return list(links._names.get(fold_name(name), []))

    def _comparison(self, question: str) -> TextAnswer:
        from graphhop.kgqa.compare import split_choice

        prefix, options = split_choice(question)  # ``Which is older: A, or B?`` as ``Which is older, A or B?``
        return self._compare(question, options, lambda opt: f"{prefix} {opt}?".strip())

    def _compare(self, question: str, options: Sequence[str], sub_question: Any) -> TextAnswer:
        """Each option's value (:meth:`_pick`); the comparative picks one. The trace's ``chosen`` is the index of
        the option picked."""
        from graphhop.read.ops import comparison_direction

        picks: list[dict[str, Any]] = []
        all_paths: list[Any] = []
        for i, opt in enumerate(options):
            pick, paths = self._pick(question, opt, [o for o in options if o != opt], sub_question)
            all_paths += paths
            if pick is not None:
                picks.append({**pick, "index": i})
        if len(picks) < 2:
            return self._result("comparison", all_paths, None, question, {"options": list(options),
                                                                         "reason": "fewer than two options with a value"})
        years = all(1000 <= p["value"] <= 2100 for p in picks)
        direction = comparison_direction(question, "year" if years else "")
        chosen = (min if direction == "min" else max)(picks, key=lambda p: p["value"])
        support = [d for p in picks for d in (*p.pop("via"), *p["reading"].path)]
        weakest = min((p["reading"] for p in picks), key=lambda r: r.margin)
        best = Reading(chosen["holder"], max(weakest.margin, self.min_margin + 1e-6), weakest.path, weakest.path_score)
        trace = {"options": list(options), "direction": direction, "chosen": chosen["index"],
                 "picks": [{k: v for k, v in p.items() if k != "reading"} for p in picks]}
        return self._result("comparison", all_paths, best, question, trace, text=chosen["holder"],
                            support=list(dict.fromkeys(support)))

    def _pick(self, question: str, option: str, others: Sequence[str],
              sub_question: Any) -> tuple[dict[str, Any] | None, list[Any]]:
        """One option's value: an option that describes its entity (``the leader of the Kesh Tor expedition``) is
        first resolved to it (:meth:`_resolve`); an age (``Who was older``, ``born earlier``) is read as the year of
        birth (``When was X born?``; ``founded`` for a non-person, :func:`_age_question`) when the text gives one,
        else the option is read with the question's own words (``sub_question``). The value is the best span that
        parses as a number on a path that names the option (its holder the option, when it is a name)."""
        resolved, amount = self._resolve(question, option), asks_amount(question)
        age = bool(_age_question(question, option))  # an age may be read off a later candidate (``Aurenne``: a place)
        given = question_numbers(question)  # ``more inhabitants in 1500``: 1500 dates the value, it is none
        all_paths: list[Any] = []
        for name, via in (resolved if age else resolved[:1]) + [(option, ())]:  # then the option itself
            entity = name != option
            dated = _age_question(question, name) if entity or _is_name(name) else []  # a resolved entity's age:
            tries = [(q, True) for q in dated] + ([] if dated and entity else [(_positive(sub_question(name)), False)])
            for sub, is_dated in tries:  # only as the text dates it
                paths, readings = self._read(sub)
                all_paths += paths
                numeric = [r for r in readings if parse_value(r.text) is not None and _mentions_option(r, name, self)
                           and not (amount and is_time_span(r.text, r.sentence))]  # ``From 1950 to 1958``: no amount
                numeric = [r for r in numeric if not any(_same(r.holder, o) for o in others)  # another option's value
                           and parse_value(r.text) not in given]
                if is_dated:  # a year of birth / founding, read with the text's own words for it
                    numeric = [r for r in numeric if r.margin > self.min_margin and _same(r.holder, name)
                               and 1000 <= (parse_value(r.text) or 0) <= 2100]
                if _is_name(name) and not question.lower().startswith("whose"):  # ``Whose stadium``: its stadium's
                    numeric = [r for r in numeric if r.holder and _same(r.holder, name)] or numeric
                if numeric:
                    r = max(numeric, key=lambda x: x.margin)
                    return {"option": option, "value": parse_value(r.text), "text": r.text, "reading": r, "via": via,
                            "asked": sub, "holder": name if entity else self._holder(option, r)}, all_paths
        return None, all_paths

    def _resolve(self, question: str, option: str, most: int = 3) -> list[tuple[str, tuple[str, ...]]]:
        """The entities an option that describes its entity may stand for (``the man who led both expeditions to
        Oskelt``), best first: the answers to ``Which club organised X?`` that the text names as the asked type
        (``the club that organised X``), else the answers to ``Who is <option>?`` (``What`` unless the question asks
        ``who``) by their margin plus their fit to the asked type; each with its path and the passages that state the
        link themselves (:meth:`stating`). ``[]`` for an option that is a name or when nothing is read."""
        from graphhop.read.facts import answer_type

        if _is_name(option) or not name_mentions(option):
            return []
        if titled := titled_name(option):  # ``the clown Fenn Larkow``: the name itself
            return [(titled, ())]

        def named(question: str) -> list[Reading]:
            return [r for r in self._read(question)[1] if r.margin > self.min_margin and not is_number(r.text)
                    and not any(_same(r.text, n) for n in name_mentions(option))]

        clause = _CLAUSE.match(option.strip(" ?."))
        noun = (answer_type(question) or "").split()[:1] if clause and clause[1] == "one" else [clause[1]] if clause else []
        typed = [r for r in named(f"Which {noun[0]} {clause[2] or clause[3]}?") if r.type_fit >= 1.0] if noun else []
        wh = "Who" if re.match(r"^\s*(?:who|whom|whose)\b", question, re.I) else "What"
        found = typed or named(f"{wh} is {option.strip(' ?.')}?")  # ``the club that ...``: a club the text names so
        out: list[tuple[str, tuple[str, ...]]] = []
        for r in sorted(found, key=lambda r: -(r.margin + r.type_fit)):
            if len(out) < most and not any(_same(r.text, name) for name, _ in out):
                out.append((r.text, tuple(dict.fromkeys((*r.path, *self.stating(option, r.text))))))
        return out

    def stating(self, text: str, answer: str) -> list[str]:
        """The passages of the entities ``text`` names (titled with them) that name ``answer`` too: they state the
        link between the two themselves (``Kesh Tor``'s own passage names its expedition's leader), so they belong
        to the support of an answer read through another passage."""
        names = [re.sub(r"['’]s?$", "", n) for n in name_mentions(text)]  # ``Arvid Lunne's companion``: Arvid Lunne
        return [d for n in names for d in self._titled(n) if _mentions(self.retriever.text(d), answer)]

    def _holder(self, option: str, reading: Reading) -> str:
        """The option as written when it is a name or names a passage's title; else (an option that describes
        its entity: ``the director of X``) the entity holding the value."""
        if _is_name(option):  # ``the Ninefold``: the name without its article (``The Lantern Weaver`` keeps its own)
            return re.sub(r"^the\s+", "", option.strip(" ?."))
        if titled := titled_name(option):  # ``the clown Fenn Larkow``: Fenn Larkow
            return titled
        if reading.holder:
            return option.strip(" ?.") if _same(option, reading.holder) else reading.holder
        titles = [t for t in (self.retriever.title(d) for d in reading.path) if t]
        if any(_same(option, t) for t in titles) or not titles:
            return option.strip(" ?.")
        return titles[-1]

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
from dataclasses import dataclass, field
from typing import Any, Sequence

from graphhop.graph import EvidenceGraph
from graphhop.models.span_head import FrozenSpanReaderModel
from graphhop.kb.names import fold_name, name_mentions, name_spans
from graphhop.read.numbers import is_number, parse_value

__all__ = ["asks_list", "Reading", "PathReader", "TextAnswer", "TextQA", "split_list", "parse_value"]

_COMPARE_WORDS = {"before", "after", "earlier", "later", "older", "younger", "bigger", "smaller", "larger", "higher",
                  "lower", "longer", "shorter"}
_ARTICLES_VERBS = {"is", "was", "are", "were", "a", "an", "the"}
_CLAUSE_WORDS = {"to", "in", "on", "of", "at", "from", "by", "and", "with", "whose", "which", "that", "who", "where",
                 "near", "north", "south", "east", "west", "between", "founded", "built", "known"}
_ASKS_NAME = re.compile(r"^\s*(?:who|whom|where)\b|^\s*in (?:which|what) (?!year|decade|century|month|date)", re.I)
_COUNT = re.compile(r"^how many\b", re.I)
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


def asks_list(question: str) -> bool:
    """Whether ``question`` asks for every item of a plural type (``Which paintings ...``, ``What ships ...``)."""
    from graphhop.read.facts import answer_type

    asked = (answer_type(question) or "").split()
    return bool(re.match(r"^\s*(?:which|what)\b", question, re.I)) and bool(asked) and \
        asked[0].endswith("s") and not asked[0].endswith(("ss", "us", "is"))


#: Comparatives read as the adjective a passage writes (``longer`` -> ``long``: ``214 kilometres long``).
_POSITIVE = {"longer": "long", "shorter": "short", "taller": "tall", "higher": "high", "lower": "low", "bigger": "big",
             "smaller": "small", "larger": "large", "wider": "wide", "deeper": "deep", "heavier": "heavy"}


def _positive(question: str) -> str:
    """``question`` with its comparatives as plain adjectives (what the text says of each option)."""
    return re.sub(r"\b(" + "|".join(_POSITIVE) + r")\b", lambda m: _POSITIVE[m.group(1).lower()], question, flags=re.I)


def split_list(text: str) -> list[str]:
    """``"A, B and C"`` -> ``["A", "B", "C"]``."""
    parts = re.split(r",(?!\d{3}(?!\d))\s*|\s+and\s+|\s*;\s*", text.strip(" ."))
    return [p.strip() for p in parts if p.strip()]


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


def _after_answer(sentence: str, answer: str) -> str:
    """The part of ``sentence`` after ``answer``'s mention (``Żelazowa Wola, a village in Poland``:
    where the sentence says what the answer is in); the whole sentence when the answer is not in it."""
    at = fold_name(sentence).find(fold_name(answer)) if answer.strip() else -1
    if at < 0:
        return sentence
    words_before = len(fold_name(sentence)[:at].split())
    return " ".join(re.findall(r"\w+", sentence)[words_before + len(fold_name(answer).split()) :])


def _first_sentence(text: str) -> str:
    """A passage's first sentence (how it describes its title)."""
    m = re.search(r"[.!?](?:\s|$)", text)
    return (text[: m.end()] if m else text).strip()


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


def _describes(text: str, claim: str) -> bool:
    """Whether ``text`` places its subject in ``claim`` (mentions it, but not as a bearing: ``north of Arland``)."""
    if not _mentions(text, claim):
        return False
    bearing = r"\b(?:north|south|east|west)(?:ern)?(?:-\w+)? of (?:the )?" + r"\W+".join(map(re.escape, claim.split()))
    return not re.search(bearing, text, re.I)


def _same(a: str, b: str) -> bool:
    fa, fb = fold_name(a), fold_name(b)
    return bool(fa and fb) and (fa == fb or f" {fa} " in f" {fb} " or f" {fb} " in f" {fa} ")


def _mentions_option(reading: Reading, option: str, qa: "TextQA") -> bool:
    """Whether the reading's path is about ``option``: a passage of it mentions the option's name
    (an option that describes its entity, ``the director of X``, needs its name ``X``)."""
    names = name_mentions(option) or [option]
    return any(_mentions(qa.retriever.text(d), n) for d in reading.path for n in names)


class TextQA:
    """Retrieval over a text index + the path reader + question-type operations (module docstring)."""

    def __init__(self, retriever: Any, reader: PathReader | None = None, min_margin: float = 0.0,
                 count_margin: float = 2.0, list_margin: float = 1.0, typed_margin: float = 1.2) -> None:
        self.retriever = retriever
        self.reader = reader or PathReader()
        self.min_margin = min_margin
        self.count_margin = count_margin
        self.list_margin = list_margin
        self.typed_margin = typed_margin

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
            return self._boolean(question)
        if kind == "count":
            return self._count(question)
        if kind == "comparison":
            return self._comparison(question)
        return self._query(question, kind)

    def _result(self, qtype: str, paths: Sequence[Any], best: Reading | None, question: str,
                trace: dict[str, Any], text: str | None = None, answers: list[str] | None = None,
                support: Sequence[str] | None = None) -> TextAnswer:
        graph = self.retriever.graph_from_paths(question, paths)
        ok = best is not None and best.margin > self.min_margin
        ans = (text if text is not None else best.text) if ok else ""
        sup = tuple(support if support is not None else best.path) if ok else ()
        return TextAnswer(qtype, ans, best.margin if best else float("-inf"), answers if answers is not None else ([ans] if ans else []),
                          ok, sup, graph, trace)

    def _query(self, question: str, kind: str = "query") -> TextAnswer:
        paths, readings = self._read(question)
        if _ASKS_NAME.match(question):  # ``who`` / ``where`` / ``in which country`` ask for a name, never a number
            readings = [r for r in readings if not is_number(r.text)]
        best = self._best(readings)
        if best is None or best.margin <= self.min_margin:
            return self._result(kind, paths, best, question, {"paths": len(paths)})
        if asks_list(question) and any(r.type_fit >= 1.0 for r in readings):
            best, items, support = self._typed_items(readings, best)
        else:
            items, support = self._items(readings, best, self.list_margin)
        return self._result(kind, paths, best, question, {"paths": len(paths), "items": items}, answers=items,
                            support=support if len(items) > 1 else None)

    def _typed_items(self, readings: Sequence[Reading], best: Reading) -> tuple[Reading, list[str], list[str]]:
        """A list question's items (walk reader): the answers the text names as the asked type (type fit 1),
        read over as many passages as the best of them, within ``typed_margin`` of it."""
        typed = [r for r in readings if r.type_fit >= 1.0]
        top = max(typed, key=lambda r: r.margin)
        if top.margin < best.margin - self.typed_margin:
            top = best
        kept = [r for r in typed if len(r.path) == len(top.path) and r.margin >= top.margin - self.typed_margin]
        items: list[str] = []
        support: dict[str, None] = dict.fromkeys(top.path)
        for r in [top] + sorted(kept, key=lambda r: -r.margin):
            if not any(_same(r.text, seen) for seen in items):
                items.append(r.text)
                support.update(dict.fromkeys(r.path))
        return Reading(top.text, max(top.margin, best.margin), top.path, top.path_score, top.sentence, top.holder,
                       top.type_fit, top.hops), items, list(support)

    def _boolean(self, question: str) -> TextAnswer:
        names = name_mentions(question[1:])
        words = set(re.findall(r"[a-z]+", question.lower()))
        if len(names) >= 2 and (words & _COMPARE_WORDS or "than" in words):
            return self._boolean_comparison(question, names[0], names[-1])
        return self._boolean_claim(question)

    def _boolean_comparison(self, question: str, first: str, second: str) -> TextAnswer:
        """``Was A released before B?``: compare A's and B's values; yes when A wins."""
        res = self._compare(question, [first, second], lambda opt: question.replace(second if opt == first else first, "").strip())
        if not res.supported:
            res.qtype = "boolean"
            return res
        verdict = "yes" if _same(res.answer, first) else "no"
        return TextAnswer("boolean", verdict, res.score, [verdict], True, res.support, res.graph,
                          {**res.trace, "first": first, "second": second})

    def _boolean_claim(self, question: str) -> TextAnswer:
        names = name_mentions(question[1:])
        nums = re.findall(r"\b\d[\d,.]*\b", question)
        claim = (nums[-1] if nums and question.rfind(nums[-1]) > question.rfind(names[-1] if names else "\0") else
                 (names[-1] if names else ""))
        if not claim:
            paths, readings = self._read(question)
            return self._result("boolean", paths, None, question, {"reason": "no claimed value found"})
        at = question.rfind(claim)
        before = re.sub(r"\b(?:the|a|an)\s*$", "", question[:at], flags=re.I)
        kind = self._kind_of(claim)
        masked = before + (f"which {kind}" if kind else "what") + question[at + len(claim):]
        paths, readings = self._read(masked, query=question)
        best = self._best(readings)
        trace = {"claim": claim, "masked_question": masked, "found": best.text if best else ""}
        if best is None or best.margin <= self.min_margin:
            return self._result("boolean", paths, None, question, trace)
        holds = _same(best.text, claim) or _describes(_after_answer(best.sentence, best.text), claim) or any(
            _describes(_first_sentence(self.retriever.text(d)), claim) for d in self._titled(best.text))
        trace["claim_in"] = "answer" if _same(best.text, claim) else ("what describes the answer" if holds else "")
        return self._result("boolean", paths, best, question, trace, text="yes" if holds else "no")

    def _kind_of(self, name: str) -> str:
        """What the text says ``name`` is (the head noun of its passage's first clause: ``Estmark is a small
        republic to the west of ...`` -> ``republic``), when the reader can tell (walk reader); else ``""``."""
        graph = getattr(self.reader, "graph", None)
        if graph is None or not hasattr(graph, "first_clause"):
            return ""
        words = re.findall(r"[a-z]+", graph.first_clause(name).lower())
        for w, nxt in zip(words, words[1:] + [""]):
            if w not in _ARTICLES_VERBS and (not nxt or nxt in _CLAUSE_WORDS):
                return w
        return ""

    def _titled(self, name: str) -> list[str]:
        """Passages titled ``name`` (via the retriever's entity links, when it has them)."""
        links = getattr(getattr(self.retriever, "search", None), "entity_links", None)
        if links is None or not links.titled:
            return []
        return list(links._names.get(fold_name(name), []))

    def _count(self, question: str) -> TextAnswer:
        paths, readings = self._read(question)
        best = _counting(readings, question) or self._best(readings)
        value = parse_value(best.text) if best is not None and best.margin > self.min_margin else None
        is_year = 1000 <= (value or 0) <= 2100 and "," not in (best.text if best else "")
        if best is not None and value is not None and len(split_list(best.text)) == 1 and not is_year:
            return self._result("count", paths, best, question, {"number": best.text}, text=str(int(value)))
        listing = _COUNT.sub("Which", question.strip(), count=1)
        paths, readings = self._read(listing, query=question)
        best = self._best(readings)
        if best is None or best.margin <= self.min_margin:
            return self._result("count", paths, None, question, {"listing_question": listing})
        if asks_list(listing) and any(r.type_fit >= 1.0 for r in readings):
            best, items, support = self._typed_items(readings, best)
        else:
            items, support = self._items(readings, best, self.count_margin)
        n = str(len(items))
        return self._result("count", paths, best, question, {"listing_question": listing, "counted": items},
                            text=n, answers=[n], support=support)

    def _items(self, readings: Sequence[Reading], best: Reading, margin: float) -> tuple[list[str], list[str]]:
        """Distinct answers (list spans split into items) of the readings within ``margin`` of the
        best, best first, and the union of their supports (the best reading's first)."""
        kept = [r for r in readings if r.margin >= best.margin - margin and r.margin > self.min_margin]
        items: list[str] = []
        support: dict[str, None] = dict.fromkeys(best.path)
        for r in [best] + sorted(kept, key=lambda r: -r.margin):
            for item in split_list(r.text):
                if not any(_same(item, seen) for seen in items):
                    items.append(item)
                    support.update(dict.fromkeys(r.path))
        return items, list(support)

    def _comparison(self, question: str) -> TextAnswer:
        from graphhop.read.ops import split_options

        prefix, options = split_options(question)
        return self._compare(question, options, lambda opt: f"{prefix} {opt}?".strip())

    def _compare(self, question: str, options: Sequence[str], sub_question: Any) -> TextAnswer:
        """Each option read on its own (``sub_question(option)``) for a number; the comparative picks one."""
        from graphhop.read.ops import comparison_direction

        picks: list[dict[str, Any]] = []
        all_paths: list[Any] = []
        for opt in options:
            paths, readings = self._read(_positive(sub_question(opt)))
            all_paths += paths
            numeric = [r for r in readings if parse_value(r.text) is not None and _mentions_option(r, opt, self)]
            others = [o for o in options if o != opt]  # a value read of another option is not this one's
            numeric = [r for r in numeric if not any(_same(r.holder, o) for o in others)]
            if _is_name(opt) and not question.lower().startswith("whose"):  # ``Whose stadium``: its stadium's value
                numeric = [r for r in numeric if r.holder and _same(r.holder, opt)] or numeric
            if not numeric:
                continue
            r = max(numeric, key=lambda x: x.margin)
            picks.append({"option": opt, "value": parse_value(r.text), "text": r.text, "reading": r,
                          "holder": self._holder(opt, r)})
        if len(picks) < 2:
            return self._result("comparison", all_paths, None, question, {"options": list(options),
                                                                         "reason": "fewer than two options with a value"})
        years = all(1000 <= p["value"] <= 2100 for p in picks)
        direction = comparison_direction(question, "year" if years else "")
        chosen = (min if direction == "min" else max)(picks, key=lambda p: p["value"])
        support = [d for p in picks for d in p["reading"].path]
        weakest = min((p["reading"] for p in picks), key=lambda r: r.margin)
        best = Reading(chosen["holder"], max(weakest.margin, self.min_margin + 1e-6), weakest.path, weakest.path_score)
        trace = {"options": list(options), "direction": direction,
                 "picks": [{k: v for k, v in p.items() if k != "reading"} for p in picks]}
        return self._result("comparison", all_paths, best, question, trace, text=chosen["holder"],
                            support=list(dict.fromkeys(support)))

    def _holder(self, option: str, reading: Reading) -> str:
        """The option as written when it is a name or names a passage's title; else (an option that describes
        its entity: ``the director of X``) the entity holding the value."""
        if _is_name(option):
            return option.strip(" ?.")
        if reading.holder:
            return option.strip(" ?.") if _same(option, reading.holder) else reading.holder
        titles = [t for t in (self.retriever.title(d) for d in reading.path) if t]
        if any(_same(option, t) for t in titles) or not titles:
            return option.strip(" ?.")
        return titles[-1]


def _counting(readings: Sequence[Reading], question: str) -> Reading | None:
    """The best reading of a number written just before the noun a ``How many`` question counts (``the party
    numbered eleven Brennish climbers and surveyors, supported by about forty porters`` for ``How many Brennish
    climbers ... took part``: eleven, not forty): most of the question's next three content words among the three
    words after the number, then the margin (``210,000 people live`` over ``seats 640 people`` for ``How many
    people live``); None when no number is written so."""
    from graphhop.read.sentence_graph import STOP, TOKEN, find_name, word_key

    words = TOKEN.findall(question.lower())
    counted = {word_key(w) for w in words[2:5] if w not in STOP} if words[:2] == ["how", "many"] else set()
    found = []
    for r in readings:
        at = find_name(r.sentence, r.text) if counted and r.sentence and is_number(r.text) else None
        after = TOKEN.findall(r.sentence[at[1]:].lower())[:3] if at else []
        met = len(counted & {word_key(w) for w in after})
        if met:
            found.append((met, r.margin, r))
    return max(found, key=lambda f: f[:2])[2] if found else None

"""Hand-written synthetic schemas for training the path scorer on questions that do not name relations literally.

The benchmark KBs (MetaQA, PathQuestion, WC2014) name each relation almost as their questions do. A
user's KB does not: "what currency is used in the country where X was formed" walks ``formed in ->
located in -> currency`` over a KB that also has ``year formed`` (shares the question's word) and
``country of origin`` (a one-hop shortcut of the two named hops). These schemas, in domains no test
KB uses (kitchens, mountaineering, airlines, perfumery, vineyards), give each relation a KB name and
several English wordings (``opened in``: "the city where {d} opened", "the town in which {d} first
opened its doors"), a geography layer whose relation names vary by domain (``lies in`` / ``situated
in`` / ``part of country``), numeric decoys (``year opened``) and one-hop shortcuts of two-hop chains.
:func:`schema_store` builds a random KB of a schema (pseudo-word names, seeded) and
:func:`schema_question` a question over a random relation path of it, inside out, each step in one of
its wordings; a step into a *container* (city -> country) may be folded into the previous step's
wording by naming only the container's type ("the **country** where X was born").
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, TypeVar

import numpy as np

from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.kgqa.link import tokens

__all__ = ["Rel", "Schema", "SCHEMAS", "HOP_MIX", "schema_store", "schema_question", "sample_questions", "masked_text", "random_path"]

#: Hop counts generated questions are drawn from (1-4, mostly 2-3): training's and the selection carve's.
HOP_MIX = (1, 2, 2, 3, 3, 4)

T = TypeVar("T")

_LITERALS = {"year": (1780, 2020), "number": (2, 900)}


@dataclass(frozen=True)
class Rel:
    """A relation of a schema: KB name, head and tail types, forward wordings (the tail described from
    ``{d}``, the head's description; ``{t}`` the tail's type noun) and backward ones (the head from the
    tail's ``{d}``; ``{h}`` the head's type noun); ``many``: heads take 1-3 tails; ``container``: a
    step that may be folded into the previous one's wording."""

    name: str
    head: str
    tail: str
    fwd: tuple[str, ...]
    back: tuple[str, ...] = ()
    many: bool = False
    container: bool = False


@dataclass(frozen=True)
class Schema:
    """A domain: entity types with how many of each, and relations; ``shortcuts`` maps a one-hop
    relation name to the two relation names whose chain it (mostly) equals; ``stored`` maps a relation
    name to the name the KB stores it by and whether it is stored the other way round (tail -> head):
    the questions still read the relation by its own wordings (:mod:`graphhop.kgqa.schema_variants`)."""

    name: str
    types: dict[str, int]
    rels: tuple[Rel, ...]
    shortcuts: dict[str, tuple[str, str]] = field(default_factory=dict)
    stored: dict[str, tuple[str, bool]] = field(default_factory=dict)

    def reading(self, store: KGStore, rel: int, fwd: bool) -> tuple[Rel, bool]:
        """The schema relation a signed step of its KB ``store`` walks, and whether it walks it forward."""
        name = store.relations[rel]
        for r in self.rels:
            kb_name, flipped = self.stored.get(r.name, (r.name, False))
            if kb_name == name:
                return r, fwd != flipped
        raise KeyError(name)


def _geo(located: str, currency: str, language: str, capital: str, population: str) -> tuple[Rel, ...]:
    """The geography layer (cities in countries), its relation names chosen per domain."""
    return (
        Rel(located, "city", "country", ("the {t} {d} is in", "the {t} where {d} lies", "the {t} of {d}", "{d} 's {t}"),
            ("the {h} in {d}", "a {h} of {d}", "the {h} that lies in {d}"), container=True),
        Rel(currency, "country", "currency", ("the currency of {d}", "the money used in {d}", "the currency used in {d}",
                                              "what people pay with in {d}"), ("the {h} that uses {d}", "the {h} paying in {d}")),
        Rel(language, "country", "language", ("the language of {d}", "the language spoken in {d}", "the official language of {d}"),
            ("the {h} where {d} is spoken", "the {h} speaking {d}")),
        Rel(capital, "country", "city", ("the capital of {d}", "the capital city of {d}", "the seat of government of {d}"),
            ("the {h} whose capital is {d}", "the {h} governed from {d}")),
        Rel(population, "city", "number", ("the population of {d}", "how many people live in {d}", "the number of inhabitants of {d}")),
    )


SCHEMAS: tuple[Schema, ...] = (
    Schema("kitchens", {"chef": 30, "restaurant": 24, "dish": 30, "city": 12, "country": 5, "currency": 4, "language": 4}, (
        Rel("opened in", "restaurant", "city", ("the {t} where {d} opened", "the {t} in which {d} first opened its doors",
                                                "where {d} opened"), ("the {h} that opened in {d}", "a {h} opened in {d}"), container=False),
        Rel("year opened", "restaurant", "year", ("the year {d} opened", "when {d} opened")),
        Rel("head chef", "restaurant", "chef", ("the head chef of {d}", "the chef who runs the kitchen of {d}", "who cooks at {d}"),
            ("the {h} where {d} is head chef", "the {h} whose kitchen {d} runs")),
        Rel("birthplace", "chef", "city", ("the {t} where {d} was born", "{d} 's birthplace", "the {t} {d} comes from"),
            ("the {h} born in {d}", "a {h} who was born in {d}")),
        Rel("birth year", "chef", "year", ("the year {d} was born", "when {d} was born")),
        Rel("apprenticed at", "chef", "restaurant", ("the {t} where {d} trained", "the {t} {d} learned to cook at"),
            ("the {h} who trained at {d}", "a {h} that apprenticed at {d}"), many=True),
        Rel("signature dish", "restaurant", "dish", ("the signature dish of {d}", "the dish {d} is known for"),
            ("the {h} famous for {d}", "the {h} known for its {d}")),
        Rel("michelin stars", "restaurant", "number", ("how many stars {d} holds", "the star rating of {d}")),
        Rel("nationality", "chef", "country", ("the nationality of {d}", "the {t} {d} is a citizen of"), ("a {h} from {d}",)),
        *_geo("located in", "currency", "official language", "capital", "population"),
    ), {"nationality": ("birthplace", "located in")}),
    Schema("expeditions", {"climber": 28, "peak": 16, "expedition": 24, "city": 12, "country": 5, "currency": 4,
                           "language": 4}, (
        Rel("summit reached by", "peak", "climber", ("the climber who first reached the top of {d}", "who first climbed {d}",
                                                     "{d} 's first climber"), ("the {h} first climbed by {d}", "the {h} that {d} conquered"),
            many=True),
        Rel("year first climbed", "peak", "year", ("the year {d} was first climbed", "when {d} was first summited")),
        Rel("led by", "expedition", "climber", ("the leader of {d}", "who led {d}", "the {t} heading {d}"),
            ("the {h} led by {d}", "the {h} that {d} headed")),
        Rel("target", "expedition", "peak", ("the {t} {d} set out to climb", "the goal of {d}"), ("the {h} that aimed at {d}",)),
        Rel("rises near", "peak", "city", ("the {t} nearest to {d}", "the {t} at the foot of {d}"), ("the {h} rising near {d}",)),
        Rel("height m", "peak", "number", ("the height of {d}", "how high {d} is", "the elevation of {d}")),
        Rel("partner", "climber", "climber", ("the climbing partner of {d}", "who climbed with {d}"), ("the partner of {d}",)),
        Rel("hometown", "climber", "city", ("the {t} where {d} was born", "the home town of {d}"),
            ("the {h} born in {d}", "a {h} native to {d}")),
        Rel("birth year", "climber", "year", ("the year {d} was born", "when {d} was born")),
        Rel("passport", "climber", "country", ("the {t} {d} is a citizen of", "the citizenship of {d}"),
            ("a {h} holding a passport of {d}",)),
        *_geo("lies in", "legal tender", "language", "capital city", "inhabitants"),
    ), {"passport": ("hometown", "lies in")}),
    Schema("airlines", {"airline": 16, "airport": 14, "aircraft": 12, "manufacturer": 6, "city": 12, "country": 5,
                        "currency": 4, "language": 4}, (
        Rel("hub", "airline", "airport", ("the hub of {d}", "the {t} {d} flies out of", "the main {t} of {d}"),
            ("the {h} whose hub is {d}", "the {h} based at {d}")),
        Rel("serves", "airport", "city", ("the {t} served by {d}", "the {t} where {d} is"), ("the {h} serving {d}", "the {h} of {d}")),
        Rel("operates", "airline", "aircraft", ("the {t} flown by {d}", "the {t} in the fleet of {d}"),
            ("the {h} that flies {d}", "an {h} operating {d}"), many=True),
        Rel("built by", "aircraft", "manufacturer", ("the maker of {d}", "the {t} that builds {d}", "who manufactures {d}"),
            ("the {h} built by {d}", "an {h} made by {d}")),
        Rel("head office", "manufacturer", "city", ("the {t} where {d} has its head office", "where {d} is based",
                                                   "the {t} {d} is headquartered in"), ("the {h} based in {d}",)),
        Rel("year launched", "airline", "year", ("the year {d} was launched", "when {d} started flying")),
        Rel("fleet size", "airline", "number", ("the fleet size of {d}", "how many planes {d} has")),
        Rel("first flight", "aircraft", "year", ("the year {d} first flew", "when {d} made its first flight")),
        Rel("home country", "airline", "country", ("the home country of {d}", "the {t} {d} comes from"), ("an {h} from {d}",)),
        *_geo("situated in", "uses currency", "spoken language", "seat of government", "population"),
    ), {"home country": ("hub", "serves")}),
    Schema("perfumery", {"perfumer": 26, "perfume": 30, "house": 10, "flower": 14, "city": 12, "country": 5,
                         "currency": 4, "language": 4}, (
        Rel("composed by", "perfume", "perfumer", ("the {t} who composed {d}", "the nose behind {d}", "who created {d}"),
            ("the {h} that {d} composed", "a {h} created by {d}"), many=True),
        Rel("sold by", "perfume", "house", ("the {t} that sells {d}", "the brand of {d}"), ("the {h} sold by {d}",)),
        Rel("heart note", "perfume", "flower", ("the heart note of {d}", "the flower at the heart of {d}"),
            ("the {h} built around {d}",), many=True),
        Rel("year released", "perfume", "year", ("the year {d} came out", "when {d} was released")),
        Rel("house seat", "house", "city", ("the {t} where {d} is based", "the home {t} of {d}"), ("the {h} based in {d}",)),
        Rel("year founded", "house", "year", ("the year {d} was founded", "when {d} was set up")),
        Rel("grown in", "flower", "city", ("the {t} where {d} is grown", "where {d} comes from"), ("the {h} grown in {d}",)),
        Rel("trained under", "perfumer", "perfumer", ("the teacher of {d}", "who trained {d}"), ("the pupil of {d}",)),
        Rel("place of birth", "perfumer", "city", ("the {t} where {d} was born", "{d} 's place of birth"),
            ("the {h} born in {d}",)),
        Rel("nationality", "perfumer", "country", ("the nationality of {d}", "the {t} {d} is from"), ("a {h} from {d}",)),
        Rel("bottles sold", "perfume", "number", ("how many bottles of {d} were sold", "the sales of {d}")),
        *_geo("part of country", "national currency", "official tongue", "capital", "residents"),
    ), {"nationality": ("place of birth", "part of country")}),
    Schema("vineyards", {"winery": 20, "winemaker": 24, "grape": 12, "wine": 30, "city": 12, "country": 5, "currency": 4,
                         "language": 4}, (
        Rel("made by", "wine", "winery", ("the {t} that makes {d}", "the producer of {d}", "who bottles {d}"),
            ("the {h} made by {d}", "a {h} from {d}"), many=False),
        Rel("grape", "wine", "grape", ("the grape of {d}", "the grape {d} is made from", "the variety in {d}"),
            ("the {h} made from {d}",)),
        Rel("vintage", "wine", "year", ("the vintage of {d}", "the year {d} was harvested")),
        Rel("owner", "winery", "winemaker", ("the owner of {d}", "who owns {d}", "the {t} running {d}"),
            ("the {h} owned by {d}", "the {h} that {d} runs")),
        Rel("estate in", "winery", "city", ("the {t} where {d} has its estate", "where {d} grows its vines"),
            ("the {h} with an estate in {d}",)),
        Rel("year established", "winery", "year", ("the year {d} was established", "when {d} was founded")),
        Rel("origin", "grape", "country", ("the origin of {d}", "the {t} {d} comes from"), ("the {h} from {d}",)),
        Rel("hometown", "winemaker", "city", ("the hometown of {d}", "the {t} {d} grew up in"), ("the {h} from {d}",)),
        Rel("bottles per year", "winery", "number", ("how many bottles {d} makes a year", "the yearly output of {d}")),
        Rel("wine country", "winery", "country", ("the {t} {d} makes wine in", "the wine country of {d}"), ("a {h} of {d}",)),
        *_geo("in country", "money", "main language", "capital", "population"),
    ), {"wine country": ("estate in", "in country")}),
)

_SYL = ("ka", "lo", "ve", "ri", "dan", "mor", "sel", "tu", "bra", "quin", "os", "fel", "ar", "nim", "pe", "gor",
        "wen", "ty", "hal", "zu", "cor", "mi", "ster", "ba", "lin", "dro", "ne", "vask", "po", "rel")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYL) for _ in range(rng.choice((2, 2, 3)))).capitalize()


def schema_store(schema: Schema, seed: int = 0) -> KGStore:
    """A random KB of ``schema``: pseudo-word entity names (``"Velo Marsel"``), years and numbers for
    literal tails, shortcut relations equal to their two-hop chain for 80% of heads."""
    rng = random.Random(f"{schema.name}:{seed}")
    names: dict[str, list[str]] = {}
    used: set[str] = set()
    for typ, n in schema.types.items():
        names[typ] = []
        while len(names[typ]) < n:
            name = _word(rng) if typ in ("currency", "language") else f"{_word(rng)} {_word(rng)}"
            if name not in used:
                used.add(name)
                names[typ].append(name)
    facts: dict[tuple[str, str], list[str]] = {}
    for rel in schema.rels:
        if rel.name in schema.shortcuts:
            continue
        for h in names[rel.head]:
            k = rng.choice((1, 2, 3)) if rel.many else 1
            if rel.tail in _LITERALS:
                tails = [str(rng.randint(*_LITERALS[rel.tail]))]
            else:
                tails = rng.sample([t for t in names[rel.tail] if t != h], k)
            facts[(h, rel.name)] = tails
    for short, (r1, r2) in schema.shortcuts.items():
        rel = next(r for r in schema.rels if r.name == short)
        for h in names[rel.head]:
            chain = [t2 for t1 in facts.get((h, r1), []) for t2 in facts.get((t1, r2), [])]
            facts[(h, short)] = chain[:1] if chain and rng.random() < 0.8 else [rng.choice(names[rel.tail])]
    return KGStore.from_facts(_fact(schema, h, r, t) for (h, r), ts in facts.items() for t in ts)


def _fact(schema: Schema, head: str, rel: str, tail: str) -> Fact:
    """The fact as the schema's KB stores it (:attr:`Schema.stored`: renamed, maybe the other way round)."""
    name, flipped = schema.stored.get(rel, (rel, False))
    return Fact(tail, name, head) if flipped else Fact(head, name, tail)


def random_path(store: KGStore, topic: int, hops: int, rng: random.Random, sample: int = 50,
                allow: Callable[[tuple[int, bool]], bool] | None = None,
                stop: Callable[[int, bool], bool] | None = None) -> list[tuple[int, bool]] | None:
    """A random signed relation path of up to ``hops`` steps from ``topic`` (no immediate step back; only
    steps ``allow`` accepts; ending early after a step ``stop`` accepts); None when the walk dies out."""
    cur = np.asarray([topic], dtype=np.int64)
    steps: list[tuple[int, bool]] = []
    for _ in range(hops):
        options = [s for s in store.signed_relations(cur[:sample])
                   if (not steps or s != (steps[-1][0], not steps[-1][1])) and (allow is None or allow(s))]
        if not options:
            return None
        rel, fwd = rng.choice(options)
        _, reached = store.step(cur[:sample], rel, fwd)
        cur = np.unique(reached)
        steps.append((rel, fwd))
        if stop is not None and stop(rel, fwd):
            break
    return steps


_ASK = ("what is {d}", "which is {d}", "tell me {d}", "{d}", "what was {d}", "name {d}")


def schema_question(schema: Schema, store: KGStore, rng: random.Random, hops: int,
                    sample: int = 50) -> tuple[int, list[tuple[int, bool]], str] | None:
    """``(topic, signed steps, masked question)`` over a random ``hops``-step path of ``store`` (a
    :func:`schema_store` KB of ``schema``) from a random entity, each step in one of its wordings;
    None when the walk dies out. The topic is ``X`` in the text, as the scorer reads it."""
    topic = rng.randrange(len(store.entities))

    def allow(s: tuple[int, bool]) -> bool:
        rel, fwd = schema.reading(store, *s)
        return fwd or bool(rel.back)

    def stop(r: int, f: bool) -> bool:
        rel, fwd = schema.reading(store, r, f)
        return fwd and rel.tail in _LITERALS

    steps = random_path(store, topic, hops, rng, sample, allow=allow, stop=stop)
    if steps is None or len(steps) < hops:
        return None
    return topic, steps, _describe(schema, store, steps, rng)


def sample_questions(schema: Schema, store: KGStore, rng: random.Random, n: int, tries: int,
                     accept: Callable[[int, list[tuple[int, bool]], str], T | None]) -> list[T]:
    """Up to ``n`` results of ``accept(topic, steps, text)`` that are not None, over :func:`schema_question`
    questions with hop counts drawn from :data:`HOP_MIX`, at most ``tries`` questions drawn."""
    out: list[T] = []
    for _ in range(tries):
        if len(out) >= n:
            break
        made = schema_question(schema, store, rng, rng.choice(HOP_MIX))
        got = None if made is None else accept(*made)
        if got is not None:
            out.append(got)
    return out


def _describe(schema: Schema, store: KGStore, steps: list[tuple[int, bool]], rng: random.Random) -> str:
    d, i = "X", 0
    while i < len(steps):
        rel, fwd = schema.reading(store, *steps[i])
        nxt, nfwd = schema.reading(store, *steps[i + 1]) if i + 1 < len(steps) else (None, False)
        if fwd and nxt is not None and nxt.container and nfwd and rng.random() < 0.5:
            forms = [f for f in rel.fwd if "{t}" in f]
            if forms:  # fold the container step in: "the country where X was born"
                d, i = rng.choice(forms).format(d=d, t=nxt.tail), i + 2
                continue
        forms = rel.fwd if fwd else rel.back
        d, i = rng.choice(forms).format(d=d, t=rel.tail, h=rel.head), i + 1
    return masked_text(rng.choice(_ASK).format(d=d))


def masked_text(text: str) -> str:
    """``text`` as the scorer reads a masked question: folded tokens, the topic ``x`` as ``X``."""
    return " ".join("X" if w == "x" else w for w in tokens(text))

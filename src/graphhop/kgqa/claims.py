"""Yes/no questions of the ``kgqa`` pipeline read as a *claim*: ``Was X born in Y?``, ``Did A found B?``.

The last mention is the claimed value (a description such as ``the capital of Y`` is resolved to its
entity first), removed from the question, and paths are scored from the topic. Only paths whose end
entities have the claimed entity's type count (:func:`_typed_like`: a country claim is checked against a
chain ending in a country, not a city); ``yes`` when the best of them reaches the claim. ``Did A found B?``
is also read from B with A claimed; the reading with the more probable chain is used. For ``no`` the
support is the chain showing what the KB says instead (:func:`boolean_claim`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from graphhop.kgqa.compare import resolve
from graphhop.kgqa.contain import chain_nodes, climbed, climbs_over, prefix
from graphhop.kgqa.cover import covering, general, named_relations
from graphhop.kgqa.end_type import _continuations
from graphhop.kgqa.link import Mention, tokens
from graphhop.kgqa.paths import chains as edge_chains, path_signature
from graphhop.kgqa.pipeline import walks_back
from graphhop.kgqa.result import finish, no_answer, path_prob
from graphhop.kgqa.scorer import type_relations

__all__ = ["boolean_claim"]


def _typed_like(kgqa: Any, paths: Sequence[Any], claimed: Sequence[int], tolerance: float = 0.8,
                strict: bool = False) -> list[Any]:
    """Answer typing of a claim: the paths whose end entities look like the claimed ones, by the
    Jaccard overlap of their signed-relation signatures (:func:`~graphhop.kgqa.scorer.type_relations`:
    a country is the tail of ``located in`` and has a ``currency``, a city is the head of
    ``located in``). The bar is ``tolerance`` times the best overlap among paths that do *not*
    reach the claim (reaching it would make any path look alike), or any overlap when none of
    those overlaps; all paths when no path overlaps at all (none with ``strict``)."""
    store = kgqa.store
    claim_ids = set(claimed)
    claim = set(type_relations(store, np.asarray(sorted(claim_ids), dtype=np.int64)))
    sims = []
    for p in paths:
        sig = set(type_relations(store, p.ends))
        sims.append(len(sig & claim) / max(1, len(sig | claim)))
    best = max((sim for p, sim in zip(paths, sims) if not claim_ids & set(p.ends.tolist())), default=0.0)
    kept = [p for p, sim in zip(paths, sims) if sim > 0 and sim >= tolerance * best]
    return kept if strict else kept or list(paths)


def _span_text(toks: list[str], topic: Mention, drop: tuple[int, int]) -> str:
    """The question tokens with ``drop`` removed and the topic replaced by ``X``."""
    out: list[str] = []
    for i, w in enumerate(toks):
        if drop[0] <= i < drop[1]:
            continue
        if i == topic.start:
            out.append("X")
        if topic.start <= i < topic.end:
            continue
        out.append(w)
    return " ".join(out)


def _claims(kgqa: Any, toks: list[str], mentions: Sequence[Mention]) -> list[tuple[Mention, tuple[int, int], set[int], list, set[int]]]:
    """Readings of a yes/no question as (topic, claim span, claimed entities, chains resolving the claim, the entities
    the claim's description names): the last mention claimed (``the capital of Y`` resolved to its entity, Y named),
    or, for two bare mentions, the first one claimed about the last (``Did A found B?`` read from B)."""
    claim = mentions[-1]
    start = _description_start(kgqa, toks, claim.start)
    ids, chains, via = set(claim.entities), [], set()
    if start < claim.start:
        desc = resolve(kgqa, " ".join(toks[start : claim.end]))
        if desc is not None:
            ids, chains, via = {desc["entity"]}, desc["chains"], set(desc["mention"].entities) - {desc["entity"]}
    out = [(t, (start, claim.end), ids, chains, via) for t in mentions[:-1] if t.end <= start]
    if start == claim.start and len(mentions) == 2:
        first = mentions[0]
        out.append((claim, (first.start, first.end), set(first.entities), [], set()))
    return out


def _through(kgqa: Any, path: Any, hit: int, via: set[int]) -> bool:
    """Whether every chain from the topic to ``hit`` along ``path`` passes one of ``via`` (the entity the claim's
    description names) before it: "Does the court sit in the capital of Quillon?" is not proved by the court's
    ``jurisdiction`` Quillon and Quillon's ``capital``, which only retells the description."""
    if not via:
        return False
    found = edge_chains(kgqa.store, path, hit)
    return bool(found) and all(via & set(chain_nodes(kgqa.store, path, c)[1:-1]) for c in found)


def _description_start(kgqa: Any, toks: list[str], start: int) -> int:
    """Where the claim's description starts: at ``the`` of ``the <words> of <mention>`` (one to three words, the
    last before ``of`` its noun: "the provincial capital of Quillon") when those words name a relation of the KB
    (:meth:`~graphhop.kgqa.scorer.RelationWords.asked`: ``capital``); else at the mention itself. "Is the lighthouse
    in the town of Harrow?" claims Harrow: ``town`` names no relation, it is the claimed place's own kind, and the
    town of Harrow is Harrow, not the region a chain from Harrow reaches. Session 18 (kgy18)."""
    if start < 3 or toks[start - 1] != "of":
        return start
    the = next((i for i in range(start - 3, max(-1, start - 6), -1) if toks[i] == "the"), None)
    if the is None or any(w in ("of", "the", "a", "an") for w in toks[the + 1 : start - 1]):
        return start
    words = getattr(kgqa, "relation_words", None)
    if words is not None and not words.asked(" ".join(toks[the + 1 : start - 1])):
        return start
    return the


def boolean_claim(kgqa: Any, question: str, mentions: Sequence[Mention]) -> dict[str, Any]:
    """A claimed value checked from each reading of :func:`_claims`: ``yes`` when the best chain of the
    claim's type (named relations first: :func:`covering`) reaches the claim in some reading (the
    subject's first), with a probability over the threshold, without walking a relation straight back and
    naming as many of the question's relations as any chain of the claim's type, with that chain alone as the
    support; otherwise ``no``, with the chain that decides it: what the KB says about
    the question's subject (``Paper Harbor published by Saltmarsh Books``, not the other side's facts)."""
    if len(mentions) < 2:
        return no_answer("a yes/no question needs a topic and a claimed value", {"answer_if_unsure": "no"})
    toks = tokens(question.replace("[", " ").replace("]", " "))
    options = []
    for topic, span, claim_ids, claim_chains, via in _claims(kgqa, toks, mentions):
        reading = kgqa.read(question, topic, text=_span_text(toks, topic, span))
        if reading.best is None:
            continue
        typed = _typed_like(kgqa, reading.paths, sorted(claim_ids)) or reading.paths
        moved, cover = covering(kgqa, reading, paths=typed)
        best = moved.best if cover else typed[0]
        hit = [e for e in kgqa.answers(best) if e in claim_ids][:1]
        if walks_back(best.steps) or (hit and _through(kgqa, best, hit[0], via)):
            hit = []  # a chain that walks a relation straight back, or through the description's entity, proves nothing
        options.append({"prob": path_prob(moved, best, typed), "reading": moved, "best": best, "scorer_best": typed[0],
                        "claim": claim_ids, "top": reading.best,
                        "chains": claim_chains, "typed": typed, "hit": hit, "cover": cover, "via": via})
    if not options:
        return no_answer("no path from the question's entities")
    _drop_shortcut_hits(kgqa, options)
    _contained(kgqa, options)
    hits = [o for o in options if o["hit"] and o["prob"] >= kgqa.threshold_for(o["scorer_best"])]  # a chain the scorer believes
    subject_first = sorted(options, key=lambda o: (o["reading"].mention.start, -o["prob"]))
    o = next((o for o in subject_first if o in hits), subject_first[0])
    reading, best = o["reading"], o["best"]
    shown = o.get("named", best)  # the chain shown; its probability is the best chain's (as in covering)
    names = kgqa.store.entities
    trace: dict[str, Any] = {"claim": [names[e] for e in sorted(o["claim"])][:3], "topic": reading.mention.text, **o["cover"],
                             **{k: True for k in ("climbs_over", "climbed") if o.get(k)}}
    if shown is not best:
        trace["shortcut_path"] = kgqa.describe(reading, best)["relation_path"]
    if hits:
        shown, wider = _general_hit(kgqa, reading, shown, o["hit"])
        trace.update(wider)
    trace["claim_path"] = _describe(kgqa, reading, shown)
    if hits:
        return finish(kgqa, reading, best, o["hit"], ["yes"], kgqa.support(shown, o["hit"]) + o["chains"], trace,
                       o["typed"], scorer_path=o["scorer_best"])
    deciding = _deciding_chain(kgqa, reading, shown, o["claim"], o["via"])
    if deciding is not shown:
        trace["claim_path"], shown = _describe(kgqa, reading, deciding), deciding
    ans = kgqa.answers(shown, reading.mention.entities)
    trace["reason"] = "the best chain of the claim's type from the subject ends elsewhere"
    return finish(kgqa, reading, best, ans, ["no"], kgqa.support(shown, ans[:3]) + o["chains"], trace, o["typed"],
                   scorer_path=o["scorer_best"])


def _contained(kgqa: Any, options: list[dict[str, Any]]) -> None:
    """Containment (:mod:`graphhop.kgqa.contain`): a hit whose chain climbs over the claim to a container of it and
    back down proves nothing, and the chain shown becomes its part up to the climb (where the subject is); in the
    reading from the question's subject, a chain with no hit that ends at a place climbs the containment relations
    up to the claim ("Is the archive in Norvaly?": ``located in`` a town, then ``located in`` Norvaly)."""
    subject = min(o["reading"].mention.start for o in options)
    for o in options:
        shown = o.get("named", o["best"])
        if o["hit"]:
            k = climbs_over(kgqa, shown, o["hit"][0])
            if k is None:
                continue
            o["hit"], cut = [], prefix(shown, k - 1)
            o["climbs_over"] = True
            if cut is not None:
                o["named"] = shown = cut
        if o["reading"].mention.start == subject:
            up = climbed(kgqa, shown, o["claim"])
            if up is not None:
                o["named"], o["hit"], o["climbed"] = up, [e for e in kgqa.answers(up) if e in o["claim"]][:1], True


def _drop_shortcut_hits(kgqa: Any, options: list[dict[str, Any]]) -> None:
    """A chain that names fewer of the question's relation words than some chain of the claim's type
    names, in its own reading or another one, decides nothing: a shortcut proves nothing about the claim ("Was the
    composer of X born in Y?" is not proved, read from Y, by ``Y <- died in - composer`` when the subject's
    reading has ``composed by -> born in``); nor does one that walks a relation straight back. In the reading from
    the question's subject (its first mention), the chain becomes the chain of the claim's type that names that many
    with the fewest relations the question does not name, the scorer's best first (``named``; the scorer's best
    chain continued to the claim's type is one of them: :func:`_continued`), when it has one: "Was X born in Y?" is then decided, and shown, by
    ``born in -> located in``, not by the ``nationality`` shortcut. Off when the pipeline's ``cover`` is 0."""
    if float(getattr(kgqa, "cover", 0.0)) <= 0:
        return
    words = kgqa.relation_words
    subject = min(o["reading"].mention.start for o in options)
    for o in options:
        asked, typed = named_relations(words, o["reading"].text)
        named = asked + [w for w in typed if w not in asked]
        most = max(words.covered(named, p.steps) for other in options for p in other["typed"])
        if words.covered(named, o["best"].steps) < most or walks_back(o["best"].steps):
            o["hit"] = []
            pool = o["typed"] + _continued(kgqa, o["top"], o["claim"], o["reading"].paths)
            fits = [(words.unnamed(named, p.steps), i, p) for i, p in enumerate(pool)
                    if words.covered(named, p.steps) == most and not walks_back(p.steps)]
            alt = min(fits, key=lambda f: f[:2])[2] if fits else None
            if alt is not None and o["reading"].mention.start == subject:  # read from the subject only
                o["named"], o["hit"] = alt, [e for e in kgqa.answers(alt) if e in o["claim"]][:1]


def _deciding_chain(kgqa: Any, reading: Any, shown: Any, claim: set[int], via: set[int] | None = None) -> Any:
    """The chain that shows a ``no``: ``shown`` unless it reaches the claim (it would show a ``yes``: a shortcut that
    lost to a chain naming more of the question); then, of the reading's chains that do not reach the claim and walk no
    relation straight back, the one naming the most of the question's relations, then ending at things like the
    claim (any overlap of :func:`_typed_like`: a place for "born in Y"), then with the fewest unnamed relations, the
    scorer's best first. "Was the architect of X born in Y?" is shown by ``architect → born in`` (X's architect
    and where they were born), not by X's ``city`` Y. Off when the pipeline's ``cover`` is 0. Session 17 (kgh17)."""
    if float(getattr(kgqa, "cover", 0.0)) <= 0 or not claim & set(kgqa.answers(shown)):
        return shown
    words = kgqa.relation_words
    asked, typed = named_relations(words, reading.text)
    named = asked + [w for w in typed if w not in asked]
    avoid = claim | (via or set())  # nor at the entity the claim's description names (its province, not its capital)
    paths = [p for p in reading.paths if not walks_back(p.steps) and not avoid & set(kgqa.answers(p))]
    like = {id(p) for p in _typed_like(kgqa, paths, sorted(claim), tolerance=0.0, strict=True)}
    pool = [(words.covered(named, p.steps), id(p) in like, -words.unnamed(named, p.steps), -i, p) for i, p in enumerate(paths)]
    return max(pool, key=lambda c: c[:4])[4] if pool else shown


def _general_hit(kgqa: Any, reading: Any, path: Any, hit: list[int]) -> tuple[Any, dict[str, Any]]:
    """The chain that proves a claim with its unnamed relations made general (:func:`general`: ``located in
    country`` for ``^capital``, "Is X's hub in Y?" is shown by the hub's city lying in Y, not by Y's capital), when
    the general chain still reaches the claim; else the chain as it is."""
    alone = type(reading)(reading.mention, reading.text, [path], np.ones(1))
    moved, trace = general(kgqa, alone)
    if trace and set(hit) <= set(kgqa.answers(moved.best)) and climbs_over(kgqa, moved.best, hit[0]) is None:
        return moved.best, trace
    return path, {}


#: The share of the best type overlap a continuation's ends need (:func:`_continued`): one country of a stranger's KB
#: often lacks a relation another has (no one's ``nationality``: Jaccard .67 to the claimed country), while a region
#: on the way is far (.2). Chosen on the blind selection KBs (kg_fashion, kg_videogames) and tests/kgqa/test_claims.py.
CONTINUED_TOLERANCE = 0.5


def _continued(kgqa: Any, path: Any, claimed: set[int], paths: Sequence[Any], extra: int = 2) -> list[Any]:
    """``path`` continued by 1..``extra`` hops (within the pipeline's ``max_hops``) to ends of the claimed entity's
    type (:func:`_typed_like`, strict, the bar set with the reading's ``paths`` and :data:`CONTINUED_TOLERANCE`),
    nearest first: "Was X born in <country>?" is read by ``born in`` (the scorer's chain, ending at a city) then
    ``country``, which the beam may have dropped."""
    if path is None:
        return []
    room = max(0, min(extra, kgqa.max_hops - len(path.steps)))
    conts = sorted(_continuations(kgqa.store, path, room), key=lambda p: len(p.steps))
    if not conts:
        return []
    kept = {id(p) for p in _typed_like(kgqa, list(paths) + conts, sorted(claimed), CONTINUED_TOLERANCE, strict=True)}
    return [p for p in conts if id(p) in kept]


def _describe(kgqa: Any, reading: Any, path: Any) -> dict[str, Any]:
    """The trace entry of ``path``, also when it is no path of the reading (continued or made general)."""
    if path in reading.paths:
        return kgqa.describe(reading, path)
    return {"topic": [kgqa.store.entities[e] for e in reading.mention.entities[:3]], "question": reading.text,
            "relation_path": list(path_signature(kgqa.store, path.steps))}

"""``kgqa.cover``: the verb of the asked type's phrase (what :func:`~graphhop.kgqa.cover.walked_back` reads)."""

from __future__ import annotations

import pytest

from graphhop.kgqa.cover import _verb_after_phrase


@pytest.mark.parametrize("text, verb", [
    ("which trains were built by the manufacturer of the X", "built"),   # past the auxiliary (passive)
    ("which journalists write for X", "write"),                           # right after the phrase
    ("which films have been directed by the director of X", "directed"),
    ("which country was X born in", None),                                # the mask after the auxiliary
    ("what is X", None),                                                  # no type noun
    ("who directed X", None),                                             # no cue word
])
def test_verb_after_phrase(text: str, verb: str | None) -> None:
    assert _verb_after_phrase(text) == verb


def _path(steps: list[tuple[int, bool]]) -> "RelPath":
    import numpy as np

    from graphhop.kgqa.paths import RelPath

    return RelPath(tuple(steps), [np.asarray([0])] * (len(steps) + 1), score=0.0)


def test_an_exact_chain_replaces_a_detour_before_the_last_named_step() -> None:
    """``serves → ^serves → ^runs on → built by`` names both asked relations after an unasked detour: the exact
    ``^runs on → built by`` wins; an unnamed step *after* the named ones (``born in → located in``) is typing's to
    judge, and an exact chain that walks a relation straight back is no replacement (session 11, kgc12: rw05, nw18)."""
    from graphhop.kgqa.cover import _without_detour
    from graphhop.kgqa.scorer import RelationWords

    words = RelationWords(["serves", "runs on", "built by", "based in"])
    asked = words.asked("which company built the train that runs on the X")
    detour = _path([(0, True), (0, False), (1, False), (2, True)])
    exact = _path([(1, False), (2, True)])
    assert _without_detour(words, asked, asked, detour, [exact]) is exact
    tail = _path([(1, False), (2, True), (3, True)])  # the unnamed step comes last: not a detour
    assert _without_detour(words, asked, asked, tail, [exact]) is None
    back = _path([(1, False), (1, True), (2, True)])  # walks ``runs on`` straight back
    assert _without_detour(words, asked, asked, detour, [back]) is None


def test_a_described_topic_is_of_x() -> None:
    """The scorer's own walk back is a typing rival only for a topic described by a relational noun (session 11, kgc12: bk10)."""
    from graphhop.kgqa.cover import _OF_TOPIC

    assert _OF_TOPIC.search("which books did the author of x write")
    assert _OF_TOPIC.search("which trains were built by the manufacturer of the x")
    assert not _OF_TOPIC.search("which perfumer came up with x") and not _OF_TOPIC.search("which outfit actually built x")


def test_an_unnamed_step_that_is_no_round_trip_is_left_alone() -> None:
    """"the nationality of **mom** of X's child": ``parents`` is asked in a word the stems miss (PQ-3H), so the
    shorter exact ``children → nationality`` does not replace ``children → parents → nationality``."""
    from graphhop.kgqa.cover import _without_detour
    from graphhop.kgqa.scorer import RelationWords

    words = RelationWords(["children", "parents", "nationality"])
    asked = words.asked("the nationality of mom of X s child")
    best, exact = _path([(0, True), (1, True), (2, True)]), _path([(0, True), (2, True)])
    assert _without_detour(words, asked, asked, best, [exact]) is None
    assert _without_detour(words, asked, asked, best, [exact], home=True) is exact  # back home: no answer at all

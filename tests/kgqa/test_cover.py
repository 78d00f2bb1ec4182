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

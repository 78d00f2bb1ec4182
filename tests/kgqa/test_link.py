"""Entity linking: brackets, longest exact n-grams, possessives, articles, fuzzy fallback."""

from __future__ import annotations

from graphhop.kgqa.link import EntityLinker, masked

NAMES = ["Marta Velloso", "The Glass Orchard", "Porto Lumen", "Porto", "sylvia_brett", "Black Snake Moan", "black", "Star!"]


def _names(linker: EntityLinker, question: str) -> list[str]:
    return [linker.names[m.entities[0]] for m in linker.link(question)]


def test_longest_match_and_possessive() -> None:
    linker = EntityLinker(NAMES)
    assert _names(linker, "Where was Marta Velloso's film shot, in Porto Lumen?") == ["Marta Velloso", "Porto Lumen"]
    assert _names(linker, "what is the sex of sylvia_brett 's mother ?") == ["sylvia_brett"]
    assert masked("what is the sex of sylvia_brett 's mother ?", linker.link("what is the sex of sylvia_brett 's mother ?")) \
        == "what is the sex of X s mother"


def test_article_is_optional_and_brackets_win() -> None:
    linker = EntityLinker(NAMES)
    assert _names(linker, "Who directed Glass Orchard?") == ["The Glass Orchard"]
    assert _names(linker, "what films did [Marta Velloso] make in Porto") == ["Marta Velloso"]


def test_fuzzy_fallback_prefers_the_longest_span() -> None:
    linker = EntityLinker(NAMES)
    found = linker.link("who directed black snake mon")
    assert [linker.names[m.entities[0]] for m in found] == ["Black Snake Moan"] and found[0].how == "fuzzy"
    assert linker.link("what is the weather like") == []

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


def test_a_bracketed_name_links_to_the_entity_named_exactly_so() -> None:
    """MetaQA marks its topic exactly: ``[robert pattinson]`` is the tag, ``[Robert Pattinson]`` the actor; a
    bracket whose case matches no name still links every case-folded match."""
    linker = EntityLinker(["Robert Pattinson", "robert pattinson", "Twilight"])
    assert [m.entities for m in linker.link("which movies can be described by [robert pattinson]")] == [(1,)]
    assert [m.entities for m in linker.link("what films did [Robert Pattinson] act in")] == [(0,)]
    assert [m.entities for m in linker.link("what films did [ROBERT PATTINSON] act in")] == [(0, 1)]
    assert [m.entities for m in linker.link("what films did robert pattinson act in")] == [(0, 1)]

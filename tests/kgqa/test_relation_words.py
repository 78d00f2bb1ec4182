"""Which relations a question names (:class:`graphhop.kgqa.scorer.RelationWords`), the basis of the
``kgqa`` pipeline's shortcut check (:func:`graphhop.kgqa.cover.covering`)."""

from __future__ import annotations

from graphhop.kgqa.scorer import RelationWords

RELATIONS = ["born in", "nationality", "located in", "first mapped by", "currency", "founded by", "published by",
             "based in", "children"]


def test_question_words_name_relations_by_stem_and_prefix() -> None:
    words = RelationWords(RELATIONS)
    assert words.asked("what is the currency of the country where the explorer who first mapped X was born") == [
        "currenc", "first", "map", "born"]
    assert words.asked("was the founder of X born in") == ["founder", "born"]  # founder ~ founded by
    assert words.asked("who are the child of X") == ["child"]  # child ~ children
    assert words.asked("what films did X act in") == []


def test_coverage_and_unnamed_steps_of_a_path() -> None:
    words = RelationWords(RELATIONS)
    ids = {r: i for i, r in enumerate(RELATIONS)}
    asked = words.asked("what currency is used in the country where the explorer who first mapped X was born")
    shortcut = [(ids["first mapped by"], True), (ids["nationality"], True), (ids["currency"], True)]
    chain = [(ids["first mapped by"], True), (ids["born in"], True), (ids["located in"], True), (ids["currency"], True)]
    assert words.covered(asked, shortcut) == 3 and words.covered(asked, chain) == 4
    assert words.unnamed(asked, shortcut) == 1 and words.unnamed(asked, chain) == 1


def test_relations_named_by_stems() -> None:
    """One definition of "the relations these stems name" (training's hard negatives, end typing's noun role)."""
    words = RelationWords(RELATIONS)
    ids = {r: i for i, r in enumerate(RELATIONS)}
    assert words.relations_named(words.stems("publisher")) == [ids["published by"]]
    assert words.relations_named(["founder", "born"]) == [ids["born in"], ids["founded by"]]
    assert words.relations_named(words.stems("what films")) == []


def test_named_relations_leave_the_type_phrase_aside() -> None:
    """One definition of the relations a question names (:func:`graphhop.kgqa.cover.named_relations`): the type's
    phrase words only break ties; a verb after the type's noun is asked ("which company **built** ...")."""
    from graphhop.kgqa.cover import named_relations

    words = RelationWords(RELATIONS + ["built by", "runs on"])
    assert named_relations(words, "how many publishers are based in X") == (["base"], ["publish"])
    assert named_relations(words, "which company built the train that runs on X") == (["built", "run"], [])
    assert named_relations(words, "what currency is used in the country where X was born") == (["born"], ["currenc"])


def test_a_stem_snowball_ends_in_i_names_only_itself() -> None:
    """``cities`` (stem ``citi``) does not name ``citizen of``; a prefix still names its longer stem (session 11, kgc12: mu24)."""
    words = RelationWords(["citizen of", "formed in", "located in", "founded by", "company type"])
    assert words.asked("which bands were formed in cities of X") == ["form"]
    assert words.asked("which companies did the founder of X start") == ["compani", "founder"]  # equal stems still match
    assert not RelationWords.match("citi", "citizen") and RelationWords.match("founder", "found")

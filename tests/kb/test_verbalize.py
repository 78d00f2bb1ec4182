from graphhop.core import Fact
from graphhop.kb.verbalize import Verbalizer, clean_entity, clean_relation, normalize_question


def test_clean_names():
    assert clean_entity("frederica_of_mecklenburg-strelitz") == "frederica of mecklenburg strelitz"
    assert clean_relation("place_of_birth") == "place of birth"
    assert clean_relation("__music__recording__tracks") == "music recording tracks"
    assert clean_relation("plays_in_club_inverse") == "plays in club"


def test_relation_names_as_other_kbs_write_them() -> None:
    """camelCase, IRIs, CURIEs and punctuated labels read as the words a snake_case name gives."""
    assert clean_relation("bornIn") == clean_relation("born_in") == "born in"
    assert clean_relation("placeOfBirth") == "place of birth"
    assert clean_relation("AtLocation") == "at location"
    assert clean_relation("http://example.org/ontology/bornIn") == "born in"
    assert clean_relation("<http://dbpedia.org/ontology#birthPlace>") == "birth place"
    assert clean_relation("dbo:birthPlace") == "birth place"
    assert clean_relation("hasISBN") == "has ISBN"
    assert clean_relation("editor-in-chief") == "editor in chief"
    assert clean_relation("crew member(s)") == "crew members"
    # names with a space or an underscore, acronyms and short prefixes are left as they were
    for name in ("GitHub_username", "PermID", "DiseasesDB", "eMedicine", "ISNI", "Place of Birth"):
        assert clean_relation(name) == name.replace("_", " ")


def test_default_verbalization_and_inverse_reading():
    v = Verbalizer()
    assert v(Fact("sylvia_brett", "place_of_birth", "london")) == "sylvia brett [SEP] place of birth [SEP] london"
    # x_inverse is read in the base direction
    assert v(Fact("Forward", "plays_position_inverse", "Abel_HERNANDEZ")) == "Abel HERNANDEZ [SEP] plays position [SEP] Forward"


def test_configurable_verbalization():
    raw = Verbalizer(clean=False)
    assert raw(Fact("a_b", "r_inverse", "c")) == "a_b [SEP] r_inverse [SEP] c"
    sentence = Verbalizer(template="{head} {relation} {tail}.")
    assert sentence(Fact("Paris", "capital_of", "France")) == "Paris capital of France."


def test_question_normalization_matches_facts():
    assert normalize_question("the sex of sylvia_brett 's mother ?") == "the sex of sylvia brett 's mother ?"
    assert normalize_question("films directed by [Joel Zwick]") == "films directed by Joel Zwick"


def test_brackets_are_a_word_break_and_urns_read_by_their_last_segment() -> None:
    """``x(y)z`` is three words, not ``xyz``; a plural marker stays on its word; ``urn:ex:bornIn`` is ``born in``."""
    assert clean_relation("x(y)z") == "x y z"
    assert clean_relation("work_period_(start)") == "work period start"
    assert clean_relation("GDP(PPP)") == "GDP PPP"
    assert clean_relation("page(s)") == clean_relation("`page(s)`").strip("`") == "pages"
    assert clean_relation("`contributor(s)_to_the_work`") == "`contributors to the work`"
    assert clean_relation("urn:ex:bornIn") == clean_relation("urn:isbn:sub:born_in") == "born in"

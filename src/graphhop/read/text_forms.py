"""Question forms the question types over text read before answering (:mod:`graphhop.read.text_yesno`,
:mod:`graphhop.read.text_counts`, :mod:`graphhop.read.text_qa`, :mod:`graphhop.read.walk`); general English, no
word of any passage set:

negative quantifiers (:data:`NEGATIVE`)
    ``nobody was killed``, ``none of its keepers``, ``no one survived``: a sentence that says nobody / nothing did
    what it tells denies it as ``never`` or ``not`` do (:data:`DENIES`); a question that asks with one (``Did nobody
    ...?``) is answered the other way round (:func:`negated_question`); a list item named in a clause that denies it is
    no item (:func:`denied_item`), and a yes/no claim found in a clause that denies it (``never had offices in
    X``) is ``no``.
``Was A the ...?`` (:func:`identity_question`)
    the claim is A itself, not the question's last name: the question is read as ``Who/What was the ...?`` and
    answered ``yes`` iff the answer found is A.
``How many times`` / ``How many years`` (:func:`asks_times`, :func:`asks_duration`)
    a frequency (``twice``, ``three times``) or a duration (``from 1921 to 1935``, ``for twelve years``), not a
    count of entities; and a number written as a duration (``for almost thirty years``) or a range of years (``From
    1950 to 1958``) counts no entity (:func:`is_duration`, :func:`is_time_span`), in a count nor in a comparison of
    amounts (``Which village has more residents ...?``, :func:`asks_amount`).
names (:func:`is_entity_name`)
    a ``same ...`` question compares two entities: a side's value must be a name, not a number nor a common noun;
    a comparison's option written as a common noun before a name (``the clown Fenn Larkow``) is that name
    (:func:`titled_name`).
"""

from __future__ import annotations

import re

from graphhop.read.numbers import NUMBER, is_number, parse_value

__all__ = ["titled_name", "NEGATIVE", "DENIES", "denied_item", "negated_question", "identity_question", "asks_times", "asks_duration", "frequency",
           "duration", "is_duration", "asks_amount", "is_time_span", "is_entity_name", "inside_names"]

#: Negative quantifiers (general English): the sentence says that nobody / nothing did what it tells (``no lifeboat
#: was involved``; not ``no longer``, ``no fewer than``).
NEGATIVE = re.compile(r"\b(?:nobody|no[\s-]one|none|nothing|neither|not\s+(?:a\s+single|one|any)\b|no\s+(?!(?:longer|doubt"
                      r"|more|less|fewer|later|earlier|sooner|other|matter)\b)[a-z])", re.I)
#: Words that deny what a sentence says (general English), the negative quantifiers among them.
DENIES = re.compile(r"\b(?:never|not|no longer|nor|cannot)\b|n't\b|" + NEGATIVE.pattern, re.I)
_CLAUSE_CUT = re.compile(r"[,;:()]|\s(?:but|although|though|whereas|while)\s", re.I)
_AUX = r"(?:is|was|are|were)"
_IDENTITY = re.compile(r"^(?P<aux>" + _AUX + r")\s+(?P<rest>.+?)[\s?.!]*$", re.I)
#: Nouns that name a person (general English) besides agent nouns in ``-er``/``-or``/``-ist``/``-ian``/``-ess``.
_PERSON_NOUNS = {"man", "woman", "person", "king", "queen", "son", "daughter", "wife", "husband", "father", "mother",
                 "brother", "sister", "child", "pupil", "student", "apprentice", "master", "captain", "heir", "chief",
                 "head", "guide", "partner", "friend", "owner", "patron", "mate", "bishop", "duke", "count", "lord"}
_NOT_PERSONS = {"tower", "river", "centre", "center", "number", "letter", "water", "paper", "order", "quarter",
                "chapter", "harbour", "harbor", "border", "corner", "color", "colour", "floor", "door", "mirror"}
_UNITS = {"year": "years", "years": "years", "decade": "decades", "decades": "decades", "month": "months",
          "months": "months", "week": "weeks", "weeks": "weeks", "day": "days", "days": "days", "century": "centuries",
          "centuries": "centuries", "hour": "hours", "hours": "hours"}
_TIME_WORDS = r"(?:years?|decades?|months?|weeks?|days?|centur(?:y|ies)|hours?|minutes?)"
_FREQUENCY_WORDS = {"once": 1, "twice": 2, "thrice": 3}
_NUM = NUMBER.pattern
_TIMES = re.compile(r"\b(?:(once|twice|thrice)|(" + _NUM + r")\s+(?:separate\s+|different\s+)?(?:times|occasions|terms))\b",
                    re.I)
_RANGE = re.compile(r"\b(?:from\s+|between\s+)?(\d{3,4})\s*(?:to|until|till|and|[-–])\s*(\d{2,4})\b", re.I)
_YEAR = re.compile(r"(?:(?:early|mid|late|[A-Z][a-z]+)\s+)?(?:1\d{3}|20\d{2}|2100)")
_FOR = re.compile(r"(" + _NUM + r")\s+(?:full\s+|whole\s+)?" + _TIME_WORDS + r"\b", re.I)


def denied_item(sentence: str, item: str) -> bool:
    """Whether the clause of ``sentence`` that names ``item`` denies it (:data:`DENIES`: ``... to the Castellan, but
    none of its boats reached the Harwick Maid`` denies ``Harwick Maid``, not ``Castellan``)."""
    from graphhop.read.sentence_graph import find_name

    at = find_name(sentence, item) if sentence and item.strip() else None
    if at is None:
        return False
    cuts = [m for m in _CLAUSE_CUT.finditer(sentence)]
    start = max([m.end() for m in cuts if m.end() <= at[0]], default=0)
    end = min([m.start() for m in cuts if m.start() >= at[1]], default=len(sentence))
    return bool(DENIES.search(sentence[start:end]))


def negated_question(question: str) -> bool:
    """Whether a yes/no question asks with a negative quantifier (``Did nobody survive the wreck?``)."""
    return bool(NEGATIVE.search(question))


def _person_noun(noun: str) -> bool:
    """Whether ``noun`` names a person (general English: an agent noun or a word of :data:`_PERSON_NOUNS`)."""
    w = noun.lower()
    if w in _NOT_PERSONS:
        return False
    return w in _PERSON_NOUNS or w.endswith(("er", "or", "ist", "ian", "ess", "eer"))


def identity_question(question: str) -> tuple[str, str] | None:
    """``"Was Harlow the first lighthouse keeper of Brisk Point?"`` -> ``("Harlow", "Who was the first lighthouse
    keeper of Brisk Point?")``: a yes/no question that asks whether a name *is* the one the rest describes (``What``
    unless the description's noun names a person). None for another question (``Was A born in B?``, ``Is A the same
    ... as B?``, ``Is A older than B?``)."""
    from graphhop.kb.names import name_spans

    q = " ".join(question.split())
    m = _IDENTITY.match(q)
    if m is None:
        return None
    rest = m["rest"]
    spans = name_spans(rest)
    lead = re.match(r"(?:the\s+)?", rest, re.I).end()  # type: ignore[union-attr]
    if not spans or spans[0][0] > lead:
        return None
    name = rest[spans[0][0] : spans[0][1]]
    desc = rest[spans[0][1] :].strip()
    if not re.match(r"the\s+\w", desc, re.I) or re.match(r"the\s+same\b", desc, re.I) or re.search(r"\bthan\b", desc, re.I):
        return None
    words = re.findall(r"[A-Za-z]+", re.split(r"\s+(?:of|in|on|at|from|to|for|by|with|that|who|which|whose)\s+",
                                             desc[4:], maxsplit=1)[0])
    noun = words[-1] if words else ""
    wh = "Who" if noun and _person_noun(noun) else "What"
    return re.sub(r"^the\s+", "", name, flags=re.I), f"{wh} {m['aux'].lower()} {desc}?"


def asks_times(question: str) -> bool:
    """Whether a count question asks how often (``How many times did X ...``, ``On how many occasions``)."""
    return bool(re.search(r"\bhow many (?:times|occasions|terms)\b", question, re.I))


def asks_duration(question: str) -> str | None:
    """The time unit a count question asks a duration in (``For how many years was X ...`` -> ``years``), else None."""
    m = re.search(r"\bhow many (\w+)\b", question, re.I)
    return _UNITS.get(m.group(1).lower()) if m else None


def frequency(text: str) -> int | None:
    """How often ``text`` says something happened (``served twice``, ``three times``, ``on four occasions``)."""
    m = _TIMES.search(text)
    if m is None:
        return None
    if m.group(1):
        return _FREQUENCY_WORDS[m.group(1).lower()]
    value = parse_value(m.group(2))
    return int(value) if value is not None else None


def duration(text: str, unit: str = "years") -> float | None:
    """How long ``text`` says something lasted, in ``unit``: ``N <unit>`` (``for twelve years``), else, in years, a
    range of years (``from 1921 to 1935``, ``1921-35``: the difference); None when it says none."""
    for m in _FOR.finditer(text):
        written = re.findall(r"[a-z]+", text[m.end(1) : m.end()].lower())[-1:]
        if written and _UNITS.get(written[0]) == unit:
            return parse_value(m.group(1))
    if unit != "years":
        return None
    m = _RANGE.search(text)
    if m is None:
        return None
    a, z = int(m.group(1)), m.group(2)
    end = int(z) if len(z) == 4 else int(str(a)[: 4 - len(z)] + z)  # ``1921-35``
    return float(end - a) if 1000 <= a < end <= 2100 else None


def is_duration(sentence: str, number: str) -> bool:
    """Whether ``number`` is written in ``sentence`` as a length of time (``for almost thirty years``, ``twelve
    months``): a time word right after it."""
    if not number.strip() or not is_number(number):
        return False
    for m in re.finditer(r"(?<![\w,.])" + re.escape(number.strip()) + r"(?![\w])", sentence, re.I):
        if re.match(r"\s+(?:full\s+|whole\s+)?" + _TIME_WORDS + r"\b", sentence[m.end() :], re.I):
            return True
    return False


def asks_amount(question: str) -> bool:
    """Whether a comparison compares an amount of things (``more residents``, ``fewer lives``, ``the most students``),
    not a date or a length of time."""
    m = re.search(r"\b(?:more|fewer|less|most|fewest|least)\s+(?:[a-z]+\s+)?([a-z]+s)(?<!ss)(?<!us)(?<!is)\b", question, re.I)
    return m is not None and re.fullmatch(_TIME_WORDS, m.group(1), re.I) is None


def is_time_span(text: str, sentence: str = "") -> bool:
    """Whether a value read is a time, not an amount of things: a range of years (``From 1950 to 1958``), a year or
    a date (``1932``, ``March 1932``: four digits from 1000 to 2100, no thousands comma) or a number written as a
    duration in ``sentence`` (:func:`is_duration`)."""
    return (not is_number(text) and _RANGE.search(text) is not None and duration(text) is not None) \
        or _YEAR.fullmatch(text.strip()) is not None or (bool(sentence) and is_duration(sentence, text))


def is_entity_name(text: str) -> bool:
    """Whether an answer is a name (an entity): not a number, and with a capitalized word (``the Islander``,
    ``Kerrowen``; not ``island`` nor ``islands``)."""
    t = text.strip()
    return bool(t) and not is_number(t) and any(w[:1].isupper() for w in re.findall(r"[^\W\d_][\w'’-]*", t))


def inside_names(text: str) -> str:
    """``text`` with every capitalized name it writes blanked (``boats for Skerrow Rock Lighthouse sailed`` ->
    ``boats for  sailed``): its words are another entity's name, not what ``text`` says its subject is."""
    from graphhop.kb.names import name_spans

    out = text
    for a, z, _ in reversed(name_spans(text)):
        out = out[:a] + " " * (z - a) + out[z:]
    return out


def titled_name(option: str) -> str:
    """The name of an option written with a common noun before it (``the clown Fenn Larkow``, ``the trapeze artist
    Sunniva Drach``): the name, when it ends the option and the words before it are content words (not ``the director
    of X``, ``the man who led X``); else ``""``."""
    from graphhop.kb.names import fold_name, name_mentions
    from graphhop.read.sentence_graph import STOP

    m = re.match(r"^(?:the|an?)\s+((?:[a-z][a-z-]*\s+){1,3})([A-Z].*)$", option.strip(" ?."))
    if m is None or any(w in STOP for w in m[1].split()):
        return ""
    names = name_mentions(m[2])
    return names[0] if len(names) == 1 and fold_name(names[0]) == fold_name(m[2]) else ""

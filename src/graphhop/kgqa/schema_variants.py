"""Variants of the hand-written training schemas, named as strangers' KBs name things (scorer training data).

Session 7's probe (``benchmarks/kgqa_relation_variants.py``) and the blind KBs showed three kinds of KB the
shipped head reads badly, because its training KBs never had them:

- ``wikidata``: relations named by Wikidata-style property labels, mostly nouns (``place of birth``,
  ``country of citizenship``, ``located in the administrative territorial entity``, ``inception``);
- ``inverse``: relations stored the other way round under an inverse name (``X head chef Y`` stored as
  ``Y head chef of X``, ``located in`` as ``contains``), so the chain walks them backward;
- ``lure``: relations whose name holds another type's noun (``country code`` from a country, ``grape
  colour`` from a grape), so a question asking for that type has a one-hop-too-far path whose last
  relation shares the asked noun (the lexical lure of the blind KBs).

Each variant keeps its schema's wordings (the questions ask for the same facts as before) and changes only
what the KB stores (:attr:`graphhop.kgqa.schemas.Schema.stored`), plus, for ``lure``, the new relations with
their own wordings (asked for now and then, so the head learns to read them, not to avoid them).
"""

from __future__ import annotations

from dataclasses import replace

from graphhop.kgqa.schemas import SCHEMAS, Rel, Schema

__all__ = ["WIKIDATA_LABELS", "INVERSE_NAMES", "LURE_ATTRIBUTES", "VARIANT_STYLES", "schema_variant", "variant_schemas"]

#: Wikidata-style labels of the schemas' relation names (a name not here keeps its own).
WIKIDATA_LABELS: dict[str, str] = {
    "opened in": "location of first opening", "year opened": "inception", "head chef": "head chef",
    "birthplace": "place of birth", "hometown": "place of birth", "place of birth": "place of birth",
    "birth year": "date of birth", "apprenticed at": "educated at", "signature dish": "notable work",
    "michelin stars": "number of Michelin stars", "nationality": "country of citizenship",
    "passport": "country of citizenship", "located in": "located in the administrative territorial entity",
    "lies in": "located in the administrative territorial entity", "situated in": "located in the administrative territorial entity",
    "part of country": "located in the administrative territorial entity", "in country": "located in the administrative territorial entity",
    "currency": "currency", "legal tender": "currency", "uses currency": "currency", "national currency": "currency",
    "money": "currency", "official language": "official language", "language": "official language",
    "spoken language": "official language", "official tongue": "official language", "main language": "official language",
    "capital": "capital", "capital city": "capital", "seat of government": "capital", "population": "population",
    "inhabitants": "population", "residents": "population", "summit reached by": "first ascent by",
    "year first climbed": "date of first ascent", "led by": "director / manager", "target": "destination point",
    "rises near": "located next to", "height m": "elevation above sea level", "partner": "partner in business or sport",
    "hub": "airline hub", "serves": "place served by transport hub", "operates": "aircraft in fleet",
    "built by": "manufacturer", "head office": "headquarters location", "year launched": "inception",
    "fleet size": "number of aircraft", "first flight": "date of first flight", "home country": "country",
    "composed by": "creator", "sold by": "brand", "heart note": "has part(s)", "year released": "publication date",
    "house seat": "headquarters location", "year founded": "inception", "grown in": "location",
    "trained under": "student of", "bottles sold": "number of units sold", "made by": "manufacturer",
    "grape": "made from material", "vintage": "point in time", "owner": "owned by", "estate in": "location",
    "year established": "inception", "origin": "country of origin", "bottles per year": "production rate",
    "wine country": "country",
}

#: Inverse names of the schemas' entity-to-entity relations (the fact stored tail -> head under this name).
INVERSE_NAMES: dict[str, str] = {
    "opened in": "has restaurant", "head chef": "head chef of", "birthplace": "birthplace of",
    "apprenticed at": "trained apprentice", "signature dish": "signature dish of", "nationality": "nationality of",
    "located in": "contains", "currency": "currency of", "official language": "official language of",
    "capital": "capital of", "summit reached by": "reached summit of", "led by": "leader of", "target": "targeted by",
    "rises near": "has nearby peak", "partner": "partner of", "hometown": "hometown of", "passport": "issued passport to",
    "lies in": "includes", "legal tender": "legal tender of", "language": "language of", "capital city": "capital city of",
    "hub": "hub of", "serves": "served by", "operates": "operated by", "built by": "manufactures",
    "head office": "head office of", "home country": "home country of", "situated in": "has city",
    "uses currency": "currency used by", "spoken language": "spoken in", "seat of government": "seat of government of",
    "composed by": "composer of", "sold by": "sells", "heart note": "heart note of", "house seat": "home of house",
    "grown in": "grows", "trained under": "teacher of", "place of birth": "place of birth of",
    "part of country": "has part", "national currency": "national currency of", "official tongue": "official tongue of",
    "made by": "maker of", "grape": "grape of", "owner": "owns", "estate in": "estate of", "origin": "origin of",
    "wine country": "wine country of", "in country": "contains", "money": "money of", "main language": "main language of",
}

#: Attribute nouns of the ``lure`` variant's relations (``{type} {attribute}``), one per entity type in turn.
LURE_ATTRIBUTES = ("code", "colour", "class", "rank", "group", "grade")

VARIANT_STYLES = ("wikidata", "inverse", "lure")

_PLAIN = ("currency", "language", "year", "number")


def _lure_rels(schema: Schema) -> tuple[tuple[Rel, ...], dict[str, int]]:
    """``{type} {attribute}`` relations from each entity type that some relation reaches, and their value types."""
    reached = list(dict.fromkeys(r.tail for r in schema.rels if r.tail not in _PLAIN and r.tail in schema.types))
    rels, types = [], {}
    for i, typ in enumerate(reached):
        attr = LURE_ATTRIBUTES[i % len(LURE_ATTRIBUTES)]
        value = f"{typ} {attr}"
        types[value] = 4
        rels.append(Rel(f"{typ} {attr}", typ, value, (f"the {attr} of {{d}}", f"the {typ} {attr} of {{d}}", f"{{d}} 's {attr}"),
                        (f"the {{h}} whose {attr} is {{d}}", f"a {{h}} of {attr} {{d}}")))
    return tuple(rels), types


def schema_variant(schema: Schema, style: str) -> Schema:
    """``schema`` as a stranger's KB would store it (``style``: one of :data:`VARIANT_STYLES`); named ``NAME-STYLE``."""
    if style == "wikidata":
        stored = {r.name: (WIKIDATA_LABELS.get(r.name, r.name), False) for r in schema.rels}
        return replace(schema, name=f"{schema.name}-{style}", stored=stored)
    if style == "inverse":
        stored = {r.name: (INVERSE_NAMES[r.name], True) for r in schema.rels
                  if r.name in INVERSE_NAMES and r.back}
        return replace(schema, name=f"{schema.name}-{style}", stored=stored)
    if style == "lure":
        rels, types = _lure_rels(schema)
        return replace(schema, name=f"{schema.name}-{style}", rels=schema.rels + rels, types={**schema.types, **types})
    raise ValueError(f"unknown schema variant {style!r} (one of {', '.join(VARIANT_STYLES)})")


def variant_schemas(styles: tuple[str, ...] = VARIANT_STYLES, schemas: tuple[Schema, ...] = SCHEMAS) -> tuple[Schema, ...]:
    """Every schema of ``schemas`` in every style of ``styles``."""
    return tuple(schema_variant(s, style) for style in styles for s in schemas)

"""Trained multi-hop KGQA over a whole knowledge graph (the ``kgqa`` pipeline, default of ``ask`` on facts).

``link`` (topic entities) -> ``paths`` (relation paths over :class:`graphhop.kb.store.KGStore`) ->
``scorer`` (trained head over frozen MiniLM) -> ``ops`` / ``compare`` (question types) -> answer and
support; ``pipeline.KGQA`` ties them together, ``train`` / ``synthetic`` train the head, ``evaluate``
is ``graphhop eval-qa``.
"""

__all__ = ["DEFAULT_HOPS"]

#: Longest relation path the ``kgqa`` pipeline reads by default: ``ask``, ``eval-qa``, ``serve``, the
#: registry's ``kgqa`` and :class:`graphhop.kgqa.pipeline.KGQA` all use it (4: 1-4 hop questions; the trained
#: scorer picks how many hops a question takes; figures at 3 and 4 in docs/RESULTS.md, issue 12, session 12).
DEFAULT_HOPS = 4

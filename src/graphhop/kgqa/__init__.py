"""Trained multi-hop KGQA over a whole knowledge graph (the ``kgqa`` pipeline, default of ``ask`` on facts).

``link`` (topic entities) -> ``paths`` (relation paths over :class:`graphhop.kb.store.KGStore`) ->
``scorer`` (trained head over frozen MiniLM) -> ``ops`` / ``compare`` (question types) -> answer and
support; ``pipeline.KGQA`` ties them together, ``train`` / ``synthetic`` train the head, ``evaluate``
is ``graphhop eval-qa``.
"""

"""Getting gold cases and keeping their labels true.

Every function here produces or inspects ordinary case files: checking labels against
the index of their pinned revision (:mod:`.check`), drafting cases from logs with secrets
and personal data scrubbed first (:mod:`.fromlog`, :mod:`.scrub`), splitting and diffing
case files (:mod:`.split`, :mod:`.diff`), and writing stanzas (:mod:`.stanza`).

Reads ``index``, ``evaluate`` (the matching rules) and ``model``; ``diagnose`` reuses the
label checks so a label mistake is always the dataset owner's ``stale_label``.
"""

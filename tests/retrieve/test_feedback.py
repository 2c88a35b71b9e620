from codegold.retrieve.feedback import expansion_terms

_DF = {"drain": 3, "queue": 5, "sentinel": 2, "worker": 4, "the": 50, "typo": 1, "join": 2}


def _terms(**kwargs: object) -> list[str]:
    tokens = {
        "a": (["shutdown"], ["worker", "drain", "queue", "drain", "sentinel", "the", "x1"]),
        "b": (["stop"], ["worker", "join", "typo"]),
        "c": (["never"], ["queue", "queue", "queue"]),
    }
    options: dict[str, object] = {
        "asked": {"worker"}, "document_frequency": lambda t: _DF.get(t, 0), "indexed": 100,
        "skip": frozenset({"the"}), "count": 2, "limit": 3}
    options.update(kwargs)
    return expansion_terms([("a", 2.0), ("b", 1.0), ("c", 0.5)], tokens, **options)  # type: ignore[arg-type]


def test_feedback_terms_come_from_the_best_hits_weighed_by_share_score_and_rarity() -> None:
    # a (score 2, the best) keeps six tokens: drain 2/6, sentinel 1/6, queue 1/6; b (half
    # the best score) keeps four: join 1/4. Times log(100 / df): drain 1.17, sentinel
    # 0.65, queue 0.50, join 0.49.
    assert _terms(limit=4) == ["drain", "sentinel", "queue", "join"]
    assert _terms(limit=2) == ["drain", "sentinel"]
    # Asked terms, stop words, tokens under three letters or with digits, terms the index
    # holds in fewer than two chunks (typo, shutdown), and chunks past `count` (c) never
    # bring a term.
    assert not {"worker", "the", "x1", "typo", "shutdown", "never"} & set(_terms(limit=20))
    assert _terms(limit=20, count=1) == ["drain", "sentinel", "queue"]


def test_no_feedback_without_hits_or_room() -> None:
    assert _terms(limit=0) == []
    assert expansion_terms([], {}, asked=(), document_frequency=lambda t: 2, indexed=10,
                           skip=(), count=5, limit=5) == []

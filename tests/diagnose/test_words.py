"""The words line of a ranking miss: which of the query's words the target holds."""

from __future__ import annotations

from pathlib import Path

from fakeindex import FakeIndex, entry, ichunk, sdef

from codegold.diagnose import diagnose_run
from codegold.diagnose.bundle import render_summary_markdown, render_summary_text
from codegold.diagnose.words import kind_of, query_words, share
from codegold.model import Attempt, CaseResult, Chunk, Query, encode_attempt
from runfactory import chunk, make_case, make_result, make_run

SVC = "src/auth/session.py"
BODY = "class SessionService:\n    def createSession(self, token):\n        return validate(token)\n"
MINT = "def mint(user):\n    return sign(user.id)\n"


def _index() -> FakeIndex:
    chunks = [ichunk("svc-1", SVC, 1, 20, symbol="SessionService.createSession", text=BODY),
              ichunk("tok-1", "src/auth/tokens.py", 1, 3, symbol="mint", text=MINT)]
    for i in range(6):
        chunks.append(ichunk(f"n{i}", f"src/other{i}.py", 1, 3, symbol=f"other{i}",
                             text=f"def other{i}():\n    # expired refresh tokens of a session\n"))
    defs = [sdef("SessionService.createSession", SVC, 2, 20, "svc-1")]
    return FakeIndex(chunks, [entry(SVC), entry("src/auth/tokens.py")], defs)


def _filler(n: int) -> list[Chunk]:
    return [chunk(f"n{i}", f"src/other{i}.py", symbol=f"other{i}", start=1, end=3) for i in range(n)]


def _evidence(tmp_path: Path, result: CaseResult, ranked: list[Chunk],
              candidates: list[Chunk] | None = None) -> tuple[str, list[str]]:
    attempt = Attempt(attempt_id=result.attempt_id or "", case_id=result.case_id, ranked=ranked,
                      candidates=candidates, context_ids=[], query=Query(raw=result.case.query))
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(encode_attempt(attempt) + b"\n")
    summary, _ = diagnose_run(make_run([result], attempts_path=str(path)), index=_index())
    d = summary.diagnoses[0]
    return d.cause, d.evidence


def test_query_words_are_stemmed_pieces_without_common_words() -> None:
    asked = query_words("How does createSession handle the expired refresh_tokens?")
    assert list(asked.values()) == ["create", "session", "handle", "expired", "refresh", "tokens"]
    held = share(asked, [BODY])
    assert held.asked == 6 and held.held == ("create", "session", "tokens")


def test_a_target_without_the_query_words_is_out_of_reach_of_words(tmp_path: Path) -> None:
    case = make_case("mint", query="Which function issues login credentials?", file="src/auth/tokens.py",
                     symbol=None)
    cause, evidence = _evidence(tmp_path, make_result(case), _filler(5), candidates=_filler(6))
    assert cause == "retrieval_miss"
    line = next(e for e in evidence if e.startswith("words ["))
    assert line.startswith("words [none]: ") and kind_of(evidence) == "none"
    assert "holds none of the query's 4 words" in line
    assert "(function, issues, login, credentials)" in line
    assert "no search by words reaches it" in line


def test_a_target_outworded_by_the_chunks_above_it(tmp_path: Path) -> None:
    case = make_case("outworded", query="How does createSession treat expired refresh tokens of a session?")
    ranked = [*_filler(5), chunk("svc-1", SVC, symbol="SessionService.createSession", start=1, end=20)]
    cause, evidence = _evidence(tmp_path, make_result(case, any_depth=6), ranked)
    assert cause == "below_cutoff"
    line = next(e for e in evidence if e.startswith("words ["))
    # the target holds create, session, tokens; each chunk above holds expired, refresh,
    # tokens, session
    assert "holds 3 of the query's 6 words (create, session, tokens)" in line
    assert "the chunk ranked 1 holds 4" in line
    assert line.endswith("words favour the chunks above it") and kind_of(evidence) == "fewer"


def test_no_words_line_without_the_index(tmp_path: Path) -> None:
    case = make_case("plain", query="Which function mints login credentials?")
    result = make_result(case)
    attempt = Attempt(attempt_id=result.attempt_id or "", case_id=result.case_id, ranked=_filler(5),
                      context_ids=[], query=Query(raw=case.query))
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(encode_attempt(attempt) + b"\n")
    summary, _ = diagnose_run(make_run([result], attempts_path=str(path)))
    assert kind_of(summary.diagnoses[0].evidence) is None


def test_the_summary_counts_ranking_misses_by_their_words(tmp_path: Path) -> None:
    none = make_result(make_case("mint", query="Which function issues login credentials?",
                                 file="src/auth/tokens.py", symbol=None))
    fewer = make_result(make_case("outworded", query="How does createSession treat expired refresh "
                                  "tokens of a session?"), any_depth=6)
    ranked = [*_filler(5), chunk("svc-1", SVC, symbol="SessionService.createSession", start=1, end=20)]
    attempts = [Attempt(attempt_id=r.attempt_id or "", case_id=r.case_id, ranked=rk, context_ids=[],
                        query=Query(raw=r.case.query)) for r, rk in ((none, _filler(5)), (fewer, ranked))]
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(b"".join(encode_attempt(a) + b"\n" for a in attempts))
    summary, _ = diagnose_run(make_run([none, fewer], attempts_path=str(path)), index=_index())
    markdown = render_summary_markdown(summary)
    assert "| target holds | cases |\n|---|---:|\n| none | 1 |\n| fewer | 1 |\n" in markdown
    text = render_summary_text(summary)
    assert "Ranking misses by the query's words" in text and "`" not in text.split("Ranking")[1][:200]

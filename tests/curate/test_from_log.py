"""``codegold cases from-log``: drafts from traces, with secrets and personal data removed
before anything is written (planted values must survive in no output)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.curate.scrub import Scrubber
from codegold.model import load_cases

SHA = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"

# kind -> a value planted in a query; none may reach any output file.
PLANTED: dict[str, str] = {
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret": "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "github_token": "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c",
    "github_pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "gitlab_token": "glpat-xY3abc9DEF7ghi2JKL5m",
    "slack_token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack_webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "stripe_key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "openai_key": "sk-proj-Q8xT2vLm9ZpR4kN7wB3yH6jD1fG5sA0cE",
    "anthropic_key": "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    "google_api_key": "AIzaSyD4k9Lm2Np8Qr5St1Uv7Wx3Yz6Ab0Cd4Ef",
    "jwt": ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"),
    "private_key": ("-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEAq7BFUAkGCSqGSIb3DQEB"
                    "\\n-----END RSA PRIVATE KEY-----"),
    "url_credentials": "postgres://admin:Sup3rS3cretPw@db.internal:5432/shop",
    "password": "password=Tr0ub4dor&3xyz",
    "bearer": "Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c",
    "hf_token": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "npm_token": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "sendgrid": "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",
    "high_entropy": "Zm9vYmFyYmF6cXV4cXV1eHh4eXl5enp6MTIzNDU2Nzg5MA",
    "email": "jane.doe@example.com",
    "ipv4": "203.0.113.77",
    "ipv6": "2001:db8:85a3::8a2e:370:7334",
    "phone": "+44 20 7946 0958",
    "card": "4111 1111 1111 1111",
    "home_folder_user": "/home/jdoe42/",
    "listed_user": "Priya Raman",
}
# The secret part of each planted value (what must not survive).
SECRET_PART = {
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "private_key": "MIIEowIBAAKCAQEAq7BFUAkGCSqGSIb3DQEB",
    "url_credentials": "Sup3rS3cretPw",
    "password": "Tr0ub4dor&3xyz",
    "bearer": "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c",
    "home_folder_user": "jdoe42",
    "slack_webhook": "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
}


def _log(tmp_path: Path) -> Path:
    records = []
    for n, (kind, value) in enumerate(PLANTED.items()):
        records.append({
            "id": f"trace-{n}",
            "query": f"Why does createSession fail for {value.replace(chr(92) + 'n', chr(10))} "
                     f"in the refresh flow ({kind})?",
            "revision": SHA,
            "repository": "acme/shop",
            "cited": [{"file": "src/auth/session-service.ts", "symbol": "createSession"}],
            "feedback": "down",
        })
    # A value hidden in the record id and a cited path (a user's home folder).
    records.append({"id": "jane.doe@example.com", "query": "where is validateRefreshToken",
                    "revision": SHA, "cited": [{"file": "/home/jdoe42/src/auth/refresh.ts"}],
                    "feedback": "up"})
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_planted_secrets_and_personal_data_survive_in_no_output(tmp_path: Path) -> None:
    assert len(PLANTED) >= 20
    log = _log(tmp_path)
    out, report = tmp_path / "drafts.yaml", tmp_path / "scrub.json"
    done = CliRunner().invoke(cli, ["cases", "from-log", str(log), "-o", str(out), "--report",
                                    str(report), "--name", "Priya Raman"])
    assert done.exit_code == 0, done.output
    written = out.read_text() + report.read_text() + done.output
    for kind, value in PLANTED.items():
        secret = SECRET_PART.get(kind, value).replace("\\n", "\n")
        assert secret not in written, f"{kind} survived"
        # ...nor any telling part of it (a scrubber that stops early leaks the rest).
        for start in range(0, max(1, len(secret) - 7)):
            part = secret[start:start + 8]
            if any(c.isdigit() for c in part) and any(c.isalpha() for c in part):
                assert part not in written, f"part of {kind} survived: {part!r}"
    cases = load_cases(str(out))
    assert len(cases.cases) == len(PLANTED) + 1
    assert all(c.tags["status"] == "draft" for c in cases.cases)
    assert "createSession" in cases.cases[0].query  # identifiers are kept
    removed = json.loads(report.read_text())["removed"]
    assert sum(removed.values()) >= len(PLANTED)


def test_identifiers_paths_and_revisions_are_not_scrubbed() -> None:
    text = ("TypeError at Object.parseWebhookSignature (src/webhooks/parse.ts:42:13) in "
            f"TokenRefreshHandler2024 at {SHA} and 64cf94f std::vector 12:30")
    assert Scrubber().scrub(text)[0] == text


def test_mapping_reads_other_shapes(tmp_path: Path) -> None:
    span = {"attributes": {"gen_ai": {"prompt": [{"role": "user", "content": "how is tax computed"}]},
                           "vcs": {"sha": SHA}},
            "events": [{"file": "billing/billing/tax.py", "symbol": "compute_tax"}]}
    log = tmp_path / "spans.json"
    log.write_text(json.dumps([span]))
    out = tmp_path / "drafts.yaml"
    done = CliRunner().invoke(cli, ["cases", "from-log", str(log), "-o", str(out),
                                    "--map", "query=attributes.gen_ai.prompt",
                                    "--map", "revision=attributes.vcs.sha",
                                    "--map", "cited=events"])
    assert done.exit_code == 0, done.output
    case = load_cases(str(out)).cases[0]
    assert case.query == "how is tax computed"
    assert case.groups[0].any_of[0].symbol == "compute_tax"


def test_a_bad_line_is_named_and_never_echoed(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"query": "ok"}\nnot json AKIAIOSFODNN7EXAMPLE\n')
    done = CliRunner().invoke(cli, ["cases", "from-log", str(log), "-o", str(tmp_path / "o.yaml")])
    assert done.exit_code == 2
    assert ":2" in done.output and "AKIA" not in done.output
    assert not (tmp_path / "o.yaml").exists()

"""Secrets planted in what codegold reads never reach what it writes or prints.

A repository with credentials in a ``.env`` file, a Python constant, a YAML config and a
PEM file; a retriever that answers with excerpts full of secrets, and one that fails with
a secret on stderr; then index, search, run, eval, report and diagnose. Every output file
and every line printed is searched for each planted value.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from embedserver import embeddings_endpoint
from gitrepo import Repo
from hostilekit import (
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)

# Built from parts so this file itself is not a credential a scanner would flag.
AWS = "AKIA" + "Q7RZ2XW4LMN5P3TB"
GITHUB = "ghp_" + "Zr8Kq2Lm5Nx7Pb3Vd9Wf1Yh4Tj6Sc0Ga2Ue8"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiJzZXJ2aWNlLWJvdCIsImFkbWluIjp0cnVlfQ"
       + ".Qm9ndXNTaWduYXR1cmVGb3JUZXN0czEyMzQ1Ng")
PEM_BODY = "MIIEowIBAAKCAQEAr9Zq3hWplantedKEYbodyXk2f8Lq"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nc2Vjb25kbGluZW9ma2V5\n-----END RSA PRIVATE KEY-----\n"
ENV_PASSWORD = "Tr0ub4dor-planted-env"
YAML_PASSWORD = "yaml-planted-Pa55word"
PY_PASSWORD = "py-planted-literal-9931"
URL_PASSWORD = "urlPlanted77"
SLACK = "xoxb-" + "112233445566-778899001122-PlantedSlackTokenValue"
STDERR_TOKEN = "ghp_" + "StderrPlanted0123456789abcdefABCDEF01"

SECRETS = {
    "aws": AWS, "github": GITHUB, "jwt": JWT, "pem": PEM_BODY, "pem2": "c2Vjb25kbGluZW9ma2V5",
    "env_password": ENV_PASSWORD, "yaml_password": YAML_PASSWORD, "py_password": PY_PASSWORD,
    "url_password": URL_PASSWORD, "slack": SLACK, "stderr_token": STDERR_TOKEN,
}

SETTINGS = f'''"""Service settings."""

GITHUB_TOKEN = "{GITHUB}"
DATABASE_PASSWORD = "{PY_PASSWORD}"
DEPLOY_KEY = """{PEM}"""


def login_handler(user, password):
    """Check a user's password against the store."""
    token = make_token(user)
    return token == password


def make_token(user):
    return "t-" + user
'''

RETRIEVER = '''import json, sys
request = json.load(sys.stdin)
if request["case_id"] == "stderr":
    sys.stderr.write("auth failed with token STDERR\\n")
    sys.exit(3)
leak = "LEAK"
chunk = {"chunk_id": "x1", "file": "src/app/settings.py", "start_line": 8, "end_line": 11,
         "symbol": "login_handler", "excerpt": leak}
conf = {"chunk_id": "x2", "file": "config/app.yaml", "start_line": 1, "end_line": 3,
        "excerpt": leak}
print(json.dumps({"ranked": [chunk, conf], "candidates": [conf, chunk],
                  "rewritten": "login " + leak.splitlines()[0]}))
'''


def _leak_text() -> str:
    return (f"aws_access_key_id = {AWS}\npassword: {YAML_PASSWORD}\n{PEM}"
            f"Authorization: Bearer {JWT}\nhttps://deploy:{URL_PASSWORD}@example.com/x\n"
            f"slack {SLACK}\nGITHUB_TOKEN={GITHUB}\n")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-secrets")
    repo = Repo(root / "repo")
    head = repo.commit({
        ".env": f"AWS_ACCESS_KEY_ID={AWS}\nDB_PASSWORD={ENV_PASSWORD}\n",
        ".env.production": f"SLACK_TOKEN={SLACK}\n",
        "deploy/server.pem": PEM,
        "deploy/id_rsa": PEM,
        "home/.aws/credentials": f"[default]\naws_access_key_id = {AWS}\n",
        "src/app/__init__.py": "",
        "src/app/settings.py": SETTINGS,
        "config/app.yaml": (f"database:\n  url: postgres://app:{URL_PASSWORD}@db.internal/app\n"
                            f"  password: {YAML_PASSWORD}\nservice_jwt: {JWT}\n"
                            f"aws_key: {AWS}\n"),
        "docs/setup.md": f"Clone with https://bot:{URL_PASSWORD}@git.example.com/app.git\n",
    })
    (root / "retriever.py").write_text(RETRIEVER.replace(
        "STDERR", STDERR_TOKEN).replace('"LEAK"', json.dumps(_leak_text())), encoding="utf-8")
    (root / "cases.yaml").write_text(yaml.safe_dump({
        "format": 1, "defaults": {"repository": "acme/app", "revision": head, "cutoff": 1},
        "cases": [
            {"id": "login", "query": "where is the login password checked",
             "accepted": [{"file": "src/app/settings.py", "symbol": "login_handler"}]},
            {"id": "stderr", "query": "database settings",
             "accepted": [{"file": "config/app.yaml"}]},
        ]}), encoding="utf-8")
    return root


def _no_secret_in(text: str, where: str) -> None:
    for name, value in SECRETS.items():
        assert value not in text, f"{name} leaked into {where}"


def _no_secret_under(folder: Path, skip: set[Path]) -> list[Path]:
    seen = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not any(s == path or s in path.parents for s in skip):
            _no_secret_in(path.read_bytes().decode("utf-8", "replace"), str(path))
            seen.append(path)
    return seen


def test_planted_secrets_never_reach_an_output(world: Path) -> None:
    out = world / "out"
    sentinels = plant_sentinels(out / "keep")
    printed: list[str] = []

    def cli(*args: str | Path, codes: tuple[int, ...] = (0,)) -> None:
        proc = run_cli(*args, cwd=world, timeout=120)
        assert_no_traceback(proc)
        assert proc.returncode in codes, (args, proc.stderr[-2000:])
        printed.append(proc.stdout + proc.stderr)

    cli("index", world / "repo", "--revision", "HEAD", "-o", out / "idx")
    cli("index", "inspect", out / "idx")
    cli("index", "inspect", out / "idx", "--file", "src/app/settings.py", "--text")
    cli("index", "inspect", out / "idx", "--file", "config/app.yaml", "--text")
    cli("index", "parse", world / "repo" / "src/app/settings.py", "--text")
    cli("search", out / "idx", "password token login database aws key")
    # a query that quotes a key (a pasted log line): the key is not echoed back
    cli("search", out / "idx", f"login failed with token {GITHUB}", "--json")
    cli("search", out / "idx", f"login failed with token {GITHUB}", "--explain")
    cli("run", "cases.yaml", "--index", out / "idx", "-o", out / "attempts.jsonl",
        "--retriever", f"command:{sys.executable} retriever.py", codes=(3,))  # 3: error attempts
    cli("run", "cases.yaml", "--index", out / "idx", "-o", out / "ref-attempts.jsonl")
    cli("eval", "cases.yaml", out / "attempts.jsonl", "-o", out / "results.json", codes=(0, 1))
    cli("eval", "cases.yaml", out / "ref-attempts.jsonl", "-o", out / "ref-results.json",
        codes=(0, 1))
    cli("diagnose", out / "results.json", "--index", out / "idx", "--repo", world / "repo",
        "-o", out / "diag", codes=(0, 1))
    cli("report", out / "results.json", "-o", out / "report.html", "--md", out / "summary.md",
        "--junit", out / "junit.xml", "--diagnosis", out / "diag", codes=(0, 1))

    for text in printed:
        _no_secret_in(text, "the terminal")
    written = _no_secret_under(out, skip={out / "keep"})
    names = {p.name for p in written}
    assert {"attempts.jsonl", "results.json", "report.html", "summary.md", "junit.xml",
            "diagnoses.json"} <= names, names
    assert_sentinels(sentinels)

    # the retriever's answers were kept, with the values replaced
    attempts = [json.loads(line) for line in
                (out / "attempts.jsonl").read_text(encoding="utf-8").splitlines()]
    by_case = {a["case_id"]: a for a in attempts}
    excerpt = by_case["login"]["ranked"][0]["excerpt"]
    assert "<SECRET:aws_access_key>" in excerpt and "<SECRET:private_key>" in excerpt
    assert "exited with status 3" in by_case["stderr"]["error"]
    assert "<SECRET:github_token>" in by_case["stderr"]["error"]


def test_secret_bearing_files_left_out_and_values_redacted_in_the_index(
        world: Path, tmp_path: Path) -> None:
    proc = run_cli("index", world / "repo", "--revision", "HEAD", "-o", tmp_path / "idx",
                   timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    inventory = run_cli("index", "inspect", tmp_path / "idx", timeout=60).stdout
    for path in (".env", ".env.production", "deploy/server.pem", "deploy/id_rsa",
                 "home/.aws/credentials"):
        shown = run_cli("index", "inspect", tmp_path / "idx", "--file", path, timeout=60)
        assert "secret-bearing file" in shown.stdout, (path, shown.stdout, inventory[-500:])
    shown = run_cli("index", "inspect", tmp_path / "idx", "--file", "src/app/settings.py",
                    "--text", timeout=60).stdout
    assert "secrets redacted: 3" in shown, shown
    assert "<SECRET:github_token>" in shown and "<SECRET:password>" in shown
    # line numbers hold: the function after the key block is where the file has it
    line = SETTINGS.splitlines().index("def login_handler(user, password):") + 1
    assert f"{line}-" in shown or f":{line}" in shown, shown
    # code is not mistaken for secrets
    assert "token = make_token(user)" in shown
    # the index files themselves hold no value
    _no_secret_under(tmp_path / "idx", skip=set())


def test_policy_can_turn_secret_handling_off(world: Path, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nsecrets: false\n", encoding="utf-8")
    proc = run_cli("index", world / "repo", "--revision", "HEAD", "-o", tmp_path / "idx",
                   "--policy", policy, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    shown = run_cli("index", "inspect", tmp_path / "idx", "--file", ".env", "--text",
                    timeout=60).stdout
    assert ENV_PASSWORD in shown  # the team asked for it: indexed as it is


def test_error_lines_are_redacted(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ncases:\n  - id: a\n    query: q\n    revision: {AWS}\n"
                     "    accepted: [{file: a.py}]\n", encoding="utf-8")
    (tmp_path / "attempts.jsonl").write_text("", encoding="utf-8")
    proc = run_cli("eval", cases, tmp_path / "attempts.jsonl", "-o", tmp_path / "r.json")
    line = assert_clean_error(proc, contains="revision")
    assert "<SECRET:aws_access_key>" in line  # the error quotes the value: redacted
    _no_secret_in(proc.stdout + proc.stderr, "the error line")


def test_drafts_mined_from_history_hold_no_secret(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"src/auth.py": "def check(user):\n    return user == 'admin'\n"}, "initial")
    repo.commit({"src/auth.py": "def check(user):\n    return user in ('admin', 'root')\n"},
                f"fix check: root could not log in (GH-12)\n\nrotated {GITHUB} and AWS {AWS}\n"
                f"password: {YAML_PASSWORD}\n")
    proc = run_cli("cases", "mine", repo.path, "-o", tmp_path / "mined.yaml", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = (tmp_path / "mined.yaml").read_text(encoding="utf-8")
    assert "fix check" in text and "<SECRET:github_token>" in text, text
    _no_secret_in(text + proc.stdout + proc.stderr, "mined drafts")


def test_nothing_reaches_an_external_embedder_in_clear(world: Path, tmp_path: Path) -> None:
    proc = run_cli("index", world / "repo", "--revision", "HEAD", "-o", tmp_path / "idx",
                   timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with embeddings_endpoint(third=0.5) as (url, bodies):
        # the query quotes a key too: it is embedded remotely, so it must go redacted
        proc = run_cli("search", tmp_path / "idx", f"login password settings {GITHUB}",
                       "--dense", "--embedder", f"openai:{url}#test-model", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    sent = "\n".join(bodies)
    assert "login_handler" in sent  # chunk texts were sent, redacted
    _no_secret_in(sent + proc.stdout + proc.stderr, "the embedder's requests")


class _Answers(BaseHTTPRequestHandler):
    """A retriever service whose answers and error pages quote secrets."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if request["case_id"] == "stderr":
            payload, status = f"upstream refused key {AWS} password={ENV_PASSWORD}".encode(), 400
        else:
            payload, status = json.dumps({"ranked": [
                {"chunk_id": "h1", "file": ".env", "start_line": 1, "end_line": 2,
                 "excerpt": f"AWS_ACCESS_KEY_ID={AWS}\nDB_PASSWORD={ENV_PASSWORD}\n",
                 # fields codegold does not read are kept under ``extra``: redacted too
                 "text": f"AWS_ACCESS_KEY_ID={AWS}", "meta": {"auth": f"token {GITHUB}"}}],
                "rewritten": f"token {GITHUB}", "debug": f"password={ENV_PASSWORD}"}).encode(), 200
        self.send_response(status)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


PYTHON_RETRIEVER = f'''
def answer(request):
    if request["case_id"] == "stderr":
        raise RuntimeError("cannot connect with {JWT}")
    return [{{"chunk_id": "p1", "file": "config/app.yaml", "start_line": 1, "end_line": 2,
             "excerpt": "password: {YAML_PASSWORD}\\nkey: {SLACK}"}}]
'''


def test_http_and_python_retrievers_answers_are_redacted(world: Path, tmp_path: Path) -> None:
    (tmp_path / "leaky_retriever.py").write_text(PYTHON_RETRIEVER, encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    procs = []
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/retrieve"
        for name, retriever in (("http", url), ("python", "python:leaky_retriever:answer")):
            procs.append(run_cli(
                "run", world / "cases.yaml", "-o", tmp_path / f"{name}.jsonl",
                "--retriever", retriever, "--retries", "0", cwd=tmp_path,
                env={"PYTHONPATH": str(tmp_path)}, timeout=120))
    finally:
        server.shutdown()
        server.server_close()
    for proc in procs:
        assert_no_traceback(proc)
        assert proc.returncode in (0, 3), proc.stderr[-2000:]
        _no_secret_in(proc.stdout + proc.stderr, "the terminal")
    for name in ("http", "python"):
        text = (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8")
        assert "<SECRET:" in text, text  # the answers were written, values replaced
        _no_secret_in(text, f"{name} attempts")


def test_attempts_written_elsewhere_are_redacted_on_the_way_out(world: Path,
                                                                  tmp_path: Path) -> None:
    """An attempts file codegold did not write (another tool's, or edited) still leaves no
    secret in results, reports or diagnoses."""
    cases = yaml.safe_load((world / "cases.yaml").read_text(encoding="utf-8"))
    revision = cases["defaults"]["revision"]
    leak = _leak_text()
    chunk = {"chunk_id": "c1", "file": "src/app/settings.py", "start_line": 8, "end_line": 11,
             "revision": revision, "excerpt": leak, "symbol": "login_handler",
             "extra": {"text": leak, "nested": [{"note": leak}]},
             "resolved": {"rule": "span", "symbols": [f"token {GITHUB}"], "note": leak},
             "role": f"definition (token {GITHUB})", "language": f"secret={ENV_PASSWORD}"}
    # what another tool recorded of its index: credentials in the repository URL, a key
    # in the embedder's name (both shown by report and compare)
    manifest = {"repository": f"https://deploy:{URL_PASSWORD}@git.example.com/acme/app",
                "revision": revision, "index_build_id": "b1", "complete": True,
                "chunker": {"name": "c", "version": "1"}, "created_at": f"password={ENV_PASSWORD}",
                "embedder": {"name": f"openai:{SLACK}", "version": f"key {AWS}"},
                "revision_given": f"token {GITHUB}"}
    lines = [
        {"attempt_id": "a1", "case_id": "login", "ranked": [chunk], "candidates": [chunk],
         "query": {"raw": "where is the login password checked", "rewritten": leak},
         "extra": {"trace": leak}, "manifest": manifest},
        {"attempt_id": "a2", "case_id": "stderr", "ranked": [], "error": f"failed: {leak}",
         "manifest": manifest},
    ]
    (tmp_path / "attempts.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    printed = []
    for args in (
            ("eval", world / "cases.yaml", "attempts.jsonl", "-o", "results.json"),
            ("eval", world / "cases.yaml", "attempts.jsonl", "--json"),
            ("diagnose", "results.json", "-o", "diag"),
            ("compare", "results.json", "results.json"),
            ("report", "results.json", "-o", "report.html", "--md", "summary.md",
             "--junit", "junit.xml", "--diagnosis", "diag")):
        proc = run_cli(*args, cwd=tmp_path, timeout=120)
        assert_no_traceback(proc)
        assert proc.returncode in (0, 1), (args, proc.stderr[-2000:])
        printed.append(proc.stdout + proc.stderr)
    _no_secret_in("\n".join(printed), "the terminal")
    written = _no_secret_under(tmp_path, skip={tmp_path / "attempts.jsonl"})
    assert {"results.json", "report.html", "summary.md", "junit.xml", "diagnoses.json"} <= {
        p.name for p in written}
    assert "<SECRET:private_key>" in (tmp_path / "results.json").read_text(encoding="utf-8")
    # the page and the summaries show each placeholder whole: the second pass over a
    # rendered page does not take an escaped one for an assignment
    for path in written:
        assert "SECRET:<SECRET" not in path.read_text(encoding="utf-8"), path
    assert "\\u003cSECRET:private_key\\u003e" in (tmp_path / "report.html").read_text(
        encoding="utf-8")  # the page's data, as JSON escapes it


def test_a_case_files_free_text_is_redacted_where_it_is_read(world: Path, tmp_path: Path) -> None:
    """A key pasted into a case's query, rationale or tags, or credentials in its
    repository URL, reach no results file, no JSON on stdout, no warning and no
    comparison: the attempt's copy of the query is redacted, and so is the case's."""
    cases = yaml.safe_load((world / "cases.yaml").read_text(encoding="utf-8"))
    cases["defaults"]["repository"] = f"https://deploy:{URL_PASSWORD}@git.example.com/acme/app"
    login = cases["cases"][0]
    login["query"] += f" with token {GITHUB}"
    login["rationale"] = f"the handler compares against DB_PASSWORD={ENV_PASSWORD}"
    login["tags"] = {"team": SLACK, f"{AWS}": "key"}
    login["query_class"] = f"secret {JWT}"
    (tmp_path / "cases.yaml").write_text(yaml.safe_dump(cases), encoding="utf-8")
    printed = []
    for args, codes in (
            (("index", world / "repo", "--revision", "HEAD", "-o", "idx"), (0,)),
            (("cases", "check", "cases.yaml", "--index", "idx"), (0, 1)),
            (("run", "cases.yaml", "-o", "attempts.jsonl", "--retriever",
              f"command:{sys.executable} {world / 'retriever.py'}"), (0, 3)),
            (("eval", "cases.yaml", "attempts.jsonl", "-o", "results.json"), (0, 1)),
            (("eval", "cases.yaml", "attempts.jsonl", "--json"), (0, 1)),
            (("compare", "results.json", "results.json"), (0, 1)),
            (("export", "trec", "results.json", "-o", "trec/run"), (0,))):
        proc = run_cli(*args, cwd=tmp_path, timeout=120)
        assert_no_traceback(proc)
        assert proc.returncode in codes, (args, proc.stderr[-2000:])
        printed.append(proc.stdout + proc.stderr)
    _no_secret_in("\n".join(printed), "the terminal")
    _no_secret_under(tmp_path, skip={tmp_path / "cases.yaml", tmp_path / "idx"})
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    case = next(c["case"] for c in results["cases"] if c["case_id"] == "login")
    assert "<SECRET:github_token>" in case["query"] and "<SECRET:" in case["rationale"]
    assert case["repository"] == "https://<SECRET:url_credentials>@git.example.com/acme/app"


def _agent_step(command: str, output: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": f"```bash\n{command}\n```"},
            {"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{output}\n</output>"}]


def test_an_agents_trajectory_leaves_no_secret_in_attempts_or_the_import_report(
        tmp_path: Path) -> None:
    """A mini-swe-agent session that read a file full of keys, ran commands quoting them
    and once ran a pasted key as a command: the attempts, the ``--report`` file, ``--json``
    and the summary on the terminal hold none (a call passed over is named by its program)."""
    cases = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures" / "cases.yaml"
    messages = [{"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": f"Please fix login; the CI token is {GITHUB}"},
                *_agent_step("cat src/app/settings.py", SETTINGS),
                *_agent_step(f"curl -H 'Authorization: Bearer {JWT}' https://api.example.com",
                             "{}"),
                *_agent_step(SLACK, "ok"),  # a pasted key run as a command
                *_agent_step(f"{AWS} --version", "error: no such command")]
    (tmp_path / "demo__repo-1.traj.json").write_text(json.dumps({
        "info": {"exit_status": "Submitted", "submission": f"password={ENV_PASSWORD}",
                 "config": {"environment": {"cwd": "/testbed"}}},
        "messages": messages}), encoding="utf-8")
    printed = []
    for extra in (("--report", "report.json"), ("--json",)):
        proc = run_cli("import", "trajectories", "demo__repo-1.traj.json", "--format",
                       "mini-swe-agent", "--cases", cases, "-o", "attempts.jsonl", *extra,
                       "--replace", cwd=tmp_path, timeout=120)
        assert_no_traceback(proc)
        assert proc.returncode == 0, proc.stderr[-2000:]
        printed.append(proc.stdout + proc.stderr)
    _no_secret_in("\n".join(printed), "the terminal")
    written = _no_secret_under(tmp_path, skip={tmp_path / "demo__repo-1.traj.json"})
    assert {"attempts.jsonl", "report.json"} <= {p.name for p in written}
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    passed_over = report["trajectories"][0]["skipped_calls"]
    assert any("<SECRET:slack_token>" in reason for reason in passed_over), passed_over

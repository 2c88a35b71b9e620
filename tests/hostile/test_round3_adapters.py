"""Retrievers and MCP, third round: paths git refuses, answers no parser can read or
that would cost unbounded time or memory, signals, stray lines of a persistent program,
helpers a server leaves behind."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegold.adapters.mcp.checkout import Checkouts
from codegold.plumbing.git import verify_path
from hostilekit import RUN_CASES, assert_no_traceback, run_cli

# the codegold the tests import, for the programs they start themselves
_SOURCE = os.environ.get("PYTHONPATH") or str(Path(__file__).parents[2] / "src")
_GIT_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "LC_ALL": "C"}


def _git(repo: Path, *args: str, input: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, env=_GIT_ENV, input=input,
                          capture_output=True, check=True)
    return done.stdout.decode().strip()


def _tree(repo: Path, entries: dict[str, tuple[str, str]]) -> str:
    """A tree object of ``name -> (mode, sha)``, names as given (git mktree checks none)."""
    lines = "".join(f"{mode} {'tree' if mode == '040000' else 'blob'} {sha}\t{name}\n"
                    for name, (mode, sha) in entries.items())
    return _git(repo, "mktree", input=lines.encode())


# --- 1. the MCP checkout writes only what git itself would write ----------------------------

# Paths git refuses with its NTFS and HFS+ protections on; every one a component that a
# git command run below it could read as a repository's .git folder.
REFUSED = [
    "sub/.git/config", ".git/config", ".GIT/config", "a/.Git/hooks/x", "a/git~1/config",
    "a/GIT~1/config", "a/.git./config", "a/.git /config", "a/.git. . /config",
    "a/.git::$INDEX_ALLOCATION/config", "a/.git:stream/config", "a/.g\u200cit/config",
    "a/\u200d.git/config", "a/.gi\ufefft/config", "a/.GI\u206at/config", "a/../x", "./x",
    "a/./x", "a//x", "a/", "/x", "",
]
ACCEPTED = ["src/login.py", "a/.gitx/y", "a/.git~1/y", "a/.gitmodules", "a/gitmodules",
            "a/.github/workflows/ci.yml", "a/git/x", "a/...x", "a/.gitignore", "a/\u00e9.py"]
REFUSED_LINKS = [".gitmodules", "a/.GITMODULES", "GITMOD~1", "gi7eba~2", ".gitmodules ",
                 "x/.gitmodules.", ".gitmodules::$DATA", ".git\u200cmodules"]


def _git_accepts(repo: Path, blob: str, path: str, mode: str) -> bool:
    done = subprocess.run(["git", "-c", "core.protectHFS=true", "-c", "core.protectNTFS=true",
                           "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}"],
                          cwd=repo, env=_GIT_ENV, capture_output=True, check=False)
    return done.returncode == 0


def test_verify_path_refuses_what_git_refuses(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    blob = _git(tmp_path, "hash-object", "-w", "--stdin", input=b"x\n")
    for path in REFUSED:
        assert not verify_path(path, 0o100644), path
    for path in ACCEPTED:
        assert verify_path(path, 0o100644), path
    for path in REFUSED_LINKS:
        assert not verify_path(path, 0o120000), path
        assert verify_path(path, 0o100644) or path.endswith("::$DATA"), path
    # git itself is the judge: the same verdict for every path it can be asked about
    # (an empty or absolute path never reaches its index)
    for path in [*REFUSED, *ACCEPTED]:
        if path and not path.startswith("/") and not path.endswith("/"):
            assert _git_accepts(tmp_path, blob, path, "100644") == verify_path(path, 0o100644), \
                path
    for path in REFUSED_LINKS:
        assert not _git_accepts(tmp_path, blob, path, "120000"), path
    # a backslash is a separator on Windows: refused, where git on Linux would take it
    assert not verify_path("a\\.git\\config", 0o100644)


def test_the_mcp_checkout_writes_no_git_folder_at_any_depth(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    planted = tmp_path / "pwned"
    config = f"[core]\n\tfsmonitor = touch {planted}\n".encode()
    blob = _git(repo, "hash-object", "-w", "--stdin", input=config)
    code = _git(repo, "hash-object", "-w", "--stdin", input=b"def login():\n    pass\n")
    dotgit = _tree(repo, {"config": ("100644", blob)})
    sub = _tree(repo, {name: ("040000", dotgit) for name in
                       (".git", ".GIT", "git~1", ".git.", ".g\u200cit")}
                | {"ok.py": ("100644", code)})
    top = _tree(repo, {"sub": ("040000", sub), "login.py": ("100644", code),
                       ".git": ("040000", dotgit)})
    commit = _git(repo, "commit-tree", "-m", "hostile", top)
    checkouts = Checkouts(str(repo))
    try:
        tree = checkouts.path_for(commit, None)
        written = sorted(str(p.relative_to(tree)) for p in tree.rglob("*"))
        assert written == ["login.py", "sub", "sub/ok.py"], written
        # what a code-search server would run in sub/: no config of the repository's reads
        subprocess.run(["git", "status"], cwd=tree / "sub", env=_GIT_ENV,
                       capture_output=True, check=False)
        assert not planted.exists()
    finally:
        checkouts.close()


# --- 2. MCP answers: parsing in linear time, every parser failure one case's error ---------

_LINEAR = """
import sys, time
from codegold.adapters.mcp.parsers import ToolAnswer, parse_auto
lines = {"words": "# " + "a" * 1000, "spaces": "# x" + " " * 1000 + "y",
         "bold": "**" + "a-" * 500, "ranges": "- " + "a/" * 500 + " x"}
size = int(sys.argv[1])
for line in lines.values():
    parse_auto(ToolAnswer(text="\\n".join([line] * size)))
"""


@pytest.mark.parametrize("lines", [100, 1000])
def test_markdown_and_range_headers_are_read_in_linear_time(tmp_path: Path, lines: int) -> None:
    # 100 such lines took 7 to 10 s each (patterns backtracking within a line); a
    # megabyte of them now takes about a second, after the call's own deadline.
    (tmp_path / "linear.py").write_text(_LINEAR)
    subprocess.run([sys.executable, str(tmp_path / "linear.py"), str(lines)], check=True,
                   env={**os.environ, "PYTHONPATH": _SOURCE},
                   timeout=60)


def _server(tmp_path: Path, body: str) -> str:
    path = tmp_path / "server.py"
    path.write_text("from mcp.server.mcpserver import MCPServer\napp = MCPServer('x')\n"
                    "@app.tool()\ndef search(query: str) -> str:\n    '''Search.'''\n"
                    + body + "app.run()\n")
    return f"mcp:stdio:{sys.executable} {path}"




def _run(tmp_path: Path, spec: str, *extra: str, timeout: float = 90
         ) -> tuple[subprocess.CompletedProcess[str], list[dict[str, object]]]:
    (tmp_path / "cases.yaml").write_text(RUN_CASES)
    out = tmp_path / "attempts.jsonl"
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", out, "--quiet", "--retriever", spec,
                   *extra, cwd=tmp_path, timeout=timeout)
    assert_no_traceback(proc)
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    return proc, attempts


def test_a_score_past_a_float_is_no_score_and_a_failing_parser_one_error(
        tmp_path: Path) -> None:
    (tmp_path / "huge").mkdir()
    spec = _server(tmp_path / "huge", "    return '[{\"path\": \"src/login.py\", \"score\": 1' "
                   "+ '0' * 400 + '}]'\n")
    proc, attempts = _run(tmp_path / "huge", spec)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [[c["file"] for c in a["ranked"]] for a in attempts] == [["src/login.py"]] * 2
    assert all("score" not in a["ranked"][0] for a in attempts)
    # a parser of the user's own that raises: that case's error attempt, and the next
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "myparse.py").write_text("def parse(answer):\n"
                                                 "    return float(10 ** 400)\n")
    spec = _server(tmp_path / "own", "    return 'x'\n")
    proc, attempts = _run(tmp_path / "own", spec, "--mcp-parse", "myparse:parse")
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert all("OverflowError" in str(a["error"]) for a in attempts), attempts


def test_an_answer_no_parser_reads_is_a_note_and_all_of_them_fail_the_run(
        tmp_path: Path) -> None:
    # jcodemunch-mcp's compact format: names and kinds, no path a parser can take
    spec = _server(tmp_path, "    return 'login|function|L3 api_key=sk-live-abcdefghijklmnopqrstuvwx'\n")
    proc, attempts = _run(tmp_path, spec)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "2 of 2 answers held something no parser read" in proc.stderr
    for attempt in attempts:
        assert attempt.get("error") is None and not attempt.get("ranked")
        note = str(attempt["note"])
        assert "login|function|L3" in note and "sk-live-abcdefghijklmnopqrstuvwx" not in note
    # the same through a command whose hits sit under a field codegold does not read
    (tmp_path / "cmd").mkdir()
    script = tmp_path / "cmd" / "r.py"
    script.write_text("import json, sys\njson.load(sys.stdin)\n"
                      "print(json.dumps({'ranked': [], 'results': [{'path': 'src/login.py'}]}))\n")
    proc, attempts = _run(tmp_path / "cmd", f"command:{sys.executable} {script}")
    assert proc.returncode == 3 and "no parser read" in proc.stderr, proc.stderr[-2000:]
    assert all("'results'" in str(a["note"]) for a in attempts)


_CODE_FILE = re.compile(r"\.(?:py|pyc)$|\.so(?:\.\d+)*$")


def _open_file_bytes(pid: int) -> int:
    """Bytes in the regular files ``pid`` holds open (a temporary file made with
    O_TMPFILE has no name to find it by). Code is left out: the interpreter's modules, and
    the shared libraries the loader holds open for a moment (libc.so.6, 1.9 MB, was seen
    when a sample fell in that moment on a loaded machine)."""
    total = 0
    for fd in Path(f"/proc/{pid}/fd").glob("*"):
        try:
            info = fd.stat()
            target = os.readlink(fd)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and not _CODE_FILE.search(target):
            total += info.st_size
    return total


def test_a_server_logging_without_end_keeps_only_the_end_of_its_stderr(tmp_path: Path) -> None:
    # 300 MiB of stderr, then silence: while codegold waits for it to start, the
    # temporary folder and codegold's open files hold none of it
    (tmp_path / "tmp").mkdir()
    script = tmp_path / "server.py"
    script.write_text("import sys, time\nblock = 'x' * (1 << 20) + '\\n'\n"
                      "for _ in range(300):\n    sys.stderr.write(block)\n"
                      "sys.stderr.write('the end\\n')\nsys.stderr.flush()\ntime.sleep(300)\n")
    spec = f"mcp:stdio:{sys.executable} {script}"
    seen: list[int] = []
    (tmp_path / "cases.yaml").write_text(RUN_CASES)
    out = tmp_path / "attempts.jsonl"
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": _SOURCE}
    child = subprocess.Popen([sys.executable, "-c", "from codegold.cli.main import main; main()",
                              "run", str(tmp_path / "cases.yaml"), "-o", str(out), "--quiet",
                              "--retriever", spec, "--timeout", "4"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    while child.poll() is None:
        seen.append(_open_file_bytes(child.pid) + sum(
            f.stat().st_size for f in (tmp_path / "tmp").rglob("*") if f.is_file()))
        time.sleep(0.05)
    child.communicate(timeout=60)
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    assert "did not answer initialize within 4s" in str(attempts[0]["error"])
    assert "the end" in str(attempts[0]["error"]), attempts[0]["error"]
    assert max(seen, default=0) < 1 << 20, max(seen)


def test_a_message_of_millions_of_tiny_blocks_is_refused_before_decoding(
        tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if 'id' not in message:\n        continue\n"
        "    if message['method'] == 'initialize':\n"
        "        result = {'protocolVersion': message['params']['protocolVersion'],\n"
        "                  'capabilities': {'tools': {}}, 'serverInfo': {'name': 'x', 'version': '1'}}\n"
        "    elif message['method'] == 'tools/list':\n"
        "        result = {'tools': [{'name': 'search', 'inputSchema': {'type': 'object',\n"
        "                  'properties': {'query': {'type': 'string'}}}}]}\n"
        "    else:\n"
        "        blocks = ','.join(['{\"type\":\"text\",\"text\":\"\"}'] * 2_000_000)\n"
        "        sys.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[%s]}}\\n'\n"
        "                         % (message['id'], blocks))\n"
        "        sys.stdout.flush()\n        continue\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': message['id'], 'result': result}), flush=True)\n")
    # within the default 3 GB of address space: decoding the blocks took 4.6 GB
    (tmp_path / "cases.yaml").write_text(RUN_CASES)
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", tmp_path / "a.jsonl", "--quiet",
                   "--retriever", f"mcp:stdio:{sys.executable} {script}", "--timeout", "60",
                   cwd=tmp_path, timeout=240)
    assert_no_traceback(proc)
    attempts = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert len(attempts) == 2, proc.stderr[-2000:]
    assert all("JSON objects and arrays" in str(a.get("error")) for a in attempts), \
        [a.get("error") for a in attempts]


# --- 3. SIGTERM and SIGHUP end the run as Ctrl-C does --------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def _codegold(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": _SOURCE}
    return subprocess.Popen([sys.executable, "-c", "from codegold.cli.main import main; main()",
                             *args], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _wait_for(path: Path, child: subprocess.Popen[bytes], seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert child.poll() is None, child.communicate()[1][-2000:]
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.05)
    return path.read_text().strip()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_kills_the_retriever_and_removes_the_checkout(
        tmp_path: Path, signum: int, code: int) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "login.py").write_text("def login():\n    pass\n")
    _git(repo, "add", "login.py")
    _git(repo, "commit", "-qm", "one")
    sha = _git(repo, "rev-parse", "HEAD")
    (tmp_path / "tmp").mkdir()
    (tmp_path / "cases.yaml").write_text(RUN_CASES.replace("a" * 40, sha))
    pidfile = tmp_path / "server.pid"
    script = tmp_path / "server.py"
    script.write_text(
        "import os, sys, time\n"
        "from mcp.server.mcpserver import MCPServer\napp = MCPServer('x')\n"
        "@app.tool()\ndef search(query: str, root: str) -> str:\n    '''Search.'''\n"
        f"    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(300)\n    return ''\n"
        "app.run()\n")
    child = _codegold(tmp_path, "run", str(tmp_path / "cases.yaml"), "-o",
                      str(tmp_path / "a.jsonl"), "--quiet", "--repo", str(repo), "--index",
                      str(tmp_path / "indexes"), "--retriever",
                      f"mcp:stdio:{sys.executable} {script}", "--timeout", "300", "--mcp-args",
                      '{"query": "{query}", "root": "{checkout}"}')
    server = int(_wait_for(pidfile, child))
    assert list((tmp_path / "tmp").glob("codegold-mcp-*"))
    child.send_signal(signum)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == code, stderr[-2000:]
    assert b"Traceback" not in stderr and b"stopped by" in stderr, stderr[-2000:]
    assert not _alive(server)
    assert not list((tmp_path / "tmp").glob("codegold-mcp-*"))


def test_sigterm_kills_a_persistent_command(tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    (tmp_path / "cases.yaml").write_text(RUN_CASES)
    pidfile = tmp_path / "program.pid"
    script = tmp_path / "serve.py"
    script.write_text(f"import os, sys, time\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
                      "sys.stdin.readline()\ntime.sleep(300)\n")
    child = _codegold(tmp_path, "run", str(tmp_path / "cases.yaml"), "-o",
                      str(tmp_path / "a.jsonl"), "--quiet", "--retriever",
                      f"command+jsonl:{sys.executable} {script}", "--timeout", "300")
    program = int(_wait_for(pidfile, child))
    time.sleep(0.5)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 143, stderr[-2000:]
    assert not _alive(program)


# --- 4. command+jsonl: answers matched by case_id ------------------------------------------


def test_a_stray_line_is_never_taken_as_the_next_cases_answer(tmp_path: Path) -> None:
    # The program answers 'one', then, before answering 'two', writes one line too many
    # (case one's answer again): 'two' was scored on it, with 0 errors.
    script = tmp_path / "serve.py"
    script.write_text(
        "import json, sys\n"
        "for number, line in enumerate(sys.stdin):\n"
        "    case = json.loads(line)['case_id']\n"
        "    answer = {'case_id': case, 'ranked': [{'chunk_id': case, 'file': f'src/{case}.py'}]}\n"
        "    if number == 1:\n"
        "        print(json.dumps({**answer, 'case_id': 'one', 'ranked': [{'chunk_id': 'x',\n"
        "              'file': 'src/one.py'}]}), flush=True)\n"
        "    print(json.dumps(answer), flush=True)\n")
    proc, attempts = _run(tmp_path, f"command+jsonl:{sys.executable} {script}")
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert attempts[0].get("error") is None
    assert [c["file"] for c in attempts[0]["ranked"]] == ["src/one.py"]
    assert "answered case 'one' while case 'two' was asked" in str(attempts[1]["error"])


def test_a_late_warning_on_stdout_costs_its_case_only(tmp_path: Path) -> None:
    # No case_id echoed: a warning line read as an answer is that case's error, and the
    # program starts afresh, so the next case is answered by its own line.
    three = RUN_CASES + "  - id: three\n    query: cart\n    accepted: [{file: src/cart.py}]\n"
    script = tmp_path / "serve.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    case = json.loads(line)['case_id']\n"
        "    if case == 'two':\n        print('warning: cache is cold', flush=True)\n"
        "    print(json.dumps({'ranked': [{'chunk_id': case, 'file': f'src/{case}.py'}]}),\n"
        "          flush=True)\n")
    (tmp_path / "cases.yaml").write_text(three)
    out = tmp_path / "attempts.jsonl"
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", out, "--quiet", "--retriever",
                   f"command+jsonl:{sys.executable} {script}", cwd=tmp_path, timeout=90)
    assert_no_traceback(proc)
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["case_id"] for a in attempts] == ["one", "two", "three"]
    assert "invalid JSON" in str(attempts[1]["error"])
    assert [c["file"] for c in attempts[2]["ranked"]] == ["src/three.py"]


# --- 5. helpers that leave the retriever's process group -----------------------------------

_HELPERS = """
import json, os, subprocess, sys, time
folder = sys.argv[1]
sleeper = "import os, sys, time\\nopen(sys.argv[1], 'w').write(str(os.getpid()))\\ntime.sleep(300)\\n"
# a helper in a session of its own, and one whose parent exits (a daemon's double fork)
subprocess.Popen([sys.executable, "-c", sleeper, os.path.join(folder, f"setsid-{os.getpid()}")],
                 start_new_session=True)
subprocess.Popen([sys.executable, "-c", "import subprocess, sys\\n"
                  "subprocess.Popen(sys.argv[1:], start_new_session=True)",
                  sys.executable, "-c", sleeper, os.path.join(folder, f"orphan-{os.getpid()}")])
mine = [os.path.join(folder, f"{kind}-{os.getpid()}") for kind in ("setsid", "orphan")]
while not all(os.path.exists(path) and open(path).read() for path in mine):
    time.sleep(0.02)  # both helpers run before the first answer
for line in sys.stdin:
    case = json.loads(line)["case_id"]
    print(json.dumps({"ranked": [{"chunk_id": case, "file": "src/login.py"}]}), flush=True)
"""


@pytest.mark.parametrize("scheme", ["command+jsonl", "command"])
def test_helpers_a_retriever_starts_in_new_sessions_end_with_it(tmp_path: Path,
                                                                 scheme: str) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    script = tmp_path / "serve.py"
    script.write_text(_HELPERS)
    proc, _ = _run(tmp_path, f"{scheme}:{sys.executable} {script} {pids}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    time.sleep(0.5)
    assert len(list(pids.iterdir())) >= 2  # two helpers per start of the program
    written = [int(p.read_text()) for p in pids.iterdir() if p.read_text()]
    try:
        alive = [pid for pid in written if _alive(pid)]
        assert not alive, (alive, sorted(p.name for p in pids.iterdir()))
    finally:
        for pid in written:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_json_values_are_counted_across_chunks_with_strings_skipped() -> None:
    pytest.importorskip("mcp")
    from codegold.adapters.mcp.client import MAX_VALUES, _Openers, too_many_values

    body = json.dumps({"content": [{"type": "text", "text": 'a "{[" \\ b'}] * 5,
                       "s": "\\\\"}).encode()
    for cut in range(1, len(body)):  # a string or an escape split at every byte
        counter = _Openers(events=False)
        counter.feed(body[:cut])
        assert counter.feed(body[cut:]) == 7, cut
    # text full of braces is not JSON structure
    assert too_many_values(json.dumps(["{" * (MAX_VALUES + 10)]).encode()) is None
    many = ("[" + ",".join(["{}"] * (MAX_VALUES + 1)) + "]").encode()
    assert too_many_values(many) == MAX_VALUES + 2
    # events on one stream are messages of their own
    events, plain = _Openers(events=True), _Openers(events=False)
    event = b"data: " + ("[" + ",".join(["{}"] * 60_000) + "]").encode() + b"\n\n"
    for _ in range(3):
        assert events.feed(event[:100]) == 32  # "[" and 31 objects
        assert events.feed(event[100:]) == 0  # the blank line ended the message
        plain.feed(event)
    assert plain.count == 3 * 60_001 > MAX_VALUES

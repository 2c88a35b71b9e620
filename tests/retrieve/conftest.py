"""A tiny repository, committed to git and indexed once per test session."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codegold.index import build_index

FILES: dict[str, str] = {
    "src/auth/session_service.py": '''"""Sessions."""


class SessionService:
    """Creates and refreshes user sessions."""

    def __init__(self, store):
        self.store = store

    def create_session(self, user, refresh_token):
        """Create a session; an expired refresh token is rejected."""
        if not validate_refresh_token(refresh_token):
            raise ExpiredToken(user)
        return self.store.put(user)

    def end_session(self, session_id):
        self.store.delete(session_id)
''',
    "src/auth/refresh.py": '''from datetime import datetime


def validate_refresh_token(token):
    """True when the refresh token has not expired."""
    return token.expires_at > datetime.now()


class ExpiredToken(Exception):
    pass
''',
    "src/api/routes.py": '''from auth.session_service import SessionService


def login_route(request):
    service = SessionService(request.store)
    return service.create_session(request.user, request.refresh_token)


def logout_route(request):
    SessionService(request.store).end_session(request.session_id)
''',
    "src/legacy/old_sessions.py": '''def create_session(user, refresh_token):
    """Legacy session creation (kept for the v1 API)."""
    return {"user": user, "refresh_token": refresh_token}
''',
    "tests/test_sessions.py": '''from auth.session_service import SessionService


class FakeStore:
    def put(self, user):
        return user


def test_create_session_with_fake_store():
    service = SessionService(FakeStore())
    assert service.create_session("ann", "token")
''',
    "src/billing/invoice.py": '''def invoice_total(items, tax_rate):
    """Sum of item prices plus tax."""
    subtotal = sum(item.price for item in items)
    return subtotal * (1 + tax_rate)


def format_invoice(invoice):
    return f"{invoice.number}: {invoice.total}"
''',
    "web/cart.ts": '''export function cartTotal(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price, 0);
}

export class CartView {
  render(items: Item[]): string {
    return `total ${cartTotal(items)}`;
  }
}
''',
    "docs/sessions.md": "# Sessions\n\nSessions are created by SessionService.create_session.\n",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    repo = tmp_path_factory.mktemp("repo")
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    for path, text in FILES.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    # A long function, split by the chunker into parts that lack the signature.
    body = "\n".join(f"    total_{i} = compute_part({i})" for i in range(450))
    (repo / "src" / "big.py").write_text(f"def giant_report(rows):\n{body}\n    return total_0\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "fixture")
    return repo, _git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="session")
def fixture_index(fixture_repo: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, revision = fixture_repo
    out = tmp_path_factory.mktemp("idx") / "index"
    build_index(repo, revision, out, repository="acme/fixture")
    return out

"""Folder names decide a category only when the content agrees, and say which rule did."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.index import IndexReader, build_index
from codegold.index.categories import categorize, folder_rule, version_copies
from codegold.model.languages import language_of
from gitrepo import Repo

GO_LIBRARY = b"package doc\n\nfunc GenMarkdownTree(cmd *Command, dir string) error {\n\treturn nil\n}\n"
GO_EXAMPLE = b"package main\n\nfunc main() {}\n"
JAVA_PACKAGE = b"package com.example.shop;\n\npublic class Cart {}\n"
JAVA_EXAMPLE = b"package com.acme.demo;\n\npublic class Demo {}\n"


@pytest.mark.parametrize(("path", "data", "category"), [
    ("src/external/api.ts", b"export function api() {}\n", "source"),
    ("lib/external/client.py", b"x = 1\n", "source"),
    ("external/zlib/inflate.c", b"int x;\n", "vendored"),
    ("vendor/github.com/x/y.go", b"package y\n", "vendored"),
    ("web/node_modules/left-pad/index.js", b"module.exports = 1\n", "vendored"),
    ("doc/md_docs.go", GO_LIBRARY, "source"),
    ("examples/quickstart/main.go", GO_EXAMPLE, "docs"),
    ("src/main/java/com/example/shop/Cart.java", JAVA_PACKAGE, "source"),
    ("examples/src/main/java/com/acme/demo/Demo.java", JAVA_EXAMPLE, "docs"),
    ("docs/conf.py", b"project = 'x'\n", "docs"),
    # A crate's or a package's own modules under src/ are code; Cargo's examples are not.
    ("crates/printer/src/examples/mod.rs", b"pub fn demo() {}\n", "source"),
    ("crates/printer/examples/demo.rs", b"fn main() {}\n", "docs"),
    ("src/acme/examples/loader.py", b"x = 1\n", "source"),
    ("examples/celery/src/task_app/tasks.py", b"x = 1\n", "docs"),
    ("acme/examples/loader.py", b"from . import base\n", "source"),
    ("acme/examples/demo.py", b"import acme\n", "docs"),
    ("examples/Demo/App.php", b"<?php\nnamespace Acme\\Examples\\Demo;\n", "source"),
    ("examples/demo/app.php", b"<?php\nnamespace Demo;\n", "docs"),
    ("doc/guide.md", b"# Guide\n", "docs"),
    # What sits beside an example program is part of the example.
    ("examples/graceful-shutdown/Cargo.toml", b"[package]\nname = 'x'\n", "docs"),
    ("examples/app/package.json", b'{"name": "x"}\n', "docs"),
    ("Cargo.toml", b"[package]\nname = 'x'\n", "config"),
])
def test_folder_names_need_content_to_agree(path: str, data: bytes, category: str) -> None:
    assert categorize(path, data, language_of(path)) == category


def test_folder_rule_names_the_deciding_rule() -> None:
    assert "library package doc" in (folder_rule("doc/md_docs.go", GO_LIBRARY, "go") or "")
    assert "example" in (folder_rule("examples/quickstart/main.go", GO_EXAMPLE, "go") or "")
    assert "not vendored" in (folder_rule("src/external/api.ts", b"x", "typescript") or "")
    assert "module examples::mod of its src/ tree" in (
        folder_rule("crates/p/src/examples/mod.rs", b"", "rust") or "")
    assert "relative import" in (
        folder_rule("acme/examples/loader.py", b"from .base import x\n", "python") or "")
    assert "vendor" in (folder_rule("vendor/a/b.go", b"package b\n", "go") or "")
    assert folder_rule("src/app.py", b"x = 1\n", "python") is None


def test_inventory_records_the_rule_and_bare_clone_names_the_project(tmp_path: Path) -> None:
    from gitrepo import git

    repo = Repo(tmp_path / "cobra")
    repo.commit({"doc/md_docs.go": GO_LIBRARY.decode(), "src/external/api.ts":
                 "export function api() {}\n"})
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(tmp_path / "mirror" / "cobra.git"))
    for source in (tmp_path / "mirror" / "cobra.git", repo.path / ".git"):
        out = tmp_path / f"idx-{source.name}"
        manifest = build_index(source, "HEAD", out)
        assert manifest.repository == "cobra"
        with IndexReader.open(out) as reader:
            doc = reader.inventory("doc/md_docs.go")
            assert doc is not None and doc.category == "source"
            assert "library package doc" in (doc.reason or "")
            api = reader.inventory("src/external/api.ts")
            assert api is not None and api.category == "source"


def test_a_release_line_kept_beside_a_newer_one_is_a_version_copy() -> None:
    tree = ["src/v3/core.js", "src/v3/only_here.js", "src/v4/core.js", "src/v4/new.js",
            "pkg/api.py", "pkg/v1/api.py", "server/api/v1/users.go", "server/api/v2/items.go",
            "docs/v1/guide.md", "docs/v2/guide.md", "lib/2.x/a.rb", "lib/3.x/a.rb"]
    assert version_copies(tree) == frozenset({
        # every file of a superseded folder, also those without a counterpart
        "src/v3/core.js", "src/v3/only_here.js",
        # an unversioned copy is the current line
        "pkg/v1/api.py",
        "docs/v1/guide.md", "lib/2.x/a.rb"})
    # An API version nothing replaced is current code.
    assert not version_copies(["server/api/v1/users.go", "server/api/v2/items.go"])


def test_folder_rule_with_the_category_known_says_the_same() -> None:
    cases = [("doc/md_docs.go", GO_LIBRARY, "go"), ("examples/quickstart/main.go", GO_EXAMPLE, "go"),
             ("src/external/api.ts", b"x", "typescript"), ("vendor/a/b.go", b"package b\n", "go"),
             ("acme/examples/loader.py", b"from .base import x\n", "python"),
             ("src/app.py", b"x = 1\n", "python")]
    for path, data, language in cases:
        assert folder_rule(path, data, language, category=categorize(path, data, language)) \
            == folder_rule(path, data, language)

"""Which code a repository ships, read from its own build files.

A build file says where a package's shipped code lives: ``[tool.setuptools.packages.find]
where``, Poetry's and Hatch's ``packages``, ``package.json``'s ``files`` and entry points,
Composer's autoload folders, a gemspec's ``require_paths``, Maven and Gradle's
``src/main``, SwiftPM's ``Sources``, a crate's ``src``. It also says which packages are not
shipped at all: a private ``package.json`` or a ``publish = false`` crate beside published
ones (documentation sites, example apps, benchmarks), a test or benchmark ``.csproj``
beside packable ones. Code outside what is shipped (examples, docs sites, benchmark
programs, copies kept for reference) is rarely what a question about the code means.

The reading is conservative: a file is *unshipped* only where a build file gives evidence
(a package folder whose declared roots do not hold it, or a package declared unshipped).
A repository without build files, or whose build files declare nothing readable, marks
nothing. Everything here is pure: the caller hands over build files' texts.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

# Build files read here, by file name (and the suffixes below).
BUILD_FILE_NAMES = frozenset({
    "package.json", "Cargo.toml", "go.mod", "pyproject.toml", "setup.cfg", "composer.json",
    "Package.swift", "pom.xml", "build.gradle", "build.gradle.kts"})
BUILD_FILE_SUFFIXES = (".csproj", ".gemspec")
# A build file larger than this is not read (none real comes close).
MAX_BUILD_FILE_CHARS = 512 * 1024

# Folders a Go build never reads: names starting with ``_`` or ``.``, and ``testdata``.
_GO_IGNORED = re.compile(r"(?:^|/)(?:[_.][^/]*|testdata)/")
# Maven and Gradle source sets that are not shipped: src/test, src/jmh, src/integrationTest,
# Kotlin Multiplatform's src/commonTest, src/jvmTest, ...
_JVM_OTHER_SOURCE_SETS = re.compile(r"src/(?:[A-Za-z]*Test|test[A-Za-z]*|jmh|[a-z]*[Bb]enchmark[s]?)/")
# A crate's folders that hold other targets than the library and binaries.
_CRATE_OTHER_TARGETS = ("examples/", "benches/", "tests/")
# A .NET project that is not shipped: a test or benchmark project, or one marked so.
_DOTNET_UNSHIPPED = re.compile(
    r"<IsPackable>\s*false\s*</IsPackable>|<IsTestProject>\s*true\s*</IsTestProject>"
    r"|Include=\"(?:Microsoft\.NET\.Test\.Sdk|BenchmarkDotNet|xunit|NUnit|MSTest\.TestFramework)\"",
    re.IGNORECASE)
_GEMSPEC_REQUIRE_PATHS = re.compile(r"\.require_paths\s*=\s*\[([^\]]{0,500})\]")
_QUOTED = re.compile(r"""["']([^"'\n]{1,200})["']""")


@dataclass(frozen=True)
class Package:
    """What one build file declares about the folder it sits in."""

    folder: str  # "" for the repository's top, else "a/b/"
    roots: tuple[str, ...] = ()  # folders of shipped code ("" + folder = all of it)
    excluded: tuple[str, ...] = ()  # folders inside ``folder`` that are never shipped
    publishable: bool = False  # a package the build publishes (library, crate, nuget)
    private: bool = False  # declared private / publish = false / not packable
    go: bool = False  # a Go module: folders the go tool skips are not shipped
    jvm: bool = False  # a Maven or Gradle module: its test and benchmark source sets are not
    name: str | None = None  # the import package a Python project's name implies


def is_build_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name in BUILD_FILE_NAMES or name.endswith(BUILD_FILE_SUFFIXES)


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def _clean(folder: str, entry: str) -> str | None:
    """``entry`` (a path written in a build file, relative to ``folder``) as a repository
    folder prefix, or None when it leaves the folder or is empty. A glob keeps what comes
    before its first wildcard."""
    entry = entry.strip().replace("\\", "/")
    entry = re.split(r"[*?\[{]", entry, maxsplit=1)[0]
    parts = [p for p in entry.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return folder + "/".join(parts)


def _strings(value: object, depth: int = 0) -> Iterable[str]:
    """Every string inside a JSON value (``exports`` maps nest conditions)."""
    if depth > 20:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value[:1000]:
            yield from _strings(item, depth + 1)
    elif isinstance(value, dict):
        for item in list(value.values())[:1000]:
            yield from _strings(item, depth + 1)


def _json_object(text: str) -> dict[str, object] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _package_json(folder: str, text: str) -> Package | None:
    data = _json_object(text)
    if data is None:
        return None
    private = data.get("private") is True
    entries: list[str] = []
    for key in ("main", "module", "browser", "types", "typings", "bin", "exports", "source"):
        entries.extend(_strings(data.get(key)))
    files = data.get("files")
    if isinstance(files, list):
        entries.extend(f for f in files if isinstance(f, str) and not f.startswith("!"))
    roots: list[str] = []
    for entry in entries:
        cleaned = _clean(folder, entry)
        if cleaned is None:
            continue
        # An entry file names its folder; a top-level file (index.js) names the package.
        head, _, tail = cleaned[len(folder):].rpartition("/")
        is_file = "." in tail and not entry.rstrip().endswith("/")
        roots.append(folder + head + "/" if is_file and head else
                     folder if is_file else cleaned + "/")
    return Package(folder=folder, roots=tuple(dict.fromkeys(roots)), private=private,
                   publishable=not private and "name" in data)


def _toml(text: str) -> dict[str, object] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None


def _table(data: Mapping[str, object], *keys: str) -> dict[str, object]:
    value: object = data
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _pyproject(folder: str, text: str) -> Package | None:
    data = _toml(text)
    if data is None:
        return None
    roots: list[str] = []
    tool = _table(data, "tool")
    find = _table(tool, "setuptools", "packages", "find")
    where = find.get("where")
    if isinstance(where, list):
        roots.extend(w for w in where if isinstance(w, str))
    package_dir = _table(tool, "setuptools", "package-dir")
    roots.extend(v for v in package_dir.values() if isinstance(v, str))
    packages = _table(tool, "setuptools").get("packages")
    if isinstance(packages, list):
        roots.extend(p.replace(".", "/") for p in packages if isinstance(p, str))
    poetry_packages = _table(tool, "poetry").get("packages")
    for item in poetry_packages if isinstance(poetry_packages, list) else []:
        if isinstance(item, dict) and isinstance(item.get("include"), str):
            base = item.get("from") if isinstance(item.get("from"), str) else ""
            roots.append(f"{base}/{item['include']}")
    wheel = _table(tool, "hatch", "build", "targets", "wheel")
    for key in ("packages", "only-include"):
        value = wheel.get(key)
        if isinstance(value, list):
            roots.extend(v for v in value if isinstance(v, str))
    # A module name (flit's, or the project's own) is looked for in src/ and at the top.
    name = _table(tool, "flit", "module").get("name")
    if not isinstance(name, str):
        name = _table(data, "project").get("name")
    if not isinstance(name, str):
        name = _table(tool, "poetry").get("name")
    cleaned = [c + "/" for r in roots if (c := _clean(folder, r)) is not None]
    return Package(folder=folder, roots=tuple(dict.fromkeys(cleaned)),
                   publishable=isinstance(name, str),
                   name=(re.sub(r"[-.]", "_", name).lower() if isinstance(name, str)
                         and re.fullmatch(r"[\w.-]{1,100}", name) else None))


def _setup_cfg(folder: str, text: str) -> Package | None:
    roots = [m.group(1) for m in re.finditer(r"(?m)^\s*=\s*([\w./-]+)\s*$", text)
             if "package_dir" in text]
    where = re.search(r"(?ms)^\[options\.packages\.find\][^\[]*?^where\s*=\s*([\w./-]+)", text)
    if where:
        roots.append(where.group(1))
    cleaned = [c + "/" for r in roots if (c := _clean(folder, r)) is not None]
    return Package(folder=folder, roots=tuple(dict.fromkeys(cleaned)),
                   publishable="[metadata]" in text)


def _cargo(folder: str, text: str) -> Package | None:
    data = _toml(text)
    if data is None:
        return None
    package = _table(data, "package")
    if not package:
        return Package(folder=folder)  # a workspace's root manifest: no code of its own
    private = package.get("publish") is False or package.get("publish") == []
    roots = [folder + "src/"]
    lib_path = _table(data, "lib").get("path")
    if isinstance(lib_path, str) and (c := _clean(folder, lib_path.rsplit("/", 1)[0]
                                                  if "/" in lib_path else "")):
        roots.append(c + "/")
    return Package(folder=folder, roots=tuple(dict.fromkeys(roots)),
                   excluded=tuple(folder + t for t in _CRATE_OTHER_TARGETS),
                   private=private, publishable=not private)


def _csproj(folder: str, text: str) -> Package:
    unshipped = _DOTNET_UNSHIPPED.search(text) is not None
    return Package(folder=folder, private=unshipped, publishable=not unshipped)


def _composer(folder: str, text: str) -> Package | None:
    data = _json_object(text)
    if data is None:
        return None
    autoload = data.get("autoload")
    roots: list[str] = []
    if isinstance(autoload, dict):
        for key in ("psr-4", "psr-0"):
            roots.extend(_strings(autoload.get(key)))
        for key in ("classmap", "files"):
            roots.extend(_strings(autoload.get(key)))
    cleaned = []
    for root in roots:
        c = _clean(folder, root)
        if c is None:
            continue
        head, _, tail = c[len(folder):].rpartition("/")
        cleaned.append(folder + (head + "/" if head else "") if tail.endswith(".php")
                       else c + "/")
    return Package(folder=folder, roots=tuple(dict.fromkeys(cleaned)),
                   publishable="name" in data)


def _gemspec(folder: str, text: str) -> Package:
    paths = ["lib"]
    found = _GEMSPEC_REQUIRE_PATHS.search(text)
    if found:
        paths = _QUOTED.findall(found.group(1)) or paths
    roots = [c + "/" for p in (*paths, "exe", "bin") if (c := _clean(folder, p))]
    return Package(folder=folder, roots=tuple(dict.fromkeys(roots)), publishable=True)


def _jvm(folder: str) -> Package:
    return Package(folder=folder, jvm=True)


def _swift(folder: str) -> Package:
    return Package(folder=folder, roots=(folder + "Sources/",), publishable=True)


def read_build_file(path: str, text: str) -> Package | None:
    """What the build file at ``path`` declares, or None when it says nothing readable."""
    if len(text) > MAX_BUILD_FILE_CHARS:
        return None
    folder = _folder(path)
    name = path.rsplit("/", 1)[-1]
    if name == "package.json":
        return _package_json(folder, text)
    if name == "pyproject.toml":
        return _pyproject(folder, text)
    if name == "setup.cfg":
        return _setup_cfg(folder, text)
    if name == "Cargo.toml":
        return _cargo(folder, text)
    if name == "go.mod":
        return Package(folder=folder, publishable=True, go=True)
    if name == "composer.json":
        return _composer(folder, text)
    if name == "Package.swift":
        return _swift(folder)
    if name in ("pom.xml", "build.gradle", "build.gradle.kts"):
        return _jvm(folder)
    if name.endswith(".csproj"):
        return _csproj(folder, text)
    if name.endswith(".gemspec"):
        return _gemspec(folder, text)
    return None


def unshipped_files(files: Iterable[str], build_files: Mapping[str, str],
                    is_code: Mapping[str, bool] | None = None) -> frozenset[str]:
    """The files of ``files`` that the build files (path → text) leave out of what the
    repository ships. ``is_code`` (path → bool) limits the answer to code files.

    A file belongs to the package of the nearest build file above it. It is unshipped when
    that package is not shipped (private beside published packages), when it sits in a
    folder the package's build never reads, or when the package declares roots of shipped
    code and none holds it (and the roots hold some code: a declaration that points only
    at build output, ``dist/``, proves nothing about the sources)."""
    files = sorted(set(files))
    packages: dict[str, Package] = {}
    for path, text in sorted(build_files.items()):
        package = read_build_file(path, text)
        if package is None:
            continue
        known = packages.get(package.folder)
        packages[package.folder] = package if known is None else _merge(known, package)
    if not packages:
        return frozenset()
    publishing = any(p.publishable for p in packages.values())
    code = [f for f in files if is_code is None or is_code.get(f, False)]
    owner: dict[str, str] = {}
    for path in code:
        folder = _folder(path)
        while True:
            if folder in packages:
                owner[path] = folder
                break
            if not folder:
                break
            folder = _folder(folder[:-1])
    code_set = set(code)
    for folder, package in list(packages.items()):
        if package.roots or package.name is None:
            continue
        # The project's name is its import package's, when nothing else says where it is.
        # A src layout ships all of src/ (pytest ships src/pytest and src/_pytest); a flat
        # one the package and its private twin (_name).
        if any(p.startswith(f"{folder}src/{package.name}/") for p in code_set):
            packages[folder] = replace(package, roots=(f"{folder}src/",))
        elif any(p.startswith(f"{folder}{package.name}/") for p in code_set):
            packages[folder] = replace(package, roots=(f"{folder}{package.name}/",
                                                       f"{folder}_{package.name}/"))
    held_by_roots: dict[str, bool] = {}
    for path, folder in owner.items():
        package = packages[folder]
        if any(path.startswith(root) for root in package.roots):
            held_by_roots[folder] = True
    return frozenset(path for path, folder in owner.items()
                     if _left_out(path, packages[folder], publishing=publishing,
                                  roots_hold_code=held_by_roots.get(folder, False)))


def _left_out(path: str, package: Package, *, publishing: bool, roots_hold_code: bool) -> bool:
    """Whether ``path``, in ``package``, is outside what the package ships."""
    if package.private and publishing and package.folder:
        return True  # an unpublished package beside published ones
    if any(path.startswith(e) and not any(path.startswith(r) and len(r) > len(e)
                                         for r in package.roots)
           for e in package.excluded):
        return True
    inside = path[len(package.folder):]
    if package.go and _GO_IGNORED.search("/" + inside):
        return True
    if package.jvm and _JVM_OTHER_SOURCE_SETS.match(inside):
        return True
    return bool(package.roots and roots_hold_code
                and not any(path.startswith(root) for root in package.roots))


def _merge(a: Package, b: Package) -> Package:
    """Two build files in one folder (``pyproject.toml`` and ``setup.cfg``): what either
    declares."""
    return Package(folder=a.folder, roots=tuple(dict.fromkeys((*a.roots, *b.roots))),
                   excluded=tuple(dict.fromkeys((*a.excluded, *b.excluded))),
                   publishable=a.publishable or b.publishable,
                   private=a.private or b.private, go=a.go or b.go, jvm=a.jvm or b.jvm, name=a.name or b.name)

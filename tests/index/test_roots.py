"""What a repository ships, read from its build files (``index.roots``)."""

from __future__ import annotations

from codegold.index.roots import read_build_file, unshipped_files


def _code(*paths: str) -> dict[str, bool]:
    return dict.fromkeys(paths, True)


def test_python_src_layout_ships_src_and_nothing_beside_it() -> None:
    files = _code("src/pkg/__init__.py", "src/_pkg/core.py", "examples/app/main.py",
                  "docs/conf.py", "noxfile.py")
    build = {"pyproject.toml": '[project]\nname = "pkg"\n'}
    assert unshipped_files(files, build, files) == {"examples/app/main.py", "docs/conf.py",
                                                    "noxfile.py"}


def test_python_declared_where_and_flat_layout() -> None:
    files = _code("lib/pkg/a.py", "scripts/release.py")
    where = '[tool.setuptools.packages.find]\nwhere = ["lib"]\n[project]\nname = "x"\n'
    assert unshipped_files(files, {"pyproject.toml": where}, files) == {"scripts/release.py"}
    flat = _code("my_pkg/a.py", "_my_pkg/b.py", "bench/run.py")
    assert unshipped_files(flat, {"pyproject.toml": '[project]\nname = "my-pkg"\n'},
                           flat) == {"bench/run.py"}


def test_nothing_is_unshipped_without_readable_evidence() -> None:
    files = _code("app/main.py", "examples/x.py")
    assert unshipped_files(files, {}, files) == frozenset()
    # a name that matches no folder declares nothing
    assert unshipped_files(files, {"pyproject.toml": '[project]\nname = "zzz"\n'},
                           files) == frozenset()
    # roots that hold only build output (dist/) say nothing about the sources
    js = _code("lib/index.js", "example/demo.js")
    assert unshipped_files(js, {"package.json": '{"name": "x", "main": "dist/index.js"}'},
                           js) == frozenset()
    # broken build files are ignored
    assert unshipped_files(files, {"pyproject.toml": "[project\n"}, files) == frozenset()


def test_private_packages_beside_published_ones_are_not_shipped() -> None:
    files = _code("packages/lib/src/index.ts", "packages/docs/src/page.tsx",
                  "apps/play/main.ts")
    build = {
        "package.json": '{"private": true, "workspaces": ["packages/*"]}',
        "packages/lib/package.json": '{"name": "lib", "exports": {".": "./src/index.ts"}}',
        "packages/docs/package.json": '{"name": "docs", "private": true}',
        "apps/play/package.json": '{"name": "play", "private": true}',
    }
    assert unshipped_files(files, build, files) == {"packages/docs/src/page.tsx",
                                                    "apps/play/main.ts"}
    # an application (private, nothing published) ships all of itself
    app = _code("src/server.ts", "scripts/seed.ts")
    assert unshipped_files(app, {"package.json": '{"name": "shop", "private": true}'},
                           app) == frozenset()


def test_crates_go_modules_jvm_source_sets_and_dotnet_projects() -> None:
    crate = _code("src/lib.rs", "examples/hello.rs", "benches/speed.rs", "demo/src/main.rs")
    build = {"Cargo.toml": '[package]\nname = "a"\n',
             "demo/Cargo.toml": '[package]\nname = "demo"\npublish = false\n'}
    assert unshipped_files(crate, build, crate) == {"examples/hello.rs", "benches/speed.rs",
                                                    "demo/src/main.rs"}
    go = _code("router.go", "_examples/hello/main.go", "internal/x/y.go", "testdata/z.go")
    assert unshipped_files(go, {"go.mod": "module example.com/r\n"}, go) == {
        "_examples/hello/main.go", "testdata/z.go"}
    jvm = _code("core/src/main/java/A.java", "core/src/test/java/ATest.java",
                "core/src/commonMain/kotlin/B.kt", "core/src/jvmTest/kotlin/BTest.kt",
                "core/src/jmh/java/Bench.java")
    assert unshipped_files(jvm, {"core/build.gradle.kts": "plugins {}\n"}, jvm) == {
        "core/src/test/java/ATest.java", "core/src/jvmTest/kotlin/BTest.kt",
        "core/src/jmh/java/Bench.java"}
    dotnet = _code("src/Lib/Client.cs", "bench/Lib.Benchmarks/Run.cs")
    build = {"src/Lib/Lib.csproj": "<Project></Project>",
             "bench/Lib.Benchmarks/Lib.Benchmarks.csproj":
                 '<Project><ItemGroup><PackageReference Include="BenchmarkDotNet" />'
                 "</ItemGroup></Project>"}
    assert unshipped_files(dotnet, build, dotnet) == {"bench/Lib.Benchmarks/Run.cs"}


def test_composer_and_gemspec_roots() -> None:
    php = _code("src/Client.php", "examples/send.php")
    composer = '{"name": "a/b", "autoload": {"psr-4": {"A\\\\": "src/"}}}'
    assert unshipped_files(php, {"composer.json": composer}, php) == {"examples/send.php"}
    ruby = _code("lib/rack.rb", "example/app.rb")
    assert unshipped_files(ruby, {"rack.gemspec": "Gem::Specification.new do |s|\nend\n"},
                           ruby) == {"example/app.rb"}


def test_paths_written_in_build_files_stay_inside_their_folder() -> None:
    package = read_build_file("pkg/package.json",
                              '{"name": "p", "files": ["../../etc", "./src/", "lib/**/*.js"]}')
    assert package is not None
    assert package.roots == ("pkg/src/", "pkg/lib/")
    assert read_build_file("package.json", "[1, 2]") is None
    assert read_build_file("package.json", "x" * (600 * 1024)) is None

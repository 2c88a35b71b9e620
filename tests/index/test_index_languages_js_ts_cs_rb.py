"""JavaScript, TypeScript, C# and Ruby by query file: what the language benchmark against
Universal Ctags found missing, one pattern per assertion."""

from __future__ import annotations

import re

from codegold.index import chunk_file
from langkit import found, parse


def test_csharp_conditional_members_base_lists_and_test_attributes() -> None:
    result = parse("SessionService.cs", "src/Auth/SessionService.cs")
    defs = found(result)
    # `#if` around a base list no longer turns the condition into the class name.
    assert defs["Acme.Auth.Tests.SessionServiceTests"][:4] == ("class", "definition", 42, 42)
    # Members inside #if / #else blocks; test attributes of NUnit, xUnit, MSTest.
    prefix = "Acme.Auth.Tests.SessionServiceTests."
    assert defs[prefix + "CreatesSessionAsync"][:4] == ("method", "test", 48, 49)
    assert defs[prefix + "CreatesSession"][:4] == ("method", "test", 54, 55)
    assert defs[prefix + "RefreshesSession"][:4] == ("method", "test", 58, 59)
    assert defs[prefix + "Helper"][:2] == ("method", "definition")
    assert defs[prefix + "SessionServiceTests"][3] == 63  # the destructor


def test_csharp_file_scoped_namespace_qualifies_the_file() -> None:
    source = b"namespace Acme.Auth;\n\npublic class Store\n{\n    public void Save() { }\n}\n"
    defs = found(chunk_file("src/Store.cs", source))
    assert defs["Acme.Auth.Store.Save"] == ("method", "definition", 5, 5, 5)


def test_ruby_blocks_conditions_modifiers_and_scoped_names() -> None:
    result = parse("session.rb", "lib/auth/session.rb")
    defs = found(result)
    assert defs["Auth.TokenStore"][:4] == ("class", "definition", 38, 38)  # Auth::TokenStore
    assert defs["Auth.TokenStore.purge"][2:] == (43, 43, 45)  # `end if RUBY_VERSION ...`
    assert defs["Auth.TokenStore.except"][3] == 48  # under `if`
    assert defs["Auth.TokenStore.slice"][3] == 52  # under `else`
    assert defs["Registry"][:4] == ("class", "definition", 58, 58)  # class ::Registry
    assert defs["RedisStore.fetch"][3] == 65  # inside begin ... rescue
    assert defs["FakeBody.call"][3] == 75  # inside RSpec.describe ... do
    assert defs["call"][3] == 82  # Class.new do, assigned inside an `it` block
    # A condition or block that holds no definition stays module code.
    last = result.chunks[-1]
    assert (last.start_line, last.role) == (90, "call_site")


def test_ruby_definitions_given_to_calls_and_in_rescue_clauses() -> None:
    source = b"""class Lint
  private def assert_required(key)
    key
  end

  private_class_method def self.build
    new
  end

  begin
    require "etc"
    def cpus; Etc.nprocessors; end
  rescue LoadError
    def cpus
      1
    end
  ensure
    def cleanup; end
  end
end

describe Lint do
  it "wraps bodies" do
    body = Struct.new(:body) do
      def each
        yield body
      end
    end.new(%w[a b])
    use(Class.new do
      def call(env) env end
    end)
    include Module.new {
      def hello; "hi"; end
    }
  end
end
"""
    result = chunk_file("lib/lint.rb", source)
    spans = {(d.qualified, d.kind, d.header_line) for d in result.definitions}
    assert {("Lint.assert_required", "method", 2), ("Lint.build", "method", 6),
            ("Lint.cpus", "method", 12), ("Lint.cpus", "method", 14),
            ("Lint.cleanup", "method", 18)} <= spans
    assert {("each", "method", 25), ("call", "method", 30), ("hello", "method", 33)} <= spans
    # The call around `private def` is part of the method's span.
    assert found(result)["Lint.assert_required"] == ("method", "definition", 2, 2, 4)


def test_javascript_nested_member_assignments_and_define_property() -> None:
    defs = found(parse("response.js", "lib/response.js"))
    assert defs["response.message"] == ("method", "definition", 46, 46, 48)
    assert defs["req.secure"][:4] == ("method", "definition", 50, 50)


def test_javascript_chained_assignment_and_a_detached_doc_comment_after_module_code() -> None:
    result = parse("response.js", "lib/response.js")
    defs = found(result)
    assert defs["req.header"][:4] == ("method", "definition", 62, 63)  # req.get = req.header =
    # The doc comment between module code and the definition travels with the definition.
    chunk = next(c for c in result.chunks if c.symbol == "req.header")
    assert chunk.start_line == 58
    assert all(not c.text.lstrip().startswith("/**") or "function" in c.text
               for c in result.chunks)


def test_typescript_declare_module_is_named_without_quotes() -> None:
    source = b'declare module "zod/v4" {\n  interface ZodType {\n    brand(): void;\n  }\n}\n'
    defs = found(chunk_file("src/augment.d.ts", source))
    assert defs["zod/v4"][:4] == ("module", "declaration", 1, 1)
    assert defs["zod/v4.ZodType.brand"][:2] == ("method", "declaration")


def test_typescript_declare_global_declares_at_the_level_holding_it() -> None:
    source = (b"import type ky from './index.js';\n\ndeclare global {\n  // the page's ky\n"
              b"  interface Window {\n    ky: typeof ky;\n  }\n  function reset(): void;\n}\n\n"
              b"export class Page {\n  open() {}\n}\n")
    defs = found(chunk_file("test/browser.ts", source))
    # Window is the global Window, not a member of a module named `global`.
    assert defs["Window"][:4] == ("interface", "definition", 4, 5)
    assert defs["reset"][:2] == ("function", "declaration")
    assert not any(q.startswith("global") for q in defs)
    assert defs["Page.open"][0] == "method"


def test_typescript_generic_call_signatures_without_semicolons_parse() -> None:
    # hono's style: overloads as call signatures, each starting `<` on its own line; the
    # grammar read each `<` as type arguments of the member above and lost the file.
    source = (b"export interface HandlerInterface<\n  E extends Env = Env,\n> {\n"
              b"  // app.get(handler)\n  <\n    P extends string,\n  >(\n    handler: H<E, P>\n"
              b"  ): Hono<E>\n\n  // app.get(handler x2)\n  <\n    P extends string,\n"
              b"  >(\n    ...handlers: [H<E, P>, H<E, P>]\n  ): Hono<E>\n}\n\n"
              b"export type Fn = {\n  (x: number): [B]\n  <T>(y: T): T\n}\n\n"
              b"export const pick =\n  <T>(x: T) => x\n\n"
              b"export type Schema = {\n  path: string\n}\n")
    result = chunk_file("src/types.ts", source)
    assert result.entry.reason is None  # parsed without syntax errors
    defs = found(result)
    assert defs["HandlerInterface"][0] == "interface"
    assert defs["Fn"][0] == "type" and defs["Schema"][:4] == ("type", "definition", 27, 27)
    assert defs["pick"][:4] == ("function", "definition", 24, 24)
    # TSX is left alone: there a line starting `<` is JSX.
    jsx = b"export function App() {\n  return (\n    <div>\n      <span>hi</span>\n    </div>\n  )\n}\n"
    assert chunk_file("src/App.tsx", jsx).entry.reason is None


def test_typescript_construct_signatures_are_methods_named_new() -> None:
    source = (b"export interface DateConstructor {\n  /** Now. */\n  new (): Date;\n\n"
              b"  new (\n    value: number,\n  ): Date;\n  (text: string): number;\n"
              b"  parse(text: string): number;\n}\n")
    result = chunk_file("src/types.ts", source)
    news = [(d.kind, d.role, d.header_line) for d in result.definitions
            if d.qualified == "DateConstructor.new"]
    assert news == [("method", "declaration", 3), ("method", "declaration", 5)]
    assert found(result)["DateConstructor.parse"][0] == "method"

def test_ecmascript_object_literals_of_data_define_nothing() -> None:
    source = (b'const nestedData = {\n  user: {\n    name: "a",\n    profile: { email: "x" },\n'
              b'  },\n};\n\nconst api = {\n  users: {\n    admin: {\n      list() { return 1; },\n'
              b'    },\n    meta: { size: 2 },\n  },\n  ping: () => 1,\n};\n\n'
              b'const forcedSlow = {};\n'
              b'Object.defineProperty(forcedSlow, "x", { value: 1, enumerable: false });\n'
              b'Object.defineProperty(forcedSlow, "y", { get() { return 2; } });\n')
    for path in ("lib/data.js", "src/data.ts"):
        defs = found(chunk_file(path, source))
        # Data members are not definitions; the statement names a module variable.
        assert defs["nestedData"][0] == "variable"
        assert not any(q.startswith("nestedData.") for q in defs)
        assert "api.users.meta" not in defs and "forcedSlow.x" not in defs
        # A literal holding a callable at any depth still qualifies its members.
        assert defs["api.users"][:2] == ("object", "definition")
        assert defs["api.users.admin.list"][:4] == ("method", "definition", 11, 11)
        assert defs["api.ping"][0] == "method"
        assert defs["forcedSlow.y"][:4] == ("method", "definition", 20, 20)


def test_commonjs_exported_object_literals_define_their_members() -> None:
    # koa's lib/context.js (bound to a name) and lib/request.js (bare): the module's whole
    # API is one literal.
    named = (b"const proto = module.exports = {\n  inspect () {\n    return 1\n  },\n"
             b"  onerror (err) {\n    throw new TypeError('non-error thrown')\n  },\n"
             b"  get cookies () {\n    return 2\n  }\n}\n")
    bare = (b"module.exports = {\n  get header () {\n    return this.req.headers\n  },\n"
            b"  is (type) {\n    return typeis(this.req, type)\n  }\n}\n")
    data = b"module.exports = {\n  name: 'a',\n  size: 2\n}\n"
    for path in ("lib/context.js", "src/context.ts"):
        defs = found(chunk_file(path, named))
        assert defs["proto"][:2] == ("object", "definition")
        assert defs["proto.onerror"][:4] == ("method", "definition", 5, 5)
        assert defs["proto.cookies"][3] == 8
        defs = found(chunk_file(path.replace("context", "request"), bare))
        assert defs["is"][:4] == ("method", "definition", 5, 5)
        assert defs["header"][3] == 2
        # An exported literal of data defines nothing.
        assert not found(chunk_file(path.replace("context", "settings"), data))


def test_ecmascript_quoted_member_names_lose_their_quotes() -> None:
    source = (b'class A {\n  "~validate"(data) {\n    return 1;\n  }\n  async "array-objects"() {\n'
              b'    return 2;\n  }\n}\nconst o = {\n  "x-y": function () {},\n  async "a-b"() {},\n'
              b'  \'nested\': { go() {} },\n};\n')
    for path in ("lib/quoted.js", "src/quoted.ts"):
        defs = found(chunk_file(path, source))
        assert defs["A.~validate"][:4] == ("method", "definition", 2, 2)
        assert defs["A.array-objects"][3] == 5
        assert defs["o.x-y"][:4] == ("method", "definition", 10, 10)
        assert defs["o.a-b"][3] == 11
        assert defs["o.nested.go"][3] == 12
    interface = b'interface Schema {\n  "~validate"(data: unknown): boolean;\n}\n'
    assert found(chunk_file("src/schema.ts", interface))["Schema.~validate"][:2] == (
        "method", "declaration")


def test_ecmascript_module_pattern_and_undeclared_global_functions() -> None:
    for path in ("static/globals.js", "src/globals.ts"):
        defs = found(parse("globals.js", path))
        assert defs["BaseStemmer"][:4] == ("function", "definition", 1, 3)  # doc comment
        assert defs["BaseStemmer.setCurrent"][0] == "method"
        # var domReady = function () {...}(): a module whose body defines its members.
        assert defs["domReady"][:4] == ("module", "definition", 11, 11)
        assert defs["domReady.init"][:4] == ("function", "definition", 13, 13)
        assert defs["helper"][0] == "module" and defs["helper.parse"][3] == 20
        # An immediately invoked function that defines nothing computes a value.
        assert defs["isNode"][0] == "variable" and defs["count"][0] == "variable"


def test_csharp_conditional_with_unbalanced_branches_keeps_the_class_whole() -> None:
    defs = found(parse("Store.cs", "src/Store.cs"))
    # `#if X` `if (a) {` `#else` `var d = ...;` `#endif` inside a switch no longer ends
    # the class early: every later member stays in it.
    assert defs["Acme.Store.Compare"][:4] == ("method", "definition", 5, 5)
    assert defs["Acme.Store.Load"][:4] == ("method", "definition", 48, 48)
    # Balanced branches (whole members under #if / #else) are all read.
    assert defs["Acme.Store.SaveAsync"][3] == 43 and defs["Acme.Store.Save"][3] == 45
    assert "Acme.Load" not in defs


def test_csharp_operators_are_methods_named_as_ctags_names_them() -> None:
    source = (b"class A {\n  public static explicit operator DateTime(JToken value) { return 1; }\n"
              b"  public static implicit operator JToken?(bool? value) { return null; }\n"
              b"  public static bool operator ==(A a, A b) { return true; }\n"
              b"  public static A operator +(A a, A b) => a;\n}\n")
    defs = found(chunk_file("src/A.cs", source))
    assert defs["A.operator DateTime"][:4] == ("method", "definition", 2, 2)
    assert defs["A.operator JToken?"][3] == 3
    assert defs["A.operator =="][3] == 4 and defs["A.operator +"][3] == 5


def test_ecmascript_class_expressions_assigned_and_every_iife_form() -> None:
    for path in ("lib/exports_classes.js", "src/exports_classes.ts"):
        defs = found(parse("exports_classes.js", path))
        # module.exports = class Application: the class by its own name, members in it
        assert defs["Application"][:2] == ("class", "definition")
        assert defs["Application.listen"][0] == "method"
        assert defs["Router"][0] == "class" and defs["Router.route"][0] == "method"
        assert defs["Layer"][0] == "class" and defs["Layer.match"][0] == "method"
        # (function () {...}).call(this), !function () {...}(), (function () {...}())
        for name in ("wrapped", "banged", "inner"):
            assert defs[name][:2] == ("function", "definition"), (path, name)


def test_minified_code_keeps_its_definitions_in_its_line_windows() -> None:
    packed = "".join(f"function f{i}(a){{if(a){{return a+{i}}};return {i}}};"
                     for i in range(600))
    result = chunk_file("vendor/lib.min.js", f"/*! lib */\n{packed}\n".encode(),
                        revision="r" * 40)
    assert result.entry.fate == "fallback" and "minified" in (result.entry.reason or "")
    names = {d.qualified for d in result.definitions}
    assert {"f0", "f299", "f599"} <= names
    # each name is held by the window piece that holds its name
    for chunk in result.chunks:
        for name in chunk.symbols:
            assert re.search(rf"function {name}\b", chunk.text), name


def test_ecmascript_objects_of_functions_on_members_and_several_declarators() -> None:
    for path in ("lib/namespaces.js", "src/namespaces.ts"):
        defs = found(parse("namespaces.js", path))
        # var a = [], whenReady = function, executeReady = function: both functions
        assert defs["whenReady"][:2] == ("function", "definition")
        assert defs["whenReady"][3] == 4 and defs["executeReady"][3] == 7
        # jQuery.event = { add: function }: a namespace named as assigned, members in it
        assert defs["jQuery.event"][0] == "object"
        assert defs["jQuery.event.add"][:4] == ("method", "definition", 12, 12)
        assert defs["jQuery.event.remove"][3] == 16
        assert defs["Base.cursor.hide"][3] == 22 and defs["Base.cursor.show"][3] == 25
        assert defs["mochaHooks.beforeAll"][3] == 31  # exports.mochaHooks = {...}
        assert defs["fn.extras.wrap"][3] == 37       # a.b.c = {...}: as a.b.c = function
        # this.q = function at module level: the global q
        assert defs["q"][:4] == ("function", "definition", 42, 42)
        # a.B.prototype = {...} and a.B.prototype.m = function: B's methods
        assert defs["Event.preventDefault"][3] == 50 and defs["Event.stop"][3] == 55
        # a module-level if/else or try/catch: its branches' definitions are top level
        assert defs["keys"][:2] == ("function", "definition") and defs["keys"][3] == 63
        assert defs["native"][3] == 71
        # an object of data on a member is no definition
        assert not any(name.startswith("jQuery.settings") for name in defs), path


def test_ecmascript_umd_factory_body_is_the_module() -> None:
    for path in ("lib/umd.js", "src/umd.ts"):
        defs = found(parse("umd.js", path))
        # ;(function (global, factory) {...}(this, (function () {...}))): moment's form
        assert defs["hooks"][:2] == ("function", "definition") and defs["hooks"][3] == 9
        # !function(e,t){...}(this,function(){...}): the packed form
        assert defs["fPacked"][3] == 15 and defs["gPacked"][3] == 15
        # (function (root, factory) {...})(this, function () {...})
        assert defs["inner"][:2] == ("function", "definition") and defs["inner"][3] == 19, path


def test_csharp_license_header_goes_with_the_file_scoped_namespace() -> None:
    source = (b"// Copyright Acme\n// Licensed under the Apache License.\n\nnamespace Acme.Auth;\n\n"
              b"/// <summary>A store.</summary>\npublic class Store\n{\n    public void Save() { }\n}\n")
    result = chunk_file("src/Store.cs", source)
    assert (result.chunks[0].start_line, result.chunks[0].end_line) == (1, 4)
    assert found(result)["Acme.Auth.Store"][:4] == ("class", "definition", 6, 7)


def test_csharp_conditionals_inside_a_member_keep_the_member() -> None:
    # A body only under a condition (`#if X` `{...}` `#else` `;` `#endif`), an expression
    # body so (`#if X` `=> ...` `#endif` `;`) and alternative signatures before one body.
    source = (b"namespace Acme;\n\npublic interface ILogger\n{\n"
              b"    void Write(int level)\n#if FEATURE\n    {\n        Emit(level);\n    }\n"
              b"#else\n        ;\n#endif\n\n"
              b"    bool IsEnabled(int level)\n#if FEATURE\n        => true\n#endif\n    ;\n}\n\n"
              b"class Binder\n{\n#if SPAN\n    int[] Bind(ReadOnlySpan<object?> values)\n#else\n"
              b"    int[] Bind(object?[] values)\n#endif\n    {\n        return null;\n    }\n\n"
              b"    void After() { }\n}\n")
    defs = found(chunk_file("src/ILogger.cs", source))
    assert defs["Acme.ILogger.Write"][:4] == ("method", "definition", 5, 5)
    assert defs["Acme.ILogger.IsEnabled"][:4] == ("method", "definition", 14, 14)
    assert defs["Acme.Binder.Bind"][:4] == ("method", "definition", 24, 24)
    assert defs["Acme.Binder.After"][3] == 32


def test_csharp_conditional_inside_an_if_chain_keeps_the_class() -> None:
    # `#if X` `else if (...) {...}` `#endif` `else {...}` in a switch section: each branch
    # balances its braces, but an `else` cannot stand as a statement of its own; the class
    # used to end there and every later method lost it.
    source = (b"namespace Acme;\n\npublic class Reader\n{\n    void Parse(int t)\n    {\n"
              b"        switch (t)\n        {\n            default:\n"
              b"                if (t == 1)\n                {\n                    A();\n"
              b"                }\n#if OFFSET\n                else if (t == 2)\n"
              b"                {\n                    B();\n                }\n#endif\n"
              b"                else\n                {\n                    C();\n"
              b"                }\n                if (t == 3)\n                {\n"
              b"                    E(out int d);\n                }\n#if OFFSET\n"
              b"                else\n                {\n                    D(out long d);\n"
              b"                }\n#endif\n                break;\n        }\n    }\n\n"
              b"    void After() { }\n}\n")
    defs = found(chunk_file("src/Reader.cs", source))
    assert defs["Acme.Reader.Parse"][:4] == ("method", "definition", 5, 5)
    assert defs["Acme.Reader.After"][:4] == ("method", "definition", 38, 38)


def test_csharp_test_attributes_in_any_place_of_an_attribute_list() -> None:
    source = (b'class T\n{\n    [Trait("a", nameof(X)), Fact]\n    public void A() { }\n\n'
              b'    [Xunit.Theory]\n    [InlineData(1)]\n    public void B(int x) { }\n\n'
              b'    [Description("Test, please")]\n    public void C() { }\n\n'
              b'    [method: TestMethodAttribute]\n    public void D() { }\n}\n')
    defs = found(chunk_file("tests/T.cs", source))
    assert {name: d[1] for name, d in defs.items()} == {
        "T": "definition", "T.A": "test", "T.B": "test", "T.C": "definition", "T.D": "test"}


def test_csharp_extension_block_members_are_members_of_the_static_class() -> None:
    source = b"""namespace Shop;

public static class CartExtensions {
    /// <param name="cart">the cart</param>
    extension(Cart cart) {
        /// <summary>The total, with "{braces}" in a string and a '}' char.</summary>
        public decimal Total() => cart.Lines.Sum(l => l.Price); // }
        public bool IsEmpty { get { return cart.Lines.Count == 0; } }
        public string Describe() {
            var text = $"{cart.Id}: {Total()}";
            return text;
        }
    }

    extension<T>(IList<T> items) where T : class {
        public T? FirstOrNone() => items.Count > 0 ? items[0] : null;
    }

    public static int Count(Cart cart) => cart.Lines.Count;
}
"""
    result = chunk_file("src/Shop/CartExtensions.cs", source, revision="r" * 40)
    names = {d.qualified for d in result.definitions}
    assert {"Shop.CartExtensions.Total", "Shop.CartExtensions.Describe",
            "Shop.CartExtensions.FirstOrNone", "Shop.CartExtensions.Count"} <= names
    assert not any(name.endswith(".extension") for name in names)
    assert result.entry.reason is None


def test_swift_initializers_static_properties_and_nested_extensions_are_named() -> None:
    source = b"""open class Session {
    public static let `default` = Session()
    static var shared: Session { Session() }
    public let queue: Queue

    public init(queue: Queue) { self.queue = queue }
    public convenience init() { self.init(queue: .main) }
    deinit { cancel() }
}

extension AFError.ValidationReason {
    var summary: String { "x" }
    func describe() -> String { "y" }
}
"""
    names = {d.qualified for d in chunk_file("Source/Core/Session.swift", source,
                                               revision="r" * 40).definitions}
    assert {"Session.init", "Session.deinit", "Session.default", "Session.shared"} <= names
    assert "AFError.ValidationReason.describe" in names
    assert "ValidationReason" not in names  # the path is one type, not two


def test_rendered_api_documentation_pages_are_generated() -> None:
    from codegold.index.categories import categorize

    pages = {
        "docs/Classes/Session.html": b'<html>\n<head>\n<link rel="stylesheet" type="text/css" '
                                     b'href="../css/jazzy.css" />\n',
        "site/apidocs/Foo.html": b"<!DOCTYPE HTML>\n<!-- Generated by javadoc (17) -->\n<html>",
        "docs/html/index.html": b'<html><head><meta name="generator" content="Doxygen 1.9.8"/>',
    }
    for path, head in pages.items():
        assert categorize(path, head, "html") == "generated", path
    assert categorize("docs/usage.md", b"# Usage\n\nCall Session.request.\n", "markdown") == "docs"


def test_ecmascript_named_functions_in_an_array_given_to_a_call_are_definitions() -> None:
    # fastbench's form, as pino's benchmarks write it: the function names are what the
    # benchmark's report prints, and Universal Ctags tags each.
    source = (b"const bench = require('fastbench')\n"
              b"const run = bench([\n"
              b"  function benchPino (cb) {\n    setImmediate(cb)\n  },\n"
              b"  function benchBunyan (cb) {\n    setImmediate(cb)\n  },\n"
              b"  () => 1\n"
              b"], 10000)\n"
              b"series([function first (next) { next() }])\n"
              b"var tasks = steps([function (done) { done() }])\n"
              b"run(run)\n")
    for path in ("benchmarks/basic.bench.js", "benchmarks/basic.bench.ts"):
        result = chunk_file(path, source)
        defs = found(result)
        assert defs["benchPino"] == ("function", "definition", 3, 3, 5), path
        assert defs["benchBunyan"] == ("function", "definition", 6, 6, 8), path
        assert defs["first"][:4] == ("function", "definition", 11, 11), path
        # an array of anonymous functions names nothing: its statement stays module code
        assert defs["tasks"][0] == "variable", path
        # the call's own line is read with each function it holds
        holding = next(c for c in result.chunks if "benchPino" in c.symbols)
        assert holding.text.startswith("const run = bench(["), path

; Definitions shared by JavaScript, TypeScript and TSX (node types all three grammars
; have); javascript.tags.scm and typescript.tags.scm add their own.
; Captures: @definition.<kind> / @declaration.<kind> on the definition, @name on its
; name, @qualifier on a name that qualifies it (`X` in `X.prototype.m = ...`), @body on
; its body (a container's members, or a function's statements); @module.variable on a
; statement whose @name it declares without a chunk of its own.

(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(class_declaration name: (_) @name body: (class_body) @body) @definition.class
(method_definition name: (_) @name body: (_) @body) @definition.method

; const f = () => {}, const f = function () {}
(lexical_declaration (variable_declarator
  name: (identifier) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
          (generator_function body: (_) @body)])) @definition.function
(variable_declaration (variable_declarator
  name: (identifier) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
          (generator_function body: (_) @body)])) @definition.function
(lexical_declaration (variable_declarator
  name: (identifier) @name
  value: (class name: (_)? body: (class_body) @body))) @definition.class

; const api = { get() {}, post: function () {} }: members are api.get, api.post. An
; object literal (@literal) is a definition only when it holds a callable, at any depth
; of nested literals; one holding only data (`const user = { name: "a" }`) is a variable.
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (object) @body)) @definition.object @literal
(variable_declaration
  (variable_declarator name: (identifier) @name value: (object) @body)) @definition.object @literal

; CommonJS: exports.x = function, module.exports.x = function
(assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]
  (#eq? @_exports "exports")) @definition.function
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function
; BaseStemmer = function () {}: a global assigned without a declaration
(assignment_expression
  left: (identifier) @name
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function
; X.prototype.m = function: X.m
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @qualifier property: (property_identifier) @_proto)
    property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]
  (#eq? @_proto "prototype")) @definition.method
; jQuery.Event.prototype.m = function: Event.m
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (member_expression property: (property_identifier) @qualifier)
      property: (property_identifier) @_proto)
    property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]
  (#eq? @_proto "prototype")) @definition.method
; res.send = function send(body): res.send
(assignment_expression
  left: (member_expression object: (identifier) @qualifier property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]
  (#not-eq? @qualifier "exports") (#not-eq? @qualifier "module")) @definition.method
; app.response.message = function: response.message (after the prototype and exports
; patterns above, which win for the same node)
(assignment_expression
  left: (member_expression
    object: (member_expression property: (property_identifier) @qualifier)
    property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method
; Object.defineProperty(req, 'host', { get() {...} }): req.host; a descriptor without a
; function (`{ value: 1, enumerable: false }`) defines a data property, not a method.
(call_expression
  function: (member_expression object: (identifier) @_object property: (property_identifier) @_define)
  arguments: (arguments . (identifier) @qualifier . (string (string_fragment) @name)
              . (object [(method_definition)
                         (pair value: [(arrow_function) (function_expression)])]) @body)
  (#eq? @_object "Object") (#match? @_define "^define(Property|Getter)$")) @definition.method
; module.exports = function name() {}: name; module.exports = { a() {}, b: function () {} }
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (function_expression name: (identifier) @name body: (_) @body)
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object) @body
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.object
; A class expression assigned: module.exports = class Application {...} (its own name),
; exports.Router = class {...}, module.exports.Router = class {...}, Router = class {...}
; (the assigned name)
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (class name: (_) @name body: (class_body) @body)
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.class
(assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: (class body: (class_body) @body)
  (#eq? @_exports "exports")) @definition.class
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @name)
  right: (class body: (class_body) @body)
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.class
(assignment_expression
  left: (identifier) @name
  right: (class body: (class_body) @body)) @definition.class
; exports.hooks = {...}, module.exports.hooks = {...}, Base.cursor = {...}, jQuery.fn.x =
; {...}: an object literal assigned to a member is a namespace like `const hooks = {...}`
; (named as the function patterns above name a member), a definition when it holds a
; callable.
(assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: (object) @body
  (#eq? @_exports "exports")) @definition.object @literal
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @name)
  right: (object) @body
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.object @literal
(assignment_expression
  left: (member_expression object: (identifier) @qualifier property: (property_identifier) @name)
  right: (object) @body
  (#not-eq? @qualifier "exports") (#not-eq? @qualifier "module")
  (#not-eq? @name "prototype")) @definition.object @literal
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @qualifier property: (property_identifier) @_proto)
    property: (property_identifier) @name)
  right: (object) @body
  (#eq? @_proto "prototype")) @definition.object @literal
(assignment_expression
  left: (member_expression
    object: (member_expression property: (property_identifier) @qualifier)
    property: (property_identifier) @name)
  right: (object) @body
  (#not-eq? @name "prototype")) @definition.object @literal
; this.q = function () {} where `this` is the global object (module level, or the body
; of an immediately invoked function): q, as a declaration would name it. Inside a
; function body (a constructor's `this.x = ...`) nothing is walked.
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @name)
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @name)
  right: (object) @body) @definition.object @literal
; X.prototype = { m() {} } and X.prototype = {...}: members are X.m
(assignment_expression
  left: (member_expression object: (identifier) @name property: (property_identifier) @_proto)
  right: (object) @body
  (#eq? @_proto "prototype")) @definition.object @literal
(assignment_expression
  left: (member_expression
    object: (member_expression property: (property_identifier) @name)
    property: (property_identifier) @_proto)
  right: (object) @body
  (#eq? @_proto "prototype")) @definition.object @literal
; defineGetter(req, 'host', function host() {}) (express): the function's own name
(call_expression
  arguments: (arguments (function_expression name: (identifier) @name body: (_) @body))) @definition.function
; Named functions handed to a call at module level in an array (fastbench's `const run =
; bench([function benchPino (cb) {...}, ...])`, `series([function first () {...}])`):
; each is a definition under its own name, the name the benchmark's report and a stack
; trace print. The array is a nameless module holding them (code when none is named).
(lexical_declaration (variable_declarator
  value: (call_expression arguments: (arguments (array) @body)))) @definition.module
(variable_declaration (variable_declarator
  value: (call_expression arguments: (arguments (array) @body)))) @definition.module
(expression_statement
  (call_expression arguments: (arguments (array) @body)) @definition.module)
(array (function_expression name: (identifier) @name body: (_) @body) @definition.function)

; Object literal members (only met inside an object container above); a quoted key
; (`"x-y": function`) is named without its quotes.
(pair key: [(property_identifier) (string)] @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
          (generator_function body: (_) @body)]) @definition.method
(pair key: [(property_identifier) (string)] @name value: (object) @body) @definition.object @literal

; Module code that names something: const TAX = 0.2 (a require() is an import, never a
; definition of the name it binds).
((lexical_declaration (variable_declarator name: (identifier) @name value: (_) @_value))
  @module.variable (#not-match? @_value "^require\\s*\\("))
((variable_declaration (variable_declarator name: (identifier) @name value: (_) @_value))
  @module.variable (#not-match? @_value "^require\\s*\\("))
(lexical_declaration (variable_declarator name: (identifier) @name !value)) @module.variable
(variable_declaration (variable_declarator name: (identifier) @name !value)) @module.variable

; The module pattern, var cssHelper = function () { ... }() (or (function () {...})()): a
; module named cssHelper whose body's definitions are its members; one that defines
; nothing (`const isNode = (() => {...})()`) computes a value (@literal).
(lexical_declaration (variable_declarator
  name: (identifier) @name
  value: (call_expression function: [
    (function_expression body: (statement_block) @body)
    (parenthesized_expression [(function_expression body: (statement_block) @body)
                               (arrow_function body: (statement_block) @body)])]))) @definition.module @literal
(variable_declaration (variable_declarator
  name: (identifier) @name
  value: (call_expression function: [
    (function_expression body: (statement_block) @body)
    (parenthesized_expression [(function_expression body: (statement_block) @body)
                               (arrow_function body: (statement_block) @body)])]))) @definition.module @literal

; Definitions under a conditional at module level (`if (Object.keys) { keys = ... } else
; { keys = function (obj) {...} }`, `try {...} catch (e) {...}`) belong to that level:
; the conditional is a nameless module whose branches the walker flattens (`flatten` in
; codegold.index.grammars).
(program (if_statement) @definition.module @body)
(program (try_statement) @definition.module @body)

; UMD, an immediately invoked wrapper given the module as a function argument:
; (function (root, factory) {...})(this, function () {...}), the same inside the
; parentheses or after `!`: the factory's body is the module (before the patterns below,
; which would take the wrapper's body).
(expression_statement (call_expression
  function: (parenthesized_expression (function_expression))
  arguments: (arguments [(function_expression body: (statement_block) @body)
                         (parenthesized_expression (function_expression body: (statement_block) @body))]))) @definition.module
(expression_statement (parenthesized_expression (call_expression
  function: (function_expression)
  arguments: (arguments [(function_expression body: (statement_block) @body)
                         (parenthesized_expression (function_expression body: (statement_block) @body))])))) @definition.module
(expression_statement (unary_expression argument: (call_expression
  function: (function_expression)
  arguments: (arguments [(function_expression body: (statement_block) @body)
                         (parenthesized_expression (function_expression body: (statement_block) @body))])))) @definition.module

; An immediately invoked function at top level, (function () { ... })(): its body is a
; module whose definitions are found as if they were top level.
(expression_statement (call_expression
  function: (parenthesized_expression [(function_expression body: (statement_block) @body)
                                       (arrow_function body: (statement_block) @body)]))) @definition.module
; the same written (function () {...}).call(this), (function () {...}()) or !function () {...}()
(expression_statement (call_expression
  function: (member_expression
    object: (parenthesized_expression [(function_expression body: (statement_block) @body)
                                       (arrow_function body: (statement_block) @body)])
    property: (property_identifier) @_call)
  (#match? @_call "^(call|apply)$"))) @definition.module
(expression_statement (parenthesized_expression (call_expression
  function: (function_expression body: (statement_block) @body)))) @definition.module
(expression_statement (unary_expression argument: (call_expression
  function: (function_expression body: (statement_block) @body)))) @definition.module

; A CommonJS module's exported literal also bound to a name: `const proto = module.exports
; = { get() {} }` (koa's context): members proto.get.
(lexical_declaration (variable_declarator
  name: (identifier) @name
  value: (assignment_expression right: (object) @body))) @definition.object @literal
(variable_declaration (variable_declarator
  name: (identifier) @name
  value: (assignment_expression right: (object) @body))) @definition.object @literal

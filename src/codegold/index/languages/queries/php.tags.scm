; Definitions for PHP. Captures as in python.tags.scm; @scope marks a bodiless
; `namespace A\B;` whose @name qualifies every later definition in the file.
(namespace_definition name: (namespace_name) @name !body) @scope
(namespace_definition name: (namespace_name) @name body: (compound_statement) @body) @definition.module
(namespace_definition body: (compound_statement) @body) @definition.module
(class_declaration name: (name) @name body: (declaration_list) @body) @definition.class
(interface_declaration name: (name) @name body: (declaration_list) @body) @definition.interface
(trait_declaration name: (name) @name body: (declaration_list) @body) @definition.trait
; An enum holds methods and constants besides its cases (as Java's): a class.
(enum_declaration name: (name) @name body: (enum_declaration_list) @body) @definition.class
(method_declaration name: (name) @name body: (compound_statement) @body) @definition.method
(method_declaration name: (name) @name) @declaration.method
(function_definition name: (name) @name body: (compound_statement) @body) @definition.function
(expression_statement (function_call_expression
  function: (name) @_define
  arguments: (arguments . (argument (string (string_content) @name))))
  (#eq? @_define "define")) @module.constant
(const_declaration (const_element (name) @name)) @module.constant

; Definitions under a conditional (`if (!function_exists('x')) { function x() {} }`)
; belong to its level: the conditional is a nameless module whose branches the walker
; flattens (`flatten` in codegold.index.grammars).
(if_statement) @definition.module @body

; An anonymous class in module code (`return new class extends Migration {...};`,
; `$handler = new class {...};`, `(new class {...})->run();`): a nameless object whose
; methods are its members (methods of one inside a function stay in that function).
(return_statement (object_creation_expression
  (anonymous_class body: (declaration_list) @body))) @definition.object
(expression_statement (assignment_expression right: (object_creation_expression
  (anonymous_class body: (declaration_list) @body)))) @definition.object
(expression_statement (member_call_expression object: [
  (parenthesized_expression (object_creation_expression
    (anonymous_class body: (declaration_list) @body)))
  (member_call_expression object: (parenthesized_expression (object_creation_expression
    (anonymous_class body: (declaration_list) @body))))])) @definition.object

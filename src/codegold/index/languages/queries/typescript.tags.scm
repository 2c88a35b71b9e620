; TypeScript and TSX additions to javascript.tags.scm (same captures).
(function_signature name: (identifier) @name) @declaration.function
(abstract_class_declaration name: (_) @name body: (class_body) @body) @definition.class
(interface_declaration name: (_) @name body: (interface_body) @body) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name body: (_) @body) @definition.type
(internal_module name: (_) @name body: (statement_block) @body) @definition.module
; declare module "zod/v4" { ... }: the module zod/v4, without quotes
(module name: (string (string_fragment) @name) body: (statement_block) @body) @definition.module
(module name: (_) @name body: (statement_block) @body) @definition.module
(ambient_declaration (function_signature name: (identifier) @name)) @declaration.function
(ambient_declaration (class_declaration name: (_) @name body: (class_body) @body)) @declaration.class

(public_field_definition
  name: (_) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method
(method_signature name: (_) @name) @declaration.method
(abstract_method_signature name: (_) @name) @declaration.method
; An interface's construct signature `new (x: A): T` is its method `new` (as ctags names it)
(construct_signature "new" @name) @declaration.method
; Interface members that are functions: `m(): T`, `m: (x: A) => T`
(property_signature name: (_) @name type: (type_annotation (function_type))) @declaration.method
; declare global { interface Window {...} }: declarations of the global scope, a nameless
; module whose members belong to the level holding it (Window, not global.Window)
(ambient_declaration (statement_block) @body) @definition.module

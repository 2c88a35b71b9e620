; Definitions for Rust. Captures as in python.tags.scm; @qualifier on an impl names the
; type its members are qualified by. Tests (#[test], #[tokio::test], #[cfg(test)] mod)
; are told by their attributes: `test_markers` in codegold.index.grammars (a quantified
; attribute pattern here costs quadratic time on long attribute runs).
(function_item name: (identifier) @name body: (_) @body) @definition.function
(function_signature_item name: (identifier) @name) @declaration.function
(struct_item name: (type_identifier) @name body: (_)? @body) @definition.class
(enum_item name: (type_identifier) @name body: (_)? @body) @definition.type
(union_item name: (type_identifier) @name body: (_)? @body) @definition.type
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @declaration.type
(macro_definition name: (identifier) @name) @definition.macro
(trait_item name: (type_identifier) @name body: (declaration_list) @body) @definition.interface
; An impl is named by its type (`impl Display for Token` defines `Token`, kind impl)
; and qualifies its members by it (Token.fmt).
; An impl for a type without a name (`impl Serialize for ()`, `for !`) is named by its
; trait, as ctags does (listed first so it wins).
(impl_item trait: (_) @qualifier type: [(unit_type) (never_type)]
  body: (declaration_list) @body) @definition.impl
(impl_item type: (_) @qualifier body: (declaration_list) @body) @definition.impl
(mod_item name: (identifier) @name body: (declaration_list) @body) @definition.module
; `mod wtr;` declares a module whose body is another file.
(mod_item name: (identifier) @name !body) @declaration.module

(const_item name: (identifier) @name) @module.constant
(static_item name: (identifier) @name) @module.variable

; `extern "C" { fn ext(x: i32); }` declares foreign functions at its own level.
(foreign_mod_item body: (declaration_list) @body) @definition.module

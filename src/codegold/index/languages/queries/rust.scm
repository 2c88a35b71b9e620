; Call sites for Rust (functions, methods, paths and macros).
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (field_identifier) @name))
(call_expression function: (scoped_identifier name: (identifier) @name))
(macro_invocation macro: (identifier) @name)

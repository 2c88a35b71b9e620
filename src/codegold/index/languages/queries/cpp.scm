; Call sites for C++ (function, member and qualified calls, constructions with new).
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (field_identifier) @name))
(call_expression function: (qualified_identifier name: (identifier) @name))
(call_expression function: (template_function name: (identifier) @name))
(new_expression type: (type_identifier) @name)

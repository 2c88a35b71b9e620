; Call sites for C.
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (field_identifier) @name))

; Call sites for Go.
(call_expression function: (identifier) @name)
(call_expression function: (selector_expression field: (field_identifier) @name))

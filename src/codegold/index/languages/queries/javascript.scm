; Call sites for JavaScript, TypeScript and TSX (the grammars share these node names).
(call_expression function: (identifier) @name)
(call_expression function: (member_expression property: (property_identifier) @name))
(new_expression constructor: (identifier) @name)

; Call sites for Swift (plain and member calls; constructor calls look the same).
(call_expression (simple_identifier) @name)
(call_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name)))

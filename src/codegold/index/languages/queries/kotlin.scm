; Call sites for Kotlin (plain and member calls, constructor calls look the same).
(call_expression (identifier) @name)
(call_expression (navigation_expression (identifier) @name .))

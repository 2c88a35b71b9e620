; Call sites for C# (method calls and constructor calls).
(invocation_expression function: (identifier) @name)
(invocation_expression function: (member_access_expression name: (identifier) @name))
(object_creation_expression type: (identifier) @name)

; Call sites for Java (method calls and constructor calls).
(method_invocation name: (identifier) @name)
(object_creation_expression type: (type_identifier) @name)

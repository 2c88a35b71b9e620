; Call sites for PHP (functions, methods, static calls, constructions).
(function_call_expression function: (name) @name)
(function_call_expression function: (qualified_name (name) @name .))
(member_call_expression name: (name) @name)
(nullsafe_member_call_expression name: (name) @name)
(scoped_call_expression name: (name) @name)
(object_creation_expression (name) @name)
(object_creation_expression (qualified_name (name) @name .))

; Definitions for Ruby. Captures as in python.tags.scm.
(module name: [(constant) (scope_resolution)] @name body: (body_statement)? @body) @definition.module
(class name: [(constant) (scope_resolution)] @name body: (body_statement)? @body) @definition.class
(singleton_class body: (body_statement) @body) @definition.impl
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method
(assignment left: (constant) @name) @module.constant

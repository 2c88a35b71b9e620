; Definitions for C#. Captures as in python.tags.scm.
(namespace_declaration name: (_) @name body: (declaration_list) @body) @definition.module
(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(record_declaration name: (identifier) @name body: (declaration_list)? @body) @definition.class
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name body: (_) @body) @definition.method
(method_declaration name: (identifier) @name) @declaration.method
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.method
(property_declaration name: (identifier) @name) @definition.method

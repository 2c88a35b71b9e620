; Definitions for Go. Captures as in python.tags.scm; @qualifier names a method's
; receiver type (Server.Handle).
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @qualifier))
  name: (field_identifier) @name body: (_)? @body) @definition.method
(type_spec name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @declaration.method
; Struct fields (`X, Y int` names two) are symbols of their struct's chunk: Command.Use.
(field_declaration name: (field_identifier) @name @definition.field)

(const_declaration (const_spec name: (identifier) @name)) @module.constant
(var_declaration (var_spec name: (identifier) @name)) @module.variable

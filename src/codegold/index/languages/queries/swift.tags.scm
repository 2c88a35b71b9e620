; Definitions for Swift. Captures as in python.tags.scm. The grammar reads class, struct,
; enum, actor and extension declarations all as class_declaration (the keyword tells them
; apart). An extension is an impl, named by the type it extends (@qualifier): its members
; are qualified by that type. XCTest's tests are methods whose names start with `test`
; (test_names), in a test file.
(class_declaration "extension" name: (user_type (type_identifier) @qualifier)
  body: (_) @body) @definition.impl
(class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(protocol_declaration name: (type_identifier) @name body: (protocol_body) @body) @definition.interface
(protocol_function_declaration name: (simple_identifier) @name) @declaration.method
(function_declaration name: (simple_identifier) @name body: (function_body) @body) @definition.function
(init_declaration body: (function_body) @body) @definition.method
(typealias_declaration name: (type_identifier) @name) @definition.type

(property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @module.variable

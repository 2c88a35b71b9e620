; Definitions for Swift. Captures as in python.tags.scm. The grammar reads class, struct,
; enum, actor and extension declarations all as class_declaration (the keyword tells them
; apart). An extension is an impl, named by the type it extends (@qualifier, a nested one
; by its whole path: `extension AFError.Reason`): its members are qualified by that type. XCTest's tests are methods whose names start with `test`
; (test_names), in a test file.
(class_declaration "extension" name: (user_type) @qualifier
  body: (_) @body) @definition.impl
(class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(protocol_declaration name: (type_identifier) @name body: (protocol_body) @body) @definition.interface
(protocol_function_declaration name: (simple_identifier) @name) @declaration.method
(function_declaration name: (simple_identifier) @name body: (function_body) @body) @definition.function
; Initializers and deinitializers, named as Swift calls them (`Session.init`).
(init_declaration "init" @name body: (function_body) @body) @definition.method
(deinit_declaration "deinit" @name body: (function_body) @body) @definition.method
; A type's static properties (`Session.default`, `HTTPHeaders.default`): its shared
; instances and constants, named as callers write them.
(class_body (property_declaration
  (modifiers (property_modifier) @_static)
  name: (pattern bound_identifier: (simple_identifier) @name)
  (#eq? @_static "static")) @definition.variable)
(typealias_declaration name: (type_identifier) @name) @definition.type

(property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @module.variable

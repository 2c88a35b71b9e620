; Definitions for Kotlin. Captures as in python.tags.scm. Annotations sit inside a
; declaration's modifiers, so @Test functions are tests by this query (listed first).
; Only the first and the last annotation are looked at: an unanchored annotation pattern
; costs super-linear time on long annotation runs (1,000 took 39 s).
(function_declaration
  (modifiers . (annotation [(user_type (identifier) @_annotation)
                            (constructor_invocation (user_type (identifier) @_annotation))]))
  name: (identifier) @name (function_body)? @body
  (#match? @_annotation "^(Test|ParameterizedTest|RepeatedTest|TestFactory)$")) @definition.function @test
(function_declaration
  (modifiers (annotation [(user_type (identifier) @_annotation)
                          (constructor_invocation (user_type (identifier) @_annotation))]) .)
  name: (identifier) @name (function_body)? @body
  (#match? @_annotation "^(Test|ParameterizedTest|RepeatedTest|TestFactory)$")) @definition.function @test
(class_declaration "interface" name: (identifier) @name (class_body)? @body) @definition.interface
(class_declaration name: (identifier) @name (class_body) @body) @definition.class
(class_declaration name: (identifier) @name (enum_class_body) @body) @definition.class
; A class body right after a delegation (`class B : A by delegate() { ... }`) is read by
; the grammar as the delegate call's trailing lambda: that lambda holds the members.
(class_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier (explicit_delegation
    (call_expression (annotated_lambda (lambda_literal) @body)))) .)) @definition.class
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier (explicit_delegation
    (call_expression (annotated_lambda (lambda_literal) @body)))) .)) @definition.object
(object_declaration name: (identifier) @name (class_body)? @body) @definition.object
(companion_object name: (identifier) @name (class_body) @body) @definition.object
(companion_object (class_body) @body) @definition.object
(function_declaration name: (identifier) @name (function_body) @body) @definition.function
(function_declaration name: (identifier) @name) @declaration.function
(secondary_constructor) @definition.method
; Enum entries with a body of their own (`BasicByteString { override fun ... }`) and
; properties holding an anonymous object (`val sink = object : Sink { ... }`) hold members.
(enum_entry (identifier) @name (class_body) @body) @definition.constant
(property_declaration (variable_declaration (identifier) @name)
  (object_literal (class_body) @body)) @definition.object
; ... also as the receiver of a call (`val a = object : Adapter() { ... }.nullSafe()`).
(property_declaration (variable_declaration (identifier) @name)
  (call_expression (navigation_expression . (object_literal (class_body) @body)))) @definition.object
(type_alias type: (identifier) @name) @definition.type

(property_declaration (variable_declaration (identifier) @name)) @module.variable

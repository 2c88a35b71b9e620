; Definitions for Java. Captures as in python.tags.scm. Annotations sit inside a
; declaration's modifiers, so its span includes them while @name gives the header line.
; JUnit/TestNG tests are told by an annotation in the method's modifiers (listed first, so
; they win). Only the first and the last annotation are looked at: an unanchored
; annotation pattern costs super-linear time on long annotation runs.
(method_declaration
  (modifiers . [(marker_annotation name: (_) @_annotation) (annotation name: (_) @_annotation)])
  name: (identifier) @name body: (block) @body
  (#match? @_annotation "(^|[.])(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)$")) @definition.method @test
(method_declaration
  (modifiers [(marker_annotation name: (_) @_annotation) (annotation name: (_) @_annotation)] .)
  name: (identifier) @name body: (block) @body
  (#match? @_annotation "(^|[.])(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)$")) @definition.method @test
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(record_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (annotation_type_body) @body) @definition.interface
(method_declaration name: (identifier) @name body: (block) @body) @definition.method
(method_declaration name: (identifier) @name) @declaration.method
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.method
(compact_constructor_declaration name: (identifier) @name body: (_) @body) @definition.method
; SerializedName.value
(annotation_type_element_declaration name: (identifier) @name) @declaration.method
; enum constants with a body of their own: Op.PLUS { ... }
(enum_constant name: (identifier) @name body: (class_body) @body) @definition.constant

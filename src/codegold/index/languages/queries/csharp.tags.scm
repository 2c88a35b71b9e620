; Definitions for C#. Captures as in python.tags.scm. A method under [Test], [Fact],
; [Theory], [TestMethod], [TestCase] or [TestCaseSource] (NUnit, xUnit, MSTest) is a test:
; its attribute lists are matched as test markers (`test_markers` in
; codegold.index.grammars), not here.

(namespace_declaration name: (_) @name body: (declaration_list) @body) @definition.module
; namespace Acme.Auth; qualifies every later definition of the file.
(file_scoped_namespace_declaration name: (_) @name) @scope
(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(record_declaration name: (identifier) @name body: (declaration_list)? @body) @definition.class
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name body: (_) @body) @definition.method
(method_declaration name: (identifier) @name) @declaration.method
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.method
(destructor_declaration name: (identifier) @name body: (_) @body) @definition.method
; Operators, named as ctags names them: `operator ==`, `operator DateTime` (a conversion).
(operator_declaration "operator" @name operator: _ @name.suffix body: (_) @body) @definition.method
(conversion_operator_declaration "operator" @name type: (_) @name.suffix body: (_) @body) @definition.method
(property_declaration name: (identifier) @name) @definition.method
(event_declaration name: (identifier) @name) @definition.method
; Conditional compilation (#if blocks) holds members without naming them.
(preproc_if) @definition.module @body
(preproc_elif) @definition.module @body
(preproc_else) @definition.module @body

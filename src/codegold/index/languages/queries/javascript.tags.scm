; JavaScript additions to ecmascript.tags.scm (same captures).
(field_definition
  property: (_) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method

; Definitions for Python. Captures: @definition.<kind> / @declaration.<kind> on the
; definition, @name on its name, @body on its body; @module.variable on a statement whose
; @name it assigns (module code that names something, without a chunk of its own).
(function_definition name: (identifier) @name body: (block) @body) @definition.function
(class_definition name: (identifier) @name body: (block) @body) @definition.class

; Module-level callables assigned by name: `f = lambda ...`, `handler = make_handler(...)`.
(module (expression_statement
  (assignment left: (identifier) @name right: (lambda))) @definition.function)
(module (expression_statement
  (assignment left: (identifier) @name right: (call))) @definition.variable)

(expression_statement (assignment left: (identifier) @name)) @module.variable

; Definitions under a conditional at module or class level (`if TYPE_CHECKING:`,
; `try: ... except ImportError:`) belong to that level: the conditional is a nameless
; module whose branches the walker flattens (`flatten` in codegold.index.grammars).
(if_statement) @definition.module @body
(try_statement) @definition.module @body
; A `with` block opens no scope either (`with timer(): def header(): ...` under
; `if __name__ == "__main__":`).
(with_statement) @definition.module @body

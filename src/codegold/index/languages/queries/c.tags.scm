; Definitions for C (and the C part of C++). Captures as in python.tags.scm. A function's
; name sits under its declarator, behind up to two pointer/reference declarators. A
; typedef wraps the struct it names (`typedef struct s {...} s_t;` defines both names).
; A C test macro (Unity's `TEST(Group, Name) {`), which grammars.py hands the grammar as
; `TEST Group( Name) {`: a test named Group.Name (listed first so it wins).
(function_definition
  type: (type_identifier) @_macro
  declarator: (function_declarator
    declarator: (identifier) @qualifier
    parameters: (parameter_list . (parameter_declaration type: (type_identifier) @name .) .))
  body: (_) @body
  (#match? @_macro "^(TEST|IGNORE_TEST|Test)$")) @definition.function @test
(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator
                 declarator: (function_declarator declarator: (identifier) @name)))]
  body: (_) @body) @definition.function
; A prototype; not a typeless call of an upper-case macro (`MOCK_METHOD(void, f, ());`,
; `DECLARE_THING(x);`), which declares no function of that name.
(declaration
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator
                 declarator: (function_declarator declarator: (identifier) @name)))]
  (#not-match? @name "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$")) @declaration.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
; A union holds members as a struct does (C++ constructors, a nested struct).
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.type
; A typedef's definition node is its name, so the struct it wraps (which starts first)
; is the primary definition and the typedef name an extra one.
(type_definition declarator: (type_identifier) @name @definition.type)
; `typedef intptr_t ssize_t;`: the grammar reads the name as a built-in type.
(type_definition declarator: (primitive_type) @name @definition.type)
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator
  [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type
; A file-level variable initialised with a brace list: a table of functions or constants
; that code points at by name (`static redisContextFuncs defaultFuncs = { .close = ... };`,
; `const char *names[] = {...};`), at the top or in a C++ namespace.
(translation_unit (declaration declarator: (init_declarator
  declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))]
  value: (initializer_list))) @definition.variable)
(declaration_list (declaration declarator: (init_declarator
  declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))]
  value: (initializer_list))) @definition.variable)
(preproc_function_def name: (identifier) @name) @definition.macro
; Conditional compilation (include guards, #ifdef blocks) holds definitions without
; naming them.
(preproc_ifdef name: (identifier)) @definition.module @body
(preproc_if condition: (_)) @definition.module @body
(preproc_else) @definition.module @body
(preproc_elif) @definition.module @body

(preproc_def name: (identifier) @name) @definition.macro

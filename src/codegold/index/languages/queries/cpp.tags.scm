; Definitions for C++ on top of c.tags.scm. Out-of-class members (`int Foo::bar()`,
; `void ns::detail::Foo<T>::bar()`) are qualified by the scope right before their name, and
; structure.py adds the scopes written before it (`ns.detail.Foo.bar`); gtest's TEST(Suite, Name) macros are
; tests named Suite.Name (listed first so they win over the plain function pattern).
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list
      . (parameter_declaration type: (type_identifier) @qualifier)
      . (parameter_declaration type: (type_identifier) @name)))
  body: (_) @body
  (#match? @_macro "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|FRIEND_TEST)$")) @definition.function @test

(function_definition
  declarator: [(function_declarator declarator: (field_identifier) @name)
               (function_declarator declarator: (destructor_name) @name)
               (function_declarator declarator: (operator_name) @name)
               (reference_declarator (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
               (reference_declarator (function_declarator declarator: (field_identifier) @name))
               (reference_declarator (function_declarator declarator: (operator_name) @name))
               (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))]
  body: (_) @body) @definition.function
(function_definition
  declarator: [(function_declarator declarator: (qualified_identifier
                 scope: (_) @qualifier name: [(identifier) (destructor_name) (operator_name)] @name))
               (function_declarator declarator: (qualified_identifier
                 name: (qualified_identifier scope: (_) @qualifier
                   name: [(identifier) (destructor_name) (operator_name)] @name)))
               (function_declarator declarator: (qualified_identifier
                 name: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier
                   name: [(identifier) (destructor_name) (operator_name)] @name))))
               (function_declarator declarator: (qualified_identifier
                 name: (qualified_identifier name: (qualified_identifier
                   name: (qualified_identifier scope: (_) @qualifier
                     name: [(identifier) (destructor_name) (operator_name)] @name)))))
               (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
                 scope: (_) @qualifier name: [(identifier) (operator_name)] @name)))
               (reference_declarator (function_declarator declarator: (qualified_identifier
                 scope: (_) @qualifier name: [(identifier) (operator_name)] @name)))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator
                 declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
               (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
                 name: (qualified_identifier scope: (_) @qualifier
                   name: [(identifier) (operator_name)] @name))))
               (reference_declarator (function_declarator declarator: (qualified_identifier
                 name: (qualified_identifier scope: (_) @qualifier
                   name: [(identifier) (operator_name)] @name))))]
  body: (_) @body) @definition.method
(field_declaration
  declarator: [(function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
               (pointer_declarator declarator: (pointer_declarator
                 declarator: (function_declarator declarator: (field_identifier) @name)))
               (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))]
  ) @declaration.method
; A prototype returning a reference (`std::string &ltrim(std::string &str);`).
(declaration
  declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @declaration.function
(declaration
  declarator: (function_declarator declarator: (destructor_name) @name)) @declaration.method
; `T() = default;`, `~T() = delete;`: declared, with no body of their own.
(function_definition
  declarator: [(function_declarator
                 declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
               ; `T& operator=(const T&) = delete;`
               (reference_declarator (function_declarator
                 declarator: [(identifier) (field_identifier) (operator_name)] @name))
               (pointer_declarator declarator: (function_declarator
                 declarator: [(identifier) (field_identifier) (operator_name)] @name))]
  [(default_method_clause) (delete_method_clause)]) @declaration.method

; Conversion operators (`operator bool() const`: named `operator bool`) and explicit
; specializations (`template <> auto num_bits<int>()`: named `num_bits`).
(function_definition declarator: (operator_cast) @name body: (_) @body) @definition.method
(function_definition
  declarator: (qualified_identifier scope: (_) @qualifier name: (operator_cast) @name)
  body: (_) @body) @definition.method
(declaration declarator: (operator_cast) @name) @declaration.method
(field_declaration declarator: (operator_cast) @name) @declaration.method
(function_definition
  declarator: (function_declarator declarator: (template_function name: (identifier) @name))
  body: (_) @body) @definition.function

(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.module
(namespace_definition body: (declaration_list) @body) @definition.module
(linkage_specification body: (declaration_list) @body) @definition.module
(class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body) @definition.class
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

; Definitions for Ruby. Captures as in python.tags.scm.
; class Rack::Builder: the class Builder, qualified by Rack (listed first: the first
; pattern matching a node wins).
(module name: (scope_resolution scope: (_) @qualifier name: (constant) @name)
  body: (body_statement)? @body) @definition.module
(class name: (scope_resolution scope: (_) @qualifier name: (constant) @name)
  body: (body_statement)? @body) @definition.class
; class ::Parent: the class Parent at the top level.
(module name: (scope_resolution !scope name: (constant) @name)
  body: (body_statement)? @body) @definition.module
(class name: (scope_resolution !scope name: (constant) @name)
  body: (body_statement)? @body) @definition.class
(module name: [(constant) (scope_resolution)] @name body: (body_statement)? @body) @definition.module
(class name: [(constant) (scope_resolution)] @name body: (body_statement)? @body) @definition.class
(singleton_class body: (body_statement) @body) @definition.impl
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method
(assignment left: (constant) @name) @module.constant
; Blocks and conditions outside methods hold definitions without naming them
; (`RSpec.describe X do def helper ... end`, `class_eval do`, `if Hash.method_defined?`,
; `begin ... rescue LoadError def fallback ... end`):
; their definitions are found as if they stood at that level.
(call block: (do_block body: (body_statement) @body)) @definition.module
(call block: (block body: (block_body) @body)) @definition.module
(assignment right: (call block: (do_block body: (body_statement) @body))) @definition.module
(assignment right: (call block: (block body: (block_body) @body))) @definition.module
(begin) @definition.module @body
(rescue) @definition.module @body
(ensure) @definition.module @body
(if) @definition.module @body
(unless) @definition.module @body
(then) @definition.module @body
(else) @definition.module @body
(elsif) @definition.module @body

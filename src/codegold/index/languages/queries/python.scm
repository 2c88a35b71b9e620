; Call sites: the short name being called. Captured name: @name.
(call function: (identifier) @name)
(call function: (attribute attribute: (identifier) @name))

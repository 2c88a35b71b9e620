; Call sites for Ruby (method calls with or without a receiver).
(call method: (identifier) @name)

"""Command-line interface: one thin module per command (parse, call the library, render)."""

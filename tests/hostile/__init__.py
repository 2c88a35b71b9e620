"""Hostile-input suites (a package, so their basenames never clash with other test folders)."""

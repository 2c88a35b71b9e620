"""Plumbing every part shares: talking to git and HTTP peers, writing outputs safely,
and making untrusted text safe for a terminal or a Markdown page.

Modules here import nothing from codegold but :mod:`codegold.errors`, so any part
(``index``, ``retrieve``, ``adapters``, ``diagnose``, ``report``, ``cli``) may use them
without bending the one-way import rule.
"""

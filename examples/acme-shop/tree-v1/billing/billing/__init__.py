"""Acme billing service."""

__version__ = "1.8.0"

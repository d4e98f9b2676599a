"""Helpers shared by the test suites (real services started on free ports)."""

"""Typed job specs: what an asynchronous task stores and its worker runs."""

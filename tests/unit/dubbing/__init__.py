"""Unit tests of the dubbing audio planner."""

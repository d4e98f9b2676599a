"""Speech recognition engines."""

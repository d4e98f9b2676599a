"""The HTTP edge of the media translation service (``/v1``)."""

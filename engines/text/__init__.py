"""Text rules shared by engines and pipelines: where sentences end (``sentences.py``)."""

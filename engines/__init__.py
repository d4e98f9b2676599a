"""Plain-Python engine adapters: no Ray imports, heavy imports inside ``start()``."""

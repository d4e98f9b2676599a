"""Ray Serve deployments, one per capability; engines live in ``engines``."""

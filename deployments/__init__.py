"""Ray Serve deployments, one per capability; engines live in ``deployments.engines``."""

"""pydantic request and response models, one module per resource."""

"""Route tables, one module per resource."""

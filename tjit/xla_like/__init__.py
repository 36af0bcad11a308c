"""xla_like layer (see DESIGN.md)."""

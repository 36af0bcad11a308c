"""primitives layer (see DESIGN.md)."""

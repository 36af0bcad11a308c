"""lower layer (see DESIGN.md)."""

"""tracing layer (see DESIGN.md)."""

"""LLVM CPU backend: kernel IR -> LLVM IR (llvmlite) -> machine code (see DESIGN.md)."""

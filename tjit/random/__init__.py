"""tjit.random (being written)"""

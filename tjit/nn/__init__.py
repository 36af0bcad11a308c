"""tjit.nn (being written)"""

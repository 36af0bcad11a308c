"""(being written)"""
__all__ = []


def _rewriting_take(arr, idx):
    raise NotImplementedError("indexing is being written")


class _IndexUpdateHelper:
    def __init__(self, x):
        raise NotImplementedError("x.at is being written")

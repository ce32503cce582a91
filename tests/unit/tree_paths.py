"""The paths into a YAML tree, shared by the fuzz test and the fuzz driver (a child script that
bounds its own memory on import, so the test cannot import it)."""


def paths(node, prefix=()):
    """Every path (a tuple of keys and indexes) into `node`, the empty one first."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from paths(v, prefix + (k,))

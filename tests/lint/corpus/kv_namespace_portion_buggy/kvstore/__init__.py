"""A KV store whose low-level helpers live in ``kvstore/ops``, a directory without an
``__init__.py`` (a namespace portion of the package, as some projects ship it)."""

"""The lint engine: which files, how they are read, how findings are reported.

Importing this package must never import torch: a pre-commit environment has only
libcst and click.
"""

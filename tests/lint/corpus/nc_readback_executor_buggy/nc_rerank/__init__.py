"""Batched reranker: numba scoring kernel, CuPy streams, executor read-back."""

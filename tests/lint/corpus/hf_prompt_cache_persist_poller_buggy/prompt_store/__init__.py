"""Persisting a transformers prompt cache (the KV of a shared system prompt) to disk so that
later processes can start generation from it. The GPU->host copies run on a side stream; a
writer thread serializes each snapshot once it has been copied."""

from .store import PromptCacheStore

__all__ = ["PromptCacheStore"]

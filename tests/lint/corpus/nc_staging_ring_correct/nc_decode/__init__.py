"""Greedy decode step with asynchronous token read-back through a pinned ring."""

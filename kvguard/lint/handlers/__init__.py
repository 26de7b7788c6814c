"""Handlers of the APIs the analysis models, one module per family. Each answers the calls of
its family and leaves the rest (None); ``kvguard.lint.interpreter`` tries them in order."""

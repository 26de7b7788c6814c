from .scanner import HostKeyScanner

__all__ = ["HostKeyScanner"]

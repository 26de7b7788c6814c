from .manager import SpillingKVManager

__all__ = ["SpillingKVManager"]

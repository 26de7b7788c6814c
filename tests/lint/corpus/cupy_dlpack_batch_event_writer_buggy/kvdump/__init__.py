from .connector import DiskExportConnector

__all__ = ["DiskExportConnector"]

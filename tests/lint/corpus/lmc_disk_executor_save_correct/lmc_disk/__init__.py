from lmc_disk.storage_manager import StorageManager

__all__ = ["StorageManager"]

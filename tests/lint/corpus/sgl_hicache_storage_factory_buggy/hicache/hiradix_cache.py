"""Write-back side of the hierarchical radix cache: a node whose KV is hot enough is backed
up to the host pool and, with a storage backend, on to L3.

Bug: ``write_backup`` hands the node's host pages to the storage backup thread as soon as the
device -> host copy has been issued. The copy is asynchronous; the backup thread can write
the pages to storage before they have landed, and the stale bytes are then served to every
later request that hits those keys."""

from typing import Dict, List

from .cache_controller import HiCacheController


class TreeNode:
    _counter = 0

    def __init__(self, device_pages: List[int], hashes: List[str]):
        TreeNode._counter += 1
        self.id = TreeNode._counter
        self.value = device_pages
        self.hash_value = hashes
        self.host_value = None
        self.backuped_storage = False


class HiRadixCache:

    def __init__(self, cache_controller: HiCacheController):
        self.cache_controller = cache_controller
        self.enable_storage = cache_controller.storage_backend is not None
        self.ongoing_write_through: Dict[int, TreeNode] = {}
        self.ongoing_backup: Dict[int, TreeNode] = {}

    def write_backup(self, node: TreeNode) -> int:
        host_pages = self.cache_controller.write(node.value, node.id)
        if host_pages is None:
            return 0
        node.host_value = host_pages
        self.ongoing_write_through[node.id] = node
        if self.enable_storage:
            self.cache_controller.write_storage(host_pages, node.hash_value, node.id)
            self.ongoing_backup[node.id] = node
        return len(host_pages)

    def writing_check(self) -> None:
        """Called by the scheduler every iteration: retire finished write-backs."""
        acks = self.cache_controller.ack_write_queue
        while acks and acks[0].finish_event.query():
            ack = acks.pop(0)
            for node_id in ack.node_ids:
                self.ongoing_write_through.pop(node_id, None)
        while not self.cache_controller.ack_backup_queue.empty():
            node = self.ongoing_backup.pop(self.cache_controller.ack_backup_queue.get(), None)
            if node is not None:
                node.backuped_storage = True

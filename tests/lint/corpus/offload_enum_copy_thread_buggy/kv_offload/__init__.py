"""A fork of vLLM's OffloadingConnector worker side: the OffloadingWorker dispatches each
transfer to the handler of its (src medium, dst medium) pair; each handler hands jobs to a copy
thread, which moves the blocks with one cuMemcpyBatchAsync per job on its own stream."""

"""GPU <-> CPU KV block transfers for a fork of vLLM's OffloadingConnector, driven by an
asyncio loop on a background thread: the connector worker only builds jobs and hands them
over, the loop issues the copies on the transfer streams."""

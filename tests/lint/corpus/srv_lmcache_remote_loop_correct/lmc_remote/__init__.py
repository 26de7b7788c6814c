"""A remote KV store in the shape of LMCache v1's RemoteBackend: chunks of a vLLM paged KV cache
are gathered on the connector's store stream into pinned MemoryObjs and shipped to a remote
cache server by coroutines that run on the backend's own asyncio event loop thread
(``asyncio.run_coroutine_threadsafe``). Each put carries the event recorded after its gather.

The put coroutine yields the loop until the event reports the copy complete, then serializes.
"""

# SPDX-License-Identifier: Apache-2.0
from lmcache_remote.config import RemoteBackendConfig
from lmcache_remote.remote_backend import RemoteBackend
from lmcache_remote.serde import CacheGenLiteSerializer, EncodedChunk

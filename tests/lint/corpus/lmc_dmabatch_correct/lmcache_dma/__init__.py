# SPDX-License-Identifier: Apache-2.0
from lmcache_dma.dma_connector import DMABatchGPUConnector
from lmcache_dma.storage_manager import StorageManager

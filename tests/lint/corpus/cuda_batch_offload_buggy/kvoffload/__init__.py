# SPDX-License-Identifier: Apache-2.0
from kvoffload.paged_offloader import PagedKVOffloader

__all__ = ["PagedKVOffloader"]

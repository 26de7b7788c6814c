# SPDX-License-Identifier: Apache-2.0
"""Mooncake store backed KV connector (worker side)."""

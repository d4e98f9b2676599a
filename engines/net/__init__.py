"""Outbound HTTP to customer-supplied URLs: the address policy and the fetcher.

``urls`` decides whether a URL may be contacted at all; ``fetch`` downloads
media and sends requests while keeping every connection on an address that
policy approved.
"""

from engines.net.fetch import FetchResult, download, pinned_client, send_pinned
from engines.net.urls import ResolvedUrl, UrlPolicy, address_refusal, check_url

__all__ = [
    "FetchResult",
    "ResolvedUrl",
    "UrlPolicy",
    "address_refusal",
    "check_url",
    "download",
    "pinned_client",
    "send_pinned",
]

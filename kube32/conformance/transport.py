"""How the ApiClient's requests travel: urllib3's connection pool, with requests' rules.

A request through ``requests.Session`` costs ~0.7 ms of CPU more than the same request through
urllib3 (merging settings, preparing, hooks, cookies, building the answer), about a sixth of a
manual-clock run's CPU. Straight to the target, the request goes through a urllib3 pool as requests
would send it: its default headers, its URL quoting and JSON encoding, its timeouts, its TLS
settings (certifi's bundle unless a CA is given), no redirects followed by urllib3 itself and none
retried; the answer is a ``requests.Response`` and failures raise requests' exceptions, as requests
maps urllib3's. Through a proxy (from the environment) requests sends it itself.
"""

from __future__ import annotations

import json as jsonlib
import os
from urllib.parse import urlencode

import requests
import urllib3
from requests import exceptions as rex
from requests.structures import CaseInsensitiveDict
from requests.utils import DEFAULT_CA_BUNDLE_PATH, default_headers, get_encoding_from_headers, requote_uri
from urllib3 import exceptions as uex

NO_RETRIES = urllib3.Retry(0, read=False)      # requests' own: a failure is the caller's to repeat
DEFAULT_HEADERS = default_headers()             # User-Agent python-requests/…, Accept */*, gzip


class Transport:
    def __init__(self) -> None:
        self._pools: dict[tuple, urllib3.PoolManager] = {}
        self._session: requests.Session | None = None       # only for requests through a proxy

    def send(self, method: str, url: str, *, headers: dict, timeout: float, verify: bool | str,
             cert: tuple[str, str] | str | None, proxies: dict | None = None, auth=None, params=None,
             json=None, data=None, stream: bool = False) -> requests.Response:
        if proxies and requests.utils.select_proxy(url, proxies):
            return self._through_requests(method, url, headers=headers, timeout=timeout, verify=verify,
                                          cert=cert, proxies=proxies, auth=auth, params=params, json=json,
                                          data=data, stream=stream)
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params, doseq=True)
        url = requote_uri(url)
        sent = {**DEFAULT_HEADERS, **headers}
        if auth is not None:
            sent["Authorization"] = urllib3.util.make_headers(basic_auth=":".join(auth))["authorization"]
        body = None
        if json is not None:
            body = jsonlib.dumps(json, allow_nan=False).encode()
            sent.setdefault("Content-Type", "application/json")
        elif data is not None:
            body = data.encode() if isinstance(data, str) else data
        if body is None and method not in ("GET", "HEAD"):
            sent["Content-Length"] = "0"        # as requests says it for a write without a body
        pool = self._pool(url, verify, cert)
        try:
            answer = pool.urlopen(method, url, body=body, headers=sent, redirect=False, retries=NO_RETRIES,
                                  timeout=urllib3.Timeout(connect=timeout, read=timeout),
                                  preload_content=not stream)
        except (uex.ProtocolError, OSError) as exc:
            raise rex.ConnectionError(exc) from None
        except uex.MaxRetryError as exc:
            raise _requests_error(exc) from None
        except uex.SSLError as exc:
            raise rex.SSLError(exc) from None
        except uex.ReadTimeoutError as exc:
            raise rex.ReadTimeout(exc) from None
        resp = requests.Response()
        resp.status_code, resp.reason, resp.url, resp.raw = answer.status, answer.reason, url, answer
        resp.headers = CaseInsensitiveDict(answer.headers)
        resp.encoding = get_encoding_from_headers(resp.headers)
        if not stream:
            resp._content, resp._content_consumed = answer.data, True
        return resp

    def _pool(self, url: str, verify: bool | str, cert) -> urllib3.PoolManager:
        """One pool manager per TLS setting (urllib3 keeps a pool per host and port in it)."""
        key = (verify, cert) if url[:6].lower() == "https:" else (None, None)
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = urllib3.PoolManager(**_tls(*key) if key[0] is not None else {})
        return pool

    def _through_requests(self, method: str, url: str, **kw) -> requests.Response:
        if self._session is None:
            self._session = requests.Session()
            self._session.trust_env = False     # the client read the environment itself
        return self._session.request(method, url, **kw)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.clear()
        if self._session is not None:
            self._session.close()


def _tls(verify: bool | str, cert) -> dict:
    """urllib3's TLS settings for requests' ``verify`` and ``cert`` (HTTPAdapter.cert_verify)."""
    kw: dict = {"cert_reqs": "CERT_NONE"}
    if verify:
        where = verify if verify is not True else DEFAULT_CA_BUNDLE_PATH
        if not where or not os.path.exists(where):
            raise OSError(f"Could not find a suitable TLS CA certificate bundle, invalid path: {where}")
        kw = {"cert_reqs": "CERT_REQUIRED", ("ca_cert_dir" if os.path.isdir(where) else "ca_certs"): where}
    if cert:
        kw["cert_file"], kw["key_file"] = (cert, None) if isinstance(cert, str) else cert
    return kw


def _requests_error(exc: uex.MaxRetryError) -> rex.RequestException:
    """The exception requests raises for this urllib3 failure (HTTPAdapter.send)."""
    reason = exc.reason
    if isinstance(reason, uex.ConnectTimeoutError) and not isinstance(reason, uex.NewConnectionError):
        return rex.ConnectTimeout(exc)
    if isinstance(reason, uex.ResponseError):
        return rex.RetryError(exc)
    if isinstance(reason, uex.ProxyError):
        return rex.ProxyError(exc)
    if isinstance(reason, uex.SSLError):
        return rex.SSLError(exc)
    return rex.ConnectionError(exc)

"""A small client for any OpenAI-compatible chat endpoint (``POST {url}/chat/completions``).

Nothing is contacted unless a URL and a model are given: graphhop has no default endpoint. The API key
is read from an environment variable (``GRAPHHOP_LLM_API_KEY`` unless another name is given) and sent
as a bearer token when set; it never appears in errors or logs. Timeouts are per request; connection
errors, timeouts, HTTP 429 and 5xx are retried a bounded number of times with a short backoff; any
other failure raises :class:`LLMError` with a one-line message.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from graphhop.core import GraphhopError, InputError

__all__ = ["LLMError", "ChatClient", "KEY_ENV", "chat_url"]

#: Environment variable holding the API key by default.
KEY_ENV = "GRAPHHOP_LLM_API_KEY"


class LLMError(GraphhopError):
    """The chat endpoint could not give a reply (one line: what failed, where)."""


def chat_url(url: str) -> str:
    """The completions URL: ``url`` itself when it already ends in ``/chat/completions``, else appended."""
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise InputError(f"--llm-url must start with http:// or https://, got {url!r}")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


@dataclass
class ChatClient:
    """Chat completions against ``url`` with ``model`` (temperature 0 by default, for repeatable runs)."""

    url: str
    model: str
    key_env: str = KEY_ENV
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 1.0
    temperature: float = 0.0
    max_tokens: int = 512
    calls: int = 0
    retried: int = 0
    _http: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.model or not self.model.strip():
            raise InputError("--llm-model is required with --llm-url")
        if self.timeout <= 0 or self.retries < 0:
            raise InputError("LLM timeout must be > 0 and retries >= 0")
        self.endpoint = chat_url(self.url)

    def _client(self) -> Any:
        if self._http is None:
            import httpx

            self._http = httpx.Client(timeout=self.timeout)
        return self._http

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.key_env, "").strip()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def complete(self, messages: Sequence[dict[str, str]]) -> str:
        """The reply text of one chat request (``choices[0].message.content``)."""
        import httpx

        body = {"model": self.model, "messages": list(messages), "temperature": self.temperature,
                "max_tokens": self.max_tokens}
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
                time.sleep(self.backoff * attempt)
            self.calls += 1
            try:
                resp = self._client().post(self.endpoint, json=body, headers=self._headers())
            except httpx.TimeoutException:
                last = f"timed out after {self.timeout:g} s"
                continue
            except httpx.HTTPError as exc:
                last = f"cannot connect ({type(exc).__name__})"
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}"
                continue
            if resp.status_code != 200:
                raise LLMError(f"{self.endpoint}: HTTP {resp.status_code} {_short(resp.text)}")
            return _content(resp, self.endpoint)
        raise LLMError(f"{self.endpoint}: {last} ({self.retries + 1} attempts)")

    def close(self) -> None:
        """Close the HTTP connection pool."""
        if self._http is not None:
            self._http.close()
            self._http = None


def _short(text: str, n: int = 120) -> str:
    return " ".join(str(text).split())[:n]


def _content(resp: Any, where: str) -> str:
    try:
        data = resp.json()
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMError(f"{where}: not a chat completion response ({_short(resp.text, 80)!r})") from None
    if content is None:
        return ""
    if not isinstance(content, str):
        raise LLMError(f"{where}: message content is not text")
    return content

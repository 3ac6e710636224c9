"""A stand-in for the OpenAI SDK, for the documents' Python examples only (test/e2e/doc-blocks.test.ts).

The real SDK is not installed (no package index here) and would call a paid API; this one checks that what
an example hands it is what the SDK takes: a model name, a temperature, and chat messages whose every
placeholder was filled.
"""

from types import SimpleNamespace
from typing import Any


class _Completions:
    def create(self, *, model: Any, messages: Any, temperature: Any = None, **_: Any) -> SimpleNamespace:
        if not isinstance(model, str) or not model:
            raise TypeError(f"model must be a model name, got {model!r}")
        if temperature is not None and not isinstance(temperature, (int, float)):
            raise TypeError(f"temperature must be a number, got {temperature!r}")
        if not isinstance(messages, list) or not messages:
            raise TypeError(f"messages must be a non-empty list, got {messages!r}")
        for message in messages:
            if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant"):
                raise TypeError(f"not a chat message: {message!r}")
            if not isinstance(message.get("content"), str) or "${" in message["content"]:
                raise ValueError(f"a message with an unfilled placeholder: {message!r}")
        reply = SimpleNamespace(message=SimpleNamespace(role="assistant", content="(the stand-in's reply)"))
        return SimpleNamespace(choices=[reply])


class OpenAI:
    def __init__(self, **_: Any) -> None:
        self.chat = SimpleNamespace(completions=_Completions())

"""What the client hands out: a prompt (read-only, so no caller can change what the next one gets) and
the key's quota."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any, Dict, List, Literal, NamedTuple, Optional, Tuple

from ._snapshot import PromptData, plain
from ._template import ChatMessage, PromptTemplate, TemplateValue
from .rollout import RolloutSide

#: Where a copy came from: the API just now, the client's cache, or the snapshot it was given.
PromptSource = Literal["network", "cache", "snapshot"]


class PromptConfig(NamedTuple):
    """The model configuration of a version, as the API serves it (``schema`` and ``input_data`` are the
    prompt's own JSON, a fresh copy each time ``Prompt.config`` is read)."""

    model: str
    temperature: float
    schema: List[Any]
    input_data: Any
    input_data_root_name: Optional[str]


class PromptRollout(NamedTuple):
    """Which side of a label's rollout a prompt is (docs/rollouts.md): the rollout, its share as the client
    last learnt it, both versions, and the side this prompt is (its ``version`` is ``from_version`` or
    ``to_version`` accordingly)."""

    rollout_id: str
    percent: float
    from_version: str
    to_version: str
    side: RolloutSide


class Quota(NamedTuple):
    """The key's monthly quota, as of the last answer that carried ``X-RateLimit-*``."""

    limit: int
    remaining: int
    #: The first second of the next UTC month, timezone-aware.
    resets_at: datetime


class Prompt:
    """One version of a prompt. Read-only: every attribute is a property, and ``config`` and
    ``to_dict()`` return copies."""

    __slots__ = ("_data", "_template", "_source", "_rollout")

    def __init__(self, data: PromptData, template: PromptTemplate, source: PromptSource, rollout: Optional[PromptRollout] = None) -> None:
        self._data = data
        self._template = template
        self._source: PromptSource = source
        self._rollout = rollout

    def _text(self, field: str) -> str:
        # PromptData's values are Any (the snapshot format is JSON); these fields were checked to be text
        # when the prompt was read, which the annotation here records for mypy.
        text: str = self._data[field]
        return text

    @property
    def prompt_id(self) -> str:
        return self._text("promptId")

    @property
    def prompt_name(self) -> str:
        return self._text("promptName")

    @property
    def version(self) -> str:
        """The resolved version: the one asked for, the one a label points at, or the latest."""
        return self._text("version")

    @property
    def system_message(self) -> str:
        return self._text("systemMessage")

    @property
    def user_message(self) -> str:
        """The user message template, with ``${variable}`` placeholders."""
        return self._text("userMessage")

    @property
    def config(self) -> PromptConfig:
        config = self._data["config"]
        return PromptConfig(
            config["model"],
            config["temperature"],
            copy.deepcopy(config["schema"]),
            copy.deepcopy(config["inputData"]),
            config["inputDataRootName"],
        )

    @property
    def variables(self) -> Tuple[str, ...]:
        """Every ``${...}`` of the system and user messages, each once, in order of first appearance."""
        return self._template.variables

    @property
    def source(self) -> PromptSource:
        return self._source

    @property
    def rollout(self) -> Optional[PromptRollout]:
        """Set when it was read at a label that is rolling out: the rollout and the side this prompt is."""
        return self._rollout

    def compile(self, /, **values: TemplateValue) -> List[ChatMessage]:
        """Both messages with every placeholder filled, as chat messages for an OpenAI-compatible SDK:
        ``[{"role": "system", ...}, {"role": "user", ...}]``, the system message left out when empty.

        Raises TemplateVariablesError naming every variable without a value, every name that is not a
        variable, and every value that is not a str, int, float or bool."""
        return self._template.compile(values)

    def to_dict(self) -> PromptData:
        """The prompt as the API serves it (camelCase JSON), a copy of its own."""
        return copy.deepcopy(self._data)

    def __repr__(self) -> str:
        rollout = "" if self._rollout is None else f", rollout={self._rollout.rollout_id!r}, side={self._rollout.side!r}"
        return f"Prompt(prompt_id={self.prompt_id!r}, version={self.version!r}, source={self._source!r}{rollout})"


#: Views kept per copy: one per source, and at a rolling-out label one per share and side.
_MAX_VIEWS = 32


class PromptCopy:
    """One prompt body, read once: the template parsed, and one Prompt per way it is handed out."""

    __slots__ = ("data", "template", "_views")

    def __init__(self, data: PromptData) -> None:
        self.data = plain(data)
        self.template = PromptTemplate(f"prompt {self.data['promptId']} {self.data['version']}", self.data["systemMessage"], self.data["userMessage"])
        self._views: Dict[Tuple[PromptSource, Optional[PromptRollout]], Prompt] = {}

    def view(self, source: PromptSource, rollout: Optional[PromptRollout] = None) -> Prompt:
        key = (source, rollout)
        existing = self._views.get(key)
        if existing is None:
            # A rollout's share changes over its life: views of old shares are dropped rather than kept forever.
            if len(self._views) >= _MAX_VIEWS:
                self._views.clear()
            existing = self._views.setdefault(key, Prompt(self.data, self.template, source, rollout))
        return existing

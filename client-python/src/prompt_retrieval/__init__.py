"""prompt_retrieval: prompts from the prompt retrieval service, cached in memory, revalidated in the
background, served from a copy when the service or the quota fails, compiled into chat messages.
Standard library only; thread-safe ``PromptClient`` and asyncio ``AsyncPromptClient``.

    from prompt_retrieval import PromptClient

    prompts = PromptClient("https://prompts.example.com", os.environ["PROMPTS_API_KEY"])
    messages = prompts.get("welcome-email").compile(name="Ada", company="Acme")
"""

from ._async_client import AsyncPromptClient
from ._client import PromptClient
from ._errors import (
    BadRequestError,
    ErrorCode,
    InvalidOptionsError,
    LabelNotFoundError,
    NotFoundError,
    PromptClientError,
    ServiceUnavailableError,
    TemplateVariablesError,
    UnauthorizedError,
    Usage,
    UsageLimitExceededError,
    VersionNotFoundError,
)
from ._prompt import Prompt, PromptConfig, PromptRollout, PromptSource, Quota
from ._snapshot import SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION
from ._template import ChatMessage, TemplateValue
from ._version import __version__

__all__ = [
    "AsyncPromptClient",
    "BadRequestError",
    "ChatMessage",
    "ErrorCode",
    "InvalidOptionsError",
    "LabelNotFoundError",
    "NotFoundError",
    "Prompt",
    "PromptClient",
    "PromptClientError",
    "PromptConfig",
    "PromptRollout",
    "PromptSource",
    "Quota",
    "SNAPSHOT_FORMAT",
    "SNAPSHOT_FORMAT_VERSION",
    "ServiceUnavailableError",
    "TemplateValue",
    "TemplateVariablesError",
    "UnauthorizedError",
    "Usage",
    "UsageLimitExceededError",
    "VersionNotFoundError",
    "__version__",
]

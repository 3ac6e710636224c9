"""Every failure the client reports is a PromptClientError whose ``code`` is the API's own code where the
API gave one, so callers branch on the class or on ``error.code``, never on message text."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, NamedTuple, Optional, Sequence, Tuple, TypeVar

ErrorCode = Literal[
    "NOT_FOUND",
    "VERSION_NOT_FOUND",
    "LABEL_NOT_FOUND",
    "UNAUTHORIZED",
    "USAGE_LIMIT_EXCEEDED",
    "SERVICE_UNAVAILABLE",
    "BAD_REQUEST",
    "UNEXPECTED_RESPONSE",
    "INVALID_VARIABLES",
    "INVALID_OPTIONS",
]


class PromptClientError(Exception):
    """The base of every error the client raises."""

    code: ErrorCode
    #: The HTTP status the API answered with, when the error is an answer.
    status: Optional[int]

    def __init__(self, code: ErrorCode, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotFoundError(PromptClientError):
    """The prompt does not exist for this key (or was deleted)."""

    def __init__(self, prompt_id: str, message: Optional[str] = None) -> None:
        super().__init__("NOT_FOUND", message or f"Prompt {prompt_id} not found", 404)
        self.prompt_id = prompt_id


class VersionNotFoundError(PromptClientError):
    """The prompt exists, but this version of it is not published."""

    def __init__(self, prompt_id: str, version: str, message: Optional[str] = None) -> None:
        super().__init__("VERSION_NOT_FOUND", message or f"Version {version} of prompt {prompt_id} is not published", 404)
        self.prompt_id = prompt_id
        self.version = version


class LabelNotFoundError(PromptClientError):
    """The prompt exists, but does not carry this label (it was removed, or never set)."""

    def __init__(self, prompt_id: str, label: str, message: Optional[str] = None) -> None:
        super().__init__("LABEL_NOT_FOUND", message or f"Prompt {prompt_id} has no label {label}", 404)
        self.prompt_id = prompt_id
        self.label = label


class UnauthorizedError(PromptClientError):
    """The API key is missing, unknown, revoked, disabled or expired. Never answered from a cache."""

    def __init__(self, message: str = "Invalid API key") -> None:
        super().__init__("UNAUTHORIZED", message, 401)


class Usage(NamedTuple):
    used: int
    limit: int


class UsageLimitExceededError(PromptClientError):
    """The key's monthly quota is used up, and no copy of what was asked for exists."""

    def __init__(self, message: str, usage: Usage, upgrade_url: str, resets_at: datetime) -> None:
        super().__init__("USAGE_LIMIT_EXCEEDED", message, 429)
        self.usage = usage
        self.upgrade_url = upgrade_url
        #: When the quota starts again (the first second of the next UTC month), timezone-aware.
        self.resets_at = resets_at


class ServiceUnavailableError(PromptClientError):
    """A network failure, a timeout, or a 5xx, and no copy of what was asked for exists."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__("SERVICE_UNAVAILABLE", message, status)


class BadRequestError(PromptClientError):
    """A malformed prompt id, version or label, as the API judged it."""

    def __init__(self, message: str) -> None:
        super().__init__("BAD_REQUEST", message, 400)


class TemplateVariablesError(PromptClientError, ValueError):
    """``compile`` was given values that do not fit the prompt's variables."""

    def __init__(self, message: str, missing: Sequence[str], unknown: Sequence[str], invalid: Sequence[str]) -> None:
        super().__init__("INVALID_VARIABLES", message)
        #: Variables of the prompt that were not given (or were None).
        self.missing: Tuple[str, ...] = tuple(missing)
        #: Names given that are not variables of the prompt.
        self.unknown: Tuple[str, ...] = tuple(unknown)
        #: Variables given a value that is not a str, int, float or bool.
        self.invalid: Tuple[str, ...] = tuple(invalid)


class InvalidOptionsError(PromptClientError, ValueError):
    """The client was given options it cannot work with (a bad URL, an unreadable snapshot, ...)."""

    def __init__(self, message: str) -> None:
        super().__init__("INVALID_OPTIONS", message)


E = TypeVar("E", bound=PromptClientError)


def fresh(error: E) -> E:
    """The same error as a new object, to raise: an error the client keeps (the key refused, the quota
    used up) is raised again and again, and raising one object repeatedly, or from several threads at
    once, would grow and share its traceback."""
    copy = type(error).__new__(type(error), *error.args)
    copy.__dict__.update(error.__dict__)
    return copy

"""The rollout bucket rule (docs/rollouts.md), exactly as the server's ``lambda/domain/rollout-bucket.ts`` and the
TypeScript client's ``client/src/rollout.ts`` apply it, so that a subject gets the same side from the
service and from every client's cache (``test/client/bucket-agreement.test.ts`` holds the three to each
other)."""

from __future__ import annotations

import hashlib
import random as _random
from typing import Any, Callable, Dict, Literal, NamedTuple, Optional, cast

#: ``to`` is the version the label moves to; ``from`` the one it points at.
RolloutSide = Literal["from", "to"]

#: The request header that names the subject (a user or session id).
SUBJECT_HEADER = "X-Prompt-Subject"
#: The API refuses a longer subject (400).
MAX_SUBJECT_LENGTH = 256


class RolloutShare(NamedTuple):
    """What the API says of a label's rollout in each answer at the label: enough to pick any subject's side."""

    rollout_id: str
    #: The share of subjects that get ``to``, 0 to 100.
    percent: float
    #: The version the label points at, served to the rest.
    from_version: str
    #: The version the label moves to.
    to_version: str

    def version_of(self, side: RolloutSide) -> str:
        return self.to_version if side == "to" else self.from_version

    def to_dict(self) -> Dict[str, object]:
        """As the API and the snapshot format write it."""
        return {"rolloutId": self.rollout_id, "percent": self.percent, "from": self.from_version, "to": self.to_version}


def bucket_of(rollout_id: str, subject: str) -> float:
    """The subject's bucket in [0, 100): the first 4 bytes of SHA-256(``<rolloutId>:<subject>``, UTF-8) as
    an unsigned big-endian integer, over 2^32, times 100."""
    digest = hashlib.sha256(_utf8(f"{rollout_id}:{subject}")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 * 100


def _utf8(text: str) -> bytes:
    """UTF-8 as JavaScript's TextEncoder and Node's hash write it: a surrogate pair is the character it
    encodes, a lone surrogate is U+FFFD (where Python's strict encoder would raise)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "replace").encode("utf-8")


def side_for(rollout_id: str, percent: float, subject: Optional[str], random: Callable[[], float] = _random.random) -> RolloutSide:
    """``to`` when the subject's bucket is below the share; without a subject, drawn with the same odds."""
    bucket = random() * 100 if subject is None else bucket_of(rollout_id, subject)
    return "to" if bucket < percent else "from"


def rollout_problem(value: object) -> Optional[str]:
    """Reads the ``rollout`` field of an answer (or a snapshot's); a message names what does not fit, by field."""
    if not isinstance(value, dict):
        return "must be an object"
    fields = cast(Dict[str, object], value)
    rollout_id = fields.get("rolloutId")
    if not isinstance(rollout_id, str) or rollout_id == "":
        return "rolloutId: must be a string"
    percent = fields.get("percent")
    if isinstance(percent, bool) or not isinstance(percent, (int, float)) or not 0 <= percent <= 100:
        return "percent: must be a number from 0 to 100"
    if not isinstance(fields.get("from"), str) or not isinstance(fields.get("to"), str):
        return "from and to: must be versions"
    return None


def rollout_of(value: object) -> RolloutShare:
    """A ``rollout`` field ``rollout_problem`` accepted."""
    fields = cast(Dict[str, Any], value)
    # The share as it came: 50 stays 50 in a snapshot, as the other clients write it.
    return RolloutShare(fields["rolloutId"], fields["percent"], fields["from"], fields["to"])

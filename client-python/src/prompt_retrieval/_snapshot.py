"""Snapshots: copies of prompts to serve when the API cannot be reached, in the one JSON format every
client of the service writes and reads (``prompt-retrieval-snapshot``, format version 1), so a snapshot
taken by the TypeScript client, by this one, or by the admin CLI's ``prompts export`` serves in any of them.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union, cast

from ._errors import InvalidOptionsError
from .rollout import RolloutShare, rollout_of, rollout_problem

SNAPSHOT_FORMAT = "prompt-retrieval-snapshot"
SNAPSHOT_FORMAT_VERSION = 1

#: A prompt as the API returns it (``GET /prompts/{promptId}``): plain JSON, camelCase keys.
PromptData = Dict[str, Any]
#: label -> promptId -> version
SnapshotLabels = Dict[str, Dict[str, str]]
#: label -> promptId -> rollout: the labels that were rolling out (each at its ``from`` in the labels).
SnapshotRollouts = Dict[str, Dict[str, RolloutShare]]
#: (promptId, version): a published version, which never changes.
VersionKey = Tuple[str, str]


class Snapshot(NamedTuple):
    """A snapshot as read and checked: every prompt in it is a prompt the client can serve."""

    created_at: str
    prompts: List[PromptData]
    versions: List[PromptData]
    labels: Optional[SnapshotLabels]
    #: Absent in snapshots taken before rollouts, and when no label rolled out.
    rollouts: Optional[SnapshotRollouts] = None


def version_key(prompt: PromptData) -> VersionKey:
    return (prompt["promptId"], prompt["version"])


def read_snapshot(source: Union[str, "os.PathLike[str]", Mapping[str, Any]]) -> Snapshot:
    """Reads a snapshot from a file path, or from the dict ``PromptClient.snapshot()`` returns, and checks
    it field by field, so that a damaged file fails at start-up and not during an outage."""
    value: object = source
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as file:
                value = json.load(file)
        except OSError as error:
            raise InvalidOptionsError(f"snapshot: cannot read {path} ({error.strerror or error})") from None
        except ValueError as error:
            raise InvalidOptionsError(f"snapshot: {path} is not valid JSON ({error})") from None
    snapshot = _object_at(value, "snapshot")
    if snapshot.get("format") != SNAPSHOT_FORMAT or not _is_format_version(snapshot.get("formatVersion")):
        raise InvalidOptionsError(
            f'snapshot: not a snapshot of this client (expected format "{SNAPSHOT_FORMAT}", formatVersion {SNAPSHOT_FORMAT_VERSION})'
        )
    created_at = snapshot.get("createdAt")
    if not isinstance(created_at, str) or parse_instant(created_at) is None:
        raise InvalidOptionsError("snapshot.createdAt: must be an ISO 8601 date")
    prompts = _prompts_at(snapshot.get("prompts"), "snapshot.prompts")
    versions = _prompts_at(snapshot.get("versions"), "snapshot.versions")
    held = {version_key(prompt) for prompt in prompts + versions}
    labels = _labels_at(snapshot["labels"], held) if "labels" in snapshot else None
    rollouts = _rollouts_at(snapshot["rollouts"], labels or {}, held) if "rollouts" in snapshot else None
    return Snapshot(created_at, prompts, versions, labels, rollouts)


def create_snapshot(
    latest: Iterable[PromptData],
    others: Iterable[PromptData],
    created_at: float,
    labels: Mapping[str, Mapping[str, str]],
    rollouts: Optional[Mapping[str, Mapping[str, RolloutShare]]] = None,
) -> Dict[str, Any]:
    """The snapshot's JSON as a dict: every prompt at its latest version, the other versions of those
    prompts, and where each label points; sorted, so that the same copies always give the same file."""
    latest = [plain(prompt) for prompt in latest]
    latest_versions = {version_key(prompt) for prompt in latest}
    listed = {prompt["promptId"] for prompt in latest}
    versions: Dict[VersionKey, PromptData] = {}
    for prompt in others:
        key = version_key(prompt)
        # A prompt missing from the latest list is gone (deleted): its old versions must not outlive it.
        if prompt["promptId"] in listed and key not in latest_versions:
            versions[key] = plain(prompt)
    held = latest_versions | set(versions)
    # A label of a deleted prompt, or at a version not in the snapshot, could not be served: left out.
    kept: SnapshotLabels = {}
    for label in sorted(labels):
        for prompt_id, version in sorted(labels[label].items()):
            if (prompt_id, version) in held:
                kept.setdefault(label, {})[prompt_id] = version
    # A rollout is kept only where the fallback can serve both sides: the label at from, to held too.
    kept_rollouts: Dict[str, Dict[str, Dict[str, object]]] = {}
    for label in sorted(rollouts or {}):
        for prompt_id, rollout in sorted((rollouts or {})[label].items()):
            if kept.get(label, {}).get(prompt_id) == rollout.from_version and (prompt_id, rollout.to_version) in held:
                kept_rollouts.setdefault(label, {})[prompt_id] = rollout.to_dict()
    snapshot: Dict[str, Any] = {
        "format": SNAPSHOT_FORMAT,
        "formatVersion": SNAPSHOT_FORMAT_VERSION,
        "createdAt": iso_instant(created_at),
        "prompts": sorted(latest, key=_by_id_then_version),
        "versions": sorted(versions.values(), key=_by_id_then_version),
    }
    if kept:
        snapshot["labels"] = kept
    if kept_rollouts:
        snapshot["rollouts"] = kept_rollouts
    return snapshot


def prompt_problem(value: object) -> Optional[str]:
    """Reads an API answer (or a snapshot entry) as a prompt; a message names what does not fit."""
    if not isinstance(value, dict):
        return "must be an object"
    prompt = cast(Dict[str, object], value)
    for field in ("promptId", "promptName", "version", "systemMessage", "userMessage"):
        if not isinstance(prompt.get(field), str):
            return f"{field}: must be a string"
    config = prompt.get("config")
    if not isinstance(config, dict):
        return "config: must be an object"
    fields = cast(Dict[str, object], config)
    if not isinstance(fields.get("model"), str):
        return "config.model: must be a string"
    temperature = fields.get("temperature")
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool):
        return "config.temperature: must be a number"
    if not isinstance(fields.get("schema"), list):
        return "config.schema: must be an array"
    root_name = fields.get("inputDataRootName", ...)
    if root_name is not None and not isinstance(root_name, str):
        return "config.inputDataRootName: must be a string or null"
    return None


def plain(prompt: Mapping[str, Any]) -> PromptData:
    """Only the API's fields, in the API's order: nothing else travels into a cache or a snapshot."""
    config = prompt["config"]
    return {
        "promptId": prompt["promptId"],
        "promptName": prompt["promptName"],
        "version": prompt["version"],
        "systemMessage": prompt["systemMessage"],
        "userMessage": prompt["userMessage"],
        "config": {
            "model": config["model"],
            "temperature": config["temperature"],
            "schema": config["schema"],
            "inputData": config.get("inputData"),
            "inputDataRootName": config.get("inputDataRootName"),
        },
    }


def iso_instant(seconds: float) -> str:
    """As JavaScript's ``Date.prototype.toISOString`` writes it: UTC, milliseconds, ``Z``."""
    milliseconds = int(seconds * 1000 // 1)
    instant = datetime.fromtimestamp(milliseconds // 1000, timezone.utc)
    return f"{instant.strftime('%Y-%m-%dT%H:%M:%S')}.{milliseconds % 1000:03d}Z"


def parse_instant(text: str) -> Optional[datetime]:
    """An ISO 8601 date or instant (``Z`` included, which ``fromisoformat`` reads only from Python 3.11)."""
    try:
        return datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None


def _is_format_version(value: object) -> bool:
    return not isinstance(value, bool) and value == SNAPSHOT_FORMAT_VERSION


def _labels_at(value: object, held: "set[VersionKey]") -> SnapshotLabels:
    """Each label at a version the snapshot holds: a label it could not serve is a damaged file."""
    labels: SnapshotLabels = {}
    for label, targets in _object_at(value, "snapshot.labels").items():
        path = f"snapshot.labels[{json.dumps(label)}]"
        entries: Dict[str, str] = {}
        for prompt_id, version in _object_at(targets, path).items():
            if not isinstance(version, str) or (prompt_id, version) not in held:
                raise InvalidOptionsError(f"{path}[{json.dumps(prompt_id)}]: must be a version of that prompt held in the snapshot")
            entries[prompt_id] = version
        labels[label] = entries
    return labels


def _rollouts_at(value: object, labels: SnapshotLabels, held: "set[VersionKey]") -> SnapshotRollouts:
    """Each rollout of a label the snapshot places at its ``from``, with ``to`` held too: else a damaged file."""
    rollouts: SnapshotRollouts = {}
    for label, targets in _object_at(value, "snapshot.rollouts").items():
        entries: Dict[str, RolloutShare] = {}
        for prompt_id, entry in _object_at(targets, f"snapshot.rollouts[{json.dumps(label)}]").items():
            path = f"snapshot.rollouts[{json.dumps(label)}][{json.dumps(prompt_id)}]"
            problem = rollout_problem(entry)
            if problem is not None:
                raise InvalidOptionsError(f"{path}{': ' if problem.startswith('must') else '.'}{problem}")
            rollout = rollout_of(entry)
            if labels.get(label, {}).get(prompt_id) != rollout.from_version or (prompt_id, rollout.to_version) not in held:
                raise InvalidOptionsError(f"{path}: the label must point at its from version, and both versions must be held in the snapshot")
            entries[prompt_id] = rollout
        rollouts[label] = entries
    return rollouts


def _prompts_at(value: object, path: str) -> List[PromptData]:
    if not isinstance(value, list):
        raise InvalidOptionsError(f"{path}: must be an array")
    prompts: List[PromptData] = []
    for index, entry in enumerate(cast(List[object], value)):
        problem = prompt_problem(entry)
        if problem is not None:
            raise InvalidOptionsError(f"{path}[{index}]{': ' if problem.startswith('must') else '.'}{problem}")
        prompts.append(plain(cast(PromptData, entry)))
    return prompts


def _object_at(value: object, path: str) -> Dict[str, object]:
    if not isinstance(value, dict):
        raise InvalidOptionsError(f"{path}: must be an object")
    return cast(Dict[str, object], value)


def _by_id_then_version(prompt: PromptData) -> Tuple[str, Tuple[int, ...]]:
    return (prompt["promptId"], tuple(int(part) if part.isdecimal() else 0 for part in prompt["version"].split(".")))

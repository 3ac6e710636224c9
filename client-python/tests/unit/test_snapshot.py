"""Reading snapshots: a damaged one is refused at start-up, naming what is wrong, so that it never
fails during the outage it is there for."""

from __future__ import annotations

import copy
import unittest
from typing import Any, Dict

from prompt_retrieval import InvalidOptionsError, PromptClient

from ..support.fake_api import dead_url


def prompt(prompt_id: str, version: str = "1.0.0") -> Dict[str, Any]:
    return {
        "promptId": prompt_id,
        "promptName": prompt_id,
        "version": version,
        "systemMessage": "System",
        "userMessage": "Hello ${name}",
        "config": {"model": "m", "temperature": 0.5, "schema": [], "inputData": None, "inputDataRootName": None},
    }


def snapshot(**fields: Any) -> Dict[str, Any]:
    return {"format": "prompt-retrieval-snapshot", "formatVersion": 1, "createdAt": "2026-11-01T00:00:00.000Z", "prompts": [prompt("p")], "versions": [], **fields}


class DamagedSnapshots(unittest.TestCase):
    def refused(self, value: Any) -> str:
        with self.assertRaises(InvalidOptionsError) as raised:
            PromptClient(dead_url(), "prs_any_key_the_app_holds_0000", snapshot=value)
        return str(raised.exception)

    def test_a_snapshot_of_another_format_is_refused(self) -> None:
        expected = 'snapshot: not a snapshot of this client (expected format "prompt-retrieval-snapshot", formatVersion 1)'
        self.assertEqual(self.refused({"format": "other"}), expected)
        self.assertEqual(self.refused(snapshot(formatVersion=2)), expected)
        self.assertEqual(self.refused(snapshot(formatVersion=True)), expected)

    def test_a_created_at_that_is_not_a_date_is_refused(self) -> None:
        self.assertEqual(self.refused(snapshot(createdAt="yesterday")), "snapshot.createdAt: must be an ISO 8601 date")

    def test_a_prompt_that_is_not_a_prompt_is_refused_by_its_place_and_field(self) -> None:
        bad_version = copy.deepcopy(prompt("q"))
        bad_version["version"] = 1
        self.assertEqual(self.refused(snapshot(versions=[bad_version])), "snapshot.versions[0].version: must be a string")
        bad_temperature = copy.deepcopy(prompt("q"))
        bad_temperature["config"]["temperature"] = "hot"
        self.assertEqual(self.refused(snapshot(prompts=[bad_temperature])), "snapshot.prompts[0].config.temperature: must be a number")
        self.assertEqual(self.refused(snapshot(prompts=["p"])), "snapshot.prompts[0]: must be an object")
        self.assertEqual(self.refused(snapshot(prompts={})), "snapshot.prompts: must be an array")

    def test_a_label_at_a_version_the_snapshot_does_not_hold_is_refused(self) -> None:
        self.assertEqual(
            self.refused(snapshot(labels={"production": {"welcome-email": "1.0.0"}})),
            'snapshot.labels["production"]["welcome-email"]: must be a version of that prompt held in the snapshot',
        )

    def test_a_snapshot_without_labels_reads_and_serves(self) -> None:
        client = PromptClient(dead_url(), "prs_any_key_the_app_holds_0000", snapshot=snapshot())
        self.assertEqual(client.get("p").source, "snapshot")


if __name__ == "__main__":
    unittest.main()

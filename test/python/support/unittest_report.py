"""One folder of the Python client's unittest suites, for jest (test/python/support/python.ts).

    python3 unittest_report.py list <folder>   the ids of the tests `unittest discover` finds there
    python3 unittest_report.py run <folder>    runs them as `python3 -m unittest discover` does

Run from client-python/, with the folder under it. What jest reads is written to file descriptor 3, one JSON
object a line, apart from whatever the tests print: in `list`, {"python": "3.11"} and then {"test": id} per test; in `run`, {"test": id,
"outcome": "passed" | "failed" | "skipped", "detail": text} per test as it ends, and {"fixture": name, "detail":
text} for a class or module fixture that failed. unittest's own report goes to stderr, as with -m unittest.
Standard library only, Python 3.9 or later, like the client.
"""

import json
import os
import sys
import unittest
from typing import Any, Iterator, List, Optional, TextIO, Tuple, Type
from types import TracebackType

ErrInfo = Tuple[Type[BaseException], BaseException, Optional[TracebackType]]

REPORT: TextIO = os.fdopen(3, "w", encoding="utf-8")


def report(**fields: Any) -> None:
    REPORT.write(json.dumps(fields) + "\n")
    REPORT.flush()


def discovered(folder: str) -> unittest.TestSuite:
    return unittest.defaultTestLoader.discover(folder, pattern="test_*.py", top_level_dir=".")


def each_test(suite: unittest.TestSuite) -> Iterator[unittest.TestCase]:
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from each_test(item)
        else:
            yield item


class ReportedResult(unittest.TextTestResult):
    """unittest's text result, which also reports each test's outcome on the report channel as it ends."""

    problems: List[str] = []
    skipped_it = False

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        self.problems = []
        self.skipped_it = False

    def problem(self, test: unittest.TestCase, err: ErrInfo) -> None:
        detail = self._exc_info_to_string(err, test)  # type: ignore[attr-defined]
        if isinstance(test, unittest.TestCase):
            self.problems.append(detail)
        else:
            # A class or module fixture (setUpClass, setUpModule) failed: its tests do not run.
            report(fixture=str(test), detail=detail)

    def addError(self, test: unittest.TestCase, err: ErrInfo) -> None:  # type: ignore[override]
        super().addError(test, err)
        self.problem(test, err)

    def addFailure(self, test: unittest.TestCase, err: ErrInfo) -> None:  # type: ignore[override]
        super().addFailure(test, err)
        self.problem(test, err)

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Optional[ErrInfo]) -> None:  # type: ignore[override]
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.problems.append(f"{subtest}\n{self._exc_info_to_string(err, test)}")  # type: ignore[attr-defined]

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self.skipped_it = True
        self.problems.append(f"skipped: {reason}")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self.problems.append("passed, but is marked as an expected failure")

    def stopTest(self, test: unittest.TestCase) -> None:
        super().stopTest(test)
        if self.skipped_it:
            outcome = "skipped"
        else:
            outcome = "failed" if self.problems else "passed"
        report(test=test.id(), outcome=outcome, detail="\n".join(self.problems))


def main(mode: str, folder: str) -> int:
    if mode == "list":
        # First the version, so that jest can say a Python too old for the client is the problem.
        report(python="%d.%d" % sys.version_info[:2])
    suite = discovered(folder)
    if mode == "list":
        for test in each_test(suite):
            report(test=test.id())
        return 0
    result = unittest.TextTestRunner(stream=sys.stderr, resultclass=ReportedResult).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

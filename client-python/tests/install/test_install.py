"""``pip install ./client-python`` works on a machine that reaches no Python index: into a new virtual
environment, with pip's build isolation and without it, and what it installs is the package, typed."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile
from typing import List

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(PROJECT, "build_backend"))

import stdlib_backend  # noqa: E402 - the backend lives beside the package, not on the path

PACKAGE_FILES = sorted(
    f"prompt_retrieval/{name}" for name in os.listdir(os.path.join(PROJECT, "src", "prompt_retrieval")) if name.endswith((".py", ".typed"))
)


def run(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env={**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


class PipInstall(unittest.TestCase):
    def install(self, *options: str) -> str:
        with tempfile.TemporaryDirectory() as folder:
            environment = os.path.join(folder, "venv")
            run(sys.executable, "-m", "venv", environment)
            python = os.path.join(environment, "bin", "python")
            run(python, "-m", "pip", "install", "--no-index", *options, PROJECT)
            return self.inspect(python, environment)

    def inspect(self, python: str, environment: str) -> str:
        return run(
            python,
            "-c",
            "import importlib.metadata as m, os, sys, prompt_retrieval as p;"
            f"print(p.__version__, m.version('prompt-retrieval-client'), os.path.relpath(p.__file__, {environment!r}).startswith('lib'),"
            " os.path.exists(os.path.join(os.path.dirname(p.__file__), 'py.typed')), p.PromptClient.__name__, p.AsyncPromptClient.__name__)",
        ).strip()

    def test_pip_installs_it_offline_with_build_isolation(self) -> None:
        self.assertEqual(self.install(), f"{stdlib_backend.version()} {stdlib_backend.version()} True True PromptClient AsyncPromptClient")

    def test_pip_installs_it_offline_without_build_isolation(self) -> None:
        self.assertEqual(self.install("--no-build-isolation"), f"{stdlib_backend.version()} {stdlib_backend.version()} True True PromptClient AsyncPromptClient")


class WheelFile(unittest.TestCase):
    """The wheel a team builds once and hands on (or uploads to its own index), as docs/install.md says:
    ``pip wheel`` runs the package's own backend, and ``pip install`` of that file needs nothing else."""

    def test_pip_wheel_builds_it_and_pip_installs_that_file_offline_into_a_folder_it_imports_from(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            wheels, target, empty = (os.path.join(folder, name) for name in ("wheels", "site", "empty"))
            os.mkdir(empty)
            run(sys.executable, "-m", "pip", "wheel", "--no-index", "--no-deps", "--wheel-dir", wheels, PROJECT)
            built = os.listdir(wheels)
            run(sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--target", target, *(os.path.join(wheels, name) for name in built))
            done = subprocess.run(
                [sys.executable, "-c", "import prompt_retrieval as p; print(p.__version__, p.__file__)"],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=empty,
                env={**os.environ, "PYTHONPATH": target},
            )

        self.assertEqual(built, [f"prompt_retrieval_client-{stdlib_backend.version()}-py3-none-any.whl"])
        self.assertEqual(done.stderr, "")
        self.assertEqual(done.stdout, f"{stdlib_backend.version()} {os.path.join(target, 'prompt_retrieval', '__init__.py')}\n")


class Artifacts(unittest.TestCase):
    def test_the_wheel_holds_the_package_and_its_metadata_and_nothing_else(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            name = stdlib_backend.build_wheel(folder)
            with zipfile.ZipFile(os.path.join(folder, name)) as wheel:
                names = wheel.namelist()
                metadata = wheel.read(f"prompt_retrieval_client-{stdlib_backend.version()}.dist-info/METADATA").decode()
                record = wheel.read(f"prompt_retrieval_client-{stdlib_backend.version()}.dist-info/RECORD").decode()

        self.assertEqual(name, f"prompt_retrieval_client-{stdlib_backend.version()}-py3-none-any.whl")
        self.assertEqual(sorted(n for n in names if not n.startswith("prompt_retrieval_client-")), PACKAGE_FILES)
        self.assertIn("prompt_retrieval/py.typed", names)
        self.assertIn("Name: prompt-retrieval-client\n", metadata)
        self.assertIn("Requires-Python: >=3.9\n", metadata)
        self.assertNotIn("Requires-Dist", metadata)
        self.assertEqual(len(record.splitlines()), len(names))

    def test_the_same_sources_build_the_same_wheel_byte_for_byte(self) -> None:
        built: List[bytes] = []
        for _ in range(2):
            with tempfile.TemporaryDirectory() as folder:
                with open(os.path.join(folder, stdlib_backend.build_wheel(folder)), "rb") as file:
                    built.append(file.read())
        self.assertEqual(built[0], built[1])

    def test_the_sdist_builds_the_same_wheel_again(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            with tarfile.open(os.path.join(folder, stdlib_backend.build_sdist(folder))) as sdist:
                names = sdist.getnames()
        base = f"prompt_retrieval_client-{stdlib_backend.version()}"
        self.assertIn(f"{base}/pyproject.toml", names)
        self.assertIn(f"{base}/build_backend/stdlib_backend.py", names)
        self.assertIn(f"{base}/PKG-INFO", names)
        self.assertEqual(sorted(n[len(base) + 5 :] for n in names if n.startswith(f"{base}/src/")), PACKAGE_FILES)

    def test_the_backend_reads_the_project_table_as_tomllib_does(self) -> None:
        with open(os.path.join(PROJECT, "pyproject.toml"), encoding="utf-8") as file:
            text = file.read()
        read = stdlib_backend.read_project(text)
        self.assertEqual(read["name"], "prompt-retrieval-client")
        self.assertEqual(read["dynamic"], ["version"])
        try:
            import tomllib  # type: ignore[import-not-found,unused-ignore]
        except ImportError:  # Python before 3.11: the fields above are the check
            return
        self.assertEqual(read, tomllib.loads(text)["project"])

    def test_the_backend_refuses_a_project_table_it_cannot_read(self) -> None:
        with self.assertRaisesRegex(ValueError, r"^pyproject.toml:2: expected an array on one line, got \[$"):
            stdlib_backend.read_project('[project]\nauthors = [\n  { name = "x" },\n]\n')


if __name__ == "__main__":
    unittest.main()

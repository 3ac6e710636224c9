"""The package's build backend (PEP 517, with PEP 660 editable installs), in the standard library only.

Why not setuptools or flit: pip installs a backend's requirements from an index before it builds, and
these machines reach no Python index (``pip install --no-index`` finds no setuptools); with
``--no-build-isolation`` pip uses the interpreter's own setuptools, whose wheel building needs the
``wheel`` package, which Python does not ship. A backend that needs nothing makes ``pip install
./client-python`` work offline either way, with any pip that reads ``backend-path`` (pip 20 and later).

It builds one pure-Python wheel from ``src/`` and the ``[project]`` table of ``pyproject.toml``, which it
reads with a reader for the few forms that table uses (tomllib arrives only in Python 3.11).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Mapping, Optional, Tuple, Union

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "src")
PACKAGE = "prompt_retrieval"
#: Zip and tar entries carry this time, so that the same sources always give the same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)

ProjectValue = Union[str, List[str], Dict[str, str]]


def read_project(text: str) -> Dict[str, ProjectValue]:
    """The ``[project]`` table and its subtables (``[project.urls]``): ``key = "string"`` and
    ``key = ["string", ...]`` on one line each. Anything else in the table is refused, not guessed at."""
    project: Dict[str, ProjectValue] = {}
    table: Optional[Dict[str, ProjectValue]] = None
    subtable: Optional[Dict[str, str]] = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line == "" or line.startswith("#"):
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if header is not None:
            name = header.group(1)
            if name == "project":
                table, subtable = project, None
            elif name.startswith("project."):
                table, subtable = None, {}
                project[name[len("project.") :]] = subtable
            else:
                table, subtable = None, None
            continue
        if table is None and subtable is None:
            continue
        entry = re.fullmatch(r'("[^"]+"|[A-Za-z0-9_-]+)\s*=\s*(.+)', line)
        if entry is None:
            raise ValueError(f"pyproject.toml:{number}: not a form this backend reads: {line}")
        key, value = entry.group(1).strip('"'), entry.group(2)
        if subtable is not None:
            subtable[key] = _string(value, number)
        else:
            assert table is not None
            table[key] = [_string(item, number) for item in _items(value, number)] if value.startswith("[") else _string(value, number)
    return project


def _string(text: str, number: int) -> str:
    match = re.fullmatch(r'"([^"\\]*)"', text.strip())
    if match is None:
        raise ValueError(f"pyproject.toml:{number}: expected a string without escapes, got {text}")
    return match.group(1)


def _items(text: str, number: int) -> List[str]:
    match = re.fullmatch(r"\[(.*)\]", text.strip())
    if match is None:
        raise ValueError(f"pyproject.toml:{number}: expected an array on one line, got {text}")
    return re.findall(r'"[^"\\]*"', match.group(1))


def project() -> Dict[str, ProjectValue]:
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        return read_project(file.read())


def version() -> str:
    """The package's own ``__version__`` (``dynamic = ["version"]``): one place to change it."""
    with open(os.path.join(SOURCE, PACKAGE, "_version.py"), encoding="utf-8") as file:
        match = re.search(r'^__version__ = "([^"]+)"$', file.read(), re.MULTILINE)
    if match is None:
        raise ValueError(f"{PACKAGE}/_version.py: no __version__")
    return match.group(1)


def _field(fields: Mapping[str, ProjectValue], name: str) -> str:
    value = fields.get(name)
    if not isinstance(value, str):
        raise ValueError(f"pyproject.toml: [project] needs {name} as a string")
    return value


def metadata() -> str:
    """The core metadata (METADATA, PKG-INFO), version 2.1."""
    fields = project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {_field(fields, 'name')}",
        f"Version: {version()}",
        f"Summary: {_field(fields, 'description')}",
        f"Requires-Python: {_field(fields, 'requires-python')}",
    ]
    classifiers = fields.get("classifiers", [])
    assert isinstance(classifiers, list)
    lines.extend(f"Classifier: {classifier}" for classifier in classifiers)
    urls = fields.get("urls", {})
    assert isinstance(urls, dict)
    lines.extend(f"Project-URL: {name}, {url}" for name, url in urls.items())
    readme = _field(fields, "readme")
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, readme), encoding="utf-8") as file:
        description = file.read()
    return "\n".join(lines) + "\n\n" + description


def _names() -> Tuple[str, str]:
    fields = project()
    distribution = re.sub(r"[-_.]+", "_", _field(fields, "name")).lower()
    return distribution, version()


def _package_files() -> List[Tuple[str, str]]:
    """(path in the wheel, path on disk) of every file the package ships, sorted."""
    found: List[Tuple[str, str]] = []
    for folder, subfolders, files in os.walk(os.path.join(SOURCE, PACKAGE)):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".typed")):
                path = os.path.join(folder, name)
                found.append((os.path.relpath(path, SOURCE).replace(os.sep, "/"), path))
    return found


def _write_wheel(wheel_directory: str, contents: List[Tuple[str, bytes]], tag: str = "py3-none-any") -> str:
    distribution, version = _names()
    dist_info = f"{distribution}-{version}.dist-info"
    entries = list(contents)
    entries.append((f"{dist_info}/METADATA", metadata().encode()))
    entries.append((f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: stdlib_backend\nRoot-Is-Purelib: true\nTag: {tag}\n".encode()))
    record = "".join(f"{name},sha256={_digest(data)},{len(data)}\n" for name, data in entries) + f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))
    filename = f"{distribution}-{version}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries:
            info = zipfile.ZipInfo(name, EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


# PEP 517


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, object]] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [(name, _read(path)) for name, path in _package_files()])


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, object]] = None, metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel whose one ``.pth`` file puts ``src/`` on the path, so edits take effect at once."""
    distribution, _ = _names()
    return _write_wheel(wheel_directory, [(f"__editable__.{distribution}.pth", (SOURCE + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, object]] = None) -> str:
    distribution, version = _names()
    base = f"{distribution}-{version}"
    files = [("pyproject.toml", os.path.join(ROOT, "pyproject.toml")), ("README.md", os.path.join(ROOT, "README.md"))]
    files.append(("build_backend/stdlib_backend.py", os.path.abspath(__file__)))
    files.extend((f"src/{name}", path) for name, path in _package_files())
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for name, data in [(name, _read(path)) for name, path in files] + [("PKG-INFO", metadata().encode())]:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size = len(data)
            info.mode = 0o644
            sdist.addfile(info, io.BytesIO(data))
    return filename

"""A message template: text with ``${name}`` placeholders, read by the same rules as the TypeScript
client, the playground and the MCP endpoint.

A name is everything up to the next ``}``. A literal ``${`` is written ``$${``: the ``$`` in front
escapes it, so ``$${name}`` is the text ``${name}``, not a variable. ``${`` with no ``}`` after it, and
an empty ``${}``, are text too.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Dict, List, Literal, Mapping, Sequence, Tuple, TypedDict, Union

from ._errors import TemplateVariablesError


class Variable(str):
    """A placeholder's name, as one segment of a parsed template (the text around it is plain ``str``)."""

    def __repr__(self) -> str:
        return f"Variable({str.__repr__(self)})"


Segment = Union[str, Variable]


class ChatMessage(TypedDict):
    """One message in the shape OpenAI-compatible SDKs take."""

    role: Literal["system", "user"]
    content: str


#: What a placeholder may be filled with: numbers and booleans are written as JavaScript's String() does.
TemplateValue = Union[str, int, float, bool]


def parse_template(text: str) -> Tuple[Segment, ...]:
    segments: List[Segment] = []
    literal = ""
    at = 0
    while True:
        opening = text.find("${", at)
        if opening == -1:
            break
        if opening > 0 and text[opening - 1] == "$":
            literal += text[at : opening - 1] + "${"
            at = opening + 2
            continue
        closing = text.find("}", opening + 2)
        if closing == -1:
            break
        literal += text[at:opening]
        name = text[opening + 2 : closing]
        if name == "":
            literal += "${}"
        else:
            if literal != "":
                segments.append(literal)
            literal = ""
            segments.append(Variable(name))
        at = closing + 1
    literal += text[at:]
    if literal != "":
        segments.append(literal)
    return tuple(segments)


def variables_of(*templates: Sequence[Segment]) -> Tuple[str, ...]:
    names: Dict[str, None] = {}
    for segments in templates:
        for segment in segments:
            if isinstance(segment, Variable):
                names.setdefault(str(segment), None)
    return tuple(names)


class PromptTemplate:
    """A prompt's two messages, read once so that compiling is a walk over the pieces."""

    __slots__ = ("_label", "_system", "_user", "variables")

    def __init__(self, label: str, system_message: str, user_message: str) -> None:
        self._label = label
        self._system = parse_template(system_message)
        self._user = parse_template(user_message)
        #: Every placeholder of the system and user messages, each once, in order of first appearance.
        self.variables: Tuple[str, ...] = variables_of(self._system, self._user)

    def compile(self, values: Mapping[str, object]) -> List[ChatMessage]:
        """Both messages filled, as chat messages (the system message left out when empty). Strict: a
        variable without a value, a value for a name that is not a variable, and a value that is not a
        str, int, float or bool each raise a TemplateVariablesError naming every one of them."""
        missing: List[str] = []
        invalid: List[str] = []
        for name in self.variables:
            value = values.get(name)
            if value is None:
                missing.append(name)
            elif not isinstance(value, (str, int, float)):
                invalid.append(name)
        unknown = [name for name in values if name not in self.variables]
        if missing or invalid or unknown:
            problems: List[str] = []
            if missing:
                problems.append(f"missing {_names(missing)}")
            if invalid:
                problems.append(f"not a string, number or boolean: {_names(invalid)}")
            if unknown:
                problems.append(f"unknown {_names(unknown)} (the prompt's variables: {_names(self.variables) or 'none'})")
            raise TemplateVariablesError(f"Cannot compile {self._label}: {'; '.join(problems)}", missing, unknown, invalid)
        system = _fill(self._system, values)
        user: ChatMessage = {"role": "user", "content": _fill(self._user, values)}
        return [{"role": "system", "content": system}, user] if system != "" else [user]


def text_of(value: object) -> str:
    """A value as JavaScript's ``String(value)`` writes it, so a template compiles to the same text in
    every client: ``true``, ``3`` for 3.0, ``1e+21``, ``0.1``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number_text(value)
    raise TypeError(f"not a template value: {type(value).__name__}")


def _number_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    # repr gives the shortest digits that read back as the same float, as JavaScript picks them;
    # only the layout differs (ECMA-262, Number::toString).
    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exponent += len(digit_tuple) - len(digits)
    k = len(digits)
    n = exponent + k
    text: str
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = f"0.{'0' * -n}{digits}"
    else:
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return ("-" if value < 0 else "") + text


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"${{{name}}}" for name in names)


def _fill(segments: Sequence[Segment], values: Mapping[str, object]) -> str:
    return "".join(text_of(values[segment]) if isinstance(segment, Variable) else segment for segment in segments)

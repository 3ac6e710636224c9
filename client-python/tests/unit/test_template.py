"""``${variable}`` filling, by the rules every client of the service shares, and ``compile`` returning
chat messages."""

from __future__ import annotations

import unittest

from prompt_retrieval import TemplateVariablesError
from prompt_retrieval._prompt import PromptCopy
from prompt_retrieval._template import PromptTemplate, Variable, parse_template


def template(system: str, user: str) -> PromptTemplate:
    return PromptTemplate("prompt welcome-email 1.0.0", system, user)


class Variables(unittest.TestCase):
    def test_variables_are_every_placeholder_of_both_messages_each_once_in_order_of_first_appearance(self) -> None:
        self.assertEqual(template("To ${name} at ${company}.", "Dear ${name}, about ${topic} at ${company}.").variables, ("name", "company", "topic"))

    def test_a_name_is_everything_up_to_the_next_closing_brace(self) -> None:
        self.assertEqual(parse_template("a ${first name}${x.y-z} b"), ("a ", Variable("first name"), Variable("x.y-z"), " b"))

    def test_a_literal_placeholder_is_written_with_a_dollar_in_front_and_is_text_not_a_variable(self) -> None:
        literal = template("", "Use $${name} in a JavaScript template, and ${name} here.")
        self.assertEqual(literal.variables, ("name",))
        self.assertEqual(literal.compile({"name": "Ada"})[-1]["content"], "Use ${name} in a JavaScript template, and Ada here.")

    def test_an_opening_without_a_closing_brace_and_an_empty_placeholder_are_text(self) -> None:
        text = template("", "Costs ${} and ${unclosed")
        self.assertEqual(text.variables, ())
        self.assertEqual(text.compile({}), [{"role": "user", "content": "Costs ${} and ${unclosed"}])


class Compile(unittest.TestCase):
    def test_compile_returns_a_system_and_a_user_message_with_every_placeholder_filled(self) -> None:
        self.assertEqual(
            template("Write to ${name}.", "Welcome ${name} to ${company}!").compile({"name": "Ada", "company": "Acme"}),
            [{"role": "system", "content": "Write to Ada."}, {"role": "user", "content": "Welcome Ada to Acme!"}],
        )

    def test_an_empty_system_message_is_left_out(self) -> None:
        self.assertEqual(template("", "Hi ${name}").compile({"name": "Ada"}), [{"role": "user", "content": "Hi Ada"}])

    def test_numbers_and_booleans_are_written_as_every_client_writes_them(self) -> None:
        compiled = template("", "${count} seats at ${price}, ${ratio}, ${big}, ${tiny}, paid: ${paid}").compile(
            {"count": 3, "price": 3.0, "ratio": 0.1, "big": 1e21, "tiny": 1e-7, "paid": False}
        )
        self.assertEqual(compiled[-1]["content"], "3 seats at 3, 0.1, 1e+21, 1e-7, paid: false")

    def test_a_value_is_inserted_as_it_is_never_read_as_a_template_itself(self) -> None:
        self.assertEqual(template("", "Hi ${name}").compile({"name": "${company} $${x}"})[-1]["content"], "Hi ${company} $${x}")

    def test_a_missing_variable_raises_naming_every_one(self) -> None:
        with self.assertRaises(TemplateVariablesError) as raised:
            template("To ${name}.", "About ${topic} for ${company}.").compile({"topic": "billing", "company": None})
        error = raised.exception
        self.assertEqual((error.code, error.missing, error.unknown, error.invalid), ("INVALID_VARIABLES", ("name", "company"), (), ()))
        self.assertEqual(str(error), "Cannot compile prompt welcome-email 1.0.0: missing ${name}, ${company}")

    def test_an_unknown_name_raises_naming_it_and_the_variables_there_are(self) -> None:
        with self.assertRaises(TemplateVariablesError) as raised:
            template("", "Hi ${name}").compile({"nmae": "Ada", "extra": 1})
        self.assertEqual(
            str(raised.exception),
            "Cannot compile prompt welcome-email 1.0.0: missing ${name}; unknown ${nmae}, ${extra} (the prompt's variables: ${name})",
        )
        self.assertEqual(raised.exception.unknown, ("nmae", "extra"))

    def test_a_value_that_is_not_a_string_number_or_boolean_is_refused_by_name(self) -> None:
        with self.assertRaisesRegex(TemplateVariablesError, r"^Cannot compile prompt welcome-email 1.0.0: not a string, number or boolean: \$\{name\}$"):
            template("", "Hi ${name}").compile({"name": {"first": "Ada"}})

    def test_a_prompt_compiles_from_keyword_arguments_whatever_the_names(self) -> None:
        prompt = PromptCopy(
            {
                "promptId": "p",
                "promptName": "P",
                "version": "1.0.0",
                "systemMessage": "As ${self}.",
                "userMessage": "Dear ${first name}",
                "config": {"model": "m", "temperature": 0, "schema": [], "inputData": None, "inputDataRootName": None},
            }
        ).view("network")

        self.assertEqual(
            prompt.compile(self="a critic", **{"first name": "Ada"}),
            [{"role": "system", "content": "As a critic."}, {"role": "user", "content": "Dear Ada"}],
        )

    def test_template_variables_error_is_a_value_error_too(self) -> None:
        with self.assertRaises(ValueError):
            template("", "Hi ${name}").compile({})


if __name__ == "__main__":
    unittest.main()

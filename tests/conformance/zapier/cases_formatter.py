"""Pinned cases of Formatter by Zapier steps inside a Zap: the step as a Zap export holds it, its output mapped on.

A Formatter step's ``action`` is its category and ``params["transform"]`` the transform, spelled as
Formatter's backend (Zapier's open ``transformer`` service) names it: ``string`` / ``string.replace``
(https://github.com/zapier/transformer/issues/67 shows a real step's params: ``inputs``, ``old``,
``new``, ``transform: "string.replace"``), ``date`` / ``date.formatting``. The step's output is
``{"output": …}`` (https://github.com/zapier/transformer/pull/8), which a later step maps as
``{{<id>__output}}``: each case's Zap goes on to a Webhooks GET whose URL carries it. The exports
name the app ``ZapierFormatterCLIAPI@1.0.8`` (a shared Zap's page on zapier.com) or, older,
``FormatterV2CLIAPI``. The transforms' own behaviour is pinned in tests/conformance/zapier_formatter.
"""

from __future__ import annotations

from tests.conformance.zapier.runner import Case

REPLACE_EXPORT = "https://github.com/zapier/transformer/issues/67"
GUIDE = "https://zapier.com/help/doc/how-get-started-formatter-zapier"
DATE_TOKENS = "https://github.com/zapier/transformer/issues/10"


def _then_get(url: str) -> tuple[dict[str, object], ...]:
    return ({"id": 3, "parent_id": 2, "type_of": "write", "selected_api": "WebHookCLIAPI@1.0.36", "action": "get",
             "params": {"url": url}},)


CASES: tuple[Case, ...] = (
    Case("Text Replace, its output mapped into the next step", REPLACE_EXPORT,
         {"type_of": "write", "selected_api": "ZapierFormatterCLIAPI@1.0.8", "action": "string",
          "params": {"transform": "string.replace", "inputs": "{{1__plan}}", "old": "red", "new": "blue"}},
         trigger={"plan": "red cars and red vans"}, replies=({"ok": True},),
         requests=({"method": "GET", "url": "https://api.example.test/plans/blue cars and blue vans"},),
         output={"output": "blue cars and blue vans"},
         more=_then_get("https://api.example.test/plans/{{2__output}}")),
    Case("Text Capitalize under the older app name", GUIDE,
         {"type_of": "write", "selected_api": "FormatterV2CLIAPI", "action": "string",
          "params": {"transform": "string.capitalize", "inputs": "{{1__name}}"}},
         trigger={"name": "ada lovelace"}, replies=({"ok": True},),
         requests=({"method": "GET", "url": "https://api.example.test/people/Ada Lovelace"},),
         output={"output": "Ada Lovelace"},
         more=_then_get("https://api.example.test/people/{{2__output}}")),
    Case("Date/Time Format a mapped date", DATE_TOKENS,
         {"type_of": "write", "selected_api": "ZapierFormatterCLIAPI@1.0.8", "action": "date",
          "params": {"transform": "date.formatting", "inputs": "{{1__at}}", "to_format": "MM/DD/YYYY"}},
         trigger={"at": "2020-10-26T16:56:00+00:00"}, replies=({"ok": True},),
         requests=({"method": "GET", "url": "https://api.example.test/day/10/26/2020"},),
         output={"output": "10/26/2020"},
         more=_then_get("https://api.example.test/day/{{2__output}}")),
)

"""Pinned cases of Code by Zapier: JavaScript (``inputData``/``output``) and Python (``input_data``/``output``).

What the cases hold is Zapier's help: "Use JavaScript code in Zaps"
(https://help.zapier.com/hc/en-us/articles/8496310939021-Use-JavaScript-code-in-Zaps) and "Use Python
code in Zaps" (https://help.zapier.com/hc/en-us/articles/8496326417549-Use-Python-code-in-Zaps): the
input data's values are all strings; the code returns ``output``, an object (dictionary) or an array
(list) of them, and "setting the output to an array of objects will run the subsequent steps
multiple times, once for each object"; JavaScript is wrapped in an async function (``await``,
an early ``return``); dates in Code steps are UTC. The Zapfile shape of the step (``params.code``,
``params.input``, a ``CodeCLIAPI`` action id) is a real export's; the default code is the one
Zapier's own ``/v2/actions/{id}/inputs`` example shows for the Code field.
"""

from __future__ import annotations

from tests.conformance.zapier.runner import Case

JS = "https://help.zapier.com/hc/en-us/articles/8496310939021-Use-JavaScript-code-in-Zaps"
# "callback(err, output) (optional): A callback if you need to do asynchronous work"
JS_CALLBACK = "https://zapier.com/help/create/code-webhooks/use-javascript-code-in-zaps"
PY = "https://help.zapier.com/hc/en-us/articles/8496326417549-Use-Python-code-in-Zaps"
# "you may see old code examples using input which we changed to input_data to reduce confusion. Both work"
PY_OLD = "https://zapier.com/help/create/code-webhooks/use-python-code-in-zaps"
# "fetch: an HTTP request library (node-fetch)": a Response with ok, status, json(), text()
JS_FETCH = "https://help.zapier.com/hc/en-us/articles/8496310939021-Use-JavaScript-code-in-Zaps"
_FETCH_HEADERS = {"Accept": "*/*", "User-Agent": "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)"}
CLI_ACTION = "01929fad-d3dd-62c2-52ed-7868d5fcc691"  # the action id of Run Javascript in a gdpr_v1 Zapfile


def _js(code: str, inputs: dict[str, str] | None = None, action: str = CLI_ACTION) -> dict[str, object]:
    return {"type_of": "write", "selected_api": "CodeCLIAPI@1.0.1", "action": action,
            "params": {"code": code, "input": inputs or {}}}


def _py(code: str, inputs: dict[str, str] | None = None) -> dict[str, object]:
    return {"type_of": "write", "selected_api": "CodeAPI", "action": "run_python",
            "params": {"code": code, "input_data": inputs or {}}}


CASES: tuple[Case, ...] = (
    Case("Zapier's default code: an array runs the rest once per object", JS,
         _js("// this is wrapped in an `async` function\n// you can use await throughout the function\n\n"
             "output = [{id: 123, hello: \"world\"}];"), output=[{"id": 123, "hello": "world"}]),
    Case("input data values are strings", JS,
         _js("return {kind: typeof inputData.n, doubled: inputData.n + inputData.n};", {"n": "{{1__n}}"}),
         trigger={"n": 21}, output={"kind": "string", "doubled": "2121"}),
    Case("a returned object is the output, and await works", JS,
         _js("const v = await Promise.resolve(inputData.email.toLowerCase());\nreturn {email: v};",
             {"email": "{{1__email}}"}), trigger={"email": "Ana@Example.COM"}, output={"email": "ana@example.com"}),
    Case("an early return wins over output", JS, _js("output = {a: 1};\nif (true) { return {b: 2}; }"),
         output={"b": 2}),
    Case("callback(err, output) gives the output of asynchronous work", JS_CALLBACK,
         _js("setOutput();\nfunction setOutput() { callback(null, {done: inputData.id}); }", {"id": "{{1__id}}"}),
         trigger={"id": 7}, output={"done": "7"}),
    Case("Date is UTC on the run's clock", JS, _js("return {now: new Date().toISOString()};"),
         output={"now": "2024-05-01T12:00:00.000Z"}),
    Case("the validation step of a real Zapfile", JS,
         _js("const emailRegex = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;\nconst phoneRegex = /^\\d{10}$/;\n\n"
             "const emailValid = emailRegex.test(inputData.email);\nconst phoneValid = phoneRegex.test(inputData.phone);\n\n"
             "return {\n  emailValid,\n  phoneValid,\n  isValid: emailValid && phoneValid\n};",
             {"email": "{{1__email}}", "phone": "{{1__phone}}"}),
         trigger={"email": "ana@example.test", "phone": 5551234567},
         output={"emailValid": True, "phoneValid": True, "isValid": True}),
    Case("Python: output is a dictionary of strings from input_data", PY,
         _py("output = {'upper': input_data['name'].upper(), 'kind': type(input_data['n']).__name__}",
             {"name": "{{1__name}}", "n": "{{1__n}}"}), trigger={"name": "jane", "n": 3},
         output={"upper": "JANE", "kind": "str"}),
    Case("Python: a list of dictionaries runs the rest once per item", PY,
         _py("output = [{'word': w} for w in input_data['text'].split()]", {"text": "{{1__text}}"}),
         trigger={"text": "zap it"}, output=[{"word": "zap"}, {"word": "it"}]),
    Case("Python: the old name input still works", PY_OLD,
         _py("output = {'name': input['name']}", {"name": "{{1__name}}"}), trigger={"name": "Zap"},
         output={"name": "Zap"}),
    Case("Python: an early return is the output", PY, _py("return {'early': True}\noutput = {'late': True}"),
         output={"early": True}),
    Case("fetch: a GET whose JSON answer the code returns", JS_FETCH,
         _js("const res = await fetch('https://api.example.test/users/' + inputData.id);\n"
             "const user = await res.json();\nreturn {name: user.name, status: res.status, ok: res.ok};",
             {"id": "{{1__id}}"}),
         trigger={"id": 7}, replies=({"name": "Ada"},),
         requests=({"method": "GET", "url": "https://api.example.test/users/7", "headers": _FETCH_HEADERS},),
         output=[{"name": "Ada", "status": 200, "ok": True}]),
    Case("fetch: a POST of JSON text", JS_FETCH,
         _js("const res = await fetch('https://api.example.test/leads', {method: 'POST',\n"
             "  headers: {'Content-Type': 'application/json'}, body: JSON.stringify({email: inputData.email})});\n"
             "return {created: (await res.json()).id};", {"email": "{{1__email}}"}),
         trigger={"email": "ada@example.test"}, replies=({"id": "L1"},),
         requests=({"method": "POST", "url": "https://api.example.test/leads", "json": {"email": "ada@example.test"},
                    "headers": {**_FETCH_HEADERS, "Content-Type": "application/json"}},),
         output=[{"created": "L1"}]),
)

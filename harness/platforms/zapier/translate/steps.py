"""Translate one Zap step into lines of Python, with Zapier's semantics (``queue_core.compat.zapier``).

A translator gets the step, a ``ZapGen`` (providers, step names, the earlier step ids a field may
name) and returns a ``StepCode``: statements computing the step's output, and its expression,
``output`` (one) or ``outputs`` (a list: the rest of the Zap runs once per element, as after a
Code step returning an array, or inside Looping by Zapier). Filters and Paths are laid out by
``flow``; app steps go through the app catalogue (``apps``). A step with no translation raises
``zapier.TodoStep`` (``queue_core.errors.TodoModule``) when a run reaches it, naming it.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.zapier.definition import ZapStep
from harness.platforms.zapier.translate.fields import template, text_of
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, dict_of, lit, name, stmts
from harness.scaffold._credential import Credential
from harness.scaffold._provider import provider_for

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


# Zapier's own apps are also exported with a ``Zapier`` prefix (``ZapierFormatterCLIAPI@1.0.8``,
# ``ZapierLoopingCLIAPI@1.2.6``, as a shared Zap's page names them): the same built-in.
_OWN = {"Formatter", "Looping", "Storage", "Delay", "Filter", "Branching", "Schedule", "WebHook", "Code", "SubZap"}


def family(app: str) -> str:
    """Return an app's family: ``selected_api`` without version, CLI and API suffixes (``GoogleSheetsV2CLIAPI`` → ``GoogleSheets``)."""
    kin = re.sub(r"(V\d+)?(CLI|Dev)?API$", "", app.split("@", 1)[0]) or app
    return kin[6:] if kin.startswith("Zapier") and kin[6:] in _OWN else kin


@dataclass
class ZapGen:
    """What translating one Zap shares: providers by host, step names, what later steps read."""

    providers: dict[str, str]  # host -> provider name (the project's)
    steps: dict[str, str] = field(default_factory=dict)  # step id -> step name (steps that call)
    referenced: set[str] = field(default_factory=set)  # step ids some step's fields read
    automations: dict[str, str] = field(default_factory=dict)  # zap id -> automation (Sub-Zap calls)
    proposals: dict[str, str] = field(default_factory=dict)  # provider -> base URL to configure
    hosts: dict[str, str] = field(default_factory=dict)  # host (or app) -> provider, for the manifest
    credentials: list[Credential] = field(default_factory=list)
    functions: list[ast.stmt] = field(default_factory=list)  # inlined Python Code steps


@dataclass
class StepCode:
    """The translation of one step."""

    lines: list[ast.stmt]
    output: ast.expr | None = None
    outputs: ast.expr | None = None
    todo: str | None = None
    note: str = ""


def var(step: ZapStep) -> ast.Name:
    """Return the Python name of a step's current output."""
    return name(f"out_{re.sub(r'[^0-9A-Za-z_]', '_', step.id)}")


def todo(step: ZapStep, why: str) -> StepCode:
    """Return a TODO step: its code fails any run that reaches it, naming the step; its params kept, redacted."""
    lines = [_code.comment(f"TODO: {why}")]
    params = {k: v for k, v in step.params.items() if k != "code"}
    if params:
        text = json.dumps(_credential.redacted(params), indent=2, ensure_ascii=False)
        lines += [_code.comment(f"    {line}") for line in text.splitlines()[:30]]
    lines += stmts("raise zapier.TodoStep($label, $why)", label=step.label, why=why)
    return StepCode(lines, output=ast.Dict([], []), todo=why)


def unknown_params(step: ZapStep, known: set[str]) -> list[str]:
    """Return the step's params with a value that the translator does not read (sorted)."""
    return sorted(k for k, v in step.params.items() if k not in known and not k.startswith("_") and v not in (None, "", [], {}))


# -- Webhooks by Zapier ------------------------------------------------------------------------

_WEBHOOK_PARAMS = {"url", "data", "headers", "payload_type", "unflatten", "method", "params", "query", "basic_auth",
                   "wrap_in_array", "file"}


def _pairs(raw: Any, step: ZapStep, gen: ZapGen, provider: str, kind: str, known: set[str]) -> ast.expr | None:
    if not isinstance(raw, dict) or not raw:
        if raw not in (None, "", {}, []):
            raise Untranslatable(f"the {kind}s are not key/value pairs")
        return None
    kept: list[tuple[str, ast.expr]] = []
    for key, value in raw.items():
        if _credential.is_credential_name(key) and value not in (None, "") and isinstance(template(value, known), ast.Constant):
            found = _credential.found(value, name=str(key), kind=kind, provider=provider, where=f'step "{step.label}"')
            gen.credentials.append(found)
            if not found.bearer:
                kept.append((str(key), _credential.source(found)))
            continue
        kept.append((str(key), text_of(value, known)))
    return dict_of(kept) if kept else None


def webhook(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Webhooks by Zapier POST / PUT / GET / Custom Request: one ``ctx.call``; its output."""
    extra = unknown_params(step, _WEBHOOK_PARAMS)
    if extra:
        raise Untranslatable(f"params {', '.join(extra)} are not translated")
    if step.params.get("file") or str(step.params.get("wrap_in_array") or "no").lower() in ("yes", "true"):
        raise Untranslatable("a file upload or a body wrapped in an array is not translated")
    url = step.params.get("url")
    if not isinstance(url, str) or not url:
        raise Untranslatable("the step has no URL")
    provider, base, proposals = provider_for(url, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base.split("://", 1)[1].split(":")[0]] = provider
    method = str(step.params.get("method") or {"post": "POST", "put": "PUT", "get": "GET"}.get(step.action, "")).upper()
    if method not in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"):
        raise Untranslatable(f"method {method or '(none)'!r} is not translated")
    kwargs: dict[str, ast.expr] = {}
    headers = _pairs(step.params.get("headers"), step, gen, provider, "header", known)
    if headers is not None:
        kwargs["headers"] = headers
    query = _pairs(step.params.get("params") or step.params.get("query"), step, gen, provider, "query parameter", known)
    if query is not None:
        kwargs["params"] = query
    data = step.params.get("data")
    payload = str(step.params.get("payload_type") or ("raw" if step.action == "custom" else "form")).lower()
    if data not in (None, "", {}) and method not in ("GET", "HEAD"):
        if step.action == "custom" or payload == "raw":
            kwargs["content"] = text_of(data, known)
        elif not isinstance(data, dict):
            raise Untranslatable("the data is not key/value pairs")
        elif payload == "json":
            body = template(data, known)
            unflatten = str(step.params.get("unflatten") or "yes").lower() in ("yes", "true")
            kwargs["json"] = call("zapier.unflatten", body) if unflatten else body
        elif payload == "form":
            kwargs["data"] = dict_of((str(k), text_of(v, known)) for k, v in data.items())
        else:
            raise Untranslatable(f"payload type {payload!r} is not translated (json, form and raw are)")
    note = "basic auth: configure it on the provider (not copied)" if step.params.get("basic_auth") else ""
    lines = stmts("$var = await zapier.webhook(ctx, $provider, $method, $url, **$kwargs, step=$step)", var=var(step),
                  provider=provider, method=method, url=text_of(url, known), kwargs=kwargs, step=gen.steps[step.id])
    return StepCode(lines, output=var(step), note=note)


# -- Code by Zapier ----------------------------------------------------------------------------

def code_language(step: ZapStep) -> str | None:
    """Return ``javascript`` or ``python`` for a Code step (its action, else what its source is), or None."""
    if step.action in ("run_javascript", "javascript"):
        return "javascript"
    if step.action in ("run_python", "python"):
        return "python"
    source = step.params.get("code")
    if not isinstance(source, str) or not (_UUID.match(step.action) or not step.action):
        return None
    if "inputData" in source or re.search(r"\b(const|let|var|function)\b|=>|;\s*$", source, re.M):
        return "javascript"
    if "input_data" in source:
        return "python"
    return None


def _code_input(step: ZapStep, known: set[str]) -> ast.expr:
    raw = step.params.get("input") if "input" in step.params else step.params.get("input_data", {})
    if raw in (None, ""):
        raw = {}
    if not isinstance(raw, dict):
        raise Untranslatable("the input data is not key/value pairs")
    return dict_of((str(k), template(v, known)) for k, v in raw.items())


def code(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Code by Zapier: JavaScript in the n8n Code sandbox (``inputData``/``output``), Python inlined (``input_data``)."""
    language = code_language(step)
    source = step.params.get("code")
    if language is None or not isinstance(source, str):
        raise Untranslatable("the step's language cannot be told (its action is neither run_javascript nor run_python)")
    if language == "javascript":
        calls = sorted(set(re.findall(r"\b(require|StoreClient|z\.request)\s*\(", source)))
        if calls:
            raise Untranslatable(f"the code calls {', '.join(calls)}: write the request as a ctx.call to its provider")
        if fetches(step):
            secret = _LITERAL_SECRET.search(source)
            if secret:
                raise Untranslatable(f"the code's fetch holds a literal credential ({secret.group(1)}), which is "
                                     "never copied: configure it as the provider's secret and drop it from the code")
            lines = stmts("$var = await zapier.run_javascript_fetch(ctx, $label, $source, $input, step=$step)",
                          var=var(step), label=step.label, source=source, input=_code_input(step, known),
                          step=gen.steps[step.id])
            return StepCode(lines, outputs=var(step), note="JavaScript in the V8 sandbox; each fetch is a ctx.call to "
                            "the provider configured for its URL")
        lines = stmts("$var = zapier.run_javascript(ctx, $label, $source, $input)", var=var(step), label=step.label,
                      source=source, input=_code_input(step, known))
        return StepCode(lines, outputs=var(step), note="JavaScript, run unchanged in the V8 sandbox")
    return _python(step, gen, source, known)


# A credential written into the code (``"Authorization": "Api-Key …"``, ``apiKey: '…'``): not copied.
_LITERAL_SECRET = re.compile(r"""["']?([\w-]*(?:authorization|api[_-]?key|token|secret|password)[\w-]*)["']?\s*:\s*"""
                             r"""(?:["'][^"'\n]{6,}["']|`[^`$]{6,}`)""", re.I)


def fetches(step: ZapStep) -> bool:
    """Return whether a Code by Zapier JavaScript step calls ``fetch`` (its requests are then ``ctx.call``s)."""
    source = step.params.get("code")
    return isinstance(source, str) and code_language(step) == "javascript" and bool(re.search(r"\bfetch\s*\(", source))


def _python(step: ZapStep, gen: ZapGen, source: str, known: set[str]) -> StepCode:
    try:
        body = ast.parse(source).body
    except SyntaxError as exc:
        raise Untranslatable(f"the Python code does not parse ({exc.msg}, line {exc.lineno})") from None
    imported = {a.name.split(".")[0] for n in ast.walk(ast.Module(body, [])) if isinstance(n, ast.Import | ast.ImportFrom)
                for a in (n.names if isinstance(n, ast.Import) else [ast.alias(n.module or "")])}
    calls = sorted(imported & {"requests", "urllib", "http", "socket", "subprocess", "os", "StoreClient"})
    if calls or re.search(r"\b(requests|StoreClient)\.", source):
        raise Untranslatable(f"the code uses {', '.join(calls) or 'requests'}: write the request as a ctx.call to its provider")
    if re.search(r"\binput\s*(\[|\.get\b)", source):  # the old name of input_data: "both work" (Zapier's help)
        body = stmts("input = input_data") + body
    function = f"code_{re.sub(r'[^0-9A-Za-z_]', '_', step.id)}"
    gen.functions += stmts("def $function(input_data: dict[str, str]) -> Any:\n    $doc\n    output: Any = {}\n"
                           "    $body\n    return output", function=name(function),
                           doc=ast.Expr(ast.Constant(f"Code by Zapier {step.label!r} (Python, inlined)")), body=body)
    lines = stmts("$var = zapier.outputs($function(zapier.input_data($input)), $label)", var=var(step),
                  function=name(function), input=_code_input(step, known), label=step.label)
    return StepCode(lines, outputs=var(step), note="Python, inlined")


# -- Delay, Looping, Storage, Formatter --------------------------------------------------------

def _param(step: ZapStep, *names: str) -> Any:
    return next((step.params[n] for n in names if step.params.get(n) not in (None, "")), None)


def delay(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Delay by Zapier: Delay For (a durable ``ctx.sleep``) and Delay Until (``ctx.sleep_until``)."""
    if step.id in gen.referenced:
        raise Untranslatable("a later step reads the Delay's output, which Zapier does not document")
    if step.action == "delay_for":
        value = _param(step, "time_delay_for_value", "delay_for_value", "value")
        unit = _param(step, "time_delay_for_unit", "delay_for_unit", "unit")
        if value is None or not isinstance(unit, str):
            raise Untranslatable(f"Delay For's value and unit are not among its params ({', '.join(step.params)})")
        lines = stmts("$var = await zapier.delay_for(ctx, $value, $unit)", var=var(step), value=template(value, known),
                      unit=unit)
    elif step.action == "delay_until":
        when = _param(step, "delay_until", "date", "time")
        if when is None:
            raise Untranslatable(f"Delay Until's date is not among its params ({', '.join(step.params)})")
        lines = stmts("$var = await zapier.delay_until(ctx, $when)", var=var(step), when=template(when, known))
    else:
        raise Untranslatable(f"Delay by Zapier {step.action!r} (a queue shared by Zaps) is not translated")
    return StepCode(lines, output=var(step), note="a durable wait (no worker held)")


def looping(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Looping by Zapier over line items: the rest of the Zap runs once per position of its values."""
    values = step.params.get("values")
    if not isinstance(values, dict) or not values:
        raise Untranslatable(f"the loop's values are not among its params ({', '.join(step.params)})")
    lines = stmts("$var = zapier.loop_outputs($values)", var=var(step), values=template(values, known))
    return StepCode(lines, outputs=var(step), note="the rest of the Zap runs once per iteration")


_STORAGE = {"set_value": "record.set", "get_value": "record.get", "remove_value": "record.remove"}


def storage(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Storage by Zapier: its REST API as a provider (recorded and replayed in shadow)."""
    from harness import catalogue

    if step.action not in _STORAGE:
        raise Untranslatable(f"Storage by Zapier {step.action!r} is not translated (set, get and remove values are); "
                             f"the call: {catalogue.skeleton('zapier-storage', 'record.get')}")
    app = catalogue.app("zapier-storage")
    gen.hosts["Storage by Zapier"] = app.provider
    gen.proposals.setdefault(app.provider, app.base_url)
    value = template(step.params.get("value"), known) if step.action == "set_value" else lit(None)
    lines = stmts("$var = await zapier.storage(ctx, $provider, $action, step=$step, key=$key, value=$value)",
                  var=var(step), provider=app.provider, action=step.action, step=gen.steps[step.id],
                  key=template(step.params.get("key"), known), value=value)
    return StepCode(lines, output=var(step), note="the provider's secret: X-Secret from $ZAPIER_STORAGE_SECRET")


def formatter_key(step: ZapStep) -> str:
    """Return a Formatter step's transform as ``formatter_proved.json`` keys it: ``"%s:%s" % canonical(...)``
    of the Zapfile's own spelling (``string`` / ``string.replace`` → ``text:replace``)."""
    from queue_core.compat._zapier_formatter import canonical

    return "%s:%s" % canonical(step.action, str(step.params.get("transform") or ""))


def formatter(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Formatter by Zapier: ``zapier.formatter(action, params)`` (the ``_zapier_formatter`` runtime), for
    every (action, transform) its ``SUPPORTED`` holds, in the Zapfile's own spelling."""
    from queue_core.compat._zapier_formatter import SUPPORTED

    transform = str(step.params.get("transform") or "")
    if not transform:
        raise Untranslatable(f"the Formatter step names no transform (params: {', '.join(step.params) or 'none'})")
    if (step.action, transform) not in SUPPORTED:
        raise Untranslatable(f"Formatter {step.action} transform {transform!r} ({formatter_key(step)}) is not "
                             "implemented by the runtime (queue_core.compat._zapier_formatter.SUPPORTED)")
    lines = stmts("$var = zapier.formatter($action, $params)", var=var(step), action=step.action,
                  params=template(step.params, known))
    return StepCode(lines, output=var(step), note=f"Formatter {formatter_key(step)}")


def sub_zap(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Sub-Zap by Zapier: Call a Sub-Zap (a child job of its automation), Return from a Sub-Zap."""
    if step.action == "return":
        value = template(step.params.get("data", step.params.get("output", {})), known)
        return StepCode(stmts("$var = await zapier.sub_return(ctx, $value)", var=var(step), value=value),
                        output=var(step), note="returns to the calling Zap")
    if step.action != "call":
        raise Untranslatable(f"Sub-Zap action {step.action!r} is not translated")
    target = str(_param(step, "zap_id", "subzap", "zap") or "")
    automation = gen.automations.get(target)
    if automation is None:
        raise Untranslatable(f"the Sub-Zap it calls ({target or 'not named'}) is not a Zap of this estate")
    data = step.params.get("data", {})
    lines = stmts("$var = await zapier.sub_call(ctx, $automation, $data, key=$step)", var=var(step),
                  automation=automation, data=template(data, known), step=gen.steps[step.id])
    return StepCode(lines, output=var(step), note=f"a child job of {automation}")


Translator = Callable[[ZapStep, ZapGen, set[str]], StepCode]
BUILTINS: dict[str, Translator] = {"WebHook": webhook, "Code": code, "Delay": delay, "Looping": looping,
                                   "Storage": storage, "Formatter": formatter, "SubZap": sub_zap}
LOGIC = {"Filter", "Branching", "Code", "Formatter", "Looping", "Delay", "Schedule"}  # no call the importer names


def makes_call(step: ZapStep) -> bool:
    """Return whether the generated step makes a ``ctx.call`` (or a child job) the trace names by step."""
    kin = family(step.app)
    if step.kind in ("trigger", "filter", "branch", "path"):
        return False
    if kin == "SubZap":
        return step.action == "call"
    if kin == "Code":
        return fetches(step)
    return kin not in LOGIC

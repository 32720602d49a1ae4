"""Asana v1 (tasks and subtasks) as n8n's Asana node calls Asana's REST API.

n8n sends every write's fields wrapped in ``{"data": …}`` (``asanaApiRequest``), and outputs the
answer's ``data`` as one item. *Task create* is ``POST /tasks`` with the name, the workspace and
the other properties as they are (``Object.assign``); *subtask create* is
``POST /tasks/<task>/subtasks`` with the name and the other properties.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code

_ITEMS = _code.expr("n8n.data_items(response)")


def _settings(node: Node) -> dict[str, Any]:
    return node.settings if node.described else node.parameters


def _fields(node: Node, first: list[tuple[str, Any]]) -> ast.expr:
    other = _settings(node).get("otherProperties") or {}
    return _code.expr("{'data': $first | $other}", first=ast.Dict([ast.Constant(k) for k, _ in first],
                                                                       [expr.value(v) for _, v in first]),
                      other=expr.value(other))


def asana_task(node: Node) -> Request:
    """task.create: ``{data: {name, workspace, ...otherProperties}}``."""
    params = _settings(node)
    return Request(body=_fields(node, [("name", params.get("name", "")), ("workspace", params.get("workspace", ""))]),
                   items=_ITEMS)


def asana_subtask(node: Node) -> Request:
    """subtask.create: ``{data: {name, ...otherProperties}}`` to the parent task's subtasks."""
    return Request(body=_fields(node, [("name", _settings(node).get("name", ""))]), items=_ITEMS)


# -- GitHub v1 (user invite) and Google Drive v3 (folder create) ------------------------------

def github_invite(node: Node) -> Request:
    """user.invite: ``POST /orgs/<organization>/invitations`` with the email; GitHub's answer is the item."""
    return Request(body=_code.expr("{'email': $e}", e=expr.value(_settings(node).get("email", ""))))


_DRIVE_ROOT, _MY_DRIVE = "root", "My Drive"  # n8n's RLC_FOLDER_DEFAULT, RLC_DRIVE_DEFAULT


def _value(raw: Any) -> Any:
    return raw.get("value") if isinstance(raw, dict) else raw


def drive_folder(node: Node) -> Request:
    """folder.create (v3): the name ('Untitled' when empty), the folder mime type and the parent n8n picks."""
    from harness.errors import Untranslatable

    params = _settings(node)
    for key in ("driveId", "folderId"):
        raw = params.get(key)
        if isinstance(raw, dict) and raw.get("mode") == "url":
            raise Untranslatable(f"the Drive {key} is given by URL: give its id")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - {"folderColorRgb", "simplifyOutput"})
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: folderColorRgb, simplifyOutput)")
    body = _code.expr("n8n.drive_folder_body($name, $folder, $drive, $color)",
                      name=expr.value(params.get("name", "")), folder=expr.value(_value(params.get("folderId", _DRIVE_ROOT))),
                      drive=expr.value(_value(params.get("driveId", _MY_DRIVE))),
                      color=expr.value(options.get("folderColorRgb", "")))
    simplify = options.get("simplifyOutput", True)
    query = _code.expr("n8n.truthy_fields({'fields': None if n8n.truthy($s) else '*'}) | $rest", s=expr.value(simplify),
                       rest=ast.Dict([ast.Constant(k) for k in ("includeItemsFromAllDrives", "supportsAllDrives",
                                                                "spaces", "corpora")],
                                     [ast.Constant(v) for v in ("true", "true", "appDataFolder, drive", "allDrives")]))
    return Request(body=body, query=query)


def _locator_value(params: dict[str, Any], key: str) -> ast.expr:
    from harness.errors import Untranslatable

    raw = params.get(key)
    if isinstance(raw, dict) and raw.get("mode") == "url":
        raise Untranslatable(f"the GitHub {key} is given by URL (resource locator mode 'url'): give its name")
    value = _value(raw)
    if value in (None, ""):
        raise Untranslatable(f"the GitHub {key} is not set")
    return expr.value(value)


def github_file(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """file.create / file.edit: ``PUT /repos/<owner>/<repo>/contents/<path>`` with the commit message and
    the content base64-encoded (as it is when it already is base64, as n8n does; with binaryData the item's
    binary property's base64 ``data``, n8n's failure when the item has none); an edit first reads the
    file's ``sha`` (``GET`` the same path, ``encodeURI``'d, at the branch when one is set)."""
    from harness.errors import Untranslatable
    from harness.scaffold._code import call, name, stmts

    params = _settings(node)
    operation = str(params.get("operation") or "create")
    # binaryData: the item's binary property is the content, sent as n8n keeps it (base64, what GitHub takes)
    content: ast.expr = call("n8n.github_content", expr.value(params.get("fileContent", "")))
    if params.get("binaryData"):
        content = ast.Subscript(call("n8n.binary_of", name("item"), expr.value(params.get("binaryPropertyName", "data")),
                                     name("i"), node.name), ast.Constant("data"), ast.Load())
    extra = dict(params.get("additionalParameters") or {})
    unknown = sorted(set(extra) - {"author", "committer", "branch"})
    if unknown:
        raise Untranslatable(f"additionalParameters.{unknown[0]} is not translated (translated: author, branch, committer)")
    first: list[tuple[str, ast.expr]] = []
    for key in ("author", "committer"):
        if extra.get(key):
            first.append((key, expr.value(extra[key])))
    branch = (extra.get("branch") or {}).get("branch") if isinstance(extra.get("branch"), dict) else None
    if branch:
        first.append(("branch", expr.value(branch)))
    base = _code.expr("n8n.concat('https://api.github.com/repos/', $owner, '/', $repo, '/contents/')",
                      owner=_locator_value(params, "owner"), repo=_locator_value(params, "repository"))
    sha = """
        answer = await ctx.call($provider, 'GET', n8n.concat(base, n8n.encode_uri(path)), params=({'ref': body['branch']} if 'branch' in body else None), step=$step)
        body['sha'] = n8n.github_sha(answer, $node)""" if operation == "edit" else ""
    return stmts(f"""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    path = n8n.text($path).removesuffix('/')
    base = $base
    body = $first{sha}
    body['message'] = $message
    body['content'] = $content
    response = await ctx.call($provider, 'PUT', n8n.concat(base, n8n.encode_uri_component(path)), json=body, step=$step)
    $var.extend(n8n.response_items(response))
if items:
    flow.emit($node, $var)
""".replace("\n        answer", "\n    answer").replace("\n        body['sha']", "\n    body['sha']"),
        inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), path=expr.value(params.get("filePath", "")),
        base=base, first=ast.Dict([ast.Constant(k) for k, _ in first], [v for _, v in first]),
        message=expr.value(params.get("commitMessage", "")), content=content,
        provider=provider, step=slot.step, node=node.name)


def drive_upload(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """file.upload (v3): the item's binary property as a multipart/related upload, then the PATCH of its name,
    MIME type and original file name (``n8n.drive_upload``); the PATCH's answer is the item."""
    from harness.errors import Untranslatable
    from harness.scaffold._code import name, stmts

    params = _settings(node)
    for key in ("driveId", "folderId"):
        raw = params.get(key)
        if isinstance(raw, dict) and raw.get("mode") == "url":
            raise Untranslatable(f"the Drive {key} is given by URL: give its id")
    options = dict(params.get("options") or {})
    known = {"keepRevisionForever", "ocrLanguage", "useContentAsIndexableText", "simplifyOutput"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(known))})")
    return stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    $var.extend(await n8n.drive_upload(ctx, $provider, item, i, prop=$prop, name=$name, folder=$folder, drive=$drive, options=$options, step=$step, node=$node))
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
        prop=expr.value(params.get("inputDataFieldName", "data")), name=expr.value(params.get("name", "")),
        folder=expr.value(_value(params.get("folderId", _DRIVE_ROOT))), drive=expr.value(_value(params.get("driveId", _MY_DRIVE))),
        options=expr.value(options), step=slot.step, node=node.name)

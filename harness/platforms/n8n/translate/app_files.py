"""App operations that carry an item's binary data, as n8n's nodes do (``queue_core.compat._n8n_binary``).

Telegram's uploads (sendAudio, sendDocument with *Binary File*) send the item's binary property as a
multipart form with the chat id and the additional fields as text parts (``n8n.telegram_form``,
``n8n.telegram_part``); file.get with *Download* calls ``getFile`` and then fetches the file into the
item's binary ``data`` (``n8n.telegram_download``). The bot token is the gateway's path placeholder,
as for every Telegram call. The proof of these is the shadow run (app operations as REST calls).
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_message import SECRET_SEGMENT, telegram_binary
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold._code import dict_of, name, stmts

TELEGRAM = "https://api.telegram.org"  # the catalogue's base URL of the telegram app


def _settings(node: Node) -> dict[str, Any]:
    return node.settings if node.described else node.parameters


def telegram_upload(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """sendAudio / sendDocument with Binary File: ``POST /bot<token>/<operation>`` as a multipart form whose file
    part (``audio``, ``document``) is the item's binary property; without Binary File, the catalogue's TODO."""
    params = _settings(node)
    operation = str(params.get("operation") or "sendAudio")
    if not params.get("binaryData"):
        telegram_binary(node)  # raises the precise TODO of a file id or URL
    if params.get("replyMarkup", "none") not in ("none", None):
        raise Untranslatable("a reply keyboard (replyMarkup) is not translated")
    fields = dict(params.get("additionalFields") or {})
    nested = sorted(k for k, v in fields.items() if isinstance(v, dict | list))
    if nested:
        raise Untranslatable(f"additionalFields.{nested[0]} is not a text field of the form: not translated")
    part = operation.replace("send", "", 1).lower()
    return stmts(f"""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    part = n8n.telegram_part(item, $prop, i, $file_name, $operation, $node, ctx)
    response = await ctx.call($provider, 'POST', $url, data=n8n.telegram_form($chat, $fields), files={{$part: part}}, step=$step)
    $var.extend(n8n.response_items(response))
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), prop=expr.value(params.get("binaryPropertyName", "data")),
        file_name=expr.value(fields.get("fileName", "")), operation=operation, node=node.name, provider=provider,
        url=f"{TELEGRAM}/bot{SECRET_SEGMENT}/{operation}", chat=expr.value(params.get("chatId", "")),
        fields=dict_of([(k, expr.value(v)) for k, v in fields.items()]), part=part, step=slot.step)


def telegram_file_get(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """file.get: ``getFile`` with the file id (its answer is the item); with Download (n8n's default), then
    ``GET /file/bot<token>/<file_path>`` into the item's binary ``data``."""
    params = _settings(node)
    fields = dict(params.get("additionalFields") or {})
    fetch = ("$var.extend(await n8n.telegram_download(ctx, $provider, response, $base, mime=$mime, step=$step, "
             "node=$node))") if params.get("download", True) else "$var.extend(n8n.response_items(response))"
    return stmts(f"""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    response = await ctx.call($provider, 'POST', $url, json={{'file_id': $file_id}}, step=$step)
    {fetch}
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
        url=f"{TELEGRAM}/bot{SECRET_SEGMENT}/getFile", file_id=expr.value(params.get("fileId", "")), base=TELEGRAM,
        mime=expr.value(fields.get("mimeType", "")), step=slot.step, node=node.name)

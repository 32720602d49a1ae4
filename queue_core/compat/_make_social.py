"""The runtime of Make's social and messaging modules whose call is more than one request (``make.social``).

- Instagram for Business, Create a photo post: a media container (``POST /{account}/media``), then
  its publication (``POST /{account}/media_publish`` with ``creation_id``); Make outputs the
  published media's ``id``.
- Facebook Pages, Create a post with photos: each photo unpublished (``POST /{page}/photos``,
  ``published=false``, from its URL or uploaded), then the post with them as ``attached_media``
  (``POST /{page}/feed``); Make outputs the post's ``id``.
- Discord, Create a message with files: a multipart form of ``payload_json`` and ``files[n]``.

In a shadow replay the first call is answered with the module's recorded bundle
(``X-Cutover-Recorded``): it is the output, and no second call is made (the legacy run made one
module call).
"""

from __future__ import annotations

import json as jsonlib
import mimetypes
from typing import Any

from ..errors import ModuleFailed
from ._make_apps import _body, compact, recorded
from ._make_filter import text

__all__ = ["discord_message", "facebook_photos_post", "instagram_photo"]


async def instagram_photo(ctx: Any, provider: str, media_url: str, publish_url: str, *, step: str, json: Any) -> Any:
    """Create an Instagram photo container and publish it; return ``{"id": <media id>}``."""
    response = await ctx.call(provider, "POST", media_url, step=step, json=compact(json))
    container = _body(response, step)
    if recorded(response):
        return container
    if not isinstance(container, dict) or not container.get("id"):
        raise ModuleFailed(f"step {step!r}: Instagram returned no media container id ({text(container)[:200]})")
    published = await ctx.call(provider, "POST", publish_url, step=step, json={"creation_id": container["id"]})
    body = _body(published, step)
    return {"id": body.get("id")} if isinstance(body, dict) else {"value": body}


def _bytes(data: Any, step: str) -> bytes:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    if isinstance(data, str):
        return data.encode("utf-8")
    raise ModuleFailed(f"step {step!r}: a file's data is {type(data).__name__}, not binary data")


async def discord_message(ctx: Any, provider: str, url: str, *, step: str, json: Any, files: Any = ()) -> Any:
    """Create a Discord message (JSON, or with files a multipart form); return the message it answers."""
    payload = compact(json)
    parts = [f for f in files or [] if isinstance(f, dict) and f.get("data") not in (None, "")]
    if not parts:
        response = await ctx.call(provider, "POST", url, step=step, json=payload)
    else:
        uploads = {}
        for n, part in enumerate(parts):
            filename = text(part.get("filename")) or f"file{n}"
            mime = mimetypes.guess_type(filename)[0] or "application/octet-stream"
            uploads[f"files[{n}]"] = (filename, _bytes(part["data"], step), mime)
        response = await ctx.call(provider, "POST", url, step=step, data={"payload_json": jsonlib.dumps(payload)},
                                  files=uploads)
    body = _body(response, step)
    return body if isinstance(body, dict) else {"value": body}


async def facebook_photos_post(ctx: Any, provider: str, photos_url: str, feed_url: str, *, step: str, photos: Any,
                               message: Any = None) -> Any:
    """Publish a Page post with photos: each photo unpublished, then the post attaching them; return ``{"id": …}``."""
    media = []
    for n, photo in enumerate(photos if isinstance(photos, list) else []):
        if not isinstance(photo, dict):
            continue
        fields = compact({"caption": photo.get("caption"), "published": False})
        if photo.get("type", "data") == "url":
            response = await ctx.call(provider, "POST", photos_url, step=step, json={"url": text(photo.get("url")), **fields})
        else:
            name = text(photo.get("fileName")) or f"photo{n}"
            mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
            response = await ctx.call(provider, "POST", photos_url, step=step,
                                      data={k: text(v) for k, v in fields.items()},
                                      files={"source": (name, _bytes(photo.get("data"), step), mime)})
        body = _body(response, step)
        if recorded(response):
            return body
        if not isinstance(body, dict) or not body.get("id"):
            raise ModuleFailed(f"step {step!r}: Facebook returned no photo id ({text(body)[:200]})")
        media.append({"media_fbid": body["id"]})
    if not media:
        raise ModuleFailed(f"step {step!r}: the post has no photo")
    posted = await ctx.call(provider, "POST", feed_url, step=step,
                            json=compact({"message": message, "attached_media": media}))
    body = _body(posted, step)
    return {"id": body.get("id")} if isinstance(body, dict) else {"value": body}

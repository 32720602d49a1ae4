"""GitHub v1 user invite and file create/edit, Google Drive v3 folder create: the calls n8n makes (respx)."""

from __future__ import annotations

import base64
from urllib.parse import parse_qsl, urlsplit

import httpx
import respx

from queue_core.compat import n8n
from tests.support.app_calls import run_node, scaffold_node

BASES = {"github": "https://api.github.com", "google-drive": "https://www.googleapis.com"}
REPO = {"__rl": True, "mode": "list", "value": "repo"}
OWNER = {"__rl": True, "mode": "list", "value": "ada"}


def _github(operation: str, **params: object) -> dict[str, object]:
    return {"name": "Git", "type": "n8n-nodes-base.github", "typeVersion": 1.1, "parameters": {
        "authentication": "oAuth2", "operation": operation, **params}}


@respx.mock
def test_user_invite_posts_the_email_to_the_organization_s_invitations() -> None:
    respx.post("https://api.github.com/orgs/acme/invitations").mock(return_value=httpx.Response(201, json={"id": 5}))
    ctx, out, error = run_node(_github("invite", resource="user", organization="acme", email="={{ $json.email }}"),
                               [{"email": "ada@x.test"}], BASES)
    assert error is None and ctx.sent[0][3] == {"email": "ada@x.test"} and out == [{"id": 5}]


@respx.mock
def test_file_create_puts_base64_content_at_the_encoded_path_and_edit_reads_the_sha_first() -> None:
    respx.put("https://api.github.com/repos/ada/repo/contents/backups%2Fwf.json").mock(
        return_value=httpx.Response(201, json={"content": {"sha": "new"}}))
    respx.get("https://api.github.com/repos/ada/repo/contents/backups/wf.json").mock(
        return_value=httpx.Response(200, json={"sha": "old"}))
    params = {"resource": "file", "owner": OWNER, "repository": REPO, "filePath": "backups/wf.json/",
              "fileContent": "={{ $json.text }}", "commitMessage": "backup"}
    ctx, out, error = run_node(_github("create", **params), [{"text": "héllo"}], BASES)
    assert error is None and out == [{"content": {"sha": "new"}}]
    assert ctx.sent[0][3] == {"message": "backup", "content": base64.b64encode("héllo".encode()).decode()}
    ctx, _, error = run_node(_github("edit", additionalParameters={"branch": {"branch": "main"}}, **params),
                             [{"text": "aGk="}], BASES)
    assert error is None and [s[1] for s in ctx.sent] == ["GET", "PUT"]
    assert parse_qsl(urlsplit(ctx.sent[0][2]).query) == [("ref", "main")]
    assert ctx.sent[1][3] == {"branch": "main", "sha": "old", "message": "backup", "content": "aGk="}


@respx.mock
def test_a_binary_file_is_the_items_binary_property_sent_as_its_base64_data() -> None:
    respx.put("https://api.github.com/repos/ada/repo/contents/a.bin").mock(
        return_value=httpx.Response(201, json={"content": {"sha": "new"}}))
    node = _github("create", resource="file", owner=OWNER, repository=REPO, filePath="a.bin", commitMessage="m",
                   binaryData=True, binaryPropertyName="=file")
    data = base64.b64encode(b"\x00\xffbytes").decode()
    ctx, out, error = run_node(node, [{"json": {}, "binary": {"file": {"data": data, "mimeType": "x/y"}}}], BASES)
    assert error is None and ctx.sent[0][3] == {"message": "m", "content": data}
    _, _, error = run_node(node, [{"json": {}}], BASES)
    assert error is not None and "contain a binary file 'file', but none was found [item 0]" in str(error)


@respx.mock
def test_drive_folder_create_posts_n8n_s_body_and_query() -> None:
    respx.post("https://www.googleapis.com/drive/v3/files").mock(return_value=httpx.Response(200, json={"id": "f1"}))
    node = {"name": "Folder", "type": "n8n-nodes-base.googleDrive", "typeVersion": 3, "parameters": {
        "resource": "folder", "name": "={{ $json.name }}", "driveId": {"mode": "list", "value": "D1"},
        "folderId": {"mode": "list", "value": "root"}, "options": {}}}
    ctx, out, error = run_node(node, [{"name": ""}], BASES)
    assert error is None and out == [{"id": "f1"}]
    assert ctx.sent[0][3] == {"name": "Untitled", "mimeType": "application/vnd.google-apps.folder", "parents": ["D1"]}
    assert parse_qsl(urlsplit(ctx.sent[0][2]).query) == [
        ("includeItemsFromAllDrives", "true"), ("supportsAllDrives", "true"), ("spaces", "appDataFolder, drive"),
        ("corpora", "allDrives")]
    assert n8n.drive_folder_body("x", "F9", "D1", "")["parents"] == ["F9"]
    assert n8n.drive_folder_body("x", "root", "My Drive", "#fff") == {
        "name": "x", "mimeType": "application/vnd.google-apps.folder", "parents": ["root"], "folderColorRgb": "#fff"}


@respx.mock
def test_drive_upload_sends_the_items_binary_as_multipart_related_then_patches_its_name() -> None:
    upload = respx.post("https://www.googleapis.com/upload/drive/v3/files").mock(
        return_value=httpx.Response(200, json={"id": "F9"}))
    patch = respx.patch("https://www.googleapis.com/drive/v3/files/F9").mock(
        return_value=httpx.Response(200, json={"id": "F9", "name": "clip.mp4"}))
    node = {"name": "Up", "type": "n8n-nodes-base.googleDrive", "typeVersion": 3, "parameters": {
        "name": "={{ $json.title }}", "driveId": {"__rl": True, "mode": "list", "value": "My Drive"},
        "folderId": {"__rl": True, "mode": "list", "value": "FOLDER1"}, "options": {}}}
    video = {"data": base64.b64encode(b"\x00\x00\x00\x18ftyp").decode(), "mimeType": "video/mp4", "fileName": "v.mp4"}
    ctx, out, error = run_node(node, [{"json": {"title": "clip.mp4"}, "binary": {"data": video}}], BASES)
    assert error is None and out == [{"id": "F9", "name": "clip.mp4"}]
    sent = upload.calls.last.request
    assert sent.headers["content-type"].startswith("multipart/related; boundary=")
    assert dict(parse_qsl(sent.url.query.decode())) == {"uploadType": "multipart", "supportsAllDrives": "true"}
    assert b'Content-Type: application/json\r\n\r\n{"name":"clip.mp4","parents":["FOLDER1"]}' in sent.content
    assert b'name="data"\r\nContent-Type: video/mp4\r\n\r\n\x00\x00\x00\x18ftyp' in sent.content
    assert ctx.sent[1][3] == {"mimeType": "video/mp4", "name": "clip.mp4", "originalFilename": "v.mp4"}
    query = dict(parse_qsl(patch.calls.last.request.url.query.decode()))
    assert query["addParents"] == "FOLDER1" and query["fields"] == "*" and query["corpora"] == "allDrives"

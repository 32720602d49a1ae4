"""Catalogue rows the Zapier translator reads (``harness.platforms.zapier.translate.apps``).

Slack's ``chat.postMessage`` with the fields Zapier's Slack steps set besides channel and text
(bot name and icon, link unfurling, @-name linking: https://api.slack.com/methods/chat.postMessage),
Todoist's REST v2 task creation (https://developer.todoist.com/rest/v2/#create-a-new-task) and
Storage by Zapier's REST API (``store.zapier.com/api/records``, its secret key in ``X-Secret``,
as Zapier's Storage help describes it).
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret


def _app(name: str, provider: str, base_url: str, secret: Secret | None, *operations: Operation) -> App:
    return App(name, provider, base_url, secret, {op.name: op for op in operations})


ZAPIER_ROWS: tuple[App, ...] = (
    _app("slack", "slack", "https://slack.com", Secret(Auth.BEARER, "SLACK_TOKEN", what="a Slack bot token"),
         Operation("message.postAs", "POST", "/api/chat.postMessage",
                   body=("channel", "text", "username", "icon_emoji", "icon_url", "unfurl_links", "link_names",
                         "thread_ts", "reply_broadcast"))),
    _app("todoist", "todoist", "https://api.todoist.com",
         Secret(Auth.BEARER, "TODOIST_TOKEN", what="a Todoist API token"),
         Operation("task.create", "POST", "/rest/v2/tasks",
                   body=("content", "description", "project_id", "labels", "priority", "due_string"),
                   note="REST v2 labels are names (Zapier's Todoist steps hold label ids); a note is a comment "
                        "(POST /rest/v2/comments {task_id, content})")),
    _app("zapier-storage", "zapier-storage", "https://store.zapier.com",
         Secret(Auth.HEADER, "ZAPIER_STORAGE_SECRET", name="X-Secret", what="the Storage by Zapier secret key"),
         Operation("record.set", "POST", "/api/records", body=("key", "value")),
         Operation("record.get", "GET", "/api/records", query=("key",)),
         Operation("record.remove", "DELETE", "/api/records", body=("key",))),
)

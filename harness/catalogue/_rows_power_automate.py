"""Catalogue rows the Power Automate translator reads: the Microsoft Graph calls its connector actions make.

Office 365 Outlook's "Send an email (V2)" is Graph's sendMail (learn.microsoft.com/graph/api/user-sendmail),
Teams' "Post message in a chat or channel" as the user in a channel is Graph's channel message
(learn.microsoft.com/graph/api/channel-post-messages), Teams' "Add a member to a team" Graph's team member
(learn.microsoft.com/graph/api/team-post-members), and the Outlook connector's ``/codeless/v1.0/``
operations proxy Graph (a message deleted: learn.microsoft.com/graph/api/message-delete); Office 365 Users'
"Get user profile (V2)", "Get manager (V2)" and "Get my profile (V2)" are Graph's user (learn.microsoft.com/graph/api/user-get,
learn.microsoft.com/graph/api/user-list-manager). The token is the
signed-in user's (delegated), as the connection's was.
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret

_GRAPH_TOKEN = Secret(Auth.BEARER, "MICROSOFT_GRAPH_TOKEN", what="a Microsoft Graph access token (delegated, the "
                                                              "user the flow's connection signed in as)")

POWER_AUTOMATE: tuple[App, ...] = (
    App("microsoft-graph", "graph", "https://graph.microsoft.com", _GRAPH_TOKEN, {
        "mail.send": Operation("mail.send", "POST", "/v1.0/me/sendMail", body=("message", "saveToSentItems"),
                               note="202 with no body"),
        "message.delete": Operation("message.delete", "DELETE", "/v1.0/me/messages/{id}"),
        "channelMessage.create": Operation("channelMessage.create", "POST",
                                           "/v1.0/teams/{team}/channels/{channel}/messages", body=("body", "subject")),
        "chatMessage.create": Operation("chatMessage.create", "POST", "/v1.0/chats/{chat}/messages", body=("body",),
                                        note="Teams' posts as the user in a group chat (learn.microsoft.com/graph/api/"
                                             "chat-post-messages)"),
        "teamMember.add": Operation("teamMember.add", "POST", "/v1.0/teams/{team}/members",
                                    body=("@odata.type", "roles", "user@odata.bind"), note="201 with the member"),
        "user.get": Operation("user.get", "GET", "/v1.0/users/{id}", query=("$select",),
                              note="Office 365 Users' Get user profile (V2): the user by UPN or id"),
        "user.manager": Operation("user.manager", "GET", "/v1.0/users/{id}/manager", query=("$select",),
                                  note="Office 365 Users' Get manager (V2); 404 when none is set"),
        "me.get": Operation("me.get", "GET", "/v1.0/me", query=("$select",),
                            note="Office 365 Users' Get my profile (V2): the connection's user"),
        "request": Operation("request", "GET", "/{path}", note="any Graph call (Office 365 Groups' Send an HTTP "
                                                             "request): the method and body as the action gives them"),
    }),
)

"""More catalogue rows: apps n8n estates use that no translator fills in yet (the call and its secret).

Google Calendar, WhatsApp (Cloud API), Reddit, YouTube and X (Twitter v2): the URLs n8n's own nodes
call. n8n's nodes for them stay untranslated: their descriptions are not among those the
translator reads (``harness/platforms/n8n/descriptions``), so their parameter defaults are unknown
here; the Make and Zapier translators, or a later n8n one, read these rows.
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret


def _app(name: str, provider: str, base_url: str, secret: Secret | None, *operations: Operation) -> App:
    return App(name, provider, base_url, secret, {op.name: op for op in operations})


MORE: tuple[App, ...] = (
    _app("google-calendar", "google-calendar", "https://www.googleapis.com",
         Secret(Auth.BEARER, "GOOGLE_CALENDAR_TOKEN", what="a Google OAuth access token"),
         Operation("event.create", "POST", "/calendar/v3/calendars/{calendar}/events",
                   body=("summary", "description", "location", "start", "end", "attendees"),
                   query=("conferenceDataVersion", "maxAttendees", "sendNotifications", "sendUpdates"))),
    _app("whatsapp", "whatsapp", "https://graph.facebook.com",
         Secret(Auth.BEARER, "WHATSAPP_TOKEN", what="a WhatsApp Cloud API access token"),
         Operation("message.send", "POST", "/v13.0/{phoneNumberId}/messages",
                   body=("messaging_product", "to", "type", "text")),
         Operation("media.mediaUrlGet", "GET", "/v13.0/{mediaGetId}")),
    _app("reddit", "reddit", "https://oauth.reddit.com", Secret(Auth.BEARER, "REDDIT_TOKEN", what="a Reddit OAuth token"),
         Operation("post.getAll", "GET", "/r/{subreddit}/{category}.json", query=("limit",),
                   note="n8n outputs each post's data (children[].data); 'hot' unless filters.category says")),
    _app("youtube", "youtube", "https://www.googleapis.com",
         Secret(Auth.BEARER, "YOUTUBE_TOKEN", what="a Google OAuth access token"),
         Operation("video.upload", "POST", "/upload/youtube/v3/videos", query=("uploadType", "part", "notifySubscribers"),
                   note="a resumable upload of the item's binary video, then PUT of the bytes")),
    _app("x", "x", "https://api.twitter.com", Secret(Auth.BEARER, "X_TOKEN", what="an X (Twitter) OAuth2 token"),
         Operation("tweet.create", "POST", "/2/tweets", body=("text", "reply", "media", "quote_tweet_id"))),
)

"""Catalogue rows the Make app modules need beyond the shared ones (public REST API facts).

The calls Make's modules send for Airtable (update one record), Slack (search messages), Twilio
(send an SMS), Instagram for Business and Facebook Pages (the Graph API), Discord (create a
message), ClickUp (list and edit tasks), Fatture in Cloud (received documents) and Gemini (upload a
file). Paths and fields are the apps' documented REST APIs; ``harness.catalogue.merged`` joins an
app named here with the same app's rows elsewhere (Airtable, Slack, Gemini).
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Pagination, Secret

_GRAPH = "https://graph.facebook.com"
GRAPH_VERSION = "v21.0"  # the Graph API version these paths name


def _app(name: str, provider: str, base_url: str, secret: Secret | None, *operations: Operation) -> App:
    return App(name, provider, base_url, secret, {op.name: op for op in operations})


_GRAPH_SECRET = Secret(Auth.BEARER, "FACEBOOK_TOKEN", what="a Facebook access token (a Page token for Pages)")

MAKE_APPS: tuple[App, ...] = (
    _app("airtable", "airtable", "https://api.airtable.com", Secret(Auth.BEARER, "AIRTABLE_TOKEN", what="an Airtable token"),
         Operation("record.patch", "PATCH", "/v0/{base}/{table}/{id}", body=("fields", "typecast", "returnFieldsByFieldId"),
                   note="one record; fields left out keep their values")),
    _app("slack", "slack", "https://slack.com", Secret(Auth.BEARER, "SLACK_TOKEN", what="a Slack bot token"),
         Operation("message.search", "GET", "/api/search.messages", query=("query", "count", "sort", "sort_dir", "page"),
                   pagination=Pagination("page", "page", limit="count"),
                   note="a user token (search:read); the hits are messages.matches[]")),
    _app("gemini", "gemini", "https://generativelanguage.googleapis.com",
         Secret(Auth.HEADER, "GEMINI_API_KEY", name="x-goog-api-key", what="a Gemini API key (n8n's googlePalmApi)"),
         Operation("file.upload", "POST", "/upload/v1beta/files",
                   note="the file's bytes (X-Goog-Upload-Protocol: raw); the answer's file{name, uri, mimeType, …}")),
    _app("stripe", "stripe", "https://api.stripe.com", Secret(Auth.BEARER, "STRIPE_KEY", what="a Stripe secret key"),
         Operation("invoice.create", "POST", "/v1/invoices",
                   body=("customer", "auto_advance", "collection_method", "description", "subscription", "metadata",
                         "custom_fields", "days_until_due", "due_date", "footer", "default_payment_method",
                         "default_source", "default_tax_rates", "discounts", "statement_descriptor", "transfer_data",
                         "application_fee_amount", "pending_invoice_items_behavior"), form=True),
         Operation("invoice.finalize", "POST", "/v1/invoices/{invoice}/finalize", body=("auto_advance",), form=True)),
    _app("perplexity", "perplexity", "https://api.perplexity.ai",
         Secret(Auth.BEARER, "PERPLEXITY_API_KEY", what="a Perplexity API key"),
         Operation("chat.complete", "POST", "/chat/completions",
                   body=("model", "messages", "max_tokens", "temperature", "top_p", "top_k", "presence_penalty",
                         "frequency_penalty", "search_domain_filter", "search_recency_filter", "return_images",
                         "return_related_questions"), note="OpenAI's chat completion shape, with citations")),
    _app("twilio", "twilio", "https://api.twilio.com",
         Secret(Auth.BASIC, "TWILIO_BASIC_AUTH", what="the account SID and auth token (SID:token)"),
         Operation("message.create", "POST", "/2010-04-01/Accounts/{AccountSid}/Messages.json",
                   body=("To", "From", "MessagingServiceSid", "Body", "MediaUrl", "StatusCallback", "ApplicationSid",
                         "MaxPrice", "ProvideFeedback", "ValidityPeriod", "SmartEncoded"), form=True,
                   note="the answer is the Message resource")),
    _app("instagram-business", "facebook", _GRAPH, _GRAPH_SECRET,
         Operation("media.create", "POST", f"/{GRAPH_VERSION}/{{accountId}}/media",
                   body=("image_url", "caption", "user_tags", "location_id"), note="a media container: {id}"),
         Operation("media.publish", "POST", f"/{GRAPH_VERSION}/{{accountId}}/media_publish", body=("creation_id",),
                   note="publishes a container: {id} of the media")),
    _app("facebook-pages", "facebook", _GRAPH, _GRAPH_SECRET,
         Operation("post.create", "POST", f"/{GRAPH_VERSION}/{{page_id}}/feed",
                   body=("message", "link", "name", "description", "published", "scheduled_publish_time", "attached_media"),
                   note="a Page access token; the answer is {id}"),
         Operation("photo.create", "POST", f"/{GRAPH_VERSION}/{{page_id}}/photos", body=("url", "caption", "published"),
                   note="a Page access token; the answer is {id, post_id}")),
    _app("linkedin", "linkedin", "https://api.linkedin.com",
         Secret(Auth.BEARER, "LINKEDIN_TOKEN", what="a LinkedIn OAuth token (w_member_social)"),
         Operation("post.create", "POST", "/rest/posts",
                   body=("author", "commentary", "visibility", "distribution", "lifecycleState",
                         "isReshareDisabledByAuthor", "content"),
                   note="headers LinkedIn-Version: YYYYMM and X-Restli-Protocol-Version: 2.0.0; the new post's "
                        "URN is the x-restli-id header")),
    _app("discord", "discord", "https://discord.com",
         Secret(Auth.HEADER, "DISCORD_BOT_AUTHORIZATION", name="Authorization", what="'Bot <token>' of a Discord bot"),
         Operation("message.create", "POST", "/api/v10/channels/{channelId}/messages",
                   body=("content", "tts", "embeds", "message_reference", "payload_json"),
                   note="with files, a multipart form: payload_json and files[n]; the answer is the message")),
    _app("clickup", "clickup", "https://api.clickup.com",
         Secret(Auth.HEADER, "CLICKUP_AUTHORIZATION", name="Authorization", what="a ClickUp token"),
         Operation("task.getAll", "GET", "/api/v2/list/{list_id}/task",
                   query=("archived", "include_closed", "subtasks", "statuses[]", "assignees[]", "order_by", "reverse",
                          "due_date_gt", "due_date_lt", "date_created_gt", "date_created_lt", "date_updated_gt",
                          "date_updated_lt", "page"),
                   pagination=Pagination("page", "page"), note="100 tasks a page, tasks[]; last_page says the end"),
         Operation("task.update", "PUT", "/api/v2/task/{task_id}",
                   body=("name", "description", "markdown_description", "status", "priority", "due_date",
                         "due_date_time", "time_estimate", "start_date", "start_date_time", "assignees", "archived",
                         "parent", "points"), note="the answer is the task")),
    _app("fatture-in-cloud", "fatture-in-cloud", "https://api-v2.fattureincloud.it",
         Secret(Auth.BEARER, "FATTURE_IN_CLOUD_TOKEN", what="a Fatture in Cloud access token"),
         Operation("receivedDocument.list", "GET", "/c/{company_id}/received_documents",
                   query=("type", "fields", "fieldset", "sort", "page", "per_page", "q"),
                   pagination=Pagination("page", "page", "next_page_url", "per_page"), note="the documents are data[]")),
)

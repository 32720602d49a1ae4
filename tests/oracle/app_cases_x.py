"""X (Twitter) v2 tweet.create cases for ``app_oracle``: ``POST /2/tweets`` (the answer: ``data`` with id and text)."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

TWITTER = "n8n-nodes-base.twitter"
OAUTH = Credential("twitterOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                        "oauthTokenData": {"access_token": TOKEN, "token_type": "bearer"}})
_CREATED = Reply("POST", "/2/tweets", {"data": {"id": "1445880548472328192", "text": "Hello",
                                                "edit_history_tweet_ids": ["1445880548472328192"]}})

CASES = [
    AppCase("twitter v2 tweet.create text", TWITTER, 2, {"text": "={{ $json.postText }}", "additionalFields": {}},
            OAUTH, [_CREATED], items=({"postText": "Hello"}, {"postText": "Trend: #n8n"})),
    AppCase("twitter v2 tweet.create reply, quote, media and place", TWITTER, 2,
            {"text": "Thread", "additionalFields": {
                "inReplyToStatusId": {"__rl": True, "mode": "id", "value": "={{ $json.reply }}"},
                "inQuoteToStatusId": {"__rl": True, "mode": "id", "value": "1445880548472328100"},
                "attachments": "1455952740635586573", "location": "df51dec6f4ee2b2c"}},
            OAUTH, [_CREATED], items=({"reply": "1445880548472328111"},)),
]

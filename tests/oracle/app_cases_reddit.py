"""Reddit v1 post.getAll cases for ``app_oracle``: a subreddit's listing (Reddit's Listing of t3 Things), paged as n8n pages it."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

REDDIT = "n8n-nodes-base.reddit"
OAUTH = Credential("redditOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                       "oauthTokenData": {"access_token": TOKEN, "token_type": "bearer"}})


def _post(n: int) -> dict[str, object]:
    return {"kind": "t3", "data": {"id": f"p{n}", "name": f"t3_p{n}", "title": f"Post {n}", "subreddit": "saas",
                                    "score": 100 - n, "num_comments": n, "url": f"https://example.test/{n}",
                                    "created_utc": 1733000000.0 + n}}


def _page(first: int, count: int, after: str | None) -> dict[str, object]:
    return {"kind": "Listing", "data": {"after": after, "dist": count, "before": None,
                                        "children": [_post(n) for n in range(first, first + count)]}}


CASES = [
    AppCase("reddit v1 post.getAll top, limit 5", REDDIT, 1,
            {"operation": "getAll", "subreddit": "saas", "limit": 5, "filters": {"category": "top"}}, OAUTH,
            [Reply("GET", "/r/saas/top.json", _page(1, 7, None))]),
    AppCase("reddit v1 post.getAll front listing, two pages, limit 3", REDDIT, 1,
            {"operation": "getAll", "subreddit": "={{ $json.sub }}", "limit": 3}, OAUTH,
            [Reply("GET", "/r/saas.json", _page(1, 2, "t3_p2"), times=1), Reply("GET", "/r/saas.json", _page(3, 2, None))],
            items=({"sub": "saas"},)),
    AppCase("reddit v1 post.getAll new, return all", REDDIT, 1,
            {"operation": "getAll", "subreddit": "saas", "returnAll": True, "filters": {"category": "new"}}, OAUTH,
            [Reply("GET", "/r/saas/new.json", _page(1, 2, "t3_p2"), times=1), Reply("GET", "/r/saas/new.json", _page(3, 1, None))]),
]

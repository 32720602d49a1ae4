"""Web-form lead routing, migrated from a Make scenario ("Lead routing").

On each form submission: leads from free-mail domains are junk; the rest are routed enterprise
(more than 1,000 employees, from the form's ``employees`` field) or smb, and created as HubSpot
contacts. A lead without an employee count is treated as smb, as the Make route filter did (an
empty number is not greater than 1000).
"""

from __future__ import annotations

from queue_core import Context, Trigger, automation

FREE_MAIL = frozenset({
    "gmail.com", "googlemail.com", "yahoo.com", "hotmail.com", "outlook.com", "icloud.com",
    "aol.com", "proton.me", "gmx.de", "web.de",
})
ENTERPRISE_EMPLOYEES = 1000


def email_domain(email: str) -> str:
    """Return the lower-cased domain of an email address ('' when there is none)."""
    return email.strip().lower().rpartition("@")[2]


@automation("lead-router", version=4)
async def lead_router(ctx: Context, trigger: Trigger) -> None:
    """Route a web-form lead and create it in HubSpot."""
    lead = trigger.body
    email = str(lead.get("email") or "").strip().lower()
    domain = email_domain(email)
    if not domain or domain in FREE_MAIL:
        ctx.decide("route", "junk")
        return
    employees = int(str(lead.get("employees") or "0").strip() or 0)
    tier = "enterprise" if employees > ENTERPRISE_EMPLOYEES else "smb"
    ctx.decide("route", tier)
    properties = {
        "email": email,
        "firstname": lead.get("first_name"),
        "lastname": lead.get("last_name"),
        "company": lead.get("company"),
        "lead_tier": tier,
        "hs_lead_status": "NEW",
    }
    await ctx.call("hubspot", "POST", "/crm/v3/objects/contacts", json={"properties": properties}, step="create-contact")

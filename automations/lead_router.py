"""Web-form lead routing, migrated from a Make scenario ("Lead routing").

On each form submission: leads from free-mail domains are junk; the rest are enriched through
Clearbit's company lookup, routed enterprise (more than 1,000 employees) or smb, and created as
HubSpot contacts. A company without an employee count is treated as smb, as the Make filter did.
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


@automation("lead-router", version=3)
async def lead_router(ctx: Context, trigger: Trigger) -> None:
    """Route a web-form lead and create it in HubSpot."""
    lead = trigger.body
    email = str(lead.get("email") or "").strip().lower()
    domain = email_domain(email)
    if not domain or domain in FREE_MAIL:
        ctx.decide("route", "junk")
        return
    found = await ctx.call("clearbit", "GET", f"/v2/companies/find?domain={domain}", step="enrich")
    company = found.json()
    employees = (company.get("metrics") or {}).get("employees") or 0
    tier = "enterprise" if employees > ENTERPRISE_EMPLOYEES else "smb"
    ctx.decide("route", tier)
    properties = {
        "email": email,
        "firstname": lead.get("first_name"),
        "lastname": lead.get("last_name"),
        "company": company.get("name") or lead.get("company"),
        "lead_tier": tier,
        "hs_lead_status": "NEW",
    }
    await ctx.call("hubspot", "POST", "/crm/v3/objects/contacts", json={"properties": properties}, step="create-contact")

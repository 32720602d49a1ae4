"""Failed-payment dunning, migrated from a Zapier zap ("Stripe failed payment → dunning email").

On each Stripe ``invoice.payment_failed`` event: stop (filtered) when the invoice is for the free
plan (the plan is the price's ``metadata.plan`` on the invoice line, as the zap's "Only paid
plans" filter read it), pick the dunning stage from the attempt count (the zap's Paths), and send
the stage's Postmark template. Final notices add a 5% late fee, rounded half-up to the cent as
the zap's Formatter step did (Python's ``round`` would round half to even and disagree).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from queue_core import Context, Trigger, automation

SENDER = "billing@acme.test"
LATE_FEE = Decimal("1.05")
CENT = Decimal("0.01")


def plan_of(invoice: dict[str, Any]) -> str:
    """Return the plan of the invoice's first line (its price's ``metadata.plan``; free when absent)."""
    lines = (invoice.get("lines") or {}).get("data") or [{}]
    return str(((lines[0].get("price") or {}).get("metadata") or {}).get("plan") or "free")


def stage_for(attempt_count: int) -> str:
    """Return the dunning stage for Stripe's ``attempt_count``: reminder, warning or final."""
    if attempt_count <= 1:
        return "reminder"
    return "warning" if attempt_count == 2 else "final"


def amount_text(amount_due: int, stage: str) -> str:
    """Format the amount owed (cents → units), adding the late fee on final notices, half-up."""
    amount = Decimal(amount_due) / 100
    if stage == "final":
        amount *= LATE_FEE
    return str(amount.quantize(CENT, rounding=ROUND_HALF_UP))


@automation("payment-dunning", version=5)
async def payment_dunning(ctx: Context, trigger: Trigger) -> None:
    """Send the right dunning email for a failed invoice payment."""
    invoice = trigger.body["data"]["object"]
    paid = plan_of(invoice) != "free"
    ctx.decide("paid_plan", paid)
    if not paid:
        ctx.filter("the invoice is for the free plan")
    stage = stage_for(int(invoice["attempt_count"]))
    ctx.decide("stage", stage)
    email = {
        "From": SENDER,
        "To": invoice["customer_email"],
        "TemplateAlias": f"dunning-{stage}",
        "TemplateModel": {
            "customer_name": invoice.get("customer_name"),
            "amount": amount_text(int(invoice["amount_due"]), stage),
            "currency": str(invoice["currency"]).upper(),
            "invoice_url": invoice["hosted_invoice_url"],
        },
    }
    await ctx.call("postmark", "POST", "/email/withTemplate", json=email, step="send-email")

"""Pinned cases of Make's Stripe modules: Create a customer, Create an invoice, Finalize an invoice.

The mappers are shaped as Make's Stripe modules export them (every field present, most empty);
the call is Stripe's form POST with nested fields bracketed; Make outputs Stripe's object.
"""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_STRIPE = ("https://www.make.com/en/help/app/stripe (Create a customer, Create an invoice, Finalize an invoice: the "
           "object Stripe returns); https://docs.stripe.com/api/customers/create; "
           "https://docs.stripe.com/api/invoices/create; https://docs.stripe.com/api/invoices/finalize")
_D = {"designer": {"x": 300, "y": 0}}
_ADDRESS = {"city": "", "line1": "", "line2": "", "state": "", "country": "", "postal_code": ""}


def _module(module: str, mapper: dict) -> dict:
    return {"module": module, "version": 1, "parameters": {"__IMTCONN__": 1}, "mapper": mapper, "metadata": _D}


CASES = [
    MakeCase(
        id="stripe-create-customer",
        module=_module("stripe:createCustomer", {
            "name": "{{1.Name}}", "email": "{{1.email}}", "phone": "", "coupon": "", "source": "",
            "address": {**_ADDRESS, "city": "{{1.city}}", "country": "IT"}, "balance": "", "description": "",
            "metadata": [{"key": "origin", "value": "form"}], "tax_id_data": [], "preferred_locales": ["it"],
            "shipping": {"name": "", "phone": "", "address": dict(_ADDRESS)}, "tax_exempt": "",
            "invoice_settings": {"footer": "", "custom_fields": [], "default_payment_method": ""}}),
        input={"Name": "Ada", "email": "ada@example.test", "city": "Roma"},
        replies=(Reply(200, json={"id": "cus_1", "object": "customer", "email": "ada@example.test"}),),
        calls=(Call("POST", "https://api.stripe.com/v1/customers", provider="stripe", data={
            "name": "Ada", "email": "ada@example.test", "address[city]": "Roma", "address[country]": "IT",
            "metadata[origin]": "form", "preferred_locales[0]": "it"}),),
        output=[{"id": "cus_1", "object": "customer", "email": "ada@example.test"}], source=_STRIPE),
    MakeCase(
        id="stripe-create-invoice",
        module=_module("stripe:createInvoice", {
            "customer": "{{1.customer}}", "auto_advance": False, "collection_method": "send_invoice",
            "days_until_due": "30", "custom_fields": [{"name": "PO", "value": "{{1.po}}"}], "metadata": [],
            "default_tax_rates": [], "statement_descriptor": "", "application_fee_amount": "",
            "pending_invoice_items_behavior": "include"}),
        input={"customer": "cus_1", "po": "PO-7"},
        replies=(Reply(200, json={"id": "in_1", "object": "invoice", "status": "draft"}),),
        calls=(Call("POST", "https://api.stripe.com/v1/invoices", data={
            "customer": "cus_1", "auto_advance": "false", "collection_method": "send_invoice", "days_until_due": "30",
            "custom_fields[0][name]": "PO", "custom_fields[0][value]": "PO-7",
            "pending_invoice_items_behavior": "include"}),),
        output=[{"id": "in_1", "object": "invoice", "status": "draft"}], source=_STRIPE),
    MakeCase(
        id="stripe-finalize-invoice",
        module=_module("stripe:finalizeInvoice", {"invoice": "{{1.id}}"}),
        input={"id": "in_1"},
        replies=(Reply(200, json={"id": "in_1", "status": "open", "hosted_invoice_url": "https://invoice.stripe/i"}),),
        calls=(Call("POST", "https://api.stripe.com/v1/invoices/in_1/finalize"),),
        output=[{"id": "in_1", "status": "open", "hosted_invoice_url": "https://invoice.stripe/i"}], source=_STRIPE),
]

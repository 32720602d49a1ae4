"""Make's payment apps onto the catalogue: Stripe (Create a customer, Create an invoice, Finalize an invoice).

Stripe's modules carry Stripe's own field names (``email``, ``address.line1``, ``metadata`` as
key/value pairs, ``collection_method``…); the call is Stripe's form POST (nested fields as
``address[line1]``, ``metadata[key]``; a date as Unix seconds) and Make outputs the object Stripe
answers as it is (a blueprint maps ``{{5.id}}`` of a created invoice and ``{{7.hosted_invoice_url}}``
of a finalized one).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps._call import guarded, op_call, required
from harness.platforms.make.translate.base import Gen, ModuleCode
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import call, dict_of

_NUMBERS = ("balance", "next_invoice_sequence", "days_until_due", "application_fee_amount")
_DATES = ("due_date",)


def _form(module: Module, required_fields: tuple[str, ...] = ()) -> ast.expr:
    for key in required_fields:
        required(module, key)
    pairs: list[tuple[str, ast.expr]] = []
    for key, raw in module.mapper.items():
        value = template(raw)
        if key in _NUMBERS:
            value = call("make.apps.num", value, key)
        elif key in _DATES:
            value = call("make.apps.epoch_s", value)
        pairs.append((key, value))
    return call("make.apps.stripe_form", dict_of(pairs))


def create_customer(module: Module, gen: Gen) -> ModuleCode:
    """Stripe Create a customer: POST ``/v1/customers``; the Customer object."""
    return op_call(module, gen, "stripe", "customer.create", shape="body", data=_form(module))


def create_invoice(module: Module, gen: Gen) -> ModuleCode:
    """Stripe Create an invoice: POST ``/v1/invoices``; the Invoice object."""
    return op_call(module, gen, "stripe", "invoice.create", shape="body", data=_form(module, ("customer",)))


def finalize_invoice(module: Module, gen: Gen) -> ModuleCode:
    """Stripe Finalize an invoice: POST ``/v1/invoices/{invoice}/finalize``; the Invoice object."""
    invoice = required(module, "invoice", "Invoice ID")
    rest = {k: v for k, v in module.mapper.items() if k != "invoice"}
    form = call("make.apps.stripe_form", dict_of((k, template(v)) for k, v in rest.items()))
    return op_call(module, gen, "stripe", "invoice.finalize", shape="body", path={"invoice": invoice}, data=form)


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = guarded({
    "stripe:createCustomer": create_customer, "stripe:createInvoice": create_invoice,
    "stripe:finalizeInvoice": finalize_invoice,
})
OPERATIONS: dict[str, tuple[str, str]] = {
    "stripe:createCustomer": ("stripe", "customer.create"), "stripe:createInvoice": ("stripe", "invoice.create"),
    "stripe:finalizeInvoice": ("stripe", "invoice.finalize"),
}

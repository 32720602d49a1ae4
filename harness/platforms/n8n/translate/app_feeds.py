"""Translate n8n's RSS Read node (v1, v1.1, v1.2): one GET per run (v1) or per item (v1.1+).

The fetch is ``ctx.call(provider, "GET", url, headers=…)``, the provider the one configured for
the URL's host (proposed when none is), or, for a URL an expression computes, the configured
provider its value starts with, chosen at run time (``n8n.provider_of``, as HTTP Request does);
the answer becomes n8n's items with rss-parser's item shape (``n8n.rss_items``). Options: Custom
Fields; Ignore SSL is the provider's (its TLS settings), not the node's. The gateway does not
follow redirects (rss-parser follows five).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold._code import call, name, stmts
from harness.scaffold._provider import provider_for

_USER_AGENT = "rss-parser"  # rss-parser's own header, sent by every version
_ACCEPT = {1.2: ("application/rss+xml, application/rdf+xml;q=0.8, application/atom+xml;q=0.6, "
                 "application/xml;q=0.4, text/xml;q=0.4")}


def rss_node(node: Node, slot: Slot) -> NodeCode:
    """RSS Read v1/v1.1/v1.2: fetch the feed (once, or once per item from v1.1), its items the output."""
    if node.version not in (1, 1.1, 1.2):
        raise Untranslatable(f"RSS Read v{node.version:g} is not translated (v1, v1.1 and v1.2 are)")
    if node.on_error != "stop":
        raise Untranslatable("RSS Read set to continue on error is not translated: its error item carries "
                             "rss-parser's message, which this runtime does not reproduce")
    node = replace(node, parameters=node.settings)
    params = node.parameters
    options = params.get("options") or {}
    try:
        provider, _, proposals = provider_for(params.get("url"), slot.providers)
        provider_source: ast.expr = ast.Constant(provider)
    except Untranslatable:  # the host is computed: the configured provider for the URL, at run time
        proposals = {}
        provider_source = call("n8n.provider_of", name("ctx"), name("url"), node.name)
    headers = {"User-Agent": _USER_AGENT, "Accept": _ACCEPT.get(node.version, "application/rss+xml")}
    custom = expr.value(options.get("customFields", ""))
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    runs = "items[:1]" if node.version < 1.1 else "items"  # v1 reads the feed once, whatever its input
    source = (f"items = $inp\n$var: n8n.Items = []\nfor i, item in enumerate({runs}):\n"
              "    url = n8n.rss_url($url, node=$node)\n"
              "    response = await ctx.call($provider, 'GET', url, headers=$headers, step=$step)\n"
              "    $var.extend(n8n.rss_items(response, n8n.rss_fields($custom), node=$node))\n"
              "if items:\n    flow.emit($node, $var)")
    lines = [comment(node), *stmts(source, inp=inp, var=name(slot.var), url=expr.value(params.get("url")),
                                   node=node.name, provider=provider_source, headers=headers, step=slot.step,
                                   custom=custom)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


TRANSLATORS = {"rssFeedRead": rss_node}

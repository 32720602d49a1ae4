"""Asana v1 task and subtask create: n8n's ``{data: …}`` body (respx answers) and the answer's data as the item."""

from __future__ import annotations

import httpx
import respx

from tests.support.app_calls import run_node

RECORDED = {"X-Cutover-Recorded": "recording"}  # the gateway's mark on an answer from a recording

BASES = {"asana": "https://app.asana.com"}


def _node(resource: str, **params: object) -> dict[str, object]:
    return {"name": "Asana", "type": "n8n-nodes-base.asana", "typeVersion": 1,
            "parameters": {"authentication": "oAuth2", "resource": resource, **params}}


@respx.mock
def test_task_create_posts_name_workspace_and_the_other_properties_inside_data() -> None:
    respx.post("https://app.asana.com/api/1.0/tasks").mock(
        return_value=httpx.Response(201, json={"data": {"gid": "77", "name": "Onboard"}}))
    node = _node("task", workspace="123", name="Onboard",
                 otherProperties={"assignee": "={{ $json.email }}", "projects": ["9"]})
    ctx, out, error = run_node(node, [{"email": "ada@x.test"}], BASES)
    assert error is None
    assert ctx.sent == [("asana", "POST", "https://app.asana.com/api/1.0/tasks", {"data": {
        "name": "Onboard", "workspace": "123", "assignee": "ada@x.test", "projects": ["9"]}})]
    assert out == [{"gid": "77", "name": "Onboard"}]


@respx.mock
def test_subtask_create_posts_to_the_parent_task_per_item() -> None:
    route = respx.post(url__regex=r"https://app.asana.com/api/1.0/tasks/\d+/subtasks").mock(
        side_effect=lambda request: httpx.Response(201, json={"data": {"gid": request.url.path.split("/")[-2] + "s"}}))
    node = _node("subtask", taskId="={{ $json.gid }}", name="Collect ID", otherProperties={"notes": "desk"})
    ctx, out, error = run_node(node, [{"gid": "1"}, {"gid": "2"}], BASES)
    assert error is None and route.call_count == 2
    assert [s[2] for s in ctx.sent] == ["https://app.asana.com/api/1.0/tasks/1/subtasks",
                                        "https://app.asana.com/api/1.0/tasks/2/subtasks"]
    assert ctx.sent[0][3] == {"data": {"name": "Collect ID", "notes": "desk"}}
    assert out == [{"gid": "1s"}, {"gid": "2s"}]


@respx.mock
def test_a_recorded_output_without_the_data_envelope_is_the_item_as_it_is() -> None:
    respx.post("https://app.asana.com/api/1.0/tasks/5/subtasks").mock(
        return_value=httpx.Response(200, json={"gid": "r1", "name": "Recorded"}, headers=RECORDED))
    _, out, error = run_node(_node("subtask", taskId="5", name="x"), [{}], BASES)
    assert error is None and out == [{"gid": "r1", "name": "Recorded"}]

"""Workflow functions and the ``@{…}`` forms: the reference's examples, with the run state they read."""

from __future__ import annotations

from tests.conformance.wdl._case import Case

FEED = "https://feeds.a.dj.com/rss/RSSMarketsMain.xml"
USER = {"FullName": "Contoso Corporation", "Location": "Generic Town, USA", "Id": 283541717, "UserName": "ContosoInc"}
GET_USER = {"outputs": {"Get_user": {"statusCode": 200, "headers": {"Content-Type": "application/json; charset=utf-8"},
                                     "body": USER}}}
WORKFLOW = {"workflow": {"name": "d0a1b2c3", "run": {"name": "08585"},
                         "tags": {"environmentName": "Default-1234", "flowDisplayName": "My flow"}}}

CASES = [
    Case("@parameters('fullName')", "Sophia Owen", "#parameters", {"parameters": {"fullName": "Sophia Owen"}}),
    Case("@variables('numItems')", 20, "#variables", {"variables": {"numItems": 20}}),
    Case("@body('Get_user')", USER, "#body", GET_USER),
    Case("@actionBody('Get_user')", USER, "#actionBody", GET_USER),
    Case("@outputs('Get_user')", GET_USER["outputs"]["Get_user"], "#outputs", GET_USER),
    Case("@actionOutputs('Get_user')", GET_USER["outputs"]["Get_user"], "#actionOutputs", GET_USER),
    Case("@actions('Get_user').outputs.body.status", "Succeeded", "#actions",
         {"outputs": {"Get_user": {"body": {"status": "Succeeded"}}}}),
    Case("@item().body", "hello", "#item", {"items": {"For_each": {"body": "hello"}}, "loops": ["For_each"]}),
    Case("@items('myForEachLoopName')", {"id": 1}, "#items", {"items": {"myForEachLoopName": {"id": 1}}}),
    Case("'Current index: ' @{iterationIndexes('Until_Max_Increment')}", "'Current index: ' 2", "#iterationIndexes",
         {"iterations": {"Until_Max_Increment": 2}}),
    Case("@workflow().run.name", "08585", "#workflow example 1", WORKFLOW),
    Case("<a href=https://flow.microsoft.com/manage/environments/@{workflow()['tags']['environmentName']}/flows/"
         "@{workflow()['name']}/details>Open flow @{workflow()['tags']['flowDisplayName']}</a>",
         "<a href=https://flow.microsoft.com/manage/environments/Default-1234/flows/d0a1b2c3/details>Open flow My flow</a>",
         "#workflow example 2", WORKFLOW),
    Case("@{triggerBody()?['123']}", "456", "#implicit-data-conversions (a number where a string is expected)",
         {"trigger_body": {"123": 456}}),
    Case("@triggerBody()?['123']", 456, "#implicit-data-conversions (the value itself keeps its type)",
         {"trigger_body": {"123": 456}}),
    Case("@triggerFormDataValue('feedUrl')", FEED, "#triggerFormDataValue",
         {"trigger_body": {"$content-type": "application/x-www-form-urlencoded",
                           "$formdata": [{"key": "feedUrl", "value": FEED}]}}),
    Case("@triggerFormDataMultiValues('feedUrl')", [FEED], "#triggerFormDataMultiValues",
         {"trigger_body": {"$content-type": "application/x-www-form-urlencoded",
                           "$formdata": [{"key": "feedUrl", "value": FEED}]}}),
    Case("@formDataValue('Send_an_email', 'Subject')", "Hello world", "#formDataValue",
         {"outputs": {"Send_an_email": {"body": {"$formdata": [{"key": "Subject", "value": "Hello world"}]}}}}),
    Case("@formDataMultiValues('Send_an_email', 'Subject')", ["Hello world"], "#formDataMultiValues",
         {"outputs": {"Send_an_email": {"body": {"$formdata": [{"key": "Subject", "value": "Hello world"}]}}}}),
    Case("@concat('Sophia', 'Owen')", "SophiaOwen", "#functions-in-expressions"),
    Case("@concat(parameters('firstName'), parameters('lastName'))", "SophiaOwen", "#functions-in-expressions",
         {"parameters": {"firstName": "Sophia", "lastName": "Owen"}}),
]

"""The shadow run: replay a recording set through the migrated automations and judge each trigger."""

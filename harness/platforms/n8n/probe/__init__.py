"""``cutover scaffold probe-triggers``: synthetic triggers for the branches of an n8n workflow no
recorded trigger took.

``search`` finds the probes (``reads`` says which trigger fields a branch's conditions read,
``values`` proposes values for them, ``oracle`` runs the translated conditions); ``files`` writes
them beside the set, ``dry`` runs them through the current code, ``report`` tells a reviewer.
"""

"""placeholder"""
TRIGGER_TRANSLATORS = {}

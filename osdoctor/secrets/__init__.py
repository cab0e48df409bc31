"""Secrets: which names and values are secret, and their redaction, masking and anonymisation."""

"""The support team's runbook and symptom lookup, generated from the knowledge base.

Both read the same scenarios and rules that explain logs, so the runbook can
never disagree with what ``osdoctor explain`` says.
"""

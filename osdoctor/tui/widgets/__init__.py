"""The panes of the incident screen."""

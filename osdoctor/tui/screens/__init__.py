"""Screens of the incident TUI: the main screen and its dialogs."""

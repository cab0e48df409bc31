"""Running the user's client command: its command line, the process, and the session it records."""
